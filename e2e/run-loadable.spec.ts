import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { dropFiles, ROOT, screenshotPath } from './support/studio';
import { read } from '../src/core/loadable/read';
import { decodeTasks, type DlaTask } from '../src/core/loadable/tasks';

const NVDLA = join(ROOT, 'test', 'fixtures', 'nvdla');
const CAFFE = join(ROOT, 'test', 'fixtures', 'caffe', 'lenet');
const FP16 = 'lenet-b1-nv_small-fp16-fast-math';
const golden = (name: string) => new Uint8Array(readFileSync(join(NVDLA, 'golden', `${name}.nvdla`)));
const lenetFiles = () => ['lenet.prototxt', 'lenet_iter_10000.caffemodel'].map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(CAFFE, name))) }));

const require = createRequire(import.meta.url);
/** MNIST digit `d` of the `mnist` package (values 0..1) as a 28 x 28 gray PNG */
function digitPng(d: number): Buffer {
  const { PNG } = require('pngjs') as typeof import('pngjs');
  const raw = (JSON.parse(readFileSync(require.resolve(`mnist/src/digits/${d}.json`), 'utf8')) as { data: number[] }).data;
  const png = new PNG({ width: 28, height: 28 });
  for (let i = 0; i < 784; i++) {
    const v = Math.round(raw[i]! * 255);
    png.data.set([v, v, v, 255], i * 4);
  }
  return PNG.sync.write(png);
}

const view = (page: Page, name: string) => page.getByRole('tablist', { name: 'Loadable views' }).getByRole('tab', { name: new RegExp(`^${name}`) });

/** LeNet's deploy with its weights, then the loadable (the loadable's tab is active) */
async function openBoth(page: Page, loadable: { name: string; bytes: Uint8Array }) {
  await page.goto('/?sample=none');
  await dropFiles(page, lenetFiles());
  await expect(page.getByRole('status')).toContainText('lenet.prototxt');
  await dropFiles(page, [loadable]);
  await expect(page.getByRole('tablist', { name: 'Loadable views' })).toBeVisible();
}

