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
    await expect(status).toContainText(`${ops} nodes · ${edgeCount(model)} edges`);
    await expect(status).toContainText('Part_If_Add_Sub_001.circle');
    await expect(page.getByTestId('graph-canvas')).toBeVisible();
    await page.screenshot({ path: screenshotPath('explore-opened') });

    // select a node through its accessible name and read an option in the side panel
    await page.getByRole('button', { name: 'ADD add' }).click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    await expect(panel).toContainText('fused_activation_function');
    await expect(panel.getByRole('row', { name: /fused_activation_function/ })).toContainText('NONE');
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
    await expect(status).toContainText(`${model.subgraphs[4]!.operators.length} nodes · ${edgeCount(model, 4)} edges`);

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

  test('samples menu, tabs and layout direction', async ({ page }) => {
    await page.goto('/?sample=none');
    await page.getByRole('button', { name: /Samples/ }).click();
    await page.getByRole('menuitem', { name: /Part_Add_Sub_000/ }).click();
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle');
    await page.getByRole('button', { name: /Samples/ }).click();
    await page.getByRole('menuitem', { name: /Net_InstanceNorm_003/ }).click();
    const tabs = page.getByRole('tablist', { name: 'Open models' }).getByRole('tab');
    await expect(tabs).toHaveCount(2);
    await tabs.filter({ hasText: 'Part_Add_Sub_000.circle' }).click();
    await expect(page.getByRole('status')).toContainText('Part_Add_Sub_000.circle');
    await page.keyboard.press('Control+k');
    await expect(page.getByText('left to right')).toBeVisible();
    await page.screenshot({ path: screenshotPath('samples-lr') });
  });
});
