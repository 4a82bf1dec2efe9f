/**
 * A Graph packed for crossing a worker boundary: typed arrays and flat string arrays instead of
 * one object per node and edge. Structured-cloning 10,000 node objects costs the receiving
 * thread about 100 ms; the packed form costs a few (strings clone cheaply, typed arrays are
 * transferred). The packed graph is "slim": ports and attributes are fetched on demand.
 */
import type { ChainedLayer, Graph, GraphEdge, GraphNode, GraphStats, NodeCategory, NodeKind } from './model';

const KINDS: NodeKind[] = ['op', 'input', 'output', 'const'];

export interface GraphPack {
  id: string;
  name: string;
  stats: GraphStats;
  nodeId: string[];
  kind: Uint8Array;
  type: string[];
  nodeName: string[];
  category: NodeCategory[];
  index: Int32Array;
  /** nodes with subgraph references: [node index, graph ids] */
  subgraphs: [number, string[]][];
  /** nodes with a group: [node index, group id] */
  groups: [number, string][];
  /** nodes with layers drawn inside their box: [node index, layers] */
  chains: [number, ChainedLayer[]][];
  edgeFrom: Uint32Array;
  edgeTo: Uint32Array;
  edgeTensor: Int32Array;
  edgeName: string[];
  edgeLabel: string[];
}

export function packGraph(graph: Graph): GraphPack {
  const n = graph.nodes.length;
  const m = graph.edges.length;
  const kind = new Uint8Array(n);
  const index = new Int32Array(n);
  const subgraphs: [number, string[]][] = [];
  const groups: [number, string][] = [];
  const chains: [number, ChainedLayer[]][] = [];
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i]!;
    kind[i] = Math.max(0, KINDS.indexOf(node.kind));
    index[i] = node.index;
    if (node.subgraphs?.length) subgraphs.push([i, node.subgraphs]);
    if (node.group !== undefined) groups.push([i, node.group]);
    if (node.chain?.length) chains.push([i, node.chain]);
  }
  const edgeFrom = new Uint32Array(m);
  const edgeTo = new Uint32Array(m);
  const edgeTensor = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    const edge = graph.edges[e]!;
    edgeFrom[e] = edge.from;
    edgeTo[e] = edge.to;
    edgeTensor[e] = edge.tensor;
  }
  return {
    id: graph.id,
    name: graph.name,
    stats: graph.stats,
    nodeId: graph.nodes.map((x) => x.id),
    kind,
    type: graph.nodes.map((x) => x.type),
    nodeName: graph.nodes.map((x) => x.name),
    category: graph.nodes.map((x) => x.category),
    index,
    subgraphs,
    groups,
    chains,
    edgeFrom,
    edgeTo,
    edgeTensor,
    edgeName: graph.edges.map((x) => x.name),
    edgeLabel: graph.edges.map((x) => x.label),
  };
}

/** The slim Graph back (ports and attributes empty). */
export function unpackGraph(p: GraphPack): Graph {
  const n = p.nodeId.length;
  const nodes: GraphNode[] = new Array<GraphNode>(n);
  for (let i = 0; i < n; i++) {
    nodes[i] = {
      id: p.nodeId[i]!,
      kind: KINDS[p.kind[i]!] ?? 'op',
      type: p.type[i]!,
      name: p.nodeName[i]!,
      category: p.category[i]!,
      index: p.index[i]!,
      inputs: [],
      outputs: [],
      attributes: [],
    };
  }
  for (const [i, ids] of p.subgraphs) nodes[i]!.subgraphs = ids;
  for (const [i, g] of p.groups) nodes[i]!.group = g;
  for (const [i, c] of p.chains) nodes[i]!.chain = c;
  const m = p.edgeFrom.length;
  const edges: GraphEdge[] = new Array<GraphEdge>(m);
  for (let e = 0; e < m; e++) {
    edges[e] = { from: p.edgeFrom[e]!, to: p.edgeTo[e]!, tensor: p.edgeTensor[e]!, name: p.edgeName[e]!, label: p.edgeLabel[e]! };
  }
  return { id: p.id, name: p.name, nodes, edges, stats: p.stats };
}

/** The buffers a transfer list should move. */
export function packBuffers(p: GraphPack): ArrayBuffer[] {
  return [p.kind.buffer, p.index.buffer, p.edgeFrom.buffer, p.edgeTo.buffer, p.edgeTensor.buffer] as ArrayBuffer[];
}