test.describe('running a loadable', () => {
  test.use({ viewport: { width: 1500, height: 1000 } });

  test('LeNet fp16 golden on an MNIST 7: class 7, per-layer error against Caffe, heatmaps, graphs coloured; calibrate on digits and download calib.json', async ({ page }) => {
    // a run, a comparison (our compile to match op slots) and three calibration passes on a loaded 2-core machine
    test.setTimeout(240_000);
    await openBoth(page, { name: `${FP16}.nvdla`, bytes: golden(FP16) });
    await view(page, 'Run').click();
    const setup = page.getByRole('region', { name: 'Run the loadable' });
    await expect(setup).toContainText('nv_small');
    await setup.getByRole('radio', { name: 'image' }).check();
    await page.getByTestId('rl-input-file').setInputFiles({ name: 'mnist_7.png', mimeType: 'image/png', buffer: digitPng(7) });
    await expect(setup).toContainText('mnist_7.png');
    // LeNet was trained on pixels / 256 (its train_test's transform); the paired deploy says gray
    await expect(setup.getByRole('combobox', { name: 'Colour order' })).toHaveValue('gray');
    await setup.getByRole('textbox', { name: 'Scale' }).fill('0.00390625');
    await setup.getByRole('button', { name: 'Run', exact: true }).click();

    const output = page.getByRole('region', { name: 'Output' });
    const top = output.getByRole('table', { name: /^Top 5 of/ });
    await expect(top.locator('tbody tr').first().locator('td').first()).toHaveText('7', { timeout: 30_000 });
    await expect(top.locator('tbody tr')).toHaveCount(5);

    // the comparison runs by itself after the run: every compared layer above 40 dB on nv_small fp16
    const compare = page.getByRole('region', { name: 'Compare with the Caffe model' });
    await expect(compare.getByRole('status', { name: 'Comparison summary' })).toContainText('Top-1: loadable 7, Caffe 7 (the same class)', { timeout: 30_000 });
    const chart = compare.getByRole('img', { name: /^SNR per layer/ });
    await expect(chart).toBeVisible();
    const label = (await chart.getAttribute('aria-label')) ?? '';
    expect(label.match(/conv1|pool1|conv2|pool2|relu1|ip2|prob/g)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'relu1', 'ip2', 'prob']);
    const table = compare.getByRole('table', { name: 'Per-layer error' });
    await expect(table.locator('tbody tr')).toHaveCount(7);
    const snrs = await table.locator('tbody tr td:nth-child(8)').allTextContents();
    expect(snrs.filter((s) => !(s.startsWith('∞') || parseFloat(s) > 40))).toEqual([]);
    // the worst layer's tensors side by side, and their difference
    const tensors = compare.getByRole('region', { name: /^Tensors of / }).or(compare.locator('.rl-tensors'));
    await expect(tensors.getByRole('img', { name: /^loadable \(DLA model\)/ })).toBeVisible();
    await expect(tensors.getByRole('img', { name: /^Caffe .* \(float\)/ })).toBeVisible();
    await expect(tensors.getByRole('img', { name: /^difference/ })).toBeVisible();
    // pick conv1 in the table: 20 channels to step through
    await table.locator('tbody tr', { hasText: 'conv1' }).click();
    await expect(tensors.getByRole('spinbutton', { name: 'Channel' })).toHaveValue('0');
    await tensors.getByRole('button', { name: 'Next channel' }).click();
    await expect(tensors.getByRole('spinbutton', { name: 'Channel' })).toHaveValue('1');
    await expect(tensors.getByRole('img', { name: /^loadable \(DLA model\): 24 x 24/ })).toBeVisible();
    await compare.getByRole('combobox', { name: 'Metric' }).selectOption('cosine');
    await expect(compare.getByRole('img', { name: /^cosine similarity per layer/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('run-loadable-compare'), fullPage: false });

    // the op-slot graph coloured by error
    await view(page, 'Graph').click();
    await expect(page.locator('canvas').first()).toBeVisible();
    await page.waitForTimeout(500);
    await expect(page.getByRole('list', { name: 'Error colours' })).toContainText('op slots by SNR against the Caffe model');
    await page.screenshot({ path: screenshotPath('run-loadable-graph'), fullPage: false });
    // the Caffe graph, coloured the same way
    await page.getByRole('tab', { name: 'lenet.prototxt', exact: true }).click();
    await expect(page.getByRole('status')).toContainText('lenet.prototxt');
    await page.waitForTimeout(500);
    await page.screenshot({ path: screenshotPath('run-loadable-caffe-graph'), fullPage: false });
    await page.getByRole('tab', { name: `${FP16}.nvdla`, exact: true }).click();

    // Calibrate on three digits with the entropy method, then download the table
    await view(page, 'Calibrate').click();
    const calib = page.getByRole('region', { name: 'Calibrate for int8' });
    await calib.getByTestId('rl-calib-inputs').setInputFiles([3, 5, 7].map((d) => ({ name: `mnist_${d}.png`, mimeType: 'image/png', buffer: digitPng(d) })));
    await expect(calib.getByLabel('Calibration inputs')).toContainText('3 inputs: mnist_3.png, mnist_5.png, mnist_7.png');
    await calib.getByRole('button', { name: 'Calibrate', exact: true }).click();
    const scales = page.getByRole('table', { name: 'Calibration scales' });
    await expect(scales.locator('tbody tr')).toHaveCount(9, { timeout: 60_000 });
    await expect(scales.locator('tbody tr td:first-child')).toHaveText(['data', 'conv1', 'pool1 (= conv1)', 'conv2', 'pool2 (= conv2)', 'ip1', 'relu1', 'ip2', 'prob']);
    // pixels / 256 reach 255 / 256: the input's scale is that over 127
    await expect(scales.locator('tbody tr').first().locator('td').nth(3)).toHaveText(String(Number((255 / 256 / 127).toPrecision(5))));
    const maxConv1 = await scales.locator('tbody tr').nth(1).locator('td').nth(2).textContent();
    await calib.getByRole('combobox', { name: 'Calibration method' }).selectOption('entropy');
    await expect(page.getByRole('region', { name: 'Calibration table' })).toContainText('entropy · 3 inputs');
    const entropyConv1 = await scales.locator('tbody tr').nth(1).locator('td').nth(2).textContent();
    expect(Number(entropyConv1)).toBeLessThanOrEqual(Number(maxConv1));
    await scales.locator('tbody tr', { hasText: 'conv2' }).first().click();
    await expect(page.getByRole('img', { name: /^\|value\| histogram of conv2/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('run-loadable-calibrate'), fullPage: false });
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download calib.json' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('calib.json');
    const json = JSON.parse(readFileSync((await file.path())!, 'utf8')) as Record<string, { scale: number; min: number; max: number; offset: number }>;
    expect(Object.keys(json)).toEqual(['data', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
    expect(json.pool1!.scale).toBe(json.conv1!.scale);
    expect(Object.values(json).every((e) => e.scale > 0 && e.min === 0 && e.max === 0 && e.offset === 0)).toBe(true);
  });

  test('an int8 loadable compiled without a calibration table says its results are meaningless', async ({ page }) => {
    const name = 'lenet-b1-nv_full-int8-fast-math';
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: `${name}.nvdla`, bytes: golden(name) }]);
    await view(page, 'Run').click();
    await expect(page.getByRole('note').filter({ hasText: 'without a calibration table' })).toContainText('meaningless');
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByRole('list', { name: 'Warnings of the run' })).toContainText('no calibration table was given', { timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('run-loadable-int8-warning'), fullPage: false });
  });

  /** LeNet fp16 with one field of an op slot's common descriptor changed */
  function patched(slot: number, name: string, value: number): Uint8Array {
    const bytes = Uint8Array.from(golden(FP16));
    const l = read(bytes, 'x.nvdla');
    const common = (decodeTasks(l).tasks[0] as DlaTask).slots[slot]!.common;
    const field = common.fields.find((f) => f.name === name)!;
    l.blobs.find((b) => b.name === common.blob)!.data[field.offset] = value;
    return bytes;
  }

  test('a loadable the model cannot execute: the task, the op slot and the field; the document stays open', async ({ page }) => {
    await page.goto('/?sample=none');
    // an op type no engine has: said before running, and Run is off
    await dropFiles(page, [{ name: 'lenet-bad-op.nvdla', bytes: patched(2, 'op_type', 9) }]);
    await view(page, 'Run').click();
    const problems = page.getByRole('alert', { name: 'Why the loadable cannot run' });
    await expect(problems).toContainText('task 0 (DLA) op slot 2 (op_type 9), field common.op_type: 9 is not a known value of op_type');
    await expect(page.getByRole('button', { name: 'Run', exact: true })).toBeDisabled();
    // a dependency count no event ever brings to 0: the run stops with the deadlock, naming the slot and the field
    await dropFiles(page, [{ name: 'lenet-deadlock.nvdla', bytes: patched(4, 'dependency_count', 9) }]);
    // the new tab opens in its Tasks view: wait for it before choosing Run (else the click lands on the first tab's views)
    await expect(page.getByRole('tab', { name: 'lenet-deadlock.nvdla', exact: true })).toHaveAttribute('aria-selected', 'true');
    await expect(page.getByRole('table', { name: 'Task 0 op slots' })).toBeVisible();
    await view(page, 'Run').click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    const message = page.getByRole('region', { name: 'Run the loadable' }).getByRole('status');
    await expect(message).toContainText(/task 0 \(DLA\) op slot \d+ \(\w+\): common\.dependency_count: deadlock/, { timeout: 30_000 });
    await expect(message).toContainText('slot 4 (SDP): programmed, waiting for 7 more dependency event(s)');
    await page.screenshot({ path: screenshotPath('run-loadable-cannot-run'), fullPage: false });
    // the long one-line alert is cut with an ellipsis: the page never grows wider than the window
    // (it pushed the side panel and the top bar's right half off screen)
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
    await expect(page.getByRole('button', { name: 'Commands' })).toBeInViewport();
    // nothing lost: the tab and its other views are still there
    await view(page, 'Tasks').click();
    await expect(page.getByRole('table', { name: 'Task 0 op slots' }).locator('tbody tr')).toHaveCount(10);
  });
});
