/**
 * Aggregation across threads (AOSP `parser/aggregate.py`): totals per phase and layer, the
 * special cases for LR_PE and LD_PE, NaN ("missing") rules, the PO fallback and self-times,
 * with all of upstream's quirks, in upstream's order of evaluation and summation (the JSON output
 * shows every bit of a float, so `(a + b) + c` and `a + (b + c)` must not be mixed up). Values are
 * in the unit of the clock (ms upstream, µs exact); NaN is used internally for "missing".
 */
import { APP_PHASES, type AppPhaseName, COUNTED_LAYERS, EXECUTION_SUBPHASES, TIME_PHASES, TOP_PHASES } from './model';
import type { CallNode, Clock } from './tree';
import type { Stats, Tracker } from './tracker';

export type Table = Record<string, Record<string, number>>;

/** Where upstream's aggregation raises (the run's output stops there). */
export interface AggregateFailure {
  /** lr-pe-pairs: fewer Event_wait than startCompute (IndexError); ld-pe-pairs: execute::server
   * begins and IExecutionCallback::notify::client begins differ in number (AssertionError);
   * warmup-xor-benchmark: executions in warmup or in benchmark but not in both (KeyError) */
  kind: 'lr-pe-pairs' | 'ld-pe-pairs' | 'warmup-xor-benchmark';
  message: string;
}

export interface Aggregate {
  times: Table;
  selfTimes: Table;
  /** PWU / PBM tables (PE and its subphases), present when both phases have executions */
  nested: Partial<Record<'PWU' | 'PBM', { times: Table; selfTimes: Table }>>;
  executionCounts: Record<AppPhaseName, number>;
  hasWarmupAndBenchmark: boolean;
  /** node ids behind each total: key `<phase>:<layer>` or `<PWU|PBM>:<phase>:<layer>` */
  contributions: Map<string, number[]>;
  /** upstream's exceptions, in the order it would meet them (it stops at the first) */
  failures: AggregateFailure[];
}

const LR_PE_SYNC_CALLS = [
  'ANeuralNetworksExecution_create',
  'ANeuralNetworksExecution_free',
  'ANeuralNetworksEvent_create',
  'ANeuralNetworksEvent_free',
  'ANeuralNetworksExecution_setInput',
  'ANeuralNetworksExecution_setOutput',
  'ANeuralNetworksExecution_setInputFromMemory',
  'ANeuralNetworksExecution_setOutputFromMemory',
];

/** `[PO]`, `[PE, PIO, PTR, PCO, PR]` or `[phase]` (upstream `_phase_and_subphases`). */
function phaseAndSubphases(phase: string): readonly string[] {
  return phase === 'PE' ? ['PE', ...EXECUTION_SUBPHASES] : [phase];
}
const PHASE_GROUPS = ['PO', ...TOP_PHASES] as const;

interface StatSource {
  tracker: Tracker;
  stats: Stats;
}

function lrPeSpecial(t: Tracker, appPhase: string, clock: Clock, ids: number[] | null, failures: AggregateFailure[]): number {
  const starts = t.beginsAndEnds.get(`${appPhase}::ANeuralNetworksExecution_startCompute`) ?? [];
  const ends = t.beginsAndEnds.get(`${appPhase}::ANeuralNetworksEvent_wait`) ?? [];
  let elapsed = 0.0;
  if (ends.length < starts.length) {
    failures.push({
      kind: 'lr-pe-pairs',
      message: `thread ${t.pid}: ${starts.length} ANeuralNetworksExecution_startCompute but only ${ends.length} ANeuralNetworksEvent_wait in ${appPhase}, so the runtime's execution time cannot be paired (upstream stops with an IndexError)`,
    });
  }
  for (let i = 0; i < Math.min(starts.length, ends.length); i++) {
    elapsed = elapsed + (clock.end(ends[i]!) - clock.begin(starts[i]!));
    ids?.push(starts[i]!.id, ends[i]!.id);
  }
  for (const sync of LR_PE_SYNC_CALLS) {
    for (const n of t.beginsAndEnds.get(`${appPhase}::${sync}`) ?? []) {
      elapsed = elapsed + (clock.end(n) - clock.begin(n));
      ids?.push(n.id);
    }
  }
  return elapsed;
}

function getStat(src: StatSource, appPhase: string, layer: string, phase: string, clock: Clock, specialCaseLrPe: boolean, ids: number[] | null, failures: AggregateFailure[]): number {
  if (layer === 'LR' && phase === 'PE' && specialCaseLrPe) return lrPeSpecial(src.tracker, appPhase, clock, ids, failures);
  const e = src.stats.get(`${appPhase}_${layer}_${phase}`);
  if (!e) return 0.0;
  if (ids) for (const it of e.items) ids.push(it.node.id);
  return e.total;
}

