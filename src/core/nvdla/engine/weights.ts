/**
 * Weight arithmetic and layouts of nvdla/sw's `WeightTrns` (WeightTranslationUnit.h), reproduced
 * element for element: int8 quantisation (per kernel, per filter), zero padding and channel
 * pre/post-extension for image convolutions, group padding, and the direct-convolution layout
 * the CONV engine reads (kernel groups x channel groups x R x S x K x C atoms).
 *
 * Blobs are typed arrays; float math is float32 (`Math.fround`) where upstream computes in
 * float, and fp16 values are produced with upstream's ties-away rounding.
 */
import { float32ArrayToHalfTiesAway, float32ToHalfTiesAway, halfTiesAwayOfBits, halfTiesAwayOfFloat } from '../half-ties-away';
import type { SurfacePrecision } from '../surface';
import type { ImgPostExtWeightLayout } from '../profiles';

export type BlobType = 'FLOAT' | 'HALF' | 'INT16' | 'INT8';

export interface WeightBlob {
  type: BlobType;
  count: number;
  /** FLOAT: float32 values; HALF: fp16 bits; INT8 / INT16: integers */
  values: Float32Array | Uint16Array | Int8Array | Int16Array;
}

/**
 * Float kernel weights times one float32 factor per kernel, once or several times in a row (the
 * convolution-with-scale and -with-batch-norm merges of `mergeActivationOperations`), with the
 * products made only when `values` is first read: `translateWtsForDC` reads the factors as it
 * lays the weights out and converts them, so a merged convolution's weights are not written out
 * in float32 first (for ResNet-50, 90 MB of fresh memory per compile). Each product is rounded to
 * float32 in turn, as a Float32Array store of each step would. Immutable: a further factor makes
 * a new blob (graph copies share it, as they share typed arrays).
 */
export class ScaledKernelWeights implements WeightBlob {
  readonly type = 'FLOAT' as const;
  readonly count: number;
  private made: Float32Array | null = null;

  constructor(
    /** the unscaled weights, kernel after kernel */
    readonly source: Float32Array,
    readonly kernels: number,
    readonly perKernel: number,
    /** in order of application, each `kernels` long */
    readonly factors: readonly Float32Array[],
  ) {
    this.count = source.length;
  }

  /** the same weights with `factor` (one per kernel) applied after these */
  times(factor: Float32Array): ScaledKernelWeights {
    return new ScaledKernelWeights(this.source, this.kernels, this.perKernel, [...this.factors, factor]);
  }

  get values(): Float32Array {
    if (this.made) return this.made;
    const out = new Float32Array(this.count);
    for (let k = 0; k < this.kernels; k++) this.kernelInto(k, out.subarray(k * this.perKernel, (k + 1) * this.perKernel));
    this.made = out;
    return out;
  }

  /** kernel `k`'s weights into `out` (`perKernel` long), a view of `values` when it was made */
  kernel(k: number, out: Float32Array): Float32Array {
    if (this.made) return this.made.subarray(k * this.perKernel, (k + 1) * this.perKernel);
    this.kernelInto(k, out);
    return out;
  }

  private kernelInto(k: number, out: Float32Array): void {
    const x = this.source;
    const base = k * this.perKernel;
    const n = this.perKernel;
    if (this.factors.length === 1) {
      const a = this.factors[0]![k]!;
      for (let i = 0; i < n; i++) out[i] = x[base + i]! * a;
    } else if (this.factors.length === 2) {
      const a = this.factors[0]![k]!;
      const b = this.factors[1]![k]!;
      for (let i = 0; i < n; i++) out[i] = f32(x[base + i]! * a) * b;
    } else {
      for (let i = 0; i < n; i++) {
        let v = x[base + i]!;
        for (const f of this.factors) v = f32(v * f[k]!);
        out[i] = v;
      }
    }
  }

  /** stage JSON (stage-json.ts) sees the plain blob */
  toJSON(): WeightBlob {
    return { type: this.type, count: this.count, values: this.values };
  }
}

export function floatBlob(values: Float32Array): WeightBlob {
  return { type: 'FLOAT', count: values.length, values };
}

