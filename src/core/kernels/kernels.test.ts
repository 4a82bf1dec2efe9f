import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { referenceKernels, type Kernels } from './kernels';
import {
  conv2dOutputShape,
  deconv2dOutputShape,
  poolOutputSize,
  type Conv2dParams,
  type GemmParams,
  type InnerProductParams,
  type LrnParams,
  type Pool2dParams,
} from './params';
import {
  channelAffineReference,
  conv2dReference,
  eltwiseReference,
  deconv2dReference,
  innerProductReference,
  lrnReference,
  pool2dReference,
  sgemmReference,
} from './reference';
import { absolute, mismatches, randomTensor } from './testing';
import { createWasmKernels } from './wasm-kernels';

const wasm = createWasmKernels({ threads: 1 });
afterAll(() => wasm?.dispose());

function fast(): Kernels {
  if (!wasm) throw new Error('this Node has no WebAssembly SIMD');
  return wasm;
}

const REL = 1e-5;
const count = (shape: number[]) => shape.reduce((a, b) => a * b, 1);

function conv(over: Partial<Conv2dParams>): Conv2dParams {
  return {
    batch: 1, inChannels: 1, inHeight: 3, inWidth: 3, outChannels: 1, kernelH: 1, kernelW: 1,
    strideH: 1, strideW: 1, padH: 0, padW: 0, dilationH: 1, dilationW: 1, group: 1, ...over,
  };
}

const both: [string, () => Kernels][] = [
  ['reference', referenceKernels],
  ['wasm-simd', fast],
];

