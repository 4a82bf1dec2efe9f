import { readFileSync } from 'node:fs';
import { read } from './src/core/loadable/read';
import { decodeTasks } from './src/core/loadable/tasks';
import { toGraph } from './src/core/loadable/graph';
import { memoryMap } from './src/core/loadable/memory-map';
const b = new Uint8Array(readFileSync('test/fixtures/nvdla/golden/lenet-b64-nv_full-int8-fast-math.nvdla'));
for (let i = 0; i < 15; i++) { const t0 = performance.now(); const d = decodeTasks(read(b, 'x')); const t1 = performance.now(); toGraph(d); const t2 = performance.now(); memoryMap(d); const t3 = performance.now(); if (i > 9) console.log('decode', (t1-t0).toFixed(1), 'graph', (t2-t1).toFixed(1), 'map', (t3-t2).toFixed(1)); }
