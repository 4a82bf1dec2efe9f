/**
 * Editing an engine graph: the few graph operations nvdla/sw's `engine_ast::Graph` offers
 * (add nodes and edges, attach a node to an edge side, upstream/downstream data edges, remove a
 * node), over the plain `EngineGraph` data. Passes copy the graph (`cloneEngineGraph`), edit the
 * copy through an `EngineGraphEditor`, and return it.
 */
import { buffersWithout, edgesWithout, surfacesWithout } from './surfaces';
import { isSharedWeightBlob } from './weights';
import { AUX_TENSOR_TYPES, ENGINE_TYPE_OF, type EngineEdge, type EngineGraph, type EngineNode, type EngineNodeParams, type EngineOpType, type EngineTensor, type LutEntry, type TensorBufferDesc, type TensorSurfaceDesc } from './model';

/**
 * Deep copy of a graph's plain data; typed arrays (weights) are shared, not copied. Every pass
 * copies the graph, so the four big lists (nodes, edges, surfaces, buffers) are copied field by
 * field as literals of their types (a field added to one of those interfaces must be added here:
 * the type checker asks for it, graph.test.ts checks nothing is lost); the rest, and a node's
 * parameters, edge tensors and dependencies, go through the generic deep copy.
 */
export function cloneEngineGraph(g: EngineGraph): EngineGraph {
  return {
    nodes: g.nodes.map(cloneNode),
    edges: g.edges.map(cloneEdge),
    inputEdges: g.inputEdges.slice(),
    outputEdges: g.outputEdges.slice(),
    surfaces: g.surfaces.map(cloneSurface),
    buffers: g.buffers.map(cloneBuffer),
    counters: { ...g.counters, names: { ...g.counters.names } },
    batchSize: g.batchSize,
    luts: deepCopy(g.luts),
    schedule: g.schedule.slice(),
    tasks: deepCopy(g.tasks),
    pools: deepCopy(g.pools),
    memoryEvents: deepCopy(g.memoryEvents),
  };
}

function cloneNode(n: EngineNode): EngineNode {
  return {
    id: n.id,
    name: n.name,
    engineType: n.engineType,
    engineOpType: n.engineOpType,
    canonicalNode: n.canonicalNode,
    origins: n.origins.slice(),
    upstream: n.upstream.slice(),
    downstream: n.downstream.slice(),
    fusedInput: n.fusedInput,
    fusedOutput: n.fusedOutput,
    inputEdges: n.inputEdges.slice(),
    auxEdges: n.auxEdges.slice(),
    outputEdges: n.outputEdges.slice(),
    params: deepCopy(n.params),
    taskId: n.taskId,
    dependency: deepCopy(n.dependency),
  };
}

function cloneEdge(e: EngineEdge): EngineEdge {
  return {
    id: e.id,
    kind: e.kind,
    aux: e.aux,
    sources: e.sources.slice(),
    targets: e.targets.slice(),
    tensor: e.tensor === null ? null : deepCopy(e.tensor),
    canonicalEdge: e.canonicalEdge,
    bind: e.bind === null ? null : { ...e.bind },
    surface: e.surface,
  };
}

function cloneSurface(t: TensorSurfaceDesc): TensorSurfaceDesc {
  return {
    id: t.id,
    name: t.name,
    edge: t.edge,
    category: t.category,
    dims: { ...t.dims },
    dataFormat: t.dataFormat,
    format: t.format,
    lineStride: t.lineStride,
    surfaceStride: t.surfaceStride,
    size: t.size,
    bufferOffset: t.bufferOffset,
    batchOffsets: t.batchOffsets.slice(),
    content: t.content,
    bind: t.bind === null ? null : { ...t.bind },
    copyOutDebug: t.copyOutDebug,
    alignLineStride: t.alignLineStride,
    producers: t.producers.slice(),
    consumers: t.consumers.slice(),
    buffer: t.buffer,
  };
}

