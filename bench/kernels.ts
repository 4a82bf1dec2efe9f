/**
 * Numeric kernels (src/core/kernels): GFLOP/s of sgemm and of every convolution shape of
 * GoogLeNet and ResNet-50 at batch 1, on 1 and 2 threads in Node (WebAssembly SIMD, compute
 * threads from worker_threads); the heavy layers of both nets (convolution, pooling, LRN, inner
 * product) run in net order as a forward pass would call them, side by side with OpenCV's Caffe
 * importer (Debian's python3-opencv, found or said missing) on the same nets with the same seeded
 * weights; then the same pass in Chromium, inside a worker of the harness page
 * e2e/harness/kernels.html (cross-origin isolated, compute workers on SharedArrayBuffer).
 *
 *   npm run bench -- kernels            everything
 *   KERNELS_QUICK=1 npm run bench -- kernels   fewer repetitions
 *   KERNELS_BROWSER=0 / KERNELS_OPENCV=0       leave a side out
 *
 * Times are the best of several runs (wall clock): the machine is shared, and the best run is the
 * one least disturbed. The load average is printed with the figures.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createNodeKernels } from '../src/cli/kernels';
import type { Kernels } from '../src/core/kernels/kernels';
import { conv2dMacs, type Conv2dParams } from '../src/core/kernels/params';
import { randomTensor } from '../src/core/kernels/testing';
import { batchOnePrototxt, caffemodelBytes, layerWeights, readNet, type HeavyLayer, type Net } from './support/caffe-net';
import { runBrowserKernels } from './support/kernels-browser';

const QUICK = process.env.KERNELS_QUICK === '1';
const REPS = QUICK ? 3 : 8;
const NET_REPS = QUICK ? 3 : 10;
const SEED = 1;
const NETS = [
  { key: 'GoogLeNet', path: 'test/fixtures/caffe/googlenet/deploy.prototxt' },
  { key: 'ResNet-50', path: 'test/fixtures/caffe/resnet-50/ResNet-50-deploy.prototxt' },
];

const load = () => loadavg().map((v) => v.toFixed(1)).join(' ');
const fmt = (v: number, d = 1) => (Number.isFinite(v) ? v.toFixed(d) : 'n/a');

function best(reps: number, f: () => void): number {
  let b = Infinity;
  for (let r = 0; r < reps; r++) {
    const t0 = performance.now();
    f();
    b = Math.min(b, performance.now() - t0);
  }
  return b;
}

const k1 = createNodeKernels({ threads: 1 });
const k2 = createNodeKernels({ threads: 2, onThreadError: (e) => console.error(`compute thread: ${e.message}`) });
const kernels: [string, Kernels][] = [['1 thread', k1], ['2 threads', k2]];

console.log(`## Kernels (${k1.backend}; load average ${load()})\n`);

// --- sgemm ------------------------------------------------------------------------------------
console.log('### sgemm, C = A B (row-major, M x N x K), GFLOP/s\n');
console.log('| M x N x K | 1 thread | 2 threads |');
console.log('|---|---:|---:|');
for (const [m, n, k] of [[256, 3136, 576], [512, 784, 1152], [2048, 49, 512], [64, 12544, 147], [1024, 1024, 1024]] as const) {
  const row: string[] = [];
  for (const [, ks] of kernels) {
    const a = ks.alloc(m * k);
    a.set(randomTensor(m * k, 1));
    const b = ks.alloc(k * n);
    b.set(randomTensor(k * n, 2));
    const c = ks.alloc(m * n);
    ks.sgemm({ m, n, k }, a, b, c);
    const t = best(REPS, () => ks.sgemm({ m, n, k }, a, b, c));
    row.push(fmt((2 * m * n * k) / t / 1e6));
    ks.free(a);
    ks.free(b);
    ks.free(c);
  }
  console.log(`| ${m} x ${n} x ${k} | ${row.join(' | ')} |`);
}

// --- per layer ----------------------------------------------------------------------------------
interface Prepared {
  layer: HeavyLayer;
  run: () => void;
  free: () => void;
}

function prepare(ks: Kernels, h: HeavyLayer, weights: Float32Array[], seed: number): Prepared {
  const tensor = (n: number, s: number) => {
    const t = ks.alloc(n);
    t.set(randomTensor(n, s));
    return t;
  };
  switch (h.kind) {
    case 'conv': {
      const p = h.p;
      const x = tensor(p.inChannels * p.inHeight * p.inWidth, seed);
      const oh = Math.floor((p.inHeight + 2 * p.padH - (p.dilationH * (p.kernelH - 1) + 1)) / p.strideH) + 1;
      const ow = Math.floor((p.inWidth + 2 * p.padW - (p.dilationW * (p.kernelW - 1) + 1)) / p.strideW) + 1;
      const y = ks.alloc(p.outChannels * oh * ow);
      const [w, b] = weights;
      return { layer: h, run: () => ks.conv2d(p, x, w!, h.bias ? b! : null, y), free: () => (ks.free(x), ks.free(y)) };
    }
    case 'pool': {
      const p = h.p;
      const x = tensor(p.channels * p.inHeight * p.inWidth, seed);
      const y = ks.alloc(p.channels * p.outHeight * p.outWidth);
      return { layer: h, run: () => ks.pool2d(p, x, y), free: () => (ks.free(x), ks.free(y)) };
    }
    case 'lrn': {
      const p = h.p;
      const x = tensor(p.channels * p.height * p.width, seed);
      const y = ks.alloc(x.length);
      return { layer: h, run: () => ks.lrn(p, x, y), free: () => (ks.free(x), ks.free(y)) };
    }
    case 'ip': {
      const p = h.p;
      const x = tensor(p.inputSize, seed);
      const y = ks.alloc(p.outputSize);
      const [w, b] = weights;
      return { layer: h, run: () => ks.innerProduct(p, x, w!, h.bias ? b! : null, y), free: () => (ks.free(x), ks.free(y)) };
    }
  }
}

const convKey = (p: Conv2dParams) =>
  `${p.inChannels}x${p.inHeight}x${p.inWidth} -> ${p.outChannels}, ${p.kernelH}x${p.kernelW}/${p.strideH}` +
  (p.padH ? ` pad ${p.padH}` : '') + (p.group > 1 ? ` g${p.group}` : '');

const nets: { key: string; path: string; net: Net }[] = NETS.map((n) => ({ ...n, net: readNet(n.path) }));

console.log('\n### Convolution layers at batch 1: GFLOP/s (2 x multiply-adds / time)\n');
console.log('| net | input -> out, kernel/stride | layers | MFLOP | 1 thread | 2 threads |');
console.log('|---|---|---:|---:|---:|---:|');
for (const { key, net } of nets) {
  const seen = new Map<string, { h: HeavyLayer & { kind: 'conv' }; count: number; weights: Float32Array[] }>();
  for (const l of net.layers) {
    if (l.heavy?.kind !== 'conv') continue;
    const k = convKey(l.heavy.p);
    const s = seen.get(k);
    if (s) s.count++;
    else seen.set(k, { h: l.heavy, count: 1, weights: layerWeights(l, SEED) });
  }
  for (const [k, { h, count, weights }] of seen) {
    const flops = 2 * conv2dMacs(h.p);
    const row: string[] = [];
    for (const [, ks] of kernels) {
      const pr = prepare(ks, h, weights, 3);
      pr.run();
      row.push(fmt(flops / best(REPS, pr.run) / 1e6));
      pr.free();
      ks.forget(weights[0]!);
    }
    console.log(`| ${key} | ${k} | ${count} | ${fmt(flops / 1e6, 0)} | ${row.join(' | ')} |`);
  }
}

// --- whole nets -----------------------------------------------------------------------------------
interface NetTimes {
  conv: number;
  other: number;
  total: number;
}

/** The heavy layers in net order, best of NET_REPS passes; conv and the rest timed apart within the best pass. */
function timeNet(ks: Kernels, net: Net): NetTimes {
  const prepared: Prepared[] = [];
  net.layers.forEach((l, i) => {
    if (l.heavy) prepared.push(prepare(ks, l.heavy, layerWeights(l, SEED), 100 + i));
  });
  for (const p of prepared) p.run(); // packs the weights
  let bestPass: NetTimes = { conv: Infinity, other: Infinity, total: Infinity };
  for (let r = 0; r < NET_REPS; r++) {
    let conv = 0;
    let other = 0;
    for (const p of prepared) {
      const t0 = performance.now();
      p.run();
      const t = performance.now() - t0;
      if (p.layer.kind === 'conv') conv += t;
      else other += t;
    }
    if (conv + other < bestPass.total) bestPass = { conv, other, total: conv + other };
  }
  for (const p of prepared) p.free();
  return bestPass;
}

