/**
 * Issue 16, item 15 (layout defects), checked on every panel that has them, at a small window
 * (1024x640) where they show: every table's last row can be scrolled fully into view; labels and
 * option names wrap between words, never inside one (a word is only cut when it is wider than its
 * whole line); the Samples menu shows every entry whole. Screenshots in
 * test-results/screens/layout-*.png.
 */
import { test, expect, type Page } from '@playwright/test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { dropFiles, ROOT, screenshotPath } from './support/studio';

const shot = (page: Page, name: string) => page.screenshot({ path: screenshotPath(`layout-${name}`) });
const lenet = (name: string) => ({ name, bytes: new Uint8Array(readFileSync(join(ROOT, 'test', 'fixtures', 'caffe', 'lenet', name))) });

/**
 * Each visible table (or `[role=table]`) in `scope`: its scrolling ancestors are scrolled to the
 * bottom, then the last row must lie inside every ancestor that clips and inside the window.
 * Returns the tables whose last row stays hidden (with by how much), and how many were checked.
 */
async function hiddenLastRows(page: Page, scope = 'body'): Promise<{ bad: string[]; checked: string[] }> {
  // twice: windowed lists draw their last rows once they have seen the scroll
  await lastRowsOnce(page, scope);
  await page.waitForTimeout(300);
  return lastRowsOnce(page, scope);
}

function lastRowsOnce(page: Page, scope: string): Promise<{ bad: string[]; checked: string[] }> {
  return page.evaluate((scope) => {
    const bad: string[] = [];
    const checked: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      for (const t of root.querySelectorAll<HTMLElement>('table, [role=table]')) {
        if (!t.getClientRects().length || t.closest('[aria-hidden=true]')) continue;
        const rows = t.querySelectorAll('tr, [role=row]');
        const last = rows[rows.length - 1];
        if (!last) continue;
        const name = t.getAttribute('aria-label') ?? t.className;
        const clippers: HTMLElement[] = [];
        for (let e = t.parentElement; e && e !== document.documentElement; e = e.parentElement) {
          const cs = getComputedStyle(e);
          if (/(auto|scroll|hidden|clip)/.test(`${cs.overflowY} ${cs.overflow}`)) clippers.push(e);
        }
        // innermost first, so that an outer scroller sees the inner one at its bottom
        for (const c of clippers) c.scrollTop = c.scrollHeight;
        const r = last.getBoundingClientRect();
        const why: string[] = [];
        for (const c of clippers) {
          const b = c.getBoundingClientRect();
          const bottom = b.top + c.clientTop + c.clientHeight;
          if (r.bottom > bottom + 0.5) why.push(`cut ${Math.round(r.bottom - bottom)} px by .${c.className || c.tagName}`);
        }
        if (r.bottom > window.innerHeight + 0.5) why.push(`${Math.round(r.bottom - window.innerHeight)} px below the window`);
        checked.push(name);
        if (why.length) bad.push(`${name} (${rows.length} rows): ${why.join('; ')}`);
      }
    }
    return { bad, checked };
  }, scope);
}

/**
 * Words inside `scope` drawn on two lines. A break right after - _ . / : is between words; a word
 * wider than its element's whole line has to be cut and is not counted.
 */
async function wordsCut(page: Page, scope: string): Promise<string[]> {
  return page.evaluate((scope) => {
    const out: string[] = [];
    for (const root of document.querySelectorAll(scope)) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = n.parentElement;
        if (!el || !el.getClientRects().length) continue;
        const text = n.textContent ?? '';
        const re = /\S+/g;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          const range = document.createRange();
          range.setStart(n, m.index);
          range.setEnd(n, m.index + m[0].length);
          const rects = [...range.getClientRects()].filter((q) => q.width > 0);
          if (new Set(rects.map((q) => Math.round(q.top))).size < 2) continue;
          // where the first line ends: the characters on it
          let k = m.index + 1;
          const top = Math.round(rects[0]!.top);
          for (; k < m.index + m[0].length; k++) {
            const r1 = document.createRange();
            r1.setStart(n, k);
            r1.setEnd(n, k + 1);
            const q = [...r1.getClientRects()].find((x) => x.width > 0);
            if (q && Math.round(q.top) !== top) break;
          }
          if (/[-_./:]/.test(text[k - 1] ?? '')) continue;
          // an identifier with parts (fused_activation_function) must break between them
          let line = el;
          while (getComputedStyle(line).display.startsWith('inline') && line.parentElement) line = line.parentElement;
          const width = rects.reduce((a, q) => a + q.width, 0);
          if (!/[-_./:]./.test(m[0]) && width > line.clientWidth - 1) continue;
          out.push(`"${m[0]}" cut after "${text.slice(m.index, k)}" in <${el.tagName.toLowerCase()} class="${el.className}">`);
        }
      }
    }
    return out;
  }, scope);
}