/** `WeightTrns::WeightDims` */
export interface WeightDims {
  wtSize: number;
  numKernels: number;
  numChannels: number;
  width: number;
  height: number;
  strideX: number;
  strideY: number;
}

export function weightDims(wtSize: number, k: number, c: number, w: number, h: number, sx: number, sy: number): WeightDims {
  return { wtSize, numKernels: k, numChannels: c, width: w, height: h, strideX: sx, strideY: sy };
}

const f32 = Math.fround;

function newLike(type: BlobType, n: number): WeightBlob['values'] {
  switch (type) {
    case 'FLOAT':
      return new Float32Array(n);
    case 'HALF':
      return new Uint16Array(n);
    case 'INT16':
      return new Int16Array(n);
    case 'INT8':
      return new Int8Array(n);
  }
}

/** the compute-precision blob type RT of upstream's templates */
export function computeBlobType(p: SurfacePrecision): BlobType {
  return p === 'INT8' ? 'INT8' : p === 'INT16' ? 'INT16' : 'HALF';
}

/** `RT(value)`: convert one element of an IT blob to RT */
function converter(from: BlobType, to: BlobType): (v: number) => number {
  if (from === to) return (v) => v;
  if (to === 'HALF') {
    if (from === 'FLOAT') return (v) => float32ToHalfTiesAway(v);
    return (v) => float32ToHalfTiesAway(v); // integers are exact in float32 for these ranges
  }
  if (to === 'FLOAT') return (v) => v;
  // float -> int: C++ truncation toward zero; the typed array store wraps
  return (v) => Math.trunc(v);
}

// ------------------------------------------------------------------ quantisation

export interface Quantized {
  blob: WeightBlob;
  /** one scale per kernel (per-kernel mode repeats the one scale) */
  filterScales: number[];
}

/** `perKernelQuantizeWts` / `perFilterQuantizeWts`: q = clamp(floor(w * (1 / s) + 0.5)) */
export function quantizeWeights(src: WeightBlob, G: number, K: number, C: number, RS: number, perFilter: boolean): Quantized {
  if (src instanceof ScaledKernelWeights && src.kernels === G * K && src.perKernel === C * RS) return quantizeScaledWeights(src, perFilter);
  const w = src.values as Float32Array;
  const out = new Int8Array(src.count);
  const kStride = C * RS;
  const filterScales: number[] = [];
  // a kernel's values are contiguous: kernel gk (group g, kernel k) is [gk * kStride, (gk + 1) * kStride);
  // per-kernel mode is one range with one scale
  const ranges = perFilter ? G * K : 1;
  const rangeLength = perFilter ? kStride : G * K * kStride;
  for (let r = 0; r < ranges; r++) {
    const from = r * rangeLength;
    const to = from + rangeLength;
    let max = -3.4028234663852886e38;
    for (let i = from; i < to; i++) max = Math.max(max, Math.abs(w[i]!));
    const scale = f32(max / 127);
    const invScale = f32(1 / scale);
    for (let i = from; i < to; i++) {
      const q = Math.floor(f32(f32(w[i]! * invScale) + 0.5));
      // NaN falls through both tests and stores 0, as Math.max(Math.min(NaN, 127), -128) did
      out[i] = q > 127 ? 127 : q < -128 ? -128 : q;
    }
    if (perFilter) filterScales.push(scale);
    else for (let i = 0; i < G * K; i++) filterScales.push(scale);
  }
  return { blob: { type: 'INT8', count: src.count, values: out }, filterScales };
}

/**
 * `quantizeWeights` of merged weights not yet multiplied out, without writing them out in
 * float32. A kernel's largest |product| is its largest |weight| times the factors' magnitudes
 * (each step rounds to float32, which is monotonic and symmetric), so the scale needs one pass
 * over the source weights; the products are then made value by value as they are quantised.
 * Where a factor is not finite (0 x inf is NaN) every product is made for the maximum. Same
 * values, same scales as `quantizeWeights` of `src.values`.
 */
