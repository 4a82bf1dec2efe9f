import { test, expect, type Page } from '@playwright/test';
import { chefModel, dropFiles, screenshotPath } from './support/studio';
import { attachOrigins, type Origins } from '../src/core/origin';
import { write } from '../src/core/circle/write';
import { builtinOperatorName } from '../src/core/circle/names';

/** Net_InstanceNorm_003 with origin tables written in the test: operator i came from source 100+i ("onnx::<op>_<i>"), the last two share one more. */
function modelWithTables() {
  const { model } = chefModel('Net_InstanceNorm_003');
  const sg = model.subgraphs[0]!;
  const sources = new Map<number, string>();
  const ops: number[][] = [];
  sg.operators.forEach((op, i) => {
    const type = builtinOperatorName(model.operatorCodes[op.opcodeIndex]!.code);
    sources.set(100 + i, `onnx::${type}_${i}`);
    ops.push([100 + i]);
  });
  sources.set(999, 'onnx::Shared<script>');
  ops[ops.length - 1] = [100 + ops.length - 1, 999];
  ops[ops.length - 2] = [100 + ops.length - 2, 999];
  const origins: Origins = { kind: 'file', subgraph: 0, sources, ops, diagnostics: [] };
  return { bytes: write(attachOrigins(model, origins)), operators: sg.operators.length };
}

async function openOrigins(page: Page) {
  const panel = page.getByRole('complementary', { name: 'Properties' });
  await panel.getByRole('tab', { name: 'Origins' }).click();
  return panel;
}

test.describe('origins', () => {
  test('a model with origin tables: Origins panel rows, search, sort, hover both ways', async ({ page }) => {
    const { bytes, operators } = modelWithTables();
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'with_tables.circle', bytes }]);
    await expect(page.getByRole('status')).toContainText(`${operators} nodes`);
    const panel = await openOrigins(page);
    await expect(panel.getByText('from origin tables')).toBeVisible();
    await expect(panel.getByText('synthesised')).toHaveCount(0);

    const sources = panel.getByRole('table', { name: 'Source table' });
    await expect(sources.getByRole('row', { name: /100 onnx::MEAN_0/ })).toBeVisible();
    // untrusted names are text, never markup
    await expect(sources.getByRole('row', { name: /999 onnx::Shared<script> 2 ops/ })).toBeVisible();
    const ops = panel.getByRole('table', { name: 'Operator origins' });
    await expect(ops.getByRole('row').filter({ hasText: 'onnx::Shared<script>' })).toHaveCount(2);

    // search and sort
    await panel.getByRole('searchbox', { name: 'Search source table' }).fill('shared');
    await expect(panel.getByText(`1 of ${operators + 1} sources`)).toBeVisible();
    await panel.getByRole('searchbox', { name: 'Search source table' }).fill('');
    await sources.getByRole('columnheader', { name: /used by/ }).click();
    await sources.getByRole('columnheader', { name: /used by/ }).click();
    await expect(sources.getByRole('row').nth(1)).toContainText('999');
    await page.screenshot({ path: screenshotPath('origins-panel') });

    // hover an operator in the graph: its origin rows light up in the source table
    await page.getByRole('button', { name: 'ADD Add_as_terminal' }).hover();
    await expect(panel.getByText('2 origins of the hovered operator')).toBeVisible();
    await expect(sources.locator('.vt-row.hl')).toHaveCount(2);
    await page.screenshot({ path: screenshotPath('origins-hover-operator') });

    // hover a source row: the operators carrying it are drawn with the pink border
    await page.mouse.move(5, 300);
    await sources.getByRole('row', { name: /999 onnx::Shared/ }).hover();
    await page.screenshot({ path: screenshotPath('origins-hover-source') });

    // click a source row: selects its first operator; the selected section lists its origins
    await sources.getByRole('row', { name: /999 onnx::Shared/ }).click();
    await expect(panel.getByLabel('Selected operator origins')).toContainText('onnx::Shared<script>');
  });

  test('a model without tables is marked synthesised', async ({ page }) => {
    const { bytes } = chefModel('Part_Add_Sub_000');
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'plain.circle', bytes }]);
    const panel = await openOrigins(page);
    await expect(panel.getByText('synthesised', { exact: true })).toBeVisible();
    await expect(panel.getByRole('table', { name: 'Source table' }).getByRole('row', { name: /^0 / })).toBeVisible();
  });
});

