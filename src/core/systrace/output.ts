/**
 * Output (AOSP `parser/output.py`): the template inputs, the two text tables exactly as
 * parse_systrace.py prints them, the JSON run objects and the `--print-detail` dumps.
 */
import type { Aggregate, Table } from './aggregate';
import { COUNTED_LAYERS, EXECUTION_SUBPHASES, type TableCell, type TableLayer, type TableRow, type TimingTable } from './model';
import { pyFixed2, pyFloatRepr, PyInt, type PyJson, pyJsonDumps } from './pyformat';
import { elapsedLessSubtracted, type CallNode, upstreamClock } from './tree';
import type { Stats, Tracker } from './tracker';


export interface TemplateOptions {
  totalTimes?: boolean;
  perExecution?: boolean;
}

export interface TemplateInputs {
  /** `template_inputs`: `<L>_<P>`, `<L>_PEO`, `<L>_PO`, `<L>_PEp` (NaN = missing) */
  values: Record<string, number>;
  /** whether the CPU row is printed: some LC value of PI PP PC PE PT PIO PR above 0 (before the division) */
  hasCpu: boolean;
  /** per execution: what the Execution columns were divided by */
  executionCount?: number;
  /** `times` and `self_times` as the JSON holds them: with --per-execution and warmup + benchmark,
   * the PE rows of the table in use (total or self) are replaced by the benchmark's */
  times: Table;
  selfTimes: Table;
}

const PHASES_TO_PICK = ['PI', 'PP', 'PC', 'PE', 'PT', 'PIO', 'PR'] as const;
const LAYERS_AND_TOTAL = ['LA', 'LR', 'LI', 'LD', 'LC', 'LT'] as const;

function cloneTable(t: Table): Table {
  const out: Table = {};
  for (const [k, row] of Object.entries(t)) out[k] = { ...row };
  return out;
}

/** The inputs of the text template (and the JSON's `template_inputs`), as upstream's `print_stats` computes them. */
export function templateInputs(agg: Aggregate, opts: TemplateOptions): TemplateInputs {
  const times = cloneTable(agg.times);
  const selfTimes = cloneTable(agg.selfTimes);
  const use = opts.totalTimes ? times : selfTimes;
  const pbm = agg.nested.PBM;
  if (agg.hasWarmupAndBenchmark && opts.perExecution && pbm) {
    const from = opts.totalTimes ? pbm.times : pbm.selfTimes;
    for (const phase of ['PE', ...EXECUTION_SUBPHASES]) {
      for (const layer of LAYERS_AND_TOTAL) use[phase]![layer] = from[phase]![layer]!;
    }
  }
  const values: Record<string, number> = {};
  let hasCpu = false;
  for (const layer of COUNTED_LAYERS) {
    for (const phase of PHASES_TO_PICK) {
      const t = use[phase]![layer]!;
      values[`${layer}_${phase}`] = t;
      if (layer === 'LC') hasCpu = hasCpu || t > 0.0;
    }
  }
  for (const phase of PHASES_TO_PICK) values[`LT_${phase}`] = use[phase]!.LT!;
  for (const layer of LAYERS_AND_TOTAL) {
    values[`${layer}_PEO`] = values[`${layer}_PE`]! - values[`${layer}_PIO`]! - values[`${layer}_PR`]!;
    values[`${layer}_PO`] = use.PO![layer]!;
  }
  const ltPe = values.LT_PE!;
  for (const layer of COUNTED_LAYERS) values[`${layer}_PEp`] = ltPe > 0.0 ? (values[`${layer}_PE`]! * 100.0) / ltPe : NaN;
  let executionCount: number | undefined;
  if (opts.perExecution) {
    executionCount = agg.hasWarmupAndBenchmark ? agg.executionCounts.PBM : agg.executionCounts.PO;
    for (const layer of LAYERS_AND_TOTAL) {
      for (const phase of ['PIO', 'PEO', 'PR', 'PE']) {
        const k = `${layer}_${phase}`;
        values[k] = executionCount !== 0 ? values[k]! / executionCount : NaN;
      }
    }
  }
  return { values, hasCpu, ...(executionCount !== undefined ? { executionCount } : {}), times, selfTimes };
}

// ---------------------------------------------------------------------------------------------
// text tables
// ---------------------------------------------------------------------------------------------