/**
 * What the layers without a kernel cost in plain TypeScript (BatchNorm, Scale, ReLU, Eltwise,
 * Concat, Softmax): one pass over their blobs each, as a forward pass over Float32Arrays does.
 */
function elementwiseEstimate(net: Net): number {
  const shapes = net.layers.filter((l) => ['BatchNorm', 'Scale', 'ReLU', 'Eltwise', 'Concat', 'Softmax'].includes(l.type));
  const bufs = shapes.map((l) => {
    const n = l.out.reduce((a, b) => a * b, 1);
    return { type: l.type, c: l.out[1] ?? 1, hw: n / (l.out[1] ?? 1), x: randomTensor(n, 5), y: new Float32Array(n), a: randomTensor(l.out[1] ?? 1, 6) };
  });
  return best(NET_REPS, () => {
    for (const b of bufs) {
      const { x, y, a, c, hw } = b;
      if (b.type === 'ReLU') {
        for (let i = 0; i < x.length; i++) y[i] = x[i]! > 0 ? x[i]! : 0;
      } else if (b.type === 'Concat') {
        y.set(x);
      } else if (b.type === 'Eltwise') {
        for (let i = 0; i < x.length; i++) y[i] = x[i]! + y[i]!;
      } else {
        for (let ch = 0; ch < c; ch++) {
          const s = a[ch]!;
          const o = ch * hw;
          for (let i = o; i < o + hw; i++) y[i] = x[i]! * s + s;
        }
      }
    }
  });
}

