/**
 * Profile timeline at 100,000 marks, in Debian Chromium (headless, --disable-gpu): frames per
 * second while panning and zooming. Starts `vite --port 5181` itself (BENCH_PORT overrides the port), opens the harness page
 * (e2e/harness/timeline.html: a synthetic NNAPI-shaped run rendered by the real Timeline),
 * measures, prints Markdown and stops the server.
 *
 * Two ways of driving it, each for a few seconds:
 * - real input through CDP (mouse drag and wheel, as a person does); the input rate, not the
 *   drawing, bounds the redraws here, so frames per second is the rAF rate the page kept;
 * - one synthetic wheel or drag step dispatched in the page on every animation frame, so every
 *   frame must redraw: redraws per second is the rate the timeline sustains under load.
 * Figures: requestAnimationFrame callbacks per second, redraws per second, and the draw time of
 * each redraw (window.__npuTimelineStats.lastFrameMs) at the median and 95th percentile.
 */
import type { Page } from 'playwright-core';
import { launchChromium, requireChromium, startDev } from './support/harness';

const MARKS = 100_000;
const SECONDS = 3;
const HARNESS = '/e2e/harness/timeline.html';

requireChromium('Timeline');
const server = await startDev({ port: 5181, path: HARNESS });

interface Figures {
  fps: number;
  redrawsPerSecond: number;
  drawMedianMs: number;
  drawP95Ms: number;
  rects: number;
}

