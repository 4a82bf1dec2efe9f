/**
 * The engine graph's element order (`ScoredGraphOrdering::generate` + `DependencyOrdering` in
 * nvdla/sw `AST.h` / `EngineGraph.cpp`): a traversal from the graph's input edges that scores
 * each node and edge (discovered, finishable, finished times), then sorts the elements by score.
 * `orderedNodes()` and `orderedEdges()` upstream are this order, and it fixes how surfaces
 * (`tsd-N`) and buffers (`tb-N`) are numbered, so it is reproduced exactly: the traversal, the
 * element map's iteration order (a `std::map` under a comparator that is not a strict weak order)
 * and `std::sort`'s handling of ties (stl.ts).
 */
import type { EngineEdge, EngineGraph, EngineNode } from './model';
import { RbTreeOrder, stdSort } from './stl';

/** `ast::GraphTraversalState` */
export interface Score {
  state: 0 | 1 | 2 | 3; // undiscovered, discovered, finishable, finished
  discovered: number;
  finishable: number;
  finished: number;
}

function newScore(): Score {
  return { state: 0, discovered: -1, finishable: -1, finished: -1 };
}

const isFinished = (s: Score) => s.finished !== -1;
const isFinishable = (s: Score) => s.state === 2;

function scoreEquals(a: Score, b: Score): boolean {
  return a.state === b.state && a.discovered === b.discovered && a.finishable === b.finishable && a.finished === b.finished;
}

/** `GraphTraversalState::operator<` */
export function scoreLess(a: Score, b: Score): boolean {
  if (scoreEquals(a, b)) return false;
  if (a.state !== b.state) return a.state < b.state;
  switch (a.state) {
    case 1:
      return a.discovered < b.discovered;
    case 2:
      return a.finishable === b.finishable ? a.discovered < b.discovered : a.finishable < b.finishable;
    case 3:
      if (a.finished === b.finished) return a.finishable === b.finishable ? a.discovered < b.discovered : a.finishable < b.finishable;
      return a.finished < b.finished;
    default:
      return false;
  }
}

export interface Elem {
  kind: 'node' | 'edge';
  id: string;
  /** creation number (upstream uniqueId order) */
  uid: number;
  score: Score;
  /** the score as one number (finished, finishable, discovered, then nodes before edges): see sortKey */
  key: number;
}

export interface GraphOrder {
  nodes: string[];
  edges: string[];
  elems: { kind: 'node' | 'edge'; id: string; score: Score }[];
  /** the traversal did not reach every element (upstream: "is not converging") */
  error: string | null;
}

/** the creation number of `n-<i>` / `e-<i>` (digits read in place: no substring per lookup) */
function uidOf(id: string): number {
  let v = 0;
  for (let i = 2; i < id.length; i++) v = v * 10 + (id.charCodeAt(i) - 48);
  return v;
}

/** `elemCompareFn`: by uniqueId within a kind; across kinds each is "less" than the other */
function elemLess(a: Elem, b: Elem): boolean {
  if (a.kind === b.kind) return a.uid < b.uid;
  return true;
}

/**
 * `ElemScoreSorter` as one number. Only finished elements are ever sorted, and for them
 * `GraphTraversalState::operator<` compares (finished, finishable, discovered) in turn; on a tie
 * a node sorts before an edge. Times are below 2^20 (one per node), so the key is exact.
 */
function sortKey(kind: 'node' | 'edge', s: Score): number {
  return ((s.finished * 1048576 + s.finishable) * 1048576 + s.discovered) * 2 + (kind === 'edge' ? 1 : 0);
}

/** the graph's adjacency by creation number, read once per ordering */
class Adjacency {
  readonly nodeUp: number[][] = [];
  readonly nodeDown: number[][] = [];
  readonly edgeSrc: number[][] = [];
  readonly edgeDst: number[][] = [];
  readonly nodeId: string[] = [];
  readonly edgeId: string[] = [];
  readonly node: EngineNode[] = [];
  readonly edge: EngineEdge[] = [];

  constructor(g: EngineGraph) {
    for (const n of g.nodes) {
      const u = uidOf(n.id);
      this.nodeId[u] = n.id;
      this.node[u] = n;
      this.nodeUp[u] = n.upstream.map(uidOf);
      this.nodeDown[u] = n.downstream.map(uidOf);
    }
    for (const e of g.edges) {
      const u = uidOf(e.id);
      this.edgeId[u] = e.id;
      this.edge[u] = e;
      this.edgeSrc[u] = e.sources.map(uidOf);
      this.edgeDst[u] = e.targets.map(uidOf);
    }
  }
}

class Scoreboard {
  readonly nodeScores: (Score | undefined)[] = [];
  readonly edgeScores: (Score | undefined)[] = [];
  readonly elems = new RbTreeOrder<Elem>(elemLess);

  constructor(readonly adj: Adjacency) {}

  fetchEdge(time: number, id: number): Score {
    let s = this.edgeScores[id];
    if (!s) {
      s = newScore();
      s.state = 1;
      s.discovered = time;
      this.edgeScores[id] = s;
    }
    return s;
  }

  fetchNode(time: number, id: number): Score {
    let s = this.nodeScores[id];
    if (!s) {
      s = newScore();
      s.state = 1;
      s.discovered = time;
      this.nodeScores[id] = s;
    }
    return s;
  }

