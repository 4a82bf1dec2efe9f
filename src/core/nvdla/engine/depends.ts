/**
 * Graph queries of the dependency passes (`Node::dependsOn`, `Graph::adjacentNodes`,
 * `Graph::connectedDataNodes`, the upstream/downstream node lists by edge kind).
 *
 * `dependsOn` walks upstream from a node looking for another; with `requiredVia` it only counts
 * paths through at least one edge of those kinds. Upstream keeps the nodes to visit in a
 * `std::map` keyed by node pointer, so which path reaches the target first (and whether it counted
 * as "satisfied") follows heap addresses; here nodes are visited in creation order (`n-<i>`), the
 * order the heap hands out addresses while a graph is being built.
 */
import type { EngineGraphEditor } from './graph';
import type { EdgeKind, EngineNode } from './model';

function nodeNumber(id: string): number {
  return Number(id.slice(2));
}

export function dependsOn(ed: EngineGraphEditor, node: EngineNode, of: EngineNode | null, requiredVia: readonly EdgeKind[], allowedVia: readonly EdgeKind[]): boolean {
  if (!of || of.id === node.id) return false;
  const requires = requiredVia.length !== 0;
  const allows = allowedVia.length !== 0;
  const follow = new Map<string, boolean>([[node.id, false]]);
  const followed = new Map<string, boolean>();
  while (follow.size) {
    let current = '';
    for (const id of follow.keys()) if (current === '' || nodeNumber(id) < nodeNumber(current)) current = id;
    const satisfiedHere = follow.get(current)!;
    follow.delete(current);
    followed.set(current, satisfiedHere);
    if (current === of.id) return satisfiedHere;
    for (const eid of ed.node(current).upstream) {
      const e = ed.edge(eid);
      if (allows && !allowedVia.includes(e.kind)) continue;
      const edgeSatisfies = !requires || requiredVia.includes(e.kind) || allowedVia.includes(e.kind);
      const satisfied = satisfiedHere || edgeSatisfies;
      for (const up of e.sources) {
        const seen = followed.get(up);
        if (seen === undefined) follow.set(up, satisfied);
        else if (satisfied && !seen) {
          follow.set(up, true);
          followed.set(up, true);
        }
      }
    }
  }
  return false;
}

/** `adjacentNodes`: an edge of any kind runs between the two nodes, either way */
export function adjacentNodes(a: EngineNode, b: EngineNode): boolean {
  return a.upstream.some((e) => b.downstream.includes(e)) || a.downstream.some((e) => b.upstream.includes(e));
}

/** `connectedDataNodes(up, down)`: a data edge runs from `up` to `down` */
export function connectedDataNodes(ed: EngineGraphEditor, up: EngineNode, down: EngineNode): boolean {
  return up.downstream.some((id) => {
    const e = ed.edge(id);
    return e.kind === 'data' && e.targets.includes(down.id);
  });
}

function uniqueNodes(ed: EngineGraphEditor, edgeIds: readonly string[], side: 'sources' | 'targets', kind: EdgeKind | null): EngineNode[] {
  const out: EngineNode[] = [];
  const seen = new Set<string>();
  for (const id of edgeIds) {
    const e = ed.edge(id);
    if (kind && e.kind !== kind) continue;
    for (const n of e[side]) {
      if (seen.has(n)) continue;
      seen.add(n);
      out.push(ed.node(n));
    }
  }
  return out;
}

/** nodes feeding `node` through any edge, in edge order, each once */
export function upstreamNodes(ed: EngineGraphEditor, node: EngineNode): EngineNode[] {
  return uniqueNodes(ed, node.upstream, 'sources', null);
}

export function downstreamNodesByKind(ed: EngineGraphEditor, node: EngineNode, kind: EdgeKind): EngineNode[] {
  return uniqueNodes(ed, node.downstream, 'targets', kind);
}

export function isSoftwareNode(n: EngineNode): boolean {
  return n.engineType === 'SPLIT' || n.engineType === 'CONCATENATION';
}

export function isEmuNode(n: EngineNode): boolean {
  return n.engineType === 'CPU';
}

export function isDlaNode(n: EngineNode): boolean {
  return !(n.engineType === 'CPU' || n.engineType === 'SPLIT' || n.engineType === 'CONCATENATION');
}
