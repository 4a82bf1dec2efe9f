import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { decodeStrings, packGraph, StringTableBuilder, unpackGraph, CATEGORIES } from './pack';
import { decodePackTextSliced, packedGraph, packOf, packStrings, readPackedGraphSliced } from './packed-graph';
import { resnetGraph, transformerGraph } from './synthetic';
import type { Graph, GraphNode, NodeKind } from './model';

const noYield = () => Promise.resolve();

/** A graph with what the pack carries besides plain nodes: groups, subgraph references, chained layers. */
function richGraph(): Graph {
  const g = resnetGraph(60);
  g.nodes[3]!.group = 'block\u00b71';
  g.nodes[4]!.group = 'block\u00b71';
  g.nodes[5]!.subgraphs = ['sg:1', 'sg:2'];
  g.nodes[7]!.chain = [{ type: 'Relu', name: 'relu \u4e2d', category: 'Activation' }];
  g.nodes[8]!.name = 'caf\u00e9 \ud83d\ude00';
  return g;
}

describe('packed graph (read on demand)', () => {
  it('reads the graph unpackGraph gives, node by node and edge by edge', async () => {
    for (const g of [richGraph(), transformerGraph(3)]) {
      const p = packGraph(g);
      const { graph, strings } = await readPackedGraphSliced(p, noYield);
      const whole = unpackGraph(p);
      expect(graph.id).toBe(whole.id);
      expect(graph.name).toBe(whole.name);
      expect(graph.stats).toEqual(whole.stats);
      expect(graph.nodes.length).toBe(whole.nodes.length);
      expect(graph.edges.length).toBe(whole.edges.length);
      expect(Array.from(graph.nodes)).toEqual(whole.nodes);
      expect(Array.from(graph.edges)).toEqual(whole.edges);
      expect(Array.from(strings)).toEqual(decodeStrings(p.strings));
    }
  });

  it('works as an array: index, length, iteration, Array methods, in; a node read twice is the same object', () => {
    const g = richGraph();
    const p = packGraph(g);
    const lazy = packedGraph(p, decodeStrings(p.strings));
    const n = g.nodes.length;
    expect(lazy.nodes[n]).toBeUndefined();
    expect(lazy.nodes[-1]).toBeUndefined();
    expect(lazy.nodes[5]).toBe(lazy.nodes[5]);
    expect(lazy.nodes[5]!.subgraphs).toEqual(['sg:1', 'sg:2']);
    expect(lazy.nodes[3]!.group).toBe('block\u00b71');
    expect(lazy.nodes[7]!.chain).toEqual(g.nodes[7]!.chain);
    expect(lazy.nodes.map((x) => x.name)).toEqual(g.nodes.map((x) => x.name));
    expect(lazy.nodes.filter((x) => x.kind === 'op').length).toBe(g.nodes.filter((x) => x.kind === 'op').length);
    expect([...lazy.nodes].map((x) => x.index)).toEqual(g.nodes.map((x) => x.index));
    const seen: number[] = [];
    lazy.edges.forEach((e, i) => (e.from === g.edges[i]!.from ? undefined : seen.push(i)));
    expect(seen).toEqual([]);
    expect(lazy.nodes.reduce((k, x) => k + (x.kind === 'op' ? 1 : 0), 0)).toBe(g.nodes.filter((x) => x.kind === 'op').length);
    expect(lazy.nodes.some((x) => x.name === 'caf\u00e9 \ud83d\ude00')).toBe(true);
    expect(lazy.nodes.findIndex((x) => x.name === 'caf\u00e9 \ud83d\ude00')).toBe(8);
    expect(lazy.nodes.includes(lazy.nodes[2]!)).toBe(true);
    expect(0 in lazy.nodes && !(n in lazy.nodes)).toBe(true);
    expect(Array.isArray(lazy.nodes)).toBe(true);
    expect(Object.keys(lazy.edges)).toEqual(g.edges.map((_, i) => String(i)));
    expect(lazy.nodes.slice(2, 4)).toEqual([lazy.nodes[2], lazy.nodes[3]]);
  });

  it('tells its pack (for loops over typed arrays); any other graph has none', () => {
    const p = packGraph(resnetGraph(10));
    const lazy = packedGraph(p, decodeStrings(p.strings));
    expect(packOf(lazy)).toBe(p);
    expect(packOf(unpackGraph(p))).toBeUndefined();
    const ends = lazy.edges.map((e) => [e.from, e.to]);
    expect(ends).toEqual(Array.from(p.edgeFrom, (f, e) => [f, p.edgeTo[e]]));
  });

  it('is read-only: writing an element throws', () => {
    const p = packGraph(resnetGraph(10));
    const lazy = packedGraph(p, decodeStrings(p.strings));
    const node = lazy.nodes[0]!;
    expect(() => {
      lazy.nodes[0] = { ...node, name: 'x' };
    }).toThrow(TypeError);
    expect(() => lazy.nodes.push(node)).toThrow(TypeError);
    expect(lazy.nodes[0]).toBe(node);
  });

  it('any graph, any strings, any slice size cutting through characters: reads back the slim graph (property)', async () => {
    const kind = fc.constantFrom<NodeKind>('op', 'input', 'output', 'const');
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'Z', '/', ' ', '\u00e9', '\u4e2d', '\ud83d\ude00', '\u00d7', '\ud800'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 });
    const node = fc.record({ id: text, kind, type: text, name: text, category: fc.constantFrom(...CATEGORIES), index: fc.integer({ min: -1, max: 1e6 }), group: fc.option(text, { nil: undefined }) });
    await fc.assert(
      fc.asyncProperty(
        fc.array(node, { minLength: 1, maxLength: 30 }),
        fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer(), text, text), { maxLength: 40 }),
        fc.integer({ min: 1, max: 64 }),
        async (ns, es, piece) => {
          const nodes: GraphNode[] = ns.map((x) => {
            const out: GraphNode = { id: x.id, kind: x.kind, type: x.type, name: x.name, category: x.category, index: x.index, inputs: [], outputs: [], attributes: [] };
            if (x.group !== undefined) out.group = x.group;
            return out;
          });
          const edges = es.map(([a, b, t, name, label]) => ({ from: a % nodes.length, to: b % nodes.length, tensor: t, name, label }));
          const p = packGraph({ id: 'g', name: 'n', nodes, edges, stats: { nodes: nodes.length, edges: edges.length } });
          let yields = 0;
          const text = await decodePackTextSliced(p.strings, async () => void yields++, piece);
          expect(yields).toBe(Math.ceil(p.strings.utf8.length / piece));
          const strings = packStrings(p.strings, text);
          expect(Array.from(strings)).toEqual(decodeStrings(p.strings));
          const lazy = packedGraph(p, strings);
          const whole = unpackGraph(p);
          expect(Array.from(lazy.nodes)).toEqual(whole.nodes);
          expect(Array.from(lazy.edges)).toEqual(whole.edges);
        },
      ),
      { numRuns: 80 },
    );
  });

  it('an empty string table reads as no strings', async () => {
    const t = new StringTableBuilder().finish();
    expect(Array.from(packStrings(t, await decodePackTextSliced(t, noYield)))).toEqual([]);
  });
});
