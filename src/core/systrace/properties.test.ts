/** fast-check properties and hostile inputs: never a throw, never a hang; self-times telescope. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { analyseText, formatJson, formatStderr, formatText } from './index';
import type { PhaseLayerTable } from './model';
import { ftraceText, type SyntheticMark, usToSeconds } from './testing';

const LAYERS = ['LA', 'LR', 'LI', 'LD', 'LC', 'LU', 'LO', 'LX', 'LDV', 'Q'];
const PHASES = ['PO', 'PWU', 'PBM', 'PI', 'PP', 'PC', 'PE', 'PT', 'PU', 'PIO', 'PTR', 'PCO', 'PR', 'PZ'];
const HIDL = [
  'HIDL::IDevice::getCapabilities::server',
  'HIDL::IDevice::prepareModel::client',
  'HIDL::IPreparedModel::execute::server',
  'HIDL::IExecutionCallback::notify::client',
  'HIDL::IServiceManager::get::client',
  'HIDL::IAllocator::allocate::client',
  'FreeBuffer',
];
const NAMES = ['ANeuralNetworksExecution_create', 'ANeuralNetworksExecution_startCompute', 'ANeuralNetworksEvent_wait', 'f', 'g[x]y', ''];

const beginArb = fc.oneof(
  fc.record({
    prefix: fc.constantFrom('', '[SW]', '[SUB]'),
    layer: fc.constantFrom(...LAYERS),
    phase: fc.constantFrom(...PHASES),
    name: fc.constantFrom(...NAMES),
  }).map((r) => `${r.prefix}[NN_${r.layer}_${r.phase}]${r.name}`),
  fc.constantFrom(...HIDL),
);
const eventArb = fc.record({
  tid: fc.constantFrom(1, 2, 3),
  begin: fc.boolean(),
  text: beginArb,
  dt: fc.integer({ min: 0, max: 5000 }),
});

function toMarks(events: { tid: number; begin: boolean; text: string; dt: number }[]): SyntheticMark[] {
  let t = 1_000_000_000;
  return events.map((e) => {
    t += e.dt;
    const tgid = e.tid === 2 ? 20 : 10;
    return { tid: e.tid, tgid, time: usToSeconds(t), mark: e.begin ? `B|${tgid}|${e.text}` : `E|${tgid}` };
  });
}

describe('properties', () => {
  it('random mark sequences never throw; the result is plain data; formatting never throws', () => {
    fc.assert(
      fc.property(fc.array(eventArb, { maxLength: 60 }), (events) => {
        const a = analyseText(ftraceText(toMarks(events)), 'random.txt');
        expect(structuredClone(a)).toEqual(a);
        formatText(a, { printDetail: true });
        formatText(a, { perExecution: true, totalTimes: true });
        formatJson(a);
        formatStderr(a);
      }),
      { numRuns: 300 },
    );
  });

  it('mutated real lines never throw', () => {
    const base = ftraceText(toMarks([
      { tid: 1, begin: true, text: '[NN_LA_PO]m', dt: 1 },
      { tid: 1, begin: true, text: '[NN_LR_PE]ANeuralNetworksExecution_create', dt: 5 },
      { tid: 1, begin: false, text: '', dt: 5 },
      { tid: 1, begin: false, text: '', dt: 5 },
    ]));
    fc.assert(
      fc.property(fc.integer({ min: 0, max: base.length - 1 }), fc.string({ maxLength: 8 }), fc.nat(10), (pos, ins, del) => {
        const text = base.slice(0, pos) + ins + base.slice(pos + del);
        const a = analyseText(text, 'm.txt');
        formatText(a);
        formatJson(a);
      }),
      { numRuns: 300 },
    );
  });

  /** A well-nested app thread: LA > LR > (LI | LC) chains of one phase each. */
  const nestedArb = fc.array(
    fc.record({
      phase: fc.constantFrom('PP', 'PC', 'PE', 'PT', 'PIO', 'PR'),
      depth: fc.integer({ min: 1, max: 3 }),
      lowest: fc.constantFrom('LI', 'LC'),
      durations: fc.array(fc.integer({ min: 1, max: 10_000 }), { minLength: 6, maxLength: 6 }),
    }),
    { minLength: 1, maxLength: 8 },
  );

  it('self-times add up to the total of the top layer (exact arithmetic), and LT is that total', () => {
    fc.assert(
      fc.property(nestedArb, (blocks) => {
        const marks: SyntheticMark[] = [];
        let t = 5_000_000;
        const push = (mark: string) => marks.push({ tid: 1, tgid: 1, time: usToSeconds(t), mark });
        for (const b of blocks) {
          const layers = ['LA', 'LR', b.lowest].slice(0, b.depth);
          layers.forEach((l, i) => {
            push(`B|1|[NN_${l}_${b.phase}]f`);
            t += b.durations[i]!;
          });
          for (let i = layers.length - 1; i >= 0; i--) {
            t += b.durations[3 + i]!;
            push('E|1');
          }
          t += 7;
        }
        const a = analyseText(ftraceText(marks), 'nested.txt', { specialCaseLrPe: false });
        const run = a.runs[0]!;
        expect(run.status).toBe('complete');
        const times = run.exact!.times as PhaseLayerTable;
        const self = run.exact!.selfTimes as PhaseLayerTable;
        for (const phase of ['PI', 'PP', 'PC', 'PE', 'PT', 'PIO', 'PR']) {
          let top = 0;
          let sum = 0;
          for (const l of ['LC', 'LD', 'LI', 'LR', 'LA']) {
            const v = times[phase]![l];
            if (v !== null && v !== 0) top = v!;
            sum += self[phase]![l] ?? 0;
          }
          expect(Math.abs(sum - top)).toBeLessThan(1e-6);
          expect(self[phase]!.LT).toBe(times[phase]!.LT);
          // totals are inclusive: the top layer is the largest
          expect(times[phase]!.LT).toBe(top);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('hostile inputs', () => {
  it('10^6 marks are analysed (CLI mode, no timeline)', () => {
    const n = 250_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const t = usToSeconds(1_000_000 + i * 4);
      const t2 = usToSeconds(1_000_000 + i * 4 + 1);
      const t3 = usToSeconds(1_000_000 + i * 4 + 2);
      const t4 = usToSeconds(1_000_000 + i * 4 + 3);
      lines.push(
        `ww-1 (1) [000] ...1 ${t}: tracing_mark_write: B|1|[NN_LR_PE]f`,
        `ww-1 (1) [000] ...1 ${t2}: tracing_mark_write: B|1|[NN_LC_PCO]g`,
        `ww-1 (1) [000] ...1 ${t3}: tracing_mark_write: E|1`,
        `ww-1 (1) [000] ...1 ${t4}: tracing_mark_write: E|1`,
      );
    }
    const text = `${ftraceText([])}${lines.join('\n')}\n`;
    const a = analyseText(text, 'big.txt', { timeline: false });
    expect(a.markCount).toBe(4 * n);
    expect((a.runs[0]!.exact!.times.PCO as Record<string, number>).LC).toBe(n / 1000);
  }, 300_000);
  it('100,000 ignored marks under one parent are removed in linear time (upstream list.remove is quadratic)', () => {
    const marks: SyntheticMark[] = [{ tid: 1, tgid: 1, time: usToSeconds(1_000_000), mark: 'B|1|[NN_LA_PO]m' }];
    let t = 1_000_001;
    for (let i = 0; i < 100_000; i++) {
      marks.push({ tid: 1, tgid: 1, time: usToSeconds(t++), mark: 'B|1|app_section' });
      marks.push({ tid: 1, tgid: 1, time: usToSeconds(t++), mark: 'B|1|[NN_LR_PP]f' });
      marks.push({ tid: 1, tgid: 1, time: usToSeconds((t += 2)), mark: 'E|1' });
      marks.push({ tid: 1, tgid: 1, time: usToSeconds(t++), mark: 'E|1' });
    }
    marks.push({ tid: 1, tgid: 1, time: usToSeconds(t), mark: 'E|1' });
    const a = analyseText(ftraceText(marks), 'lx.txt', { timeline: false });
    expect(a.runs[0]!.output).toBe('printed');
    expect((a.runs[0]!.exact!.times.PP as Record<string, number>).LR).toBe(300);
  }, 120_000);
  it('unbalanced marks: incomplete runs and end-without-begin errors, no throw', () => {
    const ends = Array.from({ length: 1000 }, (_, i) => ({ tid: 1, tgid: 1, time: usToSeconds(2_000_000 + i), mark: 'E|1' }));
    const begins = Array.from({ length: 1000 }, (_, i) => ({ tid: 1, tgid: 1, time: usToSeconds(3_000_000 + i), mark: 'B|1|[NN_LR_PP]x' }));
    const a = analyseText(ftraceText([...ends, ...begins]), 'u.txt');
    expect(a.diagnostics.filter((d) => d.source === 'unbalanced').length).toBeGreaterThan(0);
    expect(a.runs[0]!.status).toBe('incomplete');
    // AOSP stops at the first end: it echoes the line on stdout and never reaches the run's end
    expect(a.fatal).toMatchObject({ stage: 'mark', line: 5 });
    expect(a.runs[0]!.output).toBe('not-reached');
    expect(formatText(a)).toMatch(/^failed on line 5 .*tracing_mark_write: E\|1\n\n$/);
    expect(formatStderr(a)).toBe('');
  });
  it('nesting deeper than the limit is a diagnostic', () => {
    const depth = 5000;
    const marks: SyntheticMark[] = [];
    for (let i = 0; i < depth; i++) marks.push({ tid: 1, tgid: 1, time: usToSeconds(1_000_000 + i), mark: 'B|1|[NN_LR_PP]x' });
    for (let i = 0; i < depth; i++) marks.push({ tid: 1, tgid: 1, time: usToSeconds(2_000_000 + i), mark: 'E|1' });
    const a = analyseText(ftraceText(marks), 'deep.txt');
    expect(a.runs[0]!.status).toBe('invalid');
    expect(a.diagnostics.some((d) => d.source === 'limit')).toBe(true);
    expect(a.runs[0]!.threads[0]!.marks).toHaveLength(depth);
  });
});
