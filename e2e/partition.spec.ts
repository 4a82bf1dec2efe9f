import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { unzipSync } from 'fflate';
import { chefModel, dropFiles, ROOT, screenshotPath } from './support/studio';

const PART = 'Net_InstanceNorm_003.001.part';
const GREEN_BLUE = ['#a6cee3', '#1f78b4'];

async function fillOf(page: Page, name: string): Promise<string | null> {
  return await page.evaluate((label) => {
    const el = document.querySelector(`[aria-label="${label}"][data-node-index]`);
    if (!el) return 'missing';
    return window.__npuPartitionColours?.fill[Number(el.getAttribute('data-node-index'))] ?? null;
  }, name);
}

/** the canvas pixel near the left edge of a node's box, as #rrggbb */
async function pixelOf(page: Page, name: string): Promise<string> {
  const box = await page.locator(`[aria-label="${name}"][data-node-index]`).boundingBox();
  const canvas = await page.getByTestId('graph-canvas').boundingBox();
  if (!box || !canvas) return 'none';
  return await page.evaluate(({ x, y }) => {
    const c = document.querySelector<HTMLCanvasElement>('[data-testid="graph-canvas"]')!;
    const r = c.width / c.getBoundingClientRect().width;
    const d = c.getContext('2d')!.getImageData(Math.round(x * r), Math.round(y * r), 1, 1).data;
    return `#${[d[0], d[1], d[2]].map((v) => v!.toString(16).padStart(2, '0')).join('')}`;
  }, { x: box.x - canvas.x + 5, y: box.y - canvas.y + 6 }); // the header band: boxes with constants or attributes have a white body below it
}

async function typeAtEnd(page: Page, text: string) {
  await page.locator('.part-editor .view-lines').click();
  await page.keyboard.press('Control+End');
  await page.keyboard.type(text, { delay: 15 });
  await page.keyboard.press('Escape');
}

