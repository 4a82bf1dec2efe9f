import { describe, expect, it } from 'vitest';
import { decodeStrings, packedNodeRows, unpackGraph } from '../pack';
import { layout } from '../layout';
import { FontMeasure } from './labels';
import type { SceneMeasures } from './scene';
import { warmUpPack, warmUpView, WARM_UP_OPERATORS } from './warm-up';

const measures = (): SceneMeasures => ({
  title: FontMeasure.fixed(6), subtitle: FontMeasure.fixed(5), row: FontMeasure.fixed(5), rowBold: FontMeasure.fixed(5.5), edgeLabel: FontMeasure.fixed(4.5),
});

describe('layout warm-up', () => {
  it('packs a ResNet-like graph as a circle model packs: input, conv with filter and bias, relu, add with a skip, output', () => {
    const p = warmUpPack(9);
    const strings = decodeStrings(p.strings);
    const g = unpackGraph(p, strings);
    expect(g.nodes.map((n) => n.type)).toEqual(['Input', 'CONV_2D', 'RELU', 'ADD', 'CONV_2D', 'RELU', 'ADD', 'CONV_2D', 'RELU', 'ADD', 'Output']);
    expect(g.nodes.map((n) => n.kind)).toEqual(['input', ...Array(9).fill('op'), 'output']);
    // chain edges, plus a skip from each block's input into its ADD
    expect(g.edges.map((e) => [e.from, e.to])).toEqual([[0, 1], [1, 2], [2, 3], [0, 3], [3, 4], [4, 5], [5, 6], [3, 6], [6, 7], [7, 8], [8, 9], [6, 9], [9, 10]]);
    expect(p.stats).toEqual({ nodes: 9, edges: 13 });
    const conv = packedNodeRows(p, strings, 1);
    expect(conv.constants).toEqual([{ name: 'filter', shape: [8, 1, 1, 8], dtype: 'float32' }, { name: 'bias', shape: [8], dtype: 'float32' }]);
    expect(conv.attributes.map((a) => `${a.name} = ${a.value}`)).toEqual(['padding = VALID', 'stride_w = 2']);
    expect(packedNodeRows(p, strings, 2)).toEqual({ constants: [], attributes: [] });
    // the skips span ranks, so the layout makes bend points (its dummy-node code runs too)
    const l = layout({ widths: new Float64Array(11).fill(80), heights: new Float64Array(11).fill(40), edgeFrom: p.edgeFrom, edgeTo: p.edgeTo }, { direction: 'TB' });
    expect(l.edgeOffsets[4]! - l.edgeOffsets[3]!).toBeGreaterThan(2);
  });

  it('prepares every warm-up graph, and stops at the next step once told to', async () => {
    const pauses: number[] = [];
    let steps = 0;
    expect(await warmUpView(measures(), () => true, async () => void pauses.push(steps++))).toBe(WARM_UP_OPERATORS.length);
    expect(pauses).toHaveLength(WARM_UP_OPERATORS.length);
    let allowed = 1;
    expect(await warmUpView(measures(), () => allowed-- > 0, async () => {})).toBe(1);
  });
});
