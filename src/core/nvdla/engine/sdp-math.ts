/**
 * The SDP math-op arithmetic of nvdla/sw's `WeightTrns` (WeightTranslationUnit.h) that the merges
 * of `mergeActivationOperations` and the batch-norm pre-processing use: products and sums of two
 * per-layer / per-channel factor blobs, kernel weights times per-layer / per-channel scales, the
 * reciprocal of a blob, and batch-norm's mean and variance interleaved for the SDP.
 *
 * Upstream builds these with its range check compiled out (`ENABLE_PRECISION_RANGE_CHECK 0`), so a
 * combination only fails when the two blobs differ in element type (its precision switch has no
 * case for "unknown") or the SDP mode is neither per-layer nor per-channel. Arithmetic is float32.
 */
import { float32ToHalfTiesAway } from '../half-ties-away';
import type { SDPMode } from './model';
import { ScaledKernelWeights, type BlobType, type WeightBlob } from './weights';

const f32 = Math.fround;

function usable(b: WeightBlob): boolean {
  return b.count > 0 && b.values.length > 0;
}

function floatValues(b: WeightBlob): Float32Array | null {
  return b.type === 'FLOAT' ? (b.values as Float32Array) : null;
}

/** `combineMultiplicationFactors` (op 'mul') / `combineAdditionFactors` (op 'add') over `channels` entries */
export function combineFactors(op: 'mul' | 'add', mode: SDPMode, channels: number, a: WeightBlob, b: WeightBlob): WeightBlob | null {
  if (a.type !== b.type || !usable(a) || !usable(b)) return null;
  const x = floatValues(a);
  const y = floatValues(b);
  if (!x || !y) return null;
  if (a.count !== b.count) return null;
  const n = mode === 'PER_LAYER' ? 1 : mode === 'PER_CHANNEL' ? channels : -1;
  if (n < 0) return null;
  // the rest of the allocation is never written upstream (its memory allocator zero-fills)
  const out = new Float32Array(a.count);
  for (let i = 0; i < n; i++) out[i] = op === 'mul' ? f32(x[i]! * y[i]!) : f32(x[i]! + y[i]!);
  return { type: 'FLOAT', count: a.count, values: out };
}

/** `invertDataBlob`: 1 / v per layer or per channel */
export function invertBlob(mode: SDPMode, channels: number, a: WeightBlob): WeightBlob | null {
  const x = floatValues(a);
  if (!x || !usable(a)) return null;
  const n = mode === 'PER_LAYER' ? 1 : mode === 'PER_CHANNEL' ? channels : -1;
  if (n < 0) return null;
  const out = new Float32Array(a.count);
  for (let i = 0; i < n; i++) out[i] = f32(1 / x[i]!);
  return { type: 'FLOAT', count: a.count, values: out };
}

/**
 * `combineKernelWeightsAndScaleData`: every weight of kernel k times scale k (per channel) or the
 * one scale (per layer). `kernels` and `perKernel` (C x R x S) are the convolution's weight dims
 * as the canonical layer gave them.
 *
 * Upstream indexes with the canonical dims even when the weights were already widened (a grouped
 * convolution's kernels padded to every input channel): it then scales only the first part of the
 * blob and leaves the rest of its fresh allocation uninitialised (nvdla_compiler's MobileNet
 * output differs run to run there). NPU Studio scales every weight of each widened kernel, which
 * is what the merge means; `widenedPerKernel` says how many weights a kernel has now.
 * Every element is read before it is written, so the product may overwrite `w` (`inPlace`).
 */
export function combineKernelWeightsAndScale(mode: SDPMode, kernels: number, widenedPerKernel: number, w: WeightBlob, s: WeightBlob, inPlace = false): WeightBlob | null {
  if (w.type !== s.type || !usable(w) || !usable(s)) return null;
  const x = floatValues(w);
  const y = floatValues(s);
  if (!x || !y) return null;
  if (mode !== 'PER_LAYER' && mode !== 'PER_CHANNEL') return null;
  // `inPlace`: the caller owns `w` (made earlier in the same pass, in no other graph): it becomes the result
  const out = inPlace && x.length === w.count ? x : new Float32Array(w.count);
  if (mode === 'PER_LAYER') {
    const k = y[0]!;
    // a Float32Array store rounds the (exact) double product to float32: a float multiply
    for (let i = 0; i < w.count; i++) out[i] = x[i]! * k;
  } else if (mode === 'PER_CHANNEL') {
    for (let k = 0; k < kernels; k++) {
      const sk = y[k]!;
      const base = k * widenedPerKernel;
      for (let i = 0; i < widenedPerKernel; i++) out[base + i] = x[base + i]! * sk;
    }
  } else return null;
  return { type: 'FLOAT', count: w.count, values: out };
}

/**
 * `combineKernelWeightsAndScale` as a `ScaledKernelWeights` (the products made when first read),
 * or null where that does not give the same weights (then the eager one applies): float kernels
 * that are exactly `kernels` x `widenedPerKernel` values, and a float scale with a factor for
 * every kernel (per channel) or one (per layer).
 */
export function scaleKernelWeightsLazily(mode: SDPMode, kernels: number, widenedPerKernel: number, w: WeightBlob, s: WeightBlob): ScaledKernelWeights | null {
  // (`usable(w)` would read `values`: make the products)
  if (w.type !== 'FLOAT' || s.type !== 'FLOAT' || w.count <= 0 || !usable(s)) return null;
  if (!Number.isInteger(widenedPerKernel) || kernels <= 0 || kernels * widenedPerKernel !== w.count) return null;
  const y = s.values as Float32Array;
  let factor: Float32Array;
  if (mode === 'PER_LAYER') factor = new Float32Array(kernels).fill(y[0]!);
  else if (mode === 'PER_CHANNEL' && y.length >= kernels) factor = y.slice(0, kernels);
  else return null;
  if (w instanceof ScaledKernelWeights) return w.kernels === kernels ? w.times(factor) : null;
  const x = w.values as Float32Array;
  if (x.length !== w.count) return null;
  return new ScaledKernelWeights(x, kernels, widenedPerKernel, [factor]);
}

/** `RT(value)` for the SDP data types */
function converter(from: BlobType, to: BlobType): (v: number) => number {
  if (to === 'HALF') return from === 'HALF' ? (v) => v : float32ToHalfTiesAway;
  if (to === 'FLOAT') return (v) => v;
  return (v) => Math.trunc(v);
}

function newValues(type: BlobType, n: number): WeightBlob['values'] {
  return type === 'HALF' ? new Uint16Array(n) : type === 'INT16' ? new Int16Array(n) : type === 'INT8' ? new Int8Array(n) : new Float32Array(n);
}

/**
 * `translateDataForBatchNorm` (`interlayDataBlobs`): mean and variance of each entry side by side,
 * in the aux surface's type. Upstream's count stays the number of entries (not of values).
 */
export function interleaveBatchNorm(mean: WeightBlob, variance: WeightBlob, rt: BlobType): WeightBlob {
  if (mean.count !== variance.count) throw new RangeError(`batch-norm mean (${mean.count}) and variance (${variance.count}) differ in size`);
  const out = newValues(rt, mean.count * 2);
  const cm = converter(mean.type, rt);
  const cv = converter(variance.type, rt);
  for (let i = 0; i < mean.count; i++) {
    out[2 * i] = cm(mean.values[i]!);
    out[2 * i + 1] = cv(variance.values[i]!);
  }
  return { type: rt, count: mean.count, values: out };
}
