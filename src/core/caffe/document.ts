/**
 * Caffe as an open document (loaded by `./format.ts` on first open): the `graph` service (the
 * net with in-place layers folded into their producer's box, and the same net with them as
 * nodes), `inspect` (issue 11's `--json` keys) and `run` (the float32 forward pass). Phase and
 * batch are document options: the views re-open the file set with other values. Kept thin: the
 * model (model.ts), graph (graph.ts), values (forward/stats.ts) and run (run-service.ts) do the
 * work.
 */
import { FormatError } from '../errors';
import type { DocumentOption, FormatDocument, InspectService, NodeDetails, OpenOptions, SourceFile } from '../format';
import type { GraphAttribute, ModelSummary } from '../graph/model';
import type { TensorDetails } from '../circle/values';
import { panelWidth, tensorText } from '../tensor-text';
import { writeNpy } from './npy';
import { streamedStats, type Histogram, type ValueStats } from './forward/stats';
import { buildGraph, GRAPH_FOLDED, GRAPH_LAYERS, shapeLabel, weightOf, weightTensorIds, type GraphLayers } from './graph';
import { inspectCaffe } from './inspect';
import { openCaffeModel, type CaffeModel, type CaffeOpenOptions } from './model';
import { activationBytes, layerTypeCounts, parameterCount } from './net';
import { caffeRunService } from './run-service';
import type { CompileService } from '../format';
import type { Graph } from '../graph/model';

export const FIRST_VALUES = 64;
export const HISTOGRAM_BINS = 32;

/** TensorDetails plus what the Caffe node panel shows for a weight blob. */
export interface CaffeTensorDetails extends TensorDetails {
  stats: ValueStats | null;
  histogram: Histogram | null;
  /** 'weights file', 'net file', 'missing' for learnable blobs; 'activation' for blobs */
  source: string;
}

export interface CaffeDocument extends FormatDocument {
  summary: FormatDocument['summary'] & { options: DocumentOption[] };
  caffe(): CaffeModel;
  /** re-open with another phase or batch (what the worker does when the user changes an option) */
  reopen(options: CaffeOpenOptions): CaffeDocument;
}

