/**
 * NNAPI systrace: names of layers and phases (AOSP `parser/naming.py`) and the plain,
 * serialisable result types the analysis returns (for the CLI, the worker and the Profile view).
 */
import type { Diagnostic } from '../errors';

export const LAYER_APPLICATION = 'LA';
export const LAYER_RUNTIME = 'LR';
export const LAYER_IPC = 'LI';
export const LAYER_DRIVER = 'LD';
export const LAYER_CPU = 'LC';
export const LAYER_OTHER = 'LO';
export const LAYER_UTILITY = 'LU';
export const LAYER_IGNORE = 'LX';
export const LAYER_TOTAL = 'LT';

export const PHASE_OVERALL = 'PO';
export const PHASE_WARMUP = 'PWU';
export const PHASE_BENCHMARK = 'PBM';
export const PHASE_INITIALIZATION = 'PI';
export const PHASE_PREPARATION = 'PP';
export const PHASE_COMPILATION = 'PC';
export const PHASE_EXECUTION = 'PE';
export const PHASE_TERMINATION = 'PT';
export const PHASE_UNSPECIFIED = 'PU';
export const PHASE_INPUTS_AND_OUTPUTS = 'PIO';
export const PHASE_TRANSFORMATION = 'PTR';
export const PHASE_COMPUTATION = 'PCO';
export const PHASE_RESULTS = 'PR';

/** Layers that are counted, top-down. */
export const COUNTED_LAYERS = ['LA', 'LR', 'LI', 'LD', 'LC'] as const;
export type CountedLayer = (typeof COUNTED_LAYERS)[number];
export type TableLayer = CountedLayer | 'LT';
/** Subphases of execution. */
export const EXECUTION_SUBPHASES = ['PIO', 'PTR', 'PCO', 'PR'] as const;
/** Phases of the `times` dictionary, in upstream's insertion order. */
export const TIME_PHASES = ['PI', 'PP', 'PC', 'PE', 'PT', 'PO', 'PIO', 'PTR', 'PCO', 'PR'] as const;
export type TimePhase = (typeof TIME_PHASES)[number];
/** Phases that make up the overall (PO) fallback sum. */
export const TOP_PHASES = ['PI', 'PP', 'PC', 'PE', 'PT'] as const;
export const APP_PHASES = ['PO', 'PWU', 'PBM'] as const;
export type AppPhaseName = (typeof APP_PHASES)[number];

/** `subphases` of naming.py: which phases nest directly as parts of another. */
export const SUBPHASES: Readonly<Record<string, readonly string[]>> = {
  PO: ['PWU', 'PBM', 'PI', 'PP', 'PC', 'PE', 'PT'],
  PWU: ['PE'],
  PBM: ['PE'],
  PE: ['PIO', 'PTR', 'PCO', 'PR'],
};

export function isSubphaseOf(phase: string | null, parentPhase: string | null): boolean {
  if (parentPhase === null || phase === null) return false;
  return Object.hasOwn(SUBPHASES, parentPhase) && SUBPHASES[parentPhase]!.includes(phase);
}

export function isExecutionSubphase(phase: string | null): boolean {
  return phase === 'PIO' || phase === 'PTR' || phase === 'PCO' || phase === 'PR';
}

export const LAYER_NAMES: Readonly<Record<string, string>> = {
  LA: 'Application',
  LR: 'Runtime',
  LI: 'IPC',
  LD: 'Driver',
  LC: 'CPU',
  LO: 'Other',
  LU: 'Utility',
  LX: 'Ignored',
  LT: 'Total',
};

export const PHASE_NAMES: Readonly<Record<string, string>> = {
  PO: 'Overall',
  PWU: 'Warmup',
  PBM: 'Benchmark',
  PI: 'Initialization',
  PP: 'Preparation',
  PC: 'Compilation',
  PE: 'Execution',
  PT: 'Termination',
  PU: 'Unspecified',
  PIO: 'I/O',
  PTR: 'Transformation',
  PCO: 'Computation',
  PR: 'Results',
};

