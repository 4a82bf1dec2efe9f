/**
 * The worker side of the kernels harness: runs each net's layers (bench/support/kernel-layers.ts)
 * in order on 1 and on 2 threads with the browser kernels, as the model worker would, and reports
 * the best pass.
 */
import { timePass, type BenchLayer, type PassTimes } from '../../bench/support/kernel-layers';
import { createBrowserKernels } from '../../src/worker/kernels';

export interface KernelBenchRequest {
  nets: { key: string; layers: BenchLayer[] }[];
  reps: number;
}

export interface KernelBenchResult {
  backend: string;
  threads: number[];
  /** compute workers that had started when the passes ended */
  started: number;
  nets: { key: string; one: PassTimes; two: PassTimes }[];
}

self.onmessage = async (e: MessageEvent<KernelBenchRequest>) => {
  try {
    const one = createBrowserKernels({ threads: 1 });
    const two = createBrowserKernels({ threads: 2 });
    // let the compute worker start before timing (jobs would run without it, on one thread)
    for (let i = 0; i < 100 && two.threadsStarted() < two.threads - 1; i++) await new Promise((r) => setTimeout(r, 50));
    const nets = e.data.nets.map((n) => ({ key: n.key, one: timePass(one, n.layers, e.data.reps), two: timePass(two, n.layers, e.data.reps) }));
    const result: KernelBenchResult = { backend: two.backend, threads: [one.threads, two.threads], started: two.threadsStarted(), nets };
    one.dispose();
    two.dispose();
    self.postMessage(result);
  } catch (err) {
    self.postMessage({ error: err instanceof Error ? `${err.message}\n${err.stack}` : String(err) });
  }
};
