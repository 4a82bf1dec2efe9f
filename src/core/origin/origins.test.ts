import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { buildFromRecipe } from '../chef';
import { read } from '../circle/read';
import { write } from '../circle/write';
import { sampleModel } from '../circle/testing';
import { attachOrigins, detachOrigins, originsJson, originsOf, sourceName } from './origins';
import { encodeOpTable, encodeSourceTable } from './tables';
import { absorb, compositeOrigin, fuse, originUnion, replace, singleOrigin } from './rules';
import { originIndex, relatedOps, relatedTo } from './related';
import type { CircleModel } from '../circle/model';

const recipe = (name: string) => readFileSync(`test/fixtures/one/recipes/${name}/test.recipe`, 'utf8');
const instanceNorm = () => buildFromRecipe(recipe('Net_InstanceNorm_003'), 'Net_InstanceNorm_003.recipe');

function withTables(model: CircleModel, sources: Uint8Array, ops: Uint8Array): CircleModel {
  const at = model.buffers.length;
  return {
    ...model,
    buffers: [...model.buffers, { data: sources, offset: 0, size: 0 }, { data: ops, offset: 0, size: 0 }],
    metadata: [...model.metadata, { name: 'ONE_source_table', buffer: at }, { name: 'ONE_op_table', buffer: at + 1 }],
  };
}

describe('origin rules: the luci-profile design example', () => {
  // circle1 has node1..node4 with ids 1..4.
  const o = { node1: singleOrigin(1), node2: singleOrigin(2), node3: singleOrigin(3), node4: singleOrigin(4) };
  it('fuse: node1 and node2 fused into a new node5 -> {1,2}', () => {
    expect(fuse([o.node1, o.node2])).toEqual([1, 2]);
  });
  it('absorb: node4 absorbed into the existing node3 -> {3,4}', () => {
    expect(absorb(o.node3, o.node4)).toEqual([3, 4]);
    expect(o.node3).toEqual([3]); // pure: the old set is unchanged
  });
  it('replace: node5 replaced by a new node6 -> copy {1,2}', () => {
    const node5 = fuse([o.node1, o.node2]);
    const node6 = replace(node5);
    expect(node6).toEqual([1, 2]);
    expect(node6).not.toBe(node5);
  });
  it('composite_origin: null / empty skipped, sets (order and duplicates vanish), empty list throws', () => {
    expect(compositeOrigin([null, [3, 1], [1], undefined])).toEqual([1, 3]);
    expect(compositeOrigin([null])).toEqual([]);
    expect(() => compositeOrigin([])).toThrow(/empty list/);
    expect(absorb([2], null)).toEqual([2]);
    expect(originUnion([[3], [1, 2], [2]])).toEqual([1, 2, 3]);
  });
});

describe('originsOf', () => {
  it('synthesises origins for a model without tables as luci imports them', () => {
    const m = instanceNorm();
    const o = originsOf(m);
    expect(o.kind).toBe('synthesised');
    const sg = m.subgraphs[0]!;
    expect(o.ops).toEqual(sg.operators.map((_, i) => [i]));
    expect([...o.sources]).toEqual(sg.operators.map((op, i) => [i, sg.tensors[op.outputs[0]!]!.name]));
    expect(o.sources.get(0)).toBe('Mean_of_ifm');
    expect(o.diagnostics).toEqual([]);
  });

  it('reads tables from a written file', () => {
    const m = withTables(sampleModel(), encodeSourceTable(new Map([[1, 'a'], [2, 'b'], [3, 'c']])), encodeOpTable(new Map([[0, [1, 2]], [1, [3]], [2, [3]], [3, [1]]])));
    const back = read(write(m), 'm.circle');
    const o = originsOf(back, 0, 'm.circle');
    expect(o.kind).toBe('file');
    expect(o.ops).toEqual([[1, 2], [3], [3], [1]]);
    expect(o.sources).toEqual(new Map([[1, 'a'], [2, 'b'], [3, 'c']]));
    expect(o.diagnostics).toEqual([]);
  });

  it('an operator without an op table entry gets its own index (luci rule 3); unknown ids show as #id', () => {
    const m = withTables(sampleModel(), encodeSourceTable(new Map([[1, 'a']])), encodeOpTable(new Map([[0, [1, 9]]])));
    const o = originsOf(m);
    expect(o.ops).toEqual([[1, 9], [1], [2], [3]]);
    expect(sourceName(o, 9)).toBe('#9');
    expect(o.diagnostics.map((d) => d.severity)).toEqual(['warning', 'info']);
  });

  it('a broken table gives an error diagnostic and synthesised origins; the model still opens', () => {
    const m = withTables(sampleModel(), new Uint8Array([1, 0]), encodeOpTable(new Map([[0, [1]]])));
    const back = read(write(m), 'm.circle');
    const o = originsOf(back, 0, 'm.circle');
    expect(o.kind).toBe('synthesised');
    expect(o.ops).toEqual([[0], [1], [2], [3]]);
    expect(o.diagnostics[0]).toMatchObject({ severity: 'error', source: 'ONE_source_table', offset: 0, file: 'm.circle' });
  });

  it('only an op table: sources synthesised from the operators', () => {
    const m = sampleModel();
    const at = m.buffers.length;
    const o = originsOf({ ...m, buffers: [...m.buffers, { data: encodeOpTable(new Map([[0, [0, 1]]])), offset: 0, size: 0 }], metadata: [...m.metadata, { name: 'ONE_op_table', buffer: at }] });
    expect(o.kind).toBe('file');
    expect(o.sources.get(1)).toBe('relu');
    expect(o.ops[0]).toEqual([0, 1]);
  });
});