/** A column of the structured table (the text comes from the templates below). */
interface ColumnSpec {
  key: string;
  label: string;
  percent?: boolean;
}

const ALL_PHASES_COLUMNS: ColumnSpec[] = [
  { key: 'PI', label: 'Initialization' },
  { key: 'PP', label: 'Preparation' },
  { key: 'PC', label: 'Compilation' },
  { key: 'PIO', label: 'I/O' },
  { key: 'PEO', label: 'Compute' },
  { key: 'PR', label: 'Results' },
  { key: 'PE', label: 'Ex. total' },
  { key: 'PT', label: 'Termination' },
  { key: 'PO', label: 'Total' },
];

const PER_EXECUTION_COLUMNS: ColumnSpec[] = [
  { key: 'PIO', label: 'I/O' },
  { key: 'PEO', label: 'Compute' },
  { key: 'PR', label: 'Results' },
  { key: 'PE', label: 'Total' },
  { key: 'PEp', label: 'Percentage', percent: true },
];

const ROWS: { layer: TableLayer; label: string }[] = [
  { layer: 'LA', label: 'Application' },
  { layer: 'LR', label: 'Runtime' },
  { layer: 'LI', label: 'IPC' },
  { layer: 'LD', label: 'Driver' },
  { layer: 'LC', label: 'CPU' },
];

/** The text of one value as AOSP prints it after its substitutions (` 0.00%`, ` 0.00`, ` nan`). */
export function cellText(v: number, percent = false): string {
  const s = pyFixed2(v);
  if (percent) {
    if (s === '0.00') return '-';
    return s === 'nan' ? 'n/a%' : `${s}%`;
  }
  if (s === '0.00') return '-';
  if (s === 'nan') return 'n/a';
  return s;
}

const RULE_ALL = '='.repeat(139);
const RULE_EXEC = '='.repeat(80);

/** The layout of the all-phases table: `{KEY:f}` is a value right-aligned in 9 columns with 2 decimals, `{KEY:fl}` in 11. */
const TEMPLATE_ALL_PHASES = [
  '',
  RULE_ALL,
  `NNAPI timing summary (self-times, ms wall-clock)${' '.repeat(54)}Execution`,
  `${' '.repeat(59)}${'-'.repeat(52)}`,
  '              Initialization   Preparation   Compilation           I/O       Compute      Results     Ex. total   Termination        Total',
  '              --------------   -----------   -----------   -----------  ------------  -----------   -----------   -----------   ----------',
  ...(
    [
      ['Application', 'LA'],
      ['Runtime', 'LR'],
      ['IPC', 'LI'],
      ['Driver', 'LD'],
      ['CPU', 'LC'],
    ] as const
  ).map(
    ([label, l]) =>
      `${label.padEnd(19)}{${l}_PI:f}     {${l}_PP:f}     {${l}_PC:f}   {${l}_PIO:fl}   {${l}_PEO:fl}    {${l}_PR:f}     {${l}_PE:f}     {${l}_PT:f}    {${l}_PO:f}${l === 'LA' ? '*' : ''}`,
  ),
  '',
  'Total              {LT_PI:f}*    {LT_PP:f}*    {LT_PC:f}*  {LT_PIO:fl}*  {LT_PEO:fl}*   {LT_PR:f}*    {LT_PE:f}*    {LT_PT:f}*   {LT_PO:f}*',
  RULE_ALL,
  '* This total ignores missing (n/a) values and thus is not necessarily consistent with the rest of the numbers',
  '',
].join('\n');

const TEMPLATE_EXECUTION_ONLY = [
  '',
  RULE_EXEC,
  `NNAPI timing summary (self-times, ms wall-clock)${' '.repeat(23)}Execution`,
  `${' '.repeat(14)}${'-'.repeat(66)}`,
  '                      I/O       Compute      Results         Total    Percentage',
  '              -----------  ------------  -----------   -----------   -----------',
  ...(
    [
      ['Application', 'LA'],
      ['Runtime', 'LR'],
      ['IPC', 'LI'],
      ['Driver', 'LD'],
      ['CPU', 'LC'],
    ] as const
  ).map(([label, l]) => `${label.padEnd(14)}{${l}_PIO:fl}   {${l}_PEO:fl}    {${l}_PR:f}     {${l}_PE:f}  {${l}_PEp:fl}%`),
  '',
  'Total         {LT_PIO:fl}*  {LT_PEO:fl}*   {LT_PR:f}*    {LT_PE:f}          100%',
  RULE_EXEC,
  '* This total ignores missing (n/a) values and thus is not necessarily consistent',
  '  with the rest of the numbers',
  '',
].join('\n');

