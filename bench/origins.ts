/**
 * Origins figure: decode both origin tables of a 10,000-operator model and build the origin
 * index (op -> ids, id -> ops); and the related-op lookup of one hovered node across two models.
 * The model's tables are built in memory first (not timed). Median of runs.
 * Run with `npm run bench -- origins` (or `npx tsx bench/origins.ts`).
 */
import { decodeOpTable, decodeSourceTable, encodeOpTable, encodeSourceTable } from '../src/core/origin/tables';
import { originIndex, relatedOps, relatedTo } from '../src/core/origin/related';
import { normalize, type OriginSet } from '../src/core/origin/rules';
import { cpus, loadavg } from 'node:os';

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const N = 10_000;
// A source model of 2N operators, optimised into N operators of 1..3 origins each (as passes fuse).
const S = 2 * N;
const sources = new Map<number, string>();
for (let i = 0; i < S; i++) sources.set(i, `model/block_${Math.floor(i / 10)}/layer_${i % 10}/output_tensor`);
const ops = new Map<number, number[]>();
for (let op = 0, i = 0; op < N; op++) {
  const k = 1 + (op % 3);
  ops.set(op, Array.from({ length: k }, (_, j) => (i + j) % S));
  i += 2;
}
const sourceBytes = encodeSourceTable(sources);
const opBytes = encodeOpTable(ops);

const decodeTimes: number[] = [];
let opCount = 0;
for (let r = 0; r < 25; r++) {
  const t0 = performance.now();
  const s = decodeSourceTable(sourceBytes);
  const o = decodeOpTable(opBytes);
  const list: OriginSet[] = [];
  for (const [k, v] of o.table!) list[k] = normalize(v);
  const index = originIndex({ ops: list });
  decodeTimes.push(performance.now() - t0);
  opCount = list.length + (s.table ? 0 : 0) + (index.idOps.size ? 0 : 0);
}

const original = { ops: Array.from({ length: S }, (_, i): OriginSet => [i]) };
const optimised = { ops: [...ops.values()] };
const relTimes: number[] = [];
for (let r = 0; r < 15; r++) {
  const t0 = performance.now();
  relatedOps(original, optimised);
  relTimes.push(performance.now() - t0);
}
const index = originIndex(optimised);
const hoverTimes: number[] = [];
for (let r = 0; r < 1000; r++) {
  const t0 = performance.now();
  relatedTo(original.ops[(r * 37) % S]!, index);
  hoverTimes.push(performance.now() - t0);
}

const dm = median(decodeTimes);
console.log('## Origins: decode tables and build the origin index\n');
console.log('| what | size | median | target |');
console.log('|---|---:|---:|---:|');
console.log(`| decode ONE_source_table + ONE_op_table, build op->ids / id->ops | ${S} sources, ${opCount} operators (${((sourceBytes.length + opBytes.length) / 1024).toFixed(0)} KB) | ${dm.toFixed(2)} ms | < 20 ms (${(20 / dm).toFixed(1)}x headroom) |`);
console.log(`| relatedOps (both directions, whole models) | ${S} x ${optimised.ops.length} operators | ${median(relTimes).toFixed(2)} ms | |`);
console.log(`| hover: related nodes of one node (prebuilt index) | ${optimised.ops.length} operators | ${(median(hoverTimes) * 1000).toFixed(1)} µs | < 16 ms |`);
console.log(`\n(load average ${loadavg()[0]!.toFixed(1)} on ${cpus().length} cores while measuring)`);
