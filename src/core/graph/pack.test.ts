import { describe, expect, it } from 'vitest';
import { packGraph, unpackGraph } from './pack';
import { resnetGraph, transformerGraph } from './synthetic';
import type { Graph } from './model';

const slim = (g: Graph): Graph => ({ ...g, nodes: g.nodes.map((n) => ({ ...n, inputs: [], outputs: [], attributes: [] })) });

describe('graph pack', () => {
  it('round-trips the slim graph exactly', () => {
    for (const g of [resnetGraph(300), transformerGraph(200)]) {
      const back = unpackGraph(structuredClone(packGraph(g)));
      expect(back).toEqual(slim(g));
    }
  });

  it('keeps subgraph references, groups, chained layers and every node kind', () => {
    const g: Graph = {
      id: 'sg:0',
      name: 'main',
      stats: { nodes: 1, edges: 2 },
      nodes: [
        { id: 'in:0', kind: 'input', type: 'Input', name: 'x', category: 'Input', index: 0, inputs: [], outputs: [], attributes: [] },
        { id: 'op:0', kind: 'op', type: 'IF', name: 'y', category: 'Control', index: 0, inputs: [], outputs: [], attributes: [], subgraphs: ['sg:1', 'sg:2'], group: 'blk' },
        { id: 'out:0', kind: 'output', type: 'Output', name: 'y', category: 'Output', index: 1, inputs: [], outputs: [], attributes: [] },
        { id: 'c:3', kind: 'const', type: 'Const', name: 'w', category: 'Constant', index: 3, inputs: [], outputs: [], attributes: [] },
        {
          id: 'layer:4', kind: 'op', type: 'Convolution', name: 'conv1', category: 'Layer', index: 4, inputs: [], outputs: [], attributes: [],
          chain: [{ type: 'BatchNorm', name: 'bn1', category: 'Normalization' }, { type: 'ReLU', name: 'relu1', category: 'Activation' }],
        },
      ],
      edges: [
        { from: 0, to: 1, tensor: 0, name: 'x', label: 'float32[1]' },
        { from: 1, to: 2, tensor: 1, name: 'y', label: 'float32[1]' },
      ],
    };
    expect(unpackGraph(packGraph(g))).toEqual(g);
  });
});