/**
 * The table as parse_systrace.py prints it: the starting mark, then the template filled in with
 * Python's `{:>9.2f}` / `{:>11.2f}`, then, on the whole text, ` 0.00%` -> `     -`, ` 0.00` ->
 * `    -`, ` nan` -> ` n/a`; the CPU row is left out unless `hasCpu`.
 */
export function renderTable(startingMark: string, inputs: TemplateInputs, opts: TemplateOptions, hasWarmupAndBenchmark: boolean): string {
  let template = opts.perExecution ? TEMPLATE_EXECUTION_ONLY : TEMPLATE_ALL_PHASES;
  if (opts.totalTimes) template = template.split('self-times').join('total time');
  if (hasWarmupAndBenchmark && opts.perExecution) template = template.split('Execution').join('Benchmark');
  let out = template.replace(/\{([A-Z]+_[A-Za-z]+):(fl|f)\}/g, (_m, key: string, f: string) => pyFixed2(inputs.values[key] ?? NaN).padStart(f === 'fl' ? 11 : 9));
  out = out.split(' 0.00%').join('     -').split(' 0.00').join('    -').split(' nan').join(' n/a');
  const lines = out.split('\n');
  lines.pop(); // the template ends with a line break
  return `${startingMark}\n${lines
    .filter((l) => inputs.hasCpu || l.slice(0, 3) !== 'CPU')
    .map((l) => `${l}\n`)
    .join('')}`;
}

export interface TableSource {
  upstream: Aggregate;
  exact: Aggregate;
}

function contributionIds(agg: Aggregate, layer: string, column: string, nestedPrefix: string): number[] {
  const c = agg.contributions;
  const get = (phase: string): number[] => c.get(`${nestedPrefix}${phase}:${layer}`) ?? [];
  if (column === 'PEO' || column === 'PEp') {
    const set = new Set<number>();
    for (const p of ['PE', 'PIO', 'PR']) for (const id of get(p)) set.add(id);
    return [...set];
  }
  return get(column);
}

