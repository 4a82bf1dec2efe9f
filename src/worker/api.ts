/**
 * The contract between the UI thread and the workers. The UI imports only these types (and
 * Comlink); everything behind them runs in a worker. Types only: `.dependency-cruiser.cjs` lets
 * the UI import this file and nothing else under src/worker.
 *
 * A document's `summary.capabilities` says which methods below apply to it (graph, partition,
 * origins, optimize, profile, loadable); a call for a capability the document lacks fails with an
 * `unsupported` error. A method that fails rejects with a `WorkerFailure` (plain data, see
 * below), which `ui/workers.ts` turns back into a `StudioError` carrying the `ErrorInfo`.
 */
import type { ErrorInfo, Diagnostic } from '../core/errors';
import type { Graph, GraphPort, ModelSummary } from '../core/graph/model';
import type { Capability, DocumentCounts, DocumentOption, DocumentSummary, OpenOptions, RunPlan, RunOutcome, RunProgressEvent, BlobSlice, ValueSummary } from '../core/format';
import type { TextEdit } from '../core/text-edit';
import type { PartCompletionItem, PartCompletionKind, PartCompletionList } from '../core/partition/assist';
import type { GraphLayout, LayoutInput, LayoutOptions } from '../core/graph/layout-types';
import type { GraphPack } from '../core/graph/pack';
import type { SceneData, SceneLabels } from '../core/graph/view/scene';
import type { DisplayOptions } from '../core/graph/view/node-box';
import type { FindResult } from '../core/graph/find';
import type { TensorDetails } from '../core/circle/values';
import type { NodeDetails } from '../core/format';
import type { SystraceAnalysis } from '../core/systrace/model';
import type { PartDiagnostic } from '../core/partition/ini';
import type { PartitionCheck } from '../core/partition/check';
import type { BlobDetail, BlobPlot, BlobRow, DamageView, FieldView, LoadableOverview, LutCurve, OpRow, SlotView, StructView, SurfaceView, TaskView } from '../core/loadable/view';
import type { MemoryArea, MemoryRegion } from '../core/loadable/memory-map';
import type { Difference, LoadableDiff, SectionDiff } from '../core/loadable/diff';
import type { CalibrationResult, CalibrationProgress, CalibrationScales, ComparisonRow, ErrorMetrics, LoadableComparison, LoadableOutputView, LoadableRunOutcome, LoadableRunPlan, LoadableRunProgress, PlaneSlice, SlotRunRow, TensorSpec } from '../core/dla/run-types';
import type { CompileOptionSpec, CompileOptionValues, CompileSummary, CompiledGraphInfo, MemoryPlan, OriginsSidecar, PassStep, PlannedBuffer, PlannedPool, StageTables } from '../core/nvdla/compile-summary';
import type { NvdlaDiagnostic } from '../core/nvdla/network/model';

export type { SystraceAnalysis, PartDiagnostic, PartitionCheck };
export type { BlobDetail, BlobPlot, BlobRow, DamageView, FieldView, LoadableOverview, LutCurve, OpRow, SlotView, StructView, SurfaceView, TaskView, MemoryArea, MemoryRegion, Difference, LoadableDiff, SectionDiff };
export type { Capability, DocumentCounts, DocumentSummary, TextEdit, PartCompletionItem, PartCompletionKind, PartCompletionList };
export type { DocumentOption, OpenOptions, RunPlan, RunOutcome, RunProgressEvent, BlobSlice, ValueSummary };
export type { CalibrationResult, CalibrationProgress, CalibrationScales, ComparisonRow, ErrorMetrics, LoadableComparison, LoadableOutputView, LoadableRunOutcome, LoadableRunPlan, LoadableRunProgress, PlaneSlice, SlotRunRow, TensorSpec };
export type { GraphPack, SceneData, SceneLabels, DisplayOptions };
export type { CompileOptionSpec, CompileOptionValues, CompileSummary, CompiledGraphInfo, MemoryPlan, OriginsSidecar, PassStep, PlannedBuffer, PlannedPool, StageTables, NvdlaDiagnostic };
export type { ErrorInfo, Diagnostic, Graph, GraphPort, ModelSummary, GraphLayout, LayoutInput, LayoutOptions, FindResult, TensorDetails, NodeDetails };

/** A file handed to the worker: a Blob (File) is passed by reference, not copied. */
export interface InputFile {
  name: string;
  blob: Blob;
}

