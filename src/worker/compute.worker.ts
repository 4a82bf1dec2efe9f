/**
 * A compute worker of the browser kernels (src/worker/kernels.ts): runs chunks of kernel jobs from
 * the job board in the shared WebAssembly memory until the kernels are disposed, then closes.
 */
import { serveKernelJobs, type ComputeThreadInit } from '../core/kernels/board';

self.onmessage = (e: MessageEvent<ComputeThreadInit>) => {
  serveKernelJobs(e.data);
  self.close();
};
