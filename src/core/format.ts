/**
 * The face every format presents once its file set is open (DESIGN.md: one format = one folder
 * with the same face). A format folder implements this; the registry (`core/document.ts`) lists
 * the folders; the worker, the CLI and (through the worker API) the UI only ever see this face.
 *
 * What a document can do is a set of capabilities. Each capability has exactly one service
 * interface in `DocumentServices`; a format fills in the services it offers and the registry
 * derives `summary.capabilities` from them, so the two can never disagree. A view asks
 * `summary.capabilities` whether to show itself and reaches the service through the worker; no
 * code outside a format's folder compares format names.
 *
 * Adding a capability (a Caffe forward run, the NVDLA loadable's tables, a compile view): add
 * its service interface here under a new key, implement it in the formats that have it, expose
 * it in the worker API, and make its view ask for it. Adding a format: a folder with a
 * `format.ts` entry (name, cheap detect, lazy load) and one line in `core/document.ts`.
 *
 * Types, the capability list and `documentSummary`: nothing here imports a format.
 */
import type { Diagnostic } from './errors';
import type { Graph, GraphNode, ModelSummary } from './graph/model';
import type { GraphPack } from './graph/pack';
import type { TensorDetails } from './circle/values';
import type { SystraceAnalysis } from './systrace/model';
import type { PreparedModel } from './partition/prepare';
import type { Origins } from './origin/origins';
import type { PassLog } from './optimize/optimize';
import type { CaffeKernels } from './caffe/forward/heavy';
import type { BlobDetail, LoadableOverview, SlotView } from './loadable/view';
import type { MemoryArea } from './loadable/memory-map';
import type { LoadableDiff } from './loadable/diff';
import type { CompileRequest, CompileSummary, StageTables } from './nvdla/compile-summary';
import type { LoadableComparison, LoadableRunHooks, LoadableRunOutcome, LoadableRunPlan, LoadableRunRequest, PlaneSlice } from './dla/run-types';

export interface SourceFile {
  name: string;
  bytes: Uint8Array;
  /**
   * `bytes` is the format's skeleton of a large file (`FormatEntry.skeleton`): its structure
   * without the bulk data; the worker opens the whole file again once it is read
   */
  skeleton?: boolean;
}

export interface NodeDetails {
  node: GraphNode;
  /** extra rows for the side panel, e.g. custom_code, origin ids */
  extra: { name: string; value: string }[];
}

/** `graph`: the document is drawn as graphs (nodes, edges), with node and tensor details and find. */
export interface GraphService {
  /** builds (and caches) the graph with this id (`summary.graphs[i].id`) */
  graph(graphId: string): Graph;
  /**
   * The graph packed for drawing, written without building the Graph first (a format with a
   * faster path than `packGraph(graph(graphId))`, which callers use otherwise). Same content.
   */
  pack?(graphId: string): GraphPack;
  nodeDetails(graphId: string, nodeIndex: number): NodeDetails;
  /**
   * A tensor's details; a constant's values as text wrapped at `valuesWidth` characters (the
   * side panel's width; `PANEL_WIDTH` when not given). Formats without value text ignore it.
   */
  tensorDetails(graphId: string, tensor: number, valuesWidth?: number): TensorDetails;
  /** a constant tensor's values as a NumPy `.npy` file (null: no values to export); formats without it offer no export */
  tensorNpy?(graphId: string, tensor: number): { name: string; bytes: Uint8Array } | null;
}

/** `partition`: circle-partitioner `.part` files apply to it (subgraph 0). */
export interface PartitionService {
  /** the flat operator / tensor arrays the partitioner works on (made once, on first use) */
  prepared(): PreparedModel;
  /** the main file (part models copy its buffers) */
  source: SourceFile;
}

/** `origins`: ONE origin tables (read from the file, or synthesised as luci's importer does). */
export interface OriginsService {
  /** origins of a graph's operators (`summary.graphs[i].id`) */
  origins(graphId: string): Origins;
}

/** What an optimization produced: the new file, and how its operators relate to the source's. */
export interface OptimizeOutput {
  /** the optimized model as a file of the same format, origin tables included */
  file: SourceFile;
  log: PassLog[];
  /** dead items removed after the passes */
  removed: { tensors: number; buffers: number; opcodes: number };
  /** operator indices of the main graph: source -> optimized, optimized -> source (through shared origin ids) */
  sourceToOptimized: number[][];
  optimizedToSource: number[][];
  /** the graph the operator indices above belong to, in both documents */
  graphId: string;
}