// ------------------------------------------------------------------------------------------
// Result types (plain data, structured-clone safe)
// ------------------------------------------------------------------------------------------

/** `{ phase: { layer: value } }`; `null` = NaN upstream ("missing", shown as n/a). */
export type PhaseLayerTable = Record<string, Record<string, number | null>>;

/** Everything upstream's `aggregate_times` computes for one run, in one unit. */
export interface RunTimes {
  /** flat table (PO, and PWU + PBM when both are present) plus `PWU` / `PBM` nested tables */
  times: Record<string, Record<string, number | null> | PhaseLayerTable>;
  selfTimes: Record<string, Record<string, number | null> | PhaseLayerTable>;
  executionCounts: Record<AppPhaseName, number>;
  hasWarmupAndBenchmark: boolean;
}

/** One mark (atrace section) of a tracked thread, after the tree rewrites; times in integer µs. */
export interface TimelineMark {
  /** unique within the analysis; table cells refer to these ids */
  id: number;
  /** id of the enclosing mark in this thread's tree, null at top level */
  parent: number | null;
  depth: number;
  /** 1-based line of the `B` mark in the file (copies carry the original's line) */
  line: number;
  beginUs: number;
  /** null while the mark is still open at the end of an incomplete run */
  endUs: number | null;
  /** full mark text as upstream keeps it, e.g. `B|27005|[NN_LA_PE]BenchmarkModel::benchmark` */
  mark: string;
  /** function name: the text after the tag, markers removed */
  name: string;
  layer: string;
  /** phase as written (PU stays PU) */
  phase: string;
  /** phase after resolving PU to the parent's phase */
  effectivePhase: string;
  /** application phase (PO, PWU or PBM) current when the mark began */
  appPhase: string;
  /** the time is taken off an enclosing mark (a `[SUB]` mark or a moved original) */
  subtract: boolean;
  /** the mark adds nothing by itself: same-layer detail of its parent */
  addedDetail: boolean;
  /** set on copies made by the rewrites: the original's id and why */
  copyOf?: number;
  copyReason?: 'subtract' | 'initialization' | 'app-phase';
  /** an LA node the parser inserted (add_missing_la_nodes) */
  synthetic?: boolean;
  /** an ignored (LX) mark the rewrites deleted: drawn for reference, counts only in LD_PE pairing */
  ignored?: boolean;
  /** the mark was written with `[SW]` / `[SUB]` */
  switched?: boolean;
  elapsedUs: number | null;
  /** elapsed minus the elapsed time of the direct children (classic self time) */
  selfUs: number | null;
  /** what the parser counts for this mark: elapsed less subtracted children (µs) */
  countedUs: number | null;
  /** statistic keys the mark was added to, e.g. `PO_LD_PC` (empty when it adds nothing) */
  statKeys: string[];
}

export interface TimelineThread {
  tid: number;
  tgid: number;
  task: string;
  kind: 'app' | 'driver';
  marks: TimelineMark[];
}

export interface TableCell {
  /** column key: PI PP PC PIO PEO PR PE PT PO (and PEp in the per-execution table) */
  column: string;
  /** value in ms computed with upstream's float arithmetic (null = n/a) */
  value: number | null;
  /** the same value computed from exact integer microseconds, in ms */
  exactMs: number | null;
  /** the text AOSP prints for the cell (`n/a`, `-`, `18.43`, `47.06%`) */
  text: string;
  starred: boolean;
  /** ids of the marks that contributed to the underlying total(s) */
  marks: number[];
}

export interface TableRow {
  layer: TableLayer;
  label: string;
  cells: TableCell[];
}

export interface TimingTable {
  kind: 'self' | 'total' | 'per-execution-self' | 'per-execution-total';
  heading: string;
  columns: { key: string; label: string }[];
  rows: TableRow[];
  /** whether the CPU row is shown (some CPU cell above 0) */
  showCpu: boolean;
  /** the execution count values were divided by (per-execution tables) */
  executionCount?: number;
  /** the table as AOSP prints it (starting mark line included) */
  text: string;
}