function cloneBuffer(b: TensorBufferDesc): TensorBufferDesc {
  return { id: b.id, size: b.size, surfaces: b.surfaces.slice(), location: b.location, placement: b.placement.map((x) => ({ ...x })) };
}

// plain loops (no map / Object.entries): every pass copies the graph, this is a hot path
function deepCopy<T>(v: T): T {
  if (v === null || typeof v !== 'object') return v;
  if (ArrayBuffer.isView(v) || isSharedWeightBlob(v)) return v;
  if (Array.isArray(v)) {
    // arrays of plain values (ids, scales, dims) are copied whole, without a call per element
    let plain = true;
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (x !== null && typeof x === 'object') {
        plain = false;
        break;
      }
    }
    if (plain) return v.slice() as T;
    const out = new Array<unknown>(v.length);
    for (let i = 0; i < v.length; i++) out[i] = deepCopy(v[i] as unknown);
    return out as T;
  }
  const src = v as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  // graph data is plain objects (no prototypes with enumerable keys)
  for (const k in src) out[k] = deepCopy(src[k]);
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
    // upstream keeps both lists sorted by creation number (`appendNodeToEdge_Internal` / `appendEdgeToNode_Internal`)
    if (side === 'first') {
      insertSortedById(edge.sources, node.id);
      insertSortedById(node.downstream, edge.id);
    } else {
      insertSortedById(edge.targets, node.id);
      insertSortedById(node.upstream, edge.id);
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
    return this.dataEdges(node.upstream);
  }

  downstreamDataEdges(node: EngineNode): EngineEdge[] {
    return this.dataEdges(node.downstream);
  }

  private dataEdges(ids: readonly string[]): EngineEdge[] {
    const out: EngineEdge[] = [];
    for (const id of ids) {
      const e = this.edge(id);
      if (e.kind === 'data') out.push(e);
    }
    return out;
  }

  upstreamNodes(edge: EngineEdge): EngineNode[] {
    return edge.sources.map((id) => this.node(id));
  }

  downstreamNodes(edge: EngineEdge): EngineNode[] {
    return edge.targets.map((id) => this.node(id));
  }

  /** `Node::populateEdgePorts` (generic): aux vs input among upstream data edges; one output */
  populateEdgePorts(node: EngineNode): void {
    // this runs for every node after every merge: the lists are read in place and replaced only
    // when they change
    let ins = 0;
    let firstIn: EngineEdge | null = null;
    for (const id of node.upstream) {
      const e = this.edge(id);
      if (e.kind !== 'data') continue;
      if (!firstIn) firstIn = e;
      ins++;
    }
    let outs = 0;
    let firstOut: EngineEdge | null = null;
    for (const id of node.downstream) {
      const e = this.edge(id);
      if (e.kind !== 'data') continue;
      if (!firstOut) firstOut = e;
      outs++;
    }
    if (ins === 0) {
      node.inputEdges = [];
      node.auxEdges = [];
      node.outputEdges = [];
      throw new EngineGraphError(`${node.name} has 0 input edges`);
    }
    if (ins === 1) {
      if (node.inputEdges.length !== 1 || node.inputEdges[0] !== firstIn!.id) node.inputEdges = [firstIn!.id];
      if (node.auxEdges.length) node.auxEdges = [];
    } else if (!portsMatch(this, node)) {
      const inputEdges: string[] = [];
      const auxEdges: string[] = [];
      for (const e of this.upstreamDataEdges(node)) (e.aux ? auxEdges : inputEdges).push(e.id);
      if (!sameIds(node.inputEdges, inputEdges)) node.inputEdges = inputEdges;
      if (!sameIds(node.auxEdges, auxEdges)) node.auxEdges = auxEdges;
    }
    if (outs === 0) {
      node.outputEdges = [];
      throw new EngineGraphError(`${node.name} has 0 output edges`);
    }
    if (outs > 1) {
      node.outputEdges = [];
      throw new EngineGraphError(`${node.name} has >1 output edges`);
    }
    if (node.outputEdges.length !== 1 || node.outputEdges[0] !== firstOut!.id) node.outputEdges = [firstOut!.id];
  }

  /** delete a node and its edges from the lists (the caller has re-wired what it keeps) */
  deleteNode(node: EngineNode): void {
    this.graph.nodes = this.graph.nodes.filter((n) => n.id !== node.id);
    this.nodeById.delete(node.id);
    // (a list without the id is kept as it is: no new array per edge of the graph per deletion)
    for (const e of this.graph.edges) {
      if (e.sources.includes(node.id)) e.sources = e.sources.filter((n) => n !== node.id);
      if (e.targets.includes(node.id)) e.targets = e.targets.filter((n) => n !== node.id);
    }
  }

  deleteEdge(edge: EngineEdge): void {
    this.graph.edges = edgesWithout(this.graph, edge.id);
    this.edgeById.delete(edge.id);
    const id = edge.id;
    for (const n of this.graph.nodes) {
      if (n.upstream.includes(id)) n.upstream = n.upstream.filter((e) => e !== id);
      if (n.downstream.includes(id)) n.downstream = n.downstream.filter((e) => e !== id);
      if (n.inputEdges.includes(id)) n.inputEdges = n.inputEdges.filter((e) => e !== id);
      if (n.auxEdges.includes(id)) n.auxEdges = n.auxEdges.filter((e) => e !== id);
      if (n.outputEdges.includes(id)) n.outputEdges = n.outputEdges.filter((e) => e !== id);
    }
  }
}

