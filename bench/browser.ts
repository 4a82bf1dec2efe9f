/**
 * Browser figures, measured in the real app (production build, Debian Chromium, headless), and
 * Netron's beside them on the same files when NETRON_DIR points at a local copy of its browser
 * build (the `source` folder of lutzroeder/netron, or a checkout holding it; kept outside this
 * repository, served here by a static server):
 * - drop to painted graph for circle models of 1,000 / 3,000 / 10,000 / 100,000 operators
 *   (test/support/circle-synthetic.ts: CONV_2D -> RELU -> ADD blocks with a skip, constant
 *   weights): from the drop event to the first frame drawn for that graph (ours: the canvas;
 *   Netron: its SVG shown, after one more animation frame);
 * - the longest main-thread task during the drop (Long Tasks API) and the renderer process's peak
 *   resident memory (the page with its workers: /proc, sampled every 50 ms);
 * - pan and zoom at 10,000 and 100,000 operators driven by real input (mouse drag and wheel
 *   through CDP): frames per second (requestAnimationFrame callbacks that ran), redraws per
 *   second and the renderer's draw time per frame.
 * Without NETRON_DIR the Netron columns say "not measured"; no figure is quoted from elsewhere.
 *
 * Environment: SIZES=1000,100000 narrows the sizes, RUNS=3 the drops per size (median reported),
 * NETRON_TIMEOUT_S=120 bounds a Netron drop, BENCH_PORT moves the servers (Netron: the port + 1),
 * TRACE=1 prints where the time of one drop of the largest size goes (User Timing measures of
 * the UI thread and both workers, and the main thread's self time per trace event).
 * Run with `npm run bench -- browser` (or `npx tsx bench/browser.ts`).
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { write } from '../src/core/circle/write';
import { resnetLikeCircle } from '../test/support/circle-synthetic';
import { benchPort, launchChromium, requireChromium, startPreview } from './support/harness';
import { serveStatic, type StaticServer } from './support/static-server';

const SIZES = process.env.SIZES ? process.env.SIZES.split(',').map(Number) : [1000, 3000, 10000, 100000];
const RUNS = Math.max(1, Number(process.env.RUNS) || 3);
const NETRON_TIMEOUT_S = Number(process.env.NETRON_TIMEOUT_S) || 120;
const TARGET_S: Record<number, number> = { 1000: 0.6, 3000: 1.5, 10000: 2.5, 100000: 2.5 };
const PAN_ZOOM_SIZES = [10000, 100000];

requireChromium('Browser');
if (!existsSync('public/samples/index.json')) spawnSync('node', ['scripts/make-samples.mjs'], { stdio: 'inherit' });
const loadStart = loadavg()[0]!;
const server = await startPreview({ port: 4391, outDir: '.cache/bench-browser' });

/** The folder with Netron's index.html: NETRON_DIR itself or its `source` folder. */
function netronRoot(): string | null {
  const dir = process.env.NETRON_DIR;
  if (!dir) return null;
  for (const d of [dir, join(dir, 'source')]) if (existsSync(join(d, 'index.html')) && existsSync(join(d, 'view.js'))) return d;
  throw new Error(`NETRON_DIR=${dir} holds no Netron browser build (index.html and view.js, or source/ with them)`);
}
const netronDir = netronRoot();
const netron: StaticServer | null = netronDir ? await serveStatic(netronDir, benchPort(4391) + 1) : null;
const netronVersion = netronDir ? netronVersionOf(netronDir) : '';

function netronVersionOf(dir: string): string {
  for (const p of [join(dir, 'package.json'), join(dir, '..', 'package.json')]) {
    try {
      const v = (JSON.parse(readFileSync(p, 'utf8')) as { name?: string; version?: string });
      if (v.name === 'netron' && v.version) return v.version;
    } catch {
      /* next */
    }
  }
  return '?';
}

// ------------------------------------------------------------------ renderer memory (/proc)

