/**
 * Output (AOSP `parser/output.py`): the template inputs, the two text tables exactly as
 * parse_systrace.py prints them, the JSON run objects and the `--print-detail` dumps.
 */
import type { Aggregate, Table } from './aggregate';
import type { TableCell, TableLayer, TableRow, TimingTable } from './model';
import { pyFixed2, pyFloatRepr, PyInt, type PyJson, pyJsonDumps } from './pyformat';
import { elapsedLessSubtracted, type CallNode, upstreamClock } from './tree';
import type { Stats, Tracker } from './tracker';

export const TEMPLATE_LAYERS = ['LA', 'LC', 'LD', 'LI', 'LR', 'LT'] as const;
export const TEMPLATE_PHASES = ['PC', 'PE', 'PEO', 'PI', 'PIO', 'PO', 'PP', 'PR', 'PT'] as const;

export interface TemplateOptions {
  totalTimes?: boolean;
  perExecution?: boolean;
}

export interface TemplateInputs {
  values: Record<string, number>;
  executionCount?: number;
}

/** The `template_inputs` dictionary (NaN = missing). */
export function templateInputs(agg: Aggregate, opts: TemplateOptions): TemplateInputs {
  let src: Table;
  let count: number | undefined;
  if (opts.perExecution) {
    const nested = agg.hasWarmupAndBenchmark ? agg.nested.PBM : undefined;
    if (nested) {
      src = opts.totalTimes ? nested.times : nested.selfTimes;
      count = agg.executionCounts.PBM;
    } else {
      src = opts.totalTimes ? agg.times : agg.selfTimes;
      count = agg.executionCounts.PO;
    }
  } else {
    src = opts.totalTimes ? agg.times : agg.selfTimes;
  }
  const values: Record<string, number> = {};
  const get = (phase: string, layer: string): number => {
    const row = src[phase];
    if (!row) return NaN;
    const v = row[layer]!;
    if (count === undefined) return v;
    return count === 0 ? NaN : v / count;
  };
  for (const layer of TEMPLATE_LAYERS) {
    for (const phase of ['PI', 'PP', 'PC', 'PE', 'PT', 'PO', 'PIO', 'PR'] as const) {
      if (src[phase]) values[`${layer}_${phase}`] = get(phase, layer);
    }
    values[`${layer}_PEO`] = get('PE', layer) - get('PIO', layer) - get('PR', layer);
  }
  const ltPe = get('PE', 'LT');
  for (const layer of TEMPLATE_LAYERS) {
    if (layer === 'LT') continue;
    const pe = get('PE', layer);
    values[`${layer}_PEp`] = ltPe === 0 ? 0.0 : (pe * 100) / ltPe;
  }
  return { values, executionCount: count };
}

// ---------------------------------------------------------------------------------------------
// text tables
// ---------------------------------------------------------------------------------------------

interface ColumnSpec {
  key: string;
  label: string;
  width: number;
  /** 1-based column where the value's last character falls */
  end: number;
  percent?: boolean;
}

const ALL_PHASES_COLUMNS: ColumnSpec[] = [
  { key: 'PI', label: 'Initialization', width: 9, end: 28 },
  { key: 'PP', label: 'Preparation', width: 9, end: 42 },
  { key: 'PC', label: 'Compilation', width: 9, end: 56 },
  { key: 'PIO', label: 'I/O', width: 11, end: 70 },
  { key: 'PEO', label: 'Compute', width: 11, end: 84 },
  { key: 'PR', label: 'Results', width: 9, end: 97 },
  { key: 'PE', label: 'Ex. total', width: 9, end: 111 },
  { key: 'PT', label: 'Termination', width: 9, end: 125 },
  { key: 'PO', label: 'Total', width: 9, end: 138 },
];

