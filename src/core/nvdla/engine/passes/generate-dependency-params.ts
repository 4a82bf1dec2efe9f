/**
 * Pass `generateDependencyParams` (`Compiler::generateDependencyParams`): the schedule the
 * firmware follows.
 *
 * 1. `topologicalSort`: depth first from the network inputs, data successors before compute
 *    before hazard ones (a node is taken once all its producers are).
 * 2. `resolveDataDependencies`: each node in that order hands over to the next. If the next is not
 *    connected to it (or to the nodes fused into it) a compute edge is added; a producer feeding
 *    the next node data signals it on completion (OP_COMPLETED).
 * 3. `resolveComputeDependencies`: operations of one engine are chained: each waits for the
 *    previous one of its engine to be programmed (OP_PROGRAMMED), or completed when the two are
 *    neighbours exchanging data.
 * 4. `resolveSoftwareDependencies`: concat/split nodes pass their links through.
 * 5. `determineTaskBoundaries`: DLA and EMU (CPU) runs become separate tasks.
 * 6. `annotateNodes`: op slots per task, batch-major (slot = op x batches + batch), and the slots
 *    of each link.
 * 7. `resolveMultiBatchDependencies`: batch n of every op follows batch n-1 of the same op
 *    (OP_PROGRAMMED) and the last batch hands over to the next op of the engine.
 * 8. `verifyDependencyGraph`.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements } from '../graph-state';
import { adjacentNodes, connectedDataNodes, dependsOn, downstreamNodesByKind, isDlaNode, isEmuNode, isSoftwareNode, upstreamNodes } from '../depends';
import { ENGINE_TYPES, emptyDependency, type EngineGraph, type EngineNode, type EngineTask, type NodeDependency, type OperationEvent } from '../model';
import { editCopy, type EnginePass, type PassChanges } from './pass';

const typeIndex = (n: EngineNode) => ENGINE_TYPES.indexOf(n.engineType);

export class DependencyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DependencyError';
  }
}

/** `Graph::topologicalSort` */
export function topologicalSort(ed: EngineGraphEditor): EngineNode[] {
  const g = ed.graph;
  const stack: EngineNode[] = [];
  const order: EngineNode[] = [];
  const visited = new Set<string>();
  for (let i = g.inputEdges.length - 1; i >= 0; i--) {
    const consumers = ed.edge(g.inputEdges[i]!).targets;
    for (let j = consumers.length - 1; j >= 0; j--) {
      const n = ed.node(consumers[j]!);
      if (upstreamNodes(ed, n).length === 0) stack.push(n);
    }
  }
  const pushReady = (children: EngineNode[]) => {
    for (let i = children.length - 1; i >= 0; i--) {
      const c = children[i]!;
      if (upstreamNodes(ed, c).every((p) => visited.has(p.id))) stack.push(c);
    }
  };
  while (stack.length) {
    const n = stack.pop()!;
    if (visited.has(n.id)) throw new DependencyError("Can't resolve a non-acyclic graph ");
    order.push(n);
    visited.add(n.id);
    pushReady(downstreamNodesByKind(ed, n, 'hazard'));
    pushReady(downstreamNodesByKind(ed, n, 'compute'));
    pushReady(downstreamNodesByKind(ed, n, 'data'));
  }
  return order;
}

function link(dep: NodeDependency, side: 'producers' | 'consumers', type: number, node: string | null, event?: OperationEvent): void {
  const l = dep[side][type]!;
  l.node = node;
  if (event) l.event = event;
}

