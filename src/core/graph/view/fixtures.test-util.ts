/** Small graphs and layouts for the graph-view unit tests. */
import type { GraphLayout } from '../layout-types';
import type { Graph, GraphNode, NodeCategory, NodeKind } from '../model';

export function node(i: number, kind: NodeKind, type: string, name: string, category: NodeCategory = 'Other'): GraphNode {
  return { id: `n${i}`, kind, type, name, category, index: i, inputs: [], outputs: [], attributes: [] };
}

/**
 * in0 -> add -> relu -> out0 with a side branch add -> conv (same rank as relu) -> out0.
 * Ranks: 0: in0, 1: add, 2: relu, conv, 3: out0.
 */
export function diamond(): { graph: Graph; layout: GraphLayout } {
  const nodes = [
    node(0, 'input', 'Input', 'ifm1', 'Input'),
    node(1, 'op', 'ADD', 'ofm', 'Other'),
    node(2, 'op', 'RELU', 'relu<1>', 'Activation'),
    node(3, 'op', 'CONV_2D', 'conv & co', 'Layer'),
    node(4, 'output', 'Output', 'out', 'Output'),
  ];
  const edges = [
    { from: 0, to: 1, tensor: 0, name: 'ifm1', label: 'float32[1,3]' },
    { from: 1, to: 2, tensor: 1, name: 'ofm', label: 'float32[1,3]' },
    { from: 1, to: 3, tensor: 1, name: 'ofm', label: 'float32[1,3]' },
    { from: 2, to: 4, tensor: 2, name: 'r', label: 'float32[1,3]' },
    { from: 3, to: 4, tensor: 3, name: 'c', label: '' },
  ];
  const graph: Graph = { id: 'g', name: 'g', nodes, edges, stats: { nodes: 3, edges: 5 } };
  const x = Float64Array.from([100, 100, 50, 150, 100]);
  const y = Float64Array.from([20, 80, 140, 140, 200]);
  const w = Float64Array.from([60, 80, 80, 80, 60]);
  const h = Float64Array.from([22, 34, 34, 34, 22]);
  const pts: number[] = [];
  const offs = [0];
  for (const e of edges) {
    pts.push(x[e.from], y[e.from] + h[e.from] / 2, x[e.to], y[e.to] - h[e.to] / 2);
    offs.push(offs[offs.length - 1] + 2);
  }
  const layout: GraphLayout = {
    direction: 'TB', width: 200, height: 220, x, y, w, h,
    rank: Uint32Array.from([0, 1, 2, 2, 3]),
    edgeOffsets: Uint32Array.from(offs),
    edgePoints: Float64Array.from(pts),
  };
  return { graph, layout };
}
