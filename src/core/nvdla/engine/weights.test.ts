import { describe, expect, it } from 'vitest';
import { combineKernelWeightsAndScale, scaleKernelWeightsLazily } from './sdp-math';
import { nvdlaCompilerPostExtRows, postChnlExtWtsForIMG, quantizeWeights, ScaledKernelWeights, translateWtsForDC, weightDims, type WeightBlob } from './weights';

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
