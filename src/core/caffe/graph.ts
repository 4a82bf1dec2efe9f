/**
 * A CaffeModel as the studio's `Graph`: layers as nodes (coloured by category), blob versions as
 * edges labelled `float32[1,20,24,24]`, net outputs as output markers. In-place layers
 * (top == bottom, e.g. ReLU, BatchNorm, Scale, Dropout) are folded into their producer's box as
 * Netron does (`GRAPH_FOLDED`), or shown as nodes of their own (`GRAPH_LAYERS`).
 */
import type { Graph, GraphAttribute, GraphConstant, GraphEdge, GraphNode, GraphPort, NodeCategory } from '../graph/model';
import { formatDouble, formatFloat32 } from './print';
import { BlobValues, isMessage, type ProtoMessage, type ProtoScalar, type ProtoValue } from './proto';
import type { CaffeModel } from './model';
import type { NetLayer } from './net';
import { caffeType, enumOf, messageTypeOf } from './schema';

export const GRAPH_FOLDED = 'net';
export const GRAPH_LAYERS = 'net:layers';

const CATEGORIES: Record<string, NodeCategory> = {
  Convolution: 'Layer', Deconvolution: 'Layer', InnerProduct: 'Layer', Embed: 'Layer', Scale: 'Layer', Bias: 'Layer',
  ReLU: 'Activation', PReLU: 'Activation', Sigmoid: 'Activation', TanH: 'Activation', ELU: 'Activation', AbsVal: 'Activation',
  BNLL: 'Activation', Power: 'Activation', Exp: 'Activation', Log: 'Activation', Threshold: 'Activation', Clip: 'Activation',
  Swish: 'Activation', Softmax: 'Activation',
  Pooling: 'Pool', SPP: 'Pool',
  LRN: 'Normalization', BatchNorm: 'Normalization', MVN: 'Normalization',
  Dropout: 'Dropout',
  Concat: 'Tensor', Slice: 'Tensor', Split: 'Tensor', Eltwise: 'Tensor', Crop: 'Tensor', Tile: 'Tensor',
  Flatten: 'Shape', Reshape: 'Shape',
  Data: 'Data', ImageData: 'Data', HDF5Data: 'Data', WindowData: 'Data', MemoryData: 'Data', DummyData: 'Data', Input: 'Input',
};

export function layerCategory(type: string): NodeCategory {
  return CATEGORIES[type] ?? 'Other';
}

const SKIP_FIELDS = new Set(['name', 'type', 'bottom', 'top', 'blobs']);

function scalarText(v: ProtoScalar, fieldType: string): string {
  if (typeof v === 'number') return fieldType === 'float' ? formatFloat32(v) : fieldType === 'double' ? formatDouble(v) : String(v);
  if (v instanceof Uint8Array) return `<${v.length} bytes>`;
  return String(v);
}

