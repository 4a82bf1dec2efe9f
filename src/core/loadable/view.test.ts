/**
 * The view data of the loadable UI on real inputs: the LeNet golden of notes/nvdla.md 3.5 / 3.6
 * (expected values from the notes), the fp16 golden, the CDP regression flatbuf (its LUT), the
 * old-layout NN flatbuf (EMU POWER), and the deliberately damaged LeNet (each fault shown on the
 * row it belongs to). The histogram itself: blob-values.test.ts.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { read } from './read';
import { decodeTasks } from './tasks';
import { blobDetailOf, blobWindow, damageOwner, overviewOf, slotViewOf, type FieldView } from './view';
import { openLoadable } from './document';
import { flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';
import { damagedLoadable, DAMAGED_FAULTS } from '../../../test/support/nvdla-damaged';

const LENET = 'lenet-b1-nv_full-int8-fast-math';
const decoded = (bytes: Uint8Array, name = 'x.nvdla') => decodeTasks(read(bytes, name));
const field = (fields: FieldView[], path: string): FieldView | undefined => {
  for (const f of fields) {
    if (f.path === path) return f;
    if (f.fields && path.startsWith(`${f.path}.`)) return field(f.fields, path);
  }
  return undefined;
};

describe('overview of LeNet int8 (notes 3.5, 3.6)', () => {
  const d = decoded(goldenBytes(LENET), `${LENET}.nvdla`);
  const doc = openLoadable([{ name: `${LENET}.nvdla`, bytes: goldenBytes(LENET) }]);
  const o = overviewOf(d);

  it('tasks, op slots in order with dependencies, events and submits', () => {
    expect(o.tasks.map((t) => [t.kind, t.interfaceName, t.ops.length, t.instance])).toEqual([['DLA', 'DLA1', 10, -1], ['EMU', 'EMU1', 1, -1]]);
    const t0 = o.tasks[0]!;
    expect(t0.ops.map((r) => r.type)).toEqual(['CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'CONV', 'SDP']);
    expect(t0.ops.map((r) => r.node)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(t0.addressList).toEqual([5, 1, 2, 3, 4, 6, 7, 8, 9, 10]);
    // slot 0 CONV: consumers CONV 3 and SDP 1 (OP_PROGRAMMED); slot 1 SDP: fused parent 0, consumers SDP 4 and PDP 2 on completion
    expect(t0.ops[0]!.consumers).toEqual([{ engine: 'CONV', slot: 3, event: 'OP_PROGRAMMED' }, { engine: 'SDP', slot: 1, event: 'OP_PROGRAMMED' }]);
    expect(t0.ops[1]!.fusedParent?.slot).toBe(0);
    expect(t0.ops[1]!.consumers).toEqual([{ engine: 'SDP', slot: 4, event: 'OP_PROGRAMMED' }, { engine: 'PDP', slot: 2, event: 'OP_COMPLETED' }]);
    expect(t0.ops.map((r) => r.dependencyCount)).toEqual([1, 1, 1, 3, 2, 2, 3, 2, 3, 2]);
    // events: 0 SIGNAL v=1, 1 WAIT v=1, 2 SIGNAL v=2; task 0 post [0]; task 1 pre [1], post [2]
    expect(t0.postActions).toEqual([{ event: 0, text: 'event 0: SIGNAL target 0 value 1' }]);
    expect(o.tasks[1]!.preActions).toEqual([{ event: 1, text: 'event 1: WAIT target 0 value 1' }]);
    expect(o.tasks[1]!.postActions.map((a) => a.event)).toEqual([2]);
    expect(o.tasks.map((t) => t.submits)).toEqual([[0], [1]]);
    expect(o.events.map((e) => [e.op, e.entry.val, e.usedBy])).toEqual([['SIGNAL', 1, ['task 0 post']], ['WAIT', 1, ['task 1 pre']], ['SIGNAL', 2, ['task 1 post']]]);
    // network desc: dep 5, op 6, surf 7, lut 8, op_head CONV 0 SDP 1 PDP 2
    const nd = o.tasks[0]!.network!;
    expect(['dependency_graph_index', 'operation_desc_index', 'surface_desc_index', 'lut_data_index', 'op_head.CONV', 'op_head.SDP', 'op_head.PDP'].map((p) => field(nd.fields, p)?.value)).toEqual(['5', '6', '7', '8', '0', '1', '2']);
  });

  it('a line per slot: conv1 reads the 28x28x4 image into 24x24x20 (kernel 1x5x20 with post_extension), SDP 7 has RELU', () => {
    const t0 = o.tasks[0]!;
    expect(t0.ops[0]!.summary).toBe('28x28x4 -> 24x24x20 · kernel 1x5x20 · stride 1x1 · INT8 -> INT8 · A8B8G8R8 input');
    expect(t0.ops[2]!.summary).toBe('24x24x20 -> 12x12x20 · MAX 2x2 · stride 2x2 · INT8');
    expect(t0.ops[7]!.summary).toContain('x1 ADD PER_KERNEL RELU');
    expect(o.tasks[1]!.ops[0]!.summary).toBe('SOFTMAX · axis 1 · 1x1x10 INT8 -> 1x1x10 INT8');
  });

  it('surfaces resolve through address -> memory -> blob', () => {
    const conv1 = o.tasks[0]!.ops[0]!;
    expect(conv1.surfaces.map((s) => [s.name, s.role, s.text])).toEqual([
      ['weight_data', 'read', 'task address 1 -> address 1 -> memory 1 + 0 (blob "tb-0" + 0)'],
      ['src_data', 'read', 'task address 3 -> address 3 -> memory 3 + 0 (tensor "data")'],
      ['dst_data', 'write', 'on the fly (no memory)'],
    ]);
    // the softmax reads the local pool at 45,056 and writes the output
    expect(o.tasks[1]!.ops[0]!.surfaces.map((s) => [s.chain?.memId, s.chain?.memOffset, s.chain?.tensor])).toEqual([[2, 45056, null], [4, 0, 'prob']]);
  });

  it('memory, addresses, tensors', () => {
    expect(o.memory.length).toBe(17);
    expect(o.memory[1]!.flags).toBe('ALLOC|SET');
    expect(o.memory[1]!.contents.find((c) => c.name === 'tb-5')).toEqual({ name: 'tb-5', offset: 524288 });
    expect(o.memory.map((m) => m.role)).toEqual(doc.memoryMap().map((a) => a.role)); // the memory map's roles
    expect(o.memory[3]!.tensor).toBe('data');
    expect(o.addresses[3]!.memory).toBe('memory 3: ALLOC|INPUT, 3584 bytes, input "data"');
    expect(o.addresses[3]!.users).toEqual(['task 0 [3]', 'task 1 [3]', 'task 0 slot 0 CONV src_data (read)']);
    expect(o.tensors.map((t) => [t.entry.name, t.kind, t.format, t.type, t.category, t.pixelFormat])).toEqual([
      ['data', 'input', 'NHWC', 'INT8', 'IMAGE', 'A8B8G8R8'],
      ['prob', 'output', 'NCxHWx', 'INT8', 'FEATURE', 'FEATURE'],
    ]);
  });

  it('relocs name the descriptor field they patch: conv1 src_data strides and the softmax dst_data strides (notes 3.5)', () => {
    expect(o.relocs.map((r) => [r.type, r.subInterface, r.target])).toEqual([
      ['LINE_STRIDE', 'SURFS', 'memory 8 + 116 (blob "task-0-surf_list" + 116): task 0 slot 0 CONV surface.src_data.line_stride'],
      ['SURFACE_STRIDE', 'SURFS', 'memory 8 + 120 (blob "task-0-surf_list" + 120): task 0 slot 0 CONV surface.src_data.surf_stride'],
      ['LINE_STRIDE', 'SURFS', 'memory 13 + 274 (blob "task-1-op_buf_list" + 274): task 1 op 0 EMU buffers.dst_data.line_stride'],
      ['SURFACE_STRIDE', 'SURFS', 'memory 13 + 278 (blob "task-1-op_buf_list" + 278): task 1 op 0 EMU buffers.dst_data.surf_stride'],
    ]);
    expect(o.relocs[0]!.address).toBe('address 3 -> memory 3: ALLOC|INPUT, 3584 bytes, input "data" + 0');
  });

  it('blobs: kinds, placement, readers', () => {
    const blob = (name: string) => o.blobs.find((b) => b.name === name)!;
    expect(o.blobs.length).toBe(16);
    expect(blob('tb-0')).toMatchObject({ kind: 'weights', placedAt: [{ memId: 1, offset: 0 }], usedBy: ['task 0 slot 0 CONV weight_data (read)'], dataLength: 2048 });
    expect(blob('tb-5').placedAt).toEqual([{ memId: 1, offset: 524288 }]);
    expect(blob('task-0-surf_list')).toMatchObject({ kind: 'descriptors', interfaceName: 'DLA1', subInterface: 'SURFS', version: '0.12.3', dataLength: 6440 });
    expect(o.damage).toEqual([]);
    expect([...o.tasks.flatMap((t) => t.ops.flatMap((r) => r.damage)), ...o.memory.flatMap((m) => m.damage)]).toEqual([]);
  });
});

describe('a slot, field by field', () => {
  const d = decoded(goldenBytes(LENET));

  it('conv1: common, op and surface descriptors with names, enum names, offsets, resolved cubes', () => {
    const s = slotViewOf(d, 0)!;
    expect(s.descriptors.map((x) => [x.role, x.struct, x.blob, x.offset, x.size])).toEqual([
      ['common', 'dla_common_op_desc', 'task-0-dep_graph', 0, 36],
      ['op', 'dla_conv_op_desc', 'task-0-op_list', 0, 92],
      ['surface', 'dla_conv_surface_desc', 'task-0-surf_list', 0, 172],
    ]);
    const [common, op, surface] = s.descriptors;
    expect(field(common!.fields, 'consumers.SDP.event')).toMatchObject({ value: '2', enumName: 'OP_PROGRAMMED', offset: 8 + 2 * 4 + 2 });
    expect(field(op!.fields, 'data_format')).toMatchObject({ value: '12', enumName: 'A8B8G8R8', offset: 8 });
    expect(field(op!.fields, 'bytes_per_kernel')?.value).toBe('100');
    expect(field(op!.fields, 'reserved_b')?.reserved).toBe(true);
    expect(field(surface!.fields, 'src_data.line_stride')).toMatchObject({ value: '128', offset: 96 + 20 });
    expect(field(surface!.fields, 'src_data')?.resolves).toBe('read 3584 bytes: task address 3 -> address 3 -> memory 3 + 0 (tensor "data")');
    expect(field(surface!.fields, 'weight_data')?.resolves).toBe('read 2048 bytes: task address 1 -> address 1 -> memory 1 + 0 (blob "tb-0" + 0)');
    expect(s.layoutNote).toBe('firmware 0.12.3 (blob "task-0-addr0"): 32-byte data cubes');
    expect(s.damage).toEqual([]);
  });

  it('the EMU softmax: op and buffer descriptors; past the ops is null', () => {
    const s = slotViewOf(d, 10)!;
    expect(s.type).toBe('EMU SOFTMAX');
    expect(s.descriptors.map((x) => x.struct)).toEqual(['emu_softmax_op_desc', 'emu_buffer_descs']);
    expect(field(s.descriptors[0]!.fields, 'common.input_scale_factor')?.value).toBe('127');
    expect(field(s.descriptors[1]!.fields, 'src_data.addressIndexOffset')?.value).toBe('45056');
    expect(field(s.descriptors[1]!.fields, 'src_data')?.resolves).toBe('read 32 bytes: task address 2 -> address 2 -> memory 2 + 45056');
    expect(slotViewOf(d, 11)).toBeNull();
  });

  it('the regression NN flatbuf (firmware 0.11, EMU before INT8 scales): POWER op, 28-byte cubes', () => {
    const nn = decoded(flatbufBytes('NN_L0_0_fbuf'));
    const power = slotViewOf(nn, 0)!;
    expect(power.type).toBe('EMU POWER');
    expect(power.summary).toBe('POWER · power 1 · scale 1 · shift 0 · 28x28x1 FF16 -> 28x28x1 FF16');
    const conv = slotViewOf(nn, 1)!;
    expect(conv.layoutNote).toContain('28-byte data cubes');
    expect(field(conv.descriptors[2]!.fields, 'src_data.offset')).toBeUndefined();
  });
});

describe('blobs: values as the descriptors say', () => {

  it('the weight histogram of conv1 counts every weight (2,048 int8 values)', () => {
    const d = decoded(goldenBytes(LENET));
    const i = d.loadable.blobs.findIndex((b) => b.name === 'tb-0');
    const detail = blobDetailOf(d, i)!;
    if (detail.plot.kind !== 'histogram') throw new Error(detail.plot.kind);
    expect(detail.plot.count).toBe(2048);
    expect(detail.plot.bins.reduce((n, b) => n + b.count, 0)).toBe(2048);
    const bytes = d.loadable.blobs[i]!.data;
    let zeros = 0;
    for (const b of bytes) if (b === 0) zeros++;
    expect(detail.plot.zeros).toBe(zeros);
    expect(detail.ranges).toEqual([]);
  });

  it('descriptor blobs list what lies where; no histogram', () => {
    const d = decoded(goldenBytes(LENET));
    const i = d.loadable.blobs.findIndex((b) => b.name === 'task-0-surf_list');
    const detail = blobDetailOf(d, i)!;
    expect(detail.ranges.slice(0, 2)).toEqual([
      { offset: 0, size: 172, label: 'task 0 slot 0 CONV surface', node: 0 },
      { offset: 644, size: 160, label: 'task 0 slot 1 SDP surface', node: 1 },
    ]);
    expect(detail.plot).toEqual({ kind: 'none', reason: 'holds task 0 surface list: its fields are in the op slots' });
    const lut = blobDetailOf(d, d.loadable.blobs.findIndex((b) => b.name === 'task-0-lut_list'))!;
    expect(lut.plot).toEqual({ kind: 'none', reason: 'holds task 0 LUT list (no entry decoded from it): its fields are in the op slots' });
  });

  it('the CDP regression LUT as two curves (65 and 257 entries, method LINEAR)', () => {
    const d = decoded(flatbufBytes('CDP_L0_0_fbuf'));
    const i = d.loadable.blobs.findIndex((b) => b.name === 'm4_LUTList_i4');
    const detail = blobDetailOf(d, i)!;
    if (detail.plot.kind !== 'lut') throw new Error(detail.plot.kind);
    const c = detail.plot.curves[0]!;
    expect([c.label, c.linearExp.length, c.linearOnly.length, c.method]).toEqual(['task 0 lut[0]', 65, 257, 'LINEAR']);
    expect(c.params.find((p) => p.name === 'hybrid_priority')?.value).toBe('1 (LINEAR_ONLY)');
    expect(slotViewOf(d, 0)!.lut?.curve?.linearOnly.length).toBe(257);
  });


  it('a window of bytes is a copy of that window only, clamped to the blob', () => {
    const d = decoded(goldenBytes(LENET));
    const i = d.loadable.blobs.findIndex((b) => b.name === 'tb-5');
    const b = d.loadable.blobs[i]!.data;
    const w = blobWindow(d, i, 4096, 64);
    expect(Array.from(w)).toEqual(Array.from(b.subarray(4096, 4160)));
    expect(w.buffer.byteLength).toBe(64);
    expect(blobWindow(d, i, b.length - 10, 64).length).toBe(10);
    expect(blobWindow(d, i, -5, 3).length).toBe(3);
    expect(blobWindow(d, 99, 0, 10).length).toBe(0);
  });
});

describe('damage shows where it belongs', () => {
  const d = decoded(damagedLoadable(goldenBytes(LENET)), 'damaged.nvdla');
  const o = overviewOf(d);

  it(`each of the ${DAMAGED_FAULTS} faults marks its row`, () => {
    expect(o.damage.length).toBe(DAMAGED_FAULTS);
    expect(o.tasks[0]!.ops.map((r) => r.damage.length)).toEqual([1, 0, 1, 1, 0, 0, 0, 0, 0, 0]);
    expect(o.tasks[0]!.ops[2]!.damage[0]).toBe('task[0].slot[2].common.consumers.CONV.index: consumer slot 42 is past the op list (num_operations 10)');
    expect(o.memory[1]!.damage).toEqual(['memory_list[1].contents[7]: names blob "tb-99", which the blob list does not have']);
    expect(o.addresses[16]!.damage).toEqual(['address_list[16].mem_id: memory 40 is past the memory list (17 entries)']);
    expect(o.blobs.find((b) => b.name === 'tb-9')?.kind).toBe('unplaced');
    // the unresolvable surface says why, in the row and in the slot view
    expect(o.tasks[0]!.ops[3]!.surfaces.find((s) => s.name === 'src_data')?.text).toBe("address index 31 is past the task's address list (10 entries)");
  });

  it('fields carry their damage; the rest of the slot reads', () => {
    const s = slotViewOf(d, 0)!;
    expect(field(s.descriptors[1]!.fields, 'in_precision')).toMatchObject({ value: '7', enumName: null, damage: ['7 is not a known value of in_precision'] });
    expect(field(s.descriptors[1]!.fields, 'bytes_per_kernel')?.value).toBe('100');
    expect(s.damage.map((x) => x.path)).toEqual(['task[0].slot[0].op.in_precision']);
  });

  it('damage paths find their rows', () => {
    expect(['task[0].slot[3].surface.src_data.address', 'task[1].op[0].buffers', 'task[0].network_desc', 'task_list[2].address_list[1]', 'blobs[4].size', 'version', ''].map(damageOwner)).toEqual([
      'op:0:3', 'op:1:0', 'task:0', 'task:2', 'blobs:4', null, null,
    ]);
  });
});

describe('the service', () => {
  it('compares two open documents (int8 without and with a calibration table: the requantisation differs)', () => {
    const a = openLoadable([{ name: 'a.nvdla', bytes: goldenBytes(LENET) }]);
    const b = openLoadable([{ name: 'b.nvdla', bytes: goldenBytes('lenet-b1-nv_full-int8-fast-math-calib') }]);
    const diff = a.services.loadable!.compare(b.services.loadable!);
    expect(diff.equivalent).toBe(false);
    const fields = diff.sections.find((s) => s.section === 'blobs')!.differences.filter((x) => x.descriptor);
    // the SDPs' out_cvt requantisation and the softmax scales: named by slot, descriptor and field
    expect([...new Set(fields.map((x) => `${x.descriptor!.task}:${x.descriptor!.slot} ${x.descriptor!.engine} ${x.descriptor!.role}`))]).toEqual([
      '0:1 SDP op', '0:4 SDP op', '0:7 SDP op', '0:9 SDP op', '1:0 EMU op',
    ]);
    expect(fields.find((x) => x.path === 'task[0].slot[1].op.out_cvt.scale')).toMatchObject({ a: '19669', b: '28150' });
    expect(a.services.loadable!.compare(a.services.loadable!).equivalent).toBe(true);
    const foreign = { ...a.services.loadable! };
    expect(() => a.services.loadable!.compare(foreign)).toThrow(/not an NVDLA loadable opened by NPU Studio/);
  });

  it('the overview is built once and kept', () => {
    const a = openLoadable([{ name: 'a.nvdla', bytes: goldenBytes(LENET) }]);
    expect(a.services.loadable!.overview()).toBe(a.services.loadable!.overview());
    expect(a.services.loadable!.memoryMap()).toBe(a.memoryMap());
  });

  it('property: the views of mutated files never throw', { timeout: 120_000 }, () => {
    const sources = [goldenBytes(LENET), flatbufBytes('CDP_L0_0_fbuf'), flatbufBytes('NN_L0_0_fbuf')];
    fc.assert(
      fc.property(fc.nat({ max: sources.length - 1 }), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (which, writes) => {
        const b = sources[which]!.slice();
        for (const [at, v] of writes) b[at % b.length] = v;
        let l;
        try {
          l = read(b, 'fuzz.nvdla');
        } catch {
          return; // the reader's own typed error (robustness.test.ts checks its type)
        }
        const d = decodeTasks(l);
        const o = overviewOf(d);
        const nodes = o.tasks.reduce((n, t) => n + t.ops.length, 0);
        for (let i = 0; i < nodes; i++) expect(slotViewOf(d, i)).not.toBeNull();
        for (let i = 0; i < d.loadable.blobs.length; i++) blobDetailOf(d, i);
      }),
      { numRuns: 300 },
    );
  });
});