test.describe('partition editor', () => {
  test('drop a model with its .part: colours, list, edits, markers, download, check', async ({ page }) => {
    const { bytes } = chefModel('Net_InstanceNorm_003');
    const part = new Uint8Array(readFileSync(join(ROOT, 'test/fixtures/one/parts', PART)));
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'Net_InstanceNorm_003.circle', bytes }, { name: PART, bytes: part }]);

    const dock = page.getByRole('region', { name: 'Partition editor' });
    const list = dock.getByRole('table', { name: 'Partitions' });
    // the first partition of a fresh page waits for Monaco, the model worker and the partition
    // service chunk to load: on a loaded 2-core machine that alone took over 10 s
    await expect(list.locator('tbody tr')).toHaveCount(5, { timeout: 30_000 });
    await expect(list).toContainText('Net_InstanceNorm_003.00001_cpu.circle');
    await expect(list).toContainText('Net_InstanceNorm_003.00005_acl_cl.circle');
    await expect(list.locator('tbody tr').nth(1)).toContainText('Mean_as_variance');
    await expect(list.locator('tbody tr').nth(1)).toContainText('Add_as_variance');
    await expect(dock.getByRole('list', { name: 'Backends' })).toContainText('acl_cl');

    // colours: ADD on acl_cl (green-blue-1), others on cpu (green-blue-0), also on the canvas
    await expect.poll(() => fillOf(page, 'ADD Add_as_variance')).toBe(GREEN_BLUE[1]);
    await expect.poll(() => fillOf(page, 'DIV Div')).toBe(GREEN_BLUE[0]);
    await expect.poll(() => pixelOf(page, 'ADD Add_as_variance')).toBe(GREEN_BLUE[1]);
    await expect.poll(() => pixelOf(page, 'DIV Div')).toBe(GREEN_BLUE[0]);
    await page.screenshot({ path: screenshotPath('partition-opened') });

    // hover on a key shows how many nodes it captures
    await page.locator('.part-editor .view-line', { hasText: 'ADD=acl_cl' }).locator('span', { hasText: 'ADD' }).first().hover();
    await expect(page.locator('.monaco-hover').filter({ hasText: 'operators' })).toContainText("'ADD': 2 operators → acl_cl");

    // type a line: DIV moves to acl_cl; the list and the colours follow
    await typeAtEnd(page, 'DIV=acl_cl');
    await expect.poll(() => fillOf(page, 'DIV Div')).toBe(GREEN_BLUE[1]);
    await expect(list.locator('tbody tr')).toHaveCount(6);
    await expect(list).toContainText('Div');
    const afterDiv = await list.locator('tbody tr').allInnerTexts();

    // a key that matches nothing: a warning marker
    await page.keyboard.press('Enter');
    await page.keyboard.type('FOO=cpu', { delay: 15 });
    await page.keyboard.press('Escape');
    await expect(page.locator('.part-editor .squiggly-warning')).toHaveCount(1);
    await expect(dock.locator('.part-status')).toContainText('warning');

    // an invalid line: an error marker, the list stays (last good partition)
    await page.keyboard.press('Enter');
    await page.keyboard.type('MUL=gpu', { delay: 15 });
    await page.keyboard.press('Escape');
    await expect(page.locator('.part-editor .squiggly-error')).toHaveCount(1);
    await expect(dock.getByRole('alert')).toContainText('last good partition');
    expect(await list.locator('tbody tr').allInnerTexts()).toEqual(afterDiv);
    await page.screenshot({ path: screenshotPath('partition-invalid') });

    // undo the two lines: valid again
    for (let i = 0; i < 30; i++) {
      const text = await page.locator('.part-editor .view-lines').innerText();
      if (!text.includes('MUL') && !text.includes('FOO')) break;
      await page.keyboard.press('Control+z');
    }
    await expect(page.locator('.part-editor .squiggly-error')).toHaveCount(0);
    await expect(dock.getByRole('alert')).toHaveCount(0);

    // click-to-assign: select MUL, all MUL to acl_cl through the picker (an [OPCODE] line)
    await page.locator('[aria-label^="MUL "][data-node-index]').first().click();
    const picker = page.getByRole('group', { name: 'Assign the selected node' });
    await expect(picker).toBeVisible();
    await picker.locator('.assign-row', { hasText: 'all' }).getByRole('button', { name: 'acl_cl' }).click();
    await expect(page.locator('.part-editor .view-lines')).toContainText('MUL=acl_cl');
    await expect.poll(() => page.evaluate(() => {
      const el = document.querySelector('[aria-label^="MUL "][data-node-index]');
      return window.__npuPartitionColours?.fill[Number(el?.getAttribute('data-node-index'))];
    })).toBe(GREEN_BLUE[1]);
    await page.screenshot({ path: screenshotPath('partition-assigned') });
    // undo puts it back
    await page.locator('.part-editor .view-lines').click();
    await page.keyboard.press('Control+z');
    await expect(page.locator('.part-editor .view-lines')).not.toContainText('MUL=acl_cl');

    // selecting a part in the list highlights it (and the row is marked)
    await list.locator('tbody tr').nth(1).click();
    await expect(list.locator('tbody tr').nth(1)).toHaveAttribute('aria-selected', 'true');

    // download: names exactly as circle-partitioner's, plus the .part
    const download = page.waitForEvent('download');
    await dock.getByRole('button', { name: 'Download parts' }).click();
    const d = await download;
    expect(d.suggestedFilename()).toBe('Net_InstanceNorm_003.parts.zip');
    const zip = unzipSync(new Uint8Array(readFileSync((await d.path())!)));
    const names = Object.keys(zip);
    expect(names.filter((n) => n.endsWith('.circle'))).toEqual(afterDiv.map((r) => r.split(/\s/)[0]));
    expect(names.slice(-3)).toEqual(['Net_InstanceNorm_003.conn.json', 'Net_InstanceNorm_003.conn.ini', PART]);
    const conn = JSON.parse(new TextDecoder().decode(zip['Net_InstanceNorm_003.conn.json'])) as { parts: { file: string; inputs: string[]; outputs: string[] }[] };
    expect(conn.parts.map((p) => p.file)).toEqual(names.filter((n) => n.endsWith('.circle')));
    // the list says what .conn.json says
    conn.parts.forEach((p, i) => {
      const row = afterDiv[i]!;
      for (const n of [...p.inputs, ...p.outputs]) expect(row).toContain(n);
    });

    // check: every output within tolerance
    await dock.getByRole('button', { name: 'Check' }).click();
    await expect(dock.getByLabel('Check result')).toContainText('Check passed', { timeout: 30_000 });
    await expect(dock.getByLabel('Check result')).toContainText('pass');
    await page.screenshot({ path: screenshotPath('partition-checked') });

    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await expect.poll(() => fillOf(page, 'DIV Div')).toBe('#2d6a93');
    await page.screenshot({ path: screenshotPath('partition-dark') });
  });

  test('New partition, the text survives a reload and a worker restart', async ({ page }) => {
    test.setTimeout(120_000); // Monaco twice, a worker restart and a reload on a shared 2-core machine
    const { bytes } = chefModel('Part_Add_Sub_000');
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'Part_Add_Sub_000.circle', bytes }]);
    await page.getByRole('button', { name: 'New partition' }).click();
    const dock = page.getByRole('region', { name: 'Partition editor' });
    await expect(dock.getByRole('table', { name: 'Partitions' }).locator('tbody tr')).toHaveCount(1);
    await expect(page.locator('.part-editor .view-lines')).toContainText('backends=cpu,npu');

    // completion offers the model's opcodes under [OPCODE]
    await typeAtEnd(page, '[OPCODE]');
    await page.keyboard.press('Enter');
    await page.keyboard.type('SU', { delay: 20 });
    await page.keyboard.press('Control+Space');
    await page.screenshot({ path: screenshotPath('partition-completion') });
    await expect(page.locator('.suggest-widget')).toContainText('SUB');
    await page.keyboard.press('Enter');
    await page.keyboard.type('npu', { delay: 20 });
    await page.keyboard.press('Escape');
    await expect(page.locator('.part-editor .view-lines')).toContainText('SUB=npu');
    await expect(dock.getByRole('table', { name: 'Partitions' })).toContainText('Part_Add_Sub_000.00002_npu.circle');

    // a worker crash: documents re-open and the partition comes back from the kept text
    await page.evaluate(() => (window as unknown as { __npuStudio: { crashModelWorker(): void } }).__npuStudio.crashModelWorker());
    await expect(dock.getByRole('table', { name: 'Partitions' })).toContainText('Part_Add_Sub_000.00002_npu.circle');
    await page.waitForTimeout(400); // the draft is saved 250 ms after the last edit

    // a reload reopens the model (kept in IndexedDB); New partition starts fresh and offers the draft
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Part_Add_Sub_000.circle' })).toBeVisible();
    await page.getByRole('button', { name: 'New partition' }).click();
    await expect(page.locator('.part-editor .view-lines')).not.toContainText('SUB=npu');
    await expect(page.getByRole('note')).toContainText('An edited version of Part_Add_Sub_000.part for this model');
    await page.getByRole('note').getByRole('button', { name: 'Restore it' }).click();
    await expect(page.locator('.part-editor .view-lines')).toContainText('SUB=npu');
    // the draft belongs to the model's bytes: the same file under another name finds it too
    await dropFiles(page, [{ name: 'renamed.circle', bytes }]);
    await page.getByRole('button', { name: 'New partition' }).click();
    await expect(page.getByRole('note')).toContainText('An edited version of Part_Add_Sub_000.part');
  });
});
