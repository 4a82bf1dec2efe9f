/**
 * Numeric kernels with Caffe semantics (see docs/ARCHITECTURE.md, "Numeric kernels"): a forward
 * pass takes a `Kernels` and calls it; hosts make one with `createBrowserKernels`
 * (src/worker/kernels.ts), `createNodeKernels` (src/cli/kernels.ts), `createWasmKernels` (one
 * thread, no host) or `referenceKernels` (plain TypeScript).
 */
export type { Kernels } from './kernels';
export { referenceKernels } from './kernels';
export { createWasmKernels, type WasmKernelOptions } from './wasm-kernels';
export { serveKernelJobs, type ComputeThreadInit } from './board';
export { caffeHeavyKernels, type CaffeHeavyKernels } from './caffe-adapter';
export * from './params';
export {
  channelAffineReference,
  conv2dReference,
  deconv2dReference,
  eltwiseReference,
  innerProductReference,
  lrnReference,
  pool2dReference,
  sgemmReference,
} from './reference';