/** LD_PE: sorted begins of execute::server against sorted begins of IExecutionCallback::notify::client, over all threads. */
function ldPeSpecial(sources: StatSource[], appPhase: string, clock: Clock, ids: number[] | null, failures: AggregateFailure[]): number {
  const begins: CallNode[] = [];
  const ends: CallNode[] = [];
  for (const s of sources) {
    for (const n of s.tracker.beginsAndEnds.get(`${appPhase}::HIDL::IPreparedModel::execute::server`) ?? []) begins.push(n);
    for (const n of s.tracker.beginsAndEnds.get(`${appPhase}::HIDL::IExecutionCallback::notify::client`) ?? []) ends.push(n);
  }
  const b = begins.map((n) => ({ t: clock.begin(n), id: n.id })).sort((x, y) => x.t - y.t);
  const e = ends.map((n) => ({ t: clock.begin(n), id: n.id })).sort((x, y) => x.t - y.t);
  if (b.length !== e.length) {
    failures.push({
      kind: 'ld-pe-pairs',
      message: `driver execution time (LD_PE) in ${appPhase}: ${b.length} HIDL::IPreparedModel::execute::server but ${e.length} HIDL::IExecutionCallback::notify::client on tracked threads, so they cannot be paired (upstream stops with an AssertionError)`,
    });
  }
  let elapsed = 0.0;
  for (let i = 0; i < Math.min(b.length, e.length); i++) {
    elapsed = elapsed + (e[i]!.t - b[i]!.t);
    ids?.push(b[i]!.id, e[i]!.id);
  }
  return elapsed;
}

/** `zero_to_nan_if_missing`: 0 is "missing" for LA, and for LD in the PE subphases. */
function zeroToNaN(v: number, phase: string, layer: string): number {
  if (v === 0 && (layer === 'LA' || (layer === 'LD' && (EXECUTION_SUBPHASES as readonly string[]).includes(phase)))) return NaN;
  return v;
}

/** `max_ignoring_nans`: the largest value with NaN read as 0 (so 0 when every layer is missing). */
function maxNaNAsZero(row: Record<string, number>): number {
  let m = NaN;
  for (const l of COUNTED_LAYERS) {
    const v = Number.isNaN(row[l]!) ? 0.0 : row[l]!;
    if (Number.isNaN(m) || v > m) m = v;
  }
  return m;
}

/** Self-times of one row: walk LC, LD, LI, LR, LA bottom-up with the running total `t`. */
function selfRow(row: Record<string, number>, ldIpcException: boolean): Record<string, number> {
  const out: Record<string, number> = { LT: row.LT! };
  let t = 0.0;
  for (const layer of ['LC', 'LD', 'LI', 'LR', 'LA']) {
    const x = row[layer]!;
    if (Number.isNaN(x)) out[layer] = NaN;
    else if (x === 0) out[layer] = 0.0;
    else if (ldIpcException && layer === 'LD') out[layer] = x;
    else if (ldIpcException && layer === 'LI') out[layer] = x - row.LD!;
    else {
      out[layer] = x - t;
      t = x;
    }
  }
  return out;
}

