import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropFiles, ROOT, screenshotPath } from './support/studio';
import { read } from '../src/core/loadable/read';
import { damagedLoadable } from '../test/support/nvdla-damaged';

const NVDLA = join(ROOT, 'test', 'fixtures', 'nvdla');
const LENET = 'lenet-b1-nv_full-int8-fast-math';
const golden = (name: string) => new Uint8Array(readFileSync(join(NVDLA, 'golden', `${name}.nvdla`)));
const flatbuf = (name: string) => new Uint8Array(readFileSync(join(NVDLA, 'flatbufs', name)));

async function open(page: Page, files: { name: string; bytes: Uint8Array }[]) {
  await page.goto('/?sample=none');
  await dropFiles(page, files);
  await expect(page.getByRole('tablist', { name: 'Loadable views' })).toBeVisible();
}

const panel = (page: Page) => page.getByRole('complementary', { name: 'Properties' });
const view = (page: Page, name: string) => page.getByRole('tablist', { name: 'Loadable views' }).getByRole('tab', { name: new RegExp(`^${name}`) });

test.describe('NVDLA loadables', () => {
  test.use({ viewport: { width: 1500, height: 1000 } });

  test('drop a golden: tasks and op slots, a slot field by field, the op-slot graph with find, keyboard and export', async ({ page }) => {
    await open(page, [{ name: `${LENET}.nvdla`, bytes: golden(LENET) }]);
    await expect(page.getByRole('status')).toContainText(`${LENET}.nvdla · 11 nodes`);

    // task 0: ten op slots in order, with dependencies; task 1: the EMU softmax (notes 3.6)
    const slots = page.getByRole('table', { name: 'Task 0 op slots' });
    await expect(slots.locator('tbody tr')).toHaveCount(10);
    await expect(slots.locator('tbody tr td.lv-engine')).toHaveText(['CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'CONV', 'SDP']);
    const row0 = slots.locator('tbody tr').first();
    await expect(row0).toContainText('28x28x4 -> 24x24x20');
    await expect(row0.locator('button.lv-chip')).toHaveText(['CONV 3 programmed', 'SDP 1 programmed']);
    await expect(slots.locator('tbody tr').nth(1)).toContainText('0 enabled'); // SDP 1's fused parent
    await expect(page.getByRole('table', { name: 'Task 1 EMU ops' })).toContainText('EMU SOFTMAX');
    await expect(page.getByRole('region', { name: 'Task 1 · EMU1' })).toContainText('pre event 1: WAIT target 0 value 1');
    await expect(page.getByRole('table', { name: 'Events' }).locator('tbody tr')).toHaveCount(3);
    await page.screenshot({ path: screenshotPath('loadable-tasks'), fullPage: true });

    // select conv1: the side panel decodes its descriptors field by field, cubes resolved
    await page.getByRole('button', { name: 'Select CONV slot 0 of task 0' }).click();
    const p = panel(page);
    await expect(p.getByRole('tab', { name: 'Op slot' })).toHaveAttribute('aria-selected', 'true');
    const op = p.getByRole('table', { name: 'op descriptor (dla_conv_op_desc)' });
    await expect(op.locator('tr[data-path="data_format"]')).toContainText('12A8B8G8R8');
    await expect(op.locator('tr[data-path="bytes_per_kernel"]')).toContainText('100');
    await expect(op.locator('tr[data-path="in_precision"]')).toContainText('INT8');
    const surface = p.getByRole('table', { name: 'surface descriptor (dla_conv_surface_desc)' });
    await expect(surface.locator('tr[data-path="src_data"]')).toContainText('task address 3 -> address 3 -> memory 3 + 0 (tensor "data")');
    await expect(surface.locator('tr[data-path="src_data.line_stride"]')).toContainText('128');
    await expect(p.getByRole('list', { name: 'weight_data address' })).toContainText('blob tb-0 + 0');
    await page.screenshot({ path: screenshotPath('loadable-slot') });

    // a consumer chip selects that slot
    await row0.getByRole('button', { name: 'SDP 1 programmed' }).click();
    await expect(p.locator('h2')).toContainText('SDP task 0 slot 1');
    await expect(p.getByRole('table', { name: 'op descriptor (dla_sdp_op_desc)' }).locator('tr[data-path="out_cvt.scale"]')).toContainText('19669');

    // the op-slot graph: engine colours and dependency kinds, accessible nodes
    await view(page, 'Graph').click();
    await expect(page.getByTestId('graph-canvas')).toBeVisible();
    const legend = page.getByRole('list', { name: 'Engine colours and dependency kinds' });
    await expect(legend).toContainText('CONV');
    await expect(legend).toContainText('programmed');
    await expect(legend).toContainText('task event');
    const conv0 = page.getByRole('button', { name: 'CONV task 0 slot 0' });
    await conv0.focus();
    await page.keyboard.press('ArrowDown');
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', /^(SDP task 0 slot 1|CONV task 0 slot 3)$/);
    await page.screenshot({ path: screenshotPath('loadable-graph') });

    // find from the tasks: Ctrl+F brings the graph and searches descriptor fields
    await view(page, 'Tasks').click();
    await page.keyboard.press('Control+f');
    await expect(view(page, 'Graph')).toHaveAttribute('aria-selected', 'true');
    await page.getByRole('searchbox', { name: 'Find' }).fill('pool_mode=MAX');
    await expect(page.getByRole('listbox', { name: 'Find results' }).getByRole('option')).toHaveCount(2);
    await page.getByRole('searchbox', { name: 'Find' }).press('Enter');
    await expect(p.locator('h2')).toContainText('PDP task 0 slot 2');
    await page.keyboard.press('Escape');

    // export: the SVG draws the dependency kinds with their own strokes
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'SVG' }).click();
    const svg = readFileSync((await (await download).path())!, 'utf8');
    expect(svg).toContain('stroke-dasharray="6 4"'); // OP_PROGRAMMED
    expect(svg).toContain('<title>CONV task 0 slot 0</title>');
  });

  test('memory map: hovering a region says who uses it, clicking selects the slot; memory and address lists', async ({ page }) => {
    await open(page, [{ name: `${LENET}.nvdla`, bytes: golden(LENET) }]);
    await view(page, 'Memory').click();
    const bars = page.getByRole('list', { name: 'Memory entries' });
    await expect(bars.getByRole('listitem')).toHaveCount(17);
    // the LOCAL pool (memory 2): at 40,960 SDP 4 writes what PDP 5 reads (notes 3.6: reuse at 40960)
    const region = bars.locator('[data-mem="2"] rect.lv-region[data-offset="40960"][data-size="4096"]');
    await region.hover();
    const tip = page.getByRole('tooltip');
    await expect(tip).toContainText('memory 2 bytes 40,960–45,056');
    await expect(tip).toContainText('task 0 slot 4 SDP writes dst_data');
    await expect(tip).toContainText('task 0 slot 5 PDP reads src_data');
    await page.screenshot({ path: screenshotPath('loadable-memory-hover') });
    await region.click();
    await expect(panel(page).locator('h2')).toContainText('SDP task 0 slot 4');
    await expect(bars.locator('[data-mem="2"] rect.lv-region-sel').first()).toBeVisible();
    // weights in the GLOBAL pool: ip1's 400,000 bytes at 512 KiB
    await bars.locator('[data-mem="1"] rect.lv-region[data-offset="524288"]').hover();
    await expect(tip).toContainText('blob "tb-5"');
    await expect(tip).toContainText('task 0 slot 6 CONV reads weight_data');
    await expect(page.getByRole('table', { name: 'Memory entries table' })).toContainText('tb-5@524288');
    await expect(page.getByRole('table', { name: 'Addresses table' }).locator('tbody tr').nth(3)).toContainText('task 0 slot 0 CONV src_data (read)');
    await page.mouse.move(5, 5);
    await page.screenshot({ path: screenshotPath('loadable-memory'), fullPage: true });
  });

  test('blobs: a virtualised hex view asks for windows, weights as a histogram, descriptors marked, a LUT as curves', async ({ page }) => {
    const bytes = golden(LENET);
    const tb5 = read(bytes, 'x').blobs.find((b) => b.name === 'tb-5')!.data;
    await open(page, [{ name: `${LENET}.nvdla`, bytes }]);
    await view(page, 'Blobs').click();
    await expect(page.getByRole('table', { name: 'Blobs table' }).locator('tbody tr')).toHaveCount(16);
    await page.getByRole('button', { name: 'Show blob tb-5' }).click();
    const hex = page.getByRole('region', { name: 'Bytes of blob tb-5' });
    await expect(hex).toBeVisible();
    // only the rows in view are in the DOM
    expect(await hex.locator('.lv-hx-row').count()).toBeLessThan(40);
    await page.getByRole('textbox', { name: 'Go to byte' }).fill('0x3e800');
    await page.getByRole('textbox', { name: 'Go to byte' }).press('Enter');
    const row = hex.locator('.lv-hx-row[data-offset="256000"]');
    const expected = Array.from(tb5.subarray(256000, 256016), (b) => b.toString(16).padStart(2, '0')).join('');
    await expect(row.locator('.lv-hx-bytes')).toHaveText(expected);
    const hist = page.getByTestId('histogram');
    await expect(hist).toContainText('400,000 int8 values: task 0 slot 6 CONV reads it as weight_data, in_precision INT8');
    await expect(hist.getByRole('img')).toBeVisible();
    await page.screenshot({ path: screenshotPath('loadable-blobs'), fullPage: true });

    // a descriptor blob: the hex view names the descriptor at its first byte; a click selects its slot
    await page.getByRole('button', { name: 'Show blob task-0-surf_list' }).click();
    const surf = page.getByRole('region', { name: 'Bytes of blob task-0-surf_list' });
    await expect(surf.locator('.lv-hx-row[data-offset="0"]')).toContainText('task 0 slot 0 CONV surface');
    await surf.getByRole('button', { name: 'task 0 slot 0 CONV surface' }).click();
    await expect(panel(page).locator('h2')).toContainText('CONV task 0 slot 0');
    await expect(page.getByText('holds task 0 surface list: its fields are in the op slots')).toBeVisible();

    // the CDP regression flatbuf's LUT
    await dropFiles(page, [{ name: 'CDP_L0_0_fbuf', bytes: flatbuf('CDP_L0_0_fbuf') }]);
    await expect(page.getByRole('status')).toContainText('CDP_L0_0_fbuf');
    await view(page, 'Blobs').click();
    await page.getByRole('button', { name: 'Show blob m4_LUTList_i4' }).click();
    const lut = page.getByTestId('lut-plot');
    await expect(lut).toContainText('task 0 lut[0] method LINEAR');
    await expect(lut.getByRole('img')).toHaveCount(2);
    await expect(lut.getByRole('img').nth(1)).toHaveAttribute('aria-label', /linear_only_table .*: 257 entries/);
    await page.screenshot({ path: screenshotPath('loadable-lut'), fullPage: true });
  });

  test('a damaged loadable shows everything readable with marks and one alert; a truncated one opens; the app keeps working', async ({ page }) => {
    await open(page, [{ name: 'damaged.nvdla', bytes: damagedLoadable(golden(LENET)) }]);
    const alert = page.getByRole('alert');
    await expect(alert).toHaveCount(1);
    await expect(alert).toContainText('damaged.nvdla: 5 places could not be read or do not fit together');
    await expect(view(page, 'Damage')).toContainText('5');
    // marks where they belong: the PDP naming consumer slot 42, the CONV reading past its address list
    const slots = page.getByRole('table', { name: 'Task 0 op slots' });
    await expect(slots.locator('tbody tr')).toHaveCount(10);
    await expect(slots.locator('tbody tr').nth(2).getByRole('img', { name: /consumer slot 42 is past the op list/ })).toBeVisible();
    await expect(slots.locator('tbody tr').nth(3)).toContainText('unresolved');
    await page.screenshot({ path: screenshotPath('loadable-damaged'), fullPage: true });
    // the unknown precision is marked on its field
    await page.getByRole('button', { name: 'Select CONV slot 0 of task 0' }).click();
    const field = panel(page).getByRole('table', { name: 'op descriptor (dla_conv_op_desc)' }).locator('tr[data-path="in_precision"]');
    await expect(field).toContainText('7unknown value');
    await expect(field.getByRole('img', { name: /7 is not a known value of in_precision/ })).toBeVisible();
    // the alert's button lists every place
    await alert.getByRole('button', { name: 'See damage' }).click();
    await expect(page.getByRole('table', { name: 'Damage table' }).locator('tbody tr')).toHaveCount(5);
    await page.screenshot({ path: screenshotPath('loadable-damage-list') });
    await page.getByRole('button', { name: 'memory_list[1].contents[7]' }).click();
    await expect(view(page, 'Memory')).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('table', { name: 'Memory entries table' }).locator('tbody tr').nth(1).getByRole('img', { name: /tb-99/ })).toBeVisible();

    // a loadable cut at 60%: the lists past the cut are gone, the file still opens with its damage
    const g = golden(LENET);
    await dropFiles(page, [{ name: 'cut.nvdla', bytes: g.subarray(0, Math.floor(g.length * 0.6)) }]);
    await expect(page.getByRole('tab', { name: 'cut.nvdla' })).toBeVisible();
    await expect(page.getByRole('alert').filter({ hasText: 'cut.nvdla' })).toContainText('could not be read');
    await expect(page.getByRole('region', { name: 'Task 0 · NONE' })).toBeVisible();
    // and the studio still works: another golden opens and shows its slots
    await dropFiles(page, [{ name: 'good.nvdla', bytes: golden('lenet-b1-nv_full-fp16-fast-math') }]);
    await expect(page.getByRole('status')).toContainText('good.nvdla · 11 nodes');
    await expect(page.getByRole('table', { name: 'Task 0 op slots' }).locator('tbody tr')).toHaveCount(10);
    await page.getByRole('tab', { name: 'damaged.nvdla' }).click();
    await expect(page.getByRole('status')).toContainText('damaged.nvdla');
  });

  test('compare two goldens: the differing sections, slots and fields highlighted in both, from the button and the palette', async ({ page }) => {
    await open(page, [
      { name: 'int8.nvdla', bytes: golden(LENET) },
      { name: 'int8-calib.nvdla', bytes: golden('lenet-b1-nv_full-int8-fast-math-calib') },
      { name: 'fp16.nvdla', bytes: golden('lenet-b1-nv_full-fp16-fast-math') },
    ]);
    // the three open one after another; the last is active
    await expect(page.getByRole('status')).toContainText('fp16.nvdla');
    await page.getByRole('tab', { name: 'int8.nvdla' }).click();
    await expect(page.getByRole('status')).toContainText('int8.nvdla');
    await page.getByRole('button', { name: 'Compare with… ▾' }).click();
    await page.getByRole('menuitem', { name: 'int8-calib.nvdla' }).click();
    const compare = page.getByTestId('loadable-compare');
    await expect(compare.getByTestId('compare-verdict')).toHaveText('Different: 58 differences in 1 section');
    const sections = page.getByRole('navigation', { name: 'Sections' });
    await expect(sections.getByRole('tab', { name: /Tasks/ })).toContainText('✓');
    await expect(sections.getByRole('tab', { name: /Blobs and descriptors/ })).toContainText('58');
    // the calibrated requantisation: SDP slots 1, 4, 7, 9 differ, in both tables
    for (const side of ['A', 'B']) {
      const t = page.getByRole('table', { name: `${side} task 0 op slots` });
      await expect(t.locator('tr.lv-diff-row')).toHaveCount(4);
      await expect(t.locator('tr.lv-diff-row td.lv-engine')).toHaveText(['SDP', 'SDP', 'SDP', 'SDP']);
    }
    await page.getByRole('button', { name: 'Compare task 0 slot 1' }).first().click();
    const slot = page.getByRole('region', { name: 'Task 0 slot 1 in both' });
    await expect(slot).toContainText('2 differing fields');
    const a = slot.getByRole('table', { name: 'A op descriptor' });
    const b = slot.getByRole('table', { name: 'B op descriptor' });
    await expect(a.locator('tr.lv-diff[data-path="out_cvt.scale"]')).toContainText('19669 ≠ 28150');
    await expect(b.locator('tr.lv-diff[data-path="out_cvt.scale"]')).toContainText('28150 ≠ 19669');
    await expect(a.locator('tr.lv-diff')).toHaveCount(2);
    await page.screenshot({ path: screenshotPath('loadable-compare') });
    await slot.screenshot({ path: screenshotPath('loadable-compare-slot') });

    // the palette compares with the fp16 golden: lists differ too, the cells marked on both sides
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Command' }).fill('Compare int8.nvdla with fp16');
    await page.keyboard.press('Enter');
    await expect(compare.getByTestId('compare-verdict')).toContainText('Different');
    await sections.getByRole('tab', { name: /Memory/ }).click();
    for (const side of ['A', 'B']) {
      const t = page.getByRole('table', { name: `${side} Memory` });
      await expect(t.locator('tr[data-row="1"] td.lv-diff')).toHaveCount(2); // size and contents
      await expect(t.locator('tr[data-row="3"] td.lv-diff')).toHaveCount(1); // the fp16 input is twice the size
    }
    await page.screenshot({ path: screenshotPath('loadable-compare-memory') });
  });
});
