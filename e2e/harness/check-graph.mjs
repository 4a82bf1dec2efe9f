#!/usr/bin/env node
/**
 * Interaction check of GraphView on the harness page (palette graph), in Debian's Chromium:
 * accessible names, click and Enter select, arrows move along edges, Tab lands on a node,
 * Space / Shift+ArrowUp / Shift+Backspace, empty click clears, double click activates, drag and
 * wheel move the view, SVG escapes names, PNG export gives a PNG.
 *   npx vite --port 5173 &  node e2e/harness/check-graph.mjs [--base http://localhost:5173]
 */
import { chromium } from 'playwright-core';
import assert from 'node:assert/strict';
const bi = process.argv.indexOf('--base');
const base = bi > 0 ? process.argv[bi + 1] : 'http://localhost:5173';
const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox','--disable-background-networking','--disable-gpu'] });
const ctx = await b.newContext({ viewport: { width: 1280, height: 800 } });
const p = await ctx.newPage();
p.on('pageerror', e => console.log('pageerror', e.message));
await p.goto(`${base}/e2e/harness/graph.html?kind=palette`);
await p.waitForFunction(() => (window.__npuGraphStats?.framesDrawn ?? 0) > 0);
await p.waitForTimeout(400);
const btns = await p.getByRole('button').evaluateAll(els => els.map(e => e.getAttribute('aria-label') ?? e.textContent));
assert.ok(btns.includes('Input ifm1') && btns.includes('Output ofm') && btns.includes('RELU relu_1'), String(btns));
await p.getByRole('button', { name: 'RELU relu_1' }).click();
assert.equal(await p.evaluate(() => window.__harness.selected), 2);
await p.getByRole('button', { name: 'RELU relu_1' }).focus();
await p.keyboard.press('ArrowDown');
assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'MAX_POOL_2D max_pool_2d_2');
await p.keyboard.press('ArrowUp'); await p.keyboard.press('ArrowUp');
assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CONV_2D conv_2d_0');
await p.keyboard.press('Enter');
assert.equal(await p.evaluate(() => window.__harness.selected), 1);
// Tab into the graph from the toolbar
await p.getByRole('button', { name: 'PNG' }).focus();
await p.keyboard.press('Tab');
assert.deepEqual(await p.evaluate(() => [document.activeElement?.getAttribute('role'), document.activeElement?.getAttribute('aria-label')]), ['button', 'CONV_2D conv_2d_0']);
await p.keyboard.press('Shift+ArrowUp');
await p.waitForTimeout(100);
const kIn = await p.evaluate(() => window.__graphView.getTransform().k);
await p.keyboard.press('Shift+Backspace');
await p.waitForTimeout(100);
assert.equal(await p.evaluate(() => window.__graphView.getTransform().k), 1);
await p.keyboard.press(' ');
await p.waitForTimeout(100);
assert.ok(await p.evaluate(() => window.__graphView.getTransform().k) < 1 && kIn > 0);
assert.equal(await p.evaluate(() => document.activeElement?.getAttribute('aria-label')), 'CONV_2D conv_2d_0');
// click empty space
await p.mouse.click(100, 400);
assert.equal(await p.evaluate(() => window.__harness.selected), null);
// canvas click on a node centre
const box = await p.getByRole('button', { name: 'WHILE while_11' }).boundingBox();
await p.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
assert.equal(await p.evaluate(() => window.__harness.selected), 12);
await p.mouse.dblclick(box.x + box.width / 2, box.y + box.height / 2);
assert.equal(await p.evaluate(() => window.__harness.activated), 12);
// drag pans
const t0 = await p.evaluate(() => window.__graphView.getTransform());
await p.mouse.move(300, 400); await p.mouse.down(); await p.mouse.move(350, 450, { steps: 5 }); await p.mouse.up();
const t1 = await p.evaluate(() => window.__graphView.getTransform());
assert.deepEqual([t1.x - t0.x, t1.y - t0.y], [50, 50]);
assert.equal(await p.evaluate(() => window.__harness.selected), 12, 'a drag does not select');
await p.mouse.wheel(0, -300); await p.waitForTimeout(200);
assert.ok(await p.evaluate(() => window.__graphView.getTransform().k) > t1.k);
const svg = await p.evaluate(() => window.__graphView.exportSVG());
assert.ok(svg.startsWith('<svg') && svg.includes('&lt;&amp;&gt;') && !svg.includes('<&>'));
const png = await p.evaluate(async () => { const b = await window.__graphView.exportPNG(); return [b.size, b.type]; });
assert.equal(png[1], 'image/png');
assert.ok(png[0] > 1000);
console.log('GraphView interaction check passed');
await b.close();
