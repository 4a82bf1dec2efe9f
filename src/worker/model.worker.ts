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
import { formats } from '../core/document';

let kernels: FastCaffeKernels | null = null;

Comlink.expose(
  createModelService({
    kernels: async () => (kernels ??= fastCaffeKernels(createBrowserKernels({ onWorkerError: (m) => console.warn(`kernels: ${m}`) }))),
  }) satisfies ModelWorkerApi,
);

// The studio starts this worker at its first idle moment (ui/main.tsx), before any file is
// dropped: the formats' code (loaded on a format's first open) is fetched and compiled now, so
// the first open of each format does not wait for it. A failure here is the open's to report.
setTimeout(() => {
  for (const f of formats) f.load().catch(() => {});
}, 0);
