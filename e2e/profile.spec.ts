import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropFiles, screenshotPath } from './support/studio';

const SYSTRACE = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'fixtures', 'systrace', 'upstream');
const TRACE = 'omr1.trace.txt';

/** Cell text of run `run` (0-based) of an AOSP all-phases table print, by row label and column index. */
function expectedCell(text: string, run: number, row: string, column: number): string {
  const tables = text.split(/^B\|/m).filter((t) => t.trim());
  const line = tables[run]!.split('\n').find((l) => l.startsWith(row))!;
  return line.slice(row.length).trim().split(/\s+/)[column]!;
}

async function openOmr1(page: Page) {
  await page.goto('/?sample=none');
  await dropFiles(page, [{ name: TRACE, bytes: readFileSync(join(SYSTRACE, 'inputs', TRACE)) }]);
  await expect(page.getByRole('table', { name: /NNAPI timing summary/ })).toBeVisible();
}

test.describe('profile view of a systrace capture', () => {
  test.use({ viewport: { width: 1440, height: 1100 } });

  test('drop omr1: counts, table cells as AOSP prints them, toggles, hover, highlight', async ({ page }) => {
    const expected = readFileSync(join(SYSTRACE, 'expected', 'omr1.txt'), 'utf8');
    await openOmr1(page);

    // one alert for the whole capture: the warning named, the notes counted (the Diagnostics panel lists them all)
    const alert = page.getByRole('alert');
    await expect(alert).toHaveCount(1);
    await expect(alert.locator('.alert-text')).toHaveText('omr1.trace.txt: No NNAPI Runtime trace present - check your systrace setup (1 warning, 7 notes)');
    await expect(alert.getByRole('button', { name: 'See Diagnostics' })).toBeVisible();

    const status = page.getByRole('status');
    await expect(status).toContainText('12,200 marks · 5 runs');
    await expect(status).toContainText(TRACE);

    // run selector: five complete runs
    const runSelect = page.getByRole('combobox', { name: 'Run', exact: true });
    await expect(runSelect.locator('option')).toHaveCount(5);
    await expect(runSelect.locator('option').first()).toContainText('mobilenet_quantized');

    // table: Driver / Ex. total (column 6) of run 1 as in the golden
    const table = page.getByRole('table', { name: /NNAPI timing summary \(self-times/ });
    const driverEx = expectedCell(expected, 0, 'Driver', 6);
    expect(driverEx).toBe('20.73');
    const cell = (layer: string, column: string) => table.locator(`td[data-layer="${layer}"][data-column="${column}"]`);
    await expect(cell('LD', 'PE')).toHaveText(driverEx);
    await expect(cell('LI', 'PO')).toHaveText(expectedCell(expected, 0, 'IPC', 8));
    await expect(cell('LA', 'PI')).toHaveText('n/a');
    await expect(cell('LR', 'PI')).toHaveText('-');
    await expect(cell('LT', 'PO')).toHaveText(expectedCell(expected, 0, 'Total', 8)); // starred: 737.80*
    await expect(table.getByRole('rowheader')).toHaveText(['Application', 'Runtime', 'IPC', 'Driver', 'Total']);
    await expect(page.getByText('* This total ignores missing (n/a) values and thus is not necessarily consistent with the rest of the numbers')).toBeVisible();

    // another run through the selector: run 2's Driver / Compilation
    await runSelect.selectOption({ index: 1 });
    await expect(cell('LD', 'PC')).toHaveText(expectedCell(expected, 1, 'Driver', 2));
    await runSelect.selectOption({ index: 0 });
    await page.screenshot({ path: screenshotPath('profile-opened'), fullPage: true });

    // total times: heading and a value change (Application Ex. total is its full benchmark time)
    const selfApp = await cell('LA', 'PE').textContent();
    await page.getByLabel('Total times').check();
    const totalTable = page.getByRole('table', { name: /NNAPI timing summary \(total time/ });
    await expect(totalTable).toBeVisible();
    const totalApp = totalTable.locator('td[data-layer="LA"][data-column="PE"]');
    await expect(totalApp).not.toHaveText(selfApp!);
    expect(Number(await totalApp.textContent())).toBeGreaterThan(Number(selfApp));
    await page.getByLabel('Total times').uncheck();

    // per execution: five columns with the percentage
    await page.getByLabel('Per execution').check();
    await expect(page.getByRole('columnheader', { name: 'Percentage' })).toBeVisible();
    await expect(table.locator('td[data-layer="LT"][data-column="PEp"]')).toHaveText('100%');
    await page.getByLabel('Per execution').uncheck();

    // hover a timeline bar: the application's top-level mark spans the run, so the middle of lane 1 hits it
    const canvas = page.getByTestId('timeline-canvas');
    let box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.5, box.y + 22 + 5 + 9);
    const tip = page.getByTestId('timeline-tooltip');
    await expect(tip).toBeVisible();
    await expect(tip).toContainText('mobilenet_quantized');
    await expect(tip).toContainText('Application · Overall');
    await expect(tip).toContainText('Elapsed737.796 ms');
    await expect(tip).toContainText('Line8051');
    await page.screenshot({ path: screenshotPath('profile-hover') });

    // click a cell: its contributing marks are highlighted and listed
    await cell('LD', 'PE').getByRole('button').click();
    await expect(page.getByTestId('highlight-info')).toHaveText('2 marks highlighted for Driver · Ex. total');
    await expect(page.getByRole('complementary', { name: 'Selection details' })).toContainText('2 contributing marks');
    await page.waitForTimeout(400); // zoom transition
    await page.screenshot({ path: screenshotPath('profile-highlight'), fullPage: true });

    // the same by keyboard: focus a cell's button and press Enter
    await cell('LD', 'PC').getByRole('button').press('Enter');
    await expect(page.getByTestId('highlight-info')).toHaveText('2 marks highlighted for Driver · Compilation');
    await cell('LD', 'PE').getByRole('button').press('Enter');
    await expect(page.getByTestId('highlight-info')).toHaveText('2 marks highlighted for Driver · Ex. total');

    // click a bar: details of the mark
    await page.mouse.click(box.x + box.width * 0.5, box.y + 22 + 5 + 9);
    await expect(page.getByRole('complementary', { name: 'Selection details' })).toContainText('Line');

    // diagnostics: no runtime trace, dropped marks with the explanation
    await expect(page.getByRole('list', { name: 'Diagnostics' })).toContainText('No NNAPI Runtime trace present');
    await expect(page.getByText(/drops these marks silently/)).toBeVisible();
    await expect(page.getByText('46 on untracked threads')).toBeVisible();

    // copy as text gives the AOSP print of the table
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    await page.getByRole('button', { name: 'Copy as text' }).click();
    await expect(page.getByText('Copied the table as AOSP prints it')).toBeVisible();
    const clip = await page.evaluate(() => navigator.clipboard.readText());
    expect(clip).toContain('NNAPI timing summary (self-times, ms wall-clock)');
    expect(clip).toContain(expected.split('\n').find((l) => l.startsWith('Driver'))!);

    // wheel zoom and drag pan redraw the canvas
    const before = await page.evaluate(() => window.__npuTimelineStats?.framesDrawn ?? 0);
    box = (await canvas.boundingBox())!;
    await page.mouse.move(box.x + box.width * 0.3, box.y + 40);
    await page.mouse.wheel(0, -400);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.5, box.y + 40, { steps: 5 });
    await page.mouse.up();
    await expect.poll(() => page.evaluate(() => window.__npuTimelineStats?.framesDrawn ?? 0)).toBeGreaterThan(before);

    // dark theme
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await expect(page.locator('html')).toHaveAttribute('data-theme', 'dark');
    await page.screenshot({ path: screenshotPath('profile-dark'), fullPage: true });
  });

  test('the alert\'s See Diagnostics brings the Diagnostics panel into view', async ({ page }) => {
    await page.setViewportSize({ width: 1280, height: 720 });
    await openOmr1(page);
    const diagnostics = page.getByRole('region', { name: /^Diagnostics/ });
    const heading = diagnostics.getByRole('heading', { name: /^Diagnostics/ });
    await expect(heading).not.toBeInViewport();
    await page.getByRole('alert').getByRole('button', { name: 'See Diagnostics' }).click();
    await expect(page.getByRole('alert')).toHaveCount(0);
    await expect(heading).toBeInViewport();
    await expect(diagnostics).toBeFocused();
    await page.screenshot({ path: screenshotPath('profile-see-diagnostics') });
    await expect(diagnostics.getByRole('list', { name: 'Diagnostics' }).getByRole('listitem')).toHaveCount(8);
  });

  test('closing a capture takes its diagnostics alert with it', async ({ page }) => {
    await openOmr1(page);
    await expect(page.getByRole('alert').getByRole('button', { name: 'See Diagnostics' })).toBeVisible();
    await page.getByRole('button', { name: 'Close omr1.trace.txt' }).click();
    await expect(page.getByRole('alert')).toHaveCount(0);
  });

  test('keyboard: Tab into the timeline, arrows move between marks, Enter selects, Escape clears', async ({ page }) => {
    await openOmr1(page);
    const canvas = page.getByTestId('timeline-canvas');
    const focusLine = page.getByTestId('timeline-focus');
    const details = page.getByRole('complementary', { name: 'Selection details' });
    await expect(focusLine).toHaveText('');

    // Tab from the last control before the timeline
    await page.getByRole('table', { name: /NNAPI timing summary/ }).getByRole('button').last().focus();
    for (let i = 0; i < 4 && !(await canvas.evaluate((c) => c === document.activeElement)); i++) await page.keyboard.press('Tab');
    await expect(canvas).toBeFocused();
    // the first mark of the run (nothing selected yet), with its thread
    await expect(focusLine).toHaveText('mobilenet_quantized, Application Overall, 737.796 ms, thread MobileIQWorker 27051');

    // the focus ring is drawn in the accent colour, and only while the canvas has the keyboard focus
    const accentPixels = () =>
      canvas.evaluate((c: HTMLCanvasElement) => {
        const d = c.getContext('2d')!.getImageData(0, 0, c.width, c.height).data;
        let n = 0;
        for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i]! - 0x1f) < 12 && Math.abs(d[i + 1]! - 0x6f) < 12 && Math.abs(d[i + 2]! - 0xeb) < 12) n++;
        return n;
      });
    await expect.poll(accentPixels).toBeGreaterThan(200);

    await page.keyboard.press('ArrowDown');
    await expect(focusLine).toContainText('BenchmarkModel::benchmark, Application ');
    await page.keyboard.press('ArrowDown');
    await expect(focusLine).toHaveText(/^HIDL::IServiceManager::listByInterface::client, IPC /);
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    await expect(focusLine).toHaveText(/^HIDL::IDevice::prepareModel::client, IPC Compilation, 544\.885 ms$/);
    await page.waitForTimeout(100);
    await page.screenshot({ path: screenshotPath('profile-keyboard-focus'), fullPage: true });
    await canvas.screenshot({ path: screenshotPath('profile-keyboard-ring') });

    // Enter selects: the details panel shows the mark, the announcement says so
    await page.keyboard.press('Enter');
    await expect(details.getByRole('heading', { level: 2 })).toHaveText(/HIDL::IDevice::prepareModel::client/);
    await expect(details).toContainText('Layer · phaseIPC · Compilation');
    await expect(focusLine).toHaveText(/, selected$/);

    // up goes to the parent without changing the selection; Escape clears the selection
    await page.keyboard.press('ArrowUp');
    await expect(focusLine).toHaveText(/^BenchmarkModel::benchmark, /);
    await expect(details.getByRole('heading', { level: 2 })).toHaveText(/HIDL::IDevice::prepareModel::client/);
    await page.keyboard.press('Escape');
    await expect(details).toContainText('Press a table cell');

    // + zooms around the focused mark (a short one near the start stays in view), Shift+arrows pan and keep the focus
    await page.keyboard.press('ArrowDown');
    await expect(focusLine).toHaveText(/^HIDL::IServiceManager::listByInterface::client, /);
    const visible = page.locator('.tl-gutter-head');
    await expect(visible).toHaveText('737.796 ms visible');
    for (let i = 0; i < 4; i++) await page.keyboard.press('+');
    await expect(visible).toHaveText(/^145\.7\d\d ms visible$/);
    await expect.poll(accentPixels).toBeGreaterThan(200);
    const zoomed = await page.locator('.tl-axis .tick text').allTextContents();
    await page.keyboard.press('Shift+ArrowRight');
    await expect.poll(() => page.locator('.tl-axis .tick text').allTextContents()).not.toEqual(zoomed);
    await expect(focusLine).toHaveText(/^HIDL::IServiceManager::listByInterface::client, /);
    await page.keyboard.press('ArrowUp');
    await page.keyboard.press('0');

    // down into the driver thread: the announcement names the new thread
    for (let i = 0; i < 4; i++) await page.keyboard.press('ArrowDown');
    await expect(focusLine).toHaveText(/, thread HwBinder:756_2 23196$/);
    await page.keyboard.press('Enter');
    await expect(details).toContainText('ThreadHwBinder:756_2 23196');
    await page.screenshot({ path: screenshotPath('profile-keyboard-driver'), fullPage: true });
    await expect(visible).toHaveText('737.796 ms visible'); // the arrows pressed during the fit animation did not stop it

    // leaving the timeline hides the ring and the announcement
    await page.keyboard.press('Shift+Tab');
    await expect(canvas).not.toBeFocused();
    await expect(focusLine).toHaveText('');
    await expect.poll(accentPixels).toBe(0);

    // dark theme: back in, the ring on the same mark
    await page.getByRole('combobox', { name: 'Theme' }).selectOption('dark');
    await page.keyboard.press('Tab');
    await expect(canvas).toBeFocused();
    await expect(focusLine).toHaveText(/^HIDL::IDevice::getCapabilities::server, Driver Initialization, /);
    await page.waitForTimeout(100);
    await canvas.screenshot({ path: screenshotPath('profile-keyboard-ring-dark') });
  });

  test('bad captures: one alert naming the file', async ({ page }) => {
    await page.goto('/?sample=none');
    // printable junk: a binary file is refused before it is read as text (newcomer.spec.ts checks that)
    const junk = new Uint8Array(3000).map((_, i) => 32 + ((i * 7919) % 95));
    await dropFiles(page, [{ name: 'junk.trace.txt', bytes: junk }]);
    const alert = page.getByRole('alert');
    await expect(alert).toHaveCount(1);
    await expect(alert).toHaveClass(/alert-error/);
    await expect(alert.locator('.alert-text')).toHaveText(
      'junk.trace.txt: line 1: no ftrace text found: the file has no "TASK-PID ... TIMESTAMP  FUNCTION" header (is it a systrace capture?) (1 error)',
    );
    await expect(page.getByText(/No NNAPI run in junk\.trace\.txt/)).toBeVisible();

    const cut = readFileSync(join(SYSTRACE, 'inputs', TRACE)).subarray(0, 3000);
    await dropFiles(page, [{ name: 'cut.trace.txt', bytes: cut }]);
    // alerts belong to their tab: the new tab shows its own
    await expect(alert).toHaveCount(1);
    await expect(alert.first().locator('.alert-text')).toHaveText(/^cut\.trace\.txt: the trace-data block is not closed by <\/script> \(truncated HTML\?\); .* \(3 warnings\)$/);
    await page.screenshot({ path: screenshotPath('profile-bad-captures') });
  });

  test('incomplete capture: the run without a table still shows its timeline and the diagnostic', async ({ page }) => {
    const name = 'omr1_incomplete.trace.txt';
    await page.goto('/?sample=none');
    await dropFiles(page, [{ name, bytes: readFileSync(join(SYSTRACE, 'inputs', name)) }]);
    const runSelect = page.getByRole('combobox', { name: 'Run', exact: true });
    await expect(runSelect.locator('option')).toHaveCount(21);
    const alert = page.getByRole('alert');
    await expect(alert).toHaveCount(1);
    await expect(alert.locator('.alert-text')).toHaveText(
      /^omr1_incomplete\.trace\.txt: No NNAPI Runtime trace present - check your systrace setup; line 9951: Incomplete trace, not able to print all statistics: run 21 .*… \(2 warnings, 1 note\)$/,
    );
    await runSelect.selectOption({ index: 20 });
    await expect(page.locator('.pv-status')).toHaveText('incomplete');
    await expect(page.getByText(/AOSP prints no table for this run/)).toBeVisible();
    await expect(page.getByTestId('timeline-canvas')).toBeVisible();
    await expect(page.getByRole('list', { name: 'Diagnostics' })).toContainText('Incomplete trace, not able to print all statistics');
    await page.screenshot({ path: screenshotPath('profile-incomplete'), fullPage: true });
  });
});
