/**
 * Systrace figure: parse + aggregate an NNAPI systrace capture (omr1, AOSP's own test capture).
 * The fixture holds the ftrace block of omr1.html (1.2 MB); the 3.8 MB HTML is rebuilt around it
 * with the same amount of non-trace content (the viewer's JavaScript is not in the fixtures), so
 * the reader also has to skip ~2.6 MB before the trace. Times read + analyse (tables, timeline),
 * median of 7 runs after one warm-up, as the worker would do it.
 * Run with `npm run bench` (or `npx tsx bench/systrace.ts`).
 */
import { existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { analyse, formatText, read } from '../src/core/systrace';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const trace = readFileSync('test/fixtures/systrace/upstream/inputs/omr1.trace.txt', 'utf8');
const filler = `<!DOCTYPE html>\n<html>\n<head>\n<script>\n${'  // trace viewer code (stand-in of the Catapult viewer in the real file)\n'.repeat(Math.ceil((3_845_528 - trace.length) / 72))}</script>\n</head>\n<body>\n`;
const html = `${filler}${trace}\n</body>\n</html>\n`;

function measure(text: string, name: string): { ms: number; cold: number; marks: number; runs: number } {
  const times: number[] = [];
  let marks = 0;
  let runs = 0;
  for (let i = 0; i < 8; i++) {
    const t0 = performance.now();
    const a = analyse(read(text, name));
    times.push(performance.now() - t0);
    marks = a.markCount;
    runs = a.runs.length;
  }
  return { cold: times[0]!, ms: median(times.slice(1)), marks, runs };
}

const sanity = formatText(analyse(read(html, 'omr1.html')));
if (sanity !== readFileSync('test/fixtures/systrace/upstream/expected/omr1.txt', 'utf8')) {
  console.error('bench/systrace: output differs from upstream/expected/omr1.txt');
  process.exit(1);
}

const rows: [string, string][] = [
  [`omr1.html rebuilt (${(html.length / 1e6).toFixed(1)} MB)`, html],
  [`omr1 trace block only (${(trace.length / 1e6).toFixed(1)} MB)`, trace],
];
console.log('## Systrace: parse and aggregate an NNAPI capture\n');
console.log('| input | marks | runs | read + analyse (median of 7, warm) | first run (cold JIT) | target |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const [label, text] of rows) {
  const r = measure(text, 'omr1.html');
  console.log(`| ${label} | ${r.marks} | ${r.runs} | ${r.ms.toFixed(1)} ms | ${r.cold.toFixed(1)} ms | < 300 ms (${(300 / r.ms).toFixed(1)}x headroom) |`);
}

// AOSP's parser side by side, when it is present
const candidates = ['parse_systrace.py', 'tools/systrace_parser/parse_systrace.py', process.env.AOSP_PARSE_SYSTRACE ?? ''].filter(Boolean);
const script = candidates.find((p) => existsSync(p));
const python = spawnSync('python3', ['--version'], { encoding: 'utf8' });
console.log('');
if (!script) {
  console.log(
    `AOSP parse_systrace.py: ratio not measured. ${python.status === 0 ? `${python.stdout.trim()} is installed, but` : 'Python is not installed and'} ` +
      "the upstream parser is not: the fixtures describe it without copying its code (see test/fixtures/systrace/SOURCE.md) and this machine has no network to fetch it. " +
      'Set AOSP_PARSE_SYSTRACE=/path/to/parse_systrace.py to measure it in the same run.',
  );
} else {
  const t0 = performance.now();
  const r = spawnSync('python3', [script, 'test/fixtures/systrace/upstream/inputs/omr1.trace.txt'], { encoding: 'utf8' });
  const py = performance.now() - t0;
  const ours = measure(trace, 'omr1.trace.txt').ms;
  console.log(`AOSP parse_systrace.py (python3, process start included): ${py.toFixed(0)} ms, exit ${r.status}; NPU Studio ${ours.toFixed(1)} ms: ${(py / ours).toFixed(1)}x faster`);
}
