/**
 * Caffe models (issue 11), side by side in one run:
 *
 * 1. Agreement: every blob of our forward pass (the WebAssembly kernels on 2 threads, as the
 *    worker and the CLI run it) against OpenCV's Caffe importer (cv2.dnn.readNetFromCaffe,
 *    Debian's python3-opencv, fusion off so each layer's own output can be asked for), relative
 *    error = max |ours - OpenCV| / max |OpenCV| per blob, target 1e-4. LeNet and cifar10_quick
 *    with their real weights; GoogLeNet, ResNet-50, MobileNet and SqueezeNet with seeded random
 *    weights this bench generates (core/caffe/random-weights.ts, the generator of
 *    shared/tools/gen_caffemodel.py). python3-opencv is looked for, installed with apt-get when
 *    this runs as root, and said missing otherwise.
 * 2. Speed at batch 1, GoogLeNet and ResNet-50: OpenCV's forward() on 2 threads (its normal,
 *    fused net), ours in Node (CLI path) and ours in the studio's model worker in Chromium
 *    (production build, cross-origin isolated, Run panel clicked; the figure is the layers' own
 *    time, and the time with every layer's statistics beside it). Target: within 3x of OpenCV.
 * 3. Lazy weights: VGG16's deploy with random weights (a 553 MB .caffemodel, generated into the
 *    temporary folder) given to the studio's file input: time from the input's change event to the
 *    graph's nodes on screen (target < 2 s) and the renderer's memory growth (page and workers,
 *    /proc RSS of Chromium's renderer processes; target < 1.5 x the file).
 * 4. Netron: when NETRON_DIR names a Netron `source/` folder (its index.html; e.g. `fetch`
 *    github:lutzroeder/netron and copy `source/` outside the repo), the same files opened in
 *    Netron in the same browser, timed the same way (to its graph on screen).
 *
 *   npm run bench -- caffe
 *   CAFFE_BENCH_QUICK=1   fewer repetitions
 *   CAFFE_BENCH_OPENCV=0 / CAFFE_BENCH_BROWSER=0 / CAFFE_BENCH_VGG=0   leave a part out
 *   NETRON_DIR=/tmp/netron/source   measure Netron too
 */
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server as HttpServer } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { extname, join, normalize } from 'node:path';
import type { Page } from 'playwright-core';
import { createNodeKernels } from '../src/cli/kernels';
import { fastCaffeKernels } from '../src/core/caffe/forward/fast-kernels';
import { runForward } from '../src/core/caffe/forward/run';
import { randomBlob } from '../src/core/caffe/input';
import { openCaffeModel } from '../src/core/caffe/model';
import { readNpz, writeNpy } from '../src/core/caffe/npy';
import type { BlobValues } from '../src/core/caffe/proto';
import { generateCaffemodel } from '../src/core/caffe/random-weights';
import { readPrototxt } from '../src/core/caffe/read';
import { benchPort, CHROMIUM, launchChromium, startPreview } from './support/harness';

const QUICK = process.env.CAFFE_BENCH_QUICK === '1';
const REPS = QUICK ? 3 : 8;
const FX = 'test/fixtures/caffe/';
const load = () => loadavg().map((v) => v.toFixed(1)).join(' ');
const fmt = (v: number, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? s[Math.floor((s.length - 1) / 2)]! : NaN;
};
const tmp = mkdtempSync(join(tmpdir(), 'npu-bench-caffe-'));
process.on('exit', () => rmSync(tmp, { recursive: true, force: true }));

interface NetCase {
  key: string;
  deploy: string;
  /** a fixture caffemodel, or null: seeded random weights */
  weights: string | null;
  range: [number, number];
}

