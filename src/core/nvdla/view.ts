/**
 * The canonical and engine graphs as the one `Graph` every view draws (core/graph/model.ts).
 * Network inputs and outputs become input/output markers; auxiliary tensors (weights, bias,
 * scale, batch-norm data) become constant nodes feeding their node. Edge kinds (data, aux,
 * compute, hazard) come beside the graph, aligned with `graph.edges`, so a view can draw them
 * differently without the shared graph model knowing NVDLA.
 */
import type { Graph, GraphAttribute, GraphEdge, GraphNode, GraphPort, NodeCategory } from '../graph/model';
import type { CanonicalGraph, GraphTensor } from './canonical/graph';
import type { EngineEdge, EngineGraph, EngineNode } from './engine/model';

export type ViewEdgeKind = 'data' | 'aux' | 'compute' | 'hazard';

export interface NvdlaGraphView {
  graph: Graph;
  /** per `graph.edges[i]` */
  edgeKinds: ViewEdgeKind[];
  /** per `graph.nodes[i]`: origin ids (Caffe layer indexes), empty for markers */
  origins: number[][];
}

const dims = (t: GraphTensor): string => `${t.dims.n}x${t.dims.c}x${t.dims.h}x${t.dims.w}`;

function attributesOf(params: object, prefix = ''): GraphAttribute[] {
  const out: GraphAttribute[] = [];
  for (const [k, v] of Object.entries(params)) {
    const name = prefix + k;
    if (v === null || v === undefined) continue;
    if (ArrayBuffer.isView(v)) continue;
    if (typeof v === 'object' && !Array.isArray(v)) {
      const o = v as Record<string, unknown>;
      if ('count' in o && 'values' in o) {
        out.push({ name, value: `${String(o.count)} values`, type: 'weights' });
      } else if (['n', 'c', 'h', 'w'].every((x) => x in o)) {
        out.push({ name, value: `${String(o.n)}x${String(o.c)}x${String(o.h)}x${String(o.w)}`, type: 'int[]' });
      } else if (['h', 'w'].every((x) => x in o) && Object.keys(o).length === 2) {
        out.push({ name, value: `${String(o.h)}x${String(o.w)}`, type: 'int[]' });
      } else {
        out.push(...attributesOf(o, `${name}.`));
      }
      continue;
    }
    out.push({ name, value: Array.isArray(v) ? v.join(', ') : String(v), type: typeof v === 'number' ? 'float' : typeof v === 'boolean' ? 'bool' : 'string' });
  }
  return out;
}

const CANONICAL_CATEGORY: Record<string, NodeCategory> = {
  CONVOLUTION: 'Layer',
  DECONVOLUTION: 'Layer',
  FULLY_CONNECTED: 'Layer',
  ACTIVATION: 'Activation',
  POOLING: 'Pool',
  LRN: 'Normalization',
  BATCH_NORM: 'Normalization',
  SCALE: 'Layer',
  SOFTMAX: 'Activation',
  CONCATENATION: 'Tensor',
  SPLIT: 'Tensor',
  ELEMENTWISE: 'Layer',
};

function engineCategory(n: EngineNode): NodeCategory {
  switch (n.engineOpType) {
    case 'CONVOLUTION_CONV':
    case 'CONVOLUTION_FC':
    case 'CONVOLUTION_DECONV':
      return 'Layer';
    case 'SDP_ACTIVATION':
    case 'CPU_SOFTMAX':
      return 'Activation';
    case 'PDP_POOL':
      return 'Pool';
    case 'CDP_LRN':
    case 'SDP_BATCH_NORM':
      return 'Normalization';
    case 'CONCATENATION_CONCAT':
    case 'SPLIT_SOFTWARE':
    case 'RUBIK_DECONV':
      return 'Tensor';
    case 'BDMA_SINGLE_DMA':
    case 'BDMA_GROUP_DMA':
      return 'Transform';
    default:
      return 'Layer';
  }
}

