/**
 * The forward pass on the WebAssembly kernels (fast-kernels.ts: heavy layers and the light ones
 * the kernels have) against the plain TypeScript layers, blob by blob, on a net that holds every
 * variant the fast path takes: MAX / AVE pooling with padding and ceil rounding, global pooling,
 * LRN across and within channels (beta 0.75 and another), BatchNorm, Scale with and without
 * bias, leaky ReLU, Eltwise SUM with coefficients, PROD and MAX over three inputs, Concat,
 * Dropout, InnerProduct, Softmax.
 */
import { describe, expect, it } from 'vitest';
import { createWasmKernels } from '../../kernels/wasm-kernels';
import { randomBlob } from '../input';
import { inputHeader, netFromText } from '../testing';
import { fastCaffeKernels } from './fast-kernels';
import { referenceKernels } from './heavy';
import { runForward } from './run';
import { elementCount } from './tensor';

const NET = `${inputHeader([2, 6, 11, 11])}
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" batch_norm_param { use_global_stats: true eps: 1e-5 } }
layer { name: "sc" type: "Scale" bottom: "conv" top: "conv" scale_param { bias_term: true } }
layer { name: "relu" type: "ReLU" bottom: "conv" top: "conv" relu_param { negative_slope: 0.1 } }
layer { name: "scn" type: "Scale" bottom: "conv" top: "scn" }
layer { name: "maxp" type: "Pooling" bottom: "conv" top: "maxp" pooling_param { pool: MAX kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "avep" type: "Pooling" bottom: "conv" top: "avep" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
layer { name: "avep2" type: "Pooling" bottom: "scn" top: "avep2" pooling_param { pool: AVE kernel_size: 2 stride: 2 } }
layer { name: "lrn1" type: "LRN" bottom: "maxp" top: "lrn1" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 } }
layer { name: "lrn2" type: "LRN" bottom: "avep" top: "lrn2" lrn_param { local_size: 3 alpha: 0.01 beta: 0.6 k: 2 } }
layer { name: "lrn3" type: "LRN" bottom: "avep2" top: "lrn3" lrn_param { local_size: 3 alpha: 0.5 beta: 0.75 norm_region: WITHIN_CHANNEL } }
layer { name: "sum" type: "Eltwise" bottom: "lrn1" bottom: "lrn2" bottom: "lrn3" top: "sum" eltwise_param { operation: SUM coeff: 0.5 coeff: -1 coeff: 2 } }
layer { name: "prod" type: "Eltwise" bottom: "lrn1" bottom: "lrn2" bottom: "lrn3" top: "prod" eltwise_param { operation: PROD } }
layer { name: "max" type: "Eltwise" bottom: "lrn1" bottom: "lrn2" bottom: "lrn3" top: "max" eltwise_param { operation: MAX } }
layer { name: "cat" type: "Concat" bottom: "sum" bottom: "prod" bottom: "max" top: "cat" }
layer { name: "drop" type: "Dropout" bottom: "cat" top: "cat" dropout_param { dropout_ratio: 0.5 } }
layer { name: "gp" type: "Pooling" bottom: "cat" top: "gp" pooling_param { pool: AVE global_pooling: true } }
layer { name: "fc" type: "InnerProduct" bottom: "cat" top: "fc" inner_product_param { num_output: 5 } }
layer { name: "prob" type: "Softmax" bottom: "fc" top: "prob" }
`;

function values(shape: number[], seed: number, lo: number, hi: number): [number[], number[]] {
  return [shape, Array.from(randomBlob(elementCount(shape), seed, [lo, hi]))];
}

const WEIGHTS = {
  conv: [values([8, 6, 3, 3], 1, -0.4, 0.4), values([8], 2, -0.1, 0.1)],
  bn: [values([8], 3, -0.2, 0.2), values([8], 4, 0.5, 1.5), [[1], [0.9]] as [number[], number[]]],
  sc: [values([8], 5, 0.5, 1.5), values([8], 6, -0.3, 0.3)],
  scn: [values([8], 7, 0.5, 1.5)],
  fc: [values([5, 3 * 8 * 6 * 6], 8, -0.05, 0.05), values([5], 9, -0.1, 0.1)],
};

describe('forward pass on the WebAssembly kernels', () => {
  it('every blob equals the plain TypeScript layers to float32 rounding', async () => {
    const kernels = createWasmKernels({ threads: 1 });
    if (!kernels) throw new Error('no WebAssembly SIMD in this Node');
    const fast = fastCaffeKernels(kernels);
    try {
      const net = netFromText(NET, WEIGHTS);
      const x = randomBlob(2 * 6 * 11 * 11, 11, [-2, 2]);
      const ref = await runForward(net, { inputs: { data: x }, kernels: referenceKernels });
      const got = await runForward(net, { inputs: { data: x }, kernels: fast });
      expect([...got.values.keys()]).toEqual([...ref.values.keys()]);
      const bad: string[] = [];
      for (const [key, r] of ref.values) {
        const g = got.values.get(key)!;
        expect(g.shape).toEqual(r.shape);
        let scale = 0;
        for (const v of r.data) scale = Math.max(scale, Math.abs(v));
        let worst = 0;
        for (let i = 0; i < r.data.length; i++) worst = Math.max(worst, Math.abs(g.data[i]! - r.data[i]!));
        if (worst > 1e-5 * Math.max(scale, 1e-6)) bad.push(`${key}: largest difference ${worst} (values up to ${scale})`);
      }
      expect(bad).toEqual([]);
      // the light layers really went through the kernels: their outputs live in the kernels' memory
      expect(got.kernels).toBe('wasm-simd x1');
      // release gives every output back; a second run reuses the memory and gives the same values
      for (const d of new Set([...got.values.values()].map((t) => t.data))) fast.release(d);
      const again = await runForward(net, { inputs: { data: x }, kernels: fast });
      expect(Array.from(again.values.get('prob')!.data)).toEqual(Array.from(got.values.get('prob')!.data));
    } finally {
      kernels.dispose();
    }
  });
});
