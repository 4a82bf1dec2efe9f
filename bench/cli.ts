/**
 * Command-line figures (issue 10): the installed `npu-studio` command as a whole process (what a
 * shell or a script pays: bin/npu-studio.cjs run as an executable, its bundle in dist-cli/), side by
 * side in one run with
 * - bare `node -e 0`: the floor every Node command pays, whatever it does;
 * - the same command run the way the bin ran it before the bundle (tsx compiling src/cli/*.ts at
 *   every start), and through `npx` (which adds npm's own start-up);
 * - AOSP's parse_systrace.py on the same file, and a bare `python3 -c pass`, only when
 *   AOSP_PARSE_SYSTRACE points at a copy of AOSP's frameworks/ml/nn/tools/systrace_parser/
 *   parse_systrace.py (its code is not part of this project); otherwise the table says so.
 * Inputs: omr1, AOSP's own test capture, rebuilt as the 3.8 MB HTML systrace writes
 * (test/support/systrace-capture.ts); the 10,000-operator chain of bench/partition.ts (with origin
 * tables, 2.97 MB) split into 2,501 parts (`MUL=npu`) in a fresh work folder each time. Every
 * run's output is checked (omr1 against its golden, the partition's listing and file count).
 *
 * Each command runs ROUNDS times (the partition PARTITION_ROUNDS times), the rounds interleaving
 * all commands so that on a shared machine each sees the same load. One run gives both figures:
 * bash around the command reads the wall clock before and after it (EPOCHREALTIME) and the
 * command's CPU time, user + system, from `times`. Medians (and the minimum wall time) are
 * printed; on a loaded machine wall time grows with the queue for the cores, CPU time much less,
 * so the CPU column is the one to compare, with Node's own floor beside it.
 * Targets: `npu-studio systrace` at most half of AOSP's time, `npu-studio --help` under 100 ms,
 * `npu-studio partition` (2,501 parts) under 1 s.
 * NODE_EXTRA_CA_CERTS, when set, is unset for the runs (Node reads that file at every start;
 * CLI_BENCH_KEEP_CA_CERTS=1 keeps it), and the table says so.
 * Run with `npm run bench -- cli` (or `npx tsx bench/cli.ts`); CLI_BENCH_ROUNDS, CLI_BENCH_PARTITION_ROUNDS.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleStaleness, buildCli, ROOT } from '../scripts/build-cli.mjs';
import { alternatingChainModel } from '../src/core/partition/testing';
import { write } from '../src/core/circle/write';
import { OMR1_EXPECTED_PATH, omr1Html } from '../test/support/systrace-capture';

const ROUNDS = Number(process.env.CLI_BENCH_ROUNDS ?? 15);
const PARTITION_ROUNDS = Number(process.env.CLI_BENCH_PARTITION_ROUNDS ?? 5);
const BIN = join(ROOT, 'bin', 'npu-studio.cjs');
// the bin as it was before the bundle: tsx's loader, then src/cli/main.ts
const TSX_BIN = [
  "import { register } from 'tsx/esm/api';",
  'register();',
  `const { main } = await import(${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))});`,
  'process.exitCode = await main(process.argv.slice(1));',
].join(' ');

type Group = 'floor' | 'help' | 'systrace' | 'partition';
interface Case {
  label: string;
  group: Group;
  cmd: string;
  args: string[];
  /** checks a run's stdout; returns what is wrong, or null */
  check: (stdout: string) => string | null;
  /** before each run (outside the timing) */
  prepare?: () => void;
  rounds: number;
  wall: number[];
  cpu: number[];
  failure?: string;
  /** the figure a target is about */
  ours?: 'help' | 'systrace' | 'partition';
}

// NODE_EXTRA_CA_CERTS makes every Node process read a certificate file at start-up (on the
// machine these figures were taken on, 30-40 ms of CPU): it is dropped for the runs, as an
// ordinary install has none, unless CLI_BENCH_KEEP_CA_CERTS=1
const caCerts = process.env.CLI_BENCH_KEEP_CA_CERTS === '1' ? undefined : process.env.NODE_EXTRA_CA_CERTS;
const childEnv: NodeJS.ProcessEnv = { ...process.env };
if (caCerts) delete childEnv.NODE_EXTRA_CA_CERTS;

const dir = mkdtempSync(join(tmpdir(), 'npu-cli-bench-'));
const outFile = join(dir, 'stdout');
const errFile = join(dir, 'stderr');

/**
 * One run of `cmd args` as a process: wall ms (bash's clock right before and after it, so bash's
 * own start-up is not counted) and CPU ms (user + system of the command, bash's `times`), with its
 * stdout. NaN where bash could not say.
 */