/** `optimize`: origin-preserving passes rewrite the model into a new file. */
export interface OptimizeService {
  /** the pass names, in pipeline order */
  passes(): string[];
  optimize(passes: string[]): OptimizeOutput;
}

/** `profile`: a timing capture (systrace), shown as tables and a timeline rather than a graph. */
export interface ProfileService {
  analysis(): SystraceAnalysis;
}

/** Options of `npu-studio inspect` that a format may understand (besides --json). */
export interface InspectOptions {
  /** circle: the origin table of subgraph 0 */
  origins?: boolean;
}

/**
 * `inspect`: what the command line's `inspect` prints, in the format's own words (each format's
 * `--json` keys are given by the issue that introduced the format: add keys, never rename). A
 * format without this service gets the generic summary (`summary` and diagnostics).
 */
export interface InspectService {
  /** the `inspect` options this format understands, e.g. `origins` (circle); others are usage errors */
  options: readonly (keyof InspectOptions)[];
  /** `inspect --json` */
  json(options: InspectOptions): unknown;
  /** `inspect` as text */
  text(options: InspectOptions): string;
  /** `inspect --dump`: every decoded field, one a line (formats that have descriptors to dump) */
  dump?(): string;
}

/**
 * `loadable`: an NVDLA loadable's tables, descriptors and blobs (plain data, each built when a
 * view asks for it; blob bytes leave only as a window), and its semantic comparison with another.
 */
export interface LoadableService {
  /** tasks with their op slots, every list with its cross references, the damage */
  overview(): LoadableOverview;
  /** an op slot (or EMU op) by its op-slot graph node index, descriptors field by field; null past the ops */
  slot(node: number): SlotView | null;
  /** each memory entry with the regions blobs and surfaces occupy and who reads and writes them */
  memoryMap(): MemoryArea[];
  /** what lies where in blob `index`, and its values (LUT curves, weight histogram); null past the list */
  blob(index: number): BlobDetail | null;
  /** a copy of bytes `offset .. offset + length` of blob `index` (at most 1 MiB) */
  blobBytes(index: number, offset: number, length: number): Uint8Array;
  /** notes/nvdla.md section 13 against another loadable document's service (this one is A) */
  compare(other: LoadableService): LoadableDiff;
}

/** What the worker keeps of a compile: the summary, the loadable bytes, and the stage graphs to draw. */
export interface CompiledNet {
  summary: CompileSummary;
  bytes: Uint8Array | null;
  /** graphs `canonical`, `engine` and `pass:N` (the engine graph after pass N), each built when first asked for */
  graph: GraphService;
  /** a stage graph's origin and edge-kind tables (built with the graph when not yet) */
  stage(graphId: string): StageTables;
}

/**
 * `compile`: the NVDLA compiler over the document (a Caffe net with its weights): every stage as
 * graphs, the pass timeline, the memory plan, the loadable bytes and its origins sidecar.
 */
/** Where a compile is: before step `done` (0-based) of `total` (`network`, `canonical`, `generateGraph`, a pass name, `emit`). */
export interface CompileProgressEvent {
  step: string;
  done: number;
  total: number;
}

export interface CompileHooks {
  /** before every step; a returned Promise is awaited (a worker yields to its event loop there) */
  onProgress?(p: CompileProgressEvent): void | Promise<void>;
  /** checked between steps: a cancelled compile rejects with a FormatError of kind `cancelled` */
  signal?: { readonly aborted: boolean };
  /** a clock in ms (performance.now), for the compile time the summary shows */
  now?(): number;
}

export interface CompileService {
  /** JSON files of the file set that may be calibration tables */
  calibrationFiles(): string[];
  /** compiles with nvdla_compiler's options; `caffeGraphId`: the document's graph the origins are matched to */
  compile(request: CompileRequest, caffeGraphId: string, hooks?: CompileHooks): Promise<CompiledNet>;
}

/** Capability name -> its service. The keys are the capabilities. */
export interface DocumentServices {
  graph: GraphService;
  partition: PartitionService;
  origins: OriginsService;
  optimize: OptimizeService;
  profile: ProfileService;
  inspect: InspectService;
  run: RunService;
  loadable: LoadableService;
  compile: CompileService;
  /** run an NVDLA loadable on the DLA model (`dla/run-service.ts`): plan, run with progress and cancel, surfaces of the last run, per-layer comparison with a Caffe document */
  runLoadable: LoadableRunService;
}

export type Capability = keyof DocumentServices;

/** Every capability, in the order views list them. */
export const CAPABILITIES: readonly Capability[] = ['graph', 'partition', 'origins', 'optimize', 'profile', 'inspect', 'run', 'loadable', 'compile', 'runLoadable'];

