/**
 * Aggregation across threads (AOSP `parser/aggregate.py`): totals per phase and layer, the
 * special cases for LR_PE and LD_PE, NaN ("missing") rules, the PO fallback and self-times,
 * with all of upstream's quirks. Values are in the unit of the clock (ms upstream, µs exact);
 * NaN is used internally for "missing".
 */
import {
  APP_PHASES,
  type AppPhaseName,
  COUNTED_LAYERS,
  EXECUTION_SUBPHASES,
  TIME_PHASES,
  TOP_PHASES,
} from './model';
import type { CallNode, Clock } from './tree';
import type { Stats, Tracker } from './tracker';

export type Table = Record<string, Record<string, number>>;

export interface Aggregate {
  times: Table;
  selfTimes: Table;
  /** PWU / PBM tables (PE and its subphases), present when both phases have executions */
  nested: Partial<Record<'PWU' | 'PBM', { times: Table; selfTimes: Table }>>;
  executionCounts: Record<AppPhaseName, number>;
  hasWarmupAndBenchmark: boolean;
  /** node ids behind each total: key `<phase>:<layer>` or `<PWU|PBM>:<phase>:<layer>` */
  contributions: Map<string, number[]>;
  problems: string[];
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

/** `to.push(...from)` without the argument-count limit of spreading. */
function append<T>(to: T[], from: readonly T[] | undefined): void {
  if (from) for (const x of from) to.push(x);
}

interface StatSource {
  tracker: Tracker;
  stats: Stats;
}

function lrPeSpecial(t: Tracker, appPhase: string, clock: Clock, ids: number[] | null, problems: string[]): number {
  const starts = t.beginsAndEnds.get(`${appPhase}::ANeuralNetworksExecution_startCompute`) ?? [];
  const ends = t.beginsAndEnds.get(`${appPhase}::ANeuralNetworksEvent_wait`) ?? [];
  let elapsed = 0.0;
  if (ends.length < starts.length) {
    problems.push(
      `thread ${t.tid}: ${starts.length} ANeuralNetworksExecution_startCompute but ${ends.length} ANeuralNetworksEvent_wait marks (upstream stops with an IndexError); unpaired ones are not counted`,
    );
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

function getStat(
  src: StatSource,
  appPhase: string,
  layer: string,
  phase: string,
  clock: Clock,
  specialCaseLrPe: boolean,
  ids: number[] | null,
  problems: string[],
): number {
  if (layer === 'LR' && phase === 'PE' && specialCaseLrPe) return lrPeSpecial(src.tracker, appPhase, clock, ids, problems);
  const e = src.stats.get(`${appPhase}_${layer}_${phase}`);
  if (!e) return 0.0;
  if (ids) for (const it of e.items) ids.push(it.node.id);
  return e.total;
}

interface LdPe {
  value: number;
  ids: number[];
}

function ldPeSpecial(sources: StatSource[], appPhase: string, clock: Clock, problems: string[]): LdPe | null {
  const begins: CallNode[] = [];
  const ends: CallNode[] = [];
  for (const s of sources) {
    append(begins, s.tracker.beginsAndEnds.get(`${appPhase}::HIDL::IPreparedModel::execute::server`));
    append(ends, s.tracker.beginsAndEnds.get(`${appPhase}::HIDL::IExecutionCallback::notify::client`));
  }
  if (begins.length === 0) return null;
  const b = begins.map((n) => ({ t: clock.begin(n), id: n.id })).sort((x, y) => x.t - y.t);
  const e = ends.map((n) => ({ t: clock.begin(n), id: n.id })).sort((x, y) => x.t - y.t);
  if (b.length !== e.length) {
    problems.push(
      `driver execution (LD_PE): ${b.length} HIDL::IPreparedModel::execute::server begins but ${e.length} HIDL::IExecutionCallback::notify::client begins (upstream stops with an AssertionError); unpaired ones are not counted`,
    );
  }
  let elapsed = 0.0;
  const ids: number[] = [];
  for (let i = 0; i < Math.min(b.length, e.length); i++) {
    elapsed = elapsed + (e[i]!.t - b[i]!.t);
    ids.push(b[i]!.id, e[i]!.id);
  }
  return { value: elapsed, ids };
}

function isMissing(layer: string, phase: string, v: number): boolean {
  return v === 0 && (layer === 'LA' || (layer === 'LD' && (EXECUTION_SUBPHASES as readonly string[]).includes(phase)));
}

function maxIgnoringNaN(row: Record<string, number>): number {
  let m = -Infinity;
  let any = false;
  for (const l of COUNTED_LAYERS) {
    const v = row[l]!;
    if (Number.isNaN(v)) continue;
    if (!any || v > m) m = v;
    any = true;
  }
  return any ? m : NaN;
}

/** Self-times: walk LC, LD, LI, LR, LA bottom-up with the running total `t`. */
function selfTimesOf(times: Table, phases: readonly string[], poException: boolean): Table {
  const self: Table = {};
  for (const phase of phases) {
    const row = times[phase]!;
    const out: Record<string, number> = {};
    out.LT = row.LT!;
    let t = 0.0;
    const ldPeZero = poException && phase === 'PO' && times.PE?.LD === 0;
    for (const layer of ['LC', 'LD', 'LI', 'LR', 'LA']) {
      const x = row[layer]!;
      if (Number.isNaN(x)) out[layer] = NaN;
      else if (x === 0) out[layer] = 0.0;
      else if (ldPeZero && layer === 'LD') out[layer] = x;
      else if (ldPeZero && layer === 'LI') out[layer] = x - row.LD!;
      else {
        out[layer] = x - t;
        t = x;
      }
    }
    self[phase] = out;
  }
  return self;
}

export function aggregateTimes(
  trackers: readonly Tracker[],
  statsByTracker: readonly Stats[],
  clock: Clock,
  specialCaseLrPe = true,
  withContributions = false,
): Aggregate {
  const problems: string[] = [];
  const sources: StatSource[] = trackers.map((tracker, i) => ({ tracker, stats: statsByTracker[i]! }));
  const executionCounts = { PO: 0, PWU: 0, PBM: 0 } as Record<AppPhaseName, number>;
  for (const ap of APP_PHASES) {
    let m = 0;
    for (const t of trackers) m = Math.max(m, t.executionCount(ap));
    executionCounts[ap] = m;
  }
  const hasWarmupAndBenchmark = executionCounts.PWU > 0 && executionCounts.PBM > 0;
  const appPhases: string[] = hasWarmupAndBenchmark ? ['PO', 'PWU', 'PBM'] : ['PO'];
  const contributions = new Map<string, number[]>();

  const ldCache = new Map<string, LdPe | null>();
  const ldPe = (ap: string): LdPe | null => {
    if (!ldCache.has(ap)) ldCache.set(ap, ldPeSpecial(sources, ap, clock, problems));
    return ldCache.get(ap)!;
  };

  const total = (aps: readonly string[], layer: string, phase: string, key: string): number => {
    const ids: number[] | null = withContributions ? [] : null;
    let t = 0.0;
    for (const ap of aps) {
      const special = layer === 'LD' && phase === 'PE' ? ldPe(ap) : null;
      if (special) {
        t = t + special.value;
        if (ids) append(ids, special.ids);
        continue;
      }
      for (const s of sources) t = t + getStat(s, ap, layer, phase, clock, specialCaseLrPe, ids, problems);
    }
    if (ids) contributions.set(key, ids);
    return t;
  };

  const buildTable = (aps: readonly string[], phases: readonly string[], prefix: string): Table => {
    const times: Table = {};
    for (const phase of phases) {
      const row: Record<string, number> = {};
      for (const layer of COUNTED_LAYERS) {
        let v = total(aps, layer, phase, `${prefix}${phase}:${layer}`);
        if (isMissing(layer, phase, v)) v = NaN;
        row[layer] = v;
      }
      times[phase] = row;
    }
    return times;
  };

  const times = buildTable(appPhases, TIME_PHASES, '');
  // PO fallback: a 0 (no PO marks for the layer) becomes the sum of the phases; NaN is truthy
  for (const layer of COUNTED_LAYERS) {
    if (times.PO![layer] === 0) {
      let s = 0.0;
      const ids: number[] = [];
      for (const p of TOP_PHASES) {
        const v = times[p]![layer]!;
        s = s + (Number.isNaN(v) ? 0.0 : v);
        if (withContributions) append(ids, contributions.get(`${p}:${layer}`));
      }
      times.PO![layer] = s;
      if (withContributions) contributions.set(`PO:${layer}`, ids);
    }
  }
  for (const phase of TIME_PHASES) {
    const row = times[phase]!;
    row.LT = maxIgnoringNaN(row);
  }
  const selfTimes = selfTimesOf(times, TIME_PHASES, true);

  const nested: Aggregate['nested'] = {};
  if (hasWarmupAndBenchmark) {
    const phases = ['PE', ...EXECUTION_SUBPHASES];
    for (const ap of ['PWU', 'PBM'] as const) {
      const t = buildTable([ap], phases, `${ap}:`);
      for (const phase of phases) t[phase]!.LT = maxIgnoringNaN(t[phase]!);
      nested[ap] = { times: t, selfTimes: selfTimesOf(t, phases, false) };
    }
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
  return { times, selfTimes, nested, executionCounts, hasWarmupAndBenchmark, contributions, problems: [...new Set(problems)] };
}
