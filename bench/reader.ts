/**
 * Reader figure: open a 100 MB circle file (large constant buffers) to its summary.
 * Builds the file in memory first (not timed), then times read + summarize, median of runs.
 * Run with `npm run bench` (or `npx tsx bench/reader.ts`).
 */
import { read } from '../src/core/circle/read';
import { write } from '../src/core/circle/write';
import { summarize } from '../src/core/circle/graph';
import { resnetLikeCircle } from '../test/support/circle-synthetic';

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const model = resnetLikeCircle({ operators: 3000, padBytes: 100 * 1024 * 1024 });
const bytes = write(model);
const mb = bytes.length / 1024 / 1024;

const times: number[] = [];
let ops = 0;
for (let i = 0; i < 7; i++) {
  const t0 = performance.now();
  const m = read(bytes, 'big.circle');
  const s = summarize(m, 'big.circle');
  times.push(performance.now() - t0);
  ops = s.graphs[0]!.stats.nodes;
}
const ms = median(times);
console.log('## Reader: open a large circle file to its summary\n');
console.log('| file | operators | read + summary (median of 7) | target |');
console.log('|---|---:|---:|---:|');
console.log(`| ${mb.toFixed(1)} MB synthetic (constant buffers) | ${ops} | ${ms.toFixed(1)} ms | < 150 ms (${(150 / ms).toFixed(1)}x headroom) |`);