const PER_EXECUTION_COLUMNS: ColumnSpec[] = [
  { key: 'PIO', label: 'I/O', width: 11, end: 25 },
  { key: 'PEO', label: 'Compute', width: 11, end: 39 },
  { key: 'PR', label: 'Results', width: 9, end: 52 },
  { key: 'PE', label: 'Total', width: 9, end: 66 },
  { key: 'PEp', label: 'Percentage', width: 9, end: 79, percent: true },
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

function renderRow(label: string, cols: ColumnSpec[], texts: string[], stars: boolean[]): string {
  let line = label;
  for (let i = 0; i < cols.length; i++) {
    const c = cols[i]!;
    const start = c.end - c.width; // 0-based index where the field starts
    const gap = i === 0 ? start - label.length : start - (cols[i - 1]!.end);
    // the previous star (if any) took the first character of this gap
    const prevStar = i > 0 && stars[i - 1] ? 1 : 0;
    line += ' '.repeat(Math.max(i === 0 ? 1 : 0, gap - prevStar));
    let t = texts[i]!;
    if (c.percent) t = t.endsWith('%') ? `${t.slice(0, -1).padStart(c.width)}%` : t.padStart(c.width + 1);
    else t = t.padStart(c.width);
    line += t;
    if (stars[i]) line += '*';
  }
  return line;
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
export function buildTable(
  startingMark: string,
  src: TableSource,
  opts: TemplateOptions,
): TimingTable {
  const up = templateInputs(src.upstream, opts);
  const ex = templateInputs(src.exact, opts);
  const perExecution = !!opts.perExecution;
  const cols = perExecution ? PER_EXECUTION_COLUMNS : ALL_PHASES_COLUMNS;
  const nestedPrefix = perExecution && src.upstream.hasWarmupAndBenchmark ? 'PBM:' : '';
  const showCpu = cols.some((c) => (up.values[`LC_${c.key}`] ?? 0) > 0);
  const rows: TableRow[] = [];
  const textLines: string[] = [];
  const width = perExecution ? 80 : 139;
  const what = opts.totalTimes ? 'total time' : 'self-times';
  const heading = `NNAPI timing summary (${what}, ms wall-clock)`;
  const right = perExecution && src.upstream.hasWarmupAndBenchmark ? 'Benchmark' : 'Execution';
  textLines.push(startingMark, '', '='.repeat(width));
  if (perExecution) {
    textLines.push(heading + right.padStart(80 - heading.length));
    textLines.push(`${' '.repeat(14)}${'-'.repeat(66)}`);
    textLines.push('                      I/O       Compute      Results         Total    Percentage');
    textLines.push('              -----------  ------------  -----------   -----------   -----------');
  } else {
    textLines.push(heading + right.padStart(111 - heading.length));
    textLines.push(`${' '.repeat(59)}${'-'.repeat(52)}`);
    textLines.push(
      '              Initialization   Preparation   Compilation           I/O       Compute      Results     Ex. total   Termination        Total',
    );
    textLines.push(
      '              --------------   -----------   -----------   -----------  ------------  -----------   -----------   -----------   ----------',
    );
  }
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
    const cells = makeCells(r.layer, false, r.layer === 'LA' && !perExecution);
    rows.push({ layer: r.layer, label: r.label, cells });
    textLines.push(
      renderRow(
        r.label,
        cols,
        cells.map((c) => c.text),
        cells.map((c) => c.starred),
      ),
    );
  }
  textLines.push('');
  const totalCells = makeCells('LT', true, false);
  if (perExecution) {
    const pIdx = totalCells.length - 1;
    totalCells[pIdx] = { ...totalCells[pIdx]!, value: 100, exactMs: 100, text: '100%', starred: false, marks: contributionIds(src.upstream, 'LT', 'PE', nestedPrefix) };
  }
  rows.push({ layer: 'LT', label: 'Total', cells: totalCells });
  if (perExecution) {
    const main = renderRow(
      'Total',
      cols.slice(0, -1),
      totalCells.slice(0, -1).map((c) => c.text),
      totalCells.slice(0, -1).map((c) => c.starred),
    );
    textLines.push(`${main}          100%`);
  } else {
    textLines.push(
      renderRow(
        'Total',
        cols,
        totalCells.map((c) => c.text),
        totalCells.map((c) => c.starred),
      ),
    );
  }
  textLines.push('='.repeat(width));
  if (perExecution) {
    textLines.push('* This total ignores missing (n/a) values and thus is not necessarily consistent');
    textLines.push('  with the rest of the numbers');
  } else {
    textLines.push('* This total ignores missing (n/a) values and thus is not necessarily consistent with the rest of the numbers');
  }
  const kind: TimingTable['kind'] = perExecution ? (opts.totalTimes ? 'per-execution-total' : 'per-execution-self') : opts.totalTimes ? 'total' : 'self';
  return {
    kind,
    heading: `${heading} ${right}`,
    columns: cols.map((c) => ({ key: c.key, label: c.label })),
    rows,
    showCpu,
    executionCount: up.executionCount,
    text: `${textLines.join('\n')}\n`,
  };
}

// ---------------------------------------------------------------------------------------------
// JSON
// ---------------------------------------------------------------------------------------------

function tableToJson(t: Table): { [k: string]: PyJson } {
  const out: { [k: string]: PyJson } = {};
  for (const [phase, row] of Object.entries(t)) {
    const r: { [k: string]: PyJson } = {};
    for (const [layer, v] of Object.entries(row)) r[layer] = Number.isNaN(v) ? null : v;
    out[phase] = r;
  }
  return out;
}

/** One run object as upstream dumps it (`json.dumps(obj, indent=2, sort_keys=True)`). */
export function runJson(startingMark: string, agg: Aggregate, opts: TemplateOptions): string {
  const times = tableToJson(agg.times);
  const self = tableToJson(agg.selfTimes);
  for (const ap of ['PWU', 'PBM'] as const) {
    const n = agg.nested[ap];
    if (n) {
      times[ap] = tableToJson(n.times);
      self[ap] = tableToJson(n.selfTimes);
    }
  }
  const ti: { [k: string]: PyJson } = {};
  for (const [k, v] of Object.entries(templateInputs(agg, { totalTimes: opts.totalTimes }).values)) ti[k] = Number.isNaN(v) ? null : v;
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
  return pyJsonDumps(obj);
}

// ---------------------------------------------------------------------------------------------
// --print-detail
// ---------------------------------------------------------------------------------------------

function pyBool(b: boolean): string {
  return b ? 'True' : 'False';
}

/** Per-tracker statistics: `<tid> App|Driver`, then each key with its contributing marks. */
export function statsDetail(tracker: Tracker, stats: Stats | null): string {
  let out = `${tracker.tid} ${tracker.isDriver ? 'Driver' : 'App'}\n`;
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
