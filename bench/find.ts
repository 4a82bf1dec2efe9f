/**
 * Find figure: query time over 10,000-node synthetic graphs (budget: 50 ms, viewers.md
 * section 2), index build time aside. Median of 15 runs per query after a warm-up.
 * Run with `npm run bench -- find` (or `npx tsx bench/find.ts`).
 */
import { buildFindIndex, find } from '../src/core/graph/find';
import { syntheticGraph } from '../src/core/graph/synthetic';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

const queries = ['conv', 'layer12/', 'layer3 matmul', '"layer7/softmax"', '/^layer\\d+\\/q$/', '[Add]', 'float32', '1,64,56,56', '[1,64,56,56]', '56', 'nothing-matches-this'];
const lines = ['## Find: query time over 10,000 nodes (budget 50 ms)', '', '| graph | nodes | index build | query | matches | median query |', '|---|---:|---:|---|---:|---:|'];
for (const kind of ['resnet', 'transformer'] as const) {
  const graph = syntheticGraph(kind, 10_000);
  const t0 = performance.now();
  const index = buildFindIndex(graph);
  const build = performance.now() - t0;
  for (const q of queries) {
    find(index, q);
    const ts: number[] = [];
    let total = 0;
    for (let r = 0; r < 15; r++) {
      const t = performance.now();
      total = find(index, q).total;
      ts.push(performance.now() - t);
    }
    lines.push(`| ${kind} | ${graph.nodes.length.toLocaleString('en-US')} | ${build.toFixed(1)} ms | \`${q.replace(/\|/g, '\\|')}\` | ${total.toLocaleString('en-US')} | ${median(ts).toFixed(2)} ms |`);
  }
}
console.log(lines.join('\n'));
