/**
 * Command-line start-up figure: the installed `npu-studio` command as a whole process (what a
 * shell or a script pays), side by side in one run with
 * - bare `node -e 0` (the floor every Node command pays);
 * - the same command run the way the bin ran it before the bundle (tsx compiling
 *   src/cli/*.ts at every start), and through `npx` (which adds npm's own start-up);
 * - AOSP's parse_systrace.py on the same file, and a bare `python3 -c pass`, when
 *   AOSP_PARSE_SYSTRACE points at a checkout of AOSP's frameworks/ml/nn/tools/systrace_parser/
 *   parse_systrace.py (its code is not part of this project).
 * The input is omr1, AOSP's own test capture, rebuilt as the 3.8 MB HTML systrace writes
 * (test/support/systrace-capture.ts). Every run's output is checked against the golden.
 *
 * Each figure is the median wall time of ROUNDS runs (minimum beside it). The rounds interleave
 * all the commands, so that on a shared machine each sees the same load; the load average is
 * printed with the table. Beside the wall time, the process's CPU time (user + system, from bash's
 * `times` around a second run of the same command in the same round): on a loaded machine wall
 * time grows with the queue for the cores, CPU time much less. Targets (issue 10): `npu-studio systrace` at most half of AOSP's
 * process time, `npu-studio --help` under 100 ms.
 * Run with `npm run bench -- cli` (or `npx tsx bench/cli.ts`).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { bundleStaleness, buildCli, ROOT } from '../scripts/build-cli.mjs';
import { OMR1_EXPECTED_PATH, omr1Html } from '../test/support/systrace-capture';

const ROUNDS = Number(process.env.CLI_BENCH_ROUNDS ?? 15);
const BIN = join(ROOT, 'bin', 'npu-studio.cjs');
// the bin as it was before the bundle: tsx's loader, then src/cli/main.ts
const TSX_BIN = [
  "import { register } from 'tsx/esm/api';",
  'register();',
  `const { main } = await import(${JSON.stringify(join(ROOT, 'src', 'cli', 'main.ts'))});`,
  'process.exitCode = await main(process.argv.slice(1));',
].join(' ');

interface Case {
  label: string;
  group: 'help' | 'systrace';
  cmd: string;
  args: string[];
  /** what stdout must be (checked on every run) */
  expect?: string;
  times: number[];
  cpu: number[];
  failure?: string;
}

/** user + system CPU ms of the command as a process (bash's `times`: its children's line), or NaN */
function cpuOf(cmd: string, args: string[]): number {
  const r = spawnSync('bash', ['-c', '"$@" >/dev/null 2>&1; times', 'bash', cmd, ...args], { encoding: 'utf8', cwd: ROOT });
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(r.stdout.trim().split('\n')[1] ?? '');
  return m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

// the bundle this bench measures must be the sources' (bin would rebuild it inside the first run)
const stale = bundleStaleness(ROOT, 'systrace') ?? bundleStaleness(ROOT);
if (stale) {
  console.error(`bench/cli: building dist-cli/ first (${stale})`);
  await buildCli();
}

const dir = mkdtempSync(join(tmpdir(), 'npu-cli-bench-'));
const html = join(dir, 'omr1.html');
writeFileSync(html, omr1Html());
const expected = readFileSync(OMR1_EXPECTED_PATH, 'utf8');
const help = spawnSync(BIN, ['--help'], { encoding: 'utf8' }).stdout;
if (!help.startsWith('usage: npu-studio')) {
  console.error(`bench/cli: ${BIN} --help printed ${JSON.stringify(help.slice(0, 200))}`);
  process.exit(1);
}

const node = process.execPath;
const cases: Case[] = [
  { label: '`node -e 0` (bare Node start-up)', group: 'help', cmd: node, args: ['-e', '0'], expect: '', times: [], cpu: [] },
  { label: '**`npu-studio --help`** (bundle)', group: 'help', cmd: BIN, args: ['--help'], expect: help, times: [], cpu: [] },
  { label: '`npu-studio --help` through tsx (the bin before the bundle)', group: 'help', cmd: node, args: ['--input-type=module', '-e', TSX_BIN, '--', '--help'], expect: help, times: [], cpu: [] },
  { label: '`npx npu-studio --help`', group: 'help', cmd: 'npx', args: ['--no-install', 'npu-studio', '--help'], expect: help, times: [], cpu: [] },
  { label: '**`npu-studio systrace omr1.html`** (bundle)', group: 'systrace', cmd: BIN, args: ['systrace', html], expect: expected, times: [], cpu: [] },
  { label: '`npu-studio systrace omr1.html` through tsx', group: 'systrace', cmd: node, args: ['--input-type=module', '-e', TSX_BIN, '--', 'systrace', html], expect: expected, times: [], cpu: [] },
];

// AOSP's parser, when it is present
const script = process.env.AOSP_PARSE_SYSTRACE ?? '';
// the interpreter itself, not a wrapper such as a pyenv shim (whose start-up would be timed too)
const probe = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())'], { encoding: 'utf8' });
const [python, pythonRelease] = probe.status === 0 ? probe.stdout.trim().split('\n') : [process.env.PYTHON ?? 'python3', undefined];
const aosp = !!script && existsSync(script) && !!pythonRelease;
if (aosp) {
  cases.push(
    { label: '`python3 -c pass` (bare Python start-up)', group: 'help', cmd: python!, args: ['-c', 'pass'], expect: '', times: [], cpu: [] },
    { label: "**AOSP's `parse_systrace.py omr1.html`**", group: 'systrace', cmd: python!, args: [script, html], expect: expected, times: [], cpu: [] },
  );
}

