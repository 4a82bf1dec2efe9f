/**
 * Partition figures (issue 3): re-partition after a `.part` edit (parse + validate + partition on a
 * model prepared once) for 1,000 and 10,000 operators (budgets 10 ms and 50 ms, worker time), and
 * writing all parts of a ~100 MB model (budget 1 s). Median of 15 runs after a warm-up.
 * Run with `npm run bench -- partition` (or `npx tsx bench/partition.ts`).
 */
import { layeredModel, synthModel, type SynthOp } from '../src/core/partition/testing';
import { parsePart, partition, preparePartition, writePartition } from '../src/core/partition';
import { BuiltinOperator } from '../src/core/circle/generated/circle/builtin-operator';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1]!;
}

function time(f: () => void, runs = 15): number {
  f();
  const ts: number[] = [];
  for (let r = 0; r < runs; r++) {
    const t = performance.now();
    f();
    ts.push(performance.now() - t);
  }
  return median(ts);
}

const edits = [
  ['one backend', ''],
  ['MUL=npu', 'MUL=npu'],
  ['MUL,TANH=npu SUB=dsp', 'MUL=npu\nTANH=npu\nSUB=dsp'],
] as const;

const lines = [
  '## Partition: re-partition after an edit (budgets: 10 ms at 1,000 operators, 50 ms at 10,000)',
  '',
  '| operators | prepare (once) | .part | parts | parse + validate | partition | total |',
  '|---:|---:|---|---:|---:|---:|---:|',
];
for (const n of [1_000, 10_000]) {
  const model = layeredModel(n);
  const t0 = performance.now();
  const prepared = preparePartition(model, 'synthetic.circle');
  const prep = performance.now() - t0;
  for (const [label, body] of edits) {
    const text = `[partition]\nbackends=cpu,npu,dsp\ndefault=cpu\ncomply=opcode\n[OPCODE]\n${body}\n`;
    const table = parsePart(text, 'x.part', { model: prepared }).table!;
    const parts = partition(prepared, table).parts.length;
    const tParse = time(() => parsePart(text, 'x.part', { model: prepared }));
    const tPart = time(() => partition(prepared, table));
    const tTotal = time(() => partition(prepared, parsePart(text, 'x.part', { model: prepared }).table!));
    lines.push(`| ${n.toLocaleString('en-US')} | ${prep.toFixed(1)} ms | ${label} | ${parts.toLocaleString('en-US')} | ${tParse.toFixed(2)} ms | ${tPart.toFixed(2)} ms | ${tTotal.toFixed(2)} ms |`);
  }
}

// ~100 MB model: 100 operators, each with a 1 MB float32 constant
{
  const ops: SynthOp[] = [];
  for (let i = 0; i < 100; i++) ops.push({ code: i % 2 ? BuiltinOperator.MUL : BuiltinOperator.ADD, args: [i === 0 ? { input: 0 } : { op: i - 1 }, { const: i }] });
  const model = synthModel({ inputs: 1, ops, size: 262_144 });
  const bytes = model.buffers.reduce((a, b) => a + (b.data?.length ?? 0), 0);
  const prepared = preparePartition(model, 'big.circle');
  const table = parsePart('[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMUL=npu\n', 'b.part').table!;
  const plan = partition(prepared, table);
  let written = 0;
  const t = time(() => {
    written = writePartition(prepared, plan).files.reduce((a, f) => a + f.bytes.length, 0);
  }, 5);
  lines.push('', '## Partition: writing all parts of a large model (budget 1 s)', '', '| model data | parts | bytes written | time |', '|---:|---:|---:|---:|');
  lines.push(`| ${(bytes / 1e6).toFixed(1)} MB | ${plan.parts.length} | ${(written / 1e6).toFixed(1)} MB | ${t.toFixed(0)} ms |`);
}
console.log(lines.join('\n'));