function quantizeScaledWeights(src: ScaledKernelWeights, perFilter: boolean): Quantized {
  const kernels = src.kernels;
  const n = src.perKernel;
  const x = src.source;
  const factors = src.factors;
  const finite = factors.every((f) => f.every((v) => Number.isFinite(v)));
  const out = new Int8Array(src.count);
  const scratch = new Float32Array(n);
  const filterScales: number[] = [];
  const kernelMax = (k: number): number => {
    let max = -3.4028234663852886e38;
    if (finite) {
      const base = k * n;
      let m = -3.4028234663852886e38;
      for (let i = 0; i < n; i++) m = Math.max(m, Math.abs(x[base + i]!));
      if (n === 0) return max;
      for (const f of factors) m = f32(m * Math.abs(f[k]!));
      return Math.max(max, m);
    }
    const w = src.kernel(k, scratch);
    for (let i = 0; i < n; i++) max = Math.max(max, Math.abs(w[i]!));
    return max;
  };
  const quantize = (k: number, invScale: number): void => {
    const base = k * n;
    if (factors.length === 2) {
      const a = factors[0]![k]!;
      const b = factors[1]![k]!;
      for (let i = 0; i < n; i++) {
        const q = Math.floor(f32(f32(f32(f32(x[base + i]! * a) * b) * invScale) + 0.5));
        out[base + i] = q > 127 ? 127 : q < -128 ? -128 : q;
      }
      return;
    }
    const w = src.kernel(k, scratch);
    for (let i = 0; i < n; i++) {
      const q = Math.floor(f32(f32(w[i]! * invScale) + 0.5));
      out[base + i] = q > 127 ? 127 : q < -128 ? -128 : q;
    }
  };
  if (perFilter) {
    for (let k = 0; k < kernels; k++) {
      const scale = f32(kernelMax(k) / 127);
      quantize(k, f32(1 / scale));
      filterScales.push(scale);
    }
  } else {
    let max = -3.4028234663852886e38;
    for (let k = 0; k < kernels; k++) max = Math.max(max, kernelMax(k));
    const scale = f32(max / 127);
    const invScale = f32(1 / scale);
    for (let k = 0; k < kernels; k++) quantize(k, invScale);
    for (let k = 0; k < kernels; k++) filterScales.push(scale);
  }
  return { blob: { type: 'INT8', count: src.count, values: out }, filterScales };
}

// ------------------------------------------------------------------ layouts

function offset(k: number, c: number, r: number, s: number, d: WeightDims): number {
  if (k >= d.numKernels || c >= d.numChannels || r >= d.height || s >= d.width) return -1;
  return s + d.width * (r + d.height * (c + d.numChannels * k));
}

/** `zeroPadWtsForIMG`: pad the kernels' channels with zeros up to the image input's */
export function zeroPadWtsForIMG(orig: WeightDims, padded: WeightDims, src: WeightBlob): WeightBlob {
  const out = newLike(src.type, padded.wtSize);
  for (let k = 0; k < padded.numKernels; k++)
    for (let c = 0; c < padded.numChannels; c++)
      for (let r = 0; r < padded.height; r++)
        for (let s = 0; s < padded.width; s++) {
          const from = offset(k, c, r, s, orig);
          out[offset(k, c, r, s, padded)] = from >= 0 ? src.values[from]! : 0;
        }
  return { type: src.type, count: padded.wtSize, values: out };
}

/** `padGroupWeights`: a grouped convolution as one convolution whose kernels see all channels */
export function padGroupWeights(orig: WeightDims, grouped: WeightDims, src: WeightBlob, numGroups: number): WeightBlob {
  const out = newLike(src.type, grouped.wtSize);
  const perGroupK = Math.floor(orig.numKernels / numGroups);
  for (let g = 0; g < numGroups; g++)
    for (let k = 0; k < perGroupK; k++)
      for (let c = 0; c < orig.numChannels; c++)
        for (let r = 0; r < orig.height; r++)
          for (let s = 0; s < orig.width; s++) {
            const kk = g * perGroupK + k;
            const dest = offset(kk, g * orig.numChannels + c, r, s, grouped);
            if (dest >= 0) out[dest] = src.values[offset(kk, c, r, s, orig)]!;
          }
  return { type: src.type, count: grouped.wtSize, values: out };
}