/** The layer's parameters as flat attributes: `kernel_size: 5`, `weight_filler.type: xavier`. */
export function layerAttributes(param: ProtoMessage): GraphAttribute[] {
  const out: GraphAttribute[] = [];
  const layerType = caffeType('LayerParameter');
  const ownParam = param.type === 'Deconvolution' ? 'convolution_param' : `${String(param.type ?? '').toLowerCase()}_param`;
  const walk = (msg: ProtoMessage, typeName: string, prefix: string) => {
    const type = caffeType(typeName);
    for (const field of type.fieldsArray) {
      const v: ProtoValue | undefined = msg[field.name];
      if (v === undefined || v instanceof BlobValues) continue;
      const sub = messageTypeOf(field);
      const name = prefix + field.name;
      if (sub) {
        const list = Array.isArray(v) ? (v as ProtoMessage[]) : isMessage(v) ? [v] : [];
        list.forEach((m, i) => walk(m, sub.name, `${name}${list.length > 1 || field.repeated ? `[${i}]` : ''}.`));
        continue;
      }
      const en = enumOf(field);
      const hint = en ? 'enum' : field.type === 'float' || field.type === 'double' ? 'float' : field.type === 'bool' ? 'bool' : field.type === 'string' || field.type === 'bytes' ? 'string' : 'int';
      if (Array.isArray(v)) {
        const xs = (v as ProtoScalar[]).map((x) => scalarText(x, field.type));
        out.push({ name, value: xs.length === 1 ? xs[0]! : `[${xs.join(', ')}]`, type: xs.length === 1 ? hint : `${hint}[]` });
      } else out.push({ name, value: scalarText(v as ProtoScalar, field.type), type: hint });
    }
  };
  for (const field of layerType.fieldsArray) {
    if (SKIP_FIELDS.has(field.name)) continue;
    const v = param[field.name];
    if (v === undefined) continue;
    const sub = messageTypeOf(field);
    // the type's own parameter message (convolution_param for Convolution) is shown without prefix
    const own = field.name === ownParam || (sub !== null && field.name.endsWith('_param') && field.name.replace(/_/g, '') === ownParam.replace(/_/g, ''));
    if (sub && !field.repeated && isMessage(v)) walk(v, sub.name, own ? '' : `${field.name}.`);
    else if (sub) (v as ProtoMessage[]).forEach((m, i) => walk(m, sub.name, `${field.name}[${i}].`));
    else {
      const x = v as ProtoScalar | ProtoScalar[];
      out.push({ name: field.name, value: Array.isArray(x) ? `[${x.map((y) => scalarText(y, field.type)).join(', ')}]` : scalarText(x, field.type) });
    }
  }
  return out;
}

export function shapeLabel(shape: readonly number[] | null): string {
  return shape ? `float32[${shape.join(',')}]` : 'float32';
}

/** Tensor ids: blob versions first, then one id per learnable blob of each layer. */
export function weightTensorIds(model: CaffeModel): { base: number[]; total: number } {
  const base: number[] = [];
  let next = model.net.blobs.length;
  for (const l of model.net.layers) {
    base.push(next);
    next += Math.max(l.weights.length, l.expected?.length ?? 0);
  }
  return { base, total: next };
}

/** Layer index and blob index of a weight tensor id, or null for an activation. */
export function weightOf(model: CaffeModel, tensor: number): { layer: number; blob: number } | null {
  if (tensor < model.net.blobs.length) return null;
  const { base } = weightTensorIds(model);
  for (let i = base.length - 1; i >= 0; i--) if (tensor >= base[i]!) return { layer: i, blob: tensor - base[i]! };
  return null;
}

export interface GraphLayers {
  graph: Graph;
  /** layers drawn in each node (the first is the node's own layer) */
  nodeLayers: number[][];
}

