/**
 * The kernel interface of the heavy layers (Convolution, Deconvolution, InnerProduct). The
 * forward pass (run.ts) calls these through `CaffeKernels`, so a faster implementation (the
 * WebAssembly-SIMD, multi-core kernels in src/core/kernels) can replace `referenceKernels`
 * without touching the layer code. A kernel may answer synchronously or with a Promise (a
 * multi-core kernel hands work to other workers).
 *
 * Layouts are Caffe's: activations NCHW, convolution weights [out, in/group, kh, kw],
 * deconvolution weights [in, out/group, kh, kw], inner-product weights [N, K] (or [K, N] when
 * `transpose`). Outputs are new arrays; inputs are never written.
 *
 * `referenceKernels` is plain TypeScript written for clarity first (direct loops, no im2col):
 * convolution sums accumulate in the float32 output, as Caffe's float BLAS does; inner products
 * accumulate each dot product in a double and round once.
 */

export interface Conv2dParams {
  batch: number;
  inChannels: number;
  inH: number;
  inW: number;
  outChannels: number;
  outH: number;
  outW: number;
  kernelH: number;
  kernelW: number;
  strideH: number;
  strideW: number;
  padH: number;
  padW: number;
  dilationH: number;
  dilationW: number;
  group: number;
}

export interface InnerProductParams {
  /** rows of the input (product of the axes before `axis`) */
  m: number;
  /** input features per row */
  k: number;
  /** outputs per row */
  n: number;
  /** weights stored [K, N] instead of [N, K] */
  transpose: boolean;
}

export type MaybePromise<T> = T | Promise<T>;

/** Caffe Pooling (MAX or AVE, no mask top) over NCHW; out sizes by Caffe's rule (shapes.ts). */
export interface PoolKernelParams {
  method: 'max' | 'ave';
  batch: number;
  channels: number;
  inHeight: number;
  inWidth: number;
  outHeight: number;
  outWidth: number;
  kernelH: number;
  kernelW: number;
  strideH: number;
  strideW: number;
  padH: number;
  padW: number;
}

/** Caffe LRN over NCHW (ACROSS_CHANNELS, or WITHIN_CHANNEL as Caffe composes it). */
export interface LrnKernelParams {
  region: 'across' | 'within';
  batch: number;
  channels: number;
  height: number;
  width: number;
  size: number;
  alpha: number;
  beta: number;
  k: number;
}

/** y = x * scale[c] + shift[c] over [batch, channels, spatial], then Caffe's ReLU when `relu`. */
export interface AffineKernelParams {
  batch: number;
  channels: number;
  spatial: number;
  relu?: boolean;
  negativeSlope?: number;
}

/** Eltwise of two inputs: SUM (coeffA a + coeffB b), PROD or MAX. */
export interface EltwiseKernelParams {
  op: 'sum' | 'prod' | 'max';
  coeffA?: number;
  coeffB?: number;
}

export interface CaffeKernels {
  /** name shown in run reports, e.g. `reference` or `wasm-simd x2` */
  name: string;
  /** Caffe Convolution forward: [batch, outChannels, outH, outW] */
  conv2d(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: Conv2dParams): MaybePromise<Float32Array>;
  /** Caffe Deconvolution forward (the transpose of conv2d; p.in* is the deconvolution's input) */
  deconv2d(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: Conv2dParams): MaybePromise<Float32Array>;
  /** Caffe InnerProduct forward: [m, n] */
  innerProduct(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: InnerProductParams): MaybePromise<Float32Array>;
  /*
   * Optional faster forms of light layers (the WebAssembly kernels have them). A layer whose
   * kernel is absent runs its plain TypeScript in layers.ts; the results agree to float32
   * rounding (BatchNorm becomes x * s + t with s = 1 / sqrt(var + eps), t = -mean * s).
   */
  pool2d?(input: Float32Array, p: PoolKernelParams): MaybePromise<Float32Array>;
  lrn?(input: Float32Array, p: LrnKernelParams): MaybePromise<Float32Array>;
  channelAffine?(input: Float32Array, scale: Float32Array | null, shift: Float32Array | null, p: AffineKernelParams): MaybePromise<Float32Array>;
  eltwise?(a: Float32Array, b: Float32Array, p: EltwiseKernelParams): MaybePromise<Float32Array>;
  /** a zeroed array where the kernels read it without a copy (light layers' outputs use it too) */
  alloc?(length: number): Float32Array;
  /** gives back an output array these kernels made (the run service does, when a new run replaces the last) */
  release?(array: Float32Array): void;
}

