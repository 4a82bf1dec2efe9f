import { describe, expect, it } from 'vitest';
import { CHAIN_FONT_SIZE, CHAIN_ROW_HEIGHT, layoutInputFor, nodeLabel, nodeSize, textWidth } from './size';
import type { GraphNode } from './model';
import { transformerGraph } from './synthetic';

const base: GraphNode = { id: 'op:0', kind: 'op', type: 'Conv2D', name: 'conv', category: 'Layer', index: 0, inputs: [], outputs: [], attributes: [] };

describe('nodeSize', () => {
  it('measures bold 12px text from the width table', () => {
    // Helvetica-Bold: A = 722, i = 278 (1/1000 em)
    expect(textWidth('A', 12, true)).toBeCloseTo(8.664, 6);
    expect(textWidth('Ai', 10)).toBeCloseTo(6.67 + 2.22, 6);
    expect(textWidth('', 12, true)).toBe(0);
    expect(textWidth('\u4e2d', 12)).toBe(12);
  });
  it('is one 28 px header line without constant inputs, wider for longer types', () => {
    const s = nodeSize(base);
    expect(s.h).toBe(28);
    expect(s.w).toBe(Math.ceil(textWidth('Conv2D', 12, true) + 16));
    expect(nodeSize({ ...base, type: 'DepthwiseConv2D' }).w).toBeGreaterThan(s.w);
    expect(nodeSize({ ...base, type: 'X' }).w).toBe(40);
    expect(nodeSize({ ...base, type: 'X'.repeat(200) }).w).toBe(240);
  });
  it('adds a band per chained layer, wide enough for its type', () => {
    const chained = nodeSize({ ...base, type: 'IP', chain: [{ type: 'BatchNormalization', name: 'bn', category: 'Normalization' }, { type: 'ReLU', name: 'r', category: 'Activation' }] });
    expect(chained.h).toBe(28 + 2 * CHAIN_ROW_HEIGHT);
    expect(chained.w).toBe(Math.ceil(textWidth('BatchNormalization', CHAIN_FONT_SIZE, true) + 16));
  });
  it('adds a row per constant input', () => {
    const n: GraphNode = {
      ...base,
      inputs: [
        { name: 'input', tensor: 0, label: 'x', type: 'float32[1,3,224,224]' },
        { name: 'filter', tensor: 1, label: 'w', type: 'float32[64,3,7,7]', constant: true },
        { name: 'bias', tensor: 2, label: 'b', type: 'float32[64]', constant: true },
      ],
    };
    expect(nodeSize(n).h).toBe(28 + 2 * 16);
    expect(nodeSize(n, { constantRows: false }).h).toBe(28);
    expect(nodeSize(n, { maxRows: 1 }).h).toBe(28 + 16);
  });
  it('labels markers with their tensor name', () => {
    expect(nodeLabel({ kind: 'input', type: 'Input', name: 'image' })).toBe('image');
    expect(nodeLabel({ kind: 'op', type: 'ADD', name: 'sum' })).toBe('ADD');
  });
  it('builds the layout input of a graph', () => {
    const g = transformerGraph(100);
    const input = layoutInputFor(g);
    expect(input.widths).toHaveLength(g.nodes.length);
    expect(Array.from(input.edgeFrom)).toEqual(g.edges.map((e) => e.from));
    expect(Array.from(input.edgeTo)).toEqual(g.edges.map((e) => e.to));
  });
});
