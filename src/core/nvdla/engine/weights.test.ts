import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { float32ToHalfTiesAway } from '../half-ties-away';
import { combineKernelWeightsAndScale, scaleKernelWeightsLazily } from './sdp-math';
import { blobBytes, nvdlaCompilerPostExtRows, postChnlExtWtsForIMG, quantizeWeights, ScaledKernelWeights, translateWtsForDC, weightDims, type BlobType, type WeightBlob } from './weights';

/**
 * Post-extended image weights, read back stripe by stripe as the CSC reads them: which kernel row
 * of which kernel sits at each place. Every weight holds its own KCRS index, so the layout is
 * visible value by value.
 */
function postExtended(K: number, C: number, R: number, factor: number, layout: 'CSC' | 'NVDLA_COMPILER') {
  const n = K * C * R;
  const src: WeightBlob = { type: 'FLOAT', count: n, values: Float32Array.from({ length: n }, (_, i) => i) };
  // FLOAT: 4 bytes an element, so a kernel group is atomic K / 2 = 16 kernels on nv_full (atomic C 64)
  const out = postChnlExtWtsForIMG(weightDims(n, K, C, 1, R, 1, 1), src, factor, 'FLOAT', 32, 64, 64, layout)!;
  // decode as the CSC reads it: full stripes of `factor` rows (kernel by kernel, row by row, channels innermost), then the rest
  const rows: number[][] = Array.from({ length: K }, () => []);
  let at = 0;
  const stripes = Math.floor(R / factor);
  const stripeRows = [...Array.from({ length: stripes }, () => factor), ...(R % factor ? [R % factor] : [])];
  for (const h of stripeRows)
    for (let k = 0; k < K; k++)
      for (let j = 0; j < h; j++) {
        const first = out.values[at]!;
        // every place of a row holds the C channels of one kernel row in order
        const row = Array.from({ length: C }, (_, c) => out.values[at + c]!);
        expect(row).toEqual(Array.from({ length: C }, (_, c) => first + c * R));
        const kk = Math.floor(first / (C * R));
        expect(kk).toBe(k);
        rows[k]!.push(first % R);
        at += C;
      }
  return rows;
}