/** `preChnlExtWtsForIMG`: fold the kernel width into the channels (C x S -> C', S = 1) */
export function preChnlExtWtsForIMG(orig: WeightDims, ext: WeightDims, src: WeightBlob): WeightBlob | null {
  if (ext.wtSize !== orig.wtSize) return null;
  const out = newLike(src.type, ext.wtSize);
  for (let k = 0; k < orig.numKernels; k++)
    for (let c = 0; c < ext.numChannels; c++)
      for (let r = 0; r < ext.height; r++)
        for (let s = 0; s < ext.width; s++) {
          const is = Math.floor(c / orig.numChannels);
          const ic = c % orig.numChannels;
          const from = is < orig.width && r < orig.height && ic < orig.numChannels ? is + orig.width * (r + orig.height * (ic + orig.numChannels * k)) : -1;
          out[offset(k, c, r, s, ext)] = from >= 0 ? src.values[from]! : 0;
        }
  return { type: src.type, count: ext.wtSize, values: out };
}

const roundUp = (n: number, a: number): number => (n % a ? n + a - (n % a) : n);
const bytesOf = (t: BlobType) => (t === 'INT8' ? 1 : t === 'FLOAT' ? 4 : 2);

interface Limits {
  start: number;
  limit: number;
}
const L = (start: number, limit: number): Limits => ({ start, limit });

/**
 * How far apart nvdla_compiler puts the kernel rows of one post-extension stripe
 * (`execWtTrnsOpsForIMGPostCE`: FULL_ROWS_PER_GROUP = atomic C / pre-extended channels). The CSC reads
 * a stripe as `factor` consecutive rows, so the two layouts agree only where this equals the factor.
 */
export const nvdlaCompilerPostExtRowsApart = (atomicC: number, channels: number): number => Math.floor(atomicC / channels);

/**
 * The kernel row whose weights sit, in nvdla_compiler's post-extended layout, where the CSC reads
 * row p (p = 0 .. R - 1), or -1 where that layout holds no row of this kernel there.
 *
 * The CSC reads super atoms of `ext` rows, stripe s holding rows s x ext .. s x ext + ext - 1
 * (cmod NV_NVDLA_csc.cpp: input line `kernel_atom x post_y_extension`, weights contiguous per
 * stripe). nvdla_compiler (WeightTranslationUnit.h, execWtTrnsOpsForIMGPostCE) writes stripe s
 * from rows s x FULL_ROWS_PER_GROUP + j, FULL_ROWS_PER_GROUP = floor(atomic C / channels), and the
 * rows past the last full stripe from their own place. When floor(atomic C / channels) is not
 * `ext`, rows are skipped and others repeated: LeNet's conv1 on nv_full (20 pre-extended
 * channels, atomic C 64, ext 2) uses rows 0, 1, 3, 4, 4 for rows 0 .. 4.
 */
export function nvdlaCompilerPostExtRows(R: number, ext: number, channels: number, atomicC: number): number[] {
  const fullRows = nvdlaCompilerPostExtRowsApart(atomicC, channels);
  const fullStripes = Math.floor(R / ext);
  const rows: number[] = [];
  for (let p = 0; p < R; p++) {
    const r = p < fullStripes * ext ? Math.floor(p / ext) * fullRows + (p % ext) : p;
    rows.push(r < R ? r : -1);
  }
  return rows;
}

/**
 * `postChnlExtWtsForIMG`: rows grouped by the extension factor, in CONV's atom order; null if not possible.
 * `layout` 'CSC' puts `factor` consecutive kernel rows in a stripe, as the convolution buffer reads them;
 * 'NVDLA_COMPILER' puts them `atomicC / channels` rows apart as nvdla_compiler does (byte-identical to it,
 * and what the hardware reads wrongly wherever that is not `factor`: see `nvdlaCompilerPostExtRows`).
 */
