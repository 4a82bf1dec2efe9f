/**
 * The loadable as a document: op-slot graph, node details, memory map, inspect JSON and dump
 * on the LeNet golden of notes/nvdla.md 3.6 (values from the notes, not from our own output),
 * multi-batch slot numbering on the b64 golden, engines of the regression files, and damaged
 * files that still open with marks.
 */
import { describe, expect, it } from 'vitest';
import { openLoadable } from './document';
import { read } from './read';
import { write } from './write';
import { dumpText, inspectJson } from './inspect';
import { decodeTasks } from './tasks';
import type { Loadable } from './model';
import { flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';
import { buildFindIndex, find } from '../graph/find';
import { packGraph, unpackGraph } from '../graph/pack';
import { layoutInputFor } from '../graph/size';
import { layout } from '../graph/layout';

const LENET = 'lenet-b1-nv_full-int8-fast-math';
const open = (bytes: Uint8Array, name: string) => openLoadable([{ name, bytes }]);

describe('LeNet int8 (notes 3.6) as a document', () => {
  const doc = open(goldenBytes(LENET), `${LENET}.nvdla`);
  const g = doc.services.graph!.graph('slots');

  it('summary', () => {
    expect(doc.summary.format).toBe('nvdla');
    expect(doc.summary.formatLabel).toBe('NVDLA loadable 0.7.0 (NVDA, firmware 0.12)');
    expect(doc.summary.graphs).toEqual([{ id: 'slots', name: 'op slots', stats: { nodes: 11, edges: g.edges.length } }]);
    expect(doc.diagnostics).toEqual([]);
  });

  it('op slots as nodes by engine, in slot order, grouped by task', () => {
    expect(g.nodes.map((n) => n.type)).toEqual(['CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'CONV', 'SDP', 'EMU SOFTMAX']);
    expect(g.nodes.map((n) => n.category)).toEqual(['Layer', 'Activation', 'Pool', 'Layer', 'Activation', 'Pool', 'Layer', 'Activation', 'Layer', 'Activation', 'Custom']);
    expect(g.nodes.map((n) => n.group)).toEqual([...Array(10).fill('task 0'), 'task 1']);
  });

  it('dependency edges by kind: slot 0 feeds CONV 3 and SDP 1 (programmed, SDP 1 fused), SDP 1 feeds PDP 2 on completion', () => {
    const edge = (from: number, to: number) => g.edges.find((e) => e.from === from && e.to === to)?.label;
    expect(edge(0, 3)).toBe('OP_PROGRAMMED');
    expect(edge(0, 1)).toBe('OP_PROGRAMMED, fused');
    expect(edge(1, 2)).toBe('OP_COMPLETED');
    // the EMU task waits for event 1, which task 0's SIGNAL (event 0) matches: last SDP -> softmax
    expect(g.edges.filter((e) => e.to === 10).map((e) => [e.from, e.name])).toEqual([[9, 'event']]);
  });

  it('works with find, the packed form and the layout like any model graph', () => {
    const ix = buildFindIndex(g);
    expect(find(ix, '[conv]').results.map((r) => r.node)).toEqual([0, 3, 6, 8]);
    expect(find(ix, 'x1_op.act=relu').results.map((r) => r.node)).toEqual([7]);
    expect(find(ix, 'pool_mode=MAX').results.map((r) => r.node)).toEqual([2, 5]);
    expect(find(ix, 'kernel_height_csc>1').results.map((r) => r.node)).toEqual([0, 3, 6]); // conv1, conv2, ip1 (4x4 input); not ip2
    expect(find(ix, '"memory 3 +0"').results.map((r) => r.node)).toEqual([0]); // a surface port label
    const back = unpackGraph(packGraph(g));
    expect(back.nodes.map((n) => [n.id, n.type, n.category])).toEqual(g.nodes.map((n) => [n.id, n.type, n.category]));
    expect(back.edges.map((e) => [e.from, e.to, e.label])).toEqual(g.edges.map((e) => [e.from, e.to, e.label]));
    const placed = layout(layoutInputFor(g), { direction: 'TB' });
    expect(placed.x.length).toBe(11);
    expect([...placed.x, ...placed.y].every(Number.isFinite)).toBe(true);
  });

  it('node details: descriptors field by field and resolved addresses', () => {
    const rows = Object.fromEntries(doc.services.graph!.nodeDetails('slots', 0).extra.map((r) => [r.name, r.value]));
    expect(rows['op.data_format']).toBe('12 (A8B8G8R8)');
    expect(rows['op.kernel_channel_csc']).toBe('20');
    expect(rows['op.post_extension']).toBe('1');
    expect(rows['op.bytes_per_kernel']).toBe('100');
    expect(rows['read src_data']).toBe('task address 3 -> address 3 -> memory 3 offset 0, 3584 bytes');
    expect(rows['read weight_data']).toBe('task address 1 -> address 1 -> memory 1 offset 0 (blob "tb-0"), 2048 bytes');
    const sdp1 = Object.fromEntries(doc.services.graph!.nodeDetails('slots', 1).extra.map((r) => [r.name, r.value]));
    expect(sdp1['op.out_cvt.scale']).toBe('19669');
    expect(sdp1['op.out_cvt.truncate']).toBe('29');
    expect(sdp1['op.x1_op.alu_type']).toBe('2 (SUM)');
    expect(sdp1['op.x1_op.type']).toBe('2 (ADD)');
    expect(sdp1['op.x1_op.mode']).toBe('1 (PER_KERNEL)');
    const sdp7 = Object.fromEntries(doc.services.graph!.nodeDetails('slots', 7).extra.map((r) => [r.name, r.value]));
    expect(sdp7['op.x1_op.act']).toBe('1 (RELU)');
    const emu = Object.fromEntries(doc.services.graph!.nodeDetails('slots', 10).extra.map((r) => [r.name, r.value]));
    expect(emu['op.common.input_scale_factor']).toBe('127');
    expect(emu['read src_data']).toBe('task address 2 -> address 2 -> memory 2 offset 45056, 32 bytes');
    expect(emu['write dst_data']).toBe('task address 4 -> address 4 -> memory 4 offset 0, 32 bytes');
  });

  it('memory map: weights in the GLOBAL pool, LOCAL pool reuse at 40960', () => {
    const areas = doc.memoryMap();
    const global = areas[1]!;
    expect(global.entry.size).toBe(925_696);
    expect(global.regions.filter((r) => r.blobs.length).map((r) => [r.blobs[0], r.offset])).toEqual([
      ['tb-0', 0], ['tb-2', 4096], ['tb-4', 8192], ['tb-6', 12288], ['tb-8', 16384], ['tb-9', 24576], ['tb-3', 32768], ['tb-5', 524288],
    ]);
    expect(global.regions.find((r) => r.blobs[0] === 'tb-0')!.uses).toEqual([{ op: { task: 0, slot: 0, engine: 'CONV' }, surface: 'weight_data', role: 'read' }]);
    const at40960 = areas[2]!.regions.filter((r) => r.offset === 40960);
    const writers = at40960.flatMap((r) => r.uses.filter((u) => u.role === 'write').map((u) => u.op.slot)).sort();
    expect(writers).toEqual([4, 7]); // conv2's SDP and ip1's SDP
    expect(areas[3]!.label).toBe('memory 3: ALLOC|INPUT, 3584 bytes, input "data"');
    expect(areas.map((a) => a.role)).toEqual([
      'unused', 'data', 'data', 'input', 'output', 'descriptors', 'descriptors', 'descriptors', 'descriptors', 'descriptors', 'unused',
      'descriptors', 'descriptors', 'descriptors', 'unused', 'unused', 'unused',
    ]);
  });

  it('inspect JSON in the shape the issue gives', () => {
    expect(inspectJson(doc.loadable())).toEqual({
      format: 'nvdla',
      file: `${LENET}.nvdla`,
      version: '0.7.0',
      identifier: 'NVDA',
      interface: '0.12',
      tasks: [
        { id: 0, interface: 'DLA1', ops: 10, engines: { CONV: 4, SDP: 4, PDP: 2 } },
        { id: 1, interface: 'EMU1', ops: 1, engines: { EMU: 1 }, operations: { SOFTMAX: 1 } },
      ],
      memory: 17,
      addresses: 17,
      events: 3,
      submits: 2,
      tensors: [
        { name: 'data', kind: 'input', dims: [1, 4, 28, 28], format: 'NHWC', type: 'INT8', pixel_format: 'A8B8G8R8', size: 3584 },
        { name: 'prob', kind: 'output', dims: [1, 10, 1, 1], format: 'NCxHWx', type: 'INT8', pixel_format: 'FEATURE', size: 32 },
      ],
      blobs: 16,
      relocs: 4,
      damage: 0,
    });
  });

  it('dump: one field a line, every descriptor field present', () => {
    const text = dumpText(doc.loadable());
    const lines = text.split('\n').filter((x) => x && !x.startsWith('#'));
    expect(lines.filter((x) => !/^\S+ (=|->) /.test(x))).toEqual([]);
    expect(lines).toContain('task[0].slot[1].op.out_cvt.scale = 19669');
    expect(lines).toContain('task[0].slot[0].surface.src_data.line_stride = 128');
    expect(lines).toContain('task[0].slot[0].common.consumers.SDP.event = 2 (OP_PROGRAMMED)');
    expect(lines).toContain('task[1].op[0].buffers.src_data.addressIndexOffset = 45056');
    expect(lines).toContain('memory_list[1].flags = 3 (ALLOC|SET)');
    expect(lines).toContain('memory_list[1].contents[4] = "tb-5" at offset 524288');
    expect(lines).toContain('reloc_list[2].offset = 274');
    expect(lines).toContain('task[0].slot[0].surface.src_data -> read 3584 bytes: task address 3 -> address 3 -> memory 3 offset 0 (tensor "data")');
    // 10 slots x (36-byte common + op + surface) decoded: every CONV has 5 cubes of 11 fields
    expect(lines.filter((x) => /^task\[0\]\.slot\[\d+\]\.surface\.\w+_data\.plane_stride = /.test(x))).toHaveLength(4 * 5 + 4 * 5 + 2 * 2);
  });
});

describe('multi-batch (b64): slot numbering and per-batch addresses', () => {
  it('CONV slots 0..63, SDP from 64, PDP from 128; 143 addresses, 256 relocs', () => {
    const d = decodeTasks(read(goldenBytes('lenet-b64-nv_full-fp16-fast-math'), 'b64.nvdla'));
    const t = d.tasks[0]!;
    if (t.kind !== 'DLA') throw new Error('task 0 is not DLA');
    expect(t.slots.length).toBe(640);
    expect(t.slots.slice(0, 64).every((s) => s.engine === 'CONV')).toBe(true);
    expect(t.slots[64]!.engine).toBe('SDP');
    expect(t.slots[128]!.engine).toBe('PDP');
    expect(d.loadable.address_list.length).toBe(143);
    expect(d.loadable.reloc_list.length).toBe(256);
    const j = inspectJson(d);
    expect(j.tasks[1]).toEqual({ id: 1, interface: 'EMU1', ops: 64, engines: { EMU: 64 }, operations: { SOFTMAX: 64 } });
    expect(j.tensors[0]!.dims).toEqual([64, 4, 28, 28]);
  });
});

describe('regression flatbufs: every engine', () => {
  it.each([
    ['BDMA_L0_0_fbuf', ['BDMA'], ['Data']],
    ['CDP_L0_0_fbuf', ['CDP'], ['Normalization']],
    ['RBK_L0_0_fbuf', ['RUBIK'], ['Shape']],
    ['CONV_D_L0_0_fbuf', ['CONV', 'SDP'], ['Layer', 'Activation']],
    ['NN_L0_0_fbuf', ['EMU POWER', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'SDP', 'CONV', 'SDP', 'EMU SOFTMAX'], null],
  ])('%s', (name, types, categories) => {
    const doc = open(flatbufBytes(name), name);
    const g = doc.services.graph!.graph('slots');
    expect(g.nodes.map((n) => n.type)).toEqual(types);
    if (categories) expect(g.nodes.map((n) => n.category)).toEqual(categories);
    expect(doc.summary.formatLabel).toContain(name === 'NN_L0_0_fbuf' ? 'firmware 0.11' : 'no identifier, firmware 0.10');
    expect(doc.diagnostics).toEqual([]);
  });

  it('BDMA transfer ends resolve to memory (source read, destination written)', () => {
    const doc = open(flatbufBytes('BDMA_L0_0_fbuf'), 'BDMA_L0_0_fbuf');
    const map = doc.memoryMap();
    expect(map[4]!.regions[0]!.uses).toEqual([{ op: { task: 0, slot: 0, engine: 'BDMA' }, surface: 'transfers.0.source', role: 'read' }]);
    expect(map[5]!.regions[0]!.uses).toEqual([{ op: { task: 0, slot: 0, engine: 'BDMA' }, surface: 'transfers.0.destination', role: 'write' }]);
    expect(map[4]!.regions[0]!.size).toBe(2048); // 8 lines of 256 bytes
  });
});

describe('damaged loadables open with marks', () => {
  const base = read(goldenBytes(LENET), 'a.nvdla');
  const withBlob = (name: string, f: (data: Uint8Array) => Uint8Array): Loadable => ({
    ...base,
    blobs: base.blobs.map((b) => (b.name === name ? { ...b, data: f(b.data.slice()), size: f(b.data.slice()).length } : b)),
  });

  it('an op slot index past the list', () => {
    const l = withBlob('task-0-dep_graph', (d) => {
      new DataView(d.buffer).setInt16(8 + 4 * 1, 200, true); // slot 0 consumers.CONV.index = 200
      return d;
    });
    const doc = open(write(l), 'bad.nvdla');
    expect(doc.diagnostics).toContainEqual(expect.objectContaining({ severity: 'error', path: 'task[0].slot[0].common.consumers.CONV.index', message: 'consumer slot 200 is past the op list (num_operations 10)' }));
    expect(doc.services.graph!.graph('slots').nodes).toHaveLength(11);
  });

  it('an unknown enum value', () => {
    const l = withBlob('task-0-op_list', (d) => {
      d[8] = 99; // slot 0 data_format
      return d;
    });
    const doc = open(write(l), 'bad.nvdla');
    expect(doc.diagnostics).toEqual([expect.objectContaining({ severity: 'warning', path: 'task[0].slot[0].op.data_format', message: '99 is not a known value of data_format' })]);
    const rows = Object.fromEntries(doc.services.graph!.nodeDetails('slots', 0).extra.map((r) => [r.name, r.value]));
    expect(rows['op.data_format']).toBe('99 (?)');
  });

  it('a truncated surface list: the slots it still holds are decoded, the rest say why', () => {
    const l = withBlob('task-0-surf_list', (d) => d.subarray(0, 644 * 3 + 100));
    const doc = open(write(l), 'bad.nvdla');
    expect(doc.diagnostics[0]).toMatchObject({ path: 'task[0].surface_list', message: 'the surface list holds 3 of the 10 entries the network descriptor declares (2032 bytes in blob "task-0-surf_list")' });
    const d = doc.loadable();
    const t = d.tasks[0]!;
    if (t.kind !== 'DLA') throw new Error('not DLA');
    expect(t.slots.map((s) => s.surface !== null)).toEqual([true, true, true, false, false, false, false, false, false, false]);
    expect(t.slots.every((s) => s.op !== null)).toBe(true);
  });

  it('a firmware version it does not know: read with the 0.12 layout, and said so', () => {
    const l = { ...base, blobs: base.blobs.map((b) => (b.name === 'task-0-addr0' ? { ...b, version: { major: 0, minor: 13, sub_minor: 0 } } : b)) };
    const doc = open(write(l), 'v13.nvdla');
    expect(doc.diagnostics).toEqual([
      expect.objectContaining({ severity: 'warning', path: 'task[0].network_desc', message: 'firmware 0.13.0 (blob "task-0-addr0") is not a version NPU Studio knows: read with the 0.12 layout (32-byte data cubes)' }),
    ]);
    expect(doc.loadable().firmware).toBe('0.13');
  });

  it('a file cut in the middle keeps every list it still holds', () => {
    const bytes = goldenBytes(LENET);
    const d = decodeTasks(read(bytes.subarray(0, bytes.length - 2000), 'cut.nvdla'));
    expect(d.damage.length).toBeGreaterThan(0);
    expect(d.damage.every((x) => x.message.length > 10)).toBe(true);
    expect(d.loadable.version).toEqual({ major: 0, minor: 7, sub_minor: 0 });
  });
});
