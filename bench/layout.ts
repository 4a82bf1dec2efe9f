/**
 * Layout figure: our layered layout against @dagrejs/dagre configured as Netron's grapher.js
 * configures it (nodesep 20, ranksep 20, network-simplex, longest-path above 3,000 nodes, no
 * edge labels), on the synthetic graphs of viewers.md section 11 (node boxes 90-200 x 40-82 px),
 * side by side in one process. Layout call only.
 *
 *   npx tsx bench/layout.ts                  (or npm run bench -- layout)
 *   BENCH_SIZES=1000,3000 BENCH_DAGRE_RUNS=2 npx tsx bench/layout.ts
 *
 * Ours: one warm-up, then the median of BENCH_RUNS (5) runs. dagre: one warm-up on a small
 * graph, then the median of BENCH_DAGRE_RUNS (1) runs (it takes seconds). Prints a Markdown
 * table and writes it to bench/results/layout.md.
 */
import dagre from '@dagrejs/dagre';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import os from 'node:os';
import { layout } from '../src/core/graph/layout';
import type { LayoutInput } from '../src/core/graph/layout-types';
import { syntheticGraph, yardstickInput, type SyntheticKind } from '../src/core/graph/synthetic';

const sizes = (process.env.BENCH_SIZES ?? '1000,3000,10000').split(',').map(Number);
const runs = Number(process.env.BENCH_RUNS ?? 5);
const dagreRuns = Number(process.env.BENCH_DAGRE_RUNS ?? 1);

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
}

function dagreLayout(input: LayoutInput): { ms: number; width: number; height: number; ranker: string } {
  const n = input.widths.length;
  const g = new dagre.graphlib.Graph();
  const ranker = n > 3000 ? 'longest-path' : 'network-simplex';
  g.setGraph({ nodesep: 20, ranksep: 20, ranker });
  for (let i = 0; i < n; i++) g.setNode(String(i), { width: input.widths[i], height: input.heights[i] });
  for (let e = 0; e < input.edgeFrom.length; e++) {
    g.setEdge(String(input.edgeFrom[e]), String(input.edgeTo[e]), { minlen: 1, weight: 1, width: 0, height: 0, labeloffset: 10, labelpos: 'r' });
  }
  const t0 = performance.now();
  dagre.layout(g);
  const ms = performance.now() - t0;
  const label = g.graph();
  return { ms, width: label.width ?? 0, height: label.height ?? 0, ranker };
}

function oursLayout(input: LayoutInput): { ms: number; width: number; height: number } {
  const t0 = performance.now();
  const L = layout(input, { direction: 'TB', nodesep: 20, ranksep: 20 });
  return { ms: performance.now() - t0, width: L.width, height: L.height };
}

const fmt = (ms: number): string => (ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`);
const int = (x: number): string => Math.round(x).toLocaleString('en-US');

// warm-up: both engines on a small graph first, so neither pays for compilation in the table
{
  const w = yardstickInput(syntheticGraph('transformer', 300));
  dagreLayout(w);
  oursLayout(w);
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
    let dBox = { width: 0, height: 0, ranker: '' };
    for (let r = 0; r < dagreRuns; r++) {
      const o = dagreLayout(input);
      d.push(o.ms);
      dBox = o;
    }
    const dm = median(d);
    const om = median(ours);
    worst = Math.max(worst, om / dm);
    const row = `| ${kind === 'resnet' ? 'ResNet-like chain + skip every 3' : 'transformer blocks'} | ${int(graph.nodes.length)} | ${int(graph.edges.length)} | ${dBox.ranker} | ${fmt(dm)} | ${fmt(om)} | ${(dm / om).toFixed(0)}x | ${int(dBox.width)} x ${int(dBox.height)} | ${int(oursBox.width)} x ${int(oursBox.height)} |`;
    rows.push(row);
    console.error(row);
  }
}

const cpu = os.cpus()[0]?.model.trim() ?? 'unknown CPU';
const lines = [
  '## Layout: ours vs dagre (as Netron calls it)',
  '',
  `Node ${process.version}, ${os.cpus().length} x ${cpu}. Layout call only; boxes 90-200 x 40-82 px; nodesep 20, ranksep 20, TB.`,
  `dagre ${dagre.version}: median of ${dagreRuns} run(s) after a warm-up; ours: median of ${runs} runs after a warm-up.`,
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
