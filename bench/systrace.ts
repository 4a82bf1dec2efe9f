/**
 * Systrace figure: parse + aggregate an NNAPI systrace capture (omr1, AOSP's own test capture,
 * rebuilt as the ~3.8 MB HTML systrace writes; see test/support/systrace-capture.ts). Times
 * read + analyse (tables, timeline), what the model worker runs on the decoded text:
 * - warm: median of 10 runs in this process after 5 warm-up runs (V8 needs about 5 to optimise);
 * - cold: the first analysis of a fresh Node process (this file run again as a child), median of 5.
 *
 * AOSP's parser on the same file, in the same run, when AOSP_PARSE_SYSTRACE points at a checkout
 * of AOSP's frameworks/ml/nn/tools/systrace_parser/parse_systrace.py (its code is not part of this
 * project): `python3 parse_systrace.py omr1.html` is timed as a process (wall clock) and so is a
 * bare `python3 -c pass`; the parser's time is the difference. As a cross-check the parser is also
 * timed inside one interpreter (runpy, perf_counter). Each figure is the median of 5 rounds, and
 * the rounds interleave AOSP's runs with ours so that both see the same load on a shared machine.
 * AOSP's output is checked against the golden like ours. Without AOSP_PARSE_SYSTRACE (or Python)
 * the AOSP side is reported as not measured.
 * Run with `npm run bench` (or `npx tsx bench/systrace.ts`).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyse, formatText, read } from '../src/core/systrace';
import { OMR1_EXPECTED_PATH, omr1Html, omr1Trace } from '../test/support/systrace-capture';

const COLD_CHILD = 'NPU_SYSTRACE_BENCH_COLD';
const ROUNDS = 5;
const TARGET_MS = 300;

const trace = omr1Trace();
const html = omr1Html(trace);
const inputs = { html: { text: html, name: 'omr1.html' }, trace: { text: trace, name: 'omr1.trace.txt' } } as const;
type InputKey = keyof typeof inputs;

const timeOnce = (k: InputKey) => {
  const t0 = performance.now();
  const a = analyse(read(inputs[k].text, inputs[k].name));
  return { ms: performance.now() - t0, marks: a.markCount, runs: a.runs.length };
};

// child mode: one cold analysis, printed, nothing else
const childInput = process.env[COLD_CHILD] as InputKey | undefined;
if (childInput) {
  console.log(timeOnce(childInput).ms);
  process.exit(0);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function coldInChild(k: InputKey): number {
  const r = spawnSync(process.execPath, [...process.execArgv, process.argv[1]!], { encoding: 'utf8', env: { ...process.env, [COLD_CHILD]: k } });
  const ms = Number(r.stdout.trim());
  if (r.status !== 0 || !Number.isFinite(ms)) throw new Error(`cold child failed: ${r.stderr}`);
  return ms;
}

const expected = readFileSync(OMR1_EXPECTED_PATH, 'utf8');
if (formatText(analyse(read(html, inputs.html.name))) !== expected) {
  console.error(`bench/systrace: our output differs from ${OMR1_EXPECTED_PATH}`);
  process.exit(1);
}

// AOSP's parser, when it is present
const script = process.env.AOSP_PARSE_SYSTRACE ?? '';
// the interpreter itself, not a wrapper such as a pyenv shim (whose start-up would be timed too)
const probe = spawnSync(process.env.PYTHON ?? 'python3', ['-c', 'import sys, platform; print(sys.executable); print(platform.python_version())'], { encoding: 'utf8' });
const [pythonBin, pythonRelease] = probe.status === 0 ? probe.stdout.trim().split('\n') : [process.env.PYTHON ?? 'python3', undefined];
const pythonVersion = pythonRelease ? `Python ${pythonRelease}` : null;
const aosp = !!script && existsSync(script) && !!pythonVersion;
// the same parser run inside one interpreter, timed around it (imports of its modules included)
const IN_PROCESS = [
  'import os, runpy, sys, time',
  'script, file = sys.argv[1], sys.argv[2]',
  'sys.path.insert(0, os.path.dirname(os.path.abspath(script)))',
  'sys.argv = [script, file]',
  'out, sys.stdout = sys.stdout, open(os.devnull, "w")',
  't0 = time.perf_counter()',
  'runpy.run_path(script, run_name="__main__")',
  't1 = time.perf_counter()',
  'sys.stdout = out',
  'print((t1 - t0) * 1000)',
].join('\n');
const wall = (args: string[]) => {
  const t0 = performance.now();
  const r = spawnSync(pythonBin!, args, { encoding: 'utf8', maxBuffer: 64 << 20 });
  return { ms: performance.now() - t0, r };
};

const dir = mkdtempSync(join(tmpdir(), 'npu-systrace-bench-'));
const htmlFile = join(dir, inputs.html.name);
writeFileSync(htmlFile, html);

const ours = { html: { warm: [] as number[], cold: [] as number[], marks: 0, runs: 0 }, trace: { warm: [] as number[], cold: [] as number[], marks: 0, runs: 0 } };
const py = { process: [] as number[], bare: [] as number[], inside: [] as number[], sameOutput: true, failure: '' };
try {
  for (let i = 0; i < 5; i++) for (const k of ['html', 'trace'] as const) timeOnce(k); // warm-up
  if (aosp) wall(['-c', 'pass']); // file cache
  for (let round = 0; round < ROUNDS; round++) {
    for (const k of ['html', 'trace'] as const) {
      ours[k].cold.push(coldInChild(k));
      for (let j = 0; j < 2; j++) {
        const t = timeOnce(k);
        ours[k].warm.push(t.ms);
        ours[k].marks = t.marks;
        ours[k].runs = t.runs;
      }
    }
    if (aosp && !py.failure) {
      py.bare.push(wall(['-c', 'pass']).ms);
      const run = wall([script, htmlFile]);
      if (run.r.status !== 0) py.failure = `exit ${run.r.status}: ${run.r.stderr.trim().split('\n').slice(-3).join(' / ')}`;
      py.sameOutput &&= run.r.stdout === expected;
      py.process.push(run.ms);
      py.inside.push(Number(wall(['-c', IN_PROCESS, script, htmlFile]).r.stdout.trim()));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}

const mb = (s: string) => (Buffer.byteLength(s) / 1e6).toFixed(1);
const warm = { html: median(ours.html.warm), trace: median(ours.trace.warm) };
const cold = { html: median(ours.html.cold), trace: median(ours.trace.cold) };
console.log('## Systrace: parse and aggregate an NNAPI capture\n');
console.log(`| input | marks | runs | read + analyse, warm (median of ${ROUNDS * 2}) | cold: first run of a fresh process (median of ${ROUNDS}) | target |`);
console.log('|---|---:|---:|---:|---:|---:|');
for (const [label, k] of [
  [`omr1.html rebuilt (${mb(html)} MB)`, 'html'],
  [`omr1 trace block only (${mb(trace)} MB)`, 'trace'],
] as const) {
  console.log(`| ${label} | ${ours[k].marks} | ${ours[k].runs} | ${warm[k].toFixed(1)} ms | ${cold[k].toFixed(1)} ms | < ${TARGET_MS} ms (${(TARGET_MS / cold[k]).toFixed(1)}x headroom cold) |`);
}

console.log('');
if (!aosp) {
  const why = !pythonVersion
    ? `${pythonBin} is not installed`
    : !script
      ? `${pythonVersion} is installed, but AOSP_PARSE_SYSTRACE is not set`
      : `AOSP_PARSE_SYSTRACE=${script} does not exist`;
  console.log(
    `AOSP parse_systrace.py: not measured (${why}). The project does not ship AOSP's parser (see test/fixtures/systrace/SOURCE.md); ` +
      "set AOSP_PARSE_SYSTRACE to a checkout of AOSP's frameworks/ml/nn/tools/systrace_parser/parse_systrace.py to measure it in the same run.",
  );
} else if (py.failure) {
  console.log(`AOSP parse_systrace.py failed on ${inputs.html.name} (${py.failure}); not measured.`);
} else {
  const proc = median(py.process);
  const bare = median(py.bare);
  const parser = proc - bare;
  const inside = median(py.inside);
  const x = (a: number, b: number) => `${(a / b).toFixed(1)}x`;
  console.log(`### AOSP parse_systrace.py on the same ${mb(html)} MB file (${pythonVersion} at ${pythonBin}, ${script})\n`);
  console.log(`| AOSP (Python), median of ${ROUNDS} | ms | AOSP / ours warm (${warm.html.toFixed(1)} ms) | AOSP / ours cold (${cold.html.toFixed(1)} ms) |`);
  console.log('|---|---:|---:|---:|');
  console.log(`| process wall time | ${proc.toFixed(0)} | | |`);
  console.log(`| bare \`python3 -c pass\` (start-up) | ${bare.toFixed(0)} | | |`);
  console.log(`| parse + aggregate: process less bare start-up | ${parser.toFixed(0)} | ${x(parser, warm.html)} | ${x(parser, cold.html)} |`);
  console.log(`| parse + aggregate: timed inside Python (runpy, perf_counter) | ${inside.toFixed(0)} | ${x(inside, warm.html)} | ${x(inside, cold.html)} |`);
  console.log(`\nAOSP output ${py.sameOutput ? 'equals' : 'DIFFERS from'} ${OMR1_EXPECTED_PATH} in every round (ours equals it too). Above 1x, ours is faster.`);
}
