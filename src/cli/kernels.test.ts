import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conv2dOutputShape, poolOutputSize, type Conv2dParams } from '../core/kernels/params';
import { conv2dReference, deconv2dReference, innerProductReference, pool2dReference } from '../core/kernels/reference';
import { absolute, mismatches, randomTensor } from '../core/kernels/testing';
import { createNodeKernels } from './kernels';

// Two threads through worker_threads: the job board, chunk claiming and the shared memory as the
// CLI uses them. Jobs also complete without the helper (the caller takes every chunk), so the
// helper is awaited first, or these tests would pass on one thread.
const errors: Error[] = [];
const kernels = createNodeKernels({ threads: 2, onThreadError: (e) => errors.push(e) });

beforeAll(async () => {
  for (let i = 0; i < 200 && kernels.threadsStarted() < 1; i++) await new Promise((r) => setTimeout(r, 50));
}, 15_000);
afterAll(() => kernels.dispose());

describe('kernels on two threads (Node worker_threads)', () => {
  it('the compute thread started', () => {
    expect(errors).toEqual([]);
    expect(kernels.backend).toBe('wasm-simd');
    expect(kernels.threads).toBe(2);
    expect(kernels.threadsStarted()).toBe(1);
  });

  it('convolution and deconvolution split over threads equal the reference', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 70 }), fc.integer({ min: 3, max: 30 }),
        fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 }), fc.integer({ min: 0, max: 1 }), fc.integer(),
        (group, cinG, coutG, hw, kernel, stride, pad, seed) => {
          const p: Conv2dParams = {
            batch: 1, inChannels: group * cinG, inHeight: hw, inWidth: hw + 5, outChannels: group * coutG, kernelH: kernel, kernelW: kernel,
            strideH: stride, strideW: stride, padH: pad, padW: pad, dilationH: 1, dilationW: 1, group, relu: seed % 2 === 0,
          };
          const [, c, h, w] = conv2dOutputShape(p);
          if (h < 1 || w < 1) return;
          const x = randomTensor(p.inChannels * hw * (hw + 5), seed);
          const wt = randomTensor(c * cinG * kernel * kernel, seed + 1);
          const b = randomTensor(c, seed + 2);
          const want = new Float32Array(c * h * w);
          const bound = new Float32Array(want.length);
          conv2dReference(p, x, wt, b, want);
          conv2dReference({ ...p, relu: false }, absolute(x), absolute(wt), absolute(b), bound);
          const got = kernels.alloc(want.length);
          kernels.conv2d(p, x, wt, b, got);
          expect(mismatches(got, want, bound, 1e-5)).toEqual([]);
          kernels.free(got);
          // the same weights as a deconvolution of the input's shape (weights read as [in, out/g, k, k])
          const d = { ...p, inChannels: p.outChannels, outChannels: p.inChannels, inHeight: h, inWidth: w };
          const dx = randomTensor(d.inChannels * h * w, seed + 3);
          const dw = randomTensor(d.inChannels * (d.outChannels / group) * kernel * kernel, seed + 4);
          const oh = stride * (h - 1) + kernel - 2 * pad;
          const ow = stride * (w - 1) + kernel - 2 * pad;
          if (oh < 1 || ow < 1) return;
          const dwant = new Float32Array(d.outChannels * oh * ow);
          const dbound = new Float32Array(dwant.length);
          deconv2dReference(d, dx, dw, null, dwant);
          deconv2dReference({ ...d, relu: false }, absolute(dx), absolute(dw), null, dbound);
          const dgot = new Float32Array(dwant.length);
          kernels.deconv2d(d, dx, dw, null, dgot);
          expect(mismatches(dgot, dwant, dbound, 1e-5)).toEqual([]);
        }),
      { numRuns: 60 },
    );
    // 60 cases of up to 120x70 channels through the plain reference: seconds on an idle machine,
    // over half a minute when the two cores are shared with other jobs
  }, 180_000);

  it('pooling and inner product split over threads equal the reference', () => {
    const x = randomTensor(96 * 29 * 31, 5);
    const p = { method: 'max' as const, batch: 1, channels: 96, inHeight: 29, inWidth: 31, outHeight: poolOutputSize(29, 3, 2, 0), outWidth: poolOutputSize(31, 3, 2, 0), kernelH: 3, kernelW: 3, strideH: 2, strideW: 2, padH: 0, padW: 0 };
    const want = new Float32Array(96 * p.outHeight * p.outWidth);
    const got = want.slice().fill(NaN);
    pool2dReference(p, x, want);
    kernels.pool2d(p, x, got);
    expect(mismatches(got, want, null, 0)).toEqual([]);
    const ip = { batch: 3, inputSize: 700, outputSize: 333 };
    const xi = randomTensor(3 * 700, 6);
    const wi = randomTensor(700 * 333, 7);
    const yi = new Float32Array(3 * 333);
    const ref = new Float32Array(3 * 333);
    const bound = new Float32Array(3 * 333);
    innerProductReference(ip, xi, wi, null, ref);
    innerProductReference(ip, absolute(xi), absolute(wi), null, bound);
    kernels.innerProduct(ip, xi, wi, null, yi);
    expect(mismatches(yi, ref, bound, 1e-5)).toEqual([]);
  });

  it('the compute thread took chunks of the work (not only the caller)', () => {
    // the jobs above had dozens of chunks each; the helper spins between them, so it took some
    expect(kernels.helperChunks()).toBeGreaterThan(0);
  });
});
