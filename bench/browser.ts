/**
 * Browser figures, measured in the real app (production build, Debian Chromium, headless), and
 * Netron's beside them on the same files when NETRON_DIR points at a local copy of its browser
 * build (the `source` folder of lutzroeder/netron, or a checkout holding it; kept outside this
 * repository, served here by a static server):
 * - open to painted graph for circle models of 1,000 / 3,000 / 10,000 / 100,000 operators
 *   (test/support/circle-synthetic.ts: CONV_2D -> RELU -> ADD blocks with a skip, constant
 *   weights), and of 100,000 operators in ResNet bottleneck blocks of 8 operators (a projection
 *   beside three convolutions, `bottleneckCircle`; `100000/8` in SIZES), each app opening the same file on disk through its file input (a disk-backed File,
 *   as a person's pick or drop gives; the drop handler calls the same code): from the input's
 *   `change` event to the first frame drawn for that graph (ours: the canvas; Netron: its SVG
 *   shown, after one more animation frame);
 * - the longest main-thread task during the drop (Long Tasks API; from the input's `change` event
 *   on, so Playwright's own setInputFiles work is left out) and the renderer process's peak
 *   resident memory (the page with its workers: /proc, sampled every 50 ms);
 * - pan and zoom at 10,000 and 100,000 operators driven by real input (mouse drag and wheel
 *   through CDP): frames per second (requestAnimationFrame callbacks that ran), redraws per
 *   second and the renderer's draw time per frame.
 * Without NETRON_DIR the Netron columns say "not measured"; no figure is quoted from elsewhere.
 * Each open runs in a tab of its own (the last one closed first); ours is measured for every model
 * before Netron is for any, so Netron's 8 GB tabs do not weigh on ours.
 *
 * Environment: SIZES=1000,100000 narrows the sizes (`N/8`: N operators in 8-operator bottleneck blocks), RUNS=3 the opens per size (median reported),
 * NETRON_TIMEOUT_S=120 bounds a Netron open, BENCH_PORT moves our server, NETRON_PORT Netron's (a free port otherwise),
 * TRACE=1 (TRACE_ONLY=1: nothing else) prints where the time of one open of the largest size goes
 * (TRACE_RUNS=10: of the traced open, out of up to ten, with the longest UI-thread task)
 * (User Timing measures of the UI thread and both workers, from a Chromium trace via CDP, and the
 * UI thread's longest tasks); TRACE=2 adds the UI thread's self time per trace event, TRACE=cpu the
 * self time per function on every thread (V8's sampling profiler, on an unminified build); tracing
 * costs time too, which inflates every figure; TRACE_CATEGORIES=a,b adds trace categories and TRACE_OUT=file.json keeps the trace. LONG_TASKS=30 prints, for every open, the UI
 * thread's tasks of 30 ms or more with the User Timing measures that overlap them and the scripts of the long animation frame around them (no tracing).
 * Run with `npm run bench -- browser` (or `npx tsx bench/browser.ts`).
 */
import type { Browser, CDPSession, Page } from 'playwright-core';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { write } from '../src/core/circle/write';
import { bottleneckCircle, resnetLikeCircle } from '../test/support/circle-synthetic';
import { launchChromium, requireChromium, startPreview } from './support/harness';
import { serveStatic, type StaticServer } from './support/static-server';

/** a model of the bench: `n` operators, in 3-operator ResNet-like blocks or 8-operator bottleneck blocks */
interface Case {
  n: number;
  block: 3 | 8;
}
const CASES: Case[] = (process.env.SIZES ?? '1000,3000,10000,100000,100000/8').split(',').map((s) => {
  const [n, block] = s.split('/');
  if (!Number(n) || (block !== undefined && block !== '3' && block !== '8')) throw new Error(`SIZES: ${s} is not N or N/3 or N/8 (operators / block size)`);
  return { n: Number(n), block: block === '8' ? 8 : 3 };
});
const SIZES = CASES.map((c) => c.n);
const caseModel = ({ n, block }: Case) => (block === 8 ? bottleneckCircle({ operators: n, name: `bottleneck_${n}` }) : resnetLikeCircle({ operators: n, name: `resnet_like_${n}` }));
const caseName = ({ n, block }: Case) => (block === 8 ? `bottleneck_${n}` : `resnet_like_${n}`);
const caseLabel = ({ n, block }: Case) => `${n.toLocaleString('en')}${block === 8 ? ' (8-operator blocks)' : ''}`;
const RUNS = Math.max(1, Number(process.env.RUNS) || 3);
const NETRON_TIMEOUT_S = Number(process.env.NETRON_TIMEOUT_S) || 120;
const TARGET_S: Record<number, number> = { 1000: 0.6, 3000: 1.5, 10000: 2.5, 100000: 2.5 };
const PAN_ZOOM_SIZES = [10000, 100000];
/** opens per median: ours RUNS, 3 at most from 100,000 operators; Netron RUNS, one from 10,000 (each takes 15 s to 3 min) */
const opensOurs = (n: number): number => (n >= 100000 ? Math.min(RUNS, 3) : RUNS);
const opensNetron = (n: number): number => (n >= 10000 ? 1 : RUNS);