export function aggregateTimes(
  trackers: readonly Tracker[],
  statsByTracker: readonly Stats[],
  clock: Clock,
  specialCaseLrPe = true,
  withContributions = false,
): Aggregate {
  const failures: AggregateFailure[] = [];
  const sources: StatSource[] = trackers.map((tracker, i) => ({ tracker, stats: statsByTracker[i]! }));
  const executionCounts = { PO: 0, PWU: 0, PBM: 0 } as Record<AppPhaseName, number>;
  for (const ap of APP_PHASES) {
    let m = 0;
    for (const t of trackers) m = Math.max(m, t.executionCount(ap));
    executionCounts[ap] = m;
  }
  const hasWarmup = executionCounts.PWU > 0;
  const hasBenchmark = executionCounts.PBM > 0;
  const hasWarmupAndBenchmark = hasWarmup && hasBenchmark;
  const appPhases: readonly string[] = hasWarmupAndBenchmark ? APP_PHASES : ['PO'];
  const contributions = new Map<string, number[]>();

  const times: Table = {};
  for (const p of TIME_PHASES) times[p] = {};
  const nestedTimes: Partial<Record<'PWU' | 'PBM', Table>> = {};
  if (hasWarmupAndBenchmark) {
    for (const ap of ['PWU', 'PBM'] as const) {
      const t: Table = {};
      for (const p of phaseAndSubphases('PE')) t[p] = {};
      nestedTimes[ap] = t;
    }
  }

  for (const layer of COUNTED_LAYERS) {
    for (const group of PHASE_GROUPS) {
      for (const phase of phaseAndSubphases(group)) {
        const ids: number[] | null = withContributions ? [] : null;
        let t = 0.0;
        for (const ap of appPhases) {
          let t0 = 0.0;
          const apIds: number[] | null = withContributions ? [] : null;
          if (layer === 'LD' && phase === 'PE') t0 = t0 + ldPeSpecial(sources, ap, clock, apIds, failures);
          else for (const s of sources) t0 = t0 + getStat(s, ap, layer, phase, clock, specialCaseLrPe, apIds, failures);
          if (group === 'PE' && ap !== 'PO') {
            nestedTimes[ap as 'PWU' | 'PBM']![phase]![layer] = zeroToNaN(t0, phase, layer);
            if (apIds) contributions.set(`${ap}:${phase}:${layer}`, apIds);
          }
          if (ids && apIds) for (const id of apIds) ids.push(id);
          t = t + t0;
        }
        times[phase]![layer] = zeroToNaN(t, phase, layer);
        if (ids) contributions.set(`${phase}:${layer}`, ids);
      }
    }
    // PO fallback: a 0 (no PO marks for the layer) becomes the sum of the phases; NaN is truthy
    if (times.PO![layer] === 0) {
      let s = 0;
      const ids: number[] = [];
      for (const p of TOP_PHASES) {
        const v = times[p]![layer]!;
        s = s + (Number.isNaN(v) ? 0.0 : v);
        if (withContributions) for (const id of contributions.get(`${p}:${layer}`) ?? []) ids.push(id);
      }
      times.PO![layer] = s;
      if (withContributions) contributions.set(`PO:${layer}`, ids);
    }
  }
  for (const group of PHASE_GROUPS) {
    for (const phase of phaseAndSubphases(group)) {
      times[phase]!.LT = maxNaNAsZero(times[phase]!);
      if (group === 'PE' && hasWarmupAndBenchmark) {
        for (const ap of ['PWU', 'PBM'] as const) nestedTimes[ap]![phase]!.LT = maxNaNAsZero(nestedTimes[ap]![phase]!);
      }
    }
  }

  const selfTimes: Table = {};
  for (const p of TIME_PHASES) selfTimes[p] = {};
  const nestedSelf: Partial<Record<'PWU' | 'PBM', Table>> = { PWU: {}, PBM: {} };
  for (const group of PHASE_GROUPS) {
    for (const phase of phaseAndSubphases(group)) {
      // PO exception: a driver used only at initialisation (no LD_PE) keeps its own time
      selfTimes[phase] = selfRow(times[phase]!, phase === 'PO' && times.PE!.LD === 0);
      if (group === 'PE' && (hasWarmup || hasBenchmark)) {
        if (!hasWarmupAndBenchmark) {
          if (!failures.some((f) => f.kind === 'warmup-xor-benchmark')) {
            failures.push({
              kind: 'warmup-xor-benchmark',
              message: `the run has ${hasWarmup ? 'warmup' : 'benchmark'} executions but no ${hasWarmup ? 'benchmark' : 'warmup'} executions, so there are no separate tables to compare (upstream stops with a KeyError)`,
            });
          }
          continue;
        }
        for (const ap of ['PWU', 'PBM'] as const) nestedSelf[ap]![phase] = selfRow(nestedTimes[ap]![phase]!, false);
      }
    }
  }
  const nested: Aggregate['nested'] = {};
  if (hasWarmupAndBenchmark) {
    for (const ap of ['PWU', 'PBM'] as const) nested[ap] = { times: nestedTimes[ap]!, selfTimes: nestedSelf[ap]! };
  }

  if (withContributions) {
    for (const prefix of ['', 'PWU:', 'PBM:']) {
      const tab = prefix === '' ? times : nested[prefix.slice(0, 3) as 'PWU' | 'PBM']?.times;
      if (!tab) continue;
      for (const phase of Object.keys(tab)) {
        let best: string | null = null;
        let bestV = -Infinity;
        for (const l of COUNTED_LAYERS) {
          const v = tab[phase]![l]!;
          if (!Number.isNaN(v) && v > bestV) {
            bestV = v;
            best = l;
          }
        }
        contributions.set(`${prefix}${phase}:LT`, best ? (contributions.get(`${prefix}${phase}:${best}`) ?? []) : []);
      }
    }
  }
  return { times, selfTimes, nested, executionCounts, hasWarmupAndBenchmark, contributions, failures };
}