test.describe('layout defects (item 15)', () => {
  test.use({ viewport: { width: 1024, height: 640 } });
  test.setTimeout(120_000);

  test('tables show their last row: node and model panels, loadable views, op slot, profile', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.circle');
    await page.getByRole('button', { name: 'MEAN Mean_of_ifm' }).click();
    const panel = page.getByRole('complementary', { name: 'Properties' });
    await expect(panel.getByRole('heading', { level: 2 })).toContainText('MEAN');
    let r = await hiddenLastRows(page);
    expect(r.checked).toContain('Node');
    expect(r.bad).toEqual([]);
    await shot(page, 'node-last-row');

    // a loadable with 704 op slots: every view's tables
    await page.goto('/?sample=lenet-b64-nv_full-fp16-fast-math.nvdla');
    await expect(page.getByRole('table', { name: 'Task 0 op slots' })).toBeVisible({ timeout: 30_000 });
    for (const view of ['tasks', 'memory', 'tensors', 'blobs']) {
      await page.locator(`[data-view=${view}]`).click();
      await expect(page.locator('.lv-views [aria-selected=true]')).toHaveAttribute('data-view', view);
      await expect(page.locator('main table, [data-testid] table, section table').first()).toBeVisible({ timeout: 20_000 });
      r = await hiddenLastRows(page);
      expect(r.checked.length, `tables in the ${view} view`).toBeGreaterThan(0);
      expect(r.bad, `the ${view} view`).toEqual([]);
      await shot(page, `loadable-${view}`);
    }
    // the task table fits its pane at 1024 px: surfaces wrap under their names instead of the pane
    // scrolling sideways (it was 961 px wide in a 736 px pane)
    await page.locator('[data-view=tasks]').click();
    const sideways = await page.locator('.lv-scroll').first().evaluate((e) => e.scrollWidth - e.clientWidth);
    expect(sideways, 'the Tasks view scrolls sideways by this many pixels').toBeLessThanOrEqual(0);
    // the side panel's op slot: its descriptor tables
    await page.locator('[data-view=tasks]').click();
    await page.getByRole('table', { name: 'Task 0 op slots' }).locator('tr[data-node]').last().click();
    await page.getByRole('tab', { name: 'Op slot' }).click();
    r = await hiddenLastRows(page, 'aside');
    expect(r.checked).toContain('Op slot');
    expect(r.bad).toEqual([]);
    await shot(page, 'op-slot-last-row');

    // a systrace profile: the timing table and the dropped marks
    await page.getByRole('button', { name: 'Samples ▾' }).click();
    await page.getByRole('menuitem', { name: /^omr1\.trace\.txt/ }).first().click();
    await expect(page.getByRole('tab', { name: 'omr1.trace.txt' })).toHaveAttribute('aria-selected', 'true');
    await expect(page.locator('.pv-table').first()).toBeVisible({ timeout: 20_000 });
    r = await hiddenLastRows(page);
    expect(r.checked.length).toBeGreaterThan(0);
    expect(r.bad).toEqual([]);
    await shot(page, 'profile-last-row');
  });

  test('the Origins rows reach their last row', async ({ page }) => {
    await page.goto('/?sample=Net_InstanceNorm_003.opt.circle');
    await page.getByRole('tab', { name: 'Origins' }).click();
    await expect(page.locator('.origins-panel [role=row]').first()).toBeVisible();
    const r = await hiddenLastRows(page, 'aside');
    expect(r.checked.length).toBeGreaterThan(1);
    expect(r.bad).toEqual([]);
    await shot(page, 'origins-last-row');
  });

  test('labels and option names wrap between words: compile form, Run panel, partition dock, side panel', async ({ page }) => {
    // option names in the Node panel: fused_activation_function breaks after an underscore
    await page.goto('/?sample=Part_Add_Sub_000.circle');
    await page.getByRole('button', { name: /^ADD / }).first().click();
    await expect(page.getByRole('table', { name: 'Options' })).toContainText('fused_activation_');
    expect(await wordsCut(page, 'aside')).toEqual([]);
    await shot(page, 'node-words');
    await page.goto('/?sample=none');
    await dropFiles(page, [lenet('lenet.prototxt'), lenet('lenet_iter_10000.caffemodel')]);
    await expect(page.getByRole('status')).toContainText('lenet.prototxt');
    await page.getByRole('tab', { name: 'Run' }).click();
    await page.getByRole('button', { name: 'Run', exact: true }).click();
    await expect(page.getByRole('complementary', { name: 'Properties' })).toContainText(/layers in \d+ ms/, { timeout: 60_000 });
    expect(await wordsCut(page, 'aside')).toEqual([]);
    await shot(page, 'run-words');

    await page.keyboard.press('Control+Shift+B');
    const view = page.getByTestId('compile-view');
    await expect(view.getByTestId('compile-status')).toHaveAttribute('data-reached', 'emit', { timeout: 60_000 });
    const form = view.getByRole('form', { name: 'Compile options' });
    await expect(form).toBeVisible();
    expect(await wordsCut(page, '[data-testid=compile-view] .compile-toolbar, [data-testid=compile-view] .compile-status, [data-testid=compile-view] .compile-diags, [data-testid=compile-view] .compile-head')).toEqual([]);
    await shot(page, 'compile-words');

    await page.getByRole('button', { name: 'Samples ▾' }).click();
    await page.getByRole('menuitem', { name: /Net_InstanceNorm_003\.001\.part/ }).click();
    await expect(page.getByRole('region', { name: 'Partition editor' })).toBeVisible({ timeout: 30_000 });
    await expect(page.locator('.part-editor .view-lines')).toContainText('ADD=acl_cl');
    expect(await wordsCut(page, '[aria-label="Partition editor"], aside')).toEqual([]);
    await shot(page, 'partition-words');
  });

  test('the Samples menu shows every entry whole, down to the last', async ({ page }) => {
    await page.setViewportSize({ width: 800, height: 600 });
    await page.goto('/?sample=none');
    await page.getByRole('button', { name: 'Samples ▾' }).click();
    const menu = page.getByRole('menu', { name: 'Samples' });
    const items = menu.getByRole('menuitem');
    expect(await items.count()).toBeGreaterThan(20);
    const bad = await menu.evaluate((m) => {
      const out: string[] = [];
      m.scrollTop = m.scrollHeight;
      const box = m.getBoundingClientRect();
      const items = [...m.querySelectorAll<HTMLElement>('[role=menuitem]')];
      for (const it of items) {
        const r = it.getBoundingClientRect();
        const label = it.textContent ?? '';
        if (r.left < 0 || r.right > window.innerWidth) out.push(`${label}: outside the window`);
        if (r.right > box.right + 0.5) out.push(`${label}: wider than the menu`);
        for (const s of it.querySelectorAll('span')) if (s.scrollWidth > s.clientWidth + 1) out.push(`${label}: "${s.textContent}" cut`);
      }
      const last = items[items.length - 1]!.getBoundingClientRect();
      if (last.bottom > box.top + m.clientTop + m.clientHeight + 0.5) out.push('the last entry stays below the menu');
      if (last.bottom > window.innerHeight) out.push('the last entry is below the window');
      return out;
    });
    expect(bad).toEqual([]);
    await shot(page, 'samples-menu-end');
  });
});
