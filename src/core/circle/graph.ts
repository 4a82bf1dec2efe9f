/**
 * Circle model -> the shared `Graph` (one per subgraph) and the `ModelSummary` of the model panel.
 * Works on structure only: buffer bytes are never read (metadata previews read at most 256 bytes
 * of a metadata entry), so a 100 MB model summarises as fast as a 100 kB one.
 */
import { float32Text } from '../tensor-text';
import type { Graph, GraphAttribute, GraphEdge, GraphInfo, GraphNode, GraphPort, GraphStats, ModelSummary } from '../graph/model';
import { operatorCategory } from './categories';
import type { CircleBuffer, CircleModel, CircleSubGraph, OptionTable, OptionValue, UnionValue } from './model';
import { builtinOperatorName, enumValueName, operatorType, tensorTypeString } from './names';
import { CIRCLE_SCHEMA } from './schema-table';

const CUSTOM = 32;

/** Graph id of a subgraph: `sg:<index>`. */
export function graphId(subgraphIndex: number): string {
  return `sg:${subgraphIndex}`;
}

export function subgraphName(model: CircleModel, index: number): string {
  const name = model.subgraphs[index]?.name;
  return name ? name : index === 0 ? 'main' : `subgraph ${index}`;
}

export function bufferHasData(b: CircleBuffer | undefined): boolean {
  return !!b && ((b.data !== null && b.data.length > 0) || (b.offset > 1 && b.size > 0));
}

/** Byte size of a buffer's contents, inline or external. */
export function bufferSize(b: CircleBuffer | undefined): number {
  if (!b) return 0;
  if (b.data && b.data.length) return b.data.length;
  return b.offset > 1 ? b.size : 0;
}

/** Port role names of the common ops (Netron's metadata names); others are numbered. */
const INPUT_ROLES: Record<string, string[]> = {
  CONV_2D: ['input', 'filter', 'bias'],
  DEPTHWISE_CONV_2D: ['input', 'filter', 'bias'],
  CONV_3D: ['input', 'filter', 'bias'],
  FULLY_CONNECTED: ['input', 'weights', 'bias'],
  TRANSPOSE_CONV: ['output_shape', 'weights', 'input', 'bias'],
  INSTANCE_NORM: ['input', 'gamma', 'beta'],
  PRELU: ['input', 'alpha'],
  RESHAPE: ['tensor', 'shape'],
  IF: ['cond'],
  BCQ_FULLY_CONNECTED: ['input', 'weights_scales', 'weights_binary', 'bias', 'weights_clusters'],
  BCQ_GATHER: ['input_scales', 'input_binary', 'indices', 'input_clusters'],
};

function formatValue(v: OptionValue): string {
  if (v === null) return '';
  if (Array.isArray(v)) return `[${(v as OptionValue[]).map(formatValue).join(', ')}]`;
  if (typeof v === 'object') {
    return `{${Object.entries(v)
      .map(([k, x]) => `${k}: ${formatValue(x)}`)
      .join(', ')}}`;
  }
  // option floats are float32 in the schema: `0.001`, not `0.0010000000474974513`
  if (typeof v === 'number' && !Number.isInteger(v)) return float32Text(v);
  return String(v);
}

/** Every field of an options union value as a formatted attribute (enums by name). */
export function optionAttributes(u: UnionValue): GraphAttribute[] {
  const def = CIRCLE_SCHEMA.tables[u.name];
  const out: GraphAttribute[] = [];
  if (!def) {
    out.push({ name: 'options', value: `${u.name} (not decoded)`, type: 'string' });
    return out;
  }
  for (const f of def.fields) {
    if (f.deprecated) continue;
    const v = u.fields[f.name];
    if (v === undefined) continue;
    if (f.name.endsWith('_subgraph_index') && typeof v === 'number') {
      out.push({ name: f.name, value: graphId(v), type: 'subgraph' });
    } else if (f.type.kind === 'enum' && !f.vector && typeof v === 'number') {
      out.push({ name: f.name, value: enumValueName(f.type.ref!, v), type: 'enum' });
    } else if (f.type.kind === 'enum' && f.vector && Array.isArray(v)) {
      out.push({ name: f.name, value: `[${(v as number[]).map((x) => enumValueName(f.type.ref!, x)).join(', ')}]`, type: 'enum[]' });
    } else {
      const base = f.type.base;
      const type =
        f.type.kind === 'string' ? 'string' : f.type.kind === 'table' || f.type.kind === 'union' ? 'table' : base === 'bool' ? 'bool' : base === 'float' || base === 'double' ? 'float' : 'int';
      out.push({ name: f.name, value: formatValue(v), type: f.vector ? `${type}[]` : type });
    }
  }
  return out;
}