const CASES: NetCase[] = [
  { key: 'LeNet', deploy: 'lenet/lenet.prototxt', weights: 'lenet/lenet_iter_10000.caffemodel', range: [0, 1] },
  { key: 'cifar10_quick', deploy: 'cifar10-quick/cifar10_quick.prototxt', weights: 'cifar10-quick/cifar10_quick_iter_5000.caffemodel', range: [-128, 128] },
  { key: 'GoogLeNet', deploy: 'googlenet/deploy.prototxt', weights: null, range: [-1, 1] },
  { key: 'ResNet-50', deploy: 'resnet-50/ResNet-50-deploy.prototxt', weights: null, range: [-1, 1] },
  { key: 'MobileNet', deploy: 'mobilenet-v1/mobilenet_deploy.prototxt', weights: null, range: [-1, 1] },
  { key: 'SqueezeNet', deploy: 'squeezenet-v1.1/deploy.prototxt', weights: null, range: [-1, 1] },
];

/** The deploy's text with batch 1 (OpenCV reads the batch from the file). */
function batchOne(text: string): string {
  return text
    .replace(/(input_param\s*\{\s*shape\s*:?\s*\{\s*dim\s*:\s*)\d+/, '$11')
    .replace(/^(\s*input_dim\s*:\s*)\d+/m, '$11')
    .replace(/(input_shape\s*\{\s*dim\s*:\s*)\d+/, '$11');
}

const weightsCache = new Map<string, Uint8Array>();
function weightsOf(c: NetCase): Uint8Array {
  let w = weightsCache.get(c.key);
  if (!w) {
    w = c.weights ? new Uint8Array(readFileSync(FX + c.weights)) : generateCaffemodel(readPrototxt(readFileSync(FX + c.deploy), c.deploy).net, { seed: 1, file: c.deploy });
    weightsCache.set(c.key, w);
  }
  return w;
}

/** Writes the batch-1 deploy and the weights into the temporary folder. */
function caseFiles(c: NetCase): { proto: string; model: string } {
  const proto = join(tmp, `${c.key}.prototxt`);
  const model = join(tmp, `${c.key}.caffemodel`);
  if (!existsSync(proto)) writeFileSync(proto, batchOne(readFileSync(FX + c.deploy, 'utf8')));
  if (!existsSync(model)) writeFileSync(model, weightsOf(c));
  return { proto, model };
}

// --- OpenCV ------------------------------------------------------------------------------------

function findOpenCv(): { python: string; version: string } | null {
  const probe = () => {
    for (const py of ['/usr/bin/python3', 'python3']) {
      const r = spawnSync(py, ['-c', 'import cv2, numpy; print(cv2.__version__)'], { encoding: 'utf8' });
      if (r.status === 0) return { python: py, version: r.stdout.trim() };
    }
    return null;
  };
  const found = probe();
  if (found || process.getuid?.() !== 0) return found;
  console.log('python3-opencv not found: installing it with apt-get (Debian) ...');
  spawnSync('apt-get', ['install', '-y', '-q', 'python3-opencv'], { stdio: 'ignore' });
  return probe();
}

const AGREE_SCRIPT = `
import sys, numpy as np, cv2
proto, weights, inp, out = sys.argv[1:5]
names = sys.argv[5:]
net = cv2.dnn.readNetFromCaffe(proto, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
net.enableFusion(False)
net.setInput(np.load(inp))
outs = net.forward(names)
np.savez(out, **{n: o.astype(np.float32) for n, o in zip(names, outs)})
`;

const TIME_SCRIPT = `
import json, sys, time, numpy as np, cv2
proto, weights, inp, reps = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
cv2.setNumThreads(2)
net = cv2.dnn.readNetFromCaffe(proto, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
x = np.load(inp)
net.setInput(x)
net.forward()
times = []
for r in range(reps):
    net.setInput(x)
    t0 = time.perf_counter()
    net.forward()
    times.append((time.perf_counter() - t0) * 1000)
print(json.dumps(times))
`;

const opencvWanted = process.env.CAFFE_BENCH_OPENCV !== '0';
const cv = opencvWanted ? findOpenCv() : null;
writeFileSync(join(tmp, 'agree.py'), AGREE_SCRIPT);
writeFileSync(join(tmp, 'time.py'), TIME_SCRIPT);

console.log(`## Caffe models (load average ${load()})\n`);
if (!opencvWanted) console.log('OpenCV left out (CAFFE_BENCH_OPENCV=0).\n');
else if (!cv) console.log('OpenCV missing: no python3 with cv2 (Debian: apt-get install python3-opencv, as root); the agreement and the OpenCV times are not measured.\n');

const kernels = createNodeKernels({ threads: 2, onThreadError: (e) => console.error(`compute thread: ${e.message}`) });
const fast = fastCaffeKernels(kernels);
for (let i = 0; i < 200 && kernels.threadsStarted() < 1; i++) await new Promise((r) => setTimeout(r, 50));

function modelOf(c: NetCase) {
  return openCaffeModel([{ name: `${c.key}.prototxt`, bytes: new Uint8Array(readFileSync(FX + c.deploy)) }, { name: `${c.key}.caffemodel`, bytes: weightsOf(c) }], { batch: 1 });
}

function inputOf(c: NetCase, model: ReturnType<typeof modelOf>) {
  const blob = model.net.blobs[model.net.inputs[0]!]!;
  return { name: blob.name, shape: blob.shape!, data: randomBlob(blob.shape!.reduce((a, b) => a * b, 1), 7, c.range) };
}

// --- 1. agreement --------------------------------------------------------------------------------

console.log('### Agreement with OpenCV, every blob (batch 1, our WebAssembly kernels on 2 threads)\n');
if (cv) {
  console.log(`OpenCV ${cv.version} (${cv.python}), fusion off. Relative error of a blob: max |ours - OpenCV| / max |OpenCV|; target 1e-4.\n`);
  console.log('| net | weights | blobs compared | worst blob | its relative error | blobs over 1e-4 |');
  console.log('|---|---|---:|---|---:|---:|');
  for (const c of CASES) {
    const model = modelOf(c);
    const x = inputOf(c, model);
    const cache = new WeakMap<BlobValues, Float32Array>();
    const ours = await runForward(model.net, {
      inputs: { [x.name]: x.data },
      kernels: fast,
      weightValues: (v) => cache.get(v) ?? (cache.set(v, v.toFloat32()), cache.get(v)!),
    });
    const layers = model.net.layers.filter((l) => l.type !== 'Input' && l.tops.length > 0);
    const { proto, model: weights } = caseFiles(c);
    const inp = join(tmp, `${c.key}.in.npy`);
    const out = join(tmp, `${c.key}.out.npz`);
    writeFileSync(inp, writeNpy(x.shape, x.data));
    const r = spawnSync(cv.python, [join(tmp, 'agree.py'), proto, weights, inp, out, ...layers.map((l) => l.name)], { encoding: 'utf8', maxBuffer: 1 << 26 });
    if (r.status !== 0) {
      console.log(`| ${c.key} | ${c.weights ? 'real' : 'seeded random'} | OpenCV failed: ${r.stderr.trim().split('\n').pop()} | | | |`);
      continue;
    }
    const theirs = readNpz(new Uint8Array(readFileSync(out)), 'out.npz');
    let worst = { name: '', rel: 0 };
    let over = 0;
    let compared = 0;
    for (const l of layers) {
      const mine = ours.values.get(model.net.blobs[l.tops[0]!]!.key);
      const t = theirs.get(l.name);
      if (!mine || !t || t.data.length !== mine.data.length) {
        over++;
        worst = { name: `${l.name} (${t ? `${t.data.length} values in OpenCV, ${mine?.data.length ?? 0} here` : 'missing'})`, rel: Infinity };
        continue;
      }
      let scale = 0;
      let diff = 0;
      for (let i = 0; i < t.data.length; i++) {
        scale = Math.max(scale, Math.abs(t.data[i]!));
        diff = Math.max(diff, Math.abs(t.data[i]! - mine.data[i]!));
      }
      const rel = scale > 0 ? diff / scale : diff;
      compared++;
      if (rel > 1e-4) over++;
      if (rel > worst.rel) worst = { name: `${l.name} (${l.type})`, rel };
    }
    for (const d of new Set([...ours.values.values()].map((t) => t.data))) fast.release(d);
    console.log(`| ${c.key} | ${c.weights ? 'real' : 'seeded random'} | ${compared} | ${worst.name} | ${worst.rel.toExponential(2)} | ${over} |`);
  }
  console.log('');
} else console.log('(not measured: OpenCV missing)\n');

// --- 2. speed --------------------------------------------------------------------------------------

const SPEED = CASES.filter((c) => c.key === 'GoogLeNet' || c.key === 'ResNet-50');
const speed: Record<string, { cvBest: number; cvMedian: number; nodeBest: number; nodeMedian: number; nodeTotal: number; browser?: { best: number; median: number; total: number; kernels: string } }> = {};
for (const c of SPEED) {
  const model = modelOf(c);
  const x = inputOf(c, model);
  let cvTimes: number[] = [];
  if (cv) {
    const { proto, model: weights } = caseFiles(c);
    const inp = join(tmp, `${c.key}.in.npy`);
    writeFileSync(inp, writeNpy(x.shape, x.data));
    const r = spawnSync(cv.python, [join(tmp, 'time.py'), proto, weights, inp, String(REPS + 2)], { encoding: 'utf8' });
    if (r.status === 0) cvTimes = JSON.parse(r.stdout.trim().split('\n').pop()!) as number[];
    else console.log(`OpenCV timing of ${c.key} failed: ${r.stderr.trim().split('\n').pop()}`);
  }
  const cache = new WeakMap<BlobValues, Float32Array>();
  const weightValues = (v: BlobValues) => cache.get(v) ?? (cache.set(v, v.toFloat32()), cache.get(v)!);
  const forward: number[] = [];
  const total: number[] = [];
  let prev: Awaited<ReturnType<typeof runForward>> | null = null;
  for (let r = 0; r < REPS + 2; r++) {
    if (prev) for (const d of new Set([...prev.values.values()].map((t) => t.data))) fast.release(d);
    prev = await runForward(model.net, { inputs: { [x.name]: x.data }, kernels: fast, weightValues, now: () => performance.now() });
    if (r >= 2) {
      forward.push(prev.forwardMs);
      total.push(prev.totalMs);
    }
  }
  if (prev) for (const d of new Set([...prev.values.values()].map((t) => t.data))) fast.release(d);
  speed[c.key] = { cvBest: Math.min(...cvTimes), cvMedian: median(cvTimes), nodeBest: Math.min(...forward), nodeMedian: median(forward), nodeTotal: median(total) };
}
kernels.dispose();

// --- browser: the studio (run panel, VGG16 drop) and Netron ----------------------------------------

/** RSS in bytes of Chromium's renderer processes started under this bench process (page and its workers). */
function rendererRss(): number {
  const children = new Map<number, number[]>();
  const args = new Map<number, string>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      const list = children.get(ppid) ?? [];
      list.push(Number(d));
      children.set(ppid, list);
      args.set(Number(d), readFileSync(`/proc/${d}/cmdline`, 'utf8'));
    } catch {
      /* gone */
    }
  }
  let bytes = 0;
  const walk = (pid: number) => {
    for (const c of children.get(pid) ?? []) {
      if (args.get(c)?.includes('--type=renderer')) {
        try {
          const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${c}/status`, 'utf8'));
          if (m) bytes += Number(m[1]) * 1024;
        } catch {
          /* gone */
        }
      }
      walk(c);
    }
  };
  walk(process.pid);
  return bytes;
}

/**
 * Time from the file input's change to the expression `ready` being true (polled every frame),
 * ms. The expression is the bench's own text, evaluated by Playwright (not by the page).
 */
async function timeOpen(page: Page, selector: string, files: string[], ready: string): Promise<number> {
  await page.evaluate((sel) => {
    const w = window as unknown as { __benchT0: number };
    w.__benchT0 = -1;
    document.querySelector(sel)!.addEventListener('change', () => (w.__benchT0 = performance.now()), { capture: true, once: true });
  }, selector);
  await page.setInputFiles(selector, files);
  const handle = await page.waitForFunction(`(window.__benchT0 >= 0 && (${ready})) ? performance.now() - window.__benchT0 : false`, undefined, { polling: 'raf', timeout: 180_000 });
  return (await handle.jsonValue()) as number;
}

/** Our graph is on screen: node overlays drawn for the tab just opened (its name in the status bar). */
const studioReady = (file: string) => `document.querySelectorAll('[data-node-index]').length > 0 && (document.querySelector('[role=status]')?.textContent ?? '').includes(${JSON.stringify(file)})`;
/** Netron's graph is on screen: body class 'default' and nodes in its SVG. */
const netronReady = `document.body.classList.contains('default') && document.querySelectorAll('#canvas .node').length > 0`;

/** Netron's version from the package.json beside its source/ folder, if there. */
function netronVersion(): string {
  try {
    return `Netron ${(JSON.parse(readFileSync(join(netronDir!, '..', 'package.json'), 'utf8')) as { version: string }).version}`;
  } catch {
    return 'version unknown';
  }
}

/** A static server of `dir` on a free port the system picks (the bench's own port stays the studio's). */
function serveStatic(dir: string): Promise<{ server: HttpServer; port: number }> {
  const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png', '.ico': 'image/x-icon' };
  const server = createServer((req, res) => {
    const path = normalize(decodeURIComponent((req.url ?? '/').split('?')[0]!)).replace(/^(\.\.[/\\])+/, '');
    const file = join(dir, path.endsWith('/') ? `${path}index.html` : path);
    if (!file.startsWith(dir) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    createReadStream(file).pipe(res);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const a = server.address();
      resolve({ server, port: typeof a === 'object' && a ? a.port : 0 });
    }),
  );
}

const browserWanted = process.env.CAFFE_BENCH_BROWSER !== '0' && existsSync(CHROMIUM);
const vggWanted = process.env.CAFFE_BENCH_VGG !== '0';
const netronDir = process.env.NETRON_DIR && existsSync(join(process.env.NETRON_DIR, 'index.html')) ? process.env.NETRON_DIR : null;
const opened: { what: string; size: number; ours: number; oursMem: number; oursPeak: number; netron: number | null; netronMem: number | null; netronPeak: number | null }[] = [];
/** how long the memory is watched after a large file's graph is on screen */
const PEAK_WINDOW_MS = 30_000;
let userAgent = '';
let isolated = false;

if (!browserWanted) console.log(process.env.CAFFE_BENCH_BROWSER === '0' ? 'Browser side left out (CAFFE_BENCH_BROWSER=0).\n' : `Browser side skipped: no Chromium at ${CHROMIUM}.\n`);
else {
  const port = benchPort(5187);
  const server = await startPreview({ port, outDir: 'dist-bench-caffe' });
  const netronServer = netronDir ? await serveStatic(netronDir) : null;
  const browser = await launchChromium();
  try {
    // 2b. the run panel in the studio
    for (const c of SPEED) {
      const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
      await page.goto(`${server.url}/?sample=none`);
      userAgent = await page.evaluate(() => navigator.userAgent.match(/(HeadlessChrome|Chrome|Chromium)\/[\d.]+/)?.[0] ?? navigator.userAgent);
      isolated = await page.evaluate(() => crossOriginIsolated);
      const { proto, model } = caseFiles(c);
      await page.setInputFiles('[data-testid="file-input"]', [proto, model]);
      await page.getByRole('status').filter({ hasText: `${c.key}.prototxt` }).waitFor({ timeout: 120_000 });
      await page.getByRole('tab', { name: 'Run' }).click();
      const runButton = page.getByRole('button', { name: 'Run', exact: true });
      const figures: { forward: number; total: number; kernels: string }[] = [];
      for (let r = 0; r < REPS + 2; r++) {
        const before = await page.locator('.run-actions').textContent();
        await runButton.click();
        await page.waitForFunction((b) => {
          const t = document.querySelector('.run-actions')?.textContent ?? '';
          return t !== b && /layers in [\d.]+ ms/.test(t) && !document.querySelector('.run-progress');
        }, before, { timeout: 180_000 });
        const text = (await page.locator('.run-actions').textContent()) ?? '';
        const m = /layers in ([\d.]+) ms \(with statistics ([\d.]+) ms\) · (.+)$/.exec(text.trim());
        if (m && r >= 2) figures.push({ forward: Number(m[1]), total: Number(m[2]), kernels: m[3]! });
      }
      const f = figures.map((x) => x.forward);
      speed[c.key]!.browser = { best: Math.min(...f), median: median(f), total: median(figures.map((x) => x.total)), kernels: figures[0]?.kernels ?? '?' };
      await page.close();
    }

    // 3 and 4. opening: the same files in the studio and in Netron
    const vgg = join(tmp, 'VGG16.caffemodel');
    const vggProto = join(tmp, 'VGG16.prototxt');
    if (vggWanted) {
      const t0 = performance.now();
      const bytes = generateCaffemodel(readPrototxt(readFileSync(FX + 'vgg16/deploy.prototxt'), 'vgg16/deploy.prototxt').net, { seed: 1 });
      writeFileSync(vgg, bytes);
      writeFileSync(vggProto, readFileSync(FX + 'vgg16/deploy.prototxt'));
      console.log(`(VGG16 weights generated: ${(bytes.length / 2 ** 20).toFixed(0)} MiB in ${((performance.now() - t0) / 1000).toFixed(1)} s)\n`);
    }
    const lenet = [join(process.cwd(), FX + 'lenet/lenet.prototxt'), join(process.cwd(), FX + 'lenet/lenet_iter_10000.caffemodel')];
    const googlenet = join(tmp, 'googlenet-deploy.prototxt');
    writeFileSync(googlenet, readFileSync(FX + 'googlenet/deploy.prototxt'));
    const sets: { what: string; files: string[]; netronFiles: string[] }[] = [
      { what: 'LeNet prototxt + caffemodel (1.7 MB)', files: lenet, netronFiles: lenet },
      { what: 'GoogLeNet deploy.prototxt', files: [googlenet], netronFiles: [googlenet] },
    ];
    if (vggWanted) {
      sets.push({ what: 'VGG16 caffemodel alone (its embedded net)', files: [vgg], netronFiles: [vgg] });
      sets.push({ what: 'VGG16 deploy.prototxt + caffemodel', files: [vggProto, vgg], netronFiles: [vgg] });
    }
    /** A fresh browser with one page at `url` (so the renderer memory measured is this page's), timed opening `files`. */
    const measureOpen = async (url: string, selector: string, files: string[], ready: string, netron = false): Promise<{ ms: number; mem: number; peak: number }> => {
      const b = await launchChromium();
      try {
        // Netron forbids eval (CSP, and it replaces window.eval), which Playwright's polling needs:
        // the page's CSP is bypassed and window.eval kept; neither touches how Netron reads a model
        const page = await b.newPage({ viewport: { width: 1400, height: 1000 }, ...(netron ? { bypassCSP: true } : {}) });
        if (netron) {
          // as text, not a function: tsx would wrap a function in its __name helper, which the page lacks
          await page.addInitScript("window.__name = (f) => f; { const keep = window.eval; Object.defineProperty(window, 'eval', { get: () => keep, set: () => {}, configurable: true }); }");
          // the cookie notice Netron shows once (consent given earlier) would hold the file dialog
          await page.context().addCookies([{ name: 'consent', value: String(Date.now()), url }]);
        }
        await page.goto(url);
        await page.waitForSelector(selector, { state: 'attached' });
        await page.waitForTimeout(1000);
        const rss0 = rendererRss();
        const ms = await timeOpen(page, selector, files, ready);
        await page.waitForTimeout(500);
        const mem = rendererRss() - rss0;
        // then the largest growth while the rest is read (our worker reads a large file whole after showing its graph)
        let peak = mem;
        const settle = files.some((f) => statSync(f).size > 32 * 2 ** 20) ? PEAK_WINDOW_MS : 2000;
        for (let t = 0; t < settle; t += 250) {
          await page.waitForTimeout(250);
          peak = Math.max(peak, rendererRss() - rss0);
        }
        return { ms, mem, peak };
      } finally {
        await b.close();
      }
    };
    for (const s of sets) {
      const size = s.files.reduce((a, f) => a + statSync(f).size, 0);
      const ours = await measureOpen(`${server.url}/?sample=none`, '[data-testid="file-input"]', s.files, studioReady(s.files[0]!.split('/').pop()!));
      let netron: { ms: number; mem: number; peak: number } | null = null;
      if (netronServer) {
        try {
          netron = await measureOpen(`http://127.0.0.1:${netronServer.port}/index.html`, '#open-file-dialog', s.netronFiles, netronReady, true);
        } catch (e) {
          console.log(`Netron did not show ${s.what}: ${(e as Error).message.split('\n')[0]}`);
        }
      }
      opened.push({ what: s.what, size, ours: ours.ms, oursMem: ours.mem, oursPeak: ours.peak, netron: netron?.ms ?? null, netronMem: netron?.mem ?? null, netronPeak: netron?.peak ?? null });
    }
  } finally {
    await browser.close();
    server.stop();
    netronServer?.server.close();
    rmSync('dist-bench-caffe', { recursive: true, force: true });
  }
}

console.log(`### Forward speed at batch 1 (load average ${load()})\n`);
console.log('Best / median of the runs after two warm-up runs, ms. Ours: the layers\' own time (the sum of the per-layer times a run reports); "with statistics": the whole run as the panel waits for it (min / max / mean / std of every blob included).\n');
console.log(`| net | OpenCV 2 threads (best / median) | ours, Node, 2 threads (best / median) | ours in the studio's worker${userAgent ? `, ${userAgent}` : ''} (best / median) | with statistics | kernels | worker / OpenCV (median) |`);
console.log('|---|---:|---:|---:|---:|---|---:|');
for (const c of SPEED) {
  const s = speed[c.key]!;
  const b = s.browser;
  console.log(`| ${c.key} | ${fmt(s.cvBest)} / ${fmt(s.cvMedian)} | ${fmt(s.nodeBest)} / ${fmt(s.nodeMedian)} | ${b ? `${fmt(b.best)} / ${fmt(b.median)}` : 'n/a'} | ${b ? fmt(b.total) : 'n/a'} | ${b?.kernels ?? 'wasm-simd x2 (Node)'} | ${b && Number.isFinite(s.cvMedian) ? `${(b.median / s.cvMedian).toFixed(2)}x` : 'n/a'} |`);
}
console.log(`\nTarget: the worker within 3x of OpenCV. Page cross-origin isolated (compute workers on SharedArrayBuffer): ${browserWanted ? (isolated ? 'yes' : 'NO') : 'n/a'}.\n`);

if (opened.length) {
  console.log('### Opening: file input to graph on screen\n');
  console.log(`Time from the input's change event to the graph's nodes on screen (polled every frame), each in a fresh Chromium. Memory: growth of Chromium's renderer processes (the page and its workers, /proc RSS) over the page before the drop, when the graph is on screen and the largest within ${PEAK_WINDOW_MS / 1000} s after (large files: ours reads the whole file then).${netronDir ? ` Netron: ${netronDir} (${netronVersion()}), the same files (it opens one file of a set: the prototxt, or the caffemodel for VGG16).` : ' Netron not measured (set NETRON_DIR to a Netron source/ folder).'}\n`);
  console.log('| files | size | ours | ours, memory at graph / peak | Netron | Netron, memory at graph / peak |');
  console.log('|---|---:|---:|---:|---:|---:|');
  const mb = (b: number) => `${(b / 2 ** 20).toFixed(0)} MiB`;
  const mem = (at: number, peak: number, size: number) => `${mb(at)} / ${mb(peak)} (${(peak / size).toFixed(2)}x)`;
  for (const o of opened) {
    console.log(`| ${o.what} | ${mb(o.size)} | ${(o.ours / 1000).toFixed(2)} s | ${mem(o.oursMem, o.oursPeak, o.size)} | ${o.netron !== null ? `${(o.netron / 1000).toFixed(2)} s` : 'n/a'} | ${o.netronMem !== null ? mem(o.netronMem, o.netronPeak!, o.size) : 'n/a'} |`);
  }
  console.log('\nTargets (VGG16, 553 MB): graph in < 2 s, worker memory < 1.5 x the file.\n');
}