interface OpenCvTimes {
  total: number;
  conv: number;
}

function findOpenCvPython(): string | null {
  for (const py of ['/usr/bin/python3', 'python3']) {
    const r = spawnSync(py, ['-c', 'import cv2, numpy; print(cv2.__version__)'], { encoding: 'utf8' });
    if (r.status === 0) return py;
  }
  return null;
}

const OPENCV_SCRIPT = `
import json, sys, time
import cv2, numpy as np
proto, model, reps = sys.argv[1], sys.argv[2], int(sys.argv[3])
out = {"version": cv2.__version__}
for threads in (1, 2):
    cv2.setNumThreads(threads)
    net = cv2.dnn.readNetFromCaffe(proto, model)
    net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
    net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
    x = np.random.RandomState(0).uniform(-1, 1, (1, 3, 224, 224)).astype(np.float32)
    net.setInput(x)
    net.forward()
    names = net.getLayerNames()
    conv = [net.getLayer(n).type == "Convolution" for n in names]
    best, best_conv = 1e9, 1e9
    for r in range(reps):
        net.setInput(x)
        t0 = time.perf_counter()
        net.forward()
        t = time.perf_counter() - t0
        _, ticks = net.getPerfProfile()
        c = sum(float(ticks[i]) for i in range(len(names)) if conv[i]) / cv2.getTickFrequency()
        if t < best:
            best, best_conv = t, c
    out[str(threads)] = {"total": best * 1000, "conv": best_conv * 1000}
print(json.dumps(out))
`;