describe('hand-computed cases (both implementations)', () => {
  for (const [name, k] of both) {
    it(`${name}: 2x2 convolution of 1..9 with ones, bias and ReLU`, () => {
      const p = conv({ kernelH: 2, kernelW: 2, outChannels: 2 });
      const x = Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]);
      const w = Float32Array.from([1, 1, 1, 1, -1, -1, -1, -1]);
      const y = new Float32Array(8);
      k().conv2d(p, x, w, Float32Array.from([1, 0]), y);
      expect(Array.from(y)).toEqual([13, 17, 25, 29, -12, -16, -24, -28]);
      k().conv2d({ ...p, relu: true }, x, w, Float32Array.from([1, 0]), y);
      expect(Array.from(y)).toEqual([13, 17, 25, 29, 0, 0, 0, 0]);
    });

    it(`${name}: strided, dilated convolution picks the right taps`, () => {
      // 5x5 input x[r][c] = 5r + c + 1, 2x2 kernel [1, 10; 100, 1000], dilation 2 (taps 2 apart), stride 2
      const p = conv({ inHeight: 5, inWidth: 5, kernelH: 2, kernelW: 2, strideH: 2, strideW: 2, dilationH: 2, dilationW: 2 });
      expect(conv2dOutputShape(p)).toEqual([1, 1, 2, 2]);
      const x = Float32Array.from({ length: 25 }, (_, i) => i + 1);
      const y = new Float32Array(4);
      k().conv2d(p, x, Float32Array.from([1, 10, 100, 1000]), null, y);
      // out (0,0): taps (0,0) (0,2) (2,0) (2,2) = 1, 3, 11, 13; out (0,1) starts at column 2, out (1,0) at row 2
      expect(Array.from(y)).toEqual([1 + 30 + 1100 + 13000, 3 + 50 + 1300 + 15000, 11 + 130 + 2100 + 23000, 13 + 150 + 2300 + 25000]);
    });

    it(`${name}: padding reads zeros`, () => {
      const p = conv({ kernelH: 3, kernelW: 3, strideH: 2, strideW: 2, padH: 1, padW: 1 });
      expect(conv2dOutputShape(p)).toEqual([1, 1, 2, 2]);
      const y = new Float32Array(4);
      k().conv2d(p, Float32Array.from([1, 2, 3, 4, 5, 6, 7, 8, 9]), new Float32Array(9).fill(1), null, y);
      expect(Array.from(y)).toEqual([1 + 2 + 4 + 5, 2 + 3 + 5 + 6, 4 + 5 + 7 + 8, 5 + 6 + 8 + 9]);
    });

    it(`${name}: deconvolution scatters each input through the kernel`, () => {
      const p = conv({ inHeight: 2, inWidth: 2, kernelH: 2, kernelW: 2 });
      expect(deconv2dOutputShape(p)).toEqual([1, 1, 3, 3]);
      const y = new Float32Array(9);
      k().deconv2d(p, Float32Array.from([1, 2, 3, 4]), Float32Array.from([1, 1, 1, 1]), null, y);
      expect(Array.from(y)).toEqual([1, 3, 2, 4, 10, 6, 3, 7, 4]);
      const y2 = new Float32Array(16);
      k().deconv2d({ ...p, strideH: 2, strideW: 2 }, Float32Array.from([1, 2, 3, 4]), Float32Array.from([1, 1, 1, 1]), Float32Array.from([0.5]), y2);
      expect(Array.from(y2)).toEqual([1.5, 1.5, 2.5, 2.5, 1.5, 1.5, 2.5, 2.5, 3.5, 3.5, 4.5, 4.5, 3.5, 3.5, 4.5, 4.5]);
    });

    it(`${name}: inner product, plain and transposed weights`, () => {
      const y = new Float32Array(3);
      k().innerProduct({ batch: 1, inputSize: 2, outputSize: 3 }, Float32Array.from([1, 2]), Float32Array.from([1, 0, 0, 1, 1, 1]), Float32Array.from([0, 0, 10]), y);
      expect(Array.from(y)).toEqual([1, 2, 13]);
      k().innerProduct({ batch: 1, inputSize: 2, outputSize: 3, transpose: true }, Float32Array.from([1, 2]), Float32Array.from([1, 0, 1, 0, 1, 1]), null, y);
      expect(Array.from(y)).toEqual([1, 2, 3]);
    });

    it(`${name}: Caffe pooling (ceil rounding, AVE divisor counts the padding)`, () => {
      const x = Float32Array.from({ length: 16 }, (_, i) => i);
      const base = { batch: 1, channels: 1, inHeight: 4, inWidth: 4, kernelH: 3, kernelW: 3, strideH: 2, strideW: 2 };
      const y = new Float32Array(4);
      k().pool2d({ ...base, method: 'max', outHeight: 2, outWidth: 2, padH: 0, padW: 0 }, x, y);
      expect(Array.from(y)).toEqual([10, 11, 14, 15]);
      // AVE, pad 1: 3x3 out; window (0,0) covers rows/cols -1..1 -> {0,1,4,5} / 9
      const y3 = new Float32Array(9);
      k().pool2d({ ...base, method: 'ave', outHeight: 3, outWidth: 3, padH: 1, padW: 1 }, x, y3);
      // window (2,2): rows 3..5 clipped to height + pad = 5 -> rows 3,4 / cols 3,4: size 4, values {15}
      expect(y3[0]).toBeCloseTo(10 / 9, 6);
      expect(y3[8]).toBeCloseTo(15 / 4, 6);
      // window (0,2): rows -1..1, cols 3..4 (clipped at width + pad): size 3 * 2, values {3, 7}
      expect(y3[2]).toBeCloseTo(10 / 6, 6);
    });

    it(`${name}: LRN across channels and within a channel`, () => {
      const p: LrnParams = { region: 'across', batch: 1, channels: 3, height: 1, width: 1, size: 3, alpha: 3, beta: 1, k: 1 };
      const y = new Float32Array(3);
      k().lrn(p, Float32Array.from([1, 2, 3]), y);
      expect(Array.from(y).map((v) => +v.toFixed(6))).toEqual([1 / 6, 2 / 15, 3 / 14].map((v) => +Math.fround(v).toFixed(6)));
      // within: 1x1x2x2, size 3: every window sees all four values: 1 + 9 + 4 + 16 = 30
      const w: LrnParams = { ...p, region: 'within', channels: 1, height: 2, width: 2, alpha: 9, beta: 0.5 };
      const y4 = new Float32Array(4);
      k().lrn(w, Float32Array.from([1, 3, 2, 4]), y4);
      const f = 1 / Math.sqrt(1 + 9 * (30 / 9));
      expect(Array.from(y4).map((v) => +v.toFixed(5))).toEqual([1, 3, 2, 4].map((v) => +(v * f).toFixed(5)));
    });

    it(`${name}: sgemm with transposes, alpha, beta and leading dimensions`, () => {
      // A = [[1,2,3],[4,5,6]] stored transposed (3x2, lda 3 with a spare column), B = [[1,0],[0,1],[1,1]]
      const a = Float32Array.from([1, 4, 99, 2, 5, 99, 3, 6, 99]);
      const b = Float32Array.from([1, 0, 0, 1, 1, 1]);
      const c = Float32Array.from([1, 1, 1, 1]);
      k().sgemm({ m: 2, n: 2, k: 3, transA: true, lda: 3, alpha: 2, beta: 0.5 }, a, b, c);
      expect(Array.from(c)).toEqual([2 * 4 + 0.5, 2 * 5 + 0.5, 2 * 10 + 0.5, 2 * 11 + 0.5]);
    });
  }

  it('Caffe output sizes: GoogLeNet and ResNet-50 pools, the clip when the last window starts in the padding', () => {
    expect(poolOutputSize(112, 3, 2, 0)).toBe(56);
    expect(poolOutputSize(14, 3, 2, 0)).toBe(7);
    expect(poolOutputSize(7, 7, 1, 0)).toBe(1);
    expect(poolOutputSize(4, 3, 2, 1)).toBe(3);
    // ceil((5 + 2 - 2) / 2) + 1 = 4, but window 3 starts at 6 - 1 = 5 >= 5 + 1? no: 3 * 2 = 6 >= 5 + 1 -> clipped to 3
    expect(poolOutputSize(5, 2, 2, 1)).toBe(3);
    expect(poolOutputSize(5, 2, 2, 1, 'floor')).toBe(3);
    expect(conv2dOutputShape(conv({ inHeight: 224, inWidth: 224, kernelH: 7, kernelW: 7, strideH: 2, strideW: 2, padH: 3, padW: 3 }))).toEqual([1, 1, 112, 112]);
  });
});

