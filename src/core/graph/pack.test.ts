import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { copyPack, decodeStrings, decodeStringsSliced, packBuffers, packedNodeRows, packGraph, shapeText, unpackGraph, unpackGraphSliced, CATEGORIES, StringTableBuilder } from './pack';
import { resnetGraph, transformerGraph } from './synthetic';
import type { Graph, GraphConstant, GraphNode, NodeKind } from './model';

/** What the pack carries of a graph besides the node boxes' rows. */
const slim = (g: Graph): Graph => ({
  ...g,
  nodes: g.nodes.map(({ constants: _c, ...n }) => ({ ...n, inputs: [], outputs: [], attributes: [] })),
});
const noYield = () => Promise.resolve();

describe('graph pack', () => {
  it('round-trips the slim graph exactly, through a structured clone', () => {
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

  it('carries constant inputs and the in-node attributes, nothing else of the attributes', () => {
    const conv: GraphNode = {
      id: 'op:0', kind: 'op', type: 'CONV_2D', name: 'conv', category: 'Layer', index: 0, inputs: [], outputs: [],
      attributes: [
        { name: 'padding', value: 'VALID', type: 'enum', inNode: true },
        { name: 'dilation_w_factor', value: '1', type: 'int' },
        { name: 'stride_w', value: '2', type: 'int', inNode: true },
      ],
      constants: [
        { name: 'filter', shape: [8, 1, 1, 8], dtype: 'float32' },
        { name: 'bias', shape: [8], dtype: 'float32' },
        { name: 'axes', shape: [], dtype: 'int32', value: '0' },
        { name: 'keep', shape: [], dtype: 'bool' },
        { name: 'dyn', shape: [-1, 3], dtype: 'int8' },
      ],
    };
    const g: Graph = { id: 'g', name: 'g', nodes: [conv], edges: [], stats: { nodes: 1, edges: 0 } };
    const p = packGraph(g);
    const s = decodeStrings(p.strings);
    const rows = packedNodeRows(p, s, 0);
    expect(rows.constants).toEqual(conv.constants);
    expect(rows.attributes).toEqual([
      { name: 'padding', value: 'VALID', inNode: true },
      { name: 'stride_w', value: '2', inNode: true },
    ]);
    expect(s[p.constShape[0]!]).toBe('8\u00d71\u00d71\u00d78');
    expect(shapeText([-1, 3])).toBe('?\u00d73');
  });

  it('a lone surrogate reads back as U+FFFD and every string after it stays whole', () => {
    const st = new StringTableBuilder();
    const ids = ['a\ud800b', '\u4e2d\ud83d\ude00', 'x\udc00', 'tail'].map((t) => st.add(t));
    expect(ids.map((i) => decodeStrings(st.finish())[i])).toEqual(['a\ufffdb', '\u4e2d\ud83d\ude00', 'x\ufffd', 'tail']);
  });

  it('appendNumbered stores what append of the text stores, table bytes and offsets alike (property)', () => {
    const prefix = fc.string({ unit: fc.constantFrom('o', 'p', ':', '\u00e9', '\u4e2d', '\ud83d\ude00'), maxLength: 4 });
    // integers of every digit count, the powers of ten around them, and values appendNumbered leaves to append
    const n = fc.oneof(fc.nat(), fc.integer({ min: 0, max: 15 }).map((k) => 10 ** k), fc.integer({ min: 1, max: 15 }).map((k) => 10 ** k - 1), fc.constantFrom(-1, -0, 1.5, 2 ** 53, Infinity, NaN));
    fc.assert(
      fc.property(fc.array(fc.tuple(prefix, n, fc.string({ maxLength: 3 })), { maxLength: 30 }), (items) => {
        const a = new StringTableBuilder();
        const b = new StringTableBuilder();
        for (const [p, x, between] of items) {
          expect(a.appendNumbered(p, x)).toBe(b.append(`${p}${x}`));
          expect(a.add(between)).toBe(b.add(between));
        }
        expect(a.finish()).toEqual(b.finish());
      }),
      { numRuns: 300 },
    );
  });

  it('sliced decoding gives the strings of the one-call decode, whatever piece size cuts through characters (property)', async () => {
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', '\u00e9', '\u4e2d', '\ud83d\ude00', '\ud800'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 9 });
    await fc.assert(
      fc.asyncProperty(fc.array(text, { maxLength: 40 }), fc.integer({ min: 1, max: 64 }), async (texts, piece) => {
        const st = new StringTableBuilder();
        for (const t of texts) st.append(t);
        const table = st.finish();
        let yields = 0;
        const sliced = await decodeStringsSliced(table, async () => void yields++, piece);
        expect(sliced).toEqual(decodeStrings(table));
        // one yield per piece: the work really is cut
        expect(yields).toBe(table.utf8.length ? Math.ceil(table.utf8.length / piece) : texts.length ? 1 : 0);
      }),
      { numRuns: 200 },
    );
  });

  it('interns strings: a repeated type or label is stored once; unique ids and names are stored as they come', () => {
    const g = resnetGraph(1000);
    const p = packGraph(g);
    const s = decodeStrings(p.strings);
    const count = (t: string) => s.filter((x) => x === t).length;
    for (const n of g.nodes) expect(count(n.type), n.type).toBe(1);
    for (const e of g.edges) expect(count(e.label), e.label).toBe(1);
    // an edge named as its source node (a tensor named as the op making it) shares that node's name string
    const named: Graph = { ...g, edges: g.edges.map((e) => ({ ...e, name: g.nodes[e.from]!.name })) };
    const q = packGraph(named);
    for (let e = 0; e < named.edges.length; e++) expect(q.edgeName[e]).toBe(q.nodeName[named.edges[e]!.from]);
  });

  it('is typed arrays only: every buffer transferable, and a copy shares none', () => {
    const p = packGraph(resnetGraph(50));
    const c = copyPack(p);
    const a = new Set(packBuffers(p));
    for (const b of packBuffers(c)) expect(a.has(b)).toBe(false);
    expect(unpackGraph(c)).toEqual(unpackGraph(p));
  });

  it('any graph, any strings: unpack and sliced unpack give back the slim graph (property)', async () => {
    const kind = fc.constantFrom<NodeKind>('op', 'input', 'output', 'const');
    const text = fc.string({ unit: fc.oneof(fc.constantFrom('a', 'Z', '/', ' ', '\u00e9', '\u4e2d', '\ud83d\ude00', '\u00d7'), fc.string({ unit: 'binary', minLength: 1, maxLength: 1 })), maxLength: 12 });
    const node = fc.record({
      id: text, kind, type: text, name: text, category: fc.constantFrom(...CATEGORIES), index: fc.integer({ min: -1, max: 1e6 }),
      group: fc.option(text, { nil: undefined }),
      constants: fc.option(
        fc.array(
          fc.record({ name: text, shape: fc.array(fc.integer({ min: -1, max: 4096 }), { maxLength: 5 }), dtype: text, value: fc.option(text.filter((v) => v.length > 0), { nil: undefined }) })
            .map(({ value, ...c }): GraphConstant => (value === undefined ? c : { ...c, value })),
          { maxLength: 3 },
        ),
        { nil: undefined },
      ),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(node, { minLength: 1, maxLength: 30 }), fc.array(fc.tuple(fc.nat(), fc.nat(), fc.integer(), text, text), { maxLength: 40 }), async (ns, es) => {
        const nodes: GraphNode[] = ns.map((n) => {
          const out: GraphNode = { id: n.id, kind: n.kind, type: n.type, name: n.name, category: n.category, index: n.index, inputs: [], outputs: [], attributes: [] };
          if (n.group !== undefined) out.group = n.group;
          if (n.constants) out.constants = n.constants;
          return out;
        });
        const edges = es.map(([a, b, t, name, label]) => ({ from: a % nodes.length, to: b % nodes.length, tensor: t, name, label }));
        const g: Graph = { id: 'g', name: 'n', nodes, edges, stats: { nodes: nodes.length, edges: edges.length } };
        const p = packGraph(g);
        expect(unpackGraph(p)).toEqual(slim(g));
        const sliced = await unpackGraphSliced(p, noYield);
        expect(sliced.graph).toEqual(slim(g));
        for (let i = 0; i < nodes.length; i++) expect(packedNodeRows(p, sliced.strings, i).constants).toEqual(nodes[i]!.constants ?? []);
      }),
      { numRuns: 80 },
    );
  });
});
