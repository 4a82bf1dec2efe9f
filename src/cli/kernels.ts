/**
 * The kernels for Node (CLI, benches): WebAssembly SIMD on every core, compute threads from
 * node:worker_threads each running core's `serveKernelJobs` (compute-thread.mjs). Core stays free
 * of Node APIs: this file is the whole host.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { ComputeThreadInit } from '../core/kernels/board';
import { referenceKernels, type Kernels } from '../core/kernels/kernels';
import { createWasmKernels } from '../core/kernels/wasm-kernels';

export interface NodeKernelOptions {
  /** threads, the calling one included (default: every core, os.availableParallelism()) */
  threads?: number;
  /** told when a compute thread fails to start or dies (the jobs go on without it) */
  onThreadError?: (error: Error) => void;
}

export function createNodeKernels(options: NodeKernelOptions = {}): Kernels {
  const threads = options.threads ?? availableParallelism();
  const spawn = (init: ComputeThreadInit): void => {
    const worker = new Worker(new URL('./compute-thread.mjs', import.meta.url), { workerData: init });
    // a compute thread sleeps in Atomics.wait between jobs; it must not keep the process alive
    worker.unref();
    worker.on('error', (e) => options.onThreadError?.(e));
  };
  return createWasmKernels({ threads, spawn }) ?? referenceKernels();
}