/** `Node::resolveDataDependencies(next)` */
function resolveDataDependencies(ed: EngineGraphEditor, node: EngineNode, next: EngineNode | null, changes: PassChanges): void {
  const d0 = (n: EngineNode) => n.dependency[0]!;
  const hazardNodes: EngineNode[] = [];
  for (const eid of node.upstream) {
    const e = ed.edge(eid);
    if (e.kind !== 'hazard') continue;
    for (const s of e.sources) if (!hazardNodes.some((h) => h.id === s)) hazardNodes.push(ed.node(s));
  }
  const realHazards = hazardNodes.filter((h) => h.engineType !== node.engineType);
  if (next) {
    let previous = node;
    let fused: EngineNode | null = previous;
    while (fused) {
      if (adjacentNodes(fused, next)) break;
      fused = fused.dependency[0]!.fusedInput ? ed.node(fused.dependency[0]!.fusedInput) : null;
    }
    if (!fused) {
      const ce = ed.addComputeEdge(previous, next);
      changes.notes.push(`compute edge ${ce.id}: ${previous.name} -> ${next.name}`);
    } else {
      previous = fused;
    }
    if (!fused || (adjacentNodes(previous, next) && connectedDataNodes(ed, previous, next))) {
      if (isSoftwareNode(previous)) {
        for (let et = 0; et < ENGINE_TYPES.length; et++) {
          const c = d0(previous).consumers[et]!.node;
          if (c) link(d0(ed.node(c)), 'producers', typeIndex(previous), null);
          link(d0(previous), 'consumers', et, null);
        }
      }
      if (isSoftwareNode(next)) {
        for (let et = 0; et < ENGINE_TYPES.length; et++) {
          const p = d0(next).producers[et]!.node;
          if (p) link(d0(ed.node(p)), 'consumers', typeIndex(next), null);
          link(d0(next), 'producers', et, null);
        }
      }
      link(d0(previous), 'consumers', typeIndex(next), next.id, 'OP_COMPLETED');
      link(d0(next), 'producers', typeIndex(previous), previous.id, 'OP_COMPLETED');
    }
  }
  // conv + its fused SDP: the SDP is enabled when the conv is programmed (ConvCoreNode override)
  if (node.engineType === 'CONVOLUTION') {
    const sdp = d0(node).consumers[ENGINE_TYPES.indexOf('SDP')]!;
    if (!sdp.node) throw new DependencyError(`Conv node ${node.name} doesn't have a single SDP consumer!! Forgot to add even an SDP-NOP?`);
    const sdpNode = ed.node(sdp.node);
    if (d0(sdpNode).fusedInput !== node.id) throw new DependencyError('Conv node not fused with down stream SDP');
    sdp.event = 'OP_PROGRAMMED';
    d0(sdpNode).producers[typeIndex(node)]!.event = 'OP_PROGRAMMED';
  }
  // SDP + a PDP pooling on the fly (SDPNode override)
  if (node.engineType === 'SDP') {
    const pdp = d0(node).consumers[ENGINE_TYPES.indexOf('PDP')]!;
    if (pdp.node && d0(ed.node(pdp.node)).fusedInput === node.id) {
      pdp.event = 'OP_PROGRAMMED';
      d0(ed.node(pdp.node)).producers[typeIndex(node)]!.event = 'OP_PROGRAMMED';
    }
  }
  for (const h of realHazards) {
    if (h.engineType === 'CONCATENATION' || h.engineType === 'SPLIT') continue;
    // upstream asks whether this node depends on the engine's existing producer, which is null here: never
    if (!d0(node).producers[typeIndex(h)]!.node) {
      link(d0(node), 'producers', typeIndex(h), h.id, 'OP_COMPLETED');
      link(d0(h), 'consumers', typeIndex(node), node.id, 'OP_COMPLETED');
    }
  }
}

/** `Node::resolveComputeDependencies` */
function resolveComputeDependencies(ed: EngineGraphEditor, node: EngineNode, order: EngineNode[]): void {
  if (isSoftwareNode(node)) return;
  const i = order.findIndex((n) => n.id === node.id);
  if (i < 0) return;
  const t = typeIndex(node);
  for (const other of order.slice(i + 1)) {
    if (other.engineType !== node.engineType) continue;
    link(node.dependency[0]!, 'consumers', t, other.id);
    link(other.dependency[0]!, 'producers', t, node.id);
    let event: OperationEvent = 'OP_PROGRAMMED';
    if (adjacentNodes(node, other) && !dependsOn(ed, other, node, ['compute'], [])) event = 'OP_COMPLETED';
    node.dependency[0]!.consumers[t]!.event = event;
    other.dependency[0]!.producers[t]!.event = event;
    break;
  }
}