test.describe('optimize and compare', () => {
  test('fuse_instance_norm: two panes, related nodes across panes, download, back', async ({ page }) => {
    const { model, bytes } = chefModel('Net_InstanceNorm_003');
    const operators = model.subgraphs[0]!.operators.length;
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name: 'Net_InstanceNorm_003.circle', bytes }]);
    await expect(page.getByRole('status')).toContainText(`${operators} nodes`);

    await page.getByRole('button', { name: 'Optimize…' }).click();
    const picker = page.getByRole('dialog', { name: 'Optimize passes' });
    await expect(picker.getByRole('checkbox', { name: 'fuse_instance_norm' })).toBeChecked();
    await picker.getByRole('button', { name: 'None' }).click();
    await picker.getByRole('checkbox', { name: 'fuse_instance_norm' }).check();
    await page.screenshot({ path: screenshotPath('optimize-picker') });
    await picker.getByRole('button', { name: 'Run 1 pass' }).click();

    const left = page.getByRole('region', { name: 'Original graph' });
    const right = page.getByRole('region', { name: 'Optimized graph' });
    await expect(left).toHaveAttribute('data-operators', String(operators));
    await expect(right).toHaveAttribute('data-operators', '1');
    await expect(page.getByRole('list', { name: 'Pass log' })).toContainText('fuse_instance_norm: 1 change');

    // select INSTANCE_NORM on the right: the nine operators it came from are related on the left
    await right.getByRole('button', { name: /^INSTANCE_NORM / }).click();
    await expect(left).toHaveAttribute('data-related-count', String(operators));
    await expect(left.getByText(`${operators} related nodes`)).toBeVisible();
    await page.screenshot({ path: screenshotPath('compare-selected-right') });
    // the status bar counts both graphs on screen: an INSTANCE_NORM between the input and the output
    await expect(page.getByRole('status')).toContainText(`${operators} nodes`);
    await expect(page.getByRole('status')).toContainText('optimized: 1 node · 2 edges');

    // the side panel follows the pane last used: the optimized node, from the optimized document
    const panel = page.getByRole('complementary', { name: 'Properties' });
    const subject = panel.getByRole('group', { name: 'Side panel model' });
    await expect(right).toHaveAttribute('data-focused', 'true');
    await expect(left).toHaveAttribute('data-focused', 'false');
    await expect(subject).toContainText('Optimized');
    await expect(subject).toContainText('Net_InstanceNorm_003.opt.circle');
    await panel.getByRole('tab', { name: 'Node' }).click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('INSTANCE_NORM');
    await expect(panel.locator('.node-panel')).not.toHaveAttribute('aria-busy');
    await expect(panel.getByRole('table', { name: 'Node' })).toContainText('Normalization');
    await expect(panel.getByRole('table', { name: 'Options' }).getByRole('row', { name: /epsilon/ })).toBeVisible();
    await expect(panel.getByRole('row', { name: /^shape \[1, 8, 6, 12\]$/ }).first()).toBeVisible();
    // beta is a constant: its first values are decoded in the worker (the recipe's filler)
    await expect(panel.getByLabel('Values of Beta')).toContainText(/^\[\s*1\.9714,\s+1\.4517,\s+1\.20315,/); // laid out along the shape (tensor-text)
    await page.screenshot({ path: screenshotPath('compare-node-right') });

    // the Model tab describes the optimized model: one operator, its origin tables as metadata
    await panel.getByRole('tab', { name: 'Model' }).click();
    await expect(panel.getByRole('row', { name: 'operators 1', exact: true })).toBeVisible();
    await expect(panel.getByRole('cell', { name: 'ONE_source_table', exact: true })).toBeVisible();
    await expect(panel.getByRole('cell', { name: 'ONE_op_table', exact: true })).toBeVisible();
    await expect(panel.getByText('Net_InstanceNorm_003.opt.circle', { exact: true }).last()).toBeVisible();
    await page.screenshot({ path: screenshotPath('compare-model-right') });

    // the Origins tab reads the optimized model's tables: one operator carrying all the source ids
    await panel.getByRole('tab', { name: 'Origins' }).click();
    await expect(panel.getByText('from origin tables')).toBeVisible();
    await expect(panel.getByRole('table', { name: 'Operator origins' }).getByRole('row')).toHaveCount(2);
    await expect(panel.getByLabel('Selected operator origins').getByRole('listitem')).toHaveCount(operators);
    await page.screenshot({ path: screenshotPath('compare-origins-right') });

    // and the other way: hovering MEAN on the left highlights INSTANCE_NORM on the right
    await left.getByRole('button', { name: 'MEAN Mean_of_ifm' }).hover();
    await expect(right).toHaveAttribute('data-related-count', '1');
    await expect(right.getByText('1 related node')).toBeVisible();
    // hovering is not using the pane: the panel stays on the optimized model
    await expect(subject).toContainText('Optimized');
    await page.screenshot({ path: screenshotPath('compare-hover-left') });

    // selecting on the left brings the panel back to the original document
    await left.getByRole('button', { name: 'MEAN Mean_of_ifm' }).click();
    await expect(subject).toContainText('Original');
    await expect(subject).toContainText('Net_InstanceNorm_003.circle');
    await expect(left).toHaveAttribute('data-focused', 'true');
    await expect(right).toHaveAttribute('data-related-count', '1');
    await expect(panel.getByText('synthesised', { exact: true })).toBeVisible();
    await expect(panel.getByRole('table', { name: 'Operator origins' }).getByRole('row')).toHaveCount(operators + 1);
    // hover links between the pane the panel follows and its Origins tab, as in the single view:
    // a source row lights up its operator in the left pane, a left node lights up its source row
    await left.getByRole('button', { name: 'MEAN Mean_of_ifm' }).hover();
    await expect(panel.locator('[data-source-id="0"]')).toHaveClass(/\bhl\b/);
    await page.mouse.move(1, 300);
    await expect(panel.locator('[data-source-id="0"]')).not.toHaveClass(/\bhl\b/);
    await panel.locator('[data-source-id="2"]').hover();
    await expect(left).toHaveAttribute('data-highlighted-count', '1');
    await page.screenshot({ path: screenshotPath('compare-origins-hover-source-left') });
    await page.mouse.move(1, 300);
    await expect(left).toHaveAttribute('data-highlighted-count', '0');
    await panel.getByRole('tab', { name: 'Node' }).click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('MEAN');
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('Mean_of_ifm');
    await expect(panel.getByRole('table', { name: 'Options' }).getByRole('row', { name: /keep_dims/ })).toBeVisible();
    await expect(panel.getByRole('row', { name: /^shape \[1, 8, 6, 12\]$/ }).first()).toBeVisible();
    await page.screenshot({ path: screenshotPath('compare-node-left') });
    await panel.getByRole('tab', { name: 'Model' }).click();
    await expect(panel.getByRole('row', { name: `operators ${operators}`, exact: true })).toBeVisible();

    // a click on the optimized pane's background uses that pane (nothing selected); an operator
    // row of its Origins tab then selects in that pane, and the related nodes light up on the left
    await right.locator('.compare-host').click({ position: { x: 8, y: 8 } });
    await expect(subject).toContainText('Optimized');
    await expect(right).toHaveAttribute('data-related-count', '0');
    await panel.getByRole('tab', { name: 'Origins' }).click();
    await expect(panel.getByText('Select an operator in the graph to see its origins here.')).toBeVisible();
    await panel.getByRole('table', { name: 'Operator origins' }).getByRole('row').nth(1).click();
    await expect(panel.getByLabel('Selected operator origins')).toContainText('INSTANCE_NORM');
    await expect(left).toHaveAttribute('data-related-count', String(operators));
    await panel.getByRole('tab', { name: 'Node' }).click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('INSTANCE_NORM');

    // the model worker dies: the optimized model is re-opened from its bytes (new document id)
    // and the selection's details come again from it
    await page.evaluate(() => (window as unknown as { __npuStudio: { crashModelWorker(): void } }).__npuStudio.crashModelWorker());
    await expect(page.getByRole('alert').filter({ hasText: 'restarted' })).toBeVisible();
    await expect(page.getByLabel('worker state')).toContainText('re-opened');
    await right.getByRole('button', { name: /^INSTANCE_NORM / }).click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('INSTANCE_NORM');
    await expect(panel.getByRole('table', { name: 'Options' }).getByRole('row', { name: /epsilon/ })).toBeVisible();
    await left.getByRole('button', { name: /^MEAN Mean_of_ifm/ }).click();
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('Mean_of_ifm');

    // the optimized model downloads with its origin tables
    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download .circle' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toBe('Net_InstanceNorm_003.opt.circle');
    const { readFileSync } = await import('node:fs');
    const { read } = await import('../src/core/circle/read');
    const { originsJson } = await import('../src/core/origin');
    const written = read(new Uint8Array(readFileSync((await file.path())!)), 'opt.circle');
    const json = originsJson(written);
    expect(json.synthesised).toBe(false);
    expect(Object.keys(json.ops)).toEqual(['0']);
    expect(json.ops['0']).toHaveLength(operators);

    await page.getByRole('button', { name: '← Single view' }).click();
    await expect(page.getByRole('region', { name: 'Graph' })).toBeVisible();
    await expect(page.getByRole('status')).not.toContainText('optimized');
    await expect(page.getByRole('button', { name: 'Compare', exact: true })).toBeVisible();
  });
});
