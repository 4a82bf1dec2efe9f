/**
 * Writes the systrace differential goldens: for every seed in
 * test/fixtures/systrace/differential/seeds.json, the generated capture and what AOSP's
 * parse_systrace.py prints for it with each of the five option sets (standard output, exit status,
 * standard error before any traceback, the exception's first line). Needs AOSP_PARSE_SYSTRACE
 * (a copy of parse_systrace.py kept outside this repository):
 *
 *   AOSP_PARSE_SYSTRACE=/path/to/parse_systrace.py npx tsx test/support/write-systrace-differential-goldens.ts
 *
 * src/core/systrace/differential-goldens.test.ts then checks our CLI against these files without Python.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { OPTION_SETS, runAosp, stderrBeforeTraceback } from './aosp-systrace';
import { generateCapture } from './systrace-generator';

export const GOLDENS_DIR = 'test/fixtures/systrace/differential';

export interface SeedEntry {
  seed: number;
  /** what the differential run found with this capture before the fix */
  found: string;
}

export interface GoldenRun {
  args: string[];
  status: number;
  stdout: string;
  /** AOSP's standard error before its traceback */
  stderr: string;
  /** first line of the exception AOSP raised, null when it did not */
  exception: string | null;
}

export interface Golden {
  seed: number;
  capture: string;
  found: string;
  features: string[];
  runs: GoldenRun[];
}

async function main(): Promise<void> {
  const script = process.env.AOSP_PARSE_SYSTRACE;
  if (!script) throw new Error('set AOSP_PARSE_SYSTRACE to a copy of parse_systrace.py kept outside the repository');
  const seeds = JSON.parse(readFileSync(join(GOLDENS_DIR, 'seeds.json'), 'utf8')) as SeedEntry[];
  const tmp = mkdtempSync(join(tmpdir(), 'systrace-goldens-'));
  try {
    mkdirSync(join(GOLDENS_DIR, 'captures'), { recursive: true });
    mkdirSync(join(GOLDENS_DIR, 'expected'), { recursive: true });
    const captures = seeds.map((s) => ({ entry: s, cap: generateCapture(s.seed) }));
    const jobs = [];
    for (const { cap } of captures) {
      // AOSP reads the committed file itself, so the goldens hold exactly what it printed for it
      const file = join(GOLDENS_DIR, 'captures', cap.name);
      writeFileSync(file, cap.text);
      for (let o = 0; o < OPTION_SETS.length; o++) jobs.push({ id: `${cap.seed}/${o}`, args: [...OPTION_SETS[o]!, file] });
    }
    const results = await runAosp(script, jobs, tmp, 1);
    for (const { entry, cap } of captures) {
      const runs: GoldenRun[] = OPTION_SETS.map((opts, o) => {
        const r = results.get(`${cap.seed}/${o}`)!;
        return {
          args: [...opts],
          status: r.status,
          stdout: r.stdout,
          stderr: stderrBeforeTraceback(r.stderr),
          exception: r.exception ? r.exception.split('\n')[0]!.slice(0, 160) : null,
        };
      });
      const golden: Golden = { seed: cap.seed, capture: `captures/${cap.name}`, found: entry.found, features: cap.features, runs };
      writeFileSync(join(GOLDENS_DIR, 'expected', `${cap.name.replace(/\.(txt|html)$/, '')}.json`), `${JSON.stringify(golden, null, 1)}\n`);
    }
    console.log(`wrote ${captures.length} captures and ${jobs.length} AOSP outputs under ${GOLDENS_DIR}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

await main();
