import { test, expect } from '@playwright/test';
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
    await expect(status).toContainText('optimized: 1 nodes · 2 edges');
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
    await expect(dock).toBeVisible();
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
});
