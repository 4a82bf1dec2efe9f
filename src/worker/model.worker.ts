/// <reference lib="webworker" />
/**
 * The model worker: parses files, builds graphs, answers detail and find queries, runs nets.
 * Exposed to the UI through Comlink (see ./api.ts). Nothing here touches the DOM.
 *
 * A run's layers go to the WebAssembly SIMD kernels (core/kernels through
 * core/caffe/forward/fast-kernels.ts), made on the first run: compute workers on a shared memory
 * when the page is cross-origin isolated, one thread otherwise (worker/kernels.ts).
 */
import * as Comlink from 'comlink';
import type { ModelWorkerApi } from './api';
import { createModelService } from './service';
import { createBrowserKernels } from './kernels';
import { fastCaffeKernels, type FastCaffeKernels } from '../core/caffe/forward/fast-kernels';

let kernels: FastCaffeKernels | null = null;

Comlink.expose(
  createModelService({
    kernels: async () => (kernels ??= fastCaffeKernels(createBrowserKernels({ onWorkerError: (m) => console.warn(`kernels: ${m}`) }))),
  }) satisfies ModelWorkerApi,
);
