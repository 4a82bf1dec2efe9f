/**
 * Opening a file set as a document, whatever its format. Each format folder keeps its own face
 * (detect / read / toGraph ...); this registry is the only place that lists them, so the worker
 * and the CLI never learn which format they hold.
 */
import { FormatError, type Diagnostic } from './errors';
import type { Graph, GraphNode, ModelSummary } from './graph/model';
import type { TensorDetails } from './circle/values';
import { circleFormat } from './circle/document';
import { systraceFormat } from './systrace/document';
import type { SystraceAnalysis } from './systrace/model';
import type { CircleModel } from './circle/model';

export interface SourceFile {
  name: string;
  bytes: Uint8Array;
}

export interface NodeDetails {
  node: GraphNode;
  /** extra rows for the side panel, e.g. custom_code, origin ids */
  extra: { name: string; value: string }[];
}

export interface OpenedDocument {
  format: string;
  /** 'graph': a model drawn as a graph; 'profile': a timing capture (systrace) */
  kind?: 'graph' | 'profile';
  summary: ModelSummary;
  diagnostics: Diagnostic[];
  /** builds (and caches) the graph with this id */
  graph(graphId: string): Graph;
  nodeDetails(graphId: string, nodeIndex: number): NodeDetails;
  tensorDetails(graphId: string, tensor: number): TensorDetails;
  /** profiles only: the whole analysis */
  profile?(): SystraceAnalysis;
  /** circle only: the parsed model (origins and optimize in the worker read it) */
  circle?(): CircleModel;
}

export interface DocumentFormat {
  name: string;
  /** true if this format reads the file set's main file */
  detect(files: SourceFile[]): boolean;
  open(files: SourceFile[]): OpenedDocument;
}

export const formats: DocumentFormat[] = [circleFormat, systraceFormat];

export function openDocument(files: SourceFile[]): OpenedDocument {
  if (files.length === 0) throw new FormatError({ kind: 'empty', file: '(none)', message: 'no file was given' });
  const main = files[0]!;
  if (main.bytes.length === 0) throw new FormatError({ kind: 'empty', file: main.name, message: 'the file is empty' });
  for (const f of formats) if (f.detect(files)) return f.open(files);
  const known = formats.map((f) => f.name).join(', ');
  throw new FormatError({
    kind: 'unsupported',
    file: main.name,
    offset: 0,
    message: `not a model format NPU Studio reads (known: ${known}); the first bytes are ${hexPreview(main.bytes)}`,
  });
}

function hexPreview(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
}
