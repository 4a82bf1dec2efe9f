import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { screenshotPath } from './support/studio';

test.describe('command palette, keyboard help, resizable panes', () => {
  test('palette runs commands by name; ? shows the shortcuts', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    const status = page.getByRole('status');
    await expect(status).toContainText('Net_InstanceNorm_003.circle · 9 nodes · 13 edges');

    // Ctrl+Shift+P: type part of a command, Enter runs it and closes the palette
    await page.keyboard.press('Control+Shift+P');
    const palette = page.getByRole('dialog', { name: 'Command palette' });
    await expect(palette).toBeVisible();
    const input = palette.getByRole('combobox', { name: 'Command' });
    await expect(input).toBeFocused();
    await input.fill('left to right');
    await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'view.direction');
    await page.keyboard.press('Tab'); // a modal dialog keeps the focus
    await expect(input).toBeFocused();
    await page.screenshot({ path: screenshotPath('palette-filtered') });
    await input.press('Enter');
    await expect(palette).toBeHidden();
    await expect(page.getByText('left to right · Ctrl+F find')).toBeVisible();

    // F1 too; arrows move, a theme command switches the theme
    await page.keyboard.press('F1');
    await input.fill('dark theme');
    await expect(palette.getByRole('option', { selected: true })).toContainText('Dark theme');
    await input.press('Enter');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');

    // a pass by name: optimize opens the compare view with the optimized graph
    await page.keyboard.press('Control+Shift+P');
    await input.fill('fuse_instance_norm');
    await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'optimize.fuse_instance_norm');
    await input.press('Enter');
    await expect(status).toContainText('optimized: 1 node · 2 edges');
    await page.keyboard.press('Control+Shift+P');
    await input.fill('single graph');
    await input.press('Enter');
    await expect(status).not.toContainText('optimized');

    // samples are commands; nothing matching says so; Escape closes without running anything
    await page.keyboard.press('Control+Shift+P');
    await input.fill('no such command at all');
    await expect(palette.getByText('No command matches')).toBeVisible();
    await input.fill('sample Part_Add_Sub_000');
    await expect(palette.getByRole('option').first()).toHaveAttribute('data-command', 'sample.models.Part_Add_Sub_000');
    await input.press('Escape');
    await expect(palette).toBeHidden();
    await expect(page.getByRole('tablist', { name: 'Open models' }).getByRole('tab')).toHaveCount(1);
    await page.keyboard.press('Control+Shift+P');
    await input.fill('sample Part_Add_Sub_000');
    await palette.getByRole('option').first().click();
    await expect(page.getByRole('tablist', { name: 'Open models' }).getByRole('tab')).toHaveCount(2);
    await expect(status).toContainText('Part_Add_Sub_000.circle');

    // ? opens the keyboard help, ? or Escape closes it and the focus comes back
    await page.getByRole('button', { name: 'ADD add' }).first().focus();
    await page.keyboard.press('?');
    const help = page.getByRole('dialog', { name: 'Keyboard shortcuts' });
    await expect(help).toBeVisible();
    await expect(help.getByRole('row', { name: /Ctrl\+Shift\+P or F1 Command palette/ })).toBeVisible();
    await expect(help.getByRole('row', { name: /Shift\+Backspace Actual size/ })).toBeVisible();
    await page.screenshot({ path: screenshotPath('keyboard-help-dark') });
    await page.keyboard.press('Escape');
    await expect(help).toBeHidden();
    await expect(page.locator(':focus')).toHaveAttribute('aria-label', /^ADD /);
    // typing ? into a field is text, not the help
    await page.keyboard.press('Control+f');
    await page.getByRole('searchbox', { name: 'Find' }).press('?');
    await expect(help).toBeHidden();
    await expect(page.getByRole('searchbox', { name: 'Find' })).toHaveValue('?');
    // the top bar's ? button
    await page.getByRole('button', { name: 'Keyboard shortcuts' }).click();
    await expect(help).toBeVisible();
    await help.getByRole('button', { name: 'Close' }).click();
    await expect(help).toBeHidden();
  });

  test('side panel and partition editor resize by mouse and keyboard, and the URL hash keeps the sizes', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    await expect(page.getByRole('status')).toContainText('9 nodes');
    const aside = page.getByRole('complementary', { name: 'Properties' });
    const split = page.getByRole('separator', { name: 'Resize the side panel' });
    const width = async () => Math.round((await aside.boundingBox())!.width);
    const w0 = await width();
    await expect(split).toHaveAttribute('aria-valuenow', String(w0));

    // drag the border 100 px to the left: the panel grows by 100 px
    const box = (await split.boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + 200);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 - 60, box.y + 200, { steps: 3 });
    await page.mouse.move(box.x + box.width / 2 - 100, box.y + 200, { steps: 3 });
    await page.mouse.up();
    expect(await width()).toBe(w0 + 100);
    // keyboard: Left grows by 16, Shift+Right shrinks by 64, Home is the smallest
    await split.focus();
    await page.keyboard.press('ArrowLeft');
    expect(await width()).toBe(w0 + 116);
    await page.keyboard.press('Shift+ArrowRight');
    expect(await width()).toBe(w0 + 52);
    await expect(page).toHaveURL(new RegExp(`#panel=${w0 + 52}$`));
    await page.keyboard.press('Home');
    await expect(split).toHaveAttribute('aria-valuenow', '240');
    expect(await width()).toBe(240);
    await page.keyboard.press('End'); // as wide as the window allows: the graph keeps 240 px
    expect(await width()).toBe(1280 - 240);
    await page.keyboard.press('Shift+ArrowRight');

    // the partition dock's border
    await page.getByRole('button', { name: 'New partition' }).click();
    const dock = page.getByRole('region', { name: 'Partition editor' });
    await expect(dock).toBeVisible({ timeout: 30_000 }); // Monaco's first load on a shared machine
    const dsplit = page.getByRole('separator', { name: 'Resize the partition editor' });
    const h0 = Math.round((await dock.boundingBox())!.height);
    await dsplit.focus();
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('ArrowUp');
    expect(Math.round((await dock.boundingBox())!.height)).toBe(h0 + 32);
    await expect(page).toHaveURL(new RegExp(`#panel=${1280 - 240 - 64}&dock=${h0 + 32}$`));
    await page.screenshot({ path: screenshotPath('resized-panes') });

    // a reload with the hash gives the same layout; a hostile hash is ignored
    await page.reload();
    await expect(page.getByRole('status')).toContainText('9 nodes');
    expect(await width()).toBe(1280 - 240 - 64);
    await page.goto('/?sample=Net_InstanceNorm_003.circle#panel=<script>&dock=-1');
    await expect(page.getByRole('status')).toContainText('9 nodes');
    expect(await width()).toBe(w0);
  });

  test('the side panel moves to the left, hides and comes back (Ctrl+B), and the hash keeps it', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    await expect(page.getByRole('button', { name: 'MEAN Mean_of_ifm' })).toBeVisible();
    const aside = page.getByRole('complementary', { name: 'Properties' });
    const graph = page.getByRole('region', { name: 'Graph' });
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Command' }).fill('side panel on the left');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#side=left$/);
    expect((await aside.boundingBox())!.x).toBe(0);
    expect((await graph.boundingBox())!.x).toBeGreaterThan(200);
    // its border is now on its right: dragging right makes it wider
    const w0 = (await aside.boundingBox())!.width;
    const split = (await page.getByRole('separator', { name: 'Resize the side panel' }).boundingBox())!;
    await page.mouse.move(split.x + split.width / 2, split.y + 300);
    await page.mouse.down();
    await page.mouse.move(split.x + split.width / 2 + 80, split.y + 300, { steps: 4 });
    await page.mouse.up();
    expect(Math.round((await aside.boundingBox())!.width)).toBe(Math.round(w0) + 80);
    await page.screenshot({ path: screenshotPath('side-panel-left') });

    // Ctrl+B hides it (the graph takes the whole width), Ctrl+B brings it back where it was
    await page.keyboard.press('Control+b');
    await expect(aside).toHaveCount(0);
    expect((await graph.boundingBox())!.width).toBe(1280);
    await expect(page).toHaveURL(/side=hidden/);
    await page.reload();
    await expect(page.getByRole('button', { name: 'MEAN Mean_of_ifm' })).toBeVisible();
    await expect(aside).toHaveCount(0);
    await page.keyboard.press('Control+Enter'); // model properties: shows the panel
    await expect(aside).toBeVisible();
    await expect(aside.getByRole('tab', { name: 'Model' })).toHaveAttribute('aria-selected', 'true');
    await page.keyboard.press('Control+b');
    await expect(aside).toHaveCount(0);
    await page.keyboard.press('Control+b');
    await expect(aside).toBeVisible();
  });

  test('the partition editor moves beside the graph and back, resizes there, and the hash keeps it', async ({ page }) => {
    test.setTimeout(120_000); // Monaco's first load and two relayouts on a loaded 2-core machine
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    await expect(page.getByRole('button', { name: 'MEAN Mean_of_ifm' })).toBeVisible();
    await page.getByRole('button', { name: 'New partition' }).click();
    const dock = page.getByRole('region', { name: 'Partition editor' });
    await expect(dock.getByTestId('part-status')).toContainText('1 part', { timeout: 30_000 }); // Monaco's first load
    const host = page.getByTestId('graph-canvas');
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Command' }).fill('beside the graph');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#dockat=right$/);
    const d = (await dock.boundingBox())!;
    const g = (await host.boundingBox())!;
    expect(d.x).toBeGreaterThanOrEqual(g.x + g.width - 1); // to the right of the graph
    expect(Math.abs(d.y - g.y)).toBeLessThanOrEqual(2); // as tall as the graph, side by side
    expect(Math.round(d.width)).toBe(560);
    // its splitter is now vertical: Left makes it wider
    const split = page.getByRole('separator', { name: 'Resize the partition editor' });
    await expect(split).toHaveAttribute('aria-orientation', 'vertical');
    await split.focus();
    await page.keyboard.press('ArrowLeft');
    expect(Math.round((await dock.boundingBox())!.width)).toBe(576);
    await expect(page).toHaveURL(/#dockat=right&dockw=576$/);
    // the editor still drives the graph: DIV to npu splits it in three, as in ONE's own Net_InstanceNorm_003 test
    await dock.locator('.part-editor .view-lines').click();
    await page.keyboard.press('Control+End');
    await page.keyboard.type('\n[OPCODE]\nDIV=npu\n', { delay: 15 });
    await expect(dock.getByTestId('part-status')).toContainText('3 parts');
    await page.screenshot({ path: screenshotPath('partition-beside') });
    // a reload keeps the place; "below the graph" puts it back
    await page.reload();
    await expect(page.getByRole('button', { name: 'MEAN Mean_of_ifm' })).toBeVisible();
    await page.getByRole('button', { name: 'New partition' }).click();
    expect(Math.round((await dock.boundingBox())!.width)).toBe(576);
    await page.keyboard.press('Control+Shift+P');
    await page.getByRole('combobox', { name: 'Command' }).fill('below the graph');
    await page.keyboard.press('Enter');
    await expect(page).toHaveURL(/#dockw=576$/);
    await expect(split).toHaveAttribute('aria-orientation', 'horizontal');
    expect((await dock.boundingBox())!.y).toBeGreaterThan((await host.boundingBox())!.y + 100);
  });

  test('PNG export: the whole graph says when it had to be scaled down; the visible area at 2x', async ({ page }) => {
    await page.goto('/?sample=resnet_like_1000.circle');
    await expect(page.getByRole('status')).toContainText('1,000 nodes');
    await expect(page.getByRole('button', { name: 'CONV_2D block0/conv' })).toBeVisible(); // drawn, not only read
    // a 1,000-operator chain is about 80,000 px tall: the whole-graph PNG is capped at 16,384 px
    const whole = await pngOf(page, () => page.keyboard.press('Control+Shift+E'));
    expect(whole.name).toBe('resnet_like_1000.png');
    expect(whole.height).toBe(16384);
    const alert = page.getByRole('alert').filter({ hasText: 'resnet_like_1000.png: the whole graph is' });
    await expect(alert).toContainText(`so the PNG (${whole.width.toLocaleString('en-US')} x 16,384) is drawn at 22%`);
    await expect(alert).toContainText('Export the visible area as PNG');
    // the visible area: the graph host's size, twice
    const host = (await page.getByTestId('graph-canvas').boundingBox())!;
    const visible = await pngOf(page, async () => {
      await page.keyboard.press('Control+Shift+P');
      await page.getByRole('combobox', { name: 'Command' }).fill('visible area');
      await page.keyboard.press('Enter');
    });
    expect(visible.name).toBe('resnet_like_1000.view.png');
    expect(Math.abs(visible.width - host.width * 2)).toBeLessThanOrEqual(2); // sub-pixel pane sizes
    expect(Math.abs(visible.height - host.height * 2)).toBeLessThanOrEqual(2);
    // a small graph fits at 2x: no note
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    await expect(page.getByRole('button', { name: 'MEAN Mean_of_ifm' })).toBeVisible({ timeout: 30_000 }); // after the kept 1,000-operator tab reopens
    const small = await pngOf(page, () => page.getByRole('button', { name: 'PNG' }).click());
    expect(small.name).toBe('Net_InstanceNorm_003.png');
    await expect(page.getByRole('alert').filter({ hasText: 'the whole graph is' })).toHaveCount(0);
  });
});

/** Runs `act`, waits for the PNG download and reads its size from the IHDR chunk. */
async function pngOf(page: Page, act: () => Promise<unknown>): Promise<{ name: string; width: number; height: number }> {
  const download = page.waitForEvent('download');
  await act();
  const d = await download;
  const png = readFileSync((await d.path())!);
  expect(png.subarray(1, 4).toString('latin1')).toBe('PNG');
  return { name: d.suggestedFilename(), width: png.readUInt32BE(16), height: png.readUInt32BE(20) };
}