try {
  for (const c of cases) spawnSync(c.cmd, c.args, { stdio: 'ignore' }); // file cache, npx's cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const c of cases) {
      if (c.failure) continue;
      const t0 = performance.now();
      const r = spawnSync(c.cmd, c.args, { encoding: 'utf8', maxBuffer: 64 << 20, cwd: ROOT });
      const ms = performance.now() - t0;
      if (r.error || r.status !== 0) c.failure = r.error ? r.error.message : `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-2).join(' / ')}`;
      else if (c.expect !== undefined && r.stdout !== c.expect) c.failure = `its output differs from ${c.group === 'systrace' ? OMR1_EXPECTED_PATH : 'the bundle\'s --help'}`;
      else {
        c.times.push(ms);
        c.cpu.push(cpuOf(c.cmd, c.args));
      }
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const fmt = (ms: number) => `${ms.toFixed(0)} ms`;
const med = (c: Case | undefined) => (c && !c.failure && c.times.length ? median(c.times) : NaN);
const ours = { help: med(cases[1]), systrace: med(cases[4]) };
const aospCase = cases.find((c) => c.label.startsWith("**AOSP"));
const aospMs = med(aospCase);

console.log('## Command line: the installed `npu-studio` as a whole process\n');
console.log(`Median wall time of ${ROUNDS} interleaved rounds (each command spawned, its output checked); load average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end.\n`);
console.log('| command | wall, median | wall, min | CPU (user + sys), median | target |');
console.log('|---|---:|---:|---:|---|');
for (const c of cases) {
  let target = '';
  if (c === cases[1]) target = `< 100 ms: ${ours.help < 100 ? 'met' : 'NOT met'}`;
  if (c === cases[4]) target = aosp && Number.isFinite(aospMs) ? `<= AOSP / 2 (${fmt(aospMs / 2)}): ${ours.systrace <= aospMs / 2 ? 'met' : 'NOT met'} (${(aospMs / ours.systrace).toFixed(1)}x faster)` : 'AOSP not measured';
  if (c.failure) console.log(`| ${c.label} | failed: ${c.failure} | | | ${target} |`);
  else console.log(`| ${c.label} | ${fmt(median(c.times))} | ${fmt(Math.min(...c.times))} | ${fmt(median(c.cpu))} | ${target} |`);
}
console.log('');
if (!aosp) {
  const why = !pythonRelease ? `${python} is not installed` : !script ? `Python ${pythonRelease} is installed, but AOSP_PARSE_SYSTRACE is not set` : `AOSP_PARSE_SYSTRACE=${script} does not exist`;
  console.log(`AOSP parse_systrace.py: not measured (${why}); set AOSP_PARSE_SYSTRACE to a checkout of AOSP's frameworks/ml/nn/tools/systrace_parser/parse_systrace.py to measure it in the same run.`);
} else {
  console.log(`AOSP: Python ${pythonRelease} at ${python}, ${script}; its output equals ${OMR1_EXPECTED_PATH} in every round, as ours does.`);
}
const failed = cases.filter((c) => c.failure && c !== cases[3]);
if (failed.length) process.exit(1);