describe('WebAssembly kernels equal the reference (fast-check)', () => {
  const convArb = fc
    .record({
      batch: fc.integer({ min: 1, max: 2 }),
      group: fc.integer({ min: 1, max: 3 }),
      cinG: fc.integer({ min: 1, max: 6 }),
      coutG: fc.integer({ min: 1, max: 7 }),
      inHeight: fc.integer({ min: 1, max: 13 }),
      inWidth: fc.integer({ min: 1, max: 37 }),
      kernelH: fc.integer({ min: 1, max: 4 }),
      kernelW: fc.integer({ min: 1, max: 4 }),
      strideH: fc.integer({ min: 1, max: 3 }),
      strideW: fc.integer({ min: 1, max: 3 }),
      padH: fc.integer({ min: 0, max: 2 }),
      padW: fc.integer({ min: 0, max: 2 }),
      dilationH: fc.integer({ min: 1, max: 2 }),
      dilationW: fc.integer({ min: 1, max: 2 }),
      relu: fc.boolean(),
      bias: fc.boolean(),
      seed: fc.integer(),
    })
    .map((r) => ({
      p: {
        batch: r.batch, inChannels: r.group * r.cinG, inHeight: r.inHeight, inWidth: r.inWidth,
        outChannels: r.group * r.coutG, kernelH: r.kernelH, kernelW: r.kernelW, strideH: r.strideH, strideW: r.strideW,
        padH: r.padH, padW: r.padW, dilationH: r.dilationH, dilationW: r.dilationW, group: r.group, relu: r.relu,
      } satisfies Conv2dParams,
      bias: r.bias,
      seed: r.seed,
    }));

  function checkConv(p: Conv2dParams, withBias: boolean, seed: number): void {
    const [n, c, h, w] = conv2dOutputShape(p);
    if (h < 1 || w < 1) return;
    const x = randomTensor(p.batch * p.inChannels * p.inHeight * p.inWidth, seed);
    const wt = randomTensor(p.outChannels * (p.inChannels / p.group) * p.kernelH * p.kernelW, seed + 1);
    const b = withBias ? randomTensor(p.outChannels, seed + 2) : null;
    const want = new Float32Array(n * c * h * w);
    const scale = new Float32Array(want.length);
    const got = new Float32Array(want.length).fill(NaN);
    conv2dReference(p, x, wt, b, want);
    conv2dReference({ ...p, relu: false }, absolute(x), absolute(wt), b && absolute(b), scale);
    fast().conv2d(p, x, wt, b, got);
    expect(mismatches(got, want, scale, REL)).toEqual([]);
  }

  it('conv2d: random shapes, strides, padding, dilation, groups, bias, ReLU', () => {
    fc.assert(fc.property(convArb, ({ p, bias, seed }) => checkConv(p, bias, seed)), { numRuns: 300 });
  });

  it('conv2d: depthwise and channel multipliers (one input channel per group)', () => {
    fc.assert(
      fc.property(convArb, fc.integer({ min: 2, max: 9 }), ({ p, bias, seed }, groups) =>
        checkConv({ ...p, group: groups, inChannels: groups, outChannels: groups * ((p.outChannels / p.group) % 3 + 1) }, bias, seed)),
      { numRuns: 150 },
    );
  });

  it('conv2d: K past several K blocks, M and N off the tile (GoogLeNet-like 3x3 and 1x1 layers, shrunk)', () => {
    checkConv(conv({ inChannels: 67, outChannels: 37, inHeight: 9, inWidth: 11, kernelH: 3, kernelW: 3, padH: 1, padW: 1 }), true, 7);
    checkConv(conv({ inChannels: 600, outChannels: 5, inHeight: 7, inWidth: 7 }), true, 8);
    checkConv(conv({ inChannels: 3, outChannels: 8, inHeight: 40, inWidth: 40, kernelH: 7, kernelW: 7, strideH: 2, strideW: 2, padH: 3, padW: 3 }), true, 9);
    checkConv(conv({ inChannels: 16, outChannels: 24, inHeight: 20, inWidth: 36, kernelH: 1, kernelW: 1, strideH: 2, strideW: 2 }), false, 10);
  });

  it('deconv2d: random shapes, strides, padding, dilation, groups', () => {
    fc.assert(
      fc.property(convArb, ({ p, bias, seed }) => {
        const [n, c, h, w] = deconv2dOutputShape(p);
        if (h < 1 || w < 1) return;
        const x = randomTensor(p.batch * p.inChannels * p.inHeight * p.inWidth, seed);
        const wt = randomTensor(p.inChannels * (p.outChannels / p.group) * p.kernelH * p.kernelW, seed + 1);
        const b = bias ? randomTensor(p.outChannels, seed + 2) : null;
        const want = new Float32Array(n * c * h * w);
        const scale = new Float32Array(want.length);
        const got = new Float32Array(want.length).fill(NaN);
        deconv2dReference(p, x, wt, b, want);
        deconv2dReference({ ...p, relu: false }, absolute(x), absolute(wt), b && absolute(b), scale);
        fast().deconv2d(p, x, wt, b, got);
        expect(mismatches(got, want, scale, REL)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('inner product and sgemm: random sizes, transposes, alpha, beta', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 5 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 1, max: 70 }),
        fc.boolean(), fc.boolean(), fc.boolean(), fc.integer(),
        (batch, K, O, transpose, relu, bias, seed) => {
          const p: InnerProductParams = { batch, inputSize: K, outputSize: O, transpose, relu };
          const x = randomTensor(batch * K, seed);
          const w = randomTensor(K * O, seed + 1);
          const b = bias ? randomTensor(O, seed + 2) : null;
          const want = new Float32Array(batch * O);
          const scale = new Float32Array(batch * O);
          const got = new Float32Array(batch * O).fill(NaN);
          innerProductReference(p, x, w, b, want);
          innerProductReference({ ...p, relu: false }, absolute(x), absolute(w), b && absolute(b), scale);
          fast().innerProduct(p, x, w, b, got);
          expect(mismatches(got, want, scale, REL)).toEqual([]);
        }),
      { numRuns: 150 },
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 0, max: 600 }),
        fc.boolean(), fc.boolean(), fc.constantFrom(0, 1, 0.5, -2), fc.constantFrom(1, 0.25, -1), fc.integer({ min: 0, max: 3 }), fc.integer(),
        (m, n, k, transA, transB, beta, alpha, extra, seed) => {
          const p: GemmParams = { m, n, k, transA, transB, alpha, beta, lda: (transA ? m : k) + extra, ldb: (transB ? k : n) + extra, ldc: n + extra };
          const a = randomTensor((transA ? k : m) * p.lda!, seed);
          const b = randomTensor((transB ? n : k) * p.ldb!, seed + 1);
          const c0 = randomTensor(m * p.ldc!, seed + 2);
          const want = c0.slice();
          const scale = absolute(c0);
          const got = c0.slice();
          sgemmReference(p, a, b, want);
          sgemmReference({ ...p, alpha: Math.abs(alpha), beta: Math.abs(beta) }, absolute(a), absolute(b), scale);
          fast().sgemm(p, a, b, got);
          expect(mismatches(got, want, scale, REL)).toEqual([]);
        }),
      { numRuns: 150 },
    );
  });

  it('pool2d: random windows, MAX exact and AVE within rounding', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 17 }), fc.integer({ min: 1, max: 17 }),
        fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 0, max: 3 }),
        fc.constantFrom<'max' | 'ave'>('max', 'ave'), fc.boolean(), fc.integer(),
        (channels, H, W, kernel, stride, pad, method, global, seed) => {
          const kh = global ? H : kernel;
          const kw = global ? W : kernel;
          const ph = global ? 0 : Math.min(pad, kh - 1);
          const pw = global ? 0 : Math.min(pad, kw - 1);
          const outHeight = poolOutputSize(H, kh, stride, ph);
          const outWidth = poolOutputSize(W, kw, stride, pw);
          if (outHeight < 1 || outWidth < 1) return;
          const p: Pool2dParams = { method, batch: 2, channels, inHeight: H, inWidth: W, outHeight, outWidth, kernelH: kh, kernelW: kw, strideH: stride, strideW: stride, padH: ph, padW: pw };
          const x = randomTensor(2 * channels * H * W, seed);
          const want = new Float32Array(2 * channels * outHeight * outWidth);
          const got = want.slice().fill(NaN);
          pool2dReference(p, x, want);
          fast().pool2d(p, x, got);
          if (method === 'max') {
            expect(mismatches(got, want, null, 0)).toEqual([]);
          } else {
            const scale = new Float32Array(want.length);
            pool2dReference(p, absolute(x), scale);
            expect(mismatches(got, want, scale, REL)).toEqual([]);
          }
        }),
      { numRuns: 200 },
    );
  });

  it('lrn: both regions, random sizes and parameters', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 9 }), fc.integer({ min: 1, max: 7 }), fc.integer({ min: 1, max: 70 }),
        fc.constantFrom(1, 3, 5, 7), fc.constantFrom<'across' | 'within'>('across', 'within'),
        fc.double({ min: 1e-5, max: 2, noNaN: true }), fc.constantFrom(0.75, 0.5, 1, 0.3), fc.constantFrom(1, 2), fc.integer(),
        (C, H, W, size, region, alpha, beta, k, seed) => {
          const p: LrnParams = { region, batch: 2, channels: C, height: H, width: W, size, alpha, beta, k };
          const x = randomTensor(2 * C * H * W, seed, -3, 3);
          const want = new Float32Array(x.length);
          const got = want.slice().fill(NaN);
          lrnReference(p, x, want);
          fast().lrn(p, x, got);
          expect(mismatches(got, want, null, REL)).toEqual([]);
        }),
      { numRuns: 150 },
    );
  });
});