export function postChnlExtWtsForIMG(
  d: WeightDims,
  src: WeightBlob,
  factor: number,
  rt: BlobType,
  atomicK: number,
  atomicC: number,
  cbufWidth: number,
  layout: ImgPostExtWeightLayout,
): WeightBlob | null {
  if (factor === 1) return null;
  const s = d.width;
  const c = d.numChannels;
  const rf = factor;
  const kf = bytesOf(rt) === 1 ? atomicK : atomicK / 2;
  const rfg = Math.floor(d.height / rf);
  const kfg = Math.floor(d.numKernels / kf);
  const rp = d.height % rf;
  const kp = d.numKernels % kf;
  if (c > atomicC || rfg <= 1) return null;
  const ops: { kg: Limits; rg: Limits; s: Limits; k: Limits; r: Limits; c: Limits }[] = [];
  for (let g = 0; g < kfg; g++) {
    if (rfg > 0) ops.push({ kg: L(g, 1), rg: L(0, rfg), s: L(0, s), k: L(0, kf), r: L(0, rf), c: L(0, c) });
    if (rp > 0) ops.push({ kg: L(g, 1), rg: L(0, 1), s: L(0, s), k: L(0, kf), r: L(rfg * rf, rp), c: L(0, c) });
  }
  if (kp > 0) {
    if (rfg > 0) ops.push({ kg: L(kfg, 1), rg: L(0, rfg), s: L(0, s), k: L(0, kp), r: L(0, rf), c: L(0, c) });
    if (rp > 0) ops.push({ kg: L(kfg, 1), rg: L(0, 1), s: L(0, s), k: L(0, kp), r: L(rfg * rf, rp), c: L(0, c) });
  }
  if (!ops.length) return null;
  const total = roundUp(d.wtSize * bytesOf(rt), cbufWidth) / bytesOf(rt);
  const out = newLike(rt, total);
  const conv = converter(src.type, rt);
  // a stripe holds `rf` consecutive kernel rows: the CSC reads them so (cmod NV_NVDLA_csc.cpp, the RTL, nvdla/doc format.rst).
  // nvdla_compiler writes them `atomicC / channels` rows apart (execWtTrnsOpsForIMGPostCE), which is right only when that
  // equals `rf`; elsewhere its convolution skips and repeats kernel rows (a row past the kernel's last is read from the
  // next channel's rows, as upstream's pointer arithmetic does).
  const fullRowsPerGroup = layout === 'CSC' ? rf : nvdlaCompilerPostExtRowsApart(atomicC, c);
  let n = 0;
  for (const op of ops)
    for (let rg = op.rg.start; rg < op.rg.limit; rg++)
      for (let is = op.s.start; is < op.s.limit; is++)
        for (let k = op.kg.start * kf; k < op.kg.start * kf + op.k.limit; k++)
          for (let r = rg * fullRowsPerGroup + op.r.start; r < rg * fullRowsPerGroup + op.r.start + op.r.limit; r++)
            for (let ic = op.c.start; ic < op.c.limit; ic++) out[n++] = conv(src.values[is + d.width * (r + d.height * (ic + d.numChannels * k))]!);
  return { type: rt, count: n, values: out };
}