/** Output columns `ow` whose input column `ow*stride - pad + offset` lies in [0, inW). */
function validRange(outSize: number, inSize: number, stride: number, pad: number, offset: number): [number, number] {
  // ow*stride - pad + offset >= 0  and  <= inSize - 1
  const lo = Math.max(0, Math.ceil((pad - offset) / stride));
  const hi = Math.min(outSize, Math.floor((inSize - 1 + pad - offset) / stride) + 1);
  return [lo, Math.max(lo, hi)];
}

function conv2dReference(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: Conv2dParams): Float32Array {
  const { batch, inChannels, inH, inW, outChannels, outH, outW, kernelH, kernelW, strideH, strideW, padH, padW, dilationH, dilationW, group } = p;
  const out = new Float32Array(batch * outChannels * outH * outW);
  const inPerGroup = inChannels / group;
  const outPerGroup = outChannels / group;
  const plane = outH * outW;
  const colRanges: [number, number][] = [];
  for (let kw = 0; kw < kernelW; kw++) colRanges.push(validRange(outW, inW, strideW, padW, kw * dilationW));
  for (let n = 0; n < batch; n++) {
    for (let oc = 0; oc < outChannels; oc++) {
      const g = Math.floor(oc / outPerGroup);
      const o = (n * outChannels + oc) * plane;
      if (bias) out.fill(bias[oc]!, o, o + plane);
      for (let icg = 0; icg < inPerGroup; icg++) {
        const ic = g * inPerGroup + icg;
        const inBase = (n * inChannels + ic) * inH * inW;
        const wBase = ((oc * inPerGroup + icg) * kernelH) * kernelW;
        for (let kh = 0; kh < kernelH; kh++) {
          for (let kw = 0; kw < kernelW; kw++) {
            const w = weights[wBase + kh * kernelW + kw]!;
            if (w === 0) continue;
            const [owLo, owHi] = colRanges[kw]!;
            for (let oh = 0; oh < outH; oh++) {
              const ih = oh * strideH - padH + kh * dilationH;
              if (ih < 0 || ih >= inH) continue;
              const row = inBase + ih * inW - padW + kw * dilationW;
              const orow = o + oh * outW;
              for (let ow = owLo; ow < owHi; ow++) out[orow + ow]! += w * input[row + ow * strideW]!;
            }
          }
        }
      }
    }
  }
  return out;
}

function deconv2dReference(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: Conv2dParams): Float32Array {
  const { batch, inChannels, inH, inW, outChannels, outH, outW, kernelH, kernelW, strideH, strideW, padH, padW, dilationH, dilationW, group } = p;
  const out = new Float32Array(batch * outChannels * outH * outW);
  const inPerGroup = inChannels / group;
  const outPerGroup = outChannels / group;
  for (let n = 0; n < batch; n++) {
    for (let ic = 0; ic < inChannels; ic++) {
      const g = Math.floor(ic / inPerGroup);
      const inBase = (n * inChannels + ic) * inH * inW;
      for (let ocg = 0; ocg < outPerGroup; ocg++) {
        const oc = g * outPerGroup + ocg;
        const oBase = (n * outChannels + oc) * outH * outW;
        const wBase = (ic * outPerGroup + ocg) * kernelH * kernelW;
        for (let kh = 0; kh < kernelH; kh++) {
          for (let kw = 0; kw < kernelW; kw++) {
            const w = weights[wBase + kh * kernelW + kw]!;
            if (w === 0) continue;
            for (let ih = 0; ih < inH; ih++) {
              const oh = ih * strideH - padH + kh * dilationH;
              if (oh < 0 || oh >= outH) continue;
              for (let iw = 0; iw < inW; iw++) {
                const ow = iw * strideW - padW + kw * dilationW;
                if (ow < 0 || ow >= outW) continue;
                out[oBase + oh * outW + ow]! += w * input[inBase + ih * inW + iw]!;
              }
            }
          }
        }
      }
    }
    if (bias) {
      const plane = outH * outW;
      for (let oc = 0; oc < outChannels; oc++) {
        const o = (n * outChannels + oc) * plane;
        const b = bias[oc]!;
        for (let i = 0; i < plane; i++) out[o + i]! += b;
      }
    }
  }
  return out;
}

function innerProductReference(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: InnerProductParams): Float32Array {
  const { m, k, n, transpose } = p;
  const out = new Float32Array(m * n);
  for (let i = 0; i < m; i++) {
    const row = i * k;
    for (let j = 0; j < n; j++) {
      let s = 0;
      if (transpose) for (let t = 0; t < k; t++) s += input[row + t]! * weights[t * n + j]!;
      else {
        const w = j * k;
        for (let t = 0; t < k; t++) s += input[row + t]! * weights[w + t]!;
      }
      out[i * n + j] = bias ? s + bias[j]! : s;
    }
  }
  return out;
}

export const referenceKernels: CaffeKernels = {
  name: 'reference',
  conv2d: conv2dReference,
  deconv2d: deconv2dReference,
  innerProduct: innerProductReference,
};
