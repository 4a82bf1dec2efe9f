#!/usr/bin/env node
/**
 * Paint and pan/zoom figures for GraphView in Debian's Chromium.
 *
 *   npx vite --port 5173 &            # serves the harness
 *   node e2e/harness/measure-graph.mjs [--base http://localhost:5173] [--sizes 1000,3000,10000]
 *        [--kind resnet|transformer] [--shots DIR]
 *
 * For each size: load time (layout + first paint), then three 2-second runs driven from
 * requestAnimationFrame (fit with every node visible and a small pan each frame; a zoom sweep from
 * fit to readable scale and back with panning; panning at scale 1 with text and edge labels),
 * each reporting frames per second and the renderer's draw time per frame (median / p95 / max,
 * from window.__npuGraphStats.lastFrameMs), and the time to draw plus rasterise one whole-graph
 * frame (getImageData forces the canvas to flush).
 */
import { chromium } from 'playwright-core';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

const args = process.argv.slice(2);
const opt = (name, def) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 && i + 1 < args.length ? args[i + 1] : def;
};
const base = opt('base', 'http://localhost:5173');
const sizes = opt('sizes', '1000,3000,10000').split(',').map(Number).filter((v) => v > 0);
const kind = opt('kind', 'resnet');
const shots = opt('shots', '');
const seconds = Number(opt('seconds', '2'));

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-background-networking', '--disable-gpu'],
});
const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });

const stat = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const q = (p) => (s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN);
  return { median: q(0.5), p95: q(0.95), max: s.length ? s[s.length - 1] : NaN };
};
const f1 = (v) => (Number.isFinite(v) ? v.toFixed(1) : '-');
const f2 = (v) => (Number.isFinite(v) ? v.toFixed(2) : '-');

async function open(page, url) {
  const t0 = Date.now();
  await page.goto(url);
  await page.waitForFunction(() => (window.__npuGraphStats?.framesDrawn ?? 0) > 0 && window.__graphView, null, { timeout: 120_000 });
  const loadMs = Date.now() - t0;
  await page.waitForTimeout(300);
  return loadMs;
}

/** Runs `mode` for `seconds` from requestAnimationFrame; returns frames, fps and draw times. */
async function run(page, mode) {
  return page.evaluate(async ({ mode, seconds }) => {
    const v = window.__graphView;
    v.fit();
    await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    const fit = v.getTransform();
    const canvas = document.querySelector('[data-testid="graph-canvas"]');
    const W = canvas.clientWidth, H = canvas.clientHeight;
    if (mode === 'readable') {
      // scale 1 around the middle of the graph
      const cx = (W / 2 - fit.x) / fit.k, cy = (H / 2 - fit.y) / fit.k;
      v.setTransform(W / 2 - cx, H / 2 - cy, 1);
      await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)));
    }
    const times = [];
    let frames = 0;
    let lastDrawn = window.__npuGraphStats.framesDrawn;
    const t0 = performance.now();
    await new Promise((resolve) => {
      const tick = (now) => {
        const s = window.__npuGraphStats;
        if (s.framesDrawn !== lastDrawn) {
          lastDrawn = s.framesDrawn;
          times.push(s.lastFrameMs);
        }
        const t = (now - t0) / 1000;
        if (t >= seconds) return resolve();
        frames++;
        if (mode === 'fit') {
          v.panBy(frames % 2 ? 3 : -3, frames % 4 < 2 ? 2 : -2);
        } else if (mode === 'zoom') {
          // zoom from fit towards scale 1 and back (one cycle per second), panning sideways
          const target = Math.min(1.2, fit.k * 200);
          const phase = 0.5 - 0.5 * Math.cos(2 * Math.PI * t);
          const k = fit.k * Math.pow(target / fit.k, phase);
          const cur = v.getTransform();
          v.zoomBy(k / cur.k);
          v.panBy(Math.sin(2 * Math.PI * t) * 6, 4);
        } else {
          v.panBy(0, -8);
        }
        requestAnimationFrame(tick);
      };
      requestAnimationFrame(tick);
    });
    const elapsed = (performance.now() - t0) / 1000;
    return { frames, fps: frames / elapsed, times, visible: window.__npuGraphStats.visibleNodes };
  }, { mode, seconds });
}