describe('elementwise kernels equal the reference (fast-check)', () => {
  it('channelAffine: BatchNorm/Scale/ReLU as one pass, leaky slope, in place', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 9 }), fc.integer({ min: 0, max: 70 }),
        fc.boolean(), fc.boolean(), fc.boolean(), fc.constantFrom(0, 0.1, -0.5), fc.boolean(), fc.integer(),
        (batch, channels, spatial, withScale, withShift, relu, negativeSlope, inPlace, seed) => {
          const n = batch * channels * spatial;
          const x = randomTensor(n, seed, -4, 4);
          const scale = withScale ? randomTensor(channels, seed + 1, -2, 2) : null;
          const shift = withShift ? randomTensor(channels, seed + 2) : null;
          const p = { batch, channels, spatial, relu, negativeSlope };
          const want = new Float32Array(n);
          channelAffineReference(p, x, scale, shift, want);
          const scaleBound = new Float32Array(n);
          channelAffineReference({ ...p, relu: false }, absolute(x), scale && absolute(scale), shift && absolute(shift), scaleBound);
          const got = inPlace ? x : new Float32Array(n).fill(NaN);
          fast().channelAffine(p, x, scale, shift, got);
          expect(mismatches(got, want, scaleBound, REL)).toEqual([]);
        }),
      { numRuns: 200 },
    );
  });

  it('eltwise: SUM with coefficients, PROD, MAX, ReLU, output aliasing an input', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 300 }), fc.constantFrom<'sum' | 'prod' | 'max'>('sum', 'prod', 'max'), fc.constantFrom(1, -1, 0.5),
        fc.boolean(), fc.constantFrom('none', 'a', 'b'), fc.integer(),
        (n, op, coeffB, relu, alias, seed) => {
          const a = randomTensor(n, seed, -3, 3);
          const b = randomTensor(n, seed + 1, -3, 3);
          const p = { op, coeffA: 1, coeffB, relu };
          const want = new Float32Array(n);
          eltwiseReference(p, a, b, want);
          const got = alias === 'a' ? a : alias === 'b' ? b : new Float32Array(n).fill(NaN);
          fast().eltwise(p, a, b, got);
          const bound = new Float32Array(n);
          eltwiseReference({ ...p, op: op === 'max' ? 'max' : op, coeffB: Math.abs(coeffB), relu: false }, absolute(a), absolute(b), bound);
          expect(mismatches(got, want, op === 'max' ? null : bound, op === 'max' ? 0 : REL)).toEqual([]);
        }),
      { numRuns: 200 },
    );
  });

  it('ReLU keeps NaN (Caffe: max(NaN, 0) is NaN) and maps -0 and negatives as its formula does', () => {
    const x = Float32Array.from([NaN, -2, 3, -0]);
    const y = new Float32Array(4);
    fast().channelAffine({ batch: 1, channels: 1, spatial: 4, relu: true, negativeSlope: 0.5 }, x, null, null, y);
    expect(Number.isNaN(y[0])).toBe(true);
    expect(Array.from(y.subarray(1))).toEqual([-1, 3, 0]);
  });
});