function runOnce(cmd: string, args: string[]): { wall: number; cpu: number; status: number | null; stdout: string; stderr: string } {
  // stdin from /dev/null: a Node process whose stdin is a pipe nobody writes to was seen burning
  // a second of CPU at start-up when this bench ran in the background
  const script = 't0=$EPOCHREALTIME; "$@" </dev/null >"$OUT" 2>"$ERR"; rc=$?; t1=$EPOCHREALTIME; echo "$t0 $t1 $rc"; times';
  const r = spawnSync('bash', ['-c', script, 'bash', cmd, ...args], { encoding: 'utf8', cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...childEnv, OUT: outFile, ERR: errFile } });
  const lines = r.stdout.trim().split('\n');
  const [t0, t1, rc] = (lines[0] ?? '').split(' ');
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[2] ?? '');
  return {
    wall: (Number(t1) - Number(t0)) * 1000,
    cpu: m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN,
    status: rc === undefined ? null : Number(rc),
    stdout: existsSync(outFile) ? readFileSync(outFile, 'utf8') : '',
    stderr: existsSync(errFile) ? readFileSync(errFile, 'utf8') : '',
  };
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

// the bundle this bench measures must be the sources' (bin would rebuild it inside the first run)
const stale = ['systrace', 'partition', undefined].map((c) => bundleStaleness(ROOT, c)).find((s) => s !== null);
if (stale) {
  console.error(`bench/cli: building dist-cli/ first (${stale})`);
  await buildCli();
}

const html = join(dir, 'omr1.html');
writeFileSync(html, omr1Html());
const expected = readFileSync(OMR1_EXPECTED_PATH, 'utf8');
const help = spawnSync(BIN, ['--help'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).stdout;
if (!help.startsWith('usage: npu-studio')) {
  console.error(`bench/cli: ${BIN} --help printed ${JSON.stringify(help.slice(0, 200))}`);
  process.exit(1);
}

// the partition input: bench/partition.ts's 10,000-operator chain, into a fresh work folder each run
const source = write(alternatingChainModel({ operators: 10_000, run: 4, firstRunShortBy: 2, originTables: true }));
const partDir = join(dir, 'partition');
const PARTS = 2_501;
const preparePartition = () => {
  rmSync(partDir, { recursive: true, force: true });
  mkdirSync(partDir);
  writeFileSync(join(partDir, 'chain.circle'), source);
  writeFileSync(join(partDir, 'chain.part'), '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n\n[OPCODE]\nMUL=npu\n');
};
const checkPartition = (stdout: string) => {
  const files = readdirSync(partDir).filter((f) => /\.\d{5}_|\.conn\./.test(f)).length;
  if (!stdout.endsWith(`${PARTS} part(s) written to ${partDir}\n`)) return `it printed ${JSON.stringify(stdout.slice(-120))}`;
  return files === PARTS + 2 ? null : `it wrote ${files} files, not ${PARTS + 2}`;
};
const partitionArgs = ['partition', '--part_file', 'chain.part', '--input_file', 'chain.circle', '--work_path', partDir];

const same = (want: string) => (stdout: string) => (stdout === want ? null : `its output differs (${JSON.stringify(stdout.slice(0, 80))}...)`);
const omr1 = (stdout: string) => (stdout === expected ? null : `its output differs from ${OMR1_EXPECTED_PATH}`);
const node = process.execPath;
const tsx = ['--input-type=module', '-e', TSX_BIN, '--'];
const mk = (label: string, group: Group, cmd: string, args: string[], check: Case['check'], extra: Partial<Case> = {}): Case => ({
  label, group, cmd, args, check, rounds: ROUNDS, wall: [], cpu: [], ...extra,
});
const cases: Case[] = [
  mk('`node -e 0` (bare Node start-up: the floor)', 'floor', node, ['-e', '0'], same('')),
  mk('**`npu-studio --help`**', 'help', BIN, ['--help'], same(help), { ours: 'help' }),
  mk('`npu-studio --help` through tsx (the bin before the bundle)', 'help', node, [...tsx, '--help'], same(help)),
  mk('`npx npu-studio --help`', 'help', 'npx', ['--no-install', 'npu-studio', '--help'], same(help)),
  mk('**`npu-studio systrace omr1.html`**', 'systrace', BIN, ['systrace', html], omr1, { ours: 'systrace' }),
  mk('`npu-studio systrace omr1.html` through tsx', 'systrace', node, [...tsx, 'systrace', html], omr1),
  mk('**`npu-studio partition`** (10,000 operators, 2,501 parts)', 'partition', BIN, partitionArgs, checkPartition, { ours: 'partition', prepare: preparePartition, rounds: PARTITION_ROUNDS }),
];

// AOSP's parser, only when AOSP_PARSE_SYSTRACE points at it
const script = process.env.AOSP_PARSE_SYSTRACE ?? '';
// the interpreter itself, not a wrapper such as a pyenv shim (whose start-up would be timed too)
const probe = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())'], { encoding: 'utf8' });
const [python, pythonRelease] = probe.status === 0 ? probe.stdout.trim().split('\n') : [process.env.PYTHON ?? 'python3', undefined];
const aosp = !!script && existsSync(script) && !!pythonRelease;
if (aosp) {
  cases.splice(1, 0, mk('`python3 -c pass` (bare Python start-up)', 'floor', python!, ['-c', 'pass'], same('')));
  cases.push(mk("**AOSP's `parse_systrace.py omr1.html`**", 'systrace', python!, [script, html], omr1));
}

