import { test, expect } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { chefModel, dropFiles, edgeCount, screenshotPath } from './support/studio';

test.describe('explore a circle model', () => {
  test('drop a chef-built model, counts, select, find, theme, export', async ({ page }) => {
    const { model, bytes } = chefModel('Part_If_Add_Sub_001');
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'Part_If_Add_Sub_001.circle', bytes }]);

    const status = page.getByRole('status');
    const ops = model.subgraphs[0]!.operators.length;
    await expect(status).toContainText(`${ops} node${ops === 1 ? '' : 's'} · ${edgeCount(model)} edges`);
    await expect(status).toContainText('Part_If_Add_Sub_001.circle');
    await expect(page.getByTestId('graph-canvas')).toBeVisible();
    await page.screenshot({ path: screenshotPath('explore-opened') });

    // select a node through its accessible name and read an option in the side panel
    await page.getByRole('button', { name: 'ADD add' }).click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    await expect(panel).toContainText('fused_activation_function');
    await expect(panel.getByRole('row', { name: /fused_activation_function/ })).toContainText('NONE');
    await expect(panel.locator('.node-panel')).not.toHaveAttribute('aria-busy'); // the details are the selected node's
    await page.screenshot({ path: screenshotPath('explore-selected') });

    // keyboard: from the selected node, ArrowDown follows the edge to its consumer (IF)
    await page.getByRole('button', { name: 'ADD add' }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', 'IF ofm');

    // find
    await page.keyboard.press('Control+f');
    await page.getByRole('searchbox', { name: 'Find' }).fill('sub');
    await expect(page.getByRole('listbox', { name: 'Find results' })).toContainText('SUB');
    await page.getByRole('searchbox', { name: 'Find' }).press('Enter');
    await expect(panel).toContainText('SUB');

    // subgraphs are selectable
    await page.getByRole('combobox', { name: 'Subgraph' }).selectOption({ index: 4 });
    const thenOps = model.subgraphs[4]!.operators.length;
    await expect(status).toContainText(`${thenOps} node${thenOps === 1 ? '' : 's'} · ${edgeCount(model, 4)} edges`);

    // theme
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.screenshot({ path: screenshotPath('explore-dark') });

    // export PNG
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'PNG' }).click();
    const file = await (await download).path();
    const png = readFileSync(file!);
    expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(png.length).toBeGreaterThan(1000);
  });

  test('the empty studio readies the next graph\'s canvas when idle, and the opened graph draws on it', async ({ page }) => {
    const { bytes } = chefModel('Part_Add_Sub_000');
    await page.goto('/?sample=none');
    // at the first idle moment: a canvas of the graph host's future size, made and shown blank twice
    await page.waitForFunction(() => performance.getEntriesByName('npu:view:canvas-presented').length === 1);
    const warmer = page.locator('.next-pane-warmer');
    await expect(warmer).toHaveAttribute('aria-hidden', 'true');
    await page.evaluate(() => (document.querySelector<HTMLCanvasElement>('.next-pane-warmer canvas')!.dataset.warmedBefore = 'yes'));
    // it is not in the way: the welcome page's buttons take the pointer
    await page.locator('.welcome button').first().hover({ trial: true });
    await dropFiles(page, [{ name: 'first.circle', bytes }]);
    await expect(page.getByRole('status')).toContainText('first.circle');
    await expect(page.getByTestId('graph-canvas')).toBeVisible();
    // the view took that canvas (same element, same size): nothing was allocated during the open
    await expect(page.getByTestId('graph-canvas')).toHaveAttribute('data-warmed-before', 'yes');
    await expect(warmer).toHaveCount(0);
    expect(await page.evaluate(() => performance.getEntriesByName('npu:view:canvas-warm').length)).toBe(1);
  });

  test('bad files give an alert naming the file and keep open models', async ({ page }) => {
    const { bytes } = chefModel('Part_Add_Sub_000');
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'good.circle', bytes }]);
    await expect(page.getByRole('status')).toContainText('good.circle');

    await dropFiles(page, [{ name: 'truncated.circle', bytes: bytes.subarray(0, Math.floor(bytes.length / 2)) }]);
    await expect(page.getByRole('alert').filter({ hasText: 'truncated.circle' })).toBeVisible();
    await dropFiles(page, [{ name: 'junk.bin', bytes: new TextEncoder().encode('<img src=x onerror=alert(1)> not a model') }]);
    await expect(page.getByRole('alert').filter({ hasText: 'junk.bin' })).toBeVisible();
    await dropFiles(page, [{ name: 'empty.circle', bytes: new Uint8Array(0) }]);
    await expect(page.getByRole('alert').filter({ hasText: 'empty.circle' })).toBeVisible();
    // nothing was injected as HTML, and the good model is still open
    expect(await page.locator('img').count()).toBe(0);
    await expect(page.getByRole('tab', { name: 'good.circle' })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('good.circle');
    await page.screenshot({ path: screenshotPath('bad-input') });
  });

  test('keyboard: Tab into the graph, arrows along edges, Enter selects; SVG export; worker restart keeps documents', async ({ page }) => {
    const { bytes } = chefModel('Part_Add_Sub_000');
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'kbd.circle', bytes }]);
    await expect(page.getByRole('status')).toContainText('3 nodes · 7 edges');
    // Tab from the page start reaches a graph node (after the toolbar controls)
    let reached = '';
    for (let i = 0; i < 25 && !reached; i++) {
      await page.keyboard.press('Tab');
      const label = await page.evaluate(() => document.activeElement?.getAttribute('aria-label') ?? '');
      if (/^(ADD|SUB|Input|Output) /.test(label)) reached = label;
    }
    expect(reached).not.toBe('');
    // walk down from the first ADD to the output along edges
    await page.getByRole('button', { name: 'ADD add1' }).focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', 'ADD add2');
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', 'SUB ofm');
    await page.keyboard.press('ArrowUp');
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', /ADD add2|Input ifm3/);
    await page.keyboard.press('Enter');
    await expect(page.getByRole('complementary', { name: 'Properties' }).getByRole('heading', { level: 2 })).toBeVisible();

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'SVG' }).click();
    const svg = readFileSync((await (await download).path())!, 'utf8');
    expect(svg.startsWith('<svg') || svg.startsWith('<?xml')).toBe(true);
    expect(svg).toContain('SUB');
    expect(svg).toContain('ifm1');

    // the model worker dies: it is restarted, the user is told, and the document still works
    // (a click at once, while the documents are being re-opened, waits for the new worker)
    await page.evaluate(() => (window as unknown as { __npuStudio: { crashModelWorker(): void } }).__npuStudio.crashModelWorker());
    await page.getByRole('button', { name: 'SUB ofm' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'restarted' })).toBeVisible();
    await expect(page.getByRole('status')).toContainText('kbd.circle');
    await expect(page.getByRole('complementary', { name: 'Properties' })).toContainText('SUB');
    await expect(page.getByRole('complementary', { name: 'Properties' })).toContainText('ifm4');
  });

  test('samples menu, tabs and layout direction', async ({ page }) => {
    await page.goto('/?sample=none');
    await page.getByRole('button', { name: /Samples/ }).click();
    await page.getByRole('menuitem', { name: /^Part_Add_Sub_000 \d+ ops$/ }).click();
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle');
    await page.getByRole('button', { name: /Samples/ }).click();
    await page.getByRole('menuitem', { name: /^Net_InstanceNorm_003 \d+ ops$/ }).click();
    const tabs = page.getByRole('tablist', { name: 'Open models' }).getByRole('tab');
    await expect(tabs).toHaveCount(2);
    await tabs.filter({ hasText: 'Part_Add_Sub_000.circle' }).click();
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle');
    await page.keyboard.press('Control+k');
    await expect(page.getByText('left to right')).toBeVisible();
    await page.screenshot({ path: screenshotPath('samples-lr') });

    // a partition sample opens the model with its .part in the editor dock
    await page.getByRole('button', { name: /Samples/ }).click();
    await expect(page.getByRole('group', { name: /Partition/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('samples-menu') });
    await page.getByRole('menuitem', { name: /^Net_InstanceNorm_003\.001\.part/ }).click();
    await expect(tabs).toHaveCount(3);
    await expect(page.getByText(/5 parts/).first()).toBeVisible({ timeout: 30_000 }); // the editor (Monaco) loads on first use

    // a systrace sample opens the Profile view
    await page.getByRole('button', { name: /Samples/ }).click();
    await page.getByRole('menuitem', { name: /^omr1\.trace\.txt/ }).click();
    await expect(page.getByRole('status')).toContainText('12,200 marks');
  });

  test('focus stays where the user put it: a node clicked twice does not take it back from Find when the view moves', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    const node = page.getByRole('button', { name: 'MEAN Mean_of_ifm' });
    await node.click();
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', 'MEAN Mean_of_ifm');
    // the second click asks for the node that has the focus already
    await node.click();
    await page.keyboard.press('Control+f');
    const find = page.getByRole('searchbox', { name: 'Find' });
    await expect(find).toBeFocused();
    // zoom in on the graph: nodes leave the view and the drawn overlay changes
    const canvas = page.getByTestId('graph-canvas').first();
    const box = (await canvas.boundingBox())!;
    const zoom = await canvas.getAttribute('data-zoom');
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 4; i++) await page.mouse.wheel(0, -400);
    await expect(canvas).not.toHaveAttribute('data-zoom', zoom ?? '');
    await page.waitForTimeout(300); // the overlay follows the settled view
    await expect(find).toBeFocused();
    await page.keyboard.type('ADD');
    await expect(find).toHaveValue('ADD');
  });
});
