/**
 * Harness for bench/kernels.ts: runs the heavy layers of a net (convolution, pooling, LRN, inner
 * product) with the browser kernels inside a dedicated worker, as the model worker would.
 * window.__kernelsHarness.run(nets, reps) resolves to the timings (kernels-bench.worker.ts).
 */
import type { KernelBenchRequest, KernelBenchResult } from './kernels-bench.worker';

declare global {
  interface Window {
    __kernelsHarness?: { isolated: boolean; run: (req: KernelBenchRequest) => Promise<KernelBenchResult> };
  }
}

window.__kernelsHarness = {
  isolated: crossOriginIsolated,
  run: (req) =>
    new Promise((resolve, reject) => {
      const w = new Worker(new URL('./kernels-bench.worker.ts', import.meta.url), { type: 'module' });
      w.onmessage = (e: MessageEvent<KernelBenchResult | { error: string }>) => {
        w.terminate();
        if ('error' in e.data) reject(new Error(e.data.error));
        else resolve(e.data);
      };
      w.onerror = (e) => reject(new Error(e.message));
      w.postMessage(req);
    }),
};
