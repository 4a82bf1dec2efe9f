/**
 * Partition figures (issue 3): re-partition after a `.part` edit (parse + validate + partition on a
 * model prepared once) for 1,000 and 10,000 operators (budgets 10 ms and 50 ms, worker time), and
 * writing all parts of a ~100 MB model (budget 1 s). Median of 15 runs after a warm-up.
 * Issue 10: a 10,000-operator chain split into 2,501 parts (`MUL=npu`), whose source carries
 * ONE_source_table / ONE_op_table: bytes written (target < 1.5 x source + 2 KB per part), the core
 * path in-process (read + prepare + parse + partition + build and serialise every file), and the
 * whole `npu-studio partition` process (wall time and peak memory through /usr/bin/time when
 * present; the CLI start-up alone is printed beside it).
 * Run with `npm run bench -- partition` (or `npx tsx bench/partition.ts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { alternatingChainModel, layeredModel, synthModel, type SynthOp } from '../src/core/partition/testing';
import { parsePart, partition, preparePartition, writePartition } from '../src/core/partition';
import { BuiltinOperator } from '../src/core/circle/generated/circle/builtin-operator';
import { read } from '../src/core/circle/read';
import { write } from '../src/core/circle/write';

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

// 10,000 operators -> 2,501 parts (issue 10)
{
  const source = write(alternatingChainModel({ operators: 10_000, run: 4, firstRunShortBy: 2, originTables: true }));
  const partText = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\nMUL=npu\n';
  let parts = 0;
  let written = 0;
  const core = () => {
    const prepared = preparePartition(read(source, 'chain.circle'), 'chain.circle');
    const plan = partition(prepared, parsePart(partText, 'chain.part', { model: prepared }).table!);
    const files = writePartition(prepared, plan, { sourceBytes: source }).files;
    parts = plan.parts.length;
    written = files.reduce((a, f) => a + f.bytes.length, 0);
  };
  // wall and CPU time (user + system) of one run: on a shared machine the CPU time says more
  const measure = () => {
    const c = process.cpuUsage();
    const t = performance.now();
    core();
    const cpu = process.cpuUsage(c);
    return { wall: performance.now() - t, cpu: (cpu.user + cpu.system) / 1000 };
  };
  const first = measure();
  const warm = Array.from({ length: 5 }, measure).sort((a, b) => a.wall - b.wall)[2]!;
  const bound = 1.5 * source.length + 2048 * parts;
  lines.push('', '## Partition: 10,000 operators into 2,501 parts (issue 10; targets: < 1 s for the CLI process, files < 1.5 x source + 2 KB/part)', '');
  lines.push('| source | parts | bytes written (all files) | bound | core path, first run (wall / CPU) | core path, median of 5 (wall / CPU) |', '|---:|---:|---:|---:|---:|---:|');
  lines.push(
    `| ${source.length.toLocaleString('en-US')} B | ${parts.toLocaleString('en-US')} | ${written.toLocaleString('en-US')} B (${(written / source.length).toFixed(2)} x) | ${Math.round(bound).toLocaleString('en-US')} B | ${first.wall.toFixed(0)} / ${first.cpu.toFixed(0)} ms | ${warm.wall.toFixed(0)} / ${warm.cpu.toFixed(0)} ms |`,
  );

  // the whole CLI process: bin/npu-studio.cjs running its bundle in dist-cli/
  const dir = mkdtempSync(join(tmpdir(), 'partition-bench-'));
  try {
    writeFileSync(join(dir, 'chain.circle'), source);
    writeFileSync(join(dir, 'chain.part'), partText);
    const timeBin = existsSync('/usr/bin/time') ? '/usr/bin/time' : null;
    const run = (args: string[]) => {
      const cmd = [process.execPath, 'bin/npu-studio.cjs', ...args];
      const t = performance.now();
      const r = timeBin ? spawnSync(timeBin, ['-f', 'TIME %e %M %U %S', ...cmd], { encoding: 'utf8' }) : spawnSync(cmd[0]!, cmd.slice(1), { encoding: 'utf8' });
      const wall = performance.now() - t;
      if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stderr}`);
      const m = /TIME ([\d.]+) (\d+) ([\d.]+) ([\d.]+)/.exec(r.stderr ?? '');
      return { wall: m ? Number(m[1]) * 1000 : wall, rssMB: m ? Number(m[2]) / 1024 : NaN, cpu: m ? (Number(m[3]) + Number(m[4])) * 1000 : NaN };
    };
    const cpuText = (x: { cpu: number }) => (Number.isNaN(x.cpu) ? '' : ` (CPU ${(x.cpu / 1000).toFixed(2)} s)`);
    const startup = run(['partition', '--version']);
    const runs: { wall: number; rssMB: number; cpu: number }[] = [];
    for (let i = 0; i < 3; i++) {
      for (const f of readdirSync(dir)) if (/\.\d{5}_|\.conn\./.test(f)) rmSync(join(dir, f));
      runs.push(run(['partition', '--part_file', 'chain.part', '--input_file', 'chain.circle', '--work_path', dir]));
    }
    const out = readdirSync(dir).filter((f) => /\.\d{5}_|\.conn\./.test(f));
    const bytes = out.reduce((a, f) => a + statSync(join(dir, f)).size, 0);
    const med = runs.slice().sort((a, b) => a.wall - b.wall)[1]!;
    lines.push('', '| CLI process | wall, median of 3 | peak RSS | files | bytes on disk | CLI start-up alone (`partition --version`) |', '|---|---:|---:|---:|---:|---:|');
    lines.push(
      `| \`npu-studio partition\` | ${(med.wall / 1000).toFixed(2)} s${cpuText(med)} | ${Number.isNaN(med.rssMB) ? 'n/a' : `${Math.max(...runs.map((r) => r.rssMB)).toFixed(0)} MB`} | ${out.length.toLocaleString('en-US')} | ${bytes.toLocaleString('en-US')} B | ${(startup.wall / 1000).toFixed(2)} s${cpuText(startup)}, ${Number.isNaN(startup.rssMB) ? 'n/a' : `${startup.rssMB.toFixed(0)} MB`} |`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
console.log(lines.join('\n'));
