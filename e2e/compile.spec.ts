/**
 * The compile view in the browser (issues 13 and 14): drop LeNet with its caffemodel, Compile, see
 * the Caffe, canonical and engine graphs side by side; conv1 highlights n-0, dc-conv-0 and bias-0;
 * scrub the pass timeline; the memory plan; the loadable with its Caffe layers; the downloads
 * equal the CLI's output byte for byte.
 */
import { test, expect } from '@playwright/test';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { dropFiles, ROOT, screenshotPath } from './support/studio';

const FIXTURES = join(ROOT, 'test', 'fixtures', 'caffe', 'lenet');
const fixture = (name: string) => ({ name, bytes: new Uint8Array(readFileSync(join(FIXTURES, name))) });

test.describe('compile for NVDLA', () => {
  test.use({ viewport: { width: 1680, height: 1000 } });
  // a LeNet compile at batch 64 (704 op slots) and four views on a loaded 2-core machine: behaviour, not timing
  test.setTimeout(180_000);

  test('LeNet: three panes with origins, the pass timeline, the memory plan, the loadable, downloads equal to the CLI', async ({ page }) => {
    await page.goto('/?sample=none');
    await dropFiles(page, [fixture('lenet.prototxt'), fixture('lenet_iter_10000.caffemodel')]);
    await expect(page.getByRole('status')).toContainText('lenet.prototxt');
    await page.getByTestId('compile-button').click();
    const view = page.getByTestId('compile-view');
    await expect(view.getByTestId('compile-status')).toHaveAttribute('data-reached', 'emit', { timeout: 30_000 });
    await expect(view.getByTestId('compile-status')).toContainText('fast-math · nv_full · INT8 · batch 64');
    // nvdla_compiler's warning about the widened image input, in its own words
    await expect(view.getByTestId('compile-diagnostics')).toContainText('nvdla_compiler says: Prototxt #chnls (C = 1) != Profile #chnls');
    // conv1's post-extended weights: laid out as the hardware reads them, not as nvdla_compiler does (one line naming the layer)
    const layout = view.getByTestId('compile-diagnostics').locator('li', { hasText: 'post-extended by 2' });
    await expect(layout).toContainText("layer 'conv1'");
    await expect(layout).toContainText('this weight blob differs from nvdla_compiler');
    await expect(view.getByRole('combobox', { name: 'postExtWeights' })).toHaveValue('csc');

    const caffe = view.getByRole('region', { name: 'Caffe graph' });
    const canonical = view.getByRole('region', { name: 'Canonical graph' });
    const engine = view.getByRole('region', { name: 'Engine graph' });
    for (const pane of [caffe, canonical, engine]) await expect(pane.getByTestId('graph-canvas')).toBeVisible();
    await expect(engine.getByRole('button', { name: /dc-conv-0/ })).toBeVisible();
    // issue 13: the canonical nodes are n-0, n-1, ... and the engine nodes dc-conv-0, bias-0, ...,
    // with those names drawn in the boxes at the first zoom (names are drawn from LOD.subtitle on)
    await expect(canonical.getByRole('button', { name: 'CONVOLUTION n-0 · conv1' })).toBeVisible();
    await expect(engine.getByRole('button', { name: 'SDP_BIAS bias-0' })).toBeVisible();
    for (const pane of [caffe, canonical, engine]) {
      const k = Number(await pane.getByTestId('graph-canvas').getAttribute('data-zoom'));
      expect(k, `zoom of the ${await pane.getAttribute('aria-label')}`).toBeGreaterThanOrEqual(0.75);
    }
    await page.screenshot({ path: screenshotPath('compile-first-view') });

    // conv1 in the Caffe graph: n-0 in the canonical graph, dc-conv-0 and bias-0 in the engine graph
    await caffe.getByRole('button', { name: 'Convolution conv1' }).click();
    await expect(canonical).toHaveAttribute('data-highlighted-ids', 'n-0');
    await expect(engine).toHaveAttribute('data-highlighted-names', 'dc-conv-0 bias-0');
    await expect(view.getByTestId('compile-node')).toContainText('Caffe: conv1');
    await page.screenshot({ path: screenshotPath('compile-graphs') });

    // and back: bias-2 of the engine graph stands for ip1 (relu1 is folded into its box)
    const timeline = view.getByTestId('pass-timeline');
    const slider = timeline.getByRole('slider', { name: 'Pass' });
    await slider.fill('3');
    await expect(timeline).toContainText('3. mergeActivationOperations');
    await expect(view.getByTestId('step-detail')).toContainText('sdp-scale-0 → bias-2');
    await expect(view.getByTestId('step-detail')).toContainText('bias-2 = ip1 + relu1');
    await expect(engine).toContainText('after mergeActivationOperations');
    await expect(engine.getByRole('button', { name: /act-0/ })).toHaveCount(0);
    // bias-2 is below the first view (drawn at a readable scale): the pane's find brings it in
    await engine.getByRole('searchbox', { name: 'Find in this graph' }).fill('bias-2');
    await engine.getByRole('searchbox', { name: 'Find in this graph' }).press('Enter');
    await engine.getByRole('button', { name: /bias-2/ }).click();
    await expect(caffe).toHaveAttribute('data-highlighted-names', 'ip1');
    await expect(view.getByTestId('compile-node')).toContainText('tsd-');
    await page.screenshot({ path: screenshotPath('compile-timeline') });
    // the keyboard scrubs too: to the last pass
    await slider.press('End');
    await expect(timeline).toContainText('15. resolveMemory');

    // the memory plan: each pool's buffers over the op slots
    await view.getByRole('tab', { name: 'Memory plan' }).click();
    const plan = view.getByTestId('memory-plan');
    await expect(plan.locator('[data-pool="LOCAL_DRAM"] rect.compile-buf').first()).toBeVisible();
    expect(await plan.locator('[data-pool="GLOBAL_DRAM"] rect.compile-buf').count()).toBeGreaterThan(0);
    await expect(plan).toContainText('placed in reused space');
    await page.screenshot({ path: screenshotPath('compile-memory-plan') });

    // the loadable in the inspector's views: each op slot lists its Caffe layers; a layer marks its slots
    await view.getByRole('tab', { name: 'Loadable' }).click();
    const slots = view.getByRole('table', { name: 'Task 0 op slots' });
    // the worker decodes 704 op slots for the overview: on a loaded machine that takes a while
    await expect(slots.locator('tr[data-node="0"]')).toContainText('conv1', { timeout: 45_000 });
    await view.getByRole('complementary', { name: 'Caffe layers' }).getByRole('button', { name: /^pool1/ }).click();
    await expect(slots.locator('tr[data-marked]')).toHaveCount(64);
    await page.screenshot({ path: screenshotPath('compile-loadable') });

    // downloads: the same bytes as `npu-studio compile` with the same options
    const dir = mkdtempSync(join(tmpdir(), 'compile-e2e-'));
    try {
      execFileSync('node', [join(ROOT, 'bin/npu-studio.cjs'), 'compile', '--prototxt', join(FIXTURES, 'lenet.prototxt'), '--caffemodel', join(FIXTURES, 'lenet_iter_10000.caffemodel'), '-o', dir], { stdio: 'pipe' });
      const [origins] = await Promise.all([page.waitForEvent('download'), view.getByTestId('download-origins').click()]);
      expect(origins.suggestedFilename()).toBe('fast-math.origins.json');
      expect(readFileSync((await origins.path())!, 'utf8')).toBe(readFileSync(join(dir, 'fast-math.origins.json'), 'utf8'));
      const [loadable] = await Promise.all([page.waitForEvent('download'), view.getByTestId('download-loadable').click()]);
      expect(loadable.suggestedFilename()).toBe('fast-math.nvdla');
      const got = readFileSync((await loadable.path())!);
      const want = readFileSync(join(dir, 'fast-math.nvdla'));
      expect(got.length).toBe(want.length);
      expect(Buffer.compare(got, want)).toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an option change recompiles with progress per pass (a newer change cancels the compile running); fp16 has no sdp-scale; a refusal names the layer with the Caffe graph still shown', async ({ page }) => {
    await page.goto('/?sample=none');
    await dropFiles(page, [fixture('lenet.prototxt'), fixture('lenet_iter_10000.caffemodel')]);
    await expect(page.getByRole('status')).toContainText('lenet.prototxt');
    await page.keyboard.press('Control+Shift+B');
    const view = page.getByTestId('compile-view');
    await expect(view.getByTestId('compile-status')).toHaveAttribute('data-reached', 'emit', { timeout: 30_000 });
    // the three panes' canvases, marked: recompiles that bring other warnings keep them, at their size
    const canvases = () =>
      page.evaluate(() => [...document.querySelectorAll<HTMLCanvasElement & { mark?: number }>('[data-testid=compile-view] canvas[data-testid=graph-canvas]')].map((c, i) => `${(c.mark ??= i)}:${c.width}x${c.height}`));
    await expect(view.getByTestId('graph-canvas')).toHaveCount(3);
    const before = await canvases();
    // every text the progress bar shows from now on
    await page.evaluate(() => {
      const w = window as unknown as { progressTexts: string[] };
      w.progressTexts = [];
      new MutationObserver(() => {
        const t = document.querySelector('[data-testid="compile-progress"]')?.textContent;
        if (t && w.progressTexts.at(-1) !== t) w.progressTexts.push(t);
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });
    // three option changes in a row: the compiles they replace are cancelled, the last one's result shows
    await view.getByRole('combobox', { name: 'cprecision' }).selectOption('fp16');
    await view.getByRole('combobox', { name: 'profile' }).selectOption('basic');
    await view.getByRole('combobox', { name: 'profile' }).selectOption('fast-math');
    await expect(view.getByTestId('compile-status')).toContainText('FP16', { timeout: 30_000 });
    await expect(view.getByTestId('compile-status')).toContainText('fast-math');
    await expect(view.getByRole('alert')).toHaveCount(0);
    // the progress bar named the passes as the worker ran them
    const texts = await page.evaluate(() => (window as unknown as { progressTexts: string[] }).progressTexts);
    expect(texts.filter((t) => /^pass \d+ of 15: [a-zA-Z]+…$/.test(t)).length).toBeGreaterThan(0);
    const engine = view.getByRole('region', { name: 'Engine graph' });
    await expect(engine.getByRole('button', { name: /dc-conv-0/ })).toBeVisible();
    // no sdp-scale anywhere in the graph (the first view shows its start only: ask the pane's find)
    const find = engine.getByRole('searchbox', { name: 'Find in this graph' });
    await find.fill('sdp-scale');
    await find.press('Enter');
    await expect(engine.locator('.compile-find')).toContainText(/\b0$/);
    await find.fill('bias-0');
    await find.press('Enter');
    await expect(engine.locator('.compile-find')).toContainText('1/1');
    // nvdla_compiler's post-extended layout, chosen in the form: the warning says what the hardware makes of it
    await view.getByRole('combobox', { name: 'postExtWeights' }).selectOption('nvdla_compiler');
    await expect(view.getByTestId('compile-diagnostics').locator('li', { hasText: 'post-extended by 2' })).toContainText('kernel rows 0, 1, 3, 4, 4', { timeout: 30_000 });
    await view.getByRole('combobox', { name: 'configtarget' }).selectOption('opendla-large');
    await expect(view.getByTestId('compile-diagnostics')).toContainText("'opendla-large' is not a target configuration nvdla_compiler knows", { timeout: 30_000 });
    await page.screenshot({ path: screenshotPath('compile-options') });
    // five recompiles and a pass picked later, the panes have kept their canvases and their size (a
    // pane resized by what a compile said made its canvas anew on the UI thread)
    await view.getByTestId('pass-timeline').getByRole('option').nth(3).getByRole('button').click();
    await expect(engine).toContainText('after mergeActivationOperations');
    await expect(engine).not.toContainText('laying out');
    expect(await canvases()).toEqual(before);

    // a net NVDLA refuses (relu1 made a PReLU): the reason, naming the layer; the Caffe pane still draws the net
    const prelu = readFileSync(join(FIXTURES, 'lenet.prototxt'), 'utf8').replace(/name: "relu1"\s*type: "ReLU"/, 'name: "relu1"\n  type: "PReLU"');
    expect(prelu).toContain('PReLU');
    await dropFiles(page, [{ name: 'lenet_prelu.prototxt', bytes: new TextEncoder().encode(prelu) }, fixture('lenet_iter_10000.caffemodel')]);
    await expect(page.getByRole('tablist', { name: 'Open models' }).getByRole('tab')).toHaveCount(2);
    await page.getByTestId('compile-button').click();
    const refused = page.getByTestId('compile-view');
    await expect(refused.getByTestId('compile-status')).toHaveAttribute('data-reached', 'options', { timeout: 30_000 });
    await expect(refused.getByTestId('compile-diagnostics')).toContainText("layer 'relu1'");
    await expect(refused.getByTestId('compile-diagnostics')).toContainText('nvdla_compiler says:');
    await expect(refused.getByRole('region', { name: 'Caffe graph' }).getByRole('button', { name: 'Convolution conv1' })).toBeVisible();
    await expect(refused.getByRole('region', { name: 'Canonical graph' })).toContainText('NVDLA refused the network');
    await page.screenshot({ path: screenshotPath('compile-refused') });
  });
});
