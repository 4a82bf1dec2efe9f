/**
 * The 18 cases of upstream parser/test/test_stats.py (derived/spec-cases.json), run as synthetic
 * ftrace text: thread 1 = pid 1 (app process), thread 2 = pid 2 (driver process). Every cell of
 * upstream's `times` / `self_times` is compared, not only the checked ones.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { analyseText } from './index';
import type { PhaseLayerTable, RunTimes } from './model';
import { ftraceText } from './testing';

interface SpecLine {
  t: string;
  time_s: number;
  thread: number;
  mark: string;
}
interface Check {
  kind: 'total' | 'self';
  tag: string;
  app_phase?: string;
  expected_ms: number;
}
interface UpstreamResult {
  times?: Record<string, Record<string, unknown>>;
  self_times?: Record<string, Record<string, unknown>>;
  has_warmup_and_benchmark?: boolean;
  execution_counts?: Record<string, number>;
  exception?: string;
}
interface SpecCase {
  name: string;
  spec_lines: SpecLine[];
  expect_exception: boolean;
  checks: Check[];
  upstream_result: UpstreamResult;
}

const spec = JSON.parse(readFileSync('test/fixtures/systrace/derived/spec-cases.json', 'utf8')) as { cases: SpecCase[] };

function run(c: SpecCase) {
  const text = ftraceText(c.spec_lines.map((l) => ({ tid: l.thread, tgid: l.thread, time: `${l.time_s}.000000`, mark: l.mark })));
  const a = analyseText(text, `${c.name}.txt`, { specialCaseLrPe: false });
  expect(a.runs).toHaveLength(1);
  return { a, r: a.runs[0]! };
}

/** Flattens `{phase: {layer: v}}` and `{PWU: {phase: {layer: v}}}` to `phase/layer` keys. */
function cells(t: Record<string, unknown>, prefix = ''): Map<string, number | null> {
  const out = new Map<string, number | null>();
  for (const [k, v] of Object.entries(t)) {
    if (v !== null && typeof v === 'object') for (const [kk, vv] of cells(v as Record<string, unknown>, `${prefix}${k}/`)) out.set(kk, vv);
    else out.set(`${prefix}${k}`, v as number | null);
  }
  return out;
}

function expectSameCells(ours: RunTimes['times'], theirs: Record<string, unknown>): void {
  const a = cells(ours as Record<string, unknown>);
  const b = cells(theirs);
  expect([...a.keys()].sort()).toEqual([...b.keys()].sort());
  for (const [k, v] of b) {
    const mine = a.get(k);
    if (v === null) expect(mine, k).toBeNull();
    else {
      expect(mine, k).not.toBeNull();
      // assertAlmostEqual(places=1), as upstream's tests
      expect(Math.abs((mine as number) - v), `${k}: ${mine} vs ${v}`).toBeLessThan(0.05);
    }
  }
}

function read(t: RunTimes['times'] | RunTimes['selfTimes'], check: Check): number | null {
  const [layer, phase] = check.tag.split('_') as [string, string];
  const table = (check.app_phase ? (t[check.app_phase] as PhaseLayerTable) : t) as PhaseLayerTable;
  return table[phase]![layer]!;
}

describe('spec cases (upstream test_stats.py)', () => {
  for (const c of spec.cases) {
    it(c.name, () => {
      const { a, r } = run(c);
      if (c.expect_exception) {
        expect(r.status).toBe('invalid');
        expect(r.printed).toBe(false);
        expect(a.fatal).toBeDefined();
        const d = a.diagnostics.find((x) => x.source === 'nesting');
        expect(d?.severity).toBe('error');
        expect(d?.line).toBeGreaterThan(0);
        expect(d?.message).toMatch(/layer LA may not be nested in layer LR/);
        return;
      }
      expect(r.status).toBe('complete');
      const u = c.upstream_result;
      expectSameCells(r.upstream!.times, u.times!);
      expectSameCells(r.upstream!.selfTimes, u.self_times!);
      expect(r.upstream!.hasWarmupAndBenchmark).toBe(u.has_warmup_and_benchmark);
      expect(r.upstream!.executionCounts).toEqual(u.execution_counts);
      for (const check of c.checks) {
        const src = check.kind === 'total' ? r.upstream!.times : r.upstream!.selfTimes;
        expect(Math.abs(read(src, check)! - check.expected_ms)).toBeLessThan(0.05);
        // exact arithmetic: integer µs gives the formula's value exactly
        const exact = read(check.kind === 'total' ? r.exact!.times : r.exact!.selfTimes, check)!;
        expect(exact).toBe(check.expected_ms);
      }
    });
  }
});

