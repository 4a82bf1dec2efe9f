/**
 * The kernels behind the heavy-layer interface of the Caffe forward pass
 * (src/core/caffe/forward/heavy.ts: `CaffeKernels`, outputs returned as new arrays). Typed
 * structurally here so that core/kernels does not depend on core/caffe; the compiler checks the
 * fit where the forward pass receives it.
 *
 * Outputs are plain new Float32Arrays, as that interface asks, so every call copies its input
 * into the kernels' memory and its output back out (a few ms per ResNet-50 pass); a forward pass
 * that allocates its blobs with `kernels.alloc` avoids both copies.
 */
import type { Kernels } from './kernels';
import { conv2dOutputShape, deconv2dOutputShape, type Conv2dParams } from './params';

export interface CaffeConvParams {
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

export interface CaffeInnerProductParams {
  m: number;
  k: number;
  n: number;
  transpose: boolean;
}

export interface CaffeHeavyKernels {
  name: string;
  conv2d(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: CaffeConvParams): Float32Array;
  deconv2d(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: CaffeConvParams): Float32Array;
  innerProduct(input: Float32Array, weights: Float32Array, bias: Float32Array | null, p: CaffeInnerProductParams): Float32Array;
}

function convParams(p: CaffeConvParams): Conv2dParams {
  return {
    batch: p.batch, inChannels: p.inChannels, inHeight: p.inH, inWidth: p.inW, outChannels: p.outChannels,
    kernelH: p.kernelH, kernelW: p.kernelW, strideH: p.strideH, strideW: p.strideW, padH: p.padH, padW: p.padW,
    dilationH: p.dilationH, dilationW: p.dilationW, group: p.group,
  };
}

function checkOut(what: string, p: CaffeConvParams, shape: number[]): void {
  if (shape[2] !== p.outH || shape[3] !== p.outW) {
    throw new RangeError(`${what}: the output is ${shape[2]} x ${shape[3]} by Caffe's rule, the caller expects ${p.outH} x ${p.outW}`);
  }
}

export function caffeHeavyKernels(kernels: Kernels): CaffeHeavyKernels {
  return {
    name: kernels.backend === 'reference' ? 'reference' : `${kernels.backend} x${kernels.threads}`,
    conv2d(input, weights, bias, p) {
      const q = convParams(p);
      const shape = conv2dOutputShape(q);
      checkOut('convolution', p, shape);
      const out = new Float32Array(shape[0] * shape[1] * shape[2] * shape[3]);
      kernels.conv2d(q, input, weights, bias, out);
      return out;
    },
    deconv2d(input, weights, bias, p) {
      const q = convParams(p);
      const shape = deconv2dOutputShape(q);
      checkOut('deconvolution', p, shape);
      const out = new Float32Array(shape[0] * shape[1] * shape[2] * shape[3]);
      kernels.deconv2d(q, input, weights, bias, out);
      return out;
    },
    innerProduct(input, weights, bias, p) {
      const out = new Float32Array(p.m * p.n);
      kernels.innerProduct({ batch: p.m, inputSize: p.k, outputSize: p.n, transpose: p.transpose }, input, weights, bias, out);
      return out;
    },
  };
}
