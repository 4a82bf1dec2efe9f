/**
 * Caffe as an `OpenedDocument` for the worker and the CLI (not registered in core/document.ts yet:
 * the registry is being redesigned; the lead adds `caffeFormat` there). Kept thin: the model
 * (model.ts), graph (graph.ts) and values (forward/stats.ts) do the work.
 */
import type { DocumentFormat, NodeDetails, OpenedDocument, SourceFile } from '../document';
import type { Graph, GraphAttribute, ModelSummary } from '../graph/model';
import type { TensorDetails } from '../circle/values';
import { streamedStats, type Histogram, type ValueStats } from './forward/stats';
import { buildGraph, GRAPH_FOLDED, GRAPH_LAYERS, shapeLabel, weightOf, weightTensorIds, type GraphLayers } from './graph';
import { detectCaffe, openCaffeModel, type CaffeModel, type CaffeOpenOptions } from './model';
import { parameterCount, type CaffeNet } from './net';
import { count } from './shapes';

export const FIRST_VALUES = 64;
export const HISTOGRAM_BINS = 32;

/** TensorDetails plus what the Caffe node panel shows for a weight blob. */
export interface CaffeTensorDetails extends TensorDetails {
  stats: ValueStats | null;
  histogram: Histogram | null;
  /** 'weights file', 'net file', 'missing' for learnable blobs; 'activation' for blobs */
  source: string;
}

export interface CaffeDocument extends OpenedDocument {
  caffe(): CaffeModel;
  /** re-open with another phase or batch (the phase selector, the batch field) */
  reopen(options: CaffeOpenOptions): CaffeDocument;
}

/** Layer counts by type, in first-seen order. */
export function layerTypeCounts(net: CaffeNet): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of net.layers) out[l.type] = (out[l.type] ?? 0) + 1;
  return out;
}

/**
 * Bytes of activations held by one forward pass at the net's batch: every blob version Caffe
 * allocates (in-place tops share their bottom's memory), float32.
 */
export function activationBytes(net: CaffeNet): number {
  let bytes = 0;
  for (const b of net.blobs) {
    if (!b.shape || b.producer < 0) continue;
    const layer = net.layers[b.producer]!;
    const ownTop = layer.tops.indexOf(b.id);
    const topName = b.name;
    const sharesBottom = layer.bottoms.some((x) => net.blobs[x]!.name === topName) && ownTop >= 0;
    if (!sharesBottom) bytes += count(b.shape) * 4;
  }
  return bytes;
}

export function summarizeCaffe(model: CaffeModel): ModelSummary {
  const net = model.net;
  const types = layerTypeCounts(net);
  const props: GraphAttribute[] = [
    { name: 'format', value: `Caffe ${model.netFile.version} (${model.netFile.encoding === 'text' ? 'prototxt' : 'caffemodel'})`, type: 'string' },
    { name: 'name', value: net.name, type: 'string' },
    { name: 'upgrades', value: model.steps.length ? model.steps.map((s) => s.id).join(', ') : 'none', type: 'string' },
    { name: 'phase', value: model.phase + (model.phaseMatters ? '' : ' (no phase rules)'), type: 'enum' },
    { name: 'layers', value: String(net.layers.length), type: 'int' },
    { name: 'layer types', value: Object.entries(types).map(([t, n]) => `${t} ${n}`).join(', '), type: 'string' },
    { name: 'parameters', value: String(parameterCount(net)), type: 'int' },
    { name: 'batch', value: String(net.inputs.length ? (net.blobs[net.inputs[0]!]!.shape?.[0] ?? '?') : '?'), type: 'int' },
    { name: 'activation memory', value: `${activationBytes(net)} bytes (float32, at this batch)`, type: 'string' },
    { name: 'inputs', value: net.inputs.map((b) => `${net.blobs[b]!.name} ${shapeLabel(net.blobs[b]!.shape)}`).join(', '), type: 'string' },
    { name: 'outputs', value: net.outputs.map((b) => `${net.blobs[b]!.name} ${shapeLabel(net.blobs[b]!.shape)}`).join(', '), type: 'string' },
  ];
  if (model.weightsFile) {
    const rows = model.merge?.rows ?? [];
    const c = (s: string) => rows.filter((r) => r.status === s).length;
    props.push({ name: 'weights', value: `${model.weightsFile.file} (Caffe ${model.weightsFile.version}): ${c('matched')} layers matched, ${c('mismatch')} mismatched, ${c('missing')} missing, ${c('ignored')} ignored`, type: 'string' });
  }
  if (model.excluded.length) props.push({ name: 'excluded by phase', value: model.excluded.join(', '), type: 'string' });
  if (model.transform) {
    const t = model.transform;
    props.push({ name: 'input transform', value: `from layer '${t.layer}': scale ${t.scale ?? 1}, mean ${t.mean ? t.mean.join(',') : 'none'}${t.meanFile ? `, mean_file ${t.meanFile} (not read)` : ''}`, type: 'string' });
  }
  let weightBlobs = 0;
  let weightBytes = 0;
  for (const l of net.layers)
    for (const w of l.weights) {
      weightBlobs++;
      weightBytes += w.values?.byteLength ?? 0;
    }
  const graphStats = buildGraph(model, GRAPH_FOLDED).graph.stats;
  return {
    format: 'caffe',
    file: model.netFile.file,
    formatLabel: `Caffe ${model.netFile.version}${model.weightsFile ? ` + ${model.weightsFile.file}` : ''}`,
    description: model.steps.map((s) => s.message).join('; '),
    properties: props,
    graphs: [
      { id: GRAPH_FOLDED, name: net.name || model.netFile.file, stats: graphStats },
      { id: GRAPH_LAYERS, name: `${net.name || model.netFile.file} (in-place layers as nodes)`, stats: { nodes: net.layers.filter((l) => l.type !== 'Input').length, edges: net.blobs.reduce((a, b) => a + b.consumers.length, 0) + net.outputs.length } },
    ],
    metadata: [],
    signatures: [
      {
        key: 'net',
        subgraph: 0,
        inputs: net.inputs.map((b) => ({ name: net.blobs[b]!.name, tensor: b })),
        outputs: net.outputs.map((b) => ({ name: net.blobs[b]!.name, tensor: b })),
      },
    ],
    buffers: { count: weightBlobs, bytes: weightBytes, external: 0 },
  };
}