describe('special cases', () => {
  it('LR_PE from startCompute..wait pairs plus synchronous calls (special_case_lr_pe)', () => {
    const m = (t: string, mark: string) => ({ tid: 1, tgid: 1, time: t, mark });
    const text = ftraceText([
      m('1.000000', 'B|1|[NN_LA_PE]run'),
      m('1.000010', 'B|1|[NN_LR_PE]ANeuralNetworksExecution_create'),
      m('1.000020', 'E|1'),
      m('1.000100', 'B|1|[NN_LR_PE]ANeuralNetworksExecution_startCompute'),
      m('1.000200', 'E|1'),
      m('1.000300', 'B|1|[NN_LR_PE]ANeuralNetworksEvent_wait'),
      m('1.001000', 'E|1'),
      m('1.002000', 'E|1'),
    ]);
    const special = analyseText(text, 's.txt').runs[0]!;
    // (1.001000 - 1.000100) + (1.000020 - 1.000010) = 0.910 ms
    expect((special.exact!.times.PE as Record<string, number>).LR).toBeCloseTo(0.91, 9);
    const tree = analyseText(text, 's.txt', { specialCaseLrPe: false }).runs[0]!;
    expect((tree.exact!.times.PE as Record<string, number>).LR).toBeCloseTo(0.01 + 0.1 + 0.7, 9);
    expect(special.upstream!.executionCounts.PO).toBe(1);
  });
  it('LD_PE begin/end count mismatch is an error with the run still returned', () => {
    const text = ftraceText([
      { tid: 1, tgid: 1, time: '1.000000', mark: 'B|1|[NN_LR_PP]x' },
      { tid: 1, tgid: 1, time: '1.000001', mark: 'E|1' },
      { tid: 2, tgid: 2, time: '1.000000', mark: 'B|2|HIDL::IDevice::getCapabilities::server' },
      { tid: 2, tgid: 2, time: '1.000001', mark: 'E|2' },
      { tid: 2, tgid: 2, time: '1.000002', mark: 'B|2|HIDL::IPreparedModel::execute::server' },
      { tid: 2, tgid: 2, time: '1.000005', mark: 'E|2' },
    ]);
    const a = analyseText(text, 'ld.txt');
    expect(a.runs[0]!.status).toBe('invalid');
    expect(a.diagnostics.some((d) => d.source === 'ld-pe-pairs' && /LD_PE/.test(d.message))).toBe(true);
    expect(a.fatal).toBeDefined();
    expect(a.runs[0]!.tables).toBeDefined();
  });
  it('an end mark without a begin is an error with its line; later marks still count', () => {
    const text = ftraceText([
      { tid: 1, tgid: 1, time: '1.000000', mark: 'E|1' },
      { tid: 1, tgid: 1, time: '1.000001', mark: 'B|1|[NN_LR_PP]x' },
      { tid: 1, tgid: 1, time: '1.000004', mark: 'E|1' },
    ]);
    const a = analyseText(text, 'e.txt');
    const d = a.diagnostics.find((x) => x.source === 'unbalanced')!;
    expect(d.line).toBe(5);
    expect(a.fatal?.line).toBe(5);
    expect((a.runs[0]!.exact!.times.PP as Record<string, number>).LR).toBeCloseTo(0.003, 9);
    expect(a.runs[0]!.printed).toBe(false);
  });
});