/** All descendants of this process (Chromium and its children). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(d));
      children.set(ppid, list);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) for (const c of children.get(stack.pop()!) ?? []) (out.push(c), stack.push(c));
  return out;
}

/** Resident memory (bytes) of the largest renderer process: the page under test with its workers. */
function rendererRss(): number {
  let best = 0;
  for (const pid of descendants(process.pid)) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (m) best = Math.max(best, Number(m[1]) * 1024);
    } catch {
      /* gone */
    }
  }
  return best;
}

function sampleMemory(): () => number {
  let peak = rendererRss();
  const timer = setInterval(() => (peak = Math.max(peak, rendererRss())), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, rendererRss());
  };
}

// ------------------------------------------------------------------ dropping a file

interface DropFigures {
  paintMs: number | null;
  longestTaskMs: number;
  peakBytes: number;
}

async function watchLongTasks(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __longest: number };
    w.__longest = 0;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
    }).observe({ type: 'longtask', buffered: false });
  });
}

/** Makes the File inside the page first, so the timing starts at the drop itself. */
async function fileInPage(page: Page, name: string, bytes: Uint8Array) {
  const cdp = await page.context().newCDPSession(page);
  // in slices: one evaluate argument of a 100,000-operator model would be tens of MB of base64
  await page.evaluate(() => ((window as unknown as { __parts: Uint8Array[] }).__parts = []));
  const SLICE = 4 << 20;
  for (let at = 0; at < bytes.length; at += SLICE) {
    const b64 = Buffer.from(bytes.subarray(at, at + SLICE)).toString('base64');
    await cdp.send('Runtime.evaluate', {
      expression: `(() => { const s = atob(${JSON.stringify(b64)}); const u = new Uint8Array(s.length); for (let i = 0; i < s.length; i++) u[i] = s.charCodeAt(i); window.__parts.push(u); })()`,
    });
  }
  await page.evaluate((name) => {
    const w = window as unknown as { __parts: Uint8Array[]; __file: File };
    w.__file = new File(w.__parts as BlobPart[], name);
    w.__parts = [];
  }, name);
  await cdp.detach();
}

async function dropOurs(page: Page, name: string, bytes: Uint8Array, operators: number): Promise<DropFigures> {
  await page.goto(`${server.url}/?sample=none`);
  await watchLongTasks(page);
  await fileInPage(page, name, bytes);
  const peak = sampleMemory();
  const paintMs = await page.evaluate(
    ({ operators }) =>
      new Promise<number>((resolve) => {
        const w = window as unknown as { __file: File; __npuGraphStats?: { framesDrawn: number } };
        const dt = new DataTransfer();
        dt.items.add(w.__file);
        const t0 = performance.now();
        const status = document.querySelector('[role=status]')!;
        const poll = () => {
          if ((w.__npuGraphStats?.framesDrawn ?? 0) > 0 && status.textContent?.includes(`${operators.toLocaleString('en')} nodes`)) resolve(performance.now() - t0);
          else if ((w.__npuGraphStats?.framesDrawn ?? 0) > 0 && status.textContent?.includes(`${operators} nodes`)) resolve(performance.now() - t0);
          else requestAnimationFrame(poll);
        };
        delete w.__npuGraphStats;
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        requestAnimationFrame(poll);
      }),
    { operators },
  );
  const peakBytes = peak();
  const longestTaskMs = await page.evaluate(() => (window as unknown as { __longest: number }).__longest);
  return { paintMs, longestTaskMs, peakBytes };
}

/** Netron: the same drop on its page; painted = the graph's SVG is shown (body class `default`) and one frame ran. */
async function dropNetron(page: Page, name: string, bytes: Uint8Array): Promise<DropFigures> {
  await page.goto(`${netron!.url}/index.html`);
  await page.waitForFunction(() => document.body.classList.contains('welcome'), undefined, { timeout: 30_000 });
  await watchLongTasks(page);
  await fileInPage(page, name, bytes);
  const peak = sampleMemory();
  const paintMs = await page.evaluate(
    ({ timeoutMs }) =>
      new Promise<number | null>((resolve) => {
        const w = window as unknown as { __file: File };
        const dt = new DataTransfer();
        dt.items.add(w.__file);
        const t0 = performance.now();
        const poll = () => {
          const shown = document.body.classList.contains('default') && document.querySelector('#canvas .node') !== null;
          if (shown) requestAnimationFrame(() => resolve(performance.now() - t0));
          else if (performance.now() - t0 > timeoutMs) resolve(null);
          else setTimeout(poll, 20);
        };
        document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
        setTimeout(poll, 20);
      }),
    { timeoutMs: NETRON_TIMEOUT_S * 1000 },
  );
  const peakBytes = peak();
  const longestTaskMs = await page.evaluate(() => (window as unknown as { __longest: number }).__longest);
  return { paintMs, longestTaskMs, peakBytes };
}

