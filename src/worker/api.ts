/**
 * The contract between the UI thread and the workers. The UI imports only these types (and
 * Comlink); everything behind them runs in a worker.
 */
import type { ErrorInfo, Diagnostic } from '../core/errors';
import type { Graph, GraphPort, ModelSummary } from '../core/graph/model';
import type { GraphLayout, LayoutInput, LayoutOptions } from '../core/graph/layout-types';
import type { FindResult } from '../core/graph/find';
import type { TensorDetails } from '../core/circle/values';
import type { NodeDetails } from '../core/document';
import type { SystraceAnalysis } from '../core/systrace/model';

export type { SystraceAnalysis };
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

export interface ModelWorkerApi {
  /** opens a file set (a model and its sidecars); the first file decides the format */
  open(files: InputFile[]): Promise<OpenResult>;
  close(docId: string): Promise<void>;
  graphForView(docId: string, graphId: string): Promise<GraphForView>;
  nodeDetails(docId: string, graphId: string, nodeIndex: number): Promise<NodeDetails>;
  tensorDetails(docId: string, graphId: string, tensor: number): Promise<TensorDetails>;
  find(docId: string, graphId: string, query: string): Promise<{ results: FindResult[]; total: number; ms: number }>;
  /** profiles (systrace): the analysis with tables and per-run timelines */
  profile(docId: string): Promise<SystraceAnalysis>;
  ping(): Promise<'pong'>;
}

export interface LayoutWorkerApi {
  layout(input: LayoutInput, options: LayoutOptions, onProgress?: (phase: string, fraction: number) => void): Promise<GraphLayout>;
}
