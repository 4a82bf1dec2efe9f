/**
 * Weight arithmetic and layouts of nvdla/sw's `WeightTrns` (WeightTranslationUnit.h), reproduced
 * element for element: int8 quantisation (per kernel, per filter), zero padding and channel
 * pre/post-extension for image convolutions, group padding, and the direct-convolution layout
 * the CONV engine reads (kernel groups x channel groups x R x S x K x C atoms).
 *
 * Blobs are typed arrays; float math is float32 (`Math.fround`) where upstream computes in
 * float, and fp16 values are produced with upstream's ties-away rounding.
 */
import { float32BitsToHalfTiesAwayInto, float32ToHalfTiesAway, halfTiesAwayOfBits } from '../half-ties-away';
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

  /** kernels `k0 .. k0 + count` into `out` (at least `count x perKernel` long), kernel after kernel */
  kernelsInto(k0: number, count: number, out: Float32Array): void {
    if (this.made) {
      out.set(this.made.subarray(k0 * this.perKernel, (k0 + count) * this.perKernel));
      return;
    }
    for (let k = 0; k < count; k++) this.kernelInto(k0 + k, out.subarray(k * this.perKernel, (k + 1) * this.perKernel));
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
    } else if (this.factors.length === 3) {
      // convolution + batch norm + scale (ResNet): three factors
      const a = this.factors[0]![k]!;
      const b = this.factors[1]![k]!;
      const c = this.factors[2]![k]!;
      for (let i = 0; i < n; i++) out[i] = f32(f32(x[base + i]! * a) * b) * c;
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

/** blob objects graph copies share (immutable, with their values made when read) */
export function isSharedWeightBlob(v: unknown): v is ScaledKernelWeights | QuantizedKernelWeights | DirectConvolutionWeights {
  return v instanceof ScaledKernelWeights || v instanceof QuantizedKernelWeights || v instanceof DirectConvolutionWeights;
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

/**
 * Int8 kernel weights quantised from float ones (`perKernelQuantizeWts` / `perFilterQuantizeWts`:
 * q = clamp(floor(w x (1 / s) + 0.5)), each step in float32), made when read: the scales are
 * known (`quantizeWeights` finds them with one pass over the float weights), the int8 values are
 * made kernel by kernel where they are needed, so the direct-convolution layout reads them
 * straight from the float weights (for ResNet-50, 25 MB of fresh memory less per int8 compile).
 * Immutable: graph copies share it.
 */
export class QuantizedKernelWeights implements WeightBlob {
  readonly type = 'INT8' as const;
  private made: Int8Array | null = null;

  constructor(
    /** the float weights, kernel after kernel: plain, or merged ones not yet multiplied out */
    readonly source: Float32Array | ScaledKernelWeights,
    /** the blob's length (values past the kernels are 0) */
    readonly count: number,
    readonly kernels: number,
    readonly perKernel: number,
    /** 1 / scale, in float32, per kernel */
    readonly invScales: Float32Array,
  ) {}

  get values(): Int8Array {
    if (this.made) return this.made;
    const out = new Int8Array(this.count);
    this.kernelsInto(0, this.kernels, out);
    this.made = out;
    return out;
  }

  /** kernels `k0 .. k0 + count` into `out` (at least `count x perKernel` long), kernel after kernel */
  kernelsInto(k0: number, count: number, out: Int8Array): void {
    const n = this.perKernel;
    if (this.made) {
      out.set(this.made.subarray(k0 * n, (k0 + count) * n));
      return;
    }
    const scaled = this.source instanceof ScaledKernelWeights ? this.source : null;
    const scratch = scaled ? new Float32Array(n) : null;
    for (let k = 0; k < count; k++) {
      const kk = k0 + k;
      const w = scaled ? scaled.kernel(kk, scratch!) : (this.source as Float32Array).subarray(kk * n, (kk + 1) * n);
      quantizeKernelInto(w, this.invScales[kk]!, out, k * n);
    }
  }

  /**
   * The float weights and per-kernel factors the int8 values of the first `kernels` kernels are
   * made from, for a layout that quantises each weight as it moves it
   * (`moveDirectConvolutionOpQuantized`): kernel k's value i is
   * q(f32(f32(f32(x[k x perKernel + i] x a[k]) x b[k]) x c[k])), q as `quantizeKernelInto` with
   * `invScales[k]`. A missing factor is 1 (a float32 times 1 is itself, NaN and infinities
   * included). Null when the values were made already, the blob has fewer kernels, or its weights
   * are merged more than three times or are shorter than its kernels: the layout then reads the
   * int8 values kernel group by group.
   */
  quantizedFrom(kernels: number, perKernel: number): QuantizedFrom | null {
    if (this.made || perKernel !== this.perKernel || kernels > this.kernels) return null;
    const scaled = this.source instanceof ScaledKernelWeights ? this.source : null;
    const x = scaled ? scaled.source : (this.source as Float32Array);
    if ((scaled && (scaled.kernels !== this.kernels || scaled.perKernel !== perKernel || scaled.factors.length > 3)) || x.length < this.kernels * perKernel || this.count < this.kernels * perKernel) return null;
    const ones = (): Float32Array => new Float32Array(this.kernels).fill(1);
    const factors = scaled ? scaled.factors : [];
    return { x, a: factors[0] ?? ones(), b: factors[1] ?? ones(), c: factors[2] ?? ones(), invScales: this.invScales };
  }

  /** stage JSON (stage-json.ts) sees the plain blob */
  toJSON(): WeightBlob {
    return { type: this.type, count: this.count, values: this.values };
  }
}

/** `QuantizedKernelWeights.quantizedFrom`: float weights, three factors and 1 / scale per kernel */
interface QuantizedFrom {
  x: Float32Array;
  a: Float32Array;
  b: Float32Array;
  c: Float32Array;
  invScales: Float32Array;
}

function quantizeKernelInto(w: Float32Array, invScale: number, out: Int8Array, at: number): void {
  for (let i = 0; i < w.length; i++) {
    const q = Math.floor(f32(f32(w[i]! * invScale) + 0.5));
    // NaN falls through both tests and stores 0, as Math.max(Math.min(NaN, 127), -128) did
    out[at + i] = q > 127 ? 127 : q < -128 ? -128 : q;
  }
}

/** `perKernelQuantizeWts` / `perFilterQuantizeWts`: the scales now, the int8 values when read (`QuantizedKernelWeights`) */
export function quantizeWeights(src: WeightBlob, G: number, K: number, C: number, RS: number, perFilter: boolean): Quantized {
  if (src instanceof ScaledKernelWeights && src.kernels === G * K && src.perKernel === C * RS) return quantizeScaledWeights(src, perFilter);
  const w = src.values as Float32Array;
  const kStride = C * RS;
  const filterScales: number[] = [];
  const invScales = new Float32Array(G * K);
  // a kernel's values are contiguous: kernel gk (group g, kernel k) is [gk * kStride, (gk + 1) * kStride);
  // per-kernel mode is one range with one scale
  const ranges = perFilter ? G * K : 1;
  const rangeLength = perFilter ? kStride : G * K * kStride;
  for (let r = 0; r < ranges; r++) {
    const from = r * rangeLength;
    const to = from + rangeLength;
    const scale = f32(maxAbs(w, from, to) / 127);
    const invScale = f32(1 / scale);
    if (perFilter) {
      filterScales.push(scale);
      invScales[r] = invScale;
    } else {
      for (let i = 0; i < G * K; i++) filterScales.push(scale);
      invScales.fill(invScale);
    }
  }
  return { blob: new QuantizedKernelWeights(w, src.count, G * K, kStride, invScales), filterScales };
}

/**
 * The largest |w[i]| of `from .. to`, starting from -FLT_MAX, NaN if one is NaN: the fold
 * `max = Math.max(max, Math.abs(w[i]))` of upstream's loop (a NaN makes every later maximum NaN),
 * with a comparison instead of a Math.max call per weight (ResNet-50 int8 reads 25.5 M of them
 * here). |w| is never -0, so the comparison and Math.max agree on zeros.
 */
function maxAbs(w: Float32Array, from: number, to: number): number {
  let max = -3.4028234663852886e38;
  for (let i = from; i < to; i++) {
    const v = Math.abs(w[i]!);
    if (v > max) max = v;
    else if (v !== v) return NaN;
  }
  return max;
}

/**
 * `quantizeWeights` of merged weights not yet multiplied out, without writing them out in
 * float32. A kernel's largest |product| is its largest |weight| times the factors' magnitudes
 * (each step rounds to float32, which is monotonic and symmetric), so the scale needs one pass
 * over the source weights; the products are made value by value when the int8 values are.
 * Where a factor is not finite (0 x inf is NaN) every product is made for the maximum. Same
 * values, same scales as `quantizeWeights` of `src.values`.
 */
function quantizeScaledWeights(src: ScaledKernelWeights, perFilter: boolean): Quantized {
  const kernels = src.kernels;
  const n = src.perKernel;
  const x = src.source;
  const factors = src.factors;
  const finite = factors.every((f) => f.every((v) => Number.isFinite(v)));
  const scratch = new Float32Array(n);
  const filterScales: number[] = [];
  const invScales = new Float32Array(kernels);
  const kernelMax = (k: number): number => {
    if (finite) {
      if (n === 0) return -3.4028234663852886e38;
      let m = maxAbs(x, k * n, (k + 1) * n);
      for (const f of factors) m = f32(m * Math.abs(f[k]!));
      return Math.max(-3.4028234663852886e38, m);
    }
    return maxAbs(src.kernel(k, scratch), 0, n);
  };
  if (perFilter) {
    for (let k = 0; k < kernels; k++) {
      const scale = f32(kernelMax(k) / 127);
      invScales[k] = f32(1 / scale);
      filterScales.push(scale);
    }
  } else {
    let max = -3.4028234663852886e38;
    for (let k = 0; k < kernels; k++) max = Math.max(max, kernelMax(k));
    const scale = f32(max / 127);
    invScales.fill(f32(1 / scale));
    for (let k = 0; k < kernels; k++) filterScales.push(scale);
  }
  return { blob: new QuantizedKernelWeights(src, src.count, kernels, n, invScales), filterScales };
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

interface DirectConvolutionOp {
  kg: Limits;
  cg: Limits;
  r: Limits;
  s: Limits;
  k: Limits;
  c: Limits;
}

/** `translateWtsForDC`: the direct-convolution weight layout (prepWtTrnsOpsForDC + execWtTrnsOpsForDC); `deconv`: `translateWtsForDeconv` */
export function translateWtsForDC(d: WeightDims, src: WeightBlob, rt: BlobType, atomicK: number, atomicC: number, cbufWidth: number, deconv = false): DirectConvolutionWeights {
  return new DirectConvolutionWeights(d, src, rt, atomicK, atomicC, cbufWidth, deconv);
}

/**
 * Weights in the direct-convolution layout (`translateWtsForDC`), laid out when first needed:
 * `values` lays them out once (and keeps them), `writeBytes` lays them out straight into a
 * caller's memory (emit writes them so into the loadable's buffer: ResNet-50's 51 MB of fp16
 * weights are then written once, not made here and copied there). The layout is a permutation
 * of the source's values converted to RT, so either way gives the same values. Immutable, as
 * the source blob is: graph copies share it.
 */
export class DirectConvolutionWeights implements WeightBlob {
  readonly type: BlobType;
  /** the values the layout holds (`values` is longer: rounded up to a convolution-buffer entry, zeros) */
  readonly count: number;
  private readonly ops: DirectConvolutionOp[];
  private readonly kf: number;
  private readonly total: number;
  private made: WeightBlob['values'] | null = null;

  constructor(
    readonly dims: WeightDims,
    readonly source: WeightBlob,
    rt: BlobType,
    private readonly atomicK: number,
    private readonly atomicC: number,
    cbufWidth: number,
    readonly deconv: boolean,
  ) {
    const d = dims;
    this.type = rt;
    const r = d.height;
    const s = d.width;
    const cf = atomicC;
    const cp = d.numChannels % atomicC;
    const cfg = Math.floor(d.numChannels / atomicC);
    const kf = bytesOf(rt) === 1 ? atomicK : atomicK / 2;
    const kp = d.numKernels % kf;
    const kfg = Math.floor(d.numKernels / kf);
    const ops: DirectConvolutionOp[] = [];
    for (let g = 0; g < kfg; g++) {
      if (cfg > 0) ops.push({ kg: L(g, 1), cg: L(0, cfg), r: L(0, r), s: L(0, s), k: L(0, kf), c: L(0, cf) });
      if (cp > 0) ops.push({ kg: L(g, 1), cg: L(0, 1), r: L(0, r), s: L(0, s), k: L(0, kf), c: L(cfg * atomicC, cp) });
    }
    if (kp > 0) {
      if (cfg > 0) ops.push({ kg: L(kfg, 1), cg: L(0, cfg), r: L(0, r), s: L(0, s), k: L(0, kp), c: L(0, cf) });
      if (cp > 0) ops.push({ kg: L(kfg, 1), cg: L(0, 1), r: L(0, r), s: L(0, s), k: L(0, kp), c: L(cfg * atomicC, cp) });
    }
    this.ops = ops;
    this.kf = kf;
    this.total = roundUp(d.wtSize * bytesOf(rt), cbufWidth) / bytesOf(rt);
    let n = 0;
    for (const op of ops) n += (op.cg.limit - op.cg.start) * op.r.limit * op.s.limit * op.k.limit * op.c.limit;
    this.count = n;
  }

  get values(): WeightBlob['values'] {
    if (this.made) return this.made;
    const out = newLike(this.type, this.total);
    this.layOut(sameWidthView(out));
    this.made = out;
    return out;
  }

  /**
   * The little-endian bytes of `blobBytes(this, into.length)` into `into`: the layout, cut to
   * `into` or followed by zeros. Laid out in place when `into` is aligned for RT.
   */
  writeBytes(into: Uint8Array): void {
    const width = bytesOf(this.type);
    const laid = this.count * width;
    if (!this.made && into.length >= laid && into.byteOffset % width === 0) {
      const view = width === 1 ? into : width === 2 ? new Uint16Array(into.buffer, into.byteOffset, this.count) : new Uint32Array(into.buffer, into.byteOffset, this.count);
      this.layOut(view);
      into.fill(0, laid);
      return;
    }
    const bytes = new Uint8Array(this.values.buffer, this.values.byteOffset, this.values.byteLength);
    const n = Math.min(bytes.length, into.length);
    into.set(bytes.subarray(0, n));
    into.fill(0, n);
  }

  /** whether `values` was made (then `writeBytes` copies it) */
  isLaidOut(): boolean {
    return this.made !== null;
  }

  /** the layout into `out` (at least `count` long, same element width as RT) */
  private layOut(out: Uint8Array | Uint16Array | Uint32Array): void {
    const d = this.dims;
    // A kernel group's values (at most `kf` kernels, which every op reads alone) are converted
    // once into a small scratch array (or viewed in place when already RT), then moved: tight
    // loops over one array type each, and no converted or multiplied-out copy of the whole blob.
    const perKernel = d.numChannels * d.height * d.width;
    let n = 0;
    const quantizedFrom = this.type === 'INT8' && this.source instanceof QuantizedKernelWeights ? this.source.quantizedFrom(d.numKernels, perKernel) : null;
    if (quantizedFrom) {
      // float32 (or merged, multiplied as they are read) -> int8 while moving: no int8 copy of a group first
      for (const op of this.ops)
        n = moveDirectConvolutionOpQuantized(out as Uint8Array, n, quantizedFrom, op.kg.start * this.kf, op.cg.start, op.cg.limit, op.r.limit, op.s.limit, op.k.limit, op.c.start, op.c.limit, this.atomicC, perKernel, this.deconv);
      return;
    }
    const group = new KernelGroupReader(this.source, this.type, perKernel, this.kf);
    if (group.floatsToHalf) {
      // float32 (or merged, multiplied out per group) -> fp16 while moving
      for (const op of this.ops) {
        const bits = group.readFloatBits(op.kg.start * this.kf, op.k.limit);
        n = moveDirectConvolutionOpToHalf(out as Uint16Array, n, bits, op.cg.start, op.cg.limit, op.r.limit, op.s.limit, op.k.limit, op.c.start, op.c.limit, this.atomicC, perKernel, this.deconv);
      }
      return;
    }
    for (const op of this.ops) {
      const values = sameWidthView(group.read(op.kg.start * this.kf, op.k.limit));
      n = moveDirectConvolutionOp(out, n, values, op.cg.start, op.cg.limit, op.r.limit, op.s.limit, op.k.limit, op.c.start, op.c.limit, this.atomicC, perKernel, this.deconv);
    }
  }

  /** stage JSON (stage-json.ts) sees the plain blob */
  toJSON(): WeightBlob {
    return { type: this.type, count: this.count, values: this.values };
  }
}

/** the unsigned integer view of a typed array's memory with the same element width (moves copy bits) */
function sameWidthView(a: WeightBlob['values']): Uint8Array | Uint16Array | Uint32Array {
  if (a.BYTES_PER_ELEMENT === 1) return new Uint8Array(a.buffer, a.byteOffset, a.length);
  if (a.BYTES_PER_ELEMENT === 2) return new Uint16Array(a.buffer, a.byteOffset, a.length);
  return new Uint32Array(a.buffer, a.byteOffset, a.length);
}

/**
 * One op of `execWtTrnsOpsForDC` (and `execWtTrnsOpsForDeconv`, the kernel taps in reverse
 * raster order): channel groups x R x S x K x C atoms of kernels `group` (kernel 0 of the op at
 * index 0, `perKernel` apart) into `out` from `n`; returns the next index. Values past the end of
 * `group` (a blob shorter than its dims) are moved as 0, as the typed array store of `undefined`.
 */
function moveDirectConvolutionOp(
  out: Uint8Array | Uint16Array | Uint32Array,
  n: number,
  group: Uint8Array | Uint16Array | Uint32Array,
  cgStart: number,
  cgLimit: number,
  rl: number,
  sl: number,
  kCount: number,
  cStart: number,
  cCount: number,
  atomicC: number,
  perKernel: number,
  deconv: boolean,
): number {
  const cStride = sl * rl;
  for (let cg = cgStart; cg < cgLimit; cg++) {
    const c0 = cg * atomicC + cStart;
    for (let rr = 0; rr < rl; rr++)
      for (let ss = 0; ss < sl; ss++) {
        const ir = deconv ? rl - 1 - rr : rr;
        const is = deconv ? sl - 1 - ss : ss;
        const tap = is + sl * (ir + rl * c0);
        for (let k = 0; k < kCount; k++) {
          let at = tap + perKernel * k;
          if (at + (cCount - 1) * cStride < group.length) for (let c = 0; c < cCount; c++, at += cStride) out[n++] = group[at]!;
          else for (let c = 0; c < cCount; c++, at += cStride) out[n++] = at < group.length ? group[at]! : 0;
        }
      }
  }
  return n;
}

/**
 * `moveDirectConvolutionOp` from float32 bits, each value converted to fp16 (upstream's ties-away
 * rounding) as it moves. The same loops on purpose: with the conversion passed in as a function,
 * the hottest loop of an fp16 compile would make a call per weight (51 M for ResNet-50).
 */
function moveDirectConvolutionOpToHalf(
  out: Uint16Array,
  n: number,
  group: Int32Array,
  cgStart: number,
  cgLimit: number,
  rl: number,
  sl: number,
  kCount: number,
  cStart: number,
  cCount: number,
  atomicC: number,
  perKernel: number,
  deconv: boolean,
): number {
  const cStride = sl * rl;
  for (let cg = cgStart; cg < cgLimit; cg++) {
    const c0 = cg * atomicC + cStart;
    for (let rr = 0; rr < rl; rr++)
      for (let ss = 0; ss < sl; ss++) {
        const ir = deconv ? rl - 1 - rr : rr;
        const is = deconv ? sl - 1 - ss : ss;
        const tap = is + sl * (ir + rl * c0);
        for (let k = 0; k < kCount; k++) {
          let at = tap + perKernel * k;
          if (at + (cCount - 1) * cStride < group.length) for (let c = 0; c < cCount; c++, at += cStride) out[n++] = halfTiesAwayOfBits(group[at]!);
          else for (let c = 0; c < cCount; c++, at += cStride) out[n++] = at < group.length ? halfTiesAwayOfBits(group[at]!) : 0;
        }
      }
  }
  return n;
}

/**
 * `moveDirectConvolutionOp` of int8 weights made when read (`QuantizedKernelWeights`), each one
 * quantised from its float weight and factors as it moves (the values `kernelsInto` makes, as
 * bytes: a negative int8 stored in a Uint8Array keeps its two's-complement bits). Kernels
 * `k0 .. k0 + kCount`, all of them the blob's (`quantizedFrom`). The same loops again on purpose
 * (see `moveDirectConvolutionOpToHalf`): for ResNet-50 int8 this moves 25.5 M weights, and
 * quantising them here spares writing each into a scratch group and reading it back (and, for
 * merged weights, their float products too).
 */
function moveDirectConvolutionOpQuantized(
  out: Uint8Array,
  n: number,
  w: QuantizedFrom,
  k0: number,
  cgStart: number,
  cgLimit: number,
  rl: number,
  sl: number,
  kCount: number,
  cStart: number,
  cCount: number,
  atomicC: number,
  perKernel: number,
  deconv: boolean,
): number {
  const from = k0 * perKernel;
  const { x, a, b, c: fc, invScales } = w;
  const cStride = sl * rl;
  for (let cg = cgStart; cg < cgLimit; cg++) {
    const c0 = cg * atomicC + cStart;
    for (let rr = 0; rr < rl; rr++)
      for (let ss = 0; ss < sl; ss++) {
        const ir = deconv ? rl - 1 - rr : rr;
        const is = deconv ? sl - 1 - ss : ss;
        const tap = is + sl * (ir + rl * c0);
        for (let k = 0; k < kCount; k++) {
          const fa = a[k0 + k]!;
          const fb = b[k0 + k]!;
          const fc3 = fc[k0 + k]!;
          const inv = invScales[k0 + k]!;
          for (let c = 0, at = from + tap + perKernel * k; c < cCount; c++, at += cStride) {
            // NaN (0 x inf) falls through both tests and stores 0, as quantizeKernelInto
            const q = Math.floor(f32(f32(f32(f32(f32(x[at]! * fa) * fb) * fc3) * inv) + 0.5));
            out[n++] = q > 127 ? 127 : q < -128 ? -128 : q;
          }
        }
      }
  }
  return n;
}

/**
 * Kernels `k0 .. k0 + count` of a blob in RT, in the blob's own order: a view when the blob is RT
 * already, else converted (merged weights multiplied out first, float32 to fp16 with upstream's
 * ties-away rounding, float to integer truncating) into a scratch array reused from group to
 * group. The last group read is kept (consecutive ops read the same kernel group).
 */
class KernelGroupReader {
  private readonly floats: Float32Array | null;
  private readonly converted: WeightBlob['values'] | null;
  private lastK0 = -1;
  private lastCount = -1;
  private last: WeightBlob['values'] | null = null;

  constructor(
    private readonly src: WeightBlob,
    private readonly rt: BlobType,
    private readonly perKernel: number,
    maxKernels: number,
  ) {
    const scaled = src instanceof ScaledKernelWeights && src.perKernel === perKernel ? src : null;
    this.scaled = scaled;
    this.quantized = src instanceof QuantizedKernelWeights && src.perKernel === perKernel && rt === 'INT8' ? src : null;
    const viewed = src.type === rt && !scaled && !this.quantized;
    this.floatsToHalf = rt === 'HALF' && (scaled !== null || src.type === 'FLOAT');
    this.floats = scaled ? new Float32Array(maxKernels * perKernel) : null;
    this.converted = viewed || this.floatsToHalf ? null : newLike(rt, maxKernels * perKernel);
  }

  /** int8 weights made when read: quantised group by group into the scratch array */
  private readonly quantized: QuantizedKernelWeights | null;

  private readonly scaled: ScaledKernelWeights | null;
  /** RT is fp16 and the values float32: `readFloatBits`, converted as they move */
  readonly floatsToHalf: boolean;

  /** kernels `k0 .. k0 + count` as float32 bits (merged weights multiplied out into scratch) */
  readFloatBits(k0: number, count: number): Int32Array {
    const from = k0 * this.perKernel;
    const to = (k0 + count) * this.perKernel;
    if (!this.scaled) {
      const v = this.src.values;
      return new Int32Array(v.buffer, v.byteOffset + from * 4, Math.max(0, Math.min(to, v.length) - from));
    }
    if (k0 !== this.lastK0 || count !== this.lastCount) {
      const kernels = Math.max(0, Math.min(count, this.scaled.kernels - k0));
      this.scaled.kernelsInto(k0, kernels, this.floats!);
      this.lastK0 = k0;
      this.lastCount = count;
      this.lastKernels = kernels;
    }
    return new Int32Array(this.floats!.buffer, 0, this.lastKernels * this.perKernel);
  }

  private lastKernels = 0;

  read(k0: number, count: number): WeightBlob['values'] {
    if (k0 === this.lastK0 && count === this.lastCount && this.last) return this.last;
    const from = k0 * this.perKernel;
    const to = (k0 + count) * this.perKernel;
    let result: WeightBlob['values'];
    if (this.quantized) {
      const kernels = Math.max(0, Math.min(count, this.quantized.kernels - k0));
      const into = this.converted!.subarray(0, to - from) as Int8Array;
      this.quantized.kernelsInto(k0, kernels, into);
      // past the quantised kernels (nothing where the dims match the blob): the blob's zeros, then its end
      into.fill(0, kernels * this.perKernel);
      result = into.subarray(0, Math.max(0, Math.min(to, this.quantized.count) - from));
    } else if (!this.converted) result = this.src.values.subarray(from, Math.min(to, this.src.values.length));
    else {
      const into = this.converted.subarray(0, to - from);
      let source: WeightBlob['values'];
      if (this.scaled) {
        const f = this.floats!.subarray(0, to - from);
        const kernels = Math.max(0, Math.min(count, this.scaled.kernels - k0));
        this.scaled.kernelsInto(k0, kernels, f);
        source = f.subarray(0, kernels * this.perKernel);
      } else source = this.src.values.subarray(from, Math.min(to, this.src.values.length));
      convertInto(source, this.scaled ? 'FLOAT' : this.src.type, into, this.rt);
      result = into.subarray(0, source.length);
    }
    this.lastK0 = k0;
    this.lastCount = count;
    this.last = result;
    return result;
  }
}

/** `RT(value)` of every value of `from` into `into` (as long), element by element */
function convertInto(from: WeightBlob['values'], fromType: BlobType, into: WeightBlob['values'], rt: BlobType): void {
  if (fromType === 'FLOAT' && rt === 'HALF') {
    float32BitsToHalfTiesAwayInto(new Int32Array(from.buffer, from.byteOffset, from.length), into as Uint16Array);
    return;
  }
  const conv = converter(fromType, rt);
  for (let i = 0; i < from.length; i++) into[i] = conv(from[i]!);
}

/**
 * little-endian bytes of a blob as it goes into the loadable: a view of the blob's own memory
 * when it holds that many bytes (blobs are never changed in place), else a zero-padded copy
 */
export function blobBytes(b: WeightBlob, byteLength?: number): Uint8Array {
  if (b instanceof DirectConvolutionWeights && byteLength !== undefined && !b.isLaidOut()) {
    const out = new Uint8Array(byteLength);
    b.writeBytes(out);
    return out;
  }
  const size = byteLength ?? b.values.byteLength;
  if (size <= b.values.byteLength) return new Uint8Array(b.values.buffer, b.values.byteOffset, size);
  const out = new Uint8Array(size);
  out.set(new Uint8Array(b.values.buffer, b.values.byteOffset, b.values.byteLength));
  return out;
}