/**
 * Counts the status bar and `inspect` show, typed by what the document is: a graph document
 * counts the main graph's nodes and edges (the status bar shows the graph on screen from
 * `summary.graphs`), a profile counts its marks and runs.
 */
export type DocumentCounts =
  | { kind: 'graph'; graphs: number; nodes: number; edges: number }
  | { kind: 'profile'; marks: number; runs: number; threads: number };

/** What a format says about an open document (plain data: it crosses the worker boundary). */
export interface DocumentSummary extends ModelSummary {
  /** what the document can do; derived from its services by the registry */
  capabilities: Capability[];
  counts: DocumentCounts;
  /** the settings it was read with that the user may change (re-opening the file set) */
  options?: DocumentOption[];
}

/** What a format's `open` returns: its summary (without capabilities) and the services it offers. */
export interface FormatDocument {
  summary: ModelSummary & { counts: DocumentCounts; options?: DocumentOption[] };
  diagnostics: Diagnostic[];
  services: Partial<DocumentServices>;
}

/** An open document as the worker and the CLI hold it. */
export interface OpenedDocument {
  format: string;
  summary: DocumentSummary;
  diagnostics: Diagnostic[];
  services: Partial<DocumentServices>;
}

/** The module a format loads lazily (`load`): opens a file set it detected. */
export interface FormatModule {
  /** `options`: values for the `summary.options` the format offers (a format without options ignores them) */
  open(files: SourceFile[], options?: OpenOptions): FormatDocument;
}

/** A format's registry entry: cheap to import (detect only), the rest loaded on first open. */
export interface FormatEntry {
  name: string;
  /**
   * True if this format reads the file set's main file. Synchronous and cheap: it sniffs the
   * content (magic bytes, the first lines), never parses the whole file.
   */
  detect(files: SourceFile[]): boolean;
  load(): Promise<FormatModule>;
  /**
   * For a file too large to read before showing anything (over `LARGE_FILE_BYTES`): the bytes to
   * open its structure from without its bulk data (Caffe: the blob values), read piece by piece;
   * null to read the whole file. The document opened from them (its SourceFile marked
   * `skeleton`) serves the graph at once; the worker reads the whole file meanwhile and opens it
   * again for everything that needs the values.
   */
  skeleton?(file: LargeFile): Promise<Uint8Array | null>;
}

/** Files above this size are read piece by piece first when their format has a `skeleton`. */
export const LARGE_FILE_BYTES = 32 * 2 ** 20;

