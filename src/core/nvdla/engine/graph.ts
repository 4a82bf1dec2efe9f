/**
 * Editing an engine graph: the few graph operations nvdla/sw's `engine_ast::Graph` offers
 * (add nodes and edges, attach a node to an edge side, upstream/downstream data edges, remove a
 * node), over the plain `EngineGraph` data. Passes copy the graph (`cloneEngineGraph`), edit the
 * copy through an `EngineGraphEditor`, and return it.
 */
import { AUX_TENSOR_TYPES, ENGINE_TYPE_OF, type EngineEdge, type EngineGraph, type EngineNode, type EngineNodeParams, type EngineOpType, type EngineTensor, type LutEntry } from './model';

/** Deep copy of a graph's plain data; typed arrays (weights) are shared, not copied. */
export function cloneEngineGraph(g: EngineGraph): EngineGraph {
  return deepCopy(g);
}

function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (ArrayBuffer.isView(v)) return v;
  if (Array.isArray(v)) return v.map((x) => deepCopy(x)) as T;
  const out: Record<string, unknown> = {};
  for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = deepCopy(x);
  return out as T;
}

export function emptyEngineGraph(batchSize: number): EngineGraph {
  return { nodes: [], edges: [], inputEdges: [], outputEdges: [], surfaces: [], buffers: [], counters: { node: 0, edge: 0, auxTensor: 0, surface: 0, buffer: 0, names: {} }, batchSize, luts: [], schedule: [], tasks: [], pools: [], memoryEvents: [] };
}

export class EngineGraphEditor {
  private readonly nodeById = new Map<string, EngineNode>();
  private readonly edgeById = new Map<string, EngineEdge>();

  constructor(readonly graph: EngineGraph) {
    for (const n of graph.nodes) this.nodeById.set(n.id, n);
    for (const e of graph.edges) this.edgeById.set(e.id, e);
  }

  node(id: string): EngineNode {
    const n = this.nodeById.get(id);
    if (!n) throw new RangeError(`no engine node ${id}`);
    return n;
  }

  edge(id: string): EngineEdge {
    const e = this.edgeById.get(id);
    if (!e) throw new RangeError(`no engine edge ${id}`);
    return e;
  }

  hasNode(id: string): boolean {
    return this.nodeById.has(id);
  }

  /** next name of a node class: `prefix` + how many of that class were made in this compile */
  nextName(prefix: string): string {
    const c = this.graph.counters.names[prefix] ?? 0;
    this.graph.counters.names[prefix] = c + 1;
    return `${prefix}${c}`;
  }

  addNode(namePrefix: string, opType: EngineOpType, canonicalNode: string | null, origins: readonly number[], params: EngineNodeParams): EngineNode {
    const node: EngineNode = {
      id: `n-${this.graph.counters.node++}`,
      name: this.nextName(namePrefix),
      engineType: ENGINE_TYPE_OF[opType],
      engineOpType: opType,
      canonicalNode,
      origins: [...origins],
      upstream: [],
      downstream: [],
      fusedInput: null,
      fusedOutput: null,
      inputEdges: [],
      auxEdges: [],
      outputEdges: [],
      params,
      taskId: -1,
      dependency: [],
    };
    this.graph.nodes.push(node);
    this.nodeById.set(node.id, node);
    return node;
  }

  newAuxTensorName(): string {
    return `tensor-aux-${this.graph.counters.auxTensor++}`;
  }

  private insertEdge(kind: EngineEdge['kind'], tensor: EngineTensor | null, canonicalEdge: string | null): EngineEdge {
    const edge: EngineEdge = {
      id: `e-${this.graph.counters.edge++}`,
      kind,
      aux: kind === 'data' && tensor !== null && AUX_TENSOR_TYPES.has(tensor.type),
      sources: [],
      targets: [],
      tensor,
      canonicalEdge,
      bind: null,
      surface: null,
    };
    this.graph.edges.push(edge);
    this.edgeById.set(edge.id, edge);
    return edge;
  }

  addDataEdge(from: EngineNode | null, to: EngineNode | null, tensor: EngineTensor | null, canonicalEdge: string | null = null): EngineEdge {
    const e = this.insertEdge('data', tensor, canonicalEdge);
    if (from) this.appendNodeToEdge(e, 'first', from);
    if (to) this.appendNodeToEdge(e, 'second', to);
    return e;
  }