describe('post-extended image weights (postChnlExtWtsForIMG)', () => {
  it("CSC layout: LeNet conv1's geometry (20 pre-extended channels, 5 rows, by 2) reads rows 0..4 in order", () => {
    expect(postExtended(2, 20, 5, 2, 'CSC')).toEqual([
      [0, 1, 2, 3, 4],
      [0, 1, 2, 3, 4],
    ]);
  });

  it("nvdla_compiler's layout: 3 rows apart a stripe (64 / 20), so the CSC reads rows 0, 1, 3, 4, 4", () => {
    expect(postExtended(2, 20, 5, 2, 'NVDLA_COMPILER')).toEqual([
      [0, 1, 3, 4, 4],
      [0, 1, 3, 4, 4],
    ]);
    expect(nvdlaCompilerPostExtRows(5, 2, 20, 64)).toEqual([0, 1, 3, 4, 4]);
  });

  it('where atomic C / channels equals the factor the two layouts are the same bytes (28 channels, 7 rows, by 2: ResNet / GoogLeNet conv1)', () => {
    const a = postExtended(3, 28, 7, 2, 'CSC');
    expect(a).toEqual(postExtended(3, 28, 7, 2, 'NVDLA_COMPILER'));
    expect(a[0]).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
});

describe('merged kernel weights made when read (ScaledKernelWeights)', () => {
  // seeded values over the float32 range's awkward parts: ties of the fp16 rounding, subnormals, huge
  const K = 20;
  const C = 70;
  const RS = 9;
  const n = K * C * RS;
  let seed = 7;
  const rand = () => ((seed = (seed * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
  const source = Float32Array.from({ length: n }, (_, i) => (i % 97 === 0 ? 1 + 2 ** -11 : i % 89 === 0 ? 2 ** -20 : i % 83 === 0 ? 60000 : rand() * 3));
  const perChannel: WeightBlob = { type: 'FLOAT', count: K, values: Float32Array.from({ length: K }, (_, k) => (k % 5 === 0 ? 1 / 3 : 0.5 + rand())) };
  const perLayer: WeightBlob = { type: 'FLOAT', count: 1, values: Float32Array.of(1.7) };
  const eager = (): WeightBlob => {
    const a = combineKernelWeightsAndScale('PER_CHANNEL', K, C * RS, { type: 'FLOAT', count: n, values: source }, perChannel)!;
    return combineKernelWeightsAndScale('PER_LAYER', K, C * RS, a, perLayer, true)!;
  };
  const lazy = () => scaleKernelWeightsLazily('PER_LAYER', K, C * RS, scaleKernelWeightsLazily('PER_CHANNEL', K, C * RS, { type: 'FLOAT', count: n, values: source }, perChannel)!, perLayer)!;
  const differing = (a: ArrayLike<number>, b: ArrayLike<number>) => {
    const bad: number[] = [];
    for (let i = 0; i < Math.max(a.length, b.length); i++) if (!Object.is(a[i], b[i])) bad.push(i);
    return bad.slice(0, 10);
  };

  it('holds the products of the eager merge, value for value', () => {
    const l = lazy();
    expect(l).toBeInstanceOf(ScaledKernelWeights);
    expect(l.factors.length).toBe(2);
    expect(differing(l.values, eager().values)).toEqual([]);
  });

  it('laid out for the convolution in fp16 (scaled while converted) gives the bits of the eager weights laid out', () => {
    const d = weightDims(n, K, C, 3, 3, 1, 1);
    const fromLazy = translateWtsForDC(d, lazy(), 'HALF', 32, 64, 64);
    const fromEager = translateWtsForDC(d, eager(), 'HALF', 32, 64, 64);
    expect(fromLazy.count).toBe(fromEager.count);
    expect(differing(fromLazy.values, fromEager.values)).toEqual([]);
    // one factor (the common case) too
    const one = scaleKernelWeightsLazily('PER_CHANNEL', K, C * RS, { type: 'FLOAT', count: n, values: source }, perChannel)!;
    const oneEager = combineKernelWeightsAndScale('PER_CHANNEL', K, C * RS, { type: 'FLOAT', count: n, values: source }, perChannel)!;
    expect(differing(translateWtsForDC(d, one, 'HALF', 32, 64, 64).values, translateWtsForDC(d, oneEager, 'HALF', 32, 64, 64).values)).toEqual([]);
  });

  it('quantised to int8 (per kernel, per filter) gives the values and scales of the eager weights quantised', () => {
    for (const perFilter of [false, true]) {
      const fromLazy = quantizeWeights(lazy(), 1, K, C, RS, perFilter);
      const fromEager = quantizeWeights(eager(), 1, K, C, RS, perFilter);
      expect(fromLazy.filterScales).toEqual(fromEager.filterScales);
      expect(differing(fromLazy.blob.values, fromEager.blob.values)).toEqual([]);
    }
  });

  it('is refused where the eager merge would leave weights unscaled (kernels that do not divide the blob, too few factors)', () => {
    const w: WeightBlob = { type: 'FLOAT', count: n, values: source };
    expect(scaleKernelWeightsLazily('PER_CHANNEL', K + 1, n / (K + 1), w, perChannel)).toBeNull();
    expect(scaleKernelWeightsLazily('PER_CHANNEL', K, C * RS, w, { type: 'FLOAT', count: 3, values: Float32Array.of(1, 2, 3) })).toBeNull();
    expect(scaleKernelWeightsLazily('PER_CHANNEL', K, C * RS, { type: 'INT8', count: n, values: new Int8Array(n) }, perChannel)).toBeNull();
  });
});

/**
 * `execWtTrnsOpsForDC` / `execWtTrnsOpsForDeconv` element by element, as upstream writes it (every
 * value converted with the single-value fp16 conversion as it is read): the specification the
 * kernel-group layout of `DirectConvolutionWeights` must give bit for bit.
 */
function directLayoutReference(K: number, C: number, R: number, S: number, values: Float32Array | Int8Array | Uint16Array, from: BlobType, rt: BlobType, atomicK: number, atomicC: number, cbufWidth: number, deconv: boolean): number[] {
  const bytes = rt === 'INT8' ? 1 : 2;
  const kf = bytes === 1 ? atomicK : atomicK / 2;
  const conv = (v: number) => (from === rt ? v : rt === 'HALF' ? float32ToHalfTiesAway(v) : Math.trunc(v));
  const groups: { k0: number; kn: number; c0: number; cn: number; cgs: number }[] = [];
  const cfg = Math.floor(C / atomicC);
  const cp = C % atomicC;
  const kGroups = [...Array.from({ length: Math.floor(K / kf) }, (_, g) => ({ k0: g * kf, kn: kf })), ...(K % kf ? [{ k0: Math.floor(K / kf) * kf, kn: K % kf }] : [])];
  for (const kg of kGroups) {
    if (cfg > 0) groups.push({ ...kg, c0: 0, cn: atomicC, cgs: cfg });
    if (cp > 0) groups.push({ ...kg, c0: cfg * atomicC, cn: cp, cgs: 1 });
  }
  const out: number[] = [];
  for (const g of groups)
    for (let cg = 0; cg < g.cgs; cg++)
      for (let r = 0; r < R; r++)
        for (let s = 0; s < S; s++)
          for (let k = g.k0; k < g.k0 + g.kn; k++)
            for (let c = 0; c < g.cn; c++) {
              const ir = deconv ? R - 1 - r : r;
              const is = deconv ? S - 1 - s : s;
              out.push(conv(values[is + S * (ir + R * (cg * atomicC + g.c0 + c + C * k))]!));
            }
  const total = Math.ceil((K * C * R * S * bytes) / cbufWidth) * (cbufWidth / bytes);
  while (out.length < total) out.push(0);
  return out;
}

describe('the direct-convolution layout made when needed (DirectConvolutionWeights)', () => {
  const shape = fc.record({
    K: fc.integer({ min: 1, max: 40 }),
    C: fc.integer({ min: 1, max: 80 }),
    R: fc.integer({ min: 1, max: 3 }),
    S: fc.integer({ min: 1, max: 3 }),
    deconv: fc.boolean(),
    target: fc.constantFrom({ atomicK: 32, atomicC: 64 }, { atomicK: 8, atomicC: 8 }),
    seed: fc.integer({ min: 1, max: 1e9 }),
  });
  /** seeded float32 values with fp16 ties, subnormals, values past fp16's range and zeros among them */
  const floats = (n: number, seed: number) => {
    let x = seed >>> 0;
    const next = () => ((x = (x * 1103515245 + 12345) >>> 0) / 2 ** 32) * 2 - 1;
    return Float32Array.from({ length: n }, (_, i) => (i % 31 === 0 ? 1 + 2 ** -11 : i % 29 === 0 ? -(2 ** -20) : i % 23 === 0 ? 70000 : i % 19 === 0 ? 0 : next() * 4));
  };

  /** merged weights as eager merges store them: kernel k's weights times each factor in turn, each product rounded to float32 */
  const eagerProducts = (source: Float32Array, K: number, factors: Float32Array[]): Float32Array => {
    const perKernel = source.length / K;
    return source.map((x, i) => factors.reduce((v, f) => Math.fround(v * f[Math.floor(i / perKernel)]!), x));
  };
  /** `perKernelQuantizeWts` / `perFilterQuantizeWts` written out: scale = max |w| / 127, q = clamp(floor(w x (1 / scale) + 0.5)), float32 steps */
  const quantizedReference = (w: Float32Array, K: number, perFilter: boolean): Int8Array => {
    const perKernel = w.length / K;
    const maxOf = (from: number, to: number) => {
      let m = -3.4028234663852886e38;
      for (let i = from; i < to; i++) m = Math.max(m, Math.abs(w[i]!));
      return m;
    };
    const all = maxOf(0, w.length);
    return Int8Array.from(w, (v, i) => {
      const k = Math.floor(i / perKernel);
      const scale = Math.fround((perFilter ? maxOf(k * perKernel, (k + 1) * perKernel) : all) / 127);
      const q = Math.floor(Math.fround(Math.fround(v * Math.fround(1 / scale)) + 0.5));
      return Number.isNaN(q) ? 0 : Math.max(-128, Math.min(127, q));
    });
  };

  it('fp16 from float32 weights, plain and merged (one to three factors), forwards and deconvolution: the bits of upstream loops', () => {
    fc.assert(
      fc.property(shape, fc.integer({ min: 0, max: 3 }), ({ K, C, R, S, deconv, target, seed }, factors) => {
        const n = K * C * R * S;
        const source = floats(n, seed);
        const fs = Array.from({ length: factors }, (_, j) => floats(K, seed + j + 1));
        const blob: WeightBlob = factors ? new ScaledKernelWeights(source, K, C * R * S, fs) : { type: 'FLOAT', count: n, values: source };
        // the reference reads the products as eager merges store them (each step rounded to float32)
        const eager = eagerProducts(source, K, fs);
        const got = translateWtsForDC(weightDims(n, K, C, S, R, 1, 1), blob, 'HALF', target.atomicK, target.atomicC, 64, deconv);
        const want = directLayoutReference(K, C, R, S, eager, 'FLOAT', 'HALF', target.atomicK, target.atomicC, 64, deconv);
        expect(got.count).toBe(n);
        const bad = want.map((v, i) => (got.values[i] === v ? null : `${i}: ${got.values[i]} != ${v}`)).filter((x) => x !== null);
        expect(bad.slice(0, 5)).toEqual([]);
        expect(got.values.length).toBe(want.length);
      }),
      { numRuns: 60 },
    );
  });

  it('int8 weights moved as they are, and int8 written from float32 truncated', () => {
    fc.assert(
      fc.property(shape, ({ K, C, R, S, deconv, target, seed }) => {
        const n = K * C * R * S;
        const f = floats(n, seed).map((v) => v * 30);
        const q = Int8Array.from(f, (v) => Math.trunc(v));
        const d = weightDims(n, K, C, S, R, 1, 1);
        const fromInt8 = translateWtsForDC(d, { type: 'INT8', count: n, values: q }, 'INT8', target.atomicK, target.atomicC, 64, deconv);
        expect(Array.from(fromInt8.values)).toEqual(directLayoutReference(K, C, R, S, q, 'INT8', 'INT8', target.atomicK, target.atomicC, 64, deconv));
        const fromFloat = translateWtsForDC(d, { type: 'FLOAT', count: n, values: f }, 'INT8', target.atomicK, target.atomicC, 64, deconv);
        expect(Array.from(fromFloat.values)).toEqual(directLayoutReference(K, C, R, S, f, 'FLOAT', 'INT8', target.atomicK, target.atomicC, 64, deconv).map((v) => (v << 24) >> 24));
      }),
      { numRuns: 40 },
    );
  });

  it('int8 weights quantised when read (per kernel, per filter, plain and merged up to four times) lay out as the weights quantised first do', () => {
    fc.assert(
      // four factors: more than the layout quantises while moving (it then reads kernel groups); an infinite factor: NaN
      // products; a NaN weight: a NaN maximum, so its kernel's (or, per kernel, every) scale is NaN and its values 0
      fc.property(shape, fc.boolean(), fc.integer({ min: 0, max: 4 }), fc.boolean(), fc.boolean(), fc.option(fc.nat()), ({ K, C, R, S, deconv, target, seed }, perFilter, factors, infinite, readFirst, nanAt) => {
        const n = K * C * R * S;
        const source = floats(n, seed);
        if (nanAt !== null) source[nanAt % n] = NaN;
        const fs = Array.from({ length: factors }, (_, j) => floats(K, seed + j + 1));
        if (infinite && factors > 0) fs[factors - 1]![K - 1] = Infinity;
        const float: WeightBlob = factors ? new ScaledKernelWeights(source, K, C * R * S, fs) : { type: 'FLOAT', count: n, values: source };
        const d = weightDims(n, K, C, S, R, 1, 1);
        const lazy = quantizeWeights(float, 1, K, C, R * S, perFilter).blob;
        // values made before the layout (then it moves them) or not (then it quantises as it moves)
        if (readFirst) void lazy.values;
        const want = directLayoutReference(K, C, R, S, quantizedReference(eagerProducts(source, K, fs), K, perFilter), 'INT8', 'INT8', target.atomicK, target.atomicC, 64, deconv);
        const got = translateWtsForDC(d, lazy, 'INT8', target.atomicK, target.atomicC, 64, deconv);
        const bad = want.map((v, i) => (got.values[i] === v ? null : `${i}: ${got.values[i]} != ${v}`)).filter((x) => x !== null);
        expect(bad.slice(0, 5)).toEqual([]);
        expect(got.values.length).toBe(want.length);
        // written straight into a loadable's memory (stale bytes there): the same bytes
        const into = new Uint8Array(want.length).fill(0xee);
        translateWtsForDC(d, quantizeWeights(float, 1, K, C, R * S, perFilter).blob, 'INT8', target.atomicK, target.atomicC, 64, deconv).writeBytes(into);
        expect(Array.from(new Int8Array(into.buffer))).toEqual(want);
      }),
      { numRuns: 60 },
    );
  });

  it('writeBytes lays the weights straight into other memory: the bytes of blobBytes, cut or padded with zeros, whether or not values were made', () => {
    const K = 21;
    const C = 70;
    const n = K * C * 9;
    const source = floats(n, 99);
    const make = () => translateWtsForDC(weightDims(n, K, C, 3, 3, 1, 1), new ScaledKernelWeights(source, K, C * 9, [floats(K, 5)]), 'HALF', 32, 64, 64);
    const made = make();
    const full = new Uint8Array(made.values.buffer, made.values.byteOffset, made.values.byteLength).slice();
    for (const size of [full.length + 200, full.length, n * 2, n * 2 - 6]) {
      const want = new Uint8Array(size);
      want.set(full.subarray(0, Math.min(size, full.length)));
      // into memory with stale bytes, at an even offset (laid out in place) and at an odd one (copied)
      for (const at of [2, 1]) {
        const into = new Uint8Array(size + 4).fill(0xee).subarray(at, at + size);
        const lazy = make();
        lazy.writeBytes(into);
        // in place only where aligned for fp16 and long enough for the whole layout
        expect(lazy.isLaidOut()).toBe(at % 2 === 1 || size < n * 2);
        expect(Buffer.compare(into, want)).toBe(0);
      }
      const again = new Uint8Array(size).fill(0xee);
      made.writeBytes(again);
      expect(Buffer.compare(again, want)).toBe(0);
      expect(Buffer.compare(blobBytes(make(), size), want)).toBe(0);
    }
  });
});