function runOpenCv(py: string, dir: string, key: string, net: Net, prototxt: string): Record<string, OpenCvTimes> & { version: string } {
  const proto = join(dir, `${key}.prototxt`);
  const model = join(dir, `${key}.caffemodel`);
  writeFileSync(proto, batchOnePrototxt(prototxt));
  writeFileSync(model, caffemodelBytes(net, SEED));
  writeFileSync(join(dir, 'time_opencv.py'), OPENCV_SCRIPT);
  const r = spawnSync(py, [join(dir, 'time_opencv.py'), proto, model, String(NET_REPS)], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (r.status !== 0) throw new Error(`OpenCV run failed: ${r.stderr.slice(-2000)}`);
  return JSON.parse(r.stdout.trim().split('\n').pop()!) as Record<string, OpenCvTimes> & { version: string };
}

const opencvWanted = process.env.KERNELS_OPENCV !== '0';
const py = opencvWanted ? findOpenCvPython() : null;
const dir = mkdtempSync(join(tmpdir(), 'npu-kernels-bench-'));
process.on('exit', () => rmSync(dir, { recursive: true, force: true }));

console.log(`\n### Whole nets at batch 1, ms (best of ${NET_REPS} passes; load average ${load()})\n`);
if (!opencvWanted) console.log('OpenCV left out (KERNELS_OPENCV=0).\n');
else if (!py) console.log('OpenCV not found: `apt-get install python3-opencv` (Debian) to compare with its Caffe importer.\n');
console.log('| net | GFLOP (conv) | ours conv 1T | ours conv 2T | ours pool/LRN/fc 2T | elementwise layers (TS est.) | ours total 2T | OpenCV 1T | OpenCV 2T | OpenCV conv 2T | ours / OpenCV (2T) |');
console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
const netFigures: { key: string; elementwise: number; opencv: number }[] = [];
let opencvVersion = '';
for (const { key, path, net } of nets) {
  const gflop = net.layers.reduce((a, l) => a + (l.heavy?.kind === 'conv' ? 2 * conv2dMacs(l.heavy.p) : 0), 0) / 1e9;
  const t1 = timeNet(k1, net);
  const t2 = timeNet(k2, net);
  const elementwise = elementwiseEstimate(net);
  const ours = t2.total + elementwise;
  let cv: (Record<string, OpenCvTimes> & { version: string }) | null = null;
  if (py) {
    cv = runOpenCv(py, dir, key, net, readFileSync(path, 'utf8'));
    opencvVersion = cv.version;
  }
  const c1 = cv?.['1'];
  const c2 = cv?.['2'];
  netFigures.push({ key, elementwise, opencv: c2?.total ?? NaN });
  console.log(
    `| ${key} | ${fmt(gflop, 2)} | ${fmt(t1.conv)} | ${fmt(t2.conv)} | ${fmt(t2.other)} | ${fmt(elementwise)} | ${fmt(ours)} | ` +
      `${fmt(c1?.total ?? NaN)} | ${fmt(c2?.total ?? NaN)} | ${fmt(c2?.conv ?? NaN)} | ${c2 ? fmt(ours / c2.total, 2) + 'x' : 'n/a'} |`,
  );
}
if (opencvVersion) console.log(`\nOpenCV ${opencvVersion} (cv2.dnn.readNetFromCaffe, DNN_BACKEND_OPENCV; its convolutions include the BatchNorm, Scale and ReLU it fuses into them).`);
k1.dispose();
k2.dispose();

// --- Chromium -------------------------------------------------------------------------------------
if (process.env.KERNELS_BROWSER !== '0') {
  const specs = nets.map(({ key, net }) => ({ key, layers: net.layers.flatMap((l) => (l.heavy ? [l.heavy] : [])) }));
  const browser = await runBrowserKernels(specs, NET_REPS);
  if (browser) {
    console.log(`\n### The same heavy layers in ${browser.userAgent}, in a worker (best of ${NET_REPS} passes, ms; load average ${load()})\n`);
    console.log(`crossOriginIsolated: ${browser.isolated}; backend ${browser.backend}; threads ${browser.threads.join(' and ')}\n`);
    console.log('| net | conv 1T | conv 2T | pool/LRN/fc 2T | total 2T + elementwise (TS est. above) | OpenCV 2T (above) | ours / OpenCV |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const r of browser.nets) {
      const nf = netFigures.find((f) => f.key === r.key)!;
      const total = r.two.total + nf.elementwise;
      const ratio = Number.isFinite(nf.opencv) ? `${fmt(total / nf.opencv, 2)}x` : 'n/a';
      console.log(`| ${r.key} | ${fmt(r.one.conv)} | ${fmt(r.two.conv)} | ${fmt(r.two.other)} | ${fmt(total)} | ${fmt(nf.opencv)} | ${ratio} |`);
    }
  }
}
process.exit(0);
