/**
 * Layout figure: our layered layout against @dagrejs/dagre configured as Netron's grapher.js
 * configures it (nodesep 20, ranksep 20, network-simplex, longest-path above 3,000 nodes, no
 * edge labels), on the synthetic graphs of viewers.md section 11 (node boxes 90-200 x 40-82 px),
 * side by side in one process. Layout call only.
 *
 *   npx tsx bench/layout.ts                  (or npm run bench -- layout)
 *   BENCH_SIZES=1000,3000 BENCH_DAGRE_RUNS=2 npx tsx bench/layout.ts
 *
 * Ours: ten warm-up calls per kind on 2,000 nodes and one at each size, then the median of
 * BENCH_RUNS (9) runs. dagre: one warm-up on a small graph, then the median of
 * BENCH_DAGRE_RUNS (1) runs (it takes seconds). Prints a Markdown
 * table and writes it to bench/results/layout.md.
 */
import dagre from '@dagrejs/dagre';
import { Worker } from 'node:worker_threads';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { layout } from '../src/core/graph/layout';
import type { LayoutInput } from '../src/core/graph/layout-types';
import { syntheticGraph, yardstickInput, type SyntheticKind } from '../src/core/graph/synthetic';

const sizes = (process.env.BENCH_SIZES ?? '1000,3000,10000').split(',').map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 9);
const dagreRuns = Number(process.env.BENCH_DAGRE_RUNS ?? 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
}

/**
 * dagre recurses once per node in its cycle-removal DFS, which overflows Node's default stack
 * from about 3,000 nodes in a chain (Netron reports the same: netron#589, netron#1518). So dagre
 * runs in a worker thread of this process with a 512 MB stack; the time is taken inside it,
 * around the `dagre.layout` call only.
 */
const DAGRE_WORKER = `
const { parentPort } = require('node:worker_threads');
const dagre = require('@dagrejs/dagre');
parentPort.on('message', ({ widths, heights, edgeFrom, edgeTo }) => {
  const n = widths.length;
  const g = new dagre.graphlib.Graph();
  const ranker = n > 3000 ? 'longest-path' : 'network-simplex';
  g.setGraph({ nodesep: 20, ranksep: 20, ranker });
  for (let i = 0; i < n; i++) g.setNode(String(i), { width: widths[i], height: heights[i] });
  for (let e = 0; e < edgeFrom.length; e++) {
    g.setEdge(String(edgeFrom[e]), String(edgeTo[e]), { minlen: 1, weight: 1, width: 0, height: 0, labeloffset: 10, labelpos: 'r' });
  }
  try {
    const t0 = performance.now();
    dagre.layout(g);
    const ms = performance.now() - t0;
    parentPort.postMessage({ ms, width: g.graph().width || 0, height: g.graph().height || 0, ranker });
  } catch (e) {
    parentPort.postMessage({ error: String(e && e.message || e), ranker });
  }
});
`;

interface DagreResult {
  ms: number;
  width: number;
  height: number;
  ranker: string;
  error?: string;
}

const dagreWorker = new Worker(DAGRE_WORKER, {
  eval: true,
  resourceLimits: { stackSizeMb: 512, maxOldGenerationSizeMb: 4096 },
});

function dagreLayout(input: LayoutInput): Promise<DagreResult> {
  return new Promise((resolve, reject) => {
    dagreWorker.once('message', (m: DagreResult) => resolve(m));
    dagreWorker.once('error', reject);
    dagreWorker.postMessage(input);
  });
}

function oursLayout(input: LayoutInput): { ms: number; width: number; height: number } {
  const t0 = performance.now();
  const L = layout(input, { direction: 'TB', nodesep: 20, ranksep: 20 });
  return { ms: performance.now() - t0, width: L.width, height: L.height };
}

const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');

// warm-up: both engines on a small graph first, so neither pays for compilation in the table
// (ours runs for milliseconds, so it gets a few more calls to reach optimized code)
{
  const w = yardstickInput(syntheticGraph('transformer', 300));
  await dagreLayout(w);
  for (const kind of ['resnet', 'transformer'] as SyntheticKind[]) {
    const x = yardstickInput(syntheticGraph(kind, 2000));
    for (let r = 0; r < 10; r++) oursLayout(x);
  }
}

const rows: string[] = [];
let worst = 0;
for (const kind of ['resnet', 'transformer'] as SyntheticKind[]) {
  for (const size of sizes) {
    const graph = syntheticGraph(kind, size);
    const input = yardstickInput(graph);
    oursLayout(input); // warm-up at this size
    const ours: number[] = [];
    let oursBox = { width: 0, height: 0 };
    for (let r = 0; r < runs; r++) {
      const o = oursLayout(input);
      ours.push(o.ms);
      oursBox = o;
    }
    const d: number[] = [];
    let dBox: DagreResult = { ms: 0, width: 0, height: 0, ranker: '' };
    for (let r = 0; r < dagreRuns; r++) {
      const o = await dagreLayout(input);
      dBox = o;
      if (o.error) break;
      d.push(o.ms);
    }
    const om = median(ours);
    const name = kind === 'resnet' ? 'ResNet-like chain + skip every 3' : 'transformer blocks';
    let row: string;
    if (dBox.error) {
      row = `| ${name} | ${int(graph.nodes.length)} | ${int(graph.edges.length)} | ${dBox.ranker} | failed: ${dBox.error} | ${fmt(om)} | - | - | ${int(oursBox.width)} x ${int(oursBox.height)} |`;
    } else {
      const dm = median(d);
      worst = Math.max(worst, om / dm);
      row = `| ${name} | ${int(graph.nodes.length)} | ${int(graph.edges.length)} | ${dBox.ranker} | ${fmt(dm)} | ${fmt(om)} | ${(dm / om).toFixed(0)}x | ${int(dBox.width)} x ${int(dBox.height)} | ${int(oursBox.width)} x ${int(oursBox.height)} |`;
    }
    rows.push(row);
    console.error(row);
  }
}

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const load = os.loadavg().map((x) => x.toFixed(1)).join(' ');
const lines = [
  '## Layout: ours vs dagre (as Netron calls it)',
  '',
  `Node ${process.version}, ${os.cpus().length} x ${cpu}. Load average at the end ${load}. Layout call only; boxes 90-200 x 40-82 px; nodesep 20, ranksep 20, TB.`,
  `dagre ${dagre.version} (in a worker thread with a 512 MB stack): median of ${dagreRuns} run(s) after a warm-up; ours: median of ${runs} runs after warm-up calls.`,
  '',
  '| synthetic graph | nodes | edges | dagre ranker | dagre | ours | speed-up | dagre drawing (px) | ours drawing (px) |',
  '|---|---:|---:|---|---:|---:|---:|---:|---:|',
  ...rows,
  '',
  `Slowest ratio ours/dagre: ${worst.toFixed(3)} (target <= 0.5).`,
];
const md = lines.join('\n');
console.log(md);
const out = join(dirname(fileURLToPath(import.meta.url)), 'results', 'layout.md');
mkdirSync(dirname(out), { recursive: true });
writeFileSync(out, `${md}\n`);
await dagreWorker.terminate();
