/**
 * Synthetic graphs, the same ones for the layout bench, the paint bench and the tests
 * (docs: /work/shared/notes/viewers.md section 11).
 *
 * - ResNet-like: a chain of n nodes, node i -> i+1, plus a skip i -> i+3 for every i that is a
 *   multiple of 3 (1,000 nodes -> 1,332 edges; 3,000 -> 3,998; 8,000 -> 10,665).
 * - Transformer: one input node and B blocks of 14 nodes / 18 edges (LayerNorm, Q/K/V MatMuls,
 *   QK MatMul, Softmax, AV MatMul, projection, Add residual, LayerNorm, FFN MatMul, Gelu, FFN
 *   MatMul, Add residual): 14B + 1 nodes, 18B edges (B = 36 -> 505 / 648, as the yardstick).
 *
 * `yardstickInput` gives the node boxes of the yardstick: 90-200 x 40-82 px, from a seeded
 * generator, so runs are repeatable.
 */
import type { Graph, GraphEdge, GraphNode, NodeCategory } from './model';
import type { LayoutInput } from './layout-types';
import { seededRandom } from '../random';

export type SyntheticKind = 'resnet' | 'transformer';

const SHAPE = 'float32[1,64,56,56]';

function makeNode(i: number, type: string, category: NodeCategory, name: string, inputs: number[]): GraphNode {
  return {
    id: `op:${i}`,
    kind: i === 0 ? 'input' : 'op',
    type,
    name,
    category,
    index: i,
    inputs: inputs.map((t, k) => ({ name: String(k), tensor: t, label: `t${t}`, type: SHAPE })),
    outputs: [{ name: '0', tensor: i, label: `t${i}`, type: SHAPE }],
    attributes: [],
  };
}

function finish(id: string, name: string, nodes: GraphNode[], pairs: [number, number][]): Graph {
  const edges: GraphEdge[] = pairs.map(([from, to]) => ({ from, to, tensor: from, name: `t${from}`, label: SHAPE }));
  return { id, name, nodes, edges, stats: { nodes: nodes.length, edges: edges.length } };
}

/** ResNet-like chain of exactly `n` nodes with a skip every 3 nodes. */
export function resnetGraph(n: number): Graph {
  const types: [string, NodeCategory][] = [
    ['Conv2D', 'Layer'],
    ['Relu', 'Activation'],
    ['Conv2D', 'Layer'],
    ['Add', 'Other'],
  ];
  const nodes: GraphNode[] = [];
  const pairs: [number, number][] = [];
  for (let i = 0; i < n; i++) {
    const inputs: number[] = [];
    if (i > 0) inputs.push(i - 1);
    if (i >= 3 && i % 3 === 0) inputs.push(i - 3);
    const [type, cat] = i === 0 ? ['Input', 'Input' as NodeCategory] : i % 3 === 0 ? types[3] : types[(i % 3) - 1];
    nodes.push(makeNode(i, type, cat, `block${Math.floor(i / 3)}/${type.toLowerCase()}_${i}`, inputs));
  }
  for (let i = 0; i + 1 < n; i++) {
    pairs.push([i, i + 1]);
    if (i % 3 === 0 && i + 3 < n) pairs.push([i, i + 3]);
  }
  return finish(`resnet-${n}`, `ResNet-like ${n}`, nodes, pairs);
}

/** Number of transformer blocks for about `n` nodes. */
export function transformerBlocks(n: number): number {
  return Math.max(1, Math.round((n - 1) / 14));
}

/** Transformer blocks: 14 * transformerBlocks(n) + 1 nodes. */
export function transformerGraph(n: number): Graph {
  const blocks = transformerBlocks(n);
  const nodes: GraphNode[] = [];
  const pairs: [number, number][] = [];
  nodes.push(makeNode(0, 'Input', 'Input', 'input', []));
  let x = 0;
  const spec: [string, string, NodeCategory][] = [
    ['ln1', 'LayerNorm', 'Normalization'],
    ['q', 'MatMul', 'Layer'],
    ['k', 'MatMul', 'Layer'],
    ['v', 'MatMul', 'Layer'],
    ['qk', 'MatMul', 'Layer'],
    ['softmax', 'Softmax', 'Activation'],
    ['av', 'MatMul', 'Layer'],
    ['proj', 'MatMul', 'Layer'],
    ['add1', 'Add', 'Other'],
    ['ln2', 'LayerNorm', 'Normalization'],
    ['ffn1', 'MatMul', 'Layer'],
    ['gelu', 'Gelu', 'Activation'],
    ['ffn2', 'MatMul', 'Layer'],
    ['add2', 'Add', 'Other'],
  ];
  for (let b = 0; b < blocks; b++) {
    const base = nodes.length;
    const id = (k: string): number => base + spec.findIndex((s) => s[0] === k);
    const ins: Record<string, number[]> = {
      ln1: [x],
      q: [id('ln1')],
      k: [id('ln1')],
      v: [id('ln1')],
      qk: [id('q'), id('k')],
      softmax: [id('qk')],
      av: [id('softmax'), id('v')],
      proj: [id('av')],
      add1: [id('proj'), x],
      ln2: [id('add1')],
      ffn1: [id('ln2')],
      gelu: [id('ffn1')],
      ffn2: [id('gelu')],
      add2: [id('ffn2'), id('add1')],
    };
    for (const [key, type, cat] of spec) {
      const i = nodes.length;
      const inputs = ins[key];
      nodes.push(makeNode(i, type, cat, `layer${b}/${key}`, inputs));
      for (const s of inputs) pairs.push([s, i]);
    }
    x = id('add2');
  }
  return finish(`transformer-${nodes.length}`, `Transformer ${blocks} blocks`, nodes, pairs);
}

export function syntheticGraph(kind: SyntheticKind, n: number): Graph {
  return kind === 'resnet' ? resnetGraph(n) : transformerGraph(n);
}

/** Layout input with the yardstick's node boxes: 90-200 x 40-82 px, seeded (repeatable). */
export function yardstickInput(graph: Graph, seed = 1): LayoutInput {
  const n = graph.nodes.length;
  const widths = new Float64Array(n);
  const heights = new Float64Array(n);
  const next = seededRandom(seed);
  for (let i = 0; i < n; i++) {
    widths[i] = 90 + Math.floor(next() * 111);
    heights[i] = 40 + Math.floor(next() * 43);
  }
  const m = graph.edges.length;
  const edgeFrom = new Uint32Array(m);
  const edgeTo = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    edgeFrom[e] = graph.edges[e].from;
    edgeTo[e] = graph.edges[e].to;
  }
  return { widths, heights, edgeFrom, edgeTo };
}
