import { describe, expect, it } from 'vitest';
import { nvdlaCompilerPostExtRows, postChnlExtWtsForIMG, weightDims, type WeightBlob } from './weights';

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