requireChromium('Browser');
if (!existsSync('public/samples/index.json')) spawnSync('node', ['scripts/make-samples.mjs'], { stdio: 'inherit' });
const loadStart = loadavg()[0]!;
// TRACE=cpu names functions: the build is left unminified
const server = await startPreview({ port: 4391, outDir: '.cache/bench-browser', minify: process.env.TRACE !== 'cpu' });

/** The folder with Netron's index.html: NETRON_DIR itself or its `source` folder. */
function netronRoot(): string | null {
  const dir = process.env.NETRON_DIR;
  if (!dir) return null;
  for (const d of [dir, join(dir, 'source')]) if (existsSync(join(d, 'index.html')) && existsSync(join(d, 'view.js'))) return d;
  throw new Error(`NETRON_DIR=${dir} holds no Netron browser build (index.html and view.js, or source/ with them)`);
}
const netronDir = netronRoot();
// Netron on a port of its own: NETRON_PORT, or a free one the system picks (never a neighbour's)
const netron: StaticServer | null = netronDir ? await serveStatic(netronDir, Number(process.env.NETRON_PORT) || 0) : null;
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
  return '';
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

/** The renderer process of the page (the largest by resident memory), or null. */
function rendererPid(): number | null {
  let best = 0;
  let pid: number | null = null;
  for (const p of descendants(process.pid)) {
    try {
      if (!readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${p}/status`, 'utf8'));
      if (m && Number(m[1]) > best) [best, pid] = [Number(m[1]), p];
    } catch {
      /* gone */
    }
  }
  return pid;
}

/**
 * CPU time (ms, user + system, /proc's 10 ms ticks) of every thread of a process by thread id,
 * with its name: what the page's UI thread and its workers computed, which a busy machine
 * stretches far less than the wall-clock time.
 */
function threadCpu(pid: number): Map<number, { name: string; ms: number }> {
  const out = new Map<number, { name: string; ms: number }>();
  try {
    for (const t of readdirSync(`/proc/${pid}/task`)) {
      try {
        const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8');
        const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        out.set(Number(t), { name: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), ms: (Number(f[11]) + Number(f[12])) * 10 });
      } catch {
        /* gone */
      }
    }
  } catch {
    /* gone */
  }
  return out;
}

/** CPU per thread between two `threadCpu` readings, busiest first (threads under 20 ms left out). */
function cpuSpent(before: Map<number, { name: string; ms: number }>, after: Map<number, { name: string; ms: number }>): { name: string; ms: number }[] {
  return [...after].map(([tid, a]) => ({ name: a.name, ms: a.ms - (before.get(tid)?.ms ?? 0) })).filter((x) => x.ms >= 20).sort((a, b) => b.ms - a.ms);
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

const tmp = mkdtempSync(join(tmpdir(), 'npu-bench-browser-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

/** The model as a file on disk (both apps open it through their file input). */
function modelFile(name: string, bytes: Uint8Array): string {
  const path = join(tmp, name);
  writeFileSync(path, bytes);
  return path;
}

interface DropFigures {
  paintMs: number | null;
  /** ours: until the edge labels are drawn too (a big graph's follow its first frame) */
  labelsMs?: number | null;
  /** ours: CPU time of the renderer's threads from the drop to the painted graph */
  cpu?: { name: string; ms: number }[];
  longestTaskMs: number;
  peakBytes: number;
}

async function watchLongTasks(page: Page) {
  await page.evaluate(() => {
    const w = window as unknown as { __longest: number; __tasks: [number, number][] };
    w.__longest = 0;
    w.__tasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        w.__longest = Math.max(w.__longest, e.duration);
        w.__tasks.push([e.startTime, e.duration]);
      }
    }).observe({ type: 'longtask', buffered: false });
    // the Long Animation Frames API names the scripts a long frame ran (LONG_TASKS lists them)
    const l = window as unknown as { __frames: PerformanceEntry[] };
    l.__frames = [];
    try {
      new PerformanceObserver((list) => void l.__frames.push(...list.getEntries())).observe({ type: 'long-animation-frame', buffered: false });
    } catch {
      /* a browser without it */
    }
  });
}

/**
 * The longest task of the open: those still running at the input's `change` event or later.
 * Playwright's setInputFiles makes the page's File objects in a task of its own before that event
 * (its injected script, 50-120 ms on a loaded machine), which a person's pick does not run.
 */
async function longestSinceChange(page: Page): Promise<number> {
  return page.evaluate(() => {
    const w = window as unknown as { __t0?: number; __longest: number; __tasks: [number, number][] };
    if (w.__t0 === undefined) return w.__longest;
    let m = 0;
    for (const [start, ms] of w.__tasks) if (start + ms >= w.__t0) m = Math.max(m, ms);
    return m;
  });
}

/**
 * LONG_TASKS=30: the UI thread's tasks of 30 ms or more since the input's `change` event, each
 * with its start (ms after the event) and the User Timing measures of the page that overlap it.
 */
async function longTasksSinceChange(page: Page, minMs: number): Promise<string> {
  return page.evaluate((minMs) => {
    const w = window as unknown as { __t0?: number; __tasks: [number, number][] };
    const t0 = w.__t0 ?? 0;
    const measures = performance.getEntriesByType('measure');
    type Script = { invoker: string; sourceFunctionName: string; sourceURL: string; sourceCharPosition: number; duration: number; forcedStyleAndLayoutDuration: number };
    type Frame = PerformanceEntry & { renderStart: number; styleAndLayoutStart: number; scripts: Script[] };
    const frames = (window as unknown as { __frames?: Frame[] }).__frames ?? [];
    const rows = w.__tasks.filter(([start, ms]) => ms >= minMs && start + ms >= t0).map(([start, ms]) => {
      const inside = measures.filter((m) => m.startTime < start + ms && m.startTime + m.duration > start).map((m) => `${m.name.replace(/^npu:/, '')} ${m.duration.toFixed(0)}`);
      // the long animation frame around the task: its scripts (what invoked them, the function, where), and its rendering
      const frame = frames.find((f) => f.startTime <= start + 1 && f.startTime + f.duration >= start + ms - 1);
      const scripts = frame?.scripts
        .filter((x) => x.duration >= 2)
        .map((x) => `${x.invoker}${x.sourceFunctionName ? ` ${x.sourceFunctionName}` : ''} ${x.sourceURL.split('/').pop()}:${x.sourceCharPosition} ${x.duration.toFixed(0)} ms${x.forcedStyleAndLayoutDuration >= 1 ? ` (forced layout ${x.forcedStyleAndLayoutDuration.toFixed(0)})` : ''}`);
      const render = frame && frame.renderStart > 0 ? `; render ${(frame.startTime + frame.duration - frame.renderStart).toFixed(0)} ms, style and layout ${(frame.startTime + frame.duration - frame.styleAndLayoutStart).toFixed(0)}` : '';
      const loaf = frame ? ` {frame ${frame.duration.toFixed(0)} ms: ${scripts?.length ? scripts.join(', ') : 'no script over 2 ms'}${render}}` : '';
      return `${ms.toFixed(0)} ms at ${(start - t0).toFixed(0)}${inside.length ? ` (${inside.join(', ')})` : ''}${loaf}`;
    });
    return rows.length ? `tasks of ${minMs} ms or more: ${rows.join('; ')}` : `no task of ${minMs} ms or more`;
  }, minMs);
}

/**
 * Opens `file` (a path on disk) through the page's file input, as a person picking it does: the
 * File is backed by the disk file, never copied through the page. The time runs from the input's
 * `change` event (a capturing listener in the page) to `painted()` turning true in the page.
 */
async function openAndTime(page: Page, input: string, file: string, app: 'ours' | 'netron', operators: number, timeoutMs: number): Promise<number | null> {
  await page.evaluate(() => {
    const w = window as unknown as { __t0?: number; __longest: number; __tasks: [number, number][] };
    delete w.__t0;
    w.__longest = 0;
    w.__tasks = [];
    document.addEventListener('change', () => (w.__t0 = performance.now()), { capture: true, once: true });
  });
  const done = page.evaluate(
    ({ app, operators, timeoutMs }) =>
      new Promise<number | null>((resolve) => {
        const w = window as unknown as { __t0?: number; __npuGraphStats?: { framesDrawn: number } };
        // ours: the canvas drew a frame and the status bar names this graph's operator count;
        // Netron: its graph's SVG is shown (body class `default`)
        const isPainted = app === 'ours'
          ? () => (w.__npuGraphStats?.framesDrawn ?? 0) > 0 && /\b(\d[\d,]*) nodes/.exec(document.querySelector('[role=status]')?.textContent ?? '')?.[1]?.replace(/,/g, '') === String(operators)
          : () => document.body.classList.contains('default') && document.querySelector('#canvas .node') !== null;
        const started = performance.now();
        const poll = () => {
          if (w.__t0 !== undefined && isPainted()) requestAnimationFrame(() => resolve(performance.now() - w.__t0!));
          else if (performance.now() - started > timeoutMs) resolve(null);
          else requestAnimationFrame(poll);
        };
        requestAnimationFrame(poll);
      }),
    { app, operators, timeoutMs },
  );
  await page.setInputFiles(input, file);
  return done;
}

async function dropOurs(page: Page, file: string, operators: number, beforeDrop?: () => Promise<void>): Promise<DropFigures> {
  // the studio reopens the tabs of the last load (kept in IndexedDB): every open starts from none
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Storage.clearDataForOrigin', { origin: server.url, storageTypes: 'indexeddb' });
  await cdp.detach();
  await page.goto(`${server.url}/?sample=none`);
  await watchLongTasks(page);
  // a person drops a file seconds after the page shows: by then the empty studio's idle
  // warm-ups (the renderer's fonts, the next graph's canvas: ui/graph/canvas-pool.ts) are done
  await page.waitForFunction(() => performance.getEntriesByName('npu:view:canvas-presented').length > 0, undefined, { timeout: 10_000 });
  await page.evaluate(() => delete (window as unknown as { __npuGraphStats?: unknown }).__npuGraphStats);
  await beforeDrop?.();
  const peak = sampleMemory();
  const renderer = rendererPid();
  const cpuBefore = renderer === null ? null : threadCpu(renderer);
  const paintMs = await openAndTime(page, '[data-testid=file-input]', file, 'ours', operators, 600_000);
  const cpu = renderer === null || cpuBefore === null ? undefined : cpuSpent(cpuBefore, threadCpu(renderer));
  // the edge labels: in when the page marks `npu:view:labels`, drawn one frame later
  const labelsMs = paintMs === null ? null : await page.evaluate(
    () =>
      new Promise<number | null>((resolve) => {
        const t0 = (window as unknown as { __t0: number }).__t0;
        const started = performance.now();
        const poll = () => {
          const mark = performance.getEntriesByName('npu:view:labels').find((e) => e.startTime >= t0);
          if (mark) requestAnimationFrame(() => resolve(performance.now() - t0));
          else if (performance.now() - started > 120_000) resolve(null);
          else requestAnimationFrame(poll);
        };
        poll();
      }),
  );
  const peakBytes = peak();
  const longestTaskMs = await longestSinceChange(page);
  if (process.env.LONG_TASKS) console.log(`${operators} operators: ${await longTasksSinceChange(page, Number(process.env.LONG_TASKS) || 30)}`);
  return { paintMs, labelsMs, cpu, longestTaskMs, peakBytes };
}

/** Netron: the same file through its file input; painted = the graph's SVG is shown (body class `default`), plus one frame. */
async function dropNetron(page: Page, file: string): Promise<DropFigures> {
  // the cookie-consent notice (shown when Netron cannot tell the country) would hold the page: it is answered already
  await page.context().addCookies([{ name: 'consent', value: String(Date.now()), url: netron!.url }]);
  await page.goto(`${netron!.url}/index.html`);
  // ready when the file input listens: Netron's body starts as `welcome spinner`, and the input
  // gets its `accept` list in the same step that adds its `change` listener
  await page.waitForFunction(() => !document.body.classList.contains('spinner') && !!document.getElementById('open-file-dialog')?.getAttribute('accept'), undefined, { timeout: 30_000 });
  await watchLongTasks(page);
  const peak = sampleMemory();
  const paintMs = await openAndTime(page, '#open-file-dialog', file, 'netron', 0, NETRON_TIMEOUT_S * 1000);
  const peakBytes = peak();
  const longestTaskMs = await longestSinceChange(page);
  if (paintMs === null) {
    // what Netron shows instead of a graph (a message, an error), for the console
    const shown = await page.evaluate(() => `body class "${document.body.className}", message "${document.getElementById('message-text')?.textContent ?? ''}"`);
    console.error(`Netron: no graph after ${NETRON_TIMEOUT_S} s for ${file}: ${shown}`);
  }
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
  /** thread time (CPU) of a complete event, microseconds */
  tdur?: number;
  pid: number;
  tid: number;
  id?: string;
  id2?: { local?: string };
  args?: {
    name?: string;
    /** where a thread-pool task was posted from (ThreadPool_RunTask): tells the compilers' and collector's tasks apart */
    src_file?: string;
    src_func?: string;
    data?: {
      functionName?: string; url?: string; lineNumber?: number; type?: string;
      // V8 sampling profiler chunks (TRACE=cpu)
      cpuProfile?: { nodes?: { id: number; callFrame: { functionName?: string; url?: string; lineNumber?: number } }[]; samples?: number[] };
      timeDeltas?: number[];
    };
  };
}

/**
 * TRACE=cpu: self time per function and thread from V8's sampling profiler (ProfileChunk events;
 * one profile per thread, its nodes and samples spread over the chunks).
 */
function printCpuProfiles(events: TraceEvent[]) {
  const threadName = new Map<string, string>();
  for (const e of events) if (e.name === 'thread_name' && e.args?.name) threadName.set(`${e.pid}:${e.tid}`, e.args.name);
  const profiles = new Map<string, { thread: string; frames: Map<number, string>; self: Map<number, number> }>();
  for (const e of events) {
    if (e.name !== 'ProfileChunk') continue;
    const key = `${e.pid}:${e.id ?? ''}`;
    let p = profiles.get(key);
    if (!p) profiles.set(key, (p = { thread: threadName.get(`${e.pid}:${e.tid}`) ?? `${e.tid}`, frames: new Map(), self: new Map() }));
    const d = e.args?.data;
    for (const n of d?.cpuProfile?.nodes ?? []) {
      const f = n.callFrame;
      p.frames.set(n.id, `${f.functionName || '(anonymous)'} ${(f.url ?? '').split('/').pop()}:${(f.lineNumber ?? -1) + 1}`);
    }
    const samples = d?.cpuProfile?.samples ?? [];
    const deltas = d?.timeDeltas ?? [];
    for (let k = 0; k < samples.length; k++) p.self.set(samples[k]!, (p.self.get(samples[k]!) ?? 0) + (deltas[k] ?? 0));
  }
  for (const p of profiles.values()) {
    const byFrame = new Map<string, number>();
    for (const [id, us] of p.self) {
      const f = p.frames.get(id) ?? `node ${id}`;
      byFrame.set(f, (byFrame.get(f) ?? 0) + us);
    }
    const total = [...byFrame.values()].reduce((a, b) => a + b, 0);
    const busy = [...byFrame.entries()].filter(([f]) => !f.startsWith('(idle)') && !f.startsWith('(program)'));
    if (busy.reduce((a, [, v]) => a + v, 0) < 50_000) continue;
    console.log(`\n| ${p.thread}: function (self time of ${(total / 1000).toFixed(0)} ms sampled) | ms |\n|---|---:|`);
    for (const [f, us] of busy.sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`| ${f} | ${(us / 1000).toFixed(1)} |`);
  }
}

async function traceDrop(page: Page, file: string, operators: number) {
  const cdp: CDPSession = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e) => void events.push(...(e.value as unknown as TraceEvent[])));
  const done = new Promise<void>((r) => cdp.once('Tracing.tracingComplete', () => r()));
  // tracing starts once the file is made in the page, right before the drop
  const figures = await dropOurs(page, file, operators, async () => {
    await cdp.send('Tracing.start', {
      transferMode: 'ReportEvents',
      // TRACE=2 adds the main thread's timeline events (and their overhead, which inflates every figure)
      // TRACE=cpu adds V8's sampling profiler on every thread (the UI thread and both workers)
      traceConfig: {
        includedCategories: [
          'blink.user_timing', 'toplevel',
          ...(process.env.TRACE === '2' ? ['devtools.timeline'] : []),
          ...(process.env.TRACE === 'cpu' ? ['disabled-by-default-v8.cpu_profiler'] : []),
          // TRACE_CATEGORIES=v8,disabled-by-default-v8.gc adds any categories (for a kept trace, TRACE_OUT)
          ...(process.env.TRACE_CATEGORIES ? process.env.TRACE_CATEGORIES.split(',') : []),
        ],
      },
    });
  });
  console.log(`\nOpen to painted while tracing: ${secs(figures.paintMs)}, longest UI-thread task ${figures.longestTaskMs.toFixed(0)} ms`);
  await cdp.send('Tracing.end');
  await done;
  return { events, longestTaskMs: figures.longestTaskMs };
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
  const tasks: { ms: number; cpuMs: number | undefined; at: number; what: Map<string, number>; posted: string }[] = [];
  let task: { ms: number; cpuMs: number | undefined; at: number; what: Map<string, number>; posted: string } | null = null;
  for (const e of xs) {
    close(e.ts);
    if (stack.length === 0) {
      // where the task was posted from (a top-level task's src_func / src_file), for a task with nothing inside
      const posted = e.args?.src_func ? `${e.name} from ${e.args.src_func} (${String(e.args.src_file ?? '').split('/').slice(-2).join('/')})` : e.name;
      task = { ms: e.dur! / 1000, cpuMs: e.tdur === undefined ? undefined : e.tdur / 1000, at: (e.ts - t0) / 1000, what: new Map(), posted };
      tasks.push(task);
    } else if (task) {
      // what the task did: script by function (and file), or the event's name
      const d = e.args?.data;
      const label = d?.functionName !== undefined || d?.url ? `${e.name} ${d.functionName || '(anonymous)'} ${(d.url ?? '').split('/').pop()}:${d.lineNumber ?? ''}` : d?.type ? `${e.name} ${d.type}` : e.name;
      task.what.set(label, (task.what.get(label) ?? 0) + e.dur! / 1000);
    }
    stack.push({ e, child: 0 });
  }
  close(Infinity);
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15);
  console.log('\n| UI-thread trace event | self ms |\n|---|---:|');
  for (const [n, us] of top) console.log(`| ${n} | ${(us / 1000).toFixed(1)} |`);
  // what the other threads did while each worker step ran (the compilers and the collector share the two cores with it)
  const roles = workerRoles(events, main.pid);
  console.log('\nCPU ms of the page\'s threads (other than the UI thread) during each worker step:');
  for (const m of measures.filter((x) => ['npu:open:read', 'npu:open:parse', 'npu:graph:pack', 'npu:prepare-view', 'npu:edge-labels'].some((p) => x.name.startsWith(p)))) {
    console.log(`- ${m.name.replace(/^npu:/, '')} (${m.ms.toFixed(0)} ms): ${meanwhile(events, main.pid, main.tid, m.start, m.start + m.ms * 1000, roles)}`);
  }
  tasks.sort((a, b) => b.ms - a.ms);
  console.log('\nLongest UI-thread tasks:');
  for (const t of tasks.slice(0, 6)) {
    const top = [...t.what.entries()].sort((a, b) => b[1] - a[1]).slice(0, 3).map(([k, v]) => `${k} ${v.toFixed(0)} ms`);
    // the thread's CPU time in the task: on a loaded machine a task's wall time includes waiting for a core
    const cpu = t.cpuMs === undefined ? '' : ` (CPU ${t.cpuMs.toFixed(0)} ms)`;
    const inside = measures.filter((m) => m.thread === 'CrRendererMain' && m.start < t0 + (t.at + t.ms) * 1000 && m.start + m.ms * 1000 > t0 + t.at * 1000 && m.ms < 2 * t.ms).map((m) => m.name.replace(/^npu:/, ''));
    console.log(`- ${t.ms.toFixed(0)} ms${cpu} at ${t.at.toFixed(0)} ms${inside.length ? ` [${inside.join(', ')}]` : ''}: ${top.length ? top.join('; ') : t.posted}`);
    const others = meanwhile(events, main.pid, main.tid, t0 + t.at * 1000, t0 + (t.at + t.ms) * 1000, roles);
    if (others) console.log(`  meanwhile, CPU ms of the page's other threads: ${others}`);
  }
}

/**
 * The page's workers by what they measure: the one that packs is the model worker, the one that
 * prepares views the layout worker (both are named `DedicatedWorker thread` in a trace).
 */
function workerRoles(events: TraceEvent[], pid: number): Map<number, string> {
  const roles = new Map<number, string>();
  for (const e of events) {
    if (e.pid !== pid || e.ph !== 'b' || !e.cat.includes('blink.user_timing')) continue;
    if (e.name.startsWith('npu:open:') || e.name === 'npu:graph:pack') roles.set(e.tid, 'model worker');
    else if (e.name === 'npu:prepare-view' || e.name.startsWith('npu:phase:')) roles.set(e.tid, 'layout worker');
  }
  return roles;
}

/** What a thread-pool task is, from where it was posted: V8's compilers, its collector, or another. */
function poolTaskKind(e: TraceEvent): string {
  const f = e.args?.src_file ?? '';
  if (f.includes('optimizing-compile')) return 'TurboFan';
  if (f.includes('maglev')) return 'Maglev';
  if (f.includes('baseline')) return 'Sparkplug';
  if (f.includes('v8/src/heap') || f.includes('cppgc')) return 'GC';
  return 'other pool';
}

/**
 * CPU time (thread time of top-level tasks, prorated to the overlap) the page's other threads used
 * between `start` and `end` (trace microseconds): the workers by role, the thread pool by task kind
 * (V8's compilers and collector run there, for every isolate of the page), the compositor.
 */
function meanwhile(events: TraceEvent[], pid: number, mainTid: number, start: number, end: number, roles: Map<number, string>): string {
  const by = new Map<string, number>();
  for (const e of events) {
    if (e.pid !== pid || e.tid === mainTid || e.ph !== 'X' || !e.dur || e.tdur === undefined) continue;
    if (e.name !== 'ThreadPool_RunTask' && e.name !== 'ThreadControllerImpl::RunTask') continue;
    const a = Math.max(start, e.ts), b = Math.min(end, e.ts + e.dur);
    if (b <= a) continue;
    const who = e.name === 'ThreadPool_RunTask' ? poolTaskKind(e) : (roles.get(e.tid) ?? 'compositor and others');
    by.set(who, (by.get(who) ?? 0) + (e.tdur / 1000) * ((b - a) / e.dur));
  }
  return [...by.entries()].filter(([, ms]) => ms >= 1).sort((x, y) => y[1] - x[1]).map(([k, ms]) => `${k} ${ms.toFixed(0)}`).join(', ');
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
  // one context (its HTTP and code caches are what a returning user has), a tab of its own per
  // open: the last open's tab is closed first, so its renderer process, with the heap of the
  // model before (a 100,000-operator open kept 300 MB of it), is not counted with this one's
  const context = await browser.newContext({ viewport: { width: 1400, height: 900 } });
  // tsx compiles this file with esbuild's keepNames, which wraps named functions in `__name(...)`;
  // the functions passed to page.evaluate carry that call into the page, so define it there.
  await context.addInitScript('window.__name = (f) => f');
  // Netron's browser host replaces window.eval with a function that throws, which would break the
  // driver's own page.evaluate; assignments to it are ignored instead (Netron never calls eval)
  await context.addInitScript("{ const e = window.eval; Object.defineProperty(window, 'eval', { get: () => e, set: () => {}, configurable: true }); }");
  let tab: Page | null = null;
  const freshTab = async () => {
    await tab?.close();
    return (tab = await context.newPage());
  };
  const rows: string[] = [];
  const cpuRows: string[] = [];
  const pzRows: string[] = [];
  // ours for every case first, then Netron for every case: a 100,000-operator Netron tab grows to
  // 8 GB, and the seconds after it is closed (the system taking that memory back) slowed the next
  // opens of ours by up to half and stretched their UI tasks
  type Figures = Awaited<ReturnType<typeof median>>;
  const ourRuns: { c: Case; bytes: number; file: string; ours: Figures; pz?: PanZoomFigures }[] = [];
  for (const c of process.env.TRACE_ONLY ? [] : CASES) {
    const n = c.n;
    const bytes = write(caseModel(c));
    const file = modelFile(`${caseName(c)}.circle`, bytes);
    await dropOurs(await freshTab(), modelFile(`warmup_${caseName(c)}.circle`, bytes), n); // warm the code caches once
    const ours = await median(async () => dropOurs(await freshTab(), file, n), opensOurs(n));
    let pz: PanZoomFigures | undefined;
    if (PAN_ZOOM_SIZES.includes(n) && c.block === 3) {
      const ourTab = await freshTab();
      await dropOurs(ourTab, file, n);
      pz = await panZoom(ourTab, '[data-testid=graph-canvas]', 3, false);
    }
    ourRuns.push({ c, bytes: bytes.length, file, ours, pz });
  }
  await freshTab(); // ours closed before Netron's first open
  for (const { c, bytes, file, ours, pz } of ourRuns) {
    const n = c.n;
    let netronCells = ['not measured (NETRON_DIR unset)', '', '', ''];
    let theirs: Figures | null = null;
    if (netron) {
      theirs = await median(async () => dropNetron(await freshTab(), file), opensNetron(n));
      const t = theirs.med.paintMs;
      netronCells = [
        secs(t),
        t === null ? `> ${(NETRON_TIMEOUT_S * 1000 / ours.med.paintMs!).toFixed(0)}x` : `${(t / ours.med.paintMs!).toFixed(1)}x`,
        theirs.longest > 0 ? `${theirs.longest.toFixed(0)} ms` : 'none over 50 ms',
        mb(theirs.peak),
      ];
    }
    rows.push(
      `| ${caseLabel(c)} | ${(bytes / 1048576).toFixed(1)} MB | ${secs(ours.med.paintMs)} | ${secs(ours.med.labelsMs ?? null)} | ${TARGET_S[n] ?? '-'} s | ${ours.longest > 0 ? `${ours.longest.toFixed(0)} ms` : 'none over 50 ms'} | ${mb(ours.peak)} | ${netronCells.join(' | ')} |`,
    );
    if (ours.med.cpu) cpuRows.push(`| ${caseLabel(c)} | ${secs(ours.med.paintMs)} | ${ours.med.cpu.map((t) => `${t.name} ${t.ms}`).join(', ')} |`);
    if (pz) {
      let netronPz = 'not measured';
      if (netron && theirs && theirs.med.paintMs !== null) {
        const theirTab = await freshTab();
        await dropNetron(theirTab, file);
        const t = await panZoom(theirTab, '#target', 3, true);
        netronPz = `${t.fps.toFixed(1)} fps`;
      } else if (netron) netronPz = 'no graph to pan';
      pzRows.push(
        `| ${n.toLocaleString('en')} | ${pz.fps.toFixed(1)} | ${pz.redrawsPerSecond.toFixed(1)} | ${pz.drawMedianMs.toFixed(2)} / ${pz.drawP95Ms.toFixed(2)} ms | ${pz.longestTaskMs > 0 ? `${pz.longestTaskMs.toFixed(0)} ms` : 'none over 50 ms'} | >= 60 fps | ${netronPz} |`,
      );
    }
  }
  const loadEnd = loadavg()[0]!;
  const nv = netronVersion ? `Netron ${netronVersion}` : 'Netron';
  if (netron && !netronVersion) console.log(`Netron's version is not known: no package.json of netron in ${netronDir} or the folder above it.\n`);
  console.log(`## Browser: open to painted graph (median of ${RUNS}${SIZES.some((n) => opensOurs(n) !== RUNS) ? ', of 3 at 100,000 operators' : ''}${netron && SIZES.some((n) => opensNetron(n) !== RUNS) ? '; Netron one open from 10,000' : ''}; ours each after a warm-up open; Chromium headless, 1400x900; load average ${loadStart.toFixed(1)} at the start, ${loadEnd.toFixed(1)} at the end)\n`);
  console.log(`| operators | file | ours: graph drawn | ours: with edge labels | target | longest UI-thread task | renderer peak RSS | ${nv} | ${nv} / ours | ${nv} longest task | ${nv} peak RSS |`);
  console.log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const r of rows) console.log(r);
  if (cpuRows.length) {
    console.log('\nCPU time of the page\'s threads from the drop to the painted graph (the median run; /proc, 10 ms ticks; the UI thread is CrRendererMain, the model and layout workers are DedicatedWorker threads):\n');
    console.log('| operators | graph drawn | thread CPU ms |\n|---:|---:|---|');
    for (const r of cpuRows) console.log(r);
  }
  if (!netron) console.log('\nNetron was not measured: set NETRON_DIR to a local copy of its browser build (see the comment at the top of bench/browser.ts).');
  if (pzRows.length) {
    console.log('\n## Browser: pan and zoom (mouse drag + wheel for 3 s)\n');
    console.log(`| operators | frames per second | redraws per second | draw time median / p95 | longest UI-thread task | target | ${nv} |`);
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    for (const r of pzRows) console.log(r);
  }
  if (process.env.TRACE) {
    // the largest case; TRACE_RUNS=10 traces up to ten opens and prints the one with the longest
    // UI-thread task (stopping at the first over 50 ms): a rare long task is caught in the act
    const c = CASES.reduce((a, b) => (b.n > a.n ? b : a));
    const n = c.n;
    const file = modelFile(`trace_${caseName(c)}.circle`, write(caseModel(c)));
    console.log(`\n## Where the time of one open goes (${caseLabel(c)} operators, Chromium trace)`);
    let events: TraceEvent[] = [];
    let longest = -1;
    for (let run = 0; run < Math.max(1, Number(process.env.TRACE_RUNS) || 1); run++) {
      const traced = await traceDrop(await freshTab(), file, n);
      if (traced.longestTaskMs > longest) [events, longest] = [traced.events, traced.longestTaskMs];
      if (longest > 50) break;
    }
    // TRACE_OUT=file.json keeps the trace (chrome://tracing and DevTools open it)
    if (process.env.TRACE_OUT) writeFileSync(process.env.TRACE_OUT, JSON.stringify({ traceEvents: events }));
    printTrace(events);
    if (process.env.TRACE === 'cpu') printCpuProfiles(events);
  }
} finally {
  await browser?.close();
  await netron?.stop();
  server.stop();
}