export type OpenResult =
  | { ok: true; docId: string; summary: DocumentSummary; diagnostics: Diagnostic[] }
  | { ok: false; error: ErrorInfo };

/**
 * What a failed worker call rejects with: plain data (Comlink keeps only the message of an
 * `Error`), the `ErrorInfo` of a `FormatError`, or `kind: 'internal'` for anything else thrown.
 */
export interface WorkerFailure {
  workerError: ErrorInfo;
}


/** A graph ready to draw: the Graph (slimmed: ports and attributes are fetched on demand) and its layout input. */
export interface GraphForView {
  graph: Graph;
  layoutInput: LayoutInput;
}

/**
 * A partition as the UI draws it. Columnar: a 10,000-operator model can give thousands of parts,
 * and one object (with its own arrays) per part cost tens of ms to clone across the worker
 * boundary per edit; typed arrays are transferred instead. Part `i` (output order) is
 * `fileNames[i]` on `backends[partBackend[i]]`, with `partOperatorCount[i]` operators, inputs
 * `partInputs[partInputStart[i] .. partInputStart[i + 1])` and outputs likewise (indices into
 * `tensorNames`, in `.conn.json` order). `ui/partition/plan.ts` reads it.
 */
export interface PartitionPlanView {
  backends: string[];
  defaultBackend: string;
  comply: 'opcode' | 'opname';
  /** `NAME.00001_cpu.circle`, ... in output order */
  fileNames: string[];
  partBackend: Int32Array;
  partOperatorCount: Int32Array;
  partInputStart: Int32Array;
  partInputs: Int32Array;
  partOutputStart: Int32Array;
  partOutputs: Int32Array;
  /** the tensor names parts read or write (each once) */
  tensorNames: string[];
  /** per source operator (subgraph 0): index into `backends` */
  operatorBackend: Int32Array;
  /** per source operator: index into the parts */
  operatorPart: Int32Array;
  warnings: string[];
  /** `NAME.conn.json` */
  connFile: string;
}

/** `.part` text -> diagnostics and, when the text is valid, the partition (plain data). */
export interface PartitionTextResult {
  diagnostics: PartDiagnostic[];
  /** null when the text has errors: the UI keeps the last good plan on screen */
  plan: PartitionPlanView | null;
  /**
   * per source operator (subgraph 0): the 1-based line of this text that decides its backend
   * (its key, the section's `_`, or `default`; 0: none), also when the text has errors
   */
  operatorLines: Int32Array;
  /** worker time: parse, validate and partition */
  ms: number;
}

/** What completion offers: opcodes present in the model (with counts) and node names. */
export interface PartitionVocabulary {
  opcodes: { name: string; count: number }[];
  nodeNames: string[];
  /** every circle BuiltinOperator name */
  allOpcodes: string[];
  operators: number;
  /** per source operator (subgraph 0): its opcode name as `[OPCODE]` keys say it */
  operatorOpcodes: string[];
}

export interface PartitionFilesResult {
  /** output file names and sizes, in circle-partitioner's order (parts, conn.json, conn.ini, .part) */
  files: { name: string; size: number }[];
  /** the files as one zip (fflate) */
  zip: Uint8Array;
  ms: number;
}

/** Origins of one graph (circle, subgraph 0 from the tables, others synthesised), for the Origins panel. */
export interface OriginsView {
  graphId: string;
  /** 'file': the model's ONE_source_table / ONE_op_table; 'synthesised': made as luci's importer does */
  kind: 'file' | 'synthesised';
  /** per graph node index: its origin ids, ascending (empty for non-operator nodes) */
  nodeIds: number[][];
  /** the source table, by id ascending, with the graph node indices of the operators using each id */
  sources: { id: number; name: string; nodes: number[] }[];
  /** decoder findings (table name and byte offset) */
  diagnostics: Diagnostic[];
}

export interface OptimizeLogEntry {
  pass: string;
  changed: number;
  details: string[];
}