describe('memory and arguments', () => {
  it('arrays from alloc are used in place, other arrays are copied in and out, results agree', () => {
    const k = fast();
    const p = conv({ inChannels: 5, outChannels: 9, inHeight: 12, inWidth: 12, kernelH: 3, kernelW: 3, padH: 1, padW: 1 });
    const x = randomTensor(5 * 144, 1);
    const w = randomTensor(9 * 5 * 9, 2);
    const plain = new Float32Array(9 * 144);
    k.conv2d(p, x, w, null, plain);
    const xi = k.alloc(x.length);
    xi.set(x);
    const yi = k.alloc(plain.length);
    k.conv2d(p, xi, w, null, yi);
    expect(mismatches(yi, plain, null, 0)).toEqual([]);
    expect(count([yi.length])).toBe(9 * 144);
    k.free(xi);
    k.free(yi);
  });

  it('weights are packed once, and forget() makes changed weights count', () => {
    const k = fast();
    const p = conv({ inChannels: 2, outChannels: 2, inHeight: 2, inWidth: 2 });
    const x = Float32Array.from([1, 2, 3, 4, 10, 20, 30, 40]);
    const w = Float32Array.from([1, 0, 0, 1]);
    const y = new Float32Array(8);
    k.conv2d(p, x, w, null, y);
    expect(Array.from(y)).toEqual(Array.from(x));
    w.set([0, 1, 1, 0]);
    k.conv2d(p, x, w, null, y);
    expect(Array.from(y)).toEqual(Array.from(x)); // the packed copy is still the old one
    k.forget(w);
    k.conv2d(p, x, w, null, y);
    expect(Array.from(y)).toEqual([10, 20, 30, 40, 1, 2, 3, 4]);
  });

  it('wrong lengths and parameters are RangeErrors that say what is wrong', () => {
    const k = fast();
    expect(() => k.conv2d(conv({ group: 2, inChannels: 3 }), new Float32Array(27), new Float32Array(9), null, new Float32Array(9))).toThrow(/group 2 must divide/);
    expect(() => k.conv2d(conv({}), new Float32Array(8), new Float32Array(1), null, new Float32Array(9))).toThrow(/input has 8 values, 9 needed/);
    expect(() => k.lrn({ region: 'across', batch: 1, channels: 1, height: 1, width: 1, size: 2, alpha: 1, beta: 1, k: 1 }, new Float32Array(1), new Float32Array(1))).toThrow(/odd/);
  });
});
