/**
 * The compile view's plain data (what crosses from the worker to the UI): the compile form, a
 * compile request, and the summary of one compile (options as resolved, diagnostics, the pass
 * timeline, origin tables of every graph, the memory plan, the origins sidecar). Types only, so
 * `core/format.ts` names them without importing the compiler; `./service.ts` builds them.
 */
import type { NvdlaStageName } from './compile';
import type { NvdlaDiagnostic } from './network/model';
import type { NvdlaCompileOptions } from './options';
import type { ViewEdgeKind } from './view';
import type { Graph } from '../graph/model';

/** The compile form's values: nvdla_compiler's options as the user types them (the table is separate). */
export type CompileOptionValues = Omit<NvdlaCompileOptions, 'calibtable'>;

/** A choice of the compile form, with the reference's default and what it does. */
export interface CompileOptionSpec {
  name: keyof CompileOptionValues;
  label: string;
  /** `choice`: one of `choices` or any text (nvdla_compiler accepts any and falls back); `int`: --batch */
  kind: 'choice' | 'int';
  choices: string[];
  default: string | number;
  help: string;
}

/** What to compile with: the form's values and a calibration table (a file of the set, or one given with its text). */
export interface CompileRequest {
  options: Partial<CompileOptionValues>;
  calibration: { file: string; text?: string } | null;
  /** the timeline step (pass name) the view shows first: its engine graph's tables come with the summary (default: the first step) */
  shown?: string;
}

/** A stage graph of a compile, listed (its drawable graph is built when asked for). */
export interface CompiledGraphInfo {
  id: string;
  name: string;
  stats: Graph['stats'];
}

/** What the compile view keeps of a stage graph beside the graph itself. */
export interface StageTables {
  /** per node (graph order): origin ids, empty for markers and constants */
  origins: number[][];
  /** per edge (graph order): data, aux (weights, bias, scale, LUT data), compute or hazard */
  edgeKinds: ViewEdgeKind[];
}

export interface PassStep {
  /** graph id of the engine graph after this step (`engine` for generateGraph) */
  graphId: string;
  name: string;
  /** node ids (`n-7`) and NVDLA names for people */
  added: { id: string; name: string }[];
  removed: { id: string; name: string; into: string | null }[];
  changed: { id: string; name: string }[];
  /** nodes whose origins grew in this step (a fusion): node name and the Caffe layers it now stands for */
  unioned: { id: string; name: string; layers: string[] }[];
  notes: string[];
  nodes: number;
}

/** One buffer's life in a pool: placed at op `first`, free again after op `last` (indexes into `MemoryPlan.ops`). */
export interface PlannedBuffer {
  buffer: string;
  surfaces: string[];
  offset: number;
  size: number;
  first: number;
  last: number;
  batch: number;
  /** data copied in at load time (weights, bias): lives for the whole run */
  content: boolean;
  /** engine node names that write or read it */
  users: string[];
  /** Caffe layers of its users */
  layers: string[];
}

export interface PlannedPool {
  name: string;
  size: number;
  used: number;
  buffers: PlannedBuffer[];
  /** the largest number of buffers sharing an address at some op (reuse when > 1 over the run) */
  reused: number;
}

export interface MemoryPlan {
  /** the op slots in execution order: task, slot, engine node and batch */
  ops: { task: number; slot: number; node: string; name: string; batch: number }[];
  pools: PlannedPool[];
  /** buffers in memory of their own (bindable inputs and outputs) */
  outside: { buffer: string; surface: string; size: number; first: number }[];
}

/** `<profile>.origins.json`: which Caffe layers each task's op slots came from. */
export interface OriginsSidecar {
  loadable: string;
  profile: string;
  target: string;
  precision: string;
  batch: number;
  /** origin id -> Caffe layer name */
  sources: { id: number; name: string }[];
  tasks: {
    id: number;
    interface: string;
    ops: { slot: number; batch: number; node: string; name: string; layers: string[]; origins: number[] }[];
  }[];
}

export interface CompileSummary {
  /** the form's values as compiled, the table's file name */
  options: CompileOptionValues;
  calibration: string | null;
  resolved: { profile: string; target: string; precision: string; batch: number; inputFormat: string } | null;
  diagnostics: NvdlaDiagnostic[];
  reached: NvdlaStageName | null;
  /** canonical, engine, pass:0 .. */
  graphs: CompiledGraphInfo[];
  /** the tables of the graphs built with the summary: the canonical graph and the engine graph of the step shown first (the others: `CompiledNet.stage`) */
  stages: Record<string, StageTables>;
  /** generateGraph then every pass that ran */
  timeline: PassStep[];
  /** origin id -> Caffe layer name */
  sources: { id: number; name: string }[];
  /** per node of the Caffe graph `caffeGraphId`: origin ids (its layer and the layers folded into it) */
  caffeGraphId: string;
  caffeOrigins: number[][];
  memory: MemoryPlan | null;
  origins: OriginsSidecar | null;
  /** `<profile>.nvdla`, its size (null when compile stopped before emit) */
  loadableName: string;
  loadableSize: number | null;
  ms: number;
}

/** Caffe layer names -> the Caffe graph's nodes, for the origin match. */
export interface CaffeGraphNames {
  graphId: string;
  /** per node: the names of the layers it draws (its own, then folded ones) */
  names: string[][];
}