export type OptimizeView =
  | {
      ok: true;
      /** the optimized model, opened in the worker like any file */
      docId: string;
      name: string;
      summary: DocumentSummary;
      diagnostics: Diagnostic[];
      /** the optimized file with its origin tables (for download and re-opening) */
      bytes: Uint8Array;
      log: OptimizeLogEntry[];
      /** dead items removed after the passes */
      removed: { tensors: number; buffers: number; opcodes: number };
      /** the graph both mappings below are about (the main graph), in both documents */
      graphId: string;
      /** graph node indices of that graph: source -> optimized and optimized -> source (through shared origin ids) */
      sourceToOptimized: number[][];
      optimizedToSource: number[][];
      ms: number;
    }
  | { ok: false; error: ErrorInfo };

/**
 * The value of a run input as the UI gives it: files stay Blobs (an image is decoded in the
 * worker with createImageBitmap and an OffscreenCanvas), or seeded random values.
 */
export type RunInputFile =
  | { kind: 'image'; file: InputFile; scale: number; mean: number[]; color?: 'gray' | 'bgr' | 'rgb' }
  | { kind: 'array'; file: InputFile }
  | { kind: 'random'; seed: number };

export interface RunInputsRequest {
  /** by input name; inputs not named get seeded random values */
  inputs: Record<string, RunInputFile>;
  seed?: number;
}

/** The value of a loadable run's input as the UI gives it (files stay Blobs; an image is decoded in the worker). */
export type LoadableRunInputFile =
  | { kind: 'image'; file: InputFile; scale: number; mean: number[]; color: 'gray' | 'bgr' | 'rgb' }
  | { kind: 'array'; file: InputFile }
  | { kind: 'random'; seed: number };

export interface LoadableRunInputsRequest {
  input: LoadableRunInputFile;
  /** the calibration table the loadable was compiled with (int8), or null */
  calibration: CalibrationScales | null;
  /** channels random values fill (the paired Caffe model's), default the plan's */
  channels?: number;
}

/** A calibration (the table, rows with histograms) and the inputs it was made from. */
export interface CalibrationView extends CalibrationResult {
  inputNames: string[];
}

/** What the compile form offers for a document with the `compile` capability. */
export interface CompileForm {
  specs: CompileOptionSpec[];
  defaults: CompileOptionValues;
  /** JSON files dropped with the net (calibration tables) */
  calibrationFiles: string[];
}

export interface CompileViewRequest {
  options: Partial<CompileOptionValues>;
  /** a JSON file of the document's set (by name), or one the user picked (its Blob) */
  calibration: { file: string; blob?: Blob } | null;
  /** the document's graph the Caffe pane shows (origins are matched to its nodes) */
  caffeGraphId: string;
  /** the timeline step (pass name) the view shows first: its engine graph's tables come with the summary */
  shown?: string;
}

export interface CompileProgress {
  step: string;
  done: number;
  total: number;
}

/**
 * A compile as the compile view gets it: the summary (plain data), the stage graphs as a worker
 * document of their own (`graphDocId`: graphs `canonical`, `engine`, `pass:N`, drawn, searched and
 * described by the ordinary graph calls), the loadable opened as a document (`loadableDocId`,
 * null when compile stopped before emit) and its origins sidecar for download. The loadable's bytes
 * stay in the worker until a download asks for them (`compiledLoadable`): a copy sent with every
 * result cost the worker 51 MB of fresh memory per ResNet-50 compile.
 */
export type CompileViewResult =
  | { ok: true; graphDocId: string | null; loadableDocId: string | null; summary: CompileSummary; originsText: string | null; ms: number }
  | { ok: false; error: ErrorInfo };