  addComputeEdge(from: EngineNode, to: EngineNode): EngineEdge {
    const e = this.insertEdge('compute', null, null);
    this.appendNodeToEdge(e, 'first', from);
    this.appendNodeToEdge(e, 'second', to);
    return e;
  }

  addHazardEdge(from: EngineNode, to: EngineNode): EngineEdge {
    const e = this.insertEdge('hazard', null, null);
    this.appendNodeToEdge(e, 'first', from);
    this.appendNodeToEdge(e, 'second', to);
    return e;
  }

  /** `appendNodeToEdge(edge, FIRST | SECOND, node)` */
  appendNodeToEdge(edge: EngineEdge, side: 'first' | 'second', node: EngineNode): void {
    if (side === 'first') {
      edge.sources.push(node.id);
      node.downstream.push(edge.id);
    } else {
      edge.targets.push(node.id);
      node.upstream.push(edge.id);
    }
  }

  removeNodeFromEdge(edge: EngineEdge, side: 'first' | 'second', node: EngineNode): void {
    if (side === 'first') {
      edge.sources = edge.sources.filter((n) => n !== node.id);
      node.downstream = node.downstream.filter((e) => e !== edge.id);
    } else {
      edge.targets = edge.targets.filter((n) => n !== node.id);
      node.upstream = node.upstream.filter((e) => e !== edge.id);
    }
  }

  upstreamDataEdges(node: EngineNode): EngineEdge[] {
    return node.upstream.map((id) => this.edge(id)).filter((e) => e.kind === 'data');
  }

  downstreamDataEdges(node: EngineNode): EngineEdge[] {
    return node.downstream.map((id) => this.edge(id)).filter((e) => e.kind === 'data');
  }

  upstreamNodes(edge: EngineEdge): EngineNode[] {
    return edge.sources.map((id) => this.node(id));
  }

  downstreamNodes(edge: EngineEdge): EngineNode[] {
    return edge.targets.map((id) => this.node(id));
  }

  /** `Node::populateEdgePorts` (generic): aux vs input among upstream data edges; one output */
  populateEdgePorts(node: EngineNode): void {
    const ins = this.upstreamDataEdges(node);
    const outs = this.downstreamDataEdges(node);
    node.inputEdges = [];
    node.auxEdges = [];
    node.outputEdges = [];
    if (ins.length === 0) throw new EngineGraphError(`${node.name} has 0 input edges`);
    if (ins.length === 1) node.inputEdges.push(ins[0]!.id);
    else for (const e of ins) (e.aux ? node.auxEdges : node.inputEdges).push(e.id);
    if (outs.length === 0) throw new EngineGraphError(`${node.name} has 0 output edges`);
    if (outs.length > 1) throw new EngineGraphError(`${node.name} has >1 output edges`);
    node.outputEdges.push(outs[0]!.id);
  }

  /** delete a node and its edges from the lists (the caller has re-wired what it keeps) */
  deleteNode(node: EngineNode): void {
    this.graph.nodes = this.graph.nodes.filter((n) => n.id !== node.id);
    this.nodeById.delete(node.id);
    for (const e of this.graph.edges) {
      e.sources = e.sources.filter((n) => n !== node.id);
      e.targets = e.targets.filter((n) => n !== node.id);
    }
  }

  deleteEdge(edge: EngineEdge): void {
    this.graph.edges = this.graph.edges.filter((e) => e.id !== edge.id);
    this.edgeById.delete(edge.id);
    for (const n of this.graph.nodes) {
      if (n.upstream.includes(edge.id)) n.upstream = n.upstream.filter((e) => e !== edge.id);
      if (n.downstream.includes(edge.id)) n.downstream = n.downstream.filter((e) => e !== edge.id);
      n.inputEdges = n.inputEdges.filter((e) => e !== edge.id);
      n.auxEdges = n.auxEdges.filter((e) => e !== edge.id);
      n.outputEdges = n.outputEdges.filter((e) => e !== edge.id);
    }
  }
}

/** `LutManager::getHandle`: the index of the table for these parameters, registering it when new */
export function registerLut(g: EngineGraph, entry: Omit<LutEntry, 'key'>): number {
  const f = (x: number) => x.toPrecision(6);
  const key = `${entry.type}${entry.precision}${entry.lrn ? `${entry.lrn.localSize}-${f(entry.lrn.alpha)}-${f(entry.lrn.beta)}-${f(entry.lrn.k)}` : ''}`;
  const at = g.luts.findIndex((l) => l.key === key);
  if (at >= 0) return at;
  g.luts.push({ key, ...entry });
  return g.luts.length - 1;
}

