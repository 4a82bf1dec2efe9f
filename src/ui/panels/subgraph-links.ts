/**
 * The bodies a node refers to (IF then / else, WHILE cond / body), named by their role: the
 * attributes `<role>_subgraph_index` come in the same order as `node.subgraphs` (the graph ids).
 */
import type { GraphInfo, GraphNode } from '../../core/graph/model';

export interface SubgraphLink {
  /** `then`, `else`, `cond`, `body`, or `subgraph N` when the attributes do not say */
  role: string;
  /** the attribute that names it (its row becomes the link), when there is one */
  attribute: string | null;
  graphId: string;
  /** `1: then_branch (3 ops)` */
  title: string;
}

export function subgraphLinks(node: Pick<GraphNode, 'subgraphs' | 'attributes'>, graphs: readonly GraphInfo[]): SubgraphLink[] {
  const ids = node.subgraphs ?? [];
  const named = node.attributes.filter((a) => a.name.endsWith('_subgraph_index'));
  return ids.map((graphId, k) => {
    const attr = named.length === ids.length ? named[k]! : null;
    const at = graphs.findIndex((g) => g.id === graphId);
    const g = graphs[at];
    const ops = g ? g.stats.nodes : null;
    return {
      role: attr ? attr.name.replace(/_subgraph_index$/, '') : `subgraph ${k + 1}`,
      attribute: attr?.name ?? null,
      graphId,
      title: g ? `${at}: ${g.name || '(unnamed)'} (${ops} op${ops === 1 ? '' : 's'})` : `graph ${graphId} (not in this model)`,
    };
  });
}