export interface ModelWorkerApi {
  /**
   * opens a file set (a model and its sidecars); the first file decides the format. `options`:
   * values for the document options its format offers (`summary.options`); changing an option
   * is opening the same files again with new values
   */
  open(files: InputFile[], options?: OpenOptions): Promise<OpenResult>;
  close(docId: string): Promise<void>;
  /** SHA-256 of a file's bytes, hex (partition drafts are kept under the model's hash, not its name) */
  contentHash(file: InputFile): Promise<string>;
  graphForView(docId: string, graphId: string): Promise<GraphForView>;
  /**
   * The same graph packed in typed arrays (transferred: cheap to receive on the UI thread), twice:
   * `pack` for the UI, `forLayout` for the UI to pass on to the layout worker, which sizes the
   * boxes (copied here, so the UI thread copies nothing).
   */
  packedGraphForView(docId: string, graphId: string): Promise<{ pack: GraphPack; forLayout: GraphPack }>;
  /**
   * Builds (and caches) the graph behind a view packed straight from its model, so the side
   * panel, find and partitions find it ready; the UI asks once the view is drawn.
   */
  warmGraph(docId: string, graphId: string): Promise<void>;
  nodeDetails(docId: string, graphId: string, nodeIndex: number): Promise<NodeDetails>;
  /** `valuesWidth`: characters per line of a constant's values text (the panel's width) */
  tensorDetails(docId: string, graphId: string, tensor: number, valuesWidth?: number): Promise<TensorDetails>;
  /** a constant tensor as a `.npy` file (null when the format or the tensor has no values to export) */
  tensorNpy(docId: string, graphId: string, tensor: number): Promise<{ name: string; bytes: Uint8Array } | null>;
  find(docId: string, graphId: string, query: string): Promise<{ results: FindResult[]; total: number; ms: number }>;
  /** capability `profile`: the analysis with tables and per-run timelines */
  profile(docId: string): Promise<SystraceAnalysis>;
  ping(): Promise<'pong'>;
  /** capability `origins`: origins of a graph's operators and the source table */
  origins(docId: string, graphId: string): Promise<OriginsView>;
  /** capability `optimize`: runs the named passes (main graph mapping), opens the result as a new document */
  optimize(docId: string, passes: string[]): Promise<OptimizeView>;
  /** capability `optimize`: the document's passes in pipeline order */
  optimizePasses(docId: string): Promise<string[]>;
  /** capability `partition`: parse + validate + partition `.part` text against subgraph 0 (model prepared once per document) */
  partitionText(docId: string, text: string): Promise<PartitionTextResult>;
  /** hover text for the `.part` key under a 1-based line and column */
  partitionHover(docId: string, text: string, line: number, column: number): Promise<string | null>;
  /** completion items at a 1-based line and column of the `.part` text, with the range they replace */
  partitionCompletions(docId: string, text: string, line: number, column: number): Promise<PartCompletionList>;
  /** the `[OPCODE]` / `[OPNAME]` key written on a line (the graph highlights what it captures) */
  partitionKeyAt(docId: string, text: string, line: number): Promise<{ section: string; key: string } | null>;
  /** the edit that sets `key=value` in `section` (click-to-assign); null when the text already says so */
  partitionAssignEdit(docId: string, text: string, section: string, key: string, value: string): Promise<TextEdit | null>;
  partitionVocabulary(docId: string): Promise<PartitionVocabulary>;
  /** every output file of the partition (parts with origin tables, conn files, the `.part`), zipped */
  partitionFiles(docId: string, text: string, partFileName: string): Promise<PartitionFilesResult>;
  /** runs the source and the chained parts on the same random inputs (interpreter) */
  checkPartition(docId: string, text: string): Promise<PartitionCheck & { ms: number }>;
  /** capability `run`: the inputs a run needs, and why it cannot run if so */
  runPlan(docId: string): Promise<RunPlan>;
  /**
   * capability `run`: a forward pass in the worker. `onProgress` is told every few tens of ms
   * (not awaited); `cancelRun` stops it between two layers (it rejects with kind `cancelled`).
   * The values stay in the worker: `blobSlice` fetches one plane at a time.
   */
  run(docId: string, request: RunInputsRequest, onProgress?: (p: RunProgressEvent) => void): Promise<RunOutcome>;
  cancelRun(docId: string): Promise<void>;
  /** capability `run`: channel `channel` of item `item` of a blob of the last run (values transferred) */
  blobSlice(docId: string, key: string, item: number, channel: number): Promise<BlobSlice>;
  /** capability `loadable`: tasks and op slots, every list with its cross references, the damage */
  loadableOverview(docId: string): Promise<LoadableOverview>;
  /** capability `loadable`: an op slot by its op-slot graph node index, descriptors field by field (null past the ops) */
  loadableSlot(docId: string, node: number): Promise<SlotView | null>;
  /** capability `loadable`: each memory entry with the regions blobs and surfaces occupy, and their readers and writers */
  loadableMemoryMap(docId: string): Promise<MemoryArea[]>;
  /** capability `loadable`: what lies where in a blob, and its values (LUT curves, weight histogram) */
  loadableBlob(docId: string, blob: number): Promise<BlobDetail | null>;
  /** capability `loadable`: a window of a blob's bytes (at most 1 MiB, transferred) */
  loadableBlobBytes(docId: string, blob: number, offset: number, length: number): Promise<Uint8Array>;
  /** capability `loadable`: notes/nvdla.md section 13 comparison of two open loadables (A, B) */
  loadableCompare(docIdA: string, docIdB: string): Promise<LoadableDiff>;
  /** capability `runLoadable`: the tensors, precision and warnings of a run (the int8 calibration warning among them) */
  loadableRunPlan(docId: string): Promise<LoadableRunPlan>;
  /**
   * capability `runLoadable`: runs the loadable on the DLA model in the worker; `onProgress` after
   * op slots every few tens of ms (not awaited); `cancelLoadableRun` stops it between op slots
   * (it rejects with kind `cancelled`). The surfaces stay in the worker (`loadableSurface`).
   */
  runLoadable(docId: string, request: LoadableRunInputsRequest, onProgress?: (p: LoadableRunProgress) => void): Promise<LoadableRunOutcome>;
  cancelLoadableRun(docId: string): Promise<void>;
  /** capability `runLoadable`: channel `channel` of op `order`'s output in the last run (values transferred) */
  loadableSurface(docId: string, order: number, channel: number): Promise<PlaneSlice>;
  /**
   * capability `runLoadable` with a Caffe document (`run`): the Caffe float pass of the last run's
   * input, every op slot against the layer its origins name (`caffeFiles`: the Caffe tab's files,
   * compiled to match op slots and layers)
   */
  compareLoadable(docId: string, caffeDocId: string, caffeFiles: InputFile[]): Promise<LoadableComparison>;
  /** op `order`'s output, the Caffe blob it was compared with, and their difference (channel `channel`) */
  comparePlanes(docId: string, order: number, channel: number): Promise<{ loadable: PlaneSlice; caffe: PlaneSlice; difference: PlaneSlice }>;
  /**
   * capability `run` (Caffe): the int8 calibration table from the float pass over `inputs`
   * (method `max`, `percentile:P`, `entropy`); the histograms are kept for `recalibrate`
   */
  calibrate(caffeDocId: string, caffeFiles: InputFile[], inputs: LoadableRunInputFile[], method: string, onProgress?: (p: CalibrationProgress) => void): Promise<CalibrationView>;
  /** the last calibration's histograms read with another method (no inputs run again) */
  recalibrate(caffeDocId: string, method: string): Promise<CalibrationView>;
  cancelCalibration(caffeDocId: string): Promise<void>;
  /** capability `compile`: nvdla_compiler's options, their defaults and the calibration tables of the file set */
  compileForm(docId: string): Promise<CompileForm>;
  /**
   * capability `compile`: compiles for NVDLA in the worker (a new compile of the same document
   * closes the documents of the one before). `onProgress` is told at each step (not awaited).
   */
  compile(docId: string, request: CompileViewRequest, onProgress?: (p: CompileProgress) => void): Promise<CompileViewResult>;
  /** capability `compile`: the bytes of the document's last compiled loadable (a copy, for a download); null when it made none */
  compiledLoadable(docId: string): Promise<Uint8Array | null>;
  /** capability `compile`: a stage graph's origin and edge-kind tables (`graphDocId` of a compile result), built when first asked for */
  compiledStage(graphDocId: string, graphId: string): Promise<StageTables>;
}

/** A graph ready to draw: its layout and the renderer's scene geometry, both computed in the layout worker. */
export interface PreparedView {
  layout: GraphLayout;
  scene: SceneData;
  /** the scene has no edge labels yet: `placeEdgeLabels(labelsJob)` places them */
  labelsJob?: number;
}

export interface LayoutWorkerApi {
  layout(input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<GraphLayout>;
  /**
   * Node boxes for the display choice, layout and scene of a packed graph (the pack is transferred
   * in). Given `labelsLater`, a big graph's scene comes back without its edge labels and with a
   * `labelsJob`: the caller asks for them with `placeEdgeLabels` (once the graph is drawn).
   */
  prepareView(
    pack: GraphPack,
    options: LayoutOptions,
    display: DisplayOptions,
    onProgress?: (phase: string, fraction: number) => void,
    labelsLater?: boolean,
  ): Promise<PreparedView>;
  /**
   * The edge labels of a scene sent without them (`PreparedView.labelsJob`); null when the job is
   * gone (the worker keeps the newest few, and a cancel ends it with the worker).
   */
  placeEdgeLabels(job: number): Promise<SceneLabels | null>;
}
