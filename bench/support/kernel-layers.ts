/**
 * The layers of a net as the kernel bench runs them, shared by the Node side (bench/kernels.ts)
 * and the Chromium worker (e2e/harness/kernels-bench.worker.ts): no Node or DOM API here.
 * Heavy layers call their kernel; BatchNorm, Scale and ReLU call channelAffine in place (one call
 * each, as a forward pass that keeps every layer's output does), Eltwise calls eltwise, Concat
 * copies its inputs. Inputs and weights are seeded random values (weights He-uniform).
 */
import type { Kernels } from '../../src/core/kernels/kernels';
import {
  conv2dOutputShape,
  type AffineParams,
  type Conv2dParams,
  type InnerProductParams,
  type LrnParams,
  type Pool2dParams,
} from '../../src/core/kernels/params';
import { randomTensor } from '../../src/core/kernels/testing';

export type BenchLayer =
  | { kind: 'conv'; name: string; p: Conv2dParams; bias: boolean }
  | { kind: 'pool'; name: string; p: Pool2dParams }
  | { kind: 'lrn'; name: string; p: LrnParams }
  | { kind: 'ip'; name: string; p: InnerProductParams; bias: boolean }
  | { kind: 'affine'; name: string; p: AffineParams; scale: boolean; shift: boolean }
  | { kind: 'eltwise'; name: string; n: number }
  | { kind: 'concat'; name: string; parts: number[] };

export interface PassTimes {
  conv: number;
  /** pooling, LRN, inner product */
  other: number;
  /** affine (BatchNorm, Scale, ReLU), eltwise, concat */
  elementwise: number;
  total: number;
}

export function prepareLayer(k: Kernels, l: BenchLayer, seed: number): { run: () => void; free: () => void } {
  const held: Float32Array[] = [];
  const tensor = (n: number, s: number) => {
    const t = k.alloc(n);
    t.set(randomTensor(n, s));
    held.push(t);
    return t;
  };
  const out = (n: number) => {
    const t = k.alloc(n);
    held.push(t);
    return t;
  };
  const free = () => held.forEach((t) => k.free(t));
  switch (l.kind) {
    case 'conv': {
      const p = l.p;
      const [, c, h, w] = conv2dOutputShape(p);
      const fanIn = (p.inChannels / p.group) * p.kernelH * p.kernelW;
      const r = Math.sqrt(6 / fanIn);
      const x = tensor(p.inChannels * p.inHeight * p.inWidth, seed);
      const wt = randomTensor(c * fanIn, seed + 1, -r, r);
      const b = l.bias ? randomTensor(c, seed + 2, -0.05, 0.05) : null;
      const y = out(c * h * w);
      return { run: () => k.conv2d(p, x, wt, b, y), free: () => (free(), k.forget(wt)) };
    }
    case 'pool': {
      const x = tensor(l.p.channels * l.p.inHeight * l.p.inWidth, seed);
      const y = out(l.p.channels * l.p.outHeight * l.p.outWidth);
      return { run: () => k.pool2d(l.p, x, y), free };
    }
    case 'lrn': {
      const x = tensor(l.p.channels * l.p.height * l.p.width, seed);
      const y = out(x.length);
      return { run: () => k.lrn(l.p, x, y), free };
    }
    case 'ip': {
      const p = l.p;
      const r = Math.sqrt(6 / p.inputSize);
      const x = tensor(p.inputSize, seed);
      const wt = randomTensor(p.inputSize * p.outputSize, seed + 1, -r, r);
      const b = l.bias ? randomTensor(p.outputSize, seed + 2, -0.05, 0.05) : null;
      const y = out(p.outputSize);
      return { run: () => k.innerProduct(p, x, wt, b, y), free: () => (free(), k.forget(wt)) };
    }
    case 'affine': {
      const x = tensor(l.p.batch * l.p.channels * l.p.spatial, seed);
      const scale = l.scale ? randomTensor(l.p.channels, seed + 1, 0.5, 1.5) : null;
      const shift = l.shift ? randomTensor(l.p.channels, seed + 2, -0.05, 0.05) : null;
      // in place, as Caffe nets write BatchNorm, Scale and ReLU; values stay bounded run after run
      return { run: () => k.channelAffine(l.p, x, scale, shift, x), free };
    }
    case 'eltwise': {
      const a = tensor(l.n, seed);
      const b = tensor(l.n, seed + 1);
      const y = out(l.n);
      return { run: () => k.eltwise({ op: 'sum' }, a, b, y), free };
    }
    case 'concat': {
      const parts = l.parts.map((n, i) => tensor(n, seed + i));
      const y = out(l.parts.reduce((a, b) => a + b, 0));
      return {
        run: () => {
          let o = 0;
          for (const p of parts) {
            y.set(p, o);
            o += p.length;
          }
        },
        free,
      };
    }
  }
}

/** Every layer in net order, `reps` passes; the best pass, its time split by layer group. */
export function timePass(k: Kernels, layers: BenchLayer[], reps: number): PassTimes {
  const runs = layers.map((l, i) => ({ kind: l.kind, ...prepareLayer(k, l, 100 + i) }));
  for (const r of runs) r.run(); // packs the weights
  let best: PassTimes = { conv: Infinity, other: Infinity, elementwise: Infinity, total: Infinity };
  for (let rep = 0; rep < reps; rep++) {
    const t: PassTimes = { conv: 0, other: 0, elementwise: 0, total: 0 };
    for (const r of runs) {
      const t0 = performance.now();
      r.run();
      const d = performance.now() - t0;
      if (r.kind === 'conv') t.conv += d;
      else if (r.kind === 'pool' || r.kind === 'lrn' || r.kind === 'ip') t.other += d;
      else t.elementwise += d;
    }
    t.total = t.conv + t.other + t.elementwise;
    if (t.total < best.total) best = t;
  }
  for (const r of runs) r.free();
  return best;
}