// ------------------------------------------------------------------ pan and zoom

interface PanZoomFigures {
  fps: number;
  redrawsPerSecond: number;
  drawMedianMs: number;
  drawP95Ms: number;
  longestTaskMs: number;
}

/** Drags (pan) and wheel steps (zoom in and out around the pointer) on `target` for `seconds`. */
async function panZoom(page: Page, target: string, seconds: number, zoomWithCtrl: boolean): Promise<PanZoomFigures> {
  const box = (await page.locator(target).first().boundingBox())!;
  const cx = box.x + box.width / 2;
  const cy = box.y + box.height / 2;
  await page.evaluate(() => {
    const w = window as unknown as { __raf: number; __rafOn: boolean; __npuGraphStats?: { framesDrawn: number; lastFrameMs: number }; __draws: number[]; __longest: number };
    w.__raf = 0;
    w.__rafOn = true;
    w.__draws = [];
    w.__longest = 0;
    let last = w.__npuGraphStats?.framesDrawn ?? 0;
    const tick = () => {
      w.__raf++;
      if (w.__npuGraphStats && w.__npuGraphStats.framesDrawn !== last) {
        last = w.__npuGraphStats.framesDrawn;
        w.__draws.push(w.__npuGraphStats.lastFrameMs);
      }
      if (w.__rafOn) requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  });
  const t0 = Date.now();
  let step = 0;
  await page.mouse.move(cx, cy);
  while (Date.now() - t0 < seconds * 1000) {
    if (step % 2 === 0) {
      await page.mouse.down();
      for (let i = 0; i < 10; i++) await page.mouse.move(cx + Math.sin((step + i) / 3) * 200, cy + Math.cos((step + i) / 4) * 150);
      await page.mouse.up();
    } else {
      if (zoomWithCtrl) await page.keyboard.down('Control');
      for (let i = 0; i < 6; i++) await page.mouse.wheel(0, i < 3 ? -120 : 120);
      if (zoomWithCtrl) await page.keyboard.up('Control');
    }
    step++;
  }
  const elapsed = (Date.now() - t0) / 1000;
  return page.evaluate((elapsed) => {
    const w = window as unknown as { __raf: number; __rafOn: boolean; __draws: number[]; __longest: number };
    w.__rafOn = false;
    const d = [...w.__draws].sort((a, b) => a - b);
    return {
      fps: w.__raf / elapsed,
      redrawsPerSecond: d.length / elapsed,
      drawMedianMs: d[Math.floor(d.length / 2)] ?? NaN,
      drawP95Ms: d[Math.floor(d.length * 0.95)] ?? NaN,
      longestTaskMs: w.__longest,
    };
  }, elapsed);
}

// ------------------------------------------------------------------ trace (TRACE=1)

interface TraceEvent {
  name: string;
  cat: string;
  ph: string;
  ts: number;
  dur?: number;
  pid: number;
  tid: number;
  id?: string;
  id2?: { local?: string };
  args?: { name?: string };
}

async function traceDrop(page: Page, name: string, bytes: Uint8Array, operators: number) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => void events.push(...(e.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  await cdp.send('Tracing.start', {
    transferMode: 'ReportEvents',
    traceConfig: { includedCategories: ['devtools.timeline', 'disabled-by-default-devtools.timeline', 'blink.user_timing', 'v8', 'v8.execute', 'toplevel'] },
  });
  const figures = await dropOurs(page, name, bytes, operators);
  console.log(`\nDrop to painted while tracing: ${secs(figures.paintMs)}`);
  await cdp.send('Tracing.end');
  await done;
  return events;
}

function printTrace(events: TraceEvent[]) {
  const threadName = new Map<string, string>();
  for (const e of events) if (e.name === 'thread_name' && e.args?.name) threadName.set(`${e.pid}:${e.tid}`, e.args.name);
  // User Timing measures (async begin/end pairs) on every thread
  const open = new Map<string, TraceEvent>();
  const measures: { thread: string; name: string; start: number; ms: number }[] = [];
  for (const e of events) {
    if (!e.cat.includes('blink.user_timing') || !e.name.startsWith('npu:')) continue;
    const key = `${e.pid}:${e.tid}:${e.name}:${e.id ?? e.id2?.local ?? ''}`;
    if (e.ph === 'b') open.set(key, e);
    else if (e.ph === 'e') {
      const b = open.get(key);
      if (b) measures.push({ thread: threadName.get(`${e.pid}:${e.tid}`) ?? `${e.tid}`, name: e.name, start: b.ts, ms: (e.ts - b.ts) / 1000 });
    }
  }
  measures.sort((a, b) => a.start - b.start);
  const t0 = measures[0]?.start ?? 0;
  console.log('\n| at (ms) | thread | User Timing measure | ms |\n|---:|---|---|---:|');
  for (const m of measures) console.log(`| ${((m.start - t0) / 1000).toFixed(0)} | ${m.thread} | ${m.name} | ${m.ms.toFixed(1)} |`);
  // main thread self time per event name
  const main = events.find((e) => e.name === 'thread_name' && e.args?.name === 'CrRendererMain' && events.some((x) => x.pid === e.pid && x.name === 'ParseHTML' || x.pid === e.pid && x.cat.includes('blink.user_timing')));
  if (!main) return;
  const xs = events.filter((e) => e.pid === main.pid && e.tid === main.tid && e.ph === 'X' && e.dur !== undefined).sort((a, b) => a.ts - b.ts || b.dur! - a.dur!);
  const self = new Map<string, number>();
  const stack: { e: TraceEvent; child: number }[] = [];
  const close = (until: number) => {
    while (stack.length && stack[stack.length - 1]!.e.ts + stack[stack.length - 1]!.e.dur! <= until) {
      const top = stack.pop()!;
      self.set(top.e.name, (self.get(top.e.name) ?? 0) + top.e.dur! - top.child);
      if (stack.length) stack[stack.length - 1]!.child += top.e.dur!;
    }
  };
  const tasks: number[] = [];
  for (const e of xs) {
    close(e.ts);
    if (e.name === 'RunTask' && stack.length === 0) tasks.push(e.dur! / 1000);
    stack.push({ e, child: 0 });
  }
  close(Infinity);
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  console.log('\n| UI-thread trace event | self ms |\n|---|---:|');
  for (const [n, us] of top) console.log(`| ${n} | ${(us / 1000).toFixed(1)} |`);
  tasks.sort((a, b) => b - a);
  console.log(`\nLongest UI-thread tasks (ms): ${tasks.slice(0, 8).map((t) => t.toFixed(0)).join(', ')}`);
}

// ------------------------------------------------------------------ run

const mb = (b: number) => `${Math.round(b / 1048576).toLocaleString('en')} MB`;
const secs = (ms: number | null) => (ms === null ? `over ${NETRON_TIMEOUT_S} s (stopped)` : `${(ms / 1000).toFixed(2)} s`);

async function median(drop: () => Promise<DropFigures>, runs: number): Promise<{ med: DropFigures; longest: number; peak: number }> {
  const all: DropFigures[] = [];
  for (let r = 0; r < runs; r++) {
    const f = await drop();
    all.push(f);
    if (f.paintMs === null) break; // a drop that timed out is not repeated
  }
  all.sort((a, b) => (a.paintMs ?? Infinity) - (b.paintMs ?? Infinity));
  return { med: all[Math.floor((all.length - 1) / 2)]!, longest: Math.max(...all.map((x) => x.longestTaskMs)), peak: Math.max(...all.map((x) => x.peakBytes)) };
}

let browser: Browser | null = null;
try {
  browser = await launchChromium();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  // tsx compiles this file with esbuild's keepNames, which wraps named functions in `__name(...)`;
  // the functions passed to page.evaluate carry that call into the page, so define it there.
  await page.addInitScript('window.__name = (f) => f');
  const rows: string[] = [];
  const pzRows: string[] = [];
  for (const n of SIZES) {
    const bytes = write(resnetLikeCircle({ operators: n, name: `resnet_like_${n}` }));
    const file = `resnet_like_${n}.circle`;
    await dropOurs(page, `warmup_${n}.circle`, bytes, n); // warm the code caches once
    const ours = await median(() => dropOurs(page, file, bytes, n), n >= 100000 ? Math.min(RUNS, 3) : RUNS);
    let netronCells = ['not measured (NETRON_DIR unset)', '', '', ''];
    let theirs: Awaited<ReturnType<typeof median>> | null = null;
    if (netron) {
      theirs = await median(() => dropNetron(page, file, bytes), n >= 10000 ? 1 : RUNS);
      const t = theirs.med.paintMs;
      netronCells = [
        secs(t),
        t === null ? `> ${(NETRON_TIMEOUT_S * 1000 / ours.med.paintMs!).toFixed(0)}x` : `${(t / ours.med.paintMs!).toFixed(1)}x`,
        theirs.longest > 0 ? `${theirs.longest.toFixed(0)} ms` : 'none over 50 ms',
        mb(theirs.peak),
      ];
    }
    rows.push(
      `| ${n.toLocaleString('en')} | ${(bytes.length / 1048576).toFixed(1)} MB | ${secs(ours.med.paintMs)} | ${TARGET_S[n] ?? '-'} s | ${ours.longest > 0 ? `${ours.longest.toFixed(0)} ms` : 'none over 50 ms'} | ${mb(ours.peak)} | ${netronCells.join(' | ')} |`,
    );
    if (PAN_ZOOM_SIZES.includes(n)) {
      await dropOurs(page, file, bytes, n);
      const pz = await panZoom(page, '[data-testid=graph-canvas]', 3, false);
      let netronPz = 'not measured';
      if (netron && theirs && theirs.med.paintMs !== null) {
        await dropNetron(page, file, bytes);
        const t = await panZoom(page, '#graph', 3, true);
        netronPz = `${t.fps.toFixed(1)} fps`;
      } else if (netron) netronPz = 'no graph to pan';
      pzRows.push(
        `| ${n.toLocaleString('en')} | ${pz.fps.toFixed(1)} | ${pz.redrawsPerSecond.toFixed(1)} | ${pz.drawMedianMs.toFixed(2)} / ${pz.drawP95Ms.toFixed(2)} ms | ${pz.longestTaskMs > 0 ? `${pz.longestTaskMs.toFixed(0)} ms` : 'none over 50 ms'} | >= 60 fps | ${netronPz} |`,
      );
    }
  }
  const loadEnd = loadavg()[0]!;
  const nv = netron ? `Netron ${netronVersion}` : 'Netron';
  console.log(`## Browser: drop to painted graph (median of ${RUNS}, Chromium headless, 1400x900; load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end)\n`);
  console.log(`| operators | file | ours | target | longest UI-thread task | renderer peak RSS | ${nv} | ${nv} / ours | ${nv} longest task | ${nv} peak RSS |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
  if (!netron) console.log('\nNetron was not measured: set NETRON_DIR to a local copy of its browser build (see the comment at the top of bench/browser.ts).');
  if (pzRows.length) {
    console.log('\n## Browser: pan and zoom (mouse drag + wheel for 3 s)\n');
    console.log(`| operators | frames per second | redraws per second | draw time median / p95 | longest UI-thread task | target | ${nv} |`);
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of pzRows) console.log(r);
  }
  if (process.env.TRACE) {
    const n = Math.max(...SIZES);
    const bytes = write(resnetLikeCircle({ operators: n, name: `resnet_like_${n}` }));
    console.log(`\n## Where the time of one drop goes (${n.toLocaleString('en')} operators, Chromium trace)`);
    printTrace(await traceDrop(page, `trace_${n}.circle`, bytes, n));
  }
} finally {
  await browser?.close();
  await netron?.stop();
  server.stop();
}