/** A file read piece by piece (a browser File through `slice`). */
export interface LargeFile {
  name: string;
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

/** The summary with `capabilities` derived from the services present. */
export function documentSummary(doc: FormatDocument): DocumentSummary {
  return { ...doc.summary, capabilities: CAPABILITIES.filter((c) => doc.services[c] !== undefined) };
}

// ---------------------------------------------------------------------------------------------
// Document options and the `run` capability (Caffe, issue 11).

/**
 * A setting a format reads its file set with and the user may change (Caffe: the phase of a
 * train_test net, the batch). Changing one re-opens the file set with `OpenOptions`: the document
 * is rebuilt, never patched, so every view sees one consistent state.
 */
export interface DocumentOption {
  /** its key in `OpenOptions` (and the CLI's `--<name>`) */
  name: string;
  /** shown beside the control */
  label: string;
  /** 'choice': one of `choices`; 'int': a whole number in [min, max] */
  kind: 'choice' | 'int';
  choices?: string[];
  min?: number;
  max?: number;
  /** the value the document was opened with */
  value: string | number;
  /** one sentence: what changing it does */
  help: string;
}

/** Option values by name, as `open` takes them. */
export type OpenOptions = Record<string, string | number>;

/** Summary statistics of values (a blob after a run, a weight blob). NaN and infinities are counted apart. */
export interface ValueSummary {
  count: number;
  min: number;
  max: number;
  mean: number;
  std: number;
  nonFinite: number;
  zeros: number;
}

/** One input a run feeds, with what an image needs to fill it. */
export interface RunInputSpec {
  name: string;
  shape: number[];
  /** the channel order an image gives it by default (gray for 1 channel, BGR for 3), or null when an image cannot feed it */
  image: 'gray' | 'bgr' | null;
}

/** What a run needs and whether it can happen. */
export interface RunPlan {
  inputs: RunInputSpec[];
  /** why the document cannot run as it is (empty when it can): unsupported layer types, missing weights, unknown shapes */
  problems: string[];
  /** defaults for image inputs (a train_test net's transform_param), and where they come from */
  transform: { scale: number; mean: number[]; source: string } | null;
}

/** Decoded pixels (the host decodes PNG / JPEG: the browser with createImageBitmap, Node with pngjs / jpeg-js). */
export interface RgbaPixels {
  width: number;
  height: number;
  /** width * height * 4 bytes, row-major RGBA */
  data: Uint8Array | Uint8ClampedArray;
}

/** The value of one input: an image (resized, channel order, `(pixel - mean[c]) * scale`), a `.npy` array, or seeded random values in [0, 1). */
export type RunInputValue =
  | { kind: 'image'; file: string; pixels: RgbaPixels; scale: number; mean: number[]; color?: 'gray' | 'bgr' | 'rgb' }
  | { kind: 'array'; file: string; bytes: Uint8Array }
  | { kind: 'random'; seed: number };

export interface RunRequest {
  /** by input name; an input not named gets seeded random values (seed `seed` + its index) */
  inputs: Record<string, RunInputValue>;
  /** default 1 */
  seed?: number;
}

export interface RunProgressEvent {
  /** layers done */
  done: number;
  total: number;
  layer: string;
  type: string;
}

export interface RunHooks {
  /** after every layer; a returned Promise is awaited (a worker yields to its event loop there) */
  onProgress?(p: RunProgressEvent): void | Promise<void>;
  /** checked between layers: a cancelled run rejects with a FormatError of kind `cancelled` */
  signal?: { readonly aborted: boolean };
  /** the heavy layers' kernels (default: the plain TypeScript reference) */
  kernels?: CaffeKernels;
  /** a clock in ms (performance.now) */
  now?(): number;
}

/** A run's answer: per-layer figures and the outputs; the values stay in the document (`blobSlice`). */
export interface RunOutcome {
  layers: { layer: string; type: string; ms: number; tops: { key: string; shape: number[]; stats: ValueSummary }[] }[];
  outputs: { key: string; shape: number[] }[];
  /** for each classifier output ([N, C] or [N, C, 1, 1], C > 1): the five best classes of item 0 */
  top: { output: string; classes: { index: number; score: number }[] }[];
  /** every value key, in net order (blob names; `layer:<name>` for a layer output a later in-place layer overwrote) */
  keys: string[];
  kernels: string;
  /** the whole run, per-layer statistics included */
  ms: number;
  /** the layers' own time (the sum of `layers[i].ms`) */
  forwardMs: number;
}

/** One plane of a blob of the last run: channel `channel` of item `item` (the whole blob when it has no channel plane). */
export interface BlobSlice {
  key: string;
  shape: number[];
  item: number;
  channel: number;
  height: number;
  width: number;
  /** height * width values, row-major */
  values: Float32Array;
  /** of this plane */
  min: number;
  max: number;
  /** of the whole blob */
  stats: ValueSummary;
  /** the blob's first values, row-major */
  first: number[];
}

/** `run`: a float32 forward pass (the ground truth later compiled results are checked against). */
export interface RunService {
  plan(): RunPlan;
  /** runs the net; the values of the last run are kept for `blobSlice` (a new run replaces them) */
  run(request: RunRequest, hooks?: RunHooks): Promise<RunOutcome>;
  /** a plane of a blob of the last run; a RangeError when there is no run or no such blob / plane */
  blobSlice(key: string, item: number, channel: number): BlobSlice;
}

// ---------------------------------------------------------------------------------------------
// The `runLoadable` capability (NVDLA loadables, issue 15): the DLA functional model.

/**
 * `runLoadable`: runs the loadable's tasks on the functional model of the DLA engines
 * (core/dla) on an input; keeps the last run's op-slot surfaces for the views, and compares them
 * with the float forward pass of a Caffe model (another document's `run` service).
 */
export interface LoadableRunService {
  plan(): LoadableRunPlan;
  /** runs the loadable; the last run's surfaces are kept for `surface` and `compare` (a new run replaces them) */
  run(request: LoadableRunRequest, hooks?: LoadableRunHooks): Promise<LoadableRunOutcome>;
  /** channel `channel` of op `order`'s output in the last run (values in the surface's own domain) */
  surface(order: number, channel: number): PlaneSlice;
  /**
   * every op slot of the last run against the Caffe float pass of the same input: `caffe` is the
   * Caffe document's `run` service, `caffeFiles` its deploy and weights (compiled to match op slots with layers)
   */
  compare(caffe: RunService, caffeFiles: SourceFile[], hooks?: LoadableRunHooks): Promise<LoadableComparison>;
  /** op `order`'s output, the Caffe blob it was compared with, and their difference (floats) */
  comparePlanes(order: number, channel: number): { loadable: PlaneSlice; caffe: PlaneSlice; difference: PlaneSlice };
}