/** An engine-graph invariant upstream reports as an error (a bug or an unsupported shape). */
export class EngineGraphError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EngineGraphError';
  }
}

/** nodes on the producing side of a node's upstream edges (unique, in edge order) */
export function upstreamNodesOf(ed: EngineGraphEditor, node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  for (const e of node.upstream) for (const s of ed.edge(e).sources) if (!out.some((n) => n.id === s)) out.push(ed.node(s));
  return out;
}

export function downstreamNodesOf(ed: EngineGraphEditor, node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  for (const e of node.downstream) for (const t of ed.edge(e).targets) if (!out.some((n) => n.id === t)) out.push(ed.node(t));
  return out;
}

/** `downstreamDataNodes` */
export function downstreamDataNodes(ed: EngineGraphEditor, node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  for (const e of ed.downstreamDataEdges(node)) for (const t of e.targets) if (!out.some((n) => n.id === t)) out.push(ed.node(t));
  return out;
}

/** `upstreamDataNodes` */
export function upstreamDataNodes(ed: EngineGraphEditor, node: EngineNode): EngineNode[] {
  const out: EngineNode[] = [];
  for (const e of ed.upstreamDataEdges(node)) for (const s of e.sources) if (!out.some((n) => n.id === s)) out.push(ed.node(s));
  return out;
}

/**
 * `Graph::removeNodeFromAST(killNode, iod)`: the edges on the `iod` side of the node are deleted
 * (with their surfaces and buffers), the edges on the other side are re-attached to the nodes
 * that were on the `iod` side, and the node's aux edge goes with it.
 */
export function removeNodeFromAST(ed: EngineGraphEditor, kill: EngineNode, iod: 'input' | 'output'): void {
  const g = ed.graph;
  const ioSideNodes = iod === 'input' ? upstreamNodesOf(ed, kill) : downstreamNodesOf(ed, kill);
  const ioSideEdges = (iod === 'input' ? kill.upstream : kill.downstream).map((id) => ed.edge(id));
  const oppSideEdges = (iod === 'input' ? kill.downstream : kill.upstream).map((id) => ed.edge(id));
  const auxEdge = kill.auxEdges.length ? ed.edge(kill.auxEdges[0]!) : null;
  for (const opp of oppSideEdges) {
    if (opp.aux) continue;
    for (const n of ioSideNodes) {
      const side = iod === 'input' ? 'first' : 'second';
      ed.removeNodeFromEdge(opp, side, kill);
      ed.appendNodeToEdge(opp, side, n);
    }
  }
  for (const io of ioSideEdges) {
    if (io.aux) continue;
    for (const n of ioSideNodes) ed.removeNodeFromEdge(io, iod === 'input' ? 'first' : 'second', n);
    ed.removeNodeFromEdge(io, iod === 'input' ? 'second' : 'first', kill);
    dropEdgeStorage(g, io);
    ed.deleteEdge(io);
  }
  for (const n of ioSideNodes) repopulateEdgePorts(ed, n);
  if (auxEdge) {
    ed.removeNodeFromEdge(auxEdge, 'second', kill);
    dropEdgeStorage(g, auxEdge);
    ed.deleteEdge(auxEdge);
  }
  ed.deleteNode(kill);
}

/** unregister an edge's surface and buffer (ids are never reused) */
export function dropEdgeStorage(g: EngineGraph, e: EngineEdge): void {
  if (!e.surface) return;
  const tsd = g.surfaces.find((s) => s.id === e.surface);
  g.surfaces = g.surfaces.filter((s) => s.id !== e.surface);
  if (tsd?.buffer) g.buffers = g.buffers.filter((b) => b.id !== tsd.buffer);
  e.surface = null;
}

/** `Node::repopulateEdgePorts` */
export function repopulateEdgePorts(ed: EngineGraphEditor, node: EngineNode): void {
  if (node.engineType === 'CONCATENATION' || node.engineType === 'SPLIT') {
    node.inputEdges = node.inputEdges.filter((id) => node.upstream.includes(id));
    node.outputEdges = node.outputEdges.filter((id) => node.downstream.includes(id));
    return;
  }
  if (node.engineOpType === 'SDP_ELEMENTWISE') {
    node.inputEdges = ed.upstreamDataEdges(node).map((e) => e.id);
    node.outputEdges = ed.downstreamDataEdges(node).map((e) => e.id);
    return;
  }
  ed.populateEdgePorts(node);
}