/** `Node::resolveSoftwareDependencies` */
function resolveSoftwareDependencies(ed: EngineGraphEditor, node: EngineNode): void {
  if (!isSoftwareNode(node)) return;
  const d = node.dependency[0]!;
  const producers = d.producers.filter((l) => l.node).map((l) => ed.node(l.node!));
  const consumers = d.consumers.filter((l) => l.node).map((l) => ed.node(l.node!));
  if (producers.length > 1) throw new DependencyError(`Can't handle >1 producers to software node ${node.name}`);
  if (consumers.length > 1) throw new DependencyError(`Can't handle >1 consumers to software node ${node.name}`);
  if (!producers.length || !consumers.length) return;
  const prod = producers[0]!;
  const cons = consumers[0]!;
  const prodEvent = d.producers[typeIndex(prod)]!.event;
  const consEvent = d.consumers[typeIndex(cons)]!.event;
  if (prodEvent !== consEvent) throw new DependencyError(`Can't connect producer and consumer of ${node.name} with different op events`);
  const existingConsOfProd = prod.dependency[0]!.consumers[typeIndex(cons)]!.node;
  const existingProdOfCons = cons.dependency[0]!.producers[typeIndex(prod)]!.node;
  if (existingConsOfProd && !isSoftwareNode(ed.node(existingConsOfProd)) && existingConsOfProd !== cons.id) {
    throw new DependencyError(`Can't override existing consumer (${ed.node(existingConsOfProd).name}) of ${prod.name} with ${cons.name}`);
  }
  if (existingProdOfCons && !isSoftwareNode(ed.node(existingProdOfCons)) && existingProdOfCons !== prod.id) {
    throw new DependencyError(`Can't override existing producer (${ed.node(existingProdOfCons).name}) of ${cons.name} with ${prod.name}`);
  }
  link(prod.dependency[0]!, 'consumers', typeIndex(cons), cons.id, consEvent);
  link(cons.dependency[0]!, 'producers', typeIndex(prod), prod.id, prodEvent);
  link(prod.dependency[0]!, 'consumers', typeIndex(node), null, 'OP_COMPLETED');
  link(cons.dependency[0]!, 'producers', typeIndex(node), null, 'OP_COMPLETED');
}

/** `Graph::determineTaskBoundaries` */
function determineTaskBoundaries(order: EngineNode[]): EngineTask[] {
  const tasks: EngineTask[] = [];
  let emu = order[0] ? isEmuNode(order[0]) : false;
  const newTask = (id: number, kind: EngineTask['kind']): EngineTask => ({ id, kind, nodes: [], opHeads: ENGINE_TYPES.map(() => null) });
  let task = newTask(0, emu ? 'EMU' : 'DLA');
  tasks.push(task);
  for (const node of order) {
    if (isEmuNode(node) !== emu) {
      task = newTask(task.id + 1, isEmuNode(node) ? 'EMU' : 'DLA');
      tasks.push(task);
    }
    node.taskId = task.id;
    if (!isDlaNode(node) && !isEmuNode(node)) node.dependency[0]!.slot = -1;
    else task.nodes.push(node.id);
    emu = isEmuNode(node);
    const t = typeIndex(node);
    if (task.opHeads[t] === null) task.opHeads[t] = node.id;
  }
  return tasks;
}

/** `Graph::annotateNodes` */
function annotateNodes(ed: EngineGraphEditor, tasks: EngineTask[], batches: number): void {
  for (const task of tasks) {
    let last = -1;
    const emuTask = task.kind === 'EMU';
    for (const id of task.nodes) {
      const n = ed.node(id);
      if (emuTask !== isEmuNode(n)) throw new DependencyError('All nodes in a graphlet should be either all CPU or all DLA');
      for (let b = 0; b < batches; b++) n.dependency[b]!.slot = ++last;
    }
  }
  for (const task of tasks) {
    for (const id of task.nodes) {
      const d = ed.node(id).dependency[0]!;
      for (const l of [...d.consumers, ...d.producers]) if (l.slot === -1) l.slot = l.node ? ed.node(l.node).dependency[0]!.slot : -1;
    }
  }
}

/** `Node::resolveMultiBatchDependencies` */
function resolveMultiBatchDependencies(ed: EngineGraphEditor, node: EngineNode, batches: number): void {
  if (batches === 1) return;
  const t = typeIndex(node);
  const last = batches - 1;
  const dep = node.dependency;
  for (let nn = 1; nn < batches; nn++) {
    for (let et = 0; et < ENGINE_TYPES.length; et++) {
      for (const side of ['consumers', 'producers'] as const) {
        const l0 = dep[0]![side][et]!;
        dep[nn]![side][et] = { node: l0.node, slot: l0.node ? ed.node(l0.node).dependency[nn]!.slot : -1, event: l0.event };
      }
    }
    dep[nn]!.fusedInput = dep[0]!.fusedInput;
    dep[nn]!.fusedOutput = dep[0]!.fusedOutput;
  }
  const computeConsumer = dep[0]!.consumers[t]!.node;
  const computeEvent = dep[0]!.consumers[t]!.event;
  const consumerSlot = computeConsumer ? ed.node(computeConsumer).dependency[0]!.slot : -1;
  dep[last]!.consumers[t] = { node: computeConsumer, slot: consumerSlot, event: computeEvent };
  if (computeConsumer) ed.node(computeConsumer).dependency[0]!.producers[t] = { node: node.id, slot: dep[last]!.slot, event: computeEvent };
  for (let b = 0; b < last; b++) {
    dep[b]!.consumers[t] = { node: node.id, slot: dep[b + 1]!.slot, event: 'OP_PROGRAMMED' };
    dep[b + 1]!.producers[t] = { node: node.id, slot: dep[b]!.slot, event: 'OP_PROGRAMMED' };
  }
}