export function summarizeCaffe(model: CaffeModel, folded: GraphLayers = buildGraph(model, GRAPH_FOLDED)): CaffeDocument['summary'] {
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
    { name: 'batch', value: String(batchOf(model)), type: 'int' },
    { name: 'activation memory', value: `${bytesText(activationBytes(net))} (float32 blobs of one forward pass at batch ${batchOf(model)})`, type: 'string' },
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
  const graphStats = folded.graph.stats;
  const layersStats = { nodes: net.layers.filter((l) => l.type !== 'Input').length, edges: net.blobs.reduce((a, b) => a + b.consumers.length, 0) + net.outputs.length };
  return {
    format: 'caffe',
    file: model.netFile.file,
    formatLabel: `Caffe ${model.netFile.version}${model.weightsFile ? ` + ${model.weightsFile.file}` : ''}`,
    description: model.steps.map((s) => s.message).join('; '),
    properties: props,
    graphs: [
      { id: GRAPH_FOLDED, name: net.name || model.netFile.file, stats: graphStats },
      { id: GRAPH_LAYERS, name: `${net.name || model.netFile.file} (in-place layers as nodes)`, stats: layersStats, unfoldedOf: GRAPH_FOLDED },
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
    counts: { kind: 'graph', graphs: 1, nodes: graphStats.nodes, edges: graphStats.edges },
    options: documentOptions(model),
  };
}

/** The batch a run and the shapes use: the one asked for, or the first input's first dimension. */
export function batchOf(model: CaffeModel): number {
  if (model.batch !== null) return model.batch;
  const net = model.net;
  const first = net.inputs.length ? net.blobs[net.inputs[0]!]!.shape?.[0] : undefined;
  return first ?? 1;
}

/** Largest batch the option accepts (a run refuses blobs over 2^28 values anyway). */
export const MAX_BATCH = 4096;

export function documentOptions(model: CaffeModel): DocumentOption[] {
  const out: DocumentOption[] = [];
  if (model.phaseMatters) {
    out.push({ name: 'phase', label: 'Phase', kind: 'choice', choices: ['TEST', 'TRAIN'], value: model.phase, help: "which layers of a train_test net are in (include / exclude rules); Caffe's default for deploying is TEST" });
  }
  if (model.net.inputs.length) {
    out.push({ name: 'batch', label: 'Batch', kind: 'int', min: 1, max: MAX_BATCH, value: batchOf(model), help: 'the first dimension of every Input shape: shapes, activation memory and runs follow it' });
  }
  return out;
}

/** Phase and batch from the generic option values; a bad value is a FormatError naming the option. */
export function caffeOpenOptions(options: OpenOptions | undefined, file: string): CaffeOpenOptions {
  const out: CaffeOpenOptions = {};
  if (!options) return out;
  for (const [name, value] of Object.entries(options)) {
    if (name === 'phase') {
      const v = String(value).toUpperCase();
      if (v !== 'TEST' && v !== 'TRAIN') throw new FormatError({ kind: 'semantic', file, message: `the phase is TEST or TRAIN, not '${String(value)}'` });
      out.phase = v;
    } else if (name === 'batch') {
      const v = typeof value === 'number' ? value : Number(value);
      if (!Number.isInteger(v) || v < 1 || v > MAX_BATCH) throw new FormatError({ kind: 'semantic', file, message: `the batch is a whole number from 1 to ${MAX_BATCH}, not '${String(value)}'` });
      out.batch = v;
    } else {
      throw new FormatError({ kind: 'semantic', file, message: `a Caffe net has no option '${name}' (its options: phase, batch)` });
    }
  }
  return out;
}

function bytesText(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB (${n} bytes)`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB (${n} bytes)`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB (${n} bytes)`;
}

/** the blob's values along its shape; reads only the printed elements of a zero-copy view, or decodes blobs up to 4M values */
function blobText(shape: number[], values: NonNullable<CaffeModel['net']['layers'][number]['weights'][number]>['values'], valuesWidth: number | undefined): string | undefined {
  if (!values || values.count > 1 << 22) return undefined;
  const all = values.toFloat32();
  return tensorText(shape, all.length, (i) => all[i]!, 'float32', { width: panelWidth(valuesWidth) });
}

/** A weight blob as a float32 `.npy`; null for activations and missing weights. */
export function caffeTensorNpy(model: CaffeModel, tensor: number): { name: string; bytes: Uint8Array } | null {
  const w = weightOf(model, tensor);
  if (!w) return null;
  const layer = model.net.layers[w.layer]!;
  const blob = layer.weights[w.blob];
  if (!blob?.values) return null;
  const role = layer.expected?.[w.blob]?.role ?? `blob${w.blob}`;
  const data = blob.values.toFloat32();
  const shape = blob.shape ?? [data.length];
  return { name: `${layer.name}_${role}.npy`.replace(/[^\w.-]+/g, '_'), bytes: writeNpy(shape.reduce((a, d) => a * d, 1) === data.length ? shape : [data.length], data) };
}

export function caffeTensorDetails(model: CaffeModel, tensor: number, valuesWidth?: number): CaffeTensorDetails {
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
    values: { first, count: stats.count, min: stats.min, max: stats.max, mean: stats.mean, dequantized: null, std: stats.std, histogram, text: blobText(shape, values, valuesWidth) },
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


function caffeInspect(model: CaffeModel): InspectService {
  return {
    options: [],
    json: () => inspectCaffe(model),
    text: () => inspectText(model),
  };
}

/** `inspect` as text: the same figures as --json, one a line. */
export function inspectText(model: CaffeModel): string {
  const j = inspectCaffe(model);
  const shape = (s: number[] | null) => (s ? `[${s.join(',')}]` : '(unknown shape)');
  const lines = [`${model.netFile.file}: Caffe ${j.version} net '${j.name}'${model.weightsFile ? ` with weights ${model.weightsFile.file}` : ''} (phase ${j.phase})`];
  if (j.upgrades.length) lines.push(`  upgrades: ${j.upgrades.join(', ')}`);
  lines.push(`  layers: ${j.layers} (${Object.entries(j.types).map(([t, n]) => `${t} ${n}`).join(', ')})`);
  lines.push(`  parameters: ${j.params}`);
  for (const i of j.inputs) lines.push(`  input ${i.name}: ${shape(i.shape)}`);
  for (const o of j.outputs) lines.push(`  output ${o.name}: ${shape(o.shape)}`);
  lines.push(`  activation memory: ${bytesText(activationBytes(model.net))} at batch ${batchOf(model)}`);
  if (j.weights) {
    const w = j.weights;
    lines.push(`  weights: ${w.matched} layers matched, ${w.ignored} ignored${w.mismatched.length ? `, shapes do not fit: ${w.mismatched.join(', ')}` : ''}${w.missing.length ? `, missing: ${w.missing.join(', ')}` : ''}`);
  }
  lines.push('  blobs:');
  for (const [name, s] of Object.entries(j.blobs)) lines.push(`    ${name}: ${shape(s)}`);
  return lines.join('\n') + '\n';
}

export function openCaffeDocument(files: SourceFile[], options: CaffeOpenOptions = {}): CaffeDocument {
  const model = openCaffeModel(files, options);
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
  const summary = summarizeCaffe(model, graphOf(GRAPH_FOLDED));
  return {
    summary,
    diagnostics: model.diagnostics,
    caffe: () => model,
    reopen: (o: CaffeOpenOptions) => openCaffeDocument(files, { phase: model.phase, ...(model.batch !== null ? { batch: model.batch } : {}), ...o }),
    services: {
      graph: {
        graph: (id: string) => graphOf(id).graph,
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
        tensorDetails: (_graphId: string, tensor: number, valuesWidth?: number): TensorDetails => caffeTensorDetails(model, tensor, valuesWidth),
        tensorNpy: (_graphId: string, tensor: number) => caffeTensorNpy(model, tensor),
      },
      inspect: caffeInspect(model),
      run: caffeRunService(model),
      compile: caffeCompileService(model, files, (id) => graphOf(id).graph),
    },
  };
}

/**
 * `compile`: the NVDLA compiler (core/nvdla, loaded on the first compile) over the net file and
 * the weights file this document has read already, as nvdla_compiler reads them (the nets as
 * written, no V0/V1 upgrade; the weights' values are views into the file), with a calibration
 * table from the file set or given by the view. Nothing is parsed again for a compile.
 */
function caffeCompileService(model: CaffeModel, files: SourceFile[], graph: (id: string) => Graph): CompileService {
  return {
    calibrationFiles: () => files.filter((f) => /\.json$/i.test(f.name)).map((f) => f.name),
    async compile(request, caffeGraphId, hooks) {
      const nvdla = await import('../nvdla/service');
      const { deployOf, weightsOf } = await import('../nvdla/network/caffe-files');
      if (model.netFile.encoding !== 'text') {
        throw new FormatError({ kind: 'unsupported', file: model.netFile.file, message: 'NVDLA compiles a deploy .prototxt with its .caffemodel: open the .prototxt together with the weights' });
      }
      const weightsFile = model.weightsFile;
      if (!weightsFile) {
        throw new FormatError({ kind: 'unsupported', file: model.netFile.file, message: 'NVDLA compiles the net with its trained weights: drop the .caffemodel together with the .prototxt' });
      }
      if (files.find((f) => f.name === weightsFile.file)?.skeleton) throw new FormatError({ kind: 'unsupported', file: weightsFile.file, message: 'the weights are still being read; compile again in a moment' });
      const calibration = nvdla.calibrationOf(request, files);
      return nvdla.compileForViewStepwise(deployOf(model.netFile), weightsOf(weightsFile), request, calibration, nvdla.caffeNodeNames(graph(caffeGraphId)), hooks);
    },
  };
}

/** The registry's lazy entry point (`./format.ts` loads this module on the first Caffe file set). */
export function open(files: SourceFile[], options?: OpenOptions): CaffeDocument {
  return openCaffeDocument(files, caffeOpenOptions(options, files[0]?.name ?? '(none)'));
}

export { weightTensorIds, weightOf };