describe('attachOrigins', () => {
  it('appends two buffers and metadata entries (source table first) and round-trips through the writer', () => {
    const m = sampleModel();
    const o = { ...originsOf(m), ops: [[0, 1], [], [2], [3]] };
    const out = attachOrigins(m, o);
    expect(out.buffers.length).toBe(m.buffers.length + 2);
    expect(out.metadata.slice(-2)).toEqual([
      { name: 'ONE_source_table', buffer: m.buffers.length },
      { name: 'ONE_op_table', buffer: m.buffers.length + 1 },
    ]);
    expect(out.metadata.slice(0, -2)).toEqual(m.metadata);
    const back = originsOf(read(write(out), 'x.circle'));
    expect(back.kind).toBe('file');
    expect(back.ops).toEqual([[0, 1], [1], [2], [3]]); // op 1 had no entry: luci gives it {1}
    expect(back.sources).toEqual(o.sources);
  });

  it('replaces old entries of the same names and drops their buffers', () => {
    const m = sampleModel();
    const once = attachOrigins(m, originsOf(m));
    const twice = attachOrigins(once, { ...originsOf(once), ops: [[3], [2], [1], [0]] });
    expect(twice.buffers.length).toBe(once.buffers.length);
    expect(twice.metadata.filter((x) => x.name.startsWith('ONE_source') || x.name === 'ONE_op_table')).toHaveLength(2);
    expect(originsOf(twice).ops).toEqual([[3], [2], [1], [0]]);
    const none = detachOrigins(twice);
    expect(none.metadata).toEqual(m.metadata);
    expect(none.buffers.length).toBe(m.buffers.length);
  });

  it('originsJson gives the inspect --origins shape', () => {
    const m = sampleModel();
    expect(originsJson(m)).toEqual({ synthesised: true, sources: { '0': 'conv', '1': 'relu', '2': 'add', '3': 'norm' }, ops: { '0': [0], '1': [1], '2': [2], '3': [3] } });
    const j = originsJson(attachOrigins(m, { ...originsOf(m), ops: [[0, 1], [], [2], [3]] }));
    expect(j.synthesised).toBe(false);
    expect(j.ops).toEqual({ '0': [0, 1], '1': [1], '2': [2], '3': [3] });
  });
});

describe('origin index and related operators', () => {
  it('maps op -> ids, id -> ops and relates two models many-to-many', () => {
    const a = { ops: [[0], [1], [2], [3], [4]] };
    const b = { ops: [[0, 1], [2], [3, 4], []] };
    const ia = originIndex(b);
    expect(ia.idOps.get(3)).toEqual([2]);
    const r = relatedOps(a, b);
    expect(r.aToB).toEqual([[0], [0], [1], [2], [2]]);
    expect(r.bToA).toEqual([[0, 1], [2], [3, 4], []]);
    expect(relatedTo([1, 3], ia)).toEqual([0, 2]);
  });
});