export function buildGraph(model: CaffeModel, graphId: string): GraphLayers {
  const net = model.net;
  const inPlaceNodes = graphId === GRAPH_LAYERS;
  const ids = weightTensorIds(model);
  const nodes: GraphNode[] = [];
  const nodeLayers: number[][] = [];
  const edges: GraphEdge[] = [];
  const nodeOfLayer = new Array<number>(net.layers.length).fill(-1);
  const danglingNode = new Map<number, number>();
  const blobPort = (role: string, b: number): GraphPort => ({ name: role, tensor: b, label: net.blobs[b]!.name, type: shapeLabel(net.blobs[b]!.shape) });
  const weightPorts = (l: NetLayer, prefix: string): GraphPort[] => {
    const n = Math.max(l.weights.length, l.expected?.length ?? 0);
    const ports: GraphPort[] = [];
    for (let j = 0; j < n; j++) {
      const spec = l.expected?.[j];
      const w = l.weights[j];
      const role = spec?.role ?? `blob ${j}`;
      const shape = w?.shape ?? spec?.shape ?? null;
      ports.push({ name: prefix + role, tensor: ids.base[l.index]! + j, label: `${l.name}/${role}`, type: shapeLabel(shape), constant: w?.values !== null && w !== undefined });
    }
    return ports;
  };
  const weightConstants = (l: NetLayer): GraphConstant[] => {
    const out: GraphConstant[] = [];
    const n = Math.max(l.weights.length, l.expected?.length ?? 0);
    for (let j = 0; j < n; j++) {
      const shape = l.weights[j]?.shape ?? l.expected?.[j]?.shape ?? null;
      if (shape) out.push({ name: l.expected?.[j]?.role ?? `blob ${j}`, shape: [...shape], dtype: 'float32' });
    }
    return out;
  };
  for (const l of net.layers) {
    const bottom = l.bottoms.length === 1 ? net.blobs[l.bottoms[0]!]! : null;
    const host = bottom && bottom.producer >= 0 ? nodeOfLayer[bottom.producer]! : -1;
    const foldable =
      !inPlaceNodes && l.inPlace && l.tops.length === 1 && bottom !== null && bottom.consumers.length === 1 && host >= 0 &&
      nodes[host]!.kind === 'op' && nodes[host]!.outputs.length === 1 && nodes[host]!.outputs[0]!.tensor === bottom.id;
    if (foldable) {
      const node = nodes[host]!;
      nodeLayers[host]!.push(l.index);
      // drawn as a band inside the producer's box, as Netron does
      (node.chain ??= []).push({ type: l.type || '(no type)', name: l.name, category: layerCategory(l.type) });
      node.inputs.push(...weightPorts(l, `${l.name}.`));
      node.outputs = [blobPort('output', l.tops[0]!)];
      // `inplace=relu1` finds the box a layer was folded into
      node.attributes.push({ name: 'inplace', value: l.name, type: 'layer' });
      node.attributes.push({ name: `${l.name}.type`, value: l.type, type: 'string' });
      for (const a of layerAttributes(l.param)) node.attributes.push({ ...a, name: `${l.name}.${a.name}` });
      nodeOfLayer[l.index] = host;
      continue;
    }
    const isInput = l.type === 'Input';
    const index = nodes.length;
    nodes.push({
      id: isInput ? `in:${l.index}` : `layer:${l.index}`,
      kind: isInput ? 'input' : 'op',
      type: l.type || '(no type)',
      name: l.name,
      category: layerCategory(l.type),
      index: l.index,
      inputs: [...l.bottoms.map((b, j) => blobPort(l.bottoms.length === 1 ? 'input' : `input ${j}`, b)), ...weightPorts(l, '')],
      outputs: l.tops.map((t, j) => blobPort(l.tops.length === 1 ? 'output' : `output ${j}`, t)),
      attributes: layerAttributes(l.param),
    });
    // the layer's weights inside its box, as Netron draws them (`weights ⟨20×1×5×5⟩`, `bias ⟨20⟩`)
    const constants = weightConstants(l);
    if (constants.length) nodes[index]!.constants = constants;
    nodeLayers.push([l.index]);
    nodeOfLayer[l.index] = index;
    for (const b of l.bottoms) {
      const blob = net.blobs[b]!;
      let from: number;
      if (blob.producer >= 0) from = nodeOfLayer[blob.producer]!;
      else {
        let d = danglingNode.get(b);
        if (d === undefined) {
          d = nodes.length;
          danglingNode.set(b, d);
          nodes.push({ id: `missing:${b}`, kind: 'input', type: 'Missing', name: blob.name, category: 'Input', index: b, inputs: [], outputs: [blobPort('output', b)], attributes: [{ name: 'problem', value: 'no earlier layer produces this blob' }] });
          nodeLayers.push([]);
        }
        from = d;
      }
      edges.push({ from, to: index, tensor: b, name: blob.name, label: shapeLabel(blob.shape) });
    }
  }
  net.outputs.forEach((o, k) => {
    const blob = net.blobs[o]!;
    const index = nodes.length;
    nodes.push({ id: `out:${k}`, kind: 'output', type: 'Output', name: blob.name, category: 'Output', index: o, inputs: [blobPort('input', o)], outputs: [], attributes: [] });
    nodeLayers.push([]);
    edges.push({ from: nodeOfLayer[blob.producer]!, to: index, tensor: o, name: blob.name, label: shapeLabel(blob.shape) });
  });
  const ops = nodes.filter((n) => n.kind === 'op').length;
  const name = net.name || model.netFile.file;
  return { graph: { id: graphId, name: inPlaceNodes ? `${name} (in-place layers as nodes)` : name, nodes, edges, stats: { nodes: ops, edges: edges.length } }, nodeLayers };
}
