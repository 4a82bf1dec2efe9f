/**
 * What Netron shows on the graph, shown here too (issue 16 items 1 and 4): constant inputs inside
 * the node boxes with their type on hover, the display toggles (keys and palette, kept in the URL
 * hash), two edges with two labels for two tensors between the same nodes, smooth curves.
 * The canvas is checked through what a person reads: the tooltip, the SVG export (the same scene
 * drawn as text), the node boxes' overlay elements and screenshots.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dropFiles, screenshotPath } from './support/studio';
import { write } from '../src/core/circle/write';
import { resnetLikeCircle } from '../test/support/circle-synthetic';

async function exportSvg(page: Page): Promise<string> {
  const download = page.waitForEvent('download');
  await page.getByRole('button', { name: 'SVG' }).click();
  return readFileSync((await (await download).path())!, 'utf8');
}

/** Texts of the tooltip while the pointer moves from (x0, y) to (x1, y), one pixel at a time. */
async function tipsAcross(page: Page, x0: number, x1: number, y: number): Promise<string[]> {
  const tip = page.getByTestId('graph-tooltip');
  const seen: string[] = [];
  for (let x = x0; x <= x1; x += 1) {
    await page.mouse.move(x, y);
    const text = (await tip.isVisible()) ? await tip.textContent() : '';
    if (text && !seen.includes(text)) seen.push(text);
  }
  return seen;
}

