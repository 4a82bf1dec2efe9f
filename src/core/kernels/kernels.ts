/**
 * The kernel interface a forward pass calls, and its plain TypeScript implementation.
 *
 * Conventions shared by both implementations:
 * - tensors are dense float32 NCHW arrays; outputs are written, never allocated;
 * - weights are treated as immutable: the WebAssembly kernels keep a packed copy of each weight
 *   array (keyed by its buffer, offset and length) the first time it is used, so pass the same
 *   array every run and call `forget` if its values change;
 * - `alloc` gives arrays the kernels read and write in place (inside the WebAssembly memory
 *   when that memory is shared and views stay valid); any other Float32Array works too, at the
 *   cost of a copy in and out per call.
 */
import type { AffineParams, Conv2dParams, Deconv2dParams, EltwiseParams, GemmParams, InnerProductParams, LrnParams, Pool2dParams } from './params';
import {
  channelAffineReference,
  conv2dReference,
  eltwiseReference,
  deconv2dReference,
  innerProductReference,
  lrnReference,
  pool2dReference,
  sgemmReference,
} from './reference';

export interface Kernels {
  /** 'wasm-simd': the WebAssembly module; 'reference': plain TypeScript (no WebAssembly SIMD here) */
  readonly backend: 'wasm-simd' | 'reference';
  /** threads that run the heavy layers (the calling one included) */
  readonly threads: number;
  /** A zeroed array of `length` floats, placed where the kernels use it without copying. */
  alloc(length: number): Float32Array;
  /** Gives back an array from `alloc` (other arrays are ignored). */
  free(array: Float32Array): void;
  sgemm(p: GemmParams, a: Float32Array, b: Float32Array, c: Float32Array): void;
  conv2d(p: Conv2dParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void;
  deconv2d(p: Deconv2dParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void;
  innerProduct(p: InnerProductParams, input: Float32Array, weights: Float32Array, bias: Float32Array | null, output: Float32Array): void;
  pool2d(p: Pool2dParams, input: Float32Array, output: Float32Array): void;
  lrn(p: LrnParams, input: Float32Array, output: Float32Array): void;
  /** BatchNorm / Scale / Bias / ReLU as one pass: y = x * scale[c] + shift[c] (null: 1 / 0), ReLU if asked; output may be the input. */
  channelAffine(p: AffineParams, input: Float32Array, scale: Float32Array | null, shift: Float32Array | null, output: Float32Array): void;
  /** Eltwise of two inputs (output.length values; output may be either input). */
  eltwise(p: EltwiseParams, a: Float32Array, b: Float32Array, output: Float32Array): void;
  /** Compute threads that have started serving jobs (they start asynchronously; 0 for one thread). */
  threadsStarted(): number;
  /** Chunks of work the compute threads (not the calling one) have run so far. */
  helperChunks(): number;
  /** Drops the packed copy of these weights (after their values changed, or to save memory). */
  forget(weights: Float32Array): void;
  /** Stops the compute threads and lets the memory go; the object must not be used afterwards. */
  dispose(): void;
}

/** The plain TypeScript kernels (reference.ts) behind the same interface: one thread, no packing. */
export function referenceKernels(): Kernels {
  return {
    backend: 'reference',
    threads: 1,
    alloc: (length) => new Float32Array(length),
    free: () => {},
    sgemm: sgemmReference,
    conv2d: conv2dReference,
    deconv2d: deconv2dReference,
    innerProduct: innerProductReference,
    pool2d: pool2dReference,
    lrn: lrnReference,
    channelAffine: channelAffineReference,
    eltwise: eltwiseReference,
    threadsStarted: () => 0,
    helperChunks: () => 0,
    forget: () => {},
    dispose: () => {},
  };
}
