/**
 * The forward pass's kernels (`CaffeKernels`) on core/kernels' WebAssembly SIMD `Kernels`: the
 * heavy layers, and the light ones it has too (pooling, LRN, BatchNorm / Scale / ReLU as a
 * per-channel affine map, Eltwise), so a run spends its time in WebAssembly on every thread.
 *
 * Outputs come from `kernels.alloc`: inside the WebAssembly memory when it is shared (a
 * cross-origin isolated page, Node), so the next layer reads them without a copy; `release`
 * gives them back (the run service does when a new run replaces the last one). The heavy-layer
 * parameter mapping is the one of core/kernels/caffe-adapter.ts, written here again because this
 * adapter also places the outputs.
 */
import type { Kernels } from '../../kernels/kernels';
import { conv2dOutputShape, deconv2dOutputShape, type Conv2dParams as KernelConvParams } from '../../kernels/params';
import type { CaffeKernels, Conv2dParams } from './heavy';

function convParams(p: Conv2dParams): KernelConvParams {
  return {
    batch: p.batch, inChannels: p.inChannels, inHeight: p.inH, inWidth: p.inW, outChannels: p.outChannels,
    kernelH: p.kernelH, kernelW: p.kernelW, strideH: p.strideH, strideW: p.strideW, padH: p.padH, padW: p.padW,
    dilationH: p.dilationH, dilationW: p.dilationW, group: p.group,
  };
}

function checkOut(what: string, p: Conv2dParams, shape: number[]): void {
  if (shape[2] !== p.outH || shape[3] !== p.outW) {
    throw new RangeError(`${what}: the output is ${shape[2]} x ${shape[3]} by the kernels' rule, the layer expects ${p.outH} x ${p.outW}`);
  }
}

export interface FastCaffeKernels extends CaffeKernels {
  /** gives an output of this adapter back to the kernels' memory (other arrays are ignored) */
  release(array: Float32Array): void;
  /** the kernels underneath (threads started, chunks run: for reports and benches) */
  readonly kernels: Kernels;
}

export function fastCaffeKernels(kernels: Kernels): FastCaffeKernels {
  const k = kernels;
  return {
    name: k.backend === 'reference' ? 'reference (core/kernels)' : `${k.backend} x${k.threads}`,
    kernels: k,
    release: (a) => k.free(a),
    conv2d(input, weights, bias, p) {
      const q = convParams(p);
      const shape = conv2dOutputShape(q);
      checkOut('convolution', p, shape);
      const out = k.alloc(shape[0] * shape[1] * shape[2] * shape[3]);
      k.conv2d(q, input, weights, bias, out);
      return out;
    },
    deconv2d(input, weights, bias, p) {
      const q = convParams(p);
      const shape = deconv2dOutputShape(q);
      checkOut('deconvolution', p, shape);
      const out = k.alloc(shape[0] * shape[1] * shape[2] * shape[3]);
      k.deconv2d(q, input, weights, bias, out);
      return out;
    },
    innerProduct(input, weights, bias, p) {
      const out = k.alloc(p.m * p.n);
      k.innerProduct({ batch: p.m, inputSize: p.k, outputSize: p.n, transpose: p.transpose }, input, weights, bias, out);
      return out;
    },
    pool2d(input, p) {
      const out = k.alloc(p.batch * p.channels * p.outHeight * p.outWidth);
      k.pool2d(p, input, out);
      return out;
    },
    lrn(input, p) {
      const out = k.alloc(input.length);
      k.lrn(p, input, out);
      return out;
    },
    channelAffine(input, scale, shift, p) {
      const out = k.alloc(input.length);
      k.channelAffine(p, input, scale, shift, out);
      return out;
    },
    eltwise(a, b, p) {
      const out = k.alloc(a.length);
      k.eltwise(p, a, b, out);
      return out;
    },
  };
}