/** `translateWtsForDC`: the direct-convolution weight layout (prepWtTrnsOpsForDC + execWtTrnsOpsForDC); `deconv`: `translateWtsForDeconv` */
export function translateWtsForDC(d: WeightDims, src: WeightBlob, rt: BlobType, atomicK: number, atomicC: number, cbufWidth: number, deconv = false): WeightBlob {
  const r = d.height;
  const s = d.width;
  const cf = atomicC;
  const cp = d.numChannels % atomicC;
  const cfg = Math.floor(d.numChannels / atomicC);
  const kf = bytesOf(rt) === 1 ? atomicK : atomicK / 2;
  const kp = d.numKernels % kf;
  const kfg = Math.floor(d.numKernels / kf);
  const ops: { kg: Limits; cg: Limits; r: Limits; s: Limits; k: Limits; c: Limits }[] = [];
  for (let g = 0; g < kfg; g++) {
    if (cfg > 0) ops.push({ kg: L(g, 1), cg: L(0, cfg), r: L(0, r), s: L(0, s), k: L(0, kf), c: L(0, cf) });
    if (cp > 0) ops.push({ kg: L(g, 1), cg: L(0, 1), r: L(0, r), s: L(0, s), k: L(0, kf), c: L(cfg * atomicC, cp) });
  }
  if (kp > 0) {
    if (cfg > 0) ops.push({ kg: L(kfg, 1), cg: L(0, cfg), r: L(0, r), s: L(0, s), k: L(0, kp), c: L(0, cf) });
    if (cp > 0) ops.push({ kg: L(kfg, 1), cg: L(0, 1), r: L(0, r), s: L(0, s), k: L(0, kp), c: L(cfg * atomicC, cp) });
  }
  const total = roundUp(d.wtSize * bytesOf(rt), cbufWidth) / bytesOf(rt);
  const out = newLike(rt, total);
  // float32 -> fp16 while moving (no converted copy of the whole blob); otherwise convert every
  // value once, then only move them (the layout is a permutation)
  // merged kernel weights not yet multiplied out: scaled and converted here, kernel by kernel
  const scaled = src instanceof ScaledKernelWeights && rt === 'HALF' && src.kernels === d.numKernels && src.count === d.wtSize ? src : null;
  const floatBits = !scaled && src.type === 'FLOAT' && rt === 'HALF' ? new Int32Array(src.values.buffer, src.values.byteOffset, src.values.length) : null;
  const values = scaled ? scaled.source : floatBits ? src.values : convertAll(src, rt);
  const f0 = scaled?.factors[0];
  const f1 = scaled?.factors[1];
  const factorCount = scaled ? scaled.factors.length : 0;
  let n = 0;
  for (const op of ops) {
    const sl = op.s.limit;
    const rl = op.r.limit;
    const cStride = sl * rl;
    // `execWtTrnsOpsForDeconv`: the same, with the kernel taps in reverse raster order
    const rs = op.r.start;
    const ss = op.s.start;
    for (let cg = op.cg.start; cg < op.cg.limit; cg++)
      for (let rr = rs; rr < op.r.limit; rr++)
        for (let sss = ss; sss < op.s.limit; sss++)
          for (let k = op.kg.start * kf; k < op.kg.start * kf + op.k.limit; k++) {
            const ir = deconv ? op.r.limit - 1 - (rr - rs) : rr;
            const is = deconv ? op.s.limit - 1 - (sss - ss) : sss;
            const c0 = cg * atomicC + op.c.start;
            let at = is + sl * (ir + rl * (c0 + d.numChannels * k));
            if (factorCount === 1) {
              const fk = f0![k]!;
              for (let c = 0; c < op.c.limit; c++, at += cStride) out[n++] = halfTiesAwayOfFloat(values[at]! * fk);
            } else if (factorCount === 2) {
              // a convolution merged with a batch-norm, then a scale (ResNet's)
              const fk = f0![k]!;
              const gk = f1![k]!;
              for (let c = 0; c < op.c.limit; c++, at += cStride) out[n++] = halfTiesAwayOfFloat(f32(values[at]! * fk) * gk);
            } else if (scaled) {
              for (let c = 0; c < op.c.limit; c++, at += cStride) {
                let v = values[at]!;
                for (const f of scaled.factors) v = f32(v * f[k]!);
                out[n++] = halfTiesAwayOfFloat(v);
              }
            } else if (floatBits) for (let c = 0; c < op.c.limit; c++, at += cStride) out[n++] = halfTiesAwayOfBits(floatBits[at]!);
            else for (let c = 0; c < op.c.limit; c++, at += cStride) out[n++] = values[at]!;
          }
  }
  return { type: rt, count: n, values: out };
}

/** a blob's values as the RT type of upstream's templates, converted element by element */
function convertAll(src: WeightBlob, rt: BlobType): ArrayLike<number> {
  if (src.type === rt) return src.values;
  if (src.type === 'FLOAT' && rt === 'HALF') return float32ArrayToHalfTiesAway(src.values as Float32Array);
  const conv = converter(src.type, rt);
  const out = newLike(rt, src.values.length);
  for (let i = 0; i < src.values.length; i++) out[i] = conv(src.values[i]!);
  return out;
}

/**
 * little-endian bytes of a blob as it goes into the loadable: a view of the blob's own memory
 * when it holds that many bytes (blobs are never changed in place), else a zero-padded copy
 */
export function blobBytes(b: WeightBlob, byteLength?: number): Uint8Array {
  const size = byteLength ?? b.values.byteLength;
  if (size <= b.values.byteLength) return new Uint8Array(b.values.buffer, b.values.byteOffset, size);
  const out = new Uint8Array(size);
  out.set(new Uint8Array(b.values.buffer, b.values.byteOffset, b.values.byteLength));
  return out;
}
