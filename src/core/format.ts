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
import type { TensorDetails } from './circle/values';
import type { SystraceAnalysis } from './systrace/model';
import type { PreparedModel } from './partition/prepare';
import type { Origins } from './origin/origins';
import type { PassLog } from './optimize/optimize';
import type { BlobDetail, LoadableOverview, SlotView } from './loadable/view';
import type { MemoryArea } from './loadable/memory-map';
import type { LoadableDiff } from './loadable/diff';
import type { ExecuteService } from './dla/service';

export interface SourceFile {
  name: string;
  bytes: Uint8Array;
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
  nodeDetails(graphId: string, nodeIndex: number): NodeDetails;
  tensorDetails(graphId: string, tensor: number): TensorDetails;
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

/** Capability name -> its service. The keys are the capabilities. */
export interface DocumentServices {
  graph: GraphService;
  partition: PartitionService;
  origins: OriginsService;
  optimize: OptimizeService;
  profile: ProfileService;
  inspect: InspectService;
  loadable: LoadableService;
  /** run an NVDLA loadable on the DLA model (`dla/service.ts`): plan, run with progress and cancel, planes of the last run, per-layer comparison */
  execute: ExecuteService;
}

export type Capability = keyof DocumentServices;

/** Every capability, in the order views list them. */
export const CAPABILITIES: readonly Capability[] = ['graph', 'partition', 'origins', 'optimize', 'profile', 'inspect', 'loadable', 'execute'];

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
}

/** What a format's `open` returns: its summary (without capabilities) and the services it offers. */
export interface FormatDocument {
  summary: ModelSummary & { counts: DocumentCounts };
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
  open(files: SourceFile[]): FormatDocument;
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
}

/** The summary with `capabilities` derived from the services present. */
export function documentSummary(doc: FormatDocument): DocumentSummary {
  return { ...doc.summary, capabilities: CAPABILITIES.filter((c) => doc.services[c] !== undefined) };
}
