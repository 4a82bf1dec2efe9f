// The compute thread of the bundled CLI (dist-cli/chunks/compute-thread.mjs, built by
// scripts/build-cli.mjs next to the chunks whose `new URL('./compute-thread.mjs', import.meta.url)`
// starts it): the same job loop as src/cli/compute-thread.mjs, without tsx.
import { workerData } from 'node:worker_threads';
import { serveKernelJobs, type ComputeThreadInit } from '../core/kernels/board';

serveKernelJobs(workerData as ComputeThreadInit);
