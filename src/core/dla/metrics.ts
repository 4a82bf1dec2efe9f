/**
 * How far a tensor computed on the DLA model is from its float reference (the Caffe forward
 * pass): the figures a per-layer table and chart show. All sums in float64.
 */

export interface ErrorMetrics {
  count: number;
  /** max |a - b| */
  maxAbs: number;
  /** mean |a - b| */
  meanAbs: number;
  /** ||a - b|| / ||b|| (0 when both are 0; Infinity when only b is) */
  relative: number;
  /** a.b / (||a|| ||b||); 1 when both are all zeros, 0 when only one is */
  cosine: number;
  /** 10 log10(sum b^2 / sum (a - b)^2) in dB: Infinity when equal, -Infinity when b is zero and a is not */
  snrDb: number;
  /** values where either side is NaN or infinite (left out of the sums) */
  nonFinite: number;
}

/** `a` (the model's values) against `b` (the reference), element by element. */
export function errorMetrics(a: ArrayLike<number>, b: ArrayLike<number>): ErrorMetrics {
  if (a.length !== b.length) throw new RangeError(`errorMetrics: ${a.length} values against ${b.length}`);
  let maxAbs = 0;
  let sumAbs = 0;
  let err2 = 0;
  let ref2 = 0;
  let got2 = 0;
  let dot = 0;
  let nonFinite = 0;
  let n = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (!Number.isFinite(x) || !Number.isFinite(y)) {
      nonFinite++;
      continue;
    }
    const d = x - y;
    const ad = Math.abs(d);
    if (ad > maxAbs) maxAbs = ad;
    sumAbs += ad;
    err2 += d * d;
    ref2 += y * y;
    got2 += x * x;
    dot += x * y;
    n++;
  }
  const relative = err2 === 0 ? 0 : ref2 === 0 ? Infinity : Math.sqrt(err2 / ref2);
  const cosine = ref2 === 0 && got2 === 0 ? 1 : ref2 === 0 || got2 === 0 ? 0 : dot / Math.sqrt(ref2 * got2);
  const snrDb = err2 === 0 ? Infinity : ref2 === 0 ? -Infinity : 10 * Math.log10(ref2 / err2);
  return { count: n, maxAbs, meanAbs: n ? sumAbs / n : 0, relative, cosine, snrDb, nonFinite };
}

/** Indices of the k largest values, largest first (ties: lower index first). */
export function topK(values: ArrayLike<number>, k: number): { index: number; score: number }[] {
  const idx = Array.from({ length: values.length }, (_, i) => i).filter((i) => !Number.isNaN(values[i]!));
  idx.sort((x, y) => values[y]! - values[x]! || x - y);
  return idx.slice(0, k).map((index) => ({ index, score: values[index]! }));
}