export function caffeTensorDetails(model: CaffeModel, tensor: number): CaffeTensorDetails {
  const net = model.net;
  const base = { subgraph: 0, index: tensor, dtype: 'float32', typeName: 'FLOAT32', type: 0, shapeSignature: null, isVariable: false, buffer: -1, quantization: null };
  const w = weightOf(model, tensor);
  if (!w) {
    const blob = net.blobs[tensor];
    if (!blob) throw new RangeError(`tensor ${tensor} does not exist`);
    return {
      ...base, name: blob.name, shape: blob.shape ?? [], typeString: shapeLabel(blob.shape), constant: false, byteLength: 0, values: null,
      note: blob.shape ? 'an activation: its values come from a run' : 'an activation whose shape is unknown', stats: null, histogram: null, source: 'activation',
    };
  }
  const layer = net.layers[w.layer]!;
  const spec = layer.expected?.[w.blob];
  const blob = layer.weights[w.blob];
  const role = spec?.role ?? `blob ${w.blob}`;
  const name = `${layer.name}/${role}`;
  const shape = blob?.shape ?? spec?.shape ?? [];
  if (!blob?.values) {
    return { ...base, name, shape, typeString: shapeLabel(shape), constant: false, byteLength: 0, values: null, note: 'no weights: the layer has no blob here (open a .caffemodel with the net)', stats: null, histogram: null, source: 'missing' };
  }
  const values = blob.values;
  const { stats, histogram, first } = streamedStats((f) => values.forEachChunk(f), HISTOGRAM_BINS, FIRST_VALUES);
  return {
    ...base,
    name,
    shape,
    typeString: shapeLabel(shape),
    constant: true,
    byteLength: values.byteLength,
    values: { first, count: stats.count, min: stats.min, max: stats.max, mean: stats.mean, dequantized: null },
    note: values.kind === 'float' ? null : `stored as ${values.kind} values`,
    stats,
    histogram,
    source: blob.origin === 'weights' ? `weights file ${model.weightsFile?.file ?? ''}` : blob.origin === 'file' ? `net file ${model.netFile.file}` : 'generated',
  };
}

function locationText(l: { line?: number; column?: number; offset?: number }): string {
  if (l.line !== undefined) return `line ${l.line}:${l.column ?? 1}`;
  if (l.offset !== undefined) return `byte ${l.offset}`;
  return '(generated by the upgrade)';
}

export function openCaffeDocument(files: SourceFile[], options: CaffeOpenOptions = {}): CaffeDocument {
  const model = openCaffeModel(files, options);
  const summary = summarizeCaffe(model);
  const graphs = new Map<string, GraphLayers>();
  const graphOf = (id: string): GraphLayers => {
    if (id !== GRAPH_FOLDED && id !== GRAPH_LAYERS) throw new RangeError(`unknown graph id ${id}`);
    let g = graphs.get(id);
    if (!g) {
      g = buildGraph(model, id);
      graphs.set(id, g);
    }
    return g;
  };
  return {
    format: 'caffe',
    kind: 'graph',
    summary,
    diagnostics: model.diagnostics,
    caffe: () => model,
    reopen: (o: CaffeOpenOptions) => openCaffeDocument(files, { phase: model.phase, ...(model.batch !== null ? { batch: model.batch } : {}), ...o }),
    graph: (id: string): Graph => graphOf(id).graph,
    nodeDetails(graphId: string, nodeIndex: number): NodeDetails {
      const g = graphOf(graphId);
      const node = g.graph.nodes[nodeIndex];
      if (!node) throw new RangeError(`node ${nodeIndex} does not exist in ${graphId}`);
      const extra: { name: string; value: string }[] = [];
      for (const li of g.nodeLayers[nodeIndex] ?? []) {
        const l = model.net.layers[li]!;
        const prefix = li === g.nodeLayers[nodeIndex]![0] ? '' : `${l.name}: `;
        extra.push({ name: `${prefix}layer`, value: `${l.type} '${l.name}' (layer ${l.index}, ${locationText(l.source)})` });
        if (l.expected && l.expected.length) {
          const status = l.weights.length ? l.weights.map((w) => `[${w.shape.join(',')}]`).join(' ') + ` from the ${l.weights[0]!.origin === 'weights' ? 'weights file' : 'net file'}` : 'no weights';
          extra.push({ name: `${prefix}weights`, value: status });
        }
        if (l.shapeProblem) extra.push({ name: `${prefix}shapes`, value: l.shapeProblem });
      }
      return { node, extra };
    },
    tensorDetails: (_graphId: string, tensor: number) => caffeTensorDetails(model, tensor),
  };
}

export const caffeFormat: DocumentFormat = {
  name: 'caffe',
  detect(files: SourceFile[]): boolean {
    const main = files[0];
    return !!main && detectCaffe(main.bytes, main.name);
  },
  open: (files: SourceFile[]) => openCaffeDocument(files),
};

export { weightTensorIds };
