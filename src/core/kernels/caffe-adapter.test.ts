import { describe, expect, it } from 'vitest';
import { caffeHeavyKernels } from './caffe-adapter';
import { referenceKernels } from './kernels';
import { conv2dReference, deconv2dReference, innerProductReference } from './reference';
import { mismatches, randomTensor } from './testing';
import { createWasmKernels } from './wasm-kernels';

describe('the Caffe forward pass interface over the kernels', () => {
  const wasm = createWasmKernels({ threads: 1 })!;
  const p = {
    batch: 1, inChannels: 4, inH: 9, inW: 7, outChannels: 6, outH: 5, outW: 4, kernelH: 3, kernelW: 2,
    strideH: 2, strideW: 2, padH: 1, padW: 1, dilationH: 1, dilationW: 1, group: 2,
  };
  const x = randomTensor(4 * 9 * 7, 1);
  const w = randomTensor(6 * 2 * 3 * 2, 2);
  const b = randomTensor(6, 3);

  it('maps the parameters (inH/inW/outH/outW) and returns new arrays of the right length', () => {
    for (const k of [caffeHeavyKernels(wasm), caffeHeavyKernels(referenceKernels())]) {
      const want = new Float32Array(6 * 5 * 4);
      conv2dReference({ ...p, inHeight: 9, inWidth: 7 }, x, w, b, want);
      expect(mismatches(k.conv2d(x, w, b, p), want, null, 1e-5)).toEqual([]);
      const ip = k.innerProduct(x.subarray(0, 12), w.subarray(0, 36), b.subarray(0, 3), { m: 1, k: 12, n: 3, transpose: false });
      const ipWant = new Float32Array(3);
      innerProductReference({ batch: 1, inputSize: 12, outputSize: 3 }, x, w, b, ipWant);
      expect(mismatches(ip, ipWant, null, 1e-5)).toEqual([]);
      const dp = { ...p, inChannels: 6, inH: 5, inW: 4, outChannels: 4, outH: 9, outW: 6 };
      const dw = randomTensor(6 * 2 * 3 * 2, 4);
      const dWant = new Float32Array(4 * 9 * 6);
      deconv2dReference({ ...dp, inHeight: 5, inWidth: 4 }, k.conv2d(x, w, b, p), dw, null, dWant);
      expect(mismatches(k.deconv2d(k.conv2d(x, w, b, p), dw, null, dp), dWant, null, 1e-4)).toEqual([]);
    }
  });

  it("says so when the caller's output size is not Caffe's", () => {
    expect(() => caffeHeavyKernels(wasm).conv2d(x, w, b, { ...p, outH: 4 })).toThrow(/5 x 4 by Caffe's rule, the caller expects 4 x 4/);
  });
});
