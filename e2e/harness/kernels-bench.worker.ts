/**
 * The worker side of the kernels harness: builds the layers (seeded random inputs and weights, the
 * weights scaled as He-uniform), runs every heavy layer of each net in order on 1 and on 2
 * threads, and reports the best pass, convolutions and the rest apart.
 */
import type { Kernels } from '../../src/core/kernels/kernels';
import { conv2dOutputShape, type Conv2dParams, type InnerProductParams, type LrnParams, type Pool2dParams } from '../../src/core/kernels/params';
import { randomTensor } from '../../src/core/kernels/testing';
import { createBrowserKernels } from '../../src/worker/kernels';

export type BenchLayer =
  | { kind: 'conv'; name: string; p: Conv2dParams; bias: boolean }
  | { kind: 'pool'; name: string; p: Pool2dParams }
  | { kind: 'lrn'; name: string; p: LrnParams }
  | { kind: 'ip'; name: string; p: InnerProductParams; bias: boolean };

export interface KernelBenchRequest {
  nets: { key: string; layers: BenchLayer[] }[];
  reps: number;
}

export interface PassTimes {
  conv: number;
  other: number;
  total: number;
}

export interface KernelBenchResult {
  backend: string;
  threads: number[];
  nets: { key: string; one: PassTimes; two: PassTimes }[];
}

function prepare(k: Kernels, l: BenchLayer, seed: number): () => void {
  const tensor = (n: number, s: number, r = 1) => {
    const t = k.alloc(n);
    t.set(randomTensor(n, s, -r, r));
    return t;
  };
  switch (l.kind) {
    case 'conv': {
      const p = l.p;
      const [, c, h, w] = conv2dOutputShape(p);
      const fanIn = (p.inChannels / p.group) * p.kernelH * p.kernelW;
      const x = tensor(p.inChannels * p.inHeight * p.inWidth, seed);
      const wt = randomTensor(c * fanIn, seed + 1, -Math.sqrt(6 / fanIn), Math.sqrt(6 / fanIn));
      const b = l.bias ? randomTensor(c, seed + 2, -0.05, 0.05) : null;
      const y = k.alloc(c * h * w);
      return () => k.conv2d(p, x, wt, b, y);
    }
    case 'pool': {
      const x = tensor(l.p.channels * l.p.inHeight * l.p.inWidth, seed);
      const y = k.alloc(l.p.channels * l.p.outHeight * l.p.outWidth);
      return () => k.pool2d(l.p, x, y);
    }
    case 'lrn': {
      const x = tensor(l.p.channels * l.p.height * l.p.width, seed);
      const y = k.alloc(x.length);
      return () => k.lrn(l.p, x, y);
    }
    case 'ip': {
      const p = l.p;
      const x = tensor(p.inputSize, seed);
      const wt = randomTensor(p.inputSize * p.outputSize, seed + 1, -Math.sqrt(6 / p.inputSize), Math.sqrt(6 / p.inputSize));
      const b = l.bias ? randomTensor(p.outputSize, seed + 2, -0.05, 0.05) : null;
      const y = k.alloc(p.outputSize);
      return () => k.innerProduct(p, x, wt, b, y);
    }
  }
}

function timeNet(k: Kernels, layers: BenchLayer[], reps: number): PassTimes {
  const runs = layers.map((l, i) => ({ conv: l.kind === 'conv', run: prepare(k, l, 100 + i) }));
  for (const r of runs) r.run();
  let best: PassTimes = { conv: Infinity, other: Infinity, total: Infinity };
  for (let rep = 0; rep < reps; rep++) {
    let conv = 0;
    let other = 0;
    for (const r of runs) {
      const t0 = performance.now();
      r.run();
      const t = performance.now() - t0;
      if (r.conv) conv += t;
      else other += t;
    }
    if (conv + other < best.total) best = { conv, other, total: conv + other };
  }
  return best;
}

self.onmessage = (e: MessageEvent<KernelBenchRequest>) => {
  try {
    const one = createBrowserKernels({ threads: 1 });
    const two = createBrowserKernels({ threads: 2 });
    const nets = e.data.nets.map((n) => ({ key: n.key, one: timeNet(one, n.layers, e.data.reps), two: timeNet(two, n.layers, e.data.reps) }));
    const result: KernelBenchResult = { backend: two.backend, threads: [one.threads, two.threads], nets };
    one.dispose();
    two.dispose();
    self.postMessage(result);
  } catch (err) {
    self.postMessage({ error: err instanceof Error ? `${err.message}\n${err.stack}` : String(err) });
  }
};
