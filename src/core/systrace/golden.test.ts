/**
 * End-to-end goldens: AOSP's own expected outputs and outputs of the unchanged upstream parser,
 * compared byte for byte, through the core and through the CLI in-process.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { main } from '../../cli/main';
import { analyseText, formatJson, formatStderr, formatText } from './index';

const FIX = 'test/fixtures/systrace';
const OMR1 = `${FIX}/upstream/inputs/omr1.trace.txt`;
const INCOMPLETE = `${FIX}/upstream/inputs/omr1_incomplete.trace.txt`;
const text = (p: string) => readFileSync(p, 'utf8');

async function cli(args: string[]) {
  let out = '';
  let err = '';
  const code = await main(['systrace', ...args], { out: (t) => (out += t), err: (t) => (err += t) });
  return { code, out, err };
}

const NO_RUNTIME = '\n*** No NNAPI Runtime trace present - check your systrace setup ***\n\n';

describe('goldens (byte for byte)', () => {
  const omr1 = analyseText(text(OMR1), 'omr1.trace.txt', { detail: true });
  const inc = analyseText(text(INCOMPLETE), 'omr1_incomplete.trace.txt');

  it('omr1 -> upstream/expected/omr1.txt', () => {
    expect(formatText(omr1)).toBe(text(`${FIX}/upstream/expected/omr1.txt`));
    expect(formatStderr(omr1)).toBe(NO_RUNTIME);
  });
  it('--per-execution --json on omr1_incomplete -> upstream/expected/omr1_incomplete.json', () => {
    expect(formatJson(inc, { perExecution: true })).toBe(text(`${FIX}/upstream/expected/omr1_incomplete.json`));
  });
  it('generated/omr1.json (--json)', () => expect(formatJson(omr1)).toBe(text(`${FIX}/generated/omr1.json`)));
  it('generated/omr1-per-execution.txt', () => expect(formatText(omr1, { perExecution: true })).toBe(text(`${FIX}/generated/omr1-per-execution.txt`)));
  it('generated/omr1-total-times.txt', () => expect(formatText(omr1, { totalTimes: true })).toBe(text(`${FIX}/generated/omr1-total-times.txt`)));
  it('generated/omr1-print-detail.txt', () => expect(formatText(omr1, { printDetail: true })).toBe(text(`${FIX}/generated/omr1-print-detail.txt`)));
  it('generated/omr1_incomplete.txt and its .stderr', () => {
    expect(formatText(inc)).toBe(text(`${FIX}/generated/omr1_incomplete.txt`));
    expect(formatStderr(inc)).toBe(text(`${FIX}/generated/omr1_incomplete.txt.stderr`));
  });
});

describe('the lean analysis the CLI asks for (tables: false)', () => {
  it('prints the same bytes as the full one, for every option set', () => {
    const bad: string[] = [];
    for (const file of [OMR1, INCOMPLETE]) {
      const full = analyseText(text(file), file, { detail: true });
      const lean = analyseText(text(file), file, { detail: true, timeline: false, tables: false });
      expect(lean.runs.every((r) => r.tables === undefined && r.exact === undefined)).toBe(true);
      for (const o of [{}, { totalTimes: true }, { perExecution: true }, { perExecution: true, totalTimes: true }, { printDetail: true }]) {
        if (formatText(lean, o) !== formatText(full, o)) bad.push(`${file} text ${JSON.stringify(o)}`);
        if (formatJson(lean, o) !== formatJson(full, o)) bad.push(`${file} json ${JSON.stringify(o)}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('structured result for the Profile view', () => {
  const a = analyseText(text(OMR1), 'omr1.trace.txt');
  it('is plain serialisable data', () => {
    expect(JSON.parse(JSON.stringify(a))).toEqual(a);
    expect(structuredClone(a)).toEqual(a);
  });
  it('runs, threads and diagnostics', () => {
    expect(a.runs.map((r) => r.status)).toEqual(['complete', 'complete', 'complete', 'complete', 'complete']);
    expect(a.threads.map((t) => `${t.tid}:${t.kind}`)).toEqual(['27051:app', '23196:driver', '27059:driver', '756:driver']);
    expect(a.diagnostics.find((d) => d.source === 'no-runtime-trace')).toBeDefined();
    // the IPC execute marks on the app's worker thread 27058 are dropped upstream: listed here
    expect(a.droppedMarks.some((d) => d.tid === 27058 && d.mark.includes('IPreparedModel::execute::client'))).toBe(true);
    expect(a.diagnostics.some((d) => d.source === 'untracked-thread' && /27058/.test(d.message))).toBe(true);
  });
  it('table cells carry values, AOSP text and the marks behind them', () => {
    const t = a.runs[0]!.tables!.self;
    const row = (l: string) => t.rows.find((r) => r.layer === l)!;
    const cell = (l: string, c: string) => row(l).cells.find((x) => x.column === c)!;
    expect(cell('LI', 'PO').text).toBe('-11.04');
    expect(cell('LA', 'PO').starred).toBe(true);
    expect(cell('LA', 'PI').text).toBe('n/a');
    expect(cell('LA', 'PI').value).toBeNull();
    expect(cell('LD', 'PE').text).toBe('20.73');
    expect(cell('LD', 'PE').exactMs).toBe(20.73);
    const timeline = a.runs[0]!.threads;
    const byId = new Map(timeline.flatMap((th) => th.marks.map((m) => [m.id, m] as const)));
    const pc = cell('LD', 'PC').marks.map((id) => byId.get(id)!.name);
    expect(pc).toEqual(['HIDL::IDevice::getSupportedOperations::server', 'HIDL::IDevice::prepareModel::server']);
    // LD_PE is timed from execute::server begin to IExecutionCallback::notify::client begin
    expect(cell('LD', 'PE').marks.map((id) => byId.get(id)!.name)).toEqual([
      'HIDL::IPreparedModel::execute::server',
      'HIDL::IExecutionCallback::notify::client',
    ]);
    expect(t.text.split('\n')[0]).toBe('B|27005|[NN_LA_PO]mobilenet_quantized');
  });
  it('timeline marks: nested intervals with layer, phase, depth, self time', () => {
    const app = a.runs[0]!.threads.find((th) => th.tid === 27051)!;
    expect(app.kind).toBe('app');
    const po = app.marks[0]!;
    expect(po).toMatchObject({ depth: 0, parent: null, layer: 'LA', phase: 'PO', beginUs: 1034718303435, endUs: 1034719041231, elapsedUs: 737796 });
    const pe = app.marks.find((m) => m.name === 'BenchmarkModel::benchmark')!;
    expect(pe.parent).toBe(po.id);
    expect(pe.countedUs).toBe(39159);
    const copy = app.marks.find((m) => m.copyOf !== undefined && m.copyReason === 'app-phase')!;
    expect(copy.depth).toBe(0);
    expect(app.marks.find((m) => m.id === copy.copyOf)!.subtract).toBe(true);
    for (const th of a.runs[0]!.threads) {
      for (const m of th.marks) {
        if (m.parent !== null) {
          const p = th.marks.find((x) => x.id === m.parent)!;
          expect(m.depth).toBe(p.depth + 1);
          expect(m.beginUs).toBeGreaterThanOrEqual(p.beginUs);
        }
      }
    }
  });
  it('an incomplete run keeps its partial timeline', () => {
    const inc = analyseText(text(INCOMPLETE), 'omr1_incomplete.trace.txt');
    const last = inc.runs[inc.runs.length - 1]!;
    expect(last.status).toBe('incomplete');
    expect(last.printed).toBe(false);
    expect(last.tables).toBeUndefined();
    expect(last.threads.some((th) => th.marks.some((m) => m.endUs === null))).toBe(true);
    expect(inc.diagnostics.some((d) => d.source === 'incomplete-run' && d.line !== undefined)).toBe(true);
  });
});

describe('CLI (in-process)', () => {
  it('default output and stderr', async () => {
    const r = await cli([OMR1]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(text(`${FIX}/upstream/expected/omr1.txt`));
    expect(r.err).toBe(NO_RUNTIME);
  });
  it('--per-execution --json', async () => {
    const r = await cli(['--per-execution', '--json', INCOMPLETE]);
    expect(r.code).toBe(0);
    expect(r.out).toBe(text(`${FIX}/upstream/expected/omr1_incomplete.json`));
    expect(r.err).toBe(text(`${FIX}/generated/omr1_incomplete.txt.stderr`));
  });
  it('--print-detail and --total-times', async () => {
    expect((await cli([OMR1, '--print-detail'])).out).toBe(text(`${FIX}/generated/omr1-print-detail.txt`));
    expect((await cli([OMR1, '--total-times'])).out).toBe(text(`${FIX}/generated/omr1-total-times.txt`));
  });
  it('usage errors exit 2', async () => {
    expect((await cli([])).code).toBe(2);
    expect((await cli([OMR1, '--bogus'])).code).toBe(2);
    expect((await cli([OMR1, OMR1])).code).toBe(2);
  });
  it('bad input exits 1 naming the file and line', async () => {
    const r = await cli(['package.json']);
    expect(r.code).toBe(1);
    expect(r.err).toMatch(/package\.json: line 1: no ftrace text found/);
    const missing = await cli(['no/such/file.html']);
    expect(missing.code).toBe(1);
    expect(missing.err).toMatch(/no\/such\/file\.html/);
  });
});