/** `Node::verifyDependencyParams`: every link has its mirror on the other side */
function verifyDependencyParams(ed: EngineGraphEditor, node: EngineNode, batches: number): void {
  if (isSoftwareNode(node)) return;
  const t = typeIndex(node);
  for (let b = 1; b < batches - 1; b++) {
    for (let et = 0; et < ENGINE_TYPES.length; et++) {
      if (ENGINE_TYPES[et] === 'CONCATENATION' || ENGINE_TYPES[et] === 'SPLIT') continue;
      const c = node.dependency[b]!.consumers[et]!;
      if (c.node) {
        const mirror = ed.node(c.node).dependency[c.node === node.id ? b + 1 : b]!.producers[t]!;
        if (mirror.slot !== node.dependency[b]!.slot || mirror.event !== c.event) throw new DependencyError(`Consumer ${ed.node(c.node).name} and Producer ${node.name} don't form the right pair`);
      }
      const p = node.dependency[b]!.producers[et]!;
      if (p.node) {
        const mirror = ed.node(p.node).dependency[p.node === node.id ? b - 1 : b]!.consumers[t]!;
        if (mirror.slot !== node.dependency[b]!.slot || mirror.event !== p.event) throw new DependencyError(`Consumer ${node.name} and Producer ${ed.node(p.node).name} don't form the right pair`);
      }
    }
  }
}

/** the whole pass on a graph being edited; returns the topological order (resolveMemory walks it) */
export function generateDependencyParams(g: EngineGraph, changes: PassChanges): EngineNode[] {
  const ed = new EngineGraphEditor(g);
  const batches = g.batchSize;
  for (const n of g.nodes) {
    n.dependency = Array.from({ length: batches }, () => emptyDependency());
    n.dependency[0]!.fusedInput = n.fusedInput;
    n.dependency[0]!.fusedOutput = n.fusedOutput;
    n.taskId = -1;
  }
  const order = topologicalSort(ed);
  // upstream pairs each node with the next; the last node is never visited
  for (let i = 0; i + 1 < order.length; i++) resolveDataDependencies(ed, order[i]!, order[i + 1]!, changes);
  for (const n of order) resolveComputeDependencies(ed, n, order);
  for (const n of orderedElements(g).nodes) resolveSoftwareDependencies(ed, n);
  g.tasks = determineTaskBoundaries(order);
  annotateNodes(ed, g.tasks, batches);
  for (const n of orderedElements(g).nodes) resolveMultiBatchDependencies(ed, n, batches);
  for (const n of orderedElements(g).nodes) verifyDependencyParams(ed, n, batches);
  g.schedule = order.map((n) => n.id);
  changes.notes.unshift(`order: ${order.map((n) => n.name).join(', ')}`);
  changes.notes.push(`${g.tasks.length} task(s): ${g.tasks.map((t) => `${t.kind} ${t.nodes.length} op(s)`).join(', ')}`);
  return order;
}

export const generateDependencyParamsPass: EnginePass = {
  name: 'generateDependencyParams',
  run(input) {
    return editCopy(input, (g, changes) => {
      generateDependencyParams(g, changes);
    });
  },
};

/** `DependencyParams::getDependencyCount`: producers the firmware waits for (CPU and software ones aside), plus a fused consumer */
export function dependencyCount(d: NodeDependency): number {
  let n = 0;
  d.producers.forEach((p, i) => {
    const t = ENGINE_TYPES[i];
    if (t === 'CPU' || t === 'SPLIT' || t === 'CONCATENATION') return;
    if (p.slot !== -1) n++;
  });
  return n + (d.fusedOutput ? 1 : 0);
}
