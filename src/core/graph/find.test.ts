import { describe, expect, it } from 'vitest';
import { buildFindIndex, find, parseQuery } from './find';
import type { Graph, GraphNode } from './model';
import { resnetGraph } from './synthetic';

function node(i: number, type: string, name: string, ins: [string, string][], outs: [string, string][], attrs: [string, string][] = []): GraphNode {
  return {
    id: `op:${i}`,
    kind: 'op',
    type,
    name,
    category: 'Layer',
    index: i,
    inputs: ins.map(([label, type], k) => ({ name: String(k), tensor: k, label, type })),
    outputs: outs.map(([label, type], k) => ({ name: String(k), tensor: 100 + k, label, type })),
    attributes: attrs.map(([name, value]) => ({ name, value })),
  };
}

const graph: Graph = {
  id: 'sg:0',
  name: 'main',
  nodes: [
    node(0, 'CONV_2D', 'conv1', [['input', 'float32[1,3,224,224]'], ['conv1/filter', 'float32[64,3,7,7]']], [['conv1', 'float32[1,64,112,112]']], [['stride_w', '2'], ['padding', 'SAME']]),
    node(1, 'RELU', 'relu1', [['conv1', 'float32[1,64,112,112]']], [['relu1', 'float32[1,64,112,112]']]),
    node(2, 'CONV_2D', 'Conv10', [['relu1', 'float32[1,64,112,112]']], [['conv10', 'int8[1,128,56,56]']], [['stride_w', '1'], ['padding', 'VALID']]),
    node(3, 'ADD', 'add', [['conv10', 'int8[1,128,56,56]'], ['relu1', 'float32[1,64,112,112]']], [['out', 'int8[1,128,56,56]']]),
  ],
  edges: [],
  stats: { nodes: 4, edges: 0 },
};
const ix = buildFindIndex(graph);
const nodes = (q: string): number[] => find(ix, q).results.map((r) => r.node);

describe('find', () => {
  it('plain terms match name, type and tensor names, case-insensitively', () => {
    expect(nodes('CONV1')).toEqual([0, 1, 2, 3]); // names conv1 / Conv10, tensors conv1 (relu1), conv10 (add)
    expect(find(ix, 'conv1').results[0]).toMatchObject({ node: 0, field: 'name', text: 'conv1' });
    expect(find(ix, 'relu').results.map((r) => r.field)).toEqual(['name', 'tensor', 'tensor']);
    expect(find(ix, 'filter').results).toMatchObject([{ node: 0, field: 'tensor', text: 'conv1/filter' }]);
    expect(find(ix, 'add').results[0]).toMatchObject({ node: 3, field: 'name' });
  });
  it('ANDs several terms', () => {
    expect(nodes('conv 10')).toEqual([2, 3]);
    expect(nodes('conv 10 [CONV_2D]')).toEqual([2]);
    expect(nodes('conv relu')).toEqual([1, 2, 3]);
    expect(find(ix, 'conv relu').results[0].matches.map((m) => m.field)).toEqual(['tensor', 'name']);
  });
  it('quoted terms are exact', () => {
    expect(nodes('"conv1"')).toEqual([0, 1]);
    expect(nodes('"conv"')).toEqual([]);
    expect(nodes('"conv_2d"')).toEqual([0, 2]);
  });
  it('matches dtypes, shapes and single dimensions', () => {
    expect(nodes('int8')).toEqual([2, 3]);
    expect(find(ix, 'int8').results[0]).toMatchObject({ field: 'dtype', text: 'int8' });
    expect(nodes('1,3,224,224')).toEqual([0]);
    expect(nodes('[1,3,224,224]')).toEqual([0]);
    expect(nodes('[1, 3, 224, 224]')).toEqual([0]);
    expect(find(ix, '1,3,224,224').results[0]).toMatchObject({ field: 'shape', text: '[1,3,224,224]' });
    expect(nodes('float32[64,3,7,7]')).toEqual([0]);
    expect(nodes('224')).toEqual([0]);
    expect(find(ix, '224').results[0]).toMatchObject({ field: 'dimension', text: '224' });
    expect(nodes('56')).toEqual([2, 3]);
    expect(nodes('5')).toEqual([]); // 5 is no dimension and no substring of a name
  });
  it('regular expressions', () => {
    expect(nodes('/^conv\\d+$/')).toEqual([0, 1, 2, 3]);
    expect(nodes('/^CONV\\d$/')).toEqual([0, 1]);
    expect(find(ix, '/^out$/').results).toMatchObject([{ node: 3, field: 'tensor', text: 'out' }]);
    const bad = find(ix, '/([/');
    expect(bad.results).toEqual([]);
    expect(bad.error).toMatch(/Bad regular expression/);
  });
  it('[OPCODE] terms match the op type exactly', () => {
    expect(nodes('[CONV_2D]')).toEqual([0, 2]);
    expect(nodes('[conv_2d] relu')).toEqual([2]);
    expect(nodes('[CONV]')).toEqual([]);
  });
  it('attribute predicates', () => {
    expect(nodes('stride_w=2')).toEqual([0]);
    expect(nodes('stride_w>1')).toEqual([0]);
    expect(nodes('stride_w<=2')).toEqual([0, 2]);
    expect(nodes('padding=valid')).toEqual([2]);
    expect(nodes('padding!=valid')).toEqual([0]);
  });
  it('backend and origin terms use the extras the index was built with', () => {
    const withExtras = buildFindIndex(graph, { backends: ['cpu', 'acl_cl', undefined, 'ACL_CL'], origins: [[1], [2, 3], undefined, [3]] });
    const q = (s: string): number[] => find(withExtras, s).results.map((r) => r.node);
    expect(q('@acl_cl')).toEqual([1, 3]);
    expect(q('@ACL_CL relu')).toEqual([1, 3]);
    expect(q('#3')).toEqual([1, 3]);
    expect(find(withExtras, '#2').results[0]).toMatchObject({ node: 1, field: 'origin', text: '#2' });
    expect(nodes('@cpu')).toEqual([]); // no backends known
  });
  it('caps the results and counts them all, in node order', () => {
    const big = buildFindIndex(resnetGraph(5000));
    const r = find(big, 'conv2d', 100);
    expect(r.total).toBe(1667);
    expect(r.results).toHaveLength(100);
    expect(r.results.map((x) => x.node)).toEqual([...r.results.map((x) => x.node)].sort((a, b) => a - b));
    expect(find(big, '   ')).toEqual({ results: [], total: 0 });
  });
  it('parses queries into terms', () => {
    expect(parseQuery('a "b c" [ADD] [1,2] /x y/ k>=3 @npu #7').terms.map((t) => t.kind)).toEqual(['text', 'exact', 'op', 'shape', 'regex', 'attr', 'backend', 'origin']);
  });
});
