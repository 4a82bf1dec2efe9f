/**
 * The contract between the UI thread and the workers. The UI imports only these types (and
 * Comlink); everything behind them runs in a worker.
 */
import type { ErrorInfo, Diagnostic } from '../core/errors';
import type { Graph, GraphPort, ModelSummary } from '../core/graph/model';
import type { GraphLayout, LayoutInput, LayoutOptions } from '../core/graph/layout-types';
import type { GraphPack } from '../core/graph/pack';
import type { SceneData } from '../core/graph/view/scene';
import type { FindResult } from '../core/graph/find';
import type { TensorDetails } from '../core/circle/values';
import type { NodeDetails } from '../core/document';
import type { SystraceAnalysis } from '../core/systrace/model';

export type { SystraceAnalysis };
export type { GraphPack, SceneData };
export type { ErrorInfo, Diagnostic, Graph, GraphPort, ModelSummary, GraphLayout, LayoutInput, LayoutOptions, FindResult, TensorDetails, NodeDetails };

/** A file handed to the worker: a Blob (File) is passed by reference, not copied. */
export interface InputFile {
  name: string;
  blob: Blob;
}

export type OpenResult =
  | { ok: true; docId: string; kind: 'graph' | 'profile'; summary: ModelSummary; diagnostics: Diagnostic[] }
  | { ok: false; error: ErrorInfo };

/** A graph ready to draw: the Graph (slimmed: ports and attributes are fetched on demand) and its layout input. */
export interface GraphForView {
  graph: Graph;
  layoutInput: LayoutInput;
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
      /** the optimized model, opened in the worker like any circle file */
      docId: string;
      name: string;
      summary: ModelSummary;
      diagnostics: Diagnostic[];
      /** the optimized .circle with its origin tables (for download and re-opening) */
      bytes: Uint8Array;
      log: OptimizeLogEntry[];
      /** dead items removed after the passes */
      removed: { tensors: number; buffers: number; opcodes: number };
      /** graph node indices of subgraph 0: source -> optimized and optimized -> source (through shared origin ids) */
      sourceToOptimized: number[][];
      optimizedToSource: number[][];
      ms: number;
    }
  | { ok: false; error: ErrorInfo };

export interface ModelWorkerApi {
  /** opens a file set (a model and its sidecars); the first file decides the format */
  open(files: InputFile[]): Promise<OpenResult>;
  close(docId: string): Promise<void>;
  graphForView(docId: string, graphId: string): Promise<GraphForView>;
  /** the same graph packed in typed arrays (cheap to receive on the UI thread), with its layout input */
  packedGraphForView(docId: string, graphId: string): Promise<{ pack: GraphPack; layoutInput: LayoutInput }>;
  nodeDetails(docId: string, graphId: string, nodeIndex: number): Promise<NodeDetails>;
  tensorDetails(docId: string, graphId: string, tensor: number): Promise<TensorDetails>;
  find(docId: string, graphId: string, query: string): Promise<{ results: FindResult[]; total: number; ms: number }>;
  /** profiles (systrace): the analysis with tables and per-run timelines */
  profile(docId: string): Promise<SystraceAnalysis>;
  ping(): Promise<'pong'>;
  /** circle only: origins of a graph's operators and the source table */
  origins(docId: string, graphId: string): Promise<OriginsView>;
  /** circle only: runs the named passes (subgraph 0 mapping), opens the result as a new document */
  optimize(docId: string, passes: string[]): Promise<OptimizeView>;
  /** the optimizer's passes in pipeline order */
  optimizePasses(): Promise<string[]>;
}

/** A graph ready to draw: its layout and the renderer's scene geometry, both computed in the layout worker. */
export interface PreparedView {
  layout: GraphLayout;
  scene: SceneData;
}

export interface LayoutWorkerApi {
  layout(input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<GraphLayout>;
  prepareView(pack: GraphPack, input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<PreparedView>;
}
