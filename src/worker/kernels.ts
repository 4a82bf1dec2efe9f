/**
 * The kernels in the browser: WebAssembly SIMD, with compute workers on a shared memory when the
 * page is cross-origin isolated (COOP/COEP headers, see vite.config.ts), else one thread (the
 * calling worker) on a plain memory, else the plain TypeScript reference kernels. Call it from a
 * worker (the model worker): the kernels block their thread while the compute workers run.
 */
import type { ComputeThreadInit } from '../core/kernels/board';
import { referenceKernels, type Kernels } from '../core/kernels/kernels';
import { createWasmKernels } from '../core/kernels/wasm-kernels';

export interface BrowserKernelOptions {
  /** threads, the calling one included (default: navigator.hardwareConcurrency) */
  threads?: number;
  /** told when a compute worker fails to load (the jobs go on without it) */
  onWorkerError?: (message: string) => void;
}

export function createBrowserKernels(options: BrowserKernelOptions = {}): Kernels {
  const threads = options.threads ?? (typeof navigator !== 'undefined' ? navigator.hardwareConcurrency : 1) ?? 1;
  const spawn = (init: ComputeThreadInit): void => {
    const worker = new Worker(new URL('./compute.worker.ts', import.meta.url), { type: 'module', name: `kernels ${init.thread}` });
    worker.onerror = (e) => options.onWorkerError?.(e.message || 'compute worker failed to start');
    worker.postMessage(init);
  };
  return createWasmKernels({ threads, spawn }) ?? referenceKernels();
}