function subgraphRefs(u: UnionValue | null): string[] {
  if (!u) return [];
  const refs: string[] = [];
  for (const [k, v] of Object.entries(u.fields as OptionTable)) {
    if (k.endsWith('_subgraph_index') && typeof v === 'number') refs.push(graphId(v));
  }
  return refs;
}

/** The graph of one subgraph: op nodes, input/output markers, one edge per (tensor, consumer). */
export function toGraph(model: CircleModel, subgraphIndex: number): Graph {
  const sg: CircleSubGraph | undefined = model.subgraphs[subgraphIndex];
  if (!sg) throw new RangeError(`subgraph ${subgraphIndex} does not exist (the model has ${model.subgraphs.length})`);
  const tensors = sg.tensors;
  const nt = tensors.length;
  const isGraphInput = new Uint8Array(nt);
  for (const t of sg.inputs) if (t >= 0 && t < nt) isGraphInput[t] = 1;
  const constant = (t: number) => !isGraphInput[t] && bufferHasData(model.buffers[tensors[t]!.buffer]);

  const port = (name: string, t: number): GraphPort => {
    const tensor = tensors[t];
    if (!tensor) return { name, tensor: -1, label: '', type: '' };
    const p: GraphPort = { name, tensor: t, label: tensor.name, type: tensorTypeString(tensor.type, tensor.shape, tensor.shapeSignature) };
    if (constant(t)) p.constant = true;
    return p;
  };

  const nodes: GraphNode[] = [];
  const edges: GraphEdge[] = [];
  /** node index producing each tensor, -1 if none yet */
  const source = new Int32Array(nt).fill(-1);

  // Graph inputs first.
  for (const t of sg.inputs) {
    if (t < 0 || t >= nt || source[t] !== -1) continue;
    source[t] = nodes.length;
    nodes.push({ id: `in:${t}`, kind: 'input', type: 'Input', name: tensors[t]!.name, category: 'Input', index: t, inputs: [], outputs: [port('output', t)], attributes: [] });
  }
  // Operators.
  const opNode = new Int32Array(sg.operators.length);
  sg.operators.forEach((op, i) => {
    const oc = model.operatorCodes[op.opcodeIndex];
    const builtin = oc ? builtinOperatorName(oc.code) : `Unknown(opcode_index ${op.opcodeIndex})`;
    const isCustom = !!oc && oc.code === CUSTOM;
    const type = operatorType(model, op.opcodeIndex);
    const roles = INPUT_ROLES[builtin] ?? [];
    const attributes: GraphAttribute[] = [];
    if (op.builtinOptions) attributes.push(...optionAttributes(op.builtinOptions));
    if (op.builtinOptions2) attributes.push(...optionAttributes(op.builtinOptions2));
    if (isCustom) {
      attributes.push({ name: 'custom_code', value: oc?.customCode ?? '', type: 'string' });
      if (op.customOptions) attributes.push({ name: 'custom_options', value: `${op.customOptions.length} bytes`, type: 'bytes' });
    }
    const refs = [...subgraphRefs(op.builtinOptions), ...subgraphRefs(op.builtinOptions2)];
    const firstOut = op.outputs.find((t) => t >= 0 && t < nt);
    const node: GraphNode = {
      id: `op:${i}`,
      kind: 'op',
      type,
      name: firstOut !== undefined ? tensors[firstOut]!.name : type,
      category: operatorCategory(builtin, isCustom),
      index: i,
      inputs: op.inputs.map((t, k) => port(roles[k] ?? String(k), t)),
      outputs: op.outputs.map((t, k) => port(String(k), t)),
      attributes,
    };
    if (refs.length) node.subgraphs = refs;
    opNode[i] = nodes.length;
    for (const t of op.outputs) if (t >= 0 && t < nt && source[t] === -1) source[t] = nodes.length;
    nodes.push(node);
  });
  // Non-constant tensors nobody produces become their own sources.
  const sourceOf = (t: number): number => {
    if (source[t] === -1) {
      source[t] = nodes.length;
      nodes.push({ id: `in:${t}`, kind: 'input', type: 'Input', name: tensors[t]!.name, category: 'Input', index: t, inputs: [], outputs: [port('output', t)], attributes: [] });
    }
    return source[t]!;
  };
  const edge = (t: number, to: number) => {
    const tensor = tensors[t]!;
    edges.push({ from: sourceOf(t), to, tensor: t, name: tensor.name, label: tensorTypeString(tensor.type, tensor.shape, tensor.shapeSignature) });
  };
  sg.operators.forEach((op, i) => {
    const seen = new Set<number>();
    for (const t of op.inputs) {
      if (t < 0 || t >= nt || seen.has(t) || constant(t)) continue;
      seen.add(t);
      edge(t, opNode[i]!);
    }
  });
  // Graph outputs last.
  sg.outputs.forEach((t, k) => {
    if (t < 0 || t >= nt) return;
    const at = nodes.length;
    nodes.push({ id: `out:${k}`, kind: 'output', type: 'Output', name: tensors[t]!.name, category: 'Output', index: t, inputs: [port('input', t)], outputs: [], attributes: [] });
    if (!constant(t)) edge(t, at);
  });
  return { id: graphId(subgraphIndex), name: subgraphName(model, subgraphIndex), nodes, edges, stats: { nodes: sg.operators.length, edges: edges.length } };
}