/** `LutManager::getHandle`: the index of the table for these parameters, registering it when new */
export function registerLut(g: EngineGraph, entry: Omit<LutEntry, 'key'>): number {
  const f = (x: number) => x.toPrecision(6);
  const key = `${entry.type}${entry.precision}${entry.lrn ? `${entry.lrn.localSize}-${f(entry.lrn.alpha)}-${f(entry.lrn.beta)}-${f(entry.lrn.k)}` : ''}${entry.lrn?.inputScale !== undefined ? `@${entry.lrn.inputScale}` : ''}`;
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
  // `nodeAuxEdge`: the aux edge it is attached to now (one moved away by a fusion is not its any more)
  const auxEdge = kill.upstream.map((id) => ed.edge(id)).find((e) => e.aux) ?? null;
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
  g.surfaces = surfacesWithout(g, e.surface);
  if (tsd?.buffer) g.buffers = buffersWithout(g, tsd.buffer);
  e.surface = null;
}

/** `Node::repopulateEdgePorts`: the node's ports again from its edges (concat, split and element-wise have their own rules) */
export function repopulateEdgePorts(ed: EngineGraphEditor, node: EngineNode): void {
  const p = node.params;
  if (p.kind === 'concat') {
    const ins = ed.upstreamDataEdges(node);
    const outs = ed.downstreamDataEdges(node);
    if (p.canonicalInputs && node.canonicalNode) {
      node.inputEdges = p.canonicalInputs.map((ce) => {
        const e = ins.find((x) => x.canonicalEdge === ce);
        if (!e) throw new EngineGraphError(`canonical edge ${ce} is not an input edge to ${node.name}`);
        return e.id;
      });
    } else node.inputEdges = ins.map((e) => e.id);
    if (outs.length > 1) throw new EngineGraphError(`${node.name} has > 1 output edges`);
    node.outputEdges = outs.length ? [outs[0]!.id] : [];
    node.auxEdges = [];
    return;
  }
  if (p.kind === 'split') {
    const ins = ed.upstreamDataEdges(node);
    const outs = ed.downstreamDataEdges(node);
    if (ins.length > 1) throw new EngineGraphError(`${node.name} has > 1 input edges`);
    node.inputEdges = ins.length ? [ins[0]!.id] : [];
    if (p.canonicalOutputs && node.canonicalNode) {
      node.outputEdges = p.canonicalOutputs.map((ce) => {
        const e = outs.find((x) => x.canonicalEdge === ce);
        if (!e) throw new EngineGraphError(`canonical edge ${ce} is not an output edge of ${node.name}`);
        return e.id;
      });
    } else node.outputEdges = outs.map((e) => e.id);
    node.auxEdges = [];
    return;
  }
  if (p.kind === 'sdp-super') {
    // SDPSuperOpNode::populateEdgePorts: the sub-engines' edges are its aux ports, the one data
    // edge left is its input; an edge it does not know yet takes the one role still missing
    const ins = ed.upstreamDataEdges(node);
    const outs = ed.downstreamDataEdges(node);
    if (outs.length !== 1) throw new EngineGraphError(`${node.name} has ${outs.length} output edges`);
    const mapped = (['x1', 'x2', 'y'] as const).filter((x) => p.auxEdgeOf[x] !== null);
    if (ins.length !== 1 + mapped.length) throw new EngineGraphError(`${node.name} has (${ins.length}) input+aux edges. expected (${1 + mapped.length})`);
    const subOf = (id: string) => mapped.find((x) => p.auxEdgeOf[x] === id) ?? null;
    node.inputEdges = [];
    node.auxEdges = [];
    node.outputEdges = [outs[0]!.id];
    const fresh: string[] = [];
    let foundInput = false;
    const found = new Set<string>();
    for (const e of ins) {
      const sub = subOf(e.id);
      if (sub) found.add(sub);
      if (e.aux) {
        if (!sub) throw new EngineGraphError(`${node.name} Aux Edge ${e.id} not in xEdge map. Invalid state`);
        node.auxEdges.push(e.id);
      } else if (sub) node.auxEdges.push(e.id);
      else if (e.id === p.inputEdge) {
        node.inputEdges.push(e.id);
        foundInput = true;
      } else {
        node.inputEdges.push(e.id);
        fresh.push(e.id);
      }
    }
    if (!foundInput || !found.has('x1') || !found.has('x2')) {
      if (fresh.length !== 1) throw new EngineGraphError(`${node.name} multiple new edges found. Invalid state`);
      if (!foundInput) p.inputEdge = fresh[0]!;
      else if (!found.has('x1')) p.auxEdgeOf.x1 = fresh[0]!;
      else p.auxEdgeOf.x2 = fresh[0]!;
    }
    return;
  }
  if (node.engineOpType === 'SDP_ELEMENTWISE') {
    const ins = ed.upstreamDataEdges(node);
    const outs = ed.downstreamDataEdges(node);
    if (ins.length !== 2) throw new EngineGraphError(`Elt wise op has input edges (${ins.length}) != 2`);
    if (outs.length !== 1) throw new EngineGraphError(`Elt wise op has output edges (${outs.length}) != 1`);
    node.inputEdges = ins.map((e) => e.id);
    node.auxEdges = [];
    node.outputEdges = [outs[0]!.id];
    return;
  }
  ed.populateEdgePorts(node);
}

/** the node's input and aux lists are already its upstream data edges split by `aux`, in order */
function portsMatch(ed: EngineGraphEditor, node: EngineNode): boolean {
  let i = 0;
  let a = 0;
  for (const id of node.upstream) {
    const e = ed.edge(id);
    if (e.kind !== 'data') continue;
    if (e.aux) {
      if (node.auxEdges[a++] !== id) return false;
    } else if (node.inputEdges[i++] !== id) return false;
  }
  return i === node.inputEdges.length && a === node.auxEdges.length;
}

function sameIds(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** the creation number of `n-<i>` / `e-<i>` */
export function idNumber(id: string): number {
  // digits read in place (no substring): list insertions call this for every element they pass
  let v = 0;
  for (let i = 2; i < id.length; i++) v = v * 10 + (id.charCodeAt(i) - 48);
  return v;
}

/** add `id` to a list kept in creation order, unless it is there already */
export function insertSortedById(list: string[], id: string): void {
  if (list.includes(id)) return;
  const k = idNumber(id);
  let i = list.length;
  while (i > 0 && idNumber(list[i - 1]!) > k) i--;
  list.splice(i, 0, id);
}