try {
  for (const c of cases) {
    c.prepare?.();
    runOnce(c.cmd, c.args); // file cache, npx's cache
  }
  const rounds = Math.max(...cases.map((c) => c.rounds));
  for (let round = 0; round < rounds; round++) {
    for (const c of cases) {
      if (c.failure || round >= c.rounds) continue;
      c.prepare?.();
      const r = runOnce(c.cmd, c.args);
      const wrong = r.status !== 0 ? `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}` : c.check(r.stdout);
      if (wrong) c.failure = wrong;
      else {
        c.wall.push(r.wall);
        c.cpu.push(r.cpu);
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (ms: number) => `${Math.round(ms).toLocaleString('en-US')} ms`;
const med = (c: Case | undefined, k: 'wall' | 'cpu') => (c && !c.failure && c[k].length ? median(c[k]) : NaN);
const floor = cases[0]!;
const aospCase = cases.find((c) => c.label.startsWith('**AOSP'));
const target = (c: Case): string => {
  const met = (ok: boolean) => (ok ? 'met' : '**not met**');
  const [w, cpu] = [med(c, 'wall'), med(c, 'cpu')];
  if (c.ours === 'help') return `< 100 ms: wall ${met(w < 100)}, CPU ${met(cpu < 100)}`;
  if (c.ours === 'partition') return `< 1 s: wall ${met(w < 1000)}, CPU ${met(cpu < 1000)}`;
  if (c.ours === 'systrace') {
    if (!aosp) return 'AOSP not measured';
    const [aw, ac] = [med(aospCase, 'wall'), med(aospCase, 'cpu')];
    return `<= AOSP / 2: wall ${met(w <= aw / 2)} (${(w / aw).toFixed(2)} x AOSP), CPU ${met(cpu <= ac / 2)} (${(cpu / ac).toFixed(2)} x AOSP)`;
  }
  return '';
};

console.log('## Command line: the installed `npu-studio` as a whole process\n');
console.log(
  `Medians of ${ROUNDS} interleaved rounds (the partition: ${PARTITION_ROUNDS}), each command spawned and its output checked; load average ${loadavg()
    .map((x) => x.toFixed(1))
    .join(' / ')} (1 / 5 / 15 min) at the end. "Over the floor": the median CPU time less bare Node's (\`node -e 0\`).\n`,
);
console.log('| command | wall, median | wall, min | CPU (user + sys), median | over the floor (CPU) | target |');
console.log('|---|---:|---:|---:|---:|---|');
for (const c of cases) {
  if (c.failure) {
    console.log(`| ${c.label} | failed: ${c.failure} | | | | ${target(c)} |`);
    continue;
  }
  const over = c.cmd === node || c.cmd === BIN || c.cmd === 'npx' ? (c === floor ? '' : fmt(med(c, 'cpu') - med(floor, 'cpu'))) : '';
  console.log(`| ${c.label} | ${fmt(med(c, 'wall'))} | ${fmt(Math.min(...c.wall))} | ${fmt(med(c, 'cpu'))} | ${over} | ${target(c)} |`);
}
console.log('');
if (!aosp) {
  const why = !pythonRelease ? `${python} is not installed` : !script ? `Python ${pythonRelease} is installed, but AOSP_PARSE_SYSTRACE is not set` : `AOSP_PARSE_SYSTRACE=${script} does not exist`;
  console.log(`AOSP parse_systrace.py: not measured (${why}); set AOSP_PARSE_SYSTRACE to a copy of AOSP's frameworks/ml/nn/tools/systrace_parser/parse_systrace.py (with its parser/ folder, kept outside this repository) to measure it in the same run.`);
} else {
  const [fc, ac] = [med(floor, 'cpu'), med(aospCase, 'cpu')];
  console.log(`AOSP: Python ${pythonRelease} at ${python}, ${script}; its output equals ${OMR1_EXPECTED_PATH} in every round, as ours does.`);
  console.log(`Bare Node alone takes ${fmt(fc)} of CPU, ${((fc / ac) * 100).toFixed(0)} % of AOSP's whole run (${fmt(ac)}): half of AOSP's time leaves ${fmt(ac / 2 - fc)} for reading and analysing the capture.`);
}
if (caCerts) {
  console.log(`NODE_EXTRA_CA_CERTS (${caCerts}) was unset for these runs (every Node process would read it at start-up); CLI_BENCH_KEEP_CA_CERTS=1 keeps it.`);
} else if (process.env.NODE_EXTRA_CA_CERTS) {
  console.log(`NODE_EXTRA_CA_CERTS (${process.env.NODE_EXTRA_CA_CERTS}) was kept: every Node process read it at start-up, the floor included.`);
}
// npx may be missing or refuse (no network, no cache): its row says so, the bench still passes
const failed = cases.filter((c) => c.failure && c.cmd !== 'npx');
if (failed.length) process.exit(1);