class ViewBuilder {
  readonly nodes: GraphNode[] = [];
  readonly edges: GraphEdge[] = [];
  readonly edgeKinds: ViewEdgeKind[] = [];
  readonly origins: number[][] = [];
  readonly indexOf = new Map<string, number>();

  add(node: GraphNode, key: string, origins: readonly number[] = []): number {
    const i = this.nodes.length;
    this.nodes.push(node);
    this.origins.push([...origins]);
    this.indexOf.set(key, i);
    return i;
  }

  edge(from: number, to: number, tensor: number, name: string, label: string, kind: ViewEdgeKind): void {
    this.edges.push({ from, to, tensor, name, label });
    this.edgeKinds.push(kind);
  }

  result(id: string, name: string, ops: number): NvdlaGraphView {
    return { graph: { id, name, nodes: this.nodes, edges: this.edges, stats: { nodes: ops, edges: this.edges.length } }, edgeKinds: this.edgeKinds, origins: this.origins };
  }
}

const port = (name: string, t: GraphTensor, index: number): GraphPort => ({ name, tensor: index, label: t.name, type: dims(t) });

export function canonicalGraphView(can: CanonicalGraph): NvdlaGraphView {
  const b = new ViewBuilder();
  const edgeIndex = new Map(can.edges.map((e, i) => [e.id, i]));
  can.inputEdges.forEach((id, k) => {
    const e = can.edges[edgeIndex.get(id)!]!;
    b.add({ id: `in:${k}`, kind: 'input', type: 'Input', name: e.tensor.name, category: 'Input', index: k, inputs: [], outputs: [port('output', e.tensor, edgeIndex.get(id)!)], attributes: [] }, `in:${id}`);
  });
  can.nodes.forEach((n, i) => {
    b.add(
      {
        id: n.id,
        kind: 'op',
        type: n.opType,
        name: n.name,
        category: CANONICAL_CATEGORY[n.opType] ?? 'Layer',
        index: i,
        inputs: n.inputEdges.map((id, k) => port(String(k), can.edges[edgeIndex.get(id)!]!.tensor, edgeIndex.get(id)!)),
        outputs: n.outputEdges.map((id, k) => port(String(k), can.edges[edgeIndex.get(id)!]!.tensor, edgeIndex.get(id)!)),
        attributes: attributesOf(n.params),
      },
      n.id,
      n.origins,
    );
  });
  can.outputEdges.forEach((id, k) => {
    const e = can.edges[edgeIndex.get(id)!]!;
    b.add({ id: `out:${k}`, kind: 'output', type: 'Output', name: e.tensor.name, category: 'Output', index: k, inputs: [port('input', e.tensor, edgeIndex.get(id)!)], outputs: [], attributes: [] }, `out:${id}`);
  });
  can.edges.forEach((e, ti) => {
    const froms = e.sources.length ? e.sources.map((s) => b.indexOf.get(s)!) : b.indexOf.has(`in:${e.id}`) ? [b.indexOf.get(`in:${e.id}`)!] : [];
    const tos = [...e.targets.map((t) => b.indexOf.get(t)!), ...(b.indexOf.has(`out:${e.id}`) ? [b.indexOf.get(`out:${e.id}`)!] : [])];
    for (const f of froms) for (const t of tos) b.edge(f, t, ti, e.tensor.name, dims(e.tensor), 'data');
  });
  return b.result('canonical', 'canonical graph', can.nodes.length);
}

/**
 * `canonicalGraphView(can).graph.stats` without building the view: the compile summary lists every
 * stage graph with its counts, and only the stages a user looks at are built.
 */
export function canonicalViewStats(can: CanonicalGraph): Graph['stats'] {
  const inputs = new Set(can.inputEdges);
  const outputs = new Set(can.outputEdges);
  let edges = 0;
  for (const e of can.edges) edges += (e.sources.length || (inputs.has(e.id) ? 1 : 0)) * (e.targets.length + (outputs.has(e.id) ? 1 : 0));
  return { nodes: can.nodes.length, edges };
}

