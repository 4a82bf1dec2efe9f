/**
 * What the differential run against AOSP's parse_systrace.py found, kept as goldens that need no
 * Python: test/fixtures/systrace/differential/ holds generated captures (seeds.json says what
 * each one exposed before the fix) with AOSP's standard output, exit status and standard error for
 * the five option sets. Our CLI must print the same standard output and exit status; where AOSP
 * raised, our standard error is what AOSP wrote before its traceback plus one clear error line.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import { compare, OPTION_SETS, type RunOutput } from '../../../test/support/aosp-systrace';
import type { Golden, SeedEntry } from '../../../test/support/write-systrace-differential-goldens';

const DIR = 'test/fixtures/systrace/differential';
const goldens = readdirSync(join(DIR, 'expected'))
  .filter((f) => f.endsWith('.json'))
  .sort()
  .map((f) => JSON.parse(readFileSync(join(DIR, 'expected', f), 'utf8')) as Golden);

async function ours(args: readonly string[]): Promise<RunOutput> {
  let stdout = '';
  let stderr = '';
  const status = await main(['systrace', ...args], { out: (t) => (stdout += t), err: (t) => (stderr += t) });
  return { status, stdout, stderr };
}

describe('systrace differential goldens (AOSP outputs on generated captures)', () => {
  it('hold every seed of seeds.json, with the five option sets each', () => {
    const seeds = JSON.parse(readFileSync(join(DIR, 'seeds.json'), 'utf8')) as SeedEntry[];
    expect(goldens.map((g) => g.seed).sort((a, b) => a - b)).toEqual(seeds.map((s) => s.seed).sort((a, b) => a - b));
    for (const g of goldens) expect(g.runs.map((r) => r.args.join(' '))).toEqual(OPTION_SETS.map((o) => o.join(' ')));
  });

  for (const g of goldens) {
    it(`seed ${g.seed}: ${g.found}`, async () => {
      const bad: string[] = [];
      for (const r of g.runs) {
        const u = await ours([...r.args, join(DIR, g.capture)]);
        const verdict = compare(r, u);
        if (verdict !== 'same' && verdict !== 'same-until-aosp-error') {
          bad.push(`${r.args.join(' ') || '(default)'}: ${verdict}\n--- AOSP (exit ${r.status}${r.exception ? `, ${r.exception}` : ''})\n${r.stdout}\n--- ours (exit ${u.status})\n${u.stdout}\n${u.stderr}`);
        }
      }
      expect(bad).toEqual([]);
    });
  }
});