/** Draw + rasterise one frame of the whole graph (fit), forced with getImageData. */
async function flushed(page) {
  return page.evaluate(async () => {
    const v = window.__graphView;
    v.fit();
    const canvas = document.querySelector('[data-testid="graph-canvas"]');
    const ctx = canvas.getContext('2d');
    const out = [];
    for (let i = 0; i < 15; i++) {
      v.panBy(i % 2 ? 1 : -1, 0);
      await new Promise((r) => requestAnimationFrame(r)); // GraphView draws in this frame
      const t0 = performance.now();
      ctx.getImageData(0, 0, 1, 1);
      out.push(window.__npuGraphStats.lastFrameMs + (performance.now() - t0));
    }
    return out;
  });
}

console.log(`GraphView in Chromium (${kind}, viewport 1280x800, dpr 1, --disable-gpu), ${seconds} s per run`);
for (const n of sizes) {
  const page = await context.newPage();
  const loadMs = await open(page, `${base}/e2e/harness/graph.html?n=${n}&kind=${kind}`);
  const h = await page.evaluate(() => window.__harness);
  console.log(`\nn=${n}: ${h.nodes} nodes, ${h.edges} edges; page load to first paint ${loadMs} ms (layout ${h.layoutMs.toFixed(0)} ms on the page thread)`);
  for (const mode of ['fit', 'zoom', 'readable']) {
    const r = await run(page, mode);
    const s = stat(r.times);
    console.log(`  ${mode.padEnd(8)} ${f1(r.fps).padStart(5)} fps  draw ms median ${f2(s.median)} p95 ${f2(s.p95)} max ${f2(s.max)}  (${r.times.length} frames drawn, ${r.visible} nodes visible at end)`);
  }
  const fl = stat(await flushed(page));
  console.log(`  whole graph draw + raster (forced flush): median ${f2(fl.median)} ms, max ${f2(fl.max)} ms`);
  await page.close();
}

if (shots) {
  mkdirSync(shots, { recursive: true });
  const page = await context.newPage();
  const snap = async (name, set, arg) => {
    await page.evaluate(set, arg);
    await page.waitForTimeout(400);
    await page.screenshot({ path: join(shots, `${name}.png`) });
    console.log(`screenshot ${join(shots, `${name}.png`)}`);
  };
  const atFn = ({ k, fx, fy }) => {
    const v = window.__graphView;
    v.fit();
    const t = v.getTransform();
    const c = document.querySelector('[data-testid="graph-canvas"]');
    const W = c.clientWidth, H = c.clientHeight;
    // graph point at fraction (fx, fy) of the fitted drawing, centred at scale k
    const gx = ((W * fx) - t.x) / t.k, gy = ((H * fy) - t.y) / t.k;
    v.setTransform(W / 2 - gx * k, H / 2 - gy * k, k);
  };
  const at = (k, fx = 0.5, fy = 0.12) => [atFn, { k, fx, fy }];
  for (const theme of ['light', 'dark']) {
    await open(page, `${base}/e2e/harness/graph.html?n=1000&kind=${kind}&theme=${theme}&sel=4&hl=7,10`);
    await snap(`${kind}-1000-${theme}-fit`, () => window.__graphView.fit());
    await snap(`${kind}-1000-${theme}-k0.3`, ...at(0.3));
    await snap(`${kind}-1000-${theme}-k0.8`, ...at(0.8, 0.5, 0.02));
    await snap(`${kind}-1000-${theme}-k1.5`, ...at(1.5, 0.5, 0.01));
    await open(page, `${base}/e2e/harness/graph.html?kind=palette&theme=${theme}&sel=2`);
    await snap(`palette-${theme}-fit`, () => window.__graphView.fit());
    await open(page, `${base}/e2e/harness/graph.html?n=500&kind=transformer&theme=${theme}`);
    await snap(`transformer-500-${theme}-k1`, ...at(1, 0.5, 0.03));
  }
  await open(page, `${base}/e2e/harness/graph.html?n=10000&kind=${kind}`);
  await snap(`${kind}-10000-fit`, () => window.__graphView.fit());
  await snap(`${kind}-10000-k0.15`, ...at(0.15, 0.5, 0.5));
  await page.close();
}
await browser.close();