async function startCounting(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as {
      __raf: number;
      __rafOn: boolean;
      __draws: number[];
      __rects: number[];
      __npuTimelineStats: { framesDrawn: number; lastFrameMs: number; rects: number };
    };
    w.__raf = 0;
    w.__rafOn = true;
    w.__draws = [];
    w.__rects = [];
    let last = w.__npuTimelineStats.framesDrawn;
    const tick = () => {
      w.__raf++;
      const s = w.__npuTimelineStats;
      if (s.framesDrawn !== last) {
        // several draws between two ticks count each (they cannot: one draw per frame at most)
        last = s.framesDrawn;
        w.__draws.push(s.lastFrameMs);
        w.__rects.push(s.rects);
      }
      if (w.__rafOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
}

async function stopCounting(page: Page, elapsed: number): Promise<Figures> {
  return page.evaluate((elapsed) => {
    const w = window as unknown as { __raf: number; __rafOn: boolean; __draws: number[]; __rects: number[] };
    w.__rafOn = false;
    const d = [...w.__draws].sort((a, b) => a - b);
    const r = [...w.__rects].sort((a, b) => a - b);
    return {
      fps: w.__raf / elapsed,
      redrawsPerSecond: d.length / elapsed,
      drawMedianMs: d[Math.floor(d.length / 2)] ?? NaN,
      drawP95Ms: d[Math.floor(d.length * 0.95)] ?? NaN,
      rects: r[Math.floor(r.length / 2)] ?? 0,
    };
  }, elapsed);
}

/** Real input: drags and wheel steps through CDP, alternating. */
async function realInput(page: Page): Promise<Figures> {
  const box = (await page.getByTestId('timeline-canvas').boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + Math.min(box.height / 2, 60);
  await page.mouse.move(cx, cy);
  await startCounting(page);
  const t0 = Date.now();
  let step = 0;
  while (Date.now() - t0 < SECONDS * 1000) {
    if (step % 2 === 0) {
      await page.mouse.down();
      for (let i = 0; i < 10; i++) await page.mouse.move(cx + Math.sin((step + i) / 3) * 300, cy);
      await page.mouse.up();
    } else {
      for (let i = 0; i < 6; i++) await page.mouse.wheel(0, i < 3 ? -240 : 240);
    }
    step++;
  }
  return stopCounting(page, (Date.now() - t0) / 1000);
}

/** Saturating: a wheel or drag step dispatched in the page on every animation frame. */
async function everyFrame(page: Page, mode: 'pan' | 'zoom'): Promise<Figures> {
  await page.keyboard.press('0'); // fit
  await page.waitForTimeout(400);
  await startCounting(page);
  const t0 = Date.now();
  await page.evaluate(
    ({ mode, ms }) =>
      new Promise<void>((resolve) => {
        const canvas = document.querySelector('[data-testid=timeline-canvas]') as HTMLCanvasElement;
        const r = canvas.getBoundingClientRect();
        const y = r.top + 30;
        const start = performance.now();
        let i = 0;
        const opts = (x: number): MouseEventInit => ({ bubbles: true, cancelable: true, clientX: x, clientY: y, view: window, button: 0 });
        if (mode === 'pan') {
          // zoom in a little first so that panning moves through the run
          for (let k = 0; k < 8; k++) canvas.dispatchEvent(new WheelEvent('wheel', { ...opts(r.left + r.width / 2), deltaY: -200, deltaMode: 0 }));
          canvas.dispatchEvent(new MouseEvent('mousedown', opts(r.left + r.width / 2)));
        }
        const step = () => {
          i++;
          if (mode === 'pan') {
            const x = r.left + r.width / 2 + Math.sin(i / 20) * r.width * 0.4;
            canvas.dispatchEvent(new MouseEvent('mousemove', opts(x)));
          } else {
            // zoom in for 40 frames, out for 40, around a point that wanders across the run
            const x = r.left + r.width * (0.5 + 0.4 * Math.sin(i / 50));
            canvas.dispatchEvent(new WheelEvent('wheel', { ...opts(x), deltaY: Math.floor(i / 40) % 2 === 0 ? -60 : 60, deltaMode: 0 }));
          }
          if (performance.now() - start < ms) requestAnimationFrame(step);
          else {
            if (mode === 'pan') canvas.dispatchEvent(new MouseEvent('mouseup', opts(r.left)));
            resolve();
          }
        };
        requestAnimationFrame(step);
      }),
    { mode, ms: SECONDS * 1000 },
  );
  return stopCounting(page, (Date.now() - t0) / 1000);
}

const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  await page.addInitScript('window.__name = (f) => f'); // tsx keepNames helper, see bench/browser.ts
  page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
  page.on('console', (m) => m.type() === 'error' && console.error(`page console: ${m.text()}`));
  const t0 = Date.now();
  await page.goto(`${server.url}${HARNESS}?n=${MARKS}`);
  await page.waitForFunction(() => (window as unknown as { __npuTimelineStats?: { framesDrawn: number } }).__npuTimelineStats?.framesDrawn, null, {
    timeout: 20_000,
  });
  const openMs = Date.now() - t0;
  const info = await page.evaluate(() => {
    const w = window as unknown as { __timelineHarness: { marks: number; buildMs: number }; __npuTimelineStats: { lastFrameMs: number } };
    return { marks: w.__timelineHarness.marks, buildMs: w.__timelineHarness.buildMs, firstDrawMs: w.__npuTimelineStats.lastFrameMs };
  });
  await page.getByTestId('timeline-canvas').focus();
  const rows: [string, Figures][] = [];
  rows.push(['real input: mouse drag + wheel (CDP)', await realInput(page)]);
  rows.push(['wheel zoom, one step every frame', await everyFrame(page, 'zoom')]);
  rows.push(['drag pan, one step every frame', await everyFrame(page, 'pan')]);

  console.log(`## Profile timeline: ${info.marks.toLocaleString('en')} marks, pan and zoom (Chromium headless, --disable-gpu, 1400x900, ${SECONDS} s each)\n`);
  console.log(`Page open to first frame ${(openMs / 1000).toFixed(1)} s (dev server; synthetic run built in ${info.buildMs.toFixed(0)} ms, first draw ${info.firstDrawMs.toFixed(1)} ms).\n`);
  console.log('| driving | frames per second (rAF) | redraws per second | draw time median | draw time p95 | rectangles per frame (median) | target |');
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const [name, f] of rows) {
    console.log(
      `| ${name} | ${f.fps.toFixed(1)} | ${f.redrawsPerSecond.toFixed(1)} | ${f.drawMedianMs.toFixed(2)} ms | ${f.drawP95Ms.toFixed(2)} ms | ${f.rects.toLocaleString('en')} | >= 55 fps |`,
    );
  }
} finally {
  await browser.close();
  server.stop();
}
