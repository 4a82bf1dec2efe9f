/**
 * NNAPI systrace: read a systrace capture (HTML or ftrace text) and compute the time per layer
 * and phase exactly as AOSP's parse_systrace.py does. Face:
 *
 *   detect(bytes|text, name)          -> SystraceDetection | null
 *   read(text, file)                  -> SystraceTrace (mark lines + diagnostics)
 *   analyse(trace, options)           -> SystraceAnalysis (plain data: runs, tables, timeline)
 *   formatText(analysis, options)     -> stdout of parse_systrace.py [--total-times] [--per-execution] [--print-detail]
 *   formatJson(analysis, options)     -> stdout of parse_systrace.py --json
 *   formatStderr(analysis)            -> what parse_systrace.py writes to stderr
 */
import type { Aggregate, Table } from './aggregate';
import { analyse, INCOMPLETE_MESSAGE, NO_RUNTIME_MESSAGE } from './analyse';
import { detect, read } from './input';
import type { OutputOptions, PhaseLayerTable, RunTimes, SystraceAnalysis, TimingTable } from './model';
import { renderTable, runJson, templateInputs } from './output';

export { analyse, detect, read };
export type { SystraceTrace, SystraceDetection, MarkLine } from './input';
export * from './model';

/** Reads and analyses in one step. */
export function analyseText(text: string, file: string, options: Parameters<typeof analyse>[1] = {}): SystraceAnalysis {
  return analyse(read(text, file), options);
}

function tableFor(tables: NonNullable<SystraceAnalysis['runs'][number]['tables']>, o: OutputOptions): TimingTable {
  if (o.perExecution) return o.totalTimes ? tables.perExecutionTotal : tables.perExecutionSelf;
  return o.totalTimes ? tables.total : tables.self;
}

/** The runs AOSP prints (complete, before the first fatal error). */
export function printedRuns(a: SystraceAnalysis): SystraceAnalysis['runs'] {
  return a.runs.filter((r) => r.output === 'printed' && r.upstream);
}

/** Runs whose end upstream reaches, in order (it stops at the first failure). */
function reachedRuns(a: SystraceAnalysis): SystraceAnalysis['runs'] {
  if (a.fatal?.stage === 'input') return [];
  return a.runs.filter((r) => r.output !== 'not-reached');
}

/** Standard output of `parse_systrace.py [--total-times] [--per-execution] [--print-detail] TRACE`. */
export function formatText(a: SystraceAnalysis, o: OutputOptions = {}): string {
  if (a.fatal?.stage === 'input') return '';
  let out = '';
  for (const r of reachedRuns(a)) {
    if (r.output !== 'printed') continue;
    if (r.tables) out += tableFor(r.tables, o).text;
    else {
      const opts = { totalTimes: o.totalTimes, perExecution: o.perExecution };
      out += renderTable(r.startingMark, templateInputs(aggregateOf(r.upstream!), opts), opts, r.upstream!.hasWarmupAndBenchmark);
    }
    if (o.printDetail) out += r.detailText ?? '';
  }
  return out + (a.fatal?.stdout ?? '');
}

function fromNullable(t: PhaseLayerTable): Table {
  const out: Table = {};
  for (const [p, row] of Object.entries(t)) {
    const r: Record<string, number> = {};
    for (const [l, v] of Object.entries(row)) r[l] = v === null ? NaN : v;
    out[p] = r;
  }
  return out;
}

function aggregateOf(rt: RunTimes): Aggregate {
  const split = (x: RunTimes['times']): { flat: PhaseLayerTable; nested: Partial<Record<'PWU' | 'PBM', PhaseLayerTable>> } => {
    const flat: PhaseLayerTable = {};
    const nested: Partial<Record<'PWU' | 'PBM', PhaseLayerTable>> = {};
    for (const [k, v] of Object.entries(x)) {
      if (k === 'PWU' || k === 'PBM') nested[k] = v as PhaseLayerTable;
      else flat[k] = v as Record<string, number | null>;
    }
    return { flat, nested };
  };
  const t = split(rt.times);
  const s = split(rt.selfTimes);
  const nested: Aggregate['nested'] = {};
  for (const ap of ['PWU', 'PBM'] as const) {
    const nt = t.nested[ap];
    const ns = s.nested[ap];
    if (nt && ns) nested[ap] = { times: fromNullable(nt), selfTimes: fromNullable(ns) };
  }
  return {
    times: fromNullable(t.flat),
    selfTimes: fromNullable(s.flat),
    nested,
    executionCounts: rt.executionCounts,
    hasWarmupAndBenchmark: rt.hasWarmupAndBenchmark,
    contributions: new Map(),
    failures: [],
  };
}

/**
 * Standard output of `parse_systrace.py --json [--total-times] [--per-execution]`: each run that
 * reaches its end is preceded by a separator line, `[` for the first run and `,` for the others
 * (an incomplete run prints neither: a first run that is incomplete leaves the output without its
 * `[`), then its object; `]` at the end. Where upstream raises, the output stops there.
 */
export function formatJson(a: SystraceAnalysis, o: OutputOptions = {}): string {
  if (a.fatal?.stage === 'input') return '';
  let out = '';
  for (const r of reachedRuns(a)) {
    if (r.output === 'incomplete') continue;
    out += r.index === 0 ? '[\n' : ',\n';
    if (r.output === 'failed') break;
    out += `${runJson(r.startingMark, aggregateOf(r.upstream!), { totalTimes: o.totalTimes, perExecution: o.perExecution })}\n`;
  }
  if (a.fatal) return out + (a.fatal.stdout ?? '');
  return `${out}]\n`;
}

/** Standard error of parse_systrace.py (before any traceback): the no-runtime warning, one line per incomplete run. */
export function formatStderr(a: SystraceAnalysis): string {
  if (a.fatal?.stage === 'input') return '';
  let out = '';
  if (!a.hasRuntimeTrace) out += `\n${NO_RUNTIME_MESSAGE}\n\n`;
  for (const r of reachedRuns(a)) if (r.output === 'incomplete') out += `${INCOMPLETE_MESSAGE}\n`;
  return out;
}