/** The stats `toGraph` would give, counted without building the graph. */
export function graphStats(model: CircleModel, subgraphIndex: number): GraphStats {
  const sg = model.subgraphs[subgraphIndex];
  if (!sg) throw new RangeError(`subgraph ${subgraphIndex} does not exist (the model has ${model.subgraphs.length})`);
  const nt = sg.tensors.length;
  const isGraphInput = new Uint8Array(nt);
  for (const t of sg.inputs) if (t >= 0 && t < nt) isGraphInput[t] = 1;
  const constant = (t: number) => !isGraphInput[t] && bufferHasData(model.buffers[sg.tensors[t]!.buffer]);
  let edges = 0;
  for (const op of sg.operators) {
    const seen = new Set<number>();
    for (const t of op.inputs) {
      if (t < 0 || t >= nt || seen.has(t) || constant(t)) continue;
      seen.add(t);
      edges++;
    }
  }
  for (const t of sg.outputs) if (t >= 0 && t < nt && !constant(t)) edges++;
  return { nodes: sg.operators.length, edges };
}

const HEX_PREVIEW_BYTES = 32;
const TEXT_PREVIEW_LIMIT = 256;

/** circle.md section 5: printable ASCII under 256 bytes as text, otherwise hex and the size. */
export function metadataPreview(data: Uint8Array | null, size: number): string {
  if (!data || size === 0) return size === 0 ? '(empty)' : `(${size} bytes, stored outside the FlatBuffer)`;
  if (data.length < TEXT_PREVIEW_LIMIT) {
    let printable = true;
    for (let i = 0; i < data.length; i++) {
      const c = data[i]!;
      if (!((c >= 0x20 && c < 0x7f) || c === 0x09 || c === 0x0a || c === 0x0d)) {
        printable = false;
        break;
      }
    }
    if (printable) return String.fromCharCode(...data);
  }
  const head = Array.from(data.subarray(0, HEX_PREVIEW_BYTES), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return `${head}${data.length > HEX_PREVIEW_BYTES ? ' …' : ''} (${data.length} bytes)`;
}

/** Everything the model panel shows, without weight bytes. */
export function summarize(model: CircleModel, file: string): ModelSummary {
  let inline = 0;
  let external = 0;
  for (const b of model.buffers) {
    if (b.data && b.data.length) inline += b.data.length;
    else if (b.offset > 1 && b.size > 0) external += b.size;
  }
  const kind = model.identifier === 'TFL3' ? 'tflite' : 'circle';
  const operators = model.subgraphs.reduce((a, sg) => a + sg.operators.length, 0);
  const tensors = model.subgraphs.reduce((a, sg) => a + sg.tensors.length, 0);
  return {
    format: 'circle',
    file,
    formatLabel: `${kind} (${model.identifier}, schema version ${model.version})`,
    description: model.description,
    properties: [
      { name: 'format', value: kind, type: 'string' },
      { name: 'identifier', value: model.identifier, type: 'string' },
      { name: 'version', value: String(model.version), type: 'int' },
      { name: 'description', value: model.description, type: 'string' },
      { name: 'subgraphs', value: String(model.subgraphs.length), type: 'int' },
      { name: 'operators', value: String(operators), type: 'int' },
      { name: 'tensors', value: String(tensors), type: 'int' },
      { name: 'operator codes', value: model.operatorCodes.map((oc) => (oc.code === CUSTOM ? oc.customCode ?? 'CUSTOM' : builtinOperatorName(oc.code))).join(', '), type: 'string[]' },
    ],
    graphs: model.subgraphs.map((_, i): GraphInfo => ({ id: graphId(i), name: subgraphName(model, i), stats: graphStats(model, i) })),
    metadata: model.metadata.map((m) => {
      const b = model.buffers[m.buffer];
      const size = bufferSize(b);
      return { name: m.name, size, preview: metadataPreview(b?.data ?? null, size) };
    }),
    signatures: model.signatureDefs.map((s) => ({
      key: s.signatureKey,
      subgraph: s.subgraphIndex,
      inputs: s.inputs.map((x) => ({ name: x.name, tensor: x.tensorIndex })),
      outputs: s.outputs.map((x) => ({ name: x.name, tensor: x.tensorIndex })),
    })),
    buffers: { count: model.buffers.length, bytes: inline, external },
  };
}