/** Builds a table (cells with values, text and contributing marks) and its AOSP text. */
export function buildTable(startingMark: string, src: TableSource, opts: TemplateOptions): TimingTable {
  const up = templateInputs(src.upstream, opts);
  const ex = templateInputs(src.exact, opts);
  const perExecution = !!opts.perExecution;
  const cols = perExecution ? PER_EXECUTION_COLUMNS : ALL_PHASES_COLUMNS;
  const nestedPrefix = perExecution && src.upstream.hasWarmupAndBenchmark ? 'PBM:' : '';
  const showCpu = up.hasCpu;
  const rows: TableRow[] = [];
  const heading = `NNAPI timing summary (${opts.totalTimes ? 'total time' : 'self-times'}, ms wall-clock)`;
  const right = perExecution && src.upstream.hasWarmupAndBenchmark ? 'Benchmark' : 'Execution';
  const makeCells = (layer: TableLayer, starAll: boolean, starLast: boolean): TableCell[] =>
    cols.map((c, i) => {
      const key = `${layer}_${c.key}`;
      const v = up.values[key] ?? NaN;
      const e = ex.values[key] ?? NaN;
      const isPercent = !!c.percent;
      return {
        column: c.key,
        value: Number.isNaN(v) ? null : v,
        exactMs: Number.isNaN(e) ? null : isPercent ? e : e / 1000,
        text: cellText(v, isPercent),
        starred: starAll ? !(perExecution && (c.key === 'PE' || c.key === 'PEp')) : starLast && i === cols.length - 1,
        marks: contributionIds(src.upstream, layer, c.key, nestedPrefix),
      };
    });
  for (const r of ROWS) {
    if (r.layer === 'LC' && !showCpu) continue;
    rows.push({ layer: r.layer, label: r.label, cells: makeCells(r.layer, false, r.layer === 'LA' && !perExecution) });
  }
  const totalCells = makeCells('LT', true, false);
  if (perExecution) {
    const pIdx = totalCells.length - 1;
    totalCells[pIdx] = { ...totalCells[pIdx]!, value: 100, exactMs: 100, text: '100%', starred: false, marks: contributionIds(src.upstream, 'LT', 'PE', nestedPrefix) };
  }
  rows.push({ layer: 'LT', label: 'Total', cells: totalCells });
  const kind: TimingTable['kind'] = perExecution ? (opts.totalTimes ? 'per-execution-total' : 'per-execution-self') : opts.totalTimes ? 'total' : 'self';
  return {
    kind,
    heading: `${heading} ${right}`,
    columns: cols.map((c) => ({ key: c.key, label: c.label })),
    rows,
    showCpu,
    ...(up.executionCount !== undefined ? { executionCount: up.executionCount } : {}),
    text: renderTable(startingMark, up, opts, src.upstream.hasWarmupAndBenchmark),
  };
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

/** A table for the JSON: NaN stays NaN (written `NaN`, then replaced like upstream does). */
function tableToJson(t: Table): { [k: string]: PyJson } {
  const out: { [k: string]: PyJson } = {};
  for (const [phase, row] of Object.entries(t)) out[phase] = { ...row };
  return out;
}

/**
 * One run object as upstream dumps it: `json.dumps(obj, indent=2, sort_keys=True)`, then every
 * `NaN` in the text (strings included) replaced by `null`.
 */
export function runJson(startingMark: string, agg: Aggregate, opts: TemplateOptions): string {
  const inputs = templateInputs(agg, opts);
  const times = tableToJson(inputs.times);
  const self = tableToJson(inputs.selfTimes);
  for (const ap of ['PWU', 'PBM'] as const) {
    const n = agg.nested[ap];
    if (n) {
      times[ap] = tableToJson(n.times);
      self[ap] = tableToJson(n.selfTimes);
    }
  }
  const ti: { [k: string]: PyJson } = {};
  for (const [k, v] of Object.entries(inputs.values)) ti[k] = v;
  const obj: { [k: string]: PyJson } = {
    execution_counts: {
      PBM: new PyInt(agg.executionCounts.PBM),
      PO: new PyInt(agg.executionCounts.PO),
      PWU: new PyInt(agg.executionCounts.PWU),
    },
    self_times: self,
    starting_mark: startingMark,
    template_inputs: ti,
    times,
    version: new PyInt(1),
  };
  return pyJsonDumps(obj).split('NaN').join('null');
}

// ---------------------------------------------------------------------------------------------
// --print-detail
// ---------------------------------------------------------------------------------------------

function pyBool(b: boolean): string {
  return b ? 'True' : 'False';
}

/** Per-tracker statistics: `<tid> App|Driver`, then each key with its contributing marks. */
export function statsDetail(tracker: Tracker, stats: Stats | null): string {
  let out = `${tracker.pid} ${tracker.isDriver ? 'Driver' : 'App'}\n`;
  if (!stats) return out;
  for (const [key, e] of stats) {
    out += `${key} ${pyFloatRepr(e.total)}\n`;
    for (const it of e.items) {
      const v = pyFloatRepr(it.value);
      out += `   ${it.node.mark ?? 'None'} ${v} ${v} ${key}\n`;
    }
  }
  return out;
}

/** A call tree dump: ` ROOT `, `children:`, and `<app_phase> <mark> <ms> subtract:  <bool> ` per node. */
export function treeDetail(root: CallNode): string {
  const lines: string[] = [];
  const stack: [CallNode, number][] = [[root, 0]];
  while (stack.length) {
    const [n, indent] = stack.pop()!;
    const pad = ' '.repeat(indent);
    if (n.isRoot) lines.push(`${pad} ROOT `);
    else {
      const v = elapsedLessSubtracted(n, upstreamClock);
      lines.push(`${pad} ${n.appPhase ?? 'None'} ${n.mark ?? 'None'} ${v === null ? 'None' : pyFloatRepr(v)} subtract:  ${pyBool(n.subtract)} `);
    }
    if (n.children.length) {
      lines.push(`${' '.repeat(indent + 2)} children:`);
      for (let i = n.children.length - 1; i >= 0; i--) stack.push([n.children[i]!, indent + 4]);
    }
  }
  return `${lines.join('\n')}\n\n`;
}