  elem(kind: 'node' | 'edge', uid: number, score: Score): void {
    // the element map stores a copy of the score as it is now (inserted once)
    const copy = { ...score };
    this.elems.insertUnique({ kind, id: kind === 'node' ? this.adj.nodeId[uid]! : this.adj.edgeId[uid]!, uid, score: copy, key: sortKey(kind, copy) });
  }

  evaluateEdge(time: number, id: number): Score {
    const s = this.fetchEdge(time, id);
    if (isFinished(s)) return s;
    let allFinished = true;
    let finishable = 0;
    let finished = 0;
    for (const up of this.adj.edgeSrc[id]!) {
      const ns = this.fetchNode(time, up);
      allFinished = allFinished && isFinished(ns);
      finished = Math.max(finished, ns.finished);
      finishable = Math.max(finishable, ns.finishable);
    }
    if (allFinished) {
      s.state = 2;
      s.finishable = finishable;
      s.state = 3;
      s.finished = finished;
      this.elem('edge', id, s);
    }
    return s;
  }

  evaluateNode(time: number, id: number): Score {
    const s = this.fetchNode(time, id);
    if (isFinished(s)) return s;
    let all = true;
    let t = 0;
    for (const e of this.adj.nodeUp[id]!) {
      if (!all) break;
      const es = this.evaluateEdge(time, e);
      all = all && (isFinished(es) || isFinishable(es));
      t = Math.max(t, es.finishable);
    }
    if (all) {
      s.state = 2;
      s.finishable = t + 1;
    }
    return s;
  }

  finishNode(id: number, t: number): Score {
    for (const e of this.adj.nodeUp[id]!) {
      const es = this.fetchEdge(t, e);
      if (isFinishable(es)) {
        es.state = 3;
        es.finished = t;
        this.elem('edge', e, es);
      }
    }
    const s = this.fetchNode(t, id);
    s.state = 3;
    s.finished = t + 1;
    this.elem('node', id, s);
    return s;
  }
}

interface Pointer {
  node: number;
  /** the pointer's state: upstream copies the node's score into it; only these two matter */
  finished: boolean;
  fresh: boolean;
}

/** `DependencyOrdering::generate()` for an engine graph. */
export function graphOrder(g: EngineGraph): GraphOrder {
  const { elems, error } = scoredElements(g);
  const nodes: string[] = [];
  const edges: string[] = [];
  for (const e of elems) (e.kind === 'node' ? nodes : edges).push(e.id);
  return {
    nodes,
    edges,
    get elems() {
      return elems.map((e) => ({ kind: e.kind, id: e.id, score: e.score }));
    },
    error,
  };
}

/** `graphOrder` as the graph's own node and edge objects (`orderedNodes()`, `orderedEdges()`) */
export function orderedGraphElements(g: EngineGraph): { nodes: EngineNode[]; edges: EngineEdge[]; error: string | null } {
  const { elems, error, adj } = scoredElements(g);
  const nodes: EngineNode[] = [];
  const edges: EngineEdge[] = [];
  for (const e of elems) {
    if (e.kind === 'node') nodes.push(adj.node[e.uid]!);
    else edges.push(adj.edge[e.uid]!);
  }
  return { nodes, edges, error };
}

function scoredElements(g: EngineGraph): { elems: Elem[]; error: string | null; adj: Adjacency } {
  const adj = new Adjacency(g);
  const sb = new Scoreboard(adj);
  let time = 0;
  let error: string | null = null;
  let pointers: Pointer[] = [];
  for (const ie of g.inputEdges) {
    const u = uidOf(ie);
    if (adj.edgeSrc[u]!.length) {
      error = `Unexpected source node for network input edge '${ie}'`;
      break;
    }
    for (const n of adj.edgeDst[u]!) if (!pointers.some((p) => p.node === n && p.fresh)) pointers.push({ node: n, finished: false, fresh: true });
  }
  while (!error && pointers.length) {
    let ptr: Pointer | null = null;
    for (const p of pointers) {
      const s = sb.evaluateNode(time, p.node);
      p.finished = isFinished(s);
      p.fresh = false;
      if (isFinishable(s) && !ptr) ptr = p;
    }
    pointers = pointers.filter((p) => !p.finished);
    if (!pointers.length) continue;
    if (!ptr) {
      const front = g.nodes.find((n) => n.id === adj.nodeId[pointers[0]!.node])!;
      error = `graph ordering is not converging for :${front.id} ${front.name}`;
      break;
    }
    const s = sb.finishNode(ptr.node, time);
    ptr.finished = isFinished(s);
    time++;
    const advance: number[] = [];
    for (const de of adj.nodeDown[ptr.node]!) {
      sb.evaluateEdge(time, de);
      for (const dn of adj.edgeDst[de]!) if (!advance.includes(dn)) advance.push(dn);
    }
    if (advance.length) {
      const at = pointers.indexOf(ptr) + 1;
      const inserted: Pointer[] = [];
      for (let k = advance.length - 1; k > 0; k--) inserted.push({ node: advance[k]!, finished: false, fresh: true });
      pointers.splice(at, 0, ...inserted);
      ptr.node = advance[0]!;
      ptr.finished = false;
    }
  }
  return { elems: stdSort(sb.elems.keys(), (a, b) => a.key < b.key), error, adj };
}
