/**
 * Differential test against AOSP's parse_systrace.py: generates captures at random from the
 * contract's cases (test/support/systrace-generator.ts) and compares, for each of the five option
 * sets, our CLI's stdout, exit status and stderr with what the unchanged AOSP script prints.
 *
 * Runs only when AOSP_PARSE_SYSTRACE points at a copy of parse_systrace.py (with its parser/
 * folder) kept OUTSIDE this repository. Environment:
 *   AOSP_PARSE_SYSTRACE   path of parse_systrace.py (required; otherwise the test is skipped)
 *   SYSTRACE_DIFF_N       number of captures (default 300)
 *   SYSTRACE_DIFF_SEED    first seed (default 1); capture i uses seed SEED + i
 *   SYSTRACE_DIFF_REPORT  write every difference (seed, options, both outputs) to this JSON file
 *   SYSTRACE_DIFF_OPTIONS other option sets instead of the five, `;`-separated (e.g. `--print-detail`)
 *   AOSP_PYTHON           Python interpreter (default python3)
 *
 * Reproduce one capture: `generateCapture(seed)` gives the same text; write it to a file and run
 * both tools on it. Where AOSP raises (traceback, exit 1), we must print the same stdout, exit 1,
 * and write one clear `npu-studio systrace: FILE: line N: ...` error instead of the traceback
 * (verdict `same-until-aosp-error`, counted per exception type).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import { compare, exceptionOf, OPTION_SETS, type RunOutput, runAosp, type Verdict } from '../../../test/support/aosp-systrace';
import { generateCapture } from '../../../test/support/systrace-generator';

const SCRIPT = process.env.AOSP_PARSE_SYSTRACE;
const N = Number(process.env.SYSTRACE_DIFF_N ?? 300);
const FIRST_SEED = Number(process.env.SYSTRACE_DIFF_SEED ?? 1);
const OPTIONS: readonly (readonly string[])[] = process.env.SYSTRACE_DIFF_OPTIONS
  ? process.env.SYSTRACE_DIFF_OPTIONS.split(';').map((o) => o.split(' ').filter(Boolean))
  : OPTION_SETS;

async function ours(args: readonly string[]): Promise<RunOutput> {
  let stdout = '';
  let stderr = '';
  const status = await main(['systrace', ...args], { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

interface Difference {
  seed: number;
  options: string;
  verdict: Verdict;
  features: string[];
  aosp: RunOutput;
  ours: RunOutput;
}

describe.skipIf(!SCRIPT)('differential: our systrace CLI vs AOSP parse_systrace.py (needs AOSP_PARSE_SYSTRACE)', () => {
  it(`${N} generated captures x ${OPTIONS.length} option sets: same stdout, exit status and stderr`, { timeout: 0 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'systrace-diff-'));
    try {
      const captures = Array.from({ length: N }, (_, i) => generateCapture(FIRST_SEED + i));
      const jobs = [];
      for (const c of captures) {
        const file = join(dir, c.name);
        writeFileSync(file, c.text);
        for (let o = 0; o < OPTIONS.length; o++) jobs.push({ id: `${c.seed}/${o}`, args: [...OPTIONS[o]!, file] });
      }
      const aosp = await runAosp(SCRIPT!, jobs, dir);
      const verdicts = new Map<string, number>();
      const exceptions = new Map<string, number>();
      const differences: Difference[] = [];
      const all: { seed: number; options: string; verdict: Verdict; exception: string | null; features: string[] }[] = [];
      for (const c of captures) {
        for (let o = 0; o < OPTIONS.length; o++) {
          const a = aosp.get(`${c.seed}/${o}`);
          if (!a) throw new Error(`no AOSP result for seed ${c.seed}, options ${o}`);
          const u = await ours([...OPTIONS[o]!, join(dir, c.name)]);
          const v = compare(a, u);
          verdicts.set(v, (verdicts.get(v) ?? 0) + 1);
          const ex = a.exception ?? exceptionOf(a.stderr);
          if (ex) {
            const type = ex.split(/[:\n]/)[0]!;
            exceptions.set(type, (exceptions.get(type) ?? 0) + 1);
          }
          all.push({ seed: c.seed, options: OPTIONS[o]!.join(' '), verdict: v, exception: ex ? ex.split('\n')[0]!.slice(0, 200) : null, features: c.features });
          if (v !== 'same' && v !== 'same-until-aosp-error') {
            differences.push({ seed: c.seed, options: OPTIONS[o]!.join(' ') || '(default)', verdict: v, features: c.features, aosp: a, ours: u });
          }
        }
      }
      const lines = [
        `systrace differential: ${N} captures (seeds ${FIRST_SEED}..${FIRST_SEED + N - 1}) x ${OPTIONS.length} option sets = ${N * OPTIONS.length} runs`,
        ...[...verdicts].sort().map(([k, n]) => `  ${k}: ${n}`),
        `  AOSP exceptions (runs): ${[...exceptions].sort().map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}`,
      ];
      if (differences.length) {
        const byOpt = new Map<string, number>();
        for (const d of differences) byOpt.set(`${d.verdict} ${d.options}`, (byOpt.get(`${d.verdict} ${d.options}`) ?? 0) + 1);
        lines.push('  differences by verdict and options:', ...[...byOpt].sort().map(([k, n]) => `    ${k}: ${n}`));
        const byFeature = new Map<string, number>();
        for (const d of differences) for (const f of d.features) byFeature.set(f, (byFeature.get(f) ?? 0) + 1);
        lines.push(`  features of differing runs: ${[...byFeature].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ')}`);
        lines.push(`  first seeds: ${[...new Set(differences.map((d) => d.seed))].slice(0, 30).join(' ')}`);
      }
      console.log(lines.join('\n'));
      if (process.env.SYSTRACE_DIFF_REPORT) writeFileSync(process.env.SYSTRACE_DIFF_REPORT, JSON.stringify({ summary: lines, differences, all }, null, 1));
      expect(differences.map((d) => `seed ${d.seed} ${d.options}: ${d.verdict}`)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

if (!SCRIPT) {
  console.log('systrace differential test skipped: AOSP_PARSE_SYSTRACE is not set (point it at a copy of AOSP parse_systrace.py kept outside the repository)');
}