export type RunStatus = 'complete' | 'incomplete' | 'invalid';

/**
 * What AOSP's parser does with the run when its end is reached: prints it; skips it with
 * `Incomplete trace, not able to print all statistics`; raises while printing it (`failed`: the
 * JSON separator is out, nothing else); or never gets there, having stopped earlier (`not-reached`).
 */
export type RunOutput = 'printed' | 'incomplete' | 'failed' | 'not-reached';

export interface RunResult {
  index: number;
  /** the `[NN_LA_PO]` mark text that started the run, '' when the trace has none */
  startingMark: string;
  /** 1-based file lines: the starting mark (or first mark) and the last mark of the run */
  firstLine: number;
  lastLine: number;
  status: RunStatus;
  /** what upstream does with the run (see RunOutput) */
  output: RunOutput;
  /** whether upstream prints this run's table (output === 'printed') */
  printed: boolean;
  threads: TimelineThread[];
  /** upstream float arithmetic (ms) */
  upstream?: RunTimes;
  /** exact arithmetic on integer µs, converted to ms */
  exact?: RunTimes;
  tables?: {
    self: TimingTable;
    total: TimingTable;
    perExecutionSelf: TimingTable;
    perExecutionTotal: TimingTable;
  };
  diagnostics: Diagnostic[];
  /** the `--print-detail` dump of this run (per-thread statistics and call trees), when asked for */
  detailText?: string;
}

export interface DroppedMark {
  line: number;
  tid: number;
  tgid: number;
  task: string;
  mark: string;
  layer: string;
  phase: string;
}

export interface TrackedThread {
  /** the PID column text (upstream keys threads by it) */
  pid: string;
  tid: number;
  tgid: number;
  task: string;
  kind: 'app' | 'driver';
}

export interface SystraceAnalysis {
  file: string;
  format: TraceFormat;
  hasRuntimeTrace: boolean;
  threads: TrackedThread[];
  runs: RunResult[];
  /** HIDL / NNAPI marks on threads the parser does not track (dropped silently upstream) */
  droppedMarks: DroppedMark[];
  diagnostics: Diagnostic[];
  /** the first error at which AOSP's parser stops (its output ends there; exit status 1) */
  fatal?: FatalError;
  markCount: number;
}

/** Where and why AOSP's parser raises. */
export interface FatalError {
  line?: number;
  message: string;
  /** the line as read, when a mark line is the cause */
  lineText?: string;
  /**
   * input: while reading the lines (it prints nothing at all); mark: handling a mark of a tracked
   * thread (it prints `failed on line N <line>` first); untracked-mark: an IDevice mark on a thread
   * it does not track (AssertionError); run: computing a run's statistics (after the run's JSON
   * separator)
   */
  stage: 'input' | 'mark' | 'untracked-mark' | 'run';
  /** stage 'run': the index of the run being printed */
  run?: number;
  /** what upstream writes to standard output just before raising */
  stdout?: string;
}

export type TraceFormat = 'html' | 'ftrace' | 'unknown';

export interface AnalyseOptions {
  /** LR_PE from startCompute..wait pairs plus synchronous calls (upstream default true) */
  specialCaseLrPe?: boolean;
  /** keep per-run timelines (default true; the CLI turns it off for speed) */
  timeline?: boolean;
  /**
   * build each run's four TimingTables and its exact-arithmetic times (default true, for the
   * Profile view); false keeps only `upstream`, from which formatText and formatJson print (the
   * CLI prints one table and needs no more)
   */
  tables?: boolean;
  /** also produce each run's `--print-detail` dump */
  detail?: boolean;
}

export interface OutputOptions {
  totalTimes?: boolean;
  perExecution?: boolean;
  printDetail?: boolean;
}
