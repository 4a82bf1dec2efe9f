// A compute thread of the CLI's kernels (src/cli/kernels.ts): runs chunks of kernel jobs from the
// shared job board until the kernels are disposed. Plain JavaScript so worker_threads can start
// it directly; tsx's loader (a dependency) brings in the core TypeScript.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { serveKernelJobs } = await import('../core/kernels/board.ts');
serveKernelJobs(workerData);
