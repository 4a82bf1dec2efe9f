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
}

export interface GraphOrder {
  nodes: string[];
  edges: string[];
  elems: { kind: 'node' | 'edge'; id: string; score: Score }[];
  /** the traversal did not reach every element (upstream: "is not converging") */
  error: string | null;
}

const uidOf = (id: string): number => Number(id.slice(2));

/** `elemCompareFn`: by uniqueId within a kind; across kinds each is "less" than the other */
function elemLess(a: Elem, b: Elem): boolean {
  if (a.kind === b.kind) return a.uid < b.uid;
  return true;
}

/** `ElemScoreSorter`: by score, nodes before edges when scores tie */
function elemScoreLess(a: Elem, b: Elem): boolean {
  let lt = scoreLess(a.score, b.score);
  if (scoreEquals(a.score, b.score)) {
    if (a.kind === 'node' && b.kind === 'edge') lt = true;
    else if (a.kind === 'edge' && b.kind === 'node') lt = false;
  }
  return lt;
}

class Scoreboard {
  readonly nodeScores = new Map<string, Score>();
  readonly edgeScores = new Map<string, Score>();
  readonly elems = new RbTreeOrder<Elem>(elemLess);
  private readonly nodes = new Map<string, EngineNode>();
  private readonly edges = new Map<string, EngineEdge>();

  constructor(readonly g: EngineGraph) {
    for (const n of g.nodes) this.nodes.set(n.id, n);
    for (const e of g.edges) this.edges.set(e.id, e);
  }

  node(id: string): EngineNode {
    return this.nodes.get(id)!;
  }

  edge(id: string): EngineEdge {
    return this.edges.get(id)!;
  }

  fetchEdge(time: number, id: string): Score {
    let s = this.edgeScores.get(id);
    if (!s) {
      s = newScore();
      s.state = 1;
      s.discovered = time;
      this.edgeScores.set(id, s);
    }
    return s;
  }

  fetchNode(time: number, id: string): Score {
    let s = this.nodeScores.get(id);
    if (!s) {
      s = newScore();
      s.state = 1;
      s.discovered = time;
      this.nodeScores.set(id, s);
    }
    return s;
  }

  elem(kind: 'node' | 'edge', id: string, score: Score): void {
    // the element map stores a copy of the score as it is now (inserted once)
    this.elems.insertUnique({ kind, id, uid: uidOf(id), score: { ...score } });
  }

  evaluateEdge(time: number, id: string): Score {
    const s = this.fetchEdge(time, id);
    if (isFinished(s)) return s;
    let allFinished = true;
    let finishable = 0;
    let finished = 0;
    for (const up of this.edge(id).sources) {
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

  evaluateNode(time: number, id: string): Score {
    const s = this.fetchNode(time, id);
    if (isFinished(s)) return s;
    let all = true;
    let t = 0;
    for (const e of this.node(id).upstream) {
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

  finishNode(id: string, t: number): Score {
    for (const e of this.node(id).upstream) {
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
  node: string;
  state: Score;
}

/** `DependencyOrdering::generate()` for an engine graph. */
export function graphOrder(g: EngineGraph): GraphOrder {
  const sb = new Scoreboard(g);
  let time = 0;
  let error: string | null = null;
  let pointers: Pointer[] = [];
  for (const ie of g.inputEdges) {
    const e = sb.edge(ie);
    if (e.sources.length) {
      error = `Unexpected source node for network input edge '${ie}'`;
      break;
    }
    for (const n of e.targets) if (!pointers.some((p) => p.node === n && scoreEquals(p.state, newScore()))) pointers.push({ node: n, state: newScore() });
  }
  while (!error && pointers.length) {
    let finishableIndex = -1;
    pointers.forEach((p, i) => {
      const s = sb.evaluateNode(time, p.node);
      p.state = { ...s };
      if (isFinishable(s) && finishableIndex === -1) finishableIndex = i;
    });
    const ptr = finishableIndex >= 0 ? pointers[finishableIndex]! : null;
    pointers = pointers.filter((p) => !isFinished(p.state));
    if (!pointers.length) continue;
    if (!ptr) {
      const front = sb.node(pointers[0]!.node);
      error = `graph ordering is not converging for :${front.id} ${front.name}`;
      break;
    }
    const s = sb.finishNode(ptr.node, time);
    ptr.state = { ...s };
    time++;
    const advance: string[] = [];
    for (const de of sb.node(ptr.node).downstream) {
      sb.evaluateEdge(time, de);
      for (const dn of sb.edge(de).targets) if (!advance.includes(dn)) advance.push(dn);
    }
    if (advance.length) {
      const at = pointers.indexOf(ptr) + 1;
      const inserted: Pointer[] = [];
      for (let k = advance.length - 1; k > 0; k--) inserted.push({ node: advance[k]!, state: newScore() });
      pointers.splice(at, 0, ...inserted);
      ptr.node = advance[0]!;
    }
  }
  const elems = stdSort(sb.elems.keys(), elemScoreLess);
  return {
    nodes: elems.filter((e) => e.kind === 'node').map((e) => e.id),
    edges: elems.filter((e) => e.kind === 'edge').map((e) => e.id),
    elems: elems.map((e) => ({ kind: e.kind, id: e.id, score: e.score })),
    error,
  };
}
