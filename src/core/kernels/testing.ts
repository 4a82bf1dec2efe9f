/**
 * Helpers for kernel tests and benches: seeded random tensors and the comparison the property
 * tests use (fast kernel against the reference, relative to the sum of absolute terms).
 */

/** Seeded uniform floats in [lo, hi) (mulberry32), so a failing case can be replayed. */
export function randomTensor(length: number, seed: number, lo = -1, hi = 1): Float32Array {
  let a = seed >>> 0;
  const out = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    const u = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    out[i] = lo + (hi - lo) * u;
  }
  return out;
}

export function absolute(a: Float32Array): Float32Array {
  return a.map(Math.abs);
}

export interface Mismatch {
  index: number;
  got: number;
  want: number;
  scale: number;
}

/**
 * Elements where |got - want| > rel * scale[i] (+ a denormal floor), scale being the sum of the
 * absolute values of the terms (the reference run on |inputs|), the bound float rounding obeys.
 * At most `limit` are listed, so a test failure shows what differed.
 */
export function mismatches(got: Float32Array, want: Float32Array, scale: Float32Array | null, rel: number, limit = 5): Mismatch[] {
  const bad: Mismatch[] = [];
  if (got.length !== want.length) return [{ index: -1, got: got.length, want: want.length, scale: 0 }];
  for (let i = 0; i < want.length; i++) {
    const s = scale ? scale[i]! : Math.abs(want[i]!);
    const g = got[i]!;
    const w = want[i]!;
    if (!(Math.abs(g - w) <= rel * s + 1e-30) && !(Number.isNaN(g) && Number.isNaN(w))) {
      bad.push({ index: i, got: g, want: w, scale: s });
      if (bad.length >= limit) break;
    }
  }
  return bad;
}