test.describe('node boxes and edges as Netron draws them', () => {
  test('constant inputs in the box with their type on hover; attributes, weights and names toggled by keys and the palette, kept in the hash', async ({ page }) => {
    await page.goto('/?sample=resnet_like_1000.circle');
    const status = page.getByRole('status');
    await expect(status).toContainText('1,000 nodes');
    const conv = page.getByRole('button', { name: 'CONV_2D block0/conv', exact: true });
    await expect(conv).toBeVisible();
    await page.screenshot({ path: screenshotPath('graph-display-weights') });

    // the filter and bias rows, as Netron writes them
    let svg = await exportSvg(page);
    expect(svg).toContain('<tspan font-weight="bold">filter</tspan> \u27e88\u00d71\u00d71\u00d78\u27e9');
    expect(svg).toContain('<tspan font-weight="bold">bias</tspan> \u27e88\u27e9');

    // hovering the filter row tells its dtype and shape
    const box = (await conv.boundingBox())!;
    const tips = await tipsAcross(page, box.x + 10, box.x + 14, box.y + box.height - 14);
    expect(tips).toContain('filter: float32[8,1,1,8]');
    await page.screenshot({ path: screenshotPath('graph-display-row-tip') });

    // Ctrl+I hides the weights: the box gets shorter, the hash remembers
    const before = box.height;
    await page.mouse.move(box.x - 40, box.y);
    await page.keyboard.press('Control+i');
    await expect(page).toHaveURL(/weights=0/);
    await expect.poll(async () => (await conv.boundingBox())?.height ?? before).toBeLessThan(before - 10);
    svg = await exportSvg(page);
    expect(svg).not.toContain('\u27e88\u00d71\u00d71\u00d78\u27e9');

    // Ctrl+U hides the names (the second line of the header)
    expect(svg).toContain('>block0/conv</text>');
    await page.keyboard.press('Control+u');
    await expect(page).toHaveURL(/names=0/);
    await expect.poll(async () => (await exportSvg(page)).includes('>block0/conv</text>')).toBe(false);
    await page.screenshot({ path: screenshotPath('graph-display-bare') });

    // a reload keeps the choice (the hash); the palette turns them back on by name
    await page.reload();
    await expect(status).toContainText('1,000 nodes');
    await expect(page).toHaveURL(/weights=0/);
    await page.keyboard.press('Control+Shift+P');
    const input = page.getByRole('dialog', { name: 'Command palette' }).getByRole('combobox', { name: 'Command' });
    await input.fill('show weights');
    await input.press('Enter');
    await page.keyboard.press('Control+Shift+P');
    await input.fill('show names');
    await input.press('Enter');
    await expect(page).not.toHaveURL(/weights=0|names=0/);
    await expect.poll(async () => (await exportSvg(page)).includes('\u27e88\u00d71\u00d71\u00d78\u27e9')).toBe(true);
  });

  test('attributes in the node: a scalar constant shows its value, options their non-default values', async ({ page }) => {
    await page.goto('/?sample=Part_Split_Add_000.circle');
    await expect(page.getByRole('status')).toContainText('2 nodes · 4 edges');
    await expect(page.getByRole('button', { name: 'SPLIT split1', exact: true })).toBeVisible();
    // weights on (the default): the scalar constant input reads `axis = 0`
    let svg = await exportSvg(page);
    expect(svg).toContain('>axis = 0</text>');
    expect(svg).not.toContain('num_splits = 2');
    // Ctrl+D adds the attributes
    await page.getByTestId('graph-canvas').hover({ position: { x: 5, y: 5 } });
    await page.keyboard.press('Control+d');
    await expect(page).toHaveURL(/attrs=1/);
    await expect.poll(async () => (svg = await exportSvg(page)).includes('num_splits = 2')).toBe(true);
    await page.screenshot({ path: screenshotPath('graph-display-attributes') });
  });

  test('two tensors between the same two nodes are two edges, each with its own label and tooltip', async ({ page }) => {
    await page.goto('/?sample=Part_Split_Add_000.circle');
    await expect(page.getByRole('status')).toContainText('2 nodes · 4 edges');
    const split = (await page.getByRole('button', { name: 'SPLIT split1', exact: true }).boundingBox())!;
    const add = (await page.getByRole('button', { name: 'ADD ofm', exact: true }).boundingBox())!;
    // between the two boxes, the pointer crosses both edges
    const y = (split.y + split.height + add.y) / 2;
    const tips = await tipsAcross(page, add.x - 10, add.x + add.width + 10, y);
    expect(tips.sort()).toEqual(['split1: float32[3,1,2]', 'split2: float32[3,1,2]']);
    await page.screenshot({ path: screenshotPath('graph-parallel-edges') });
    // the export: two paths and two labels, the labels apart
    const svg = await exportSvg(page);
    expect(svg).toContain('<title>split1 float32[3,1,2]</title>');
    expect(svg).toContain('<title>split2 float32[3,1,2]</title>');
    const labels = [...svg.matchAll(/<text x="([\d.-]+)" y="([\d.-]+)">float32\[3,1,2\]<\/text>/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(labels.length).toBe(3); // two between SPLIT and ADD, one to the output
    const [a, b] = labels.sort((p, q) => p[1]! - q[1]!);
    expect(Math.abs(a![0]! - b![0]!)).toBeGreaterThan(20);
  });

  test('a big graph is drawn first and its edge labels follow (placed in the layout worker meanwhile)', async ({ page }) => {
    test.setTimeout(180_000);
    const operators = 24_000; // 32,000 edges: past the 20,000 from which labels come after the scene
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'big.circle', bytes: write(resnetLikeCircle({ operators, name: 'big' })) }]);
    await expect(page.getByRole('status')).toContainText(`${operators.toLocaleString('en')} nodes`, { timeout: 120_000 });
    await expect(page.getByRole('button', { name: 'CONV_2D block0/conv', exact: true })).toBeVisible({ timeout: 120_000 });
    await expect.poll(() => page.evaluate(() => performance.getEntriesByName('npu:view:labels').length), { timeout: 120_000 }).toBeGreaterThan(0);
    await page.waitForTimeout(300);
    await page.screenshot({ path: screenshotPath('graph-big-labels') });
    // the labels are in the scene: the export writes them, clear of the edges
    const svg = await exportSvg(page);
    const labels = (svg.match(/<text x="[\d.-]+" y="[\d.-]+">float32\[1,16,16,8\]<\/text>/g) ?? []).length;
    expect(labels).toBeGreaterThan(operators);
  });

  test('edges are smooth curves: a skip connection bends as one curve', async ({ page }) => {
    await page.goto('/?sample=resnet_like_1000.circle');
    await expect(page.getByRole('status')).toContainText('1,000 nodes');
    await expect(page.getByRole('button', { name: 'CONV_2D block0/conv', exact: true })).toBeVisible();
    const svg = await exportSvg(page);
    // a skip connection has bend points: it is drawn with cubic pieces, never as a polyline
    const paths = [...svg.matchAll(/<path d="([^"]+)" marker-end/g)].map((m) => m[1]!);
    const curved = paths.filter((d) => d.includes('C'));
    expect(curved.length).toBeGreaterThan(300); // one skip per block of three operators
    expect(paths.filter((d) => !d.includes('C') && (d.match(/L/g) ?? []).length > 1)).toEqual([]);
    await page.screenshot({ path: screenshotPath('graph-curves') });
  });
});
