/**
 * What a newcomer meets in the first hour (issue 16, items 2, 3 and 6 to 16): each test walks
 * one point as a person does it, with screenshots in test-results/screens/newcomer-*.png.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropFiles, SAMPLES, screenshotPath } from './support/studio';
import { read } from '../src/core/circle/read';
import { write } from '../src/core/circle/write';

const sample = (name: string) => ({ name, bytes: new Uint8Array(readFileSync(join(SAMPLES, name))) });
const shot = (page: Page, name: string) => page.screenshot({ path: screenshotPath(`newcomer-${name}`) });

test.describe('newcomer', () => {
  test('16: the start page says what the studio opens and offers one sample of each', async ({ page }) => {
    await page.goto('/?sample=none');
    const opens = page.getByRole('table', { name: 'What NPU Studio opens' });
    await expect(opens.locator('tr')).toHaveCount(5);
    for (const kind of ['Circle models', 'Partitions', 'NNAPI profiles', 'Caffe nets', 'NVDLA loadables']) await expect(opens).toContainText(kind);
    await expect(opens.getByRole('button', { name: /^Open / })).toHaveCount(5);
    // 15: counts that match what is listed: nothing is open, so nothing is counted
    await expect(page.getByRole('status')).toHaveText('no document open');
    await shot(page, 'start-page');
    // 15: the drop overlay covers the empty state rather than printing over it
    await page.evaluate(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['x'], 'x.circle'));
      window.dispatchEvent(new DragEvent('dragenter', { dataTransfer: dt }));
    });
    await expect(page.locator('.drop-overlay')).toBeVisible();
    await shot(page, 'drop-overlay');
    await page.evaluate(() => window.dispatchEvent(new DragEvent('drop')));
    await opens.getByRole('button', { name: /^Open .*\.part$/ }).click();
    await expect(page.getByRole('region', { name: 'Partition editor' })).toBeVisible({ timeout: 30_000 }); // Monaco loads on first use
    // 15: the Samples menu shows every entry whole
    await page.getByRole('button', { name: 'Samples ▾' }).click();
    const menu = page.getByRole('menu', { name: 'Samples' });
    for (const item of await menu.getByRole('menuitem').all()) {
      const fits = await item.evaluate((el) => [...el.querySelectorAll('span')].every((s) => s.scrollWidth <= s.clientWidth + 1));
      expect(fits, await item.innerText()).toBe(true);
    }
    await shot(page, 'samples-menu');
  });

  test('2: values along the shape, .npy export, shortest float32 text; 8: a selection keeps the Origins tab; 15: counts in the singular', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.opt.circle');
    await expect(page.getByRole('status')).toContainText('1 node · 2 edges');
    await page.getByRole('tab', { name: 'Origins' }).click();
    await page.getByRole('button', { name: 'INSTANCE_NORM Add_as_terminal' }).click();
    await expect(page.getByRole('tab', { name: 'Origins' })).toHaveAttribute('aria-selected', 'true');
    await shot(page, 'origins-kept');
    await page.getByRole('tab', { name: 'Node' }).click();
    const options = page.getByRole('table', { name: 'Options' });
    await expect(options.locator('tr', { hasText: 'epsilon' })).toContainText('0.001');
    await expect(options).not.toContainText('0.00100000');
    const values = page.getByLabel('Values of gamma', { exact: false }).or(page.locator('pre.tensor-values')).first();
    await expect(values).toBeVisible();
    await expect(values).toHaveText(/^\[.*\]$/s);
    // laid out to the panel's width: no line runs past the box, and a wider panel holds more a line
    const fits = () => values.evaluate((el) => el.scrollWidth <= el.clientWidth);
    const lineCount = async () => (await values.innerText()).split('\n').length;
    expect(await fits()).toBe(true);
    const narrowLines = await lineCount();
    const split = page.getByRole('separator', { name: 'Resize the side panel' });
    await split.focus();
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowLeft'); // 256 px wider
    await expect.poll(lineCount).toBeLessThan(narrowLines);
    expect(await fits()).toBe(true);
    for (let i = 0; i < 4; i++) await page.keyboard.press('Shift+ArrowRight'); // back
    await expect.poll(lineCount).toBe(narrowLines);
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Save .npy' }).first().click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/\.npy$/);
    const bytes = readFileSync((await file.path())!);
    expect([...bytes.subarray(0, 6)]).toEqual([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]);
    expect(bytes.toString('latin1', 10, 80)).toContain("'descr': '<f4'");
    // 9: the info alert of the download goes away by itself
    const info = page.locator('.alert-info', { hasText: /^Saved / });
    await expect(info).toBeVisible();
    await shot(page, 'tensor-values');
    await expect(info).toBeHidden({ timeout: 10_000 });
  });

  test('2: a quantised tensor shows its range (0 ≤ scale * (q - zero point) ≤ 1) beside the formula', async ({ page }) => {
    const model = read(new Uint8Array(readFileSync(join(SAMPLES, 'Part_Add_Sub_000.circle'))), 'x');
    const sg = model.subgraphs[0]!;
    const out = sg.tensors[sg.operators[0]!.outputs[0]!]!;
    out.type = 3; // UINT8
    out.quantization = { min: [0], max: [1], scale: [0.003921568859368563], zeroPoint: [0], quantizedDimension: 0, details: null };
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'quantised.circle', bytes: write(model) }]);
    await page.getByRole('button', { name: /^ADD / }).first().click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    // the float32 scale printed as the shortest text that reads back as the same float32
    await expect(panel).toContainText('0 ≤ 0.003921569 * (q - 0) ≤ 1');
    await shot(page, 'quantisation-range');
  });

  test('3: IF / WHILE bodies are links; Enter or double-click on WHILE offers both', async ({ page }) => {
    await page.goto('/?sample=Part_While_000.circle');
    const node = page.getByRole('button', { name: 'WHILE ofm' });
    await node.click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    await expect(panel.getByRole('button', { name: /1: WHILE_COND/ }).first()).toBeVisible();
    await expect(panel.getByRole('button', { name: /body: 2: WHILE_BODY/ })).toBeVisible();
    await shot(page, 'while-links');
    await node.focus();
    await page.keyboard.press('Enter');
    const chooser = page.getByRole('dialog', { name: /Open a body of WHILE ofm/ });
    await expect(chooser.getByRole('button', { name: /cond/ })).toBeFocused();
    await shot(page, 'while-chooser');
    await chooser.getByRole('button', { name: /body/ }).click();
    await expect(page.getByRole('status')).toContainText('WHILE_BODY');
    await page.getByRole('button', { name: '← Back' }).click();
    await expect(page.getByRole('status')).toContainText('Main');
    await page.getByRole('button', { name: 'WHILE ofm' }).dblclick();
    await expect(chooser).toBeVisible();
    await page.keyboard.press('Escape');
    await expect(chooser).toBeHidden();
    // a link in the panel opens the body directly
    await panel.getByRole('button', { name: /cond: 1: WHILE_COND/ }).click();
    await expect(page.getByRole('status')).toContainText('WHILE_COND');

    // IF: then and else are links too; the else link opens that body
    await page.goto('/?sample=Part_If_Add_Sub_001.circle');
    await page.getByRole('button', { name: /^IF / }).first().click();
    await expect(panel.getByRole('button', { name: /then: \d+: / }).first()).toBeVisible();
    const elseLink = panel.getByRole('button', { name: /else: \d+: / }).first();
    await expect(elseLink).toBeVisible();
    await shot(page, 'if-links');
    const elseName = /else: \d+: (\S+)/.exec((await elseLink.getAttribute('aria-label')) ?? (await elseLink.innerText()))![1]!;
    await elseLink.click();
    await expect(page.getByRole('status')).toContainText(elseName);
  });

  test('6: a .part alone goes to its model; a binary .trace.txt is refused with the reason', async ({ page }) => {
    await page.goto('/?sample=none');
    await dropFiles(page, [sample('Part_Add_Sub_000.part')]);
    await expect(page.getByRole('alert').filter({ hasText: 'a .part file partitions a model; no open model can take it' })).toBeVisible();
    await dropFiles(page, [sample('Part_Add_Sub_000.circle')]);
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle · 3 nodes');
    await dropFiles(page, [sample('Part_Add_Sub_000.part')]);
    const dock = page.getByRole('region', { name: 'Partition editor' });
    await expect(dock).toBeVisible({ timeout: 30_000 }); // Monaco loads on first use
    await expect(page.locator('.part-editor .view-lines')).toContainText('SUB=acl_cl');
    await shot(page, 'part-alone');
    // 15: the highlight of the line at the cursor has a legend
    await page.locator('.part-editor .view-line', { hasText: 'SUB=acl_cl' }).click();
    await expect(page.getByRole('note', { name: 'Highlight legend' })).toContainText('1 operator captured by the current line ([OPCODE] SUB)');
    await shot(page, 'highlight-legend');

    const binary = new Uint8Array(3000);
    for (let i = 0; i < binary.length; i++) binary[i] = (i * 73 + 11) & 255;
    await dropFiles(page, [{ name: 'capture.trace.txt', bytes: binary }]);
    await expect(page.getByRole('alert').filter({ hasText: 'capture.trace.txt' })).toContainText('not a systrace capture');
    await expect(page.getByRole('tab', { name: 'capture.trace.txt' })).toHaveCount(0);
    await shot(page, 'binary-trace');
  });

  test('7: Escape in Find closes Find and keeps the selection; 11: the hidden side panel has a way back', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    const node = page.getByRole('button', { name: 'MEAN Mean_of_ifm' });
    await node.click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('MEAN');
    await page.keyboard.press('Control+f');
    const find = page.getByRole('searchbox', { name: 'Find' });
    await find.fill('ADD');
    await page.keyboard.press('Escape');
    await expect(find).toBeHidden();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('MEAN');
    // with the focus on the graph
    await page.keyboard.press('Control+f');
    await node.focus();
    await page.keyboard.press('Escape');
    await expect(page.getByRole('searchbox', { name: 'Find' })).toBeHidden();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('MEAN');

    await page.keyboard.press('Control+b');
    await expect(panel).toBeHidden();
    const reveal = page.getByRole('button', { name: 'Show the side panel' });
    await expect(reveal).toBeVisible();
    await page.getByRole('button', { name: 'SUB Sub' }).click();
    await expect(page.getByRole('alert').filter({ hasText: 'side panel, which is hidden' })).toBeVisible();
    await shot(page, 'hidden-panel');
    await reveal.click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('SUB');
  });

  test('9: alerts belong to their tab, two stacked and "and N more"; 14: no export on a capture', async ({ page }) => {
    await page.goto('/?sample=lenet-int8-damaged.nvdla');
    const damage = page.getByRole('alert').filter({ hasText: 'lenet-int8-damaged.nvdla' });
    await expect(damage).toBeVisible();
    await page.getByRole('button', { name: 'Samples ▾' }).click();
    await page.getByRole('menuitem', { name: /omr1\.trace\.txt/ }).first().click();
    await expect(page.getByRole('tab', { name: 'omr1.trace.txt' })).toHaveAttribute('aria-selected', 'true');
    await expect(damage).toHaveCount(0);
    for (const name of ['PNG', 'SVG', 'TB/LR']) await expect(page.getByRole('button', { name, exact: true })).toBeDisabled();
    await shot(page, 'capture-no-export');
    await page.getByRole('tab', { name: 'lenet-int8-damaged.nvdla' }).click();
    await expect(damage).toBeVisible();
    await expect(page.getByRole('button', { name: 'PNG', exact: true })).toBeEnabled();
    // three files that do not open: two alerts on screen, the third behind "and 1 more"
    await dropFiles(page, ['a.bin', 'b.bin', 'c.bin'].map((name) => ({ name, bytes: new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8]) })));
    await expect(page.getByRole('button', { name: /and 2 more alerts/ })).toBeVisible();
    await expect(page.getByRole('alert')).toHaveCount(2);
    const heights = await page.getByRole('alert').evaluateAll((els) => els.map((e) => e.getBoundingClientRect().height));
    expect(Math.max(...heights)).toBeLessThan(40); // one line each
    await shot(page, 'alerts-stacked');
    await page.getByRole('button', { name: /and 2 more alerts/ }).click();
    await expect(page.getByRole('alert')).toHaveCount(4);
  });

  test('10: many tabs stay readable; same-name files told apart in tabs, status bar and palette', async ({ page }) => {
    await page.setViewportSize({ width: 900, height: 700 });
    await page.goto('/?sample=none');
    const names = ['Part_Add_Sub_000.circle', 'Part_Add_Sub_001.circle', 'Part_Add_Sub_002.circle', 'Part_While_000.circle', 'Part_While_001.circle', 'Net_UnpackAdd_001.circle'];
    const tabs = page.getByRole('tablist', { name: 'Open models' }).getByRole('tab');
    for (const [i, n] of names.entries()) {
      await dropFiles(page, [sample(n)]);
      await expect(tabs).toHaveCount(i + 1);
    }
    await dropFiles(page, [sample('Part_Add_Sub_000.circle')]);
    await expect(tabs).toHaveCount(7);
    await expect(page.getByRole('tab', { name: 'Part_Add_Sub_000.circle (2)' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle (2) ·');
    const all = page.getByRole('button', { name: '7 tabs ▾' });
    await expect(all).toBeVisible();
    await all.click();
    const menu = page.getByRole('menu', { name: 'Every open tab' });
    await expect(menu.getByRole('menuitem')).toHaveCount(7);
    await shot(page, 'tabs-overflow');
    await menu.getByRole('menuitem', { name: 'Part_Add_Sub_000.circle', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle ·');
    await expect(page.locator('.tabs-wrap')).toHaveClass(/more-right/);
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Command' }).fill('go to tab Part_Add_Sub_000');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect(palette.getByRole('option', { name: /Go to tab Part_Add_Sub_000\.circle \(2\)/ })).toBeVisible();
    await shot(page, 'palette-same-name');
  });

  test('12: a reload reopens what was open; the kept size is shown and can be forgotten', async ({ page }) => {
    await page.goto('/?sample=none');
    const tabs = page.getByRole('tablist', { name: 'Open models' }).getByRole('tab');
    await dropFiles(page, [sample('Part_Add_Sub_000.circle')]);
    await expect(tabs).toHaveCount(1);
    await dropFiles(page, [sample('omr1.trace.txt')]);
    await expect(tabs).toHaveCount(2);
    await expect(page.locator('.status-kept')).toContainText('kept for reload (2 tabs)');
    await page.reload();
    await expect(page.getByRole('tab', { name: 'Part_Add_Sub_000.circle' })).toBeVisible();
    await expect(page.getByRole('tab', { name: 'omr1.trace.txt' })).toBeVisible();
    await shot(page, 'reload-reopened');
    await page.locator('.status-kept').getByRole('button', { name: 'Forget' }).click();
    await page.reload();
    await expect(page.getByRole('region', { name: 'Welcome' })).toBeVisible();
    await expect(tabs).toHaveCount(0);
  });

  test('13: "this node" with a name the .part syntax cannot carry is refused with the reason', async ({ page }) => {
    const model = read(new Uint8Array(readFileSync(join(SAMPLES, 'Part_Add_Sub_000.circle'))), 'x');
    const sg = model.subgraphs[0]!;
    const out = sg.operators[0]!.outputs[0]!;
    sg.tensors[out]!.name = 'add=1;[x]';
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'odd_names.circle', bytes: write(model) }]);
    await page.getByRole('button', { name: 'New partition' }).click();
    await page.getByRole('button', { name: /^ADD add=1;\[x\]/ }).click();
    const bar = page.getByRole('group', { name: 'Assign the selected node' });
    await bar.getByRole('button', { name: 'npu', exact: true }).first().click();
    await expect(page.getByRole('alert').filter({ hasText: "cannot be a [OPNAME] key: it holds '='" })).toBeVisible();
    await shot(page, 'assign-refused');
  });
});