/** `engineGraphView(g).graph.stats` without building the view (see `canonicalViewStats`). */
export function engineViewStats(g: EngineGraph): Graph['stats'] {
  const inputs = new Set(g.inputEdges);
  const outputs = new Set(g.outputEdges);
  let edges = 0;
  for (const e of g.edges) {
    // no source: an input marker or an auxiliary tensor's constant node draws it, when there is one
    const froms = e.sources.length || (inputs.has(e.id) || e.aux ? 1 : 0);
    edges += froms * (e.targets.length + (outputs.has(e.id) ? 1 : 0));
  }
  return { nodes: g.nodes.length, edges };
}

export function engineGraphView(g: EngineGraph, name = 'engine graph'): NvdlaGraphView {
  const b = new ViewBuilder();
  const edgeIndex = new Map(g.edges.map((e, i) => [e.id, i]));
  const tensorPort = (pname: string, id: string): GraphPort => {
    const e = g.edges[edgeIndex.get(id)!]!;
    return e.tensor ? port(pname, e.tensor, edgeIndex.get(id)!) : { name: pname, tensor: edgeIndex.get(id)!, label: e.id, type: e.kind };
  };
  g.inputEdges.forEach((id, k) => {
    const e = g.edges[edgeIndex.get(id)!]!;
    b.add({ id: `in:${k}`, kind: 'input', type: 'Input', name: e.tensor!.name, category: 'Input', index: k, inputs: [], outputs: [tensorPort('output', id)], attributes: [] }, `in:${id}`);
  });
  // auxiliary tensors: constant nodes
  for (const e of g.edges) {
    if (!e.aux || e.sources.length) continue;
    b.add({ id: `aux:${e.id}`, kind: 'const', type: e.tensor!.type, name: e.tensor!.name, category: 'Constant', index: edgeIndex.get(e.id)!, inputs: [], outputs: [tensorPort('output', e.id)], attributes: [{ name: 'dims', value: dims(e.tensor!), type: 'int[]' }] }, `aux:${e.id}`);
  }
  g.nodes.forEach((n, i) => {
    const attributes: GraphAttribute[] = [
      { name: 'engine', value: n.engineType, type: 'enum' },
      { name: 'id', value: n.id, type: 'string' },
      ...(n.canonicalNode ? [{ name: 'canonical', value: n.canonicalNode, type: 'string' }] : []),
      ...attributesOf(n.params),
    ];
    b.add(
      {
        id: n.id,
        kind: 'op',
        type: n.engineOpType,
        name: n.name,
        category: engineCategory(n),
        index: i,
        inputs: [...n.inputEdges.map((id, k) => tensorPort(String(k), id)), ...n.auxEdges.map((id) => tensorPort('aux', id))],
        outputs: n.outputEdges.map((id, k) => tensorPort(String(k), id)),
        attributes,
      },
      n.id,
      n.origins,
    );
  });
  g.outputEdges.forEach((id, k) => {
    const e = g.edges[edgeIndex.get(id)!]!;
    b.add({ id: `out:${k}`, kind: 'output', type: 'Output', name: e.tensor!.name, category: 'Output', index: k, inputs: [tensorPort('input', id)], outputs: [], attributes: [] }, `out:${id}`);
  });
  const kindOf = (e: EngineEdge): ViewEdgeKind => (e.kind === 'data' ? (e.aux ? 'aux' : 'data') : e.kind);
  g.edges.forEach((e, ti) => {
    const froms = e.sources.length ? e.sources.map((s) => b.indexOf.get(s)!) : [b.indexOf.get(`in:${e.id}`) ?? b.indexOf.get(`aux:${e.id}`)].filter((x): x is number => x !== undefined);
    const tos = [...e.targets.map((t) => b.indexOf.get(t)!), ...(b.indexOf.has(`out:${e.id}`) ? [b.indexOf.get(`out:${e.id}`)!] : [])];
    const label = e.tensor ? dims(e.tensor) + (e.surface ? ` ${e.surface}` : '') : e.kind;
    for (const f of froms) for (const t of tos) b.edge(f, t, ti, e.tensor?.name ?? e.id, label, kindOf(e));
  });
  return b.result('engine', name, g.nodes.length);
}
