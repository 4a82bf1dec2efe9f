/**
 * The semantic diff (notes/nvdla.md section 13) and the writer: each golden and regression file
 * is equivalent to itself re-serialised; single-field mutations (one per list, one per
 * descriptor kind, one weight byte) are each found, named by section, path, descriptor and field,
 * with both values; what section 13 leaves out (pool content order, event type, identifier,
 * FlatBuffers layout) does not count.
 */
import { describe, expect, it } from 'vitest';
import { read } from './read';
import { write } from './write';
import { bytesEqual, diffLoadables, diffText, type Difference, type LoadableDiff } from './diff';
import { decodeTasks, allDescriptors } from './tasks';
import { member } from './structs';
import type { Loadable } from './model';
import { FLATBUFS, GOLDENS, flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';

const LENET = 'lenet-b1-nv_full-int8-fast-math';

function clone(l: Loadable): Loadable {
  return {
    ...l,
    version: { ...l.version },
    task_list: l.task_list.map((t) => ({ ...t, address_list: [...t.address_list], pre_actions: [...t.pre_actions], post_actions: [...t.post_actions] })),
    memory_list: l.memory_list.map((m) => ({ ...m, contents: [...m.contents], offsets: [...m.offsets] })),
    address_list: l.address_list.map((a) => ({ ...a })),
    event_list: l.event_list.map((e) => ({ ...e })),
    blobs: l.blobs.map((b) => ({ ...b, version: { ...b.version }, data: b.data.slice() })),
    tensor_desc_list: l.tensor_desc_list.map((t) => ({ ...t })),
    reloc_list: l.reloc_list.map((r) => ({ ...r })),
    submit_list: l.submit_list.map((s) => ({ ...s, task_id: [...s.task_id] })),
    damage: [],
  };
}

/** Writes the mutated copy and reads it back, as a second file would be. */
function roundTrip(l: Loadable, file = 'b.nvdla'): Loadable {
  return read(write(l), file);
}

function differences(d: LoadableDiff): Difference[] {
  return d.sections.flatMap((s) => s.differences);
}

describe('writer', () => {
  it('writes every list field back (read -> write -> read gives the same lists and blob bytes)', () => {
    const a = read(goldenBytes(LENET), 'a.nvdla');
    const b = roundTrip(a);
    const plain = (l: Loadable) => ({ ...l, file: '', size: 0, blobs: l.blobs.map((x) => ({ ...x, data: x.data.length })) });
    expect(plain(b)).toEqual(plain(a));
    expect(a.blobs.filter((x, i) => !bytesEqual(x.data, b.blobs[i]!.data)).map((x) => x.name)).toEqual([]);
    expect(b.identifier).toBe('NVDA');
  });

  it('keeps a missing identifier missing (KMD regression files)', () => {
    const a = read(flatbufBytes('CONV_D_L0_0_fbuf'), 'x');
    expect(a.identifier).toBeNull();
    expect(roundTrip(a).identifier).toBeNull();
  });
});

describe('each loadable is equivalent to itself re-serialised', () => {
  for (const name of GOLDENS) {
    it(name, () => {
      const a = read(goldenBytes(name), `${name}.nvdla`);
      const bytes = write(a);
      const d = diffLoadables(a, read(bytes, 'rewritten.nvdla'));
      expect(differences(d)).toEqual([]);
      expect(d.equivalent).toBe(true);
    });
  }
  for (const name of FLATBUFS) {
    it(name, () => {
      const a = read(flatbufBytes(name), name);
      const d = diffLoadables(a, roundTrip(a));
      expect(differences(d)).toEqual([]);
      expect(d.equivalent).toBe(true);
    });
  }
});

describe('what section 13 leaves out does not count', () => {
  const a = read(goldenBytes(LENET), 'a.nvdla');

  it('pool contents in another order', () => {
    const m = clone(a);
    const pool = m.memory_list[1]!;
    pool.contents.reverse();
    pool.offsets.reverse();
    expect(diffLoadables(a, roundTrip(m)).equivalent).toBe(true);
  });

  it('event type, identifier and blob order', () => {
    const m = clone(a);
    m.event_list[0]!.type = 2;
    m.identifier = null;
    m.blobs.reverse();
    const d = diffLoadables(a, roundTrip(m));
    expect(differences(d)).toEqual([]);
  });
});

interface Mutation {
  name: string;
  file?: () => Uint8Array;
  mutate(l: Loadable): void;
  /** the section and path the report must name, and both values */
  section: string;
  path: string;
  a: string;
  b: string;
  /** for descriptor mutations: the slot and field */
  descriptor?: { task: number; slot: number | null; engine: string | null; struct: string; field: string };
}

const blob = (l: Loadable, name: string) => l.blobs.find((b) => b.name === name)!;

/** A descriptor field's offset in its blob, from the decode of the unmutated file. */
function fieldAt(l: Loadable, path: string, field: string): { blob: string; offset: number; size: number } {
  const d = allDescriptors(decodeTasks(l)).find((x) => x.path === path);
  if (!d) throw new Error(`no descriptor ${path}`);
  const f = member(d.struct, field);
  if (!f) throw new Error(`no field ${field} in ${path}`);
  return { blob: d.struct.blob!, offset: f.offset, size: f.size };
}

/** Sets a little-endian field of a descriptor to `value`. */
function setField(l: Loadable, path: string, field: string, value: number, float = false): void {
  const at = fieldAt(l, path, field);
  const b = blob(l, at.blob);
  const v = new DataView(b.data.buffer, b.data.byteOffset, b.data.byteLength);
  if (float) v.setFloat32(at.offset, value, true);
  else if (at.size === 1) v.setUint8(at.offset, value);
  else if (at.size === 2) v.setUint16(at.offset, value, true);
  else v.setUint32(at.offset, value, true);
}

const flatbuf = (name: string) => () => flatbufBytes(name);

const MUTATIONS: Mutation[] = [
  // one per list
  { name: 'version', mutate: (l) => (l.version.minor = 8), section: 'version', path: 'version.minor', a: '7', b: '8' },
  { name: 'task pre-action', mutate: (l) => (l.task_list[1]!.pre_actions = [2]), section: 'task_list', path: 'task_list[1].pre_actions', a: '[1]', b: '[2]' },
  { name: 'submit task ids', mutate: (l) => (l.submit_list[1]!.task_id = [0]), section: 'submit_list', path: 'submit_list[1].task_id', a: '[1]', b: '[0]' },
  { name: 'event value', mutate: (l) => (l.event_list[2]!.val = 3), section: 'event_list', path: 'event_list[2].val', a: '2', b: '3' },
  {
    name: 'pool content offset',
    mutate: (l) => (l.memory_list[1]!.offsets[l.memory_list[1]!.contents.indexOf('tb-3')] = 36864),
    section: 'memory_list', path: 'memory_list[1].contents["tb-3"]', a: 'at 32768', b: 'at 36864',
  },
  { name: 'memory size', mutate: (l) => (l.memory_list[2]!.size = 53248), section: 'memory_list', path: 'memory_list[2].size', a: '49152', b: '53248' },
  { name: 'address size', mutate: (l) => (l.address_list[2]!.size = 1), section: 'address_list', path: 'address_list[2].size', a: '49152', b: '1' },
  { name: 'tensor desc stride', mutate: (l) => (l.tensor_desc_list[0]!.stride_1 = 256), section: 'tensor_desc_list', path: 'tensor_desc_list[0].stride_1', a: '128', b: '256' },
  { name: 'reloc offset', mutate: (l) => (l.reloc_list[0]!.offset = 124), section: 'reloc_list', path: 'reloc_list[0].offset', a: '116', b: '124' },
  { name: 'blob version', mutate: (l) => (blob(l, 'task-0-op_list').version.sub_minor = 5), section: 'blobs', path: 'blobs["task-0-op_list"].version.sub_minor', a: '3', b: '5' },
  // one weight byte
  {
    name: 'weight byte',
    mutate: (l) => (blob(l, 'tb-5').data[1000] = blob(l, 'tb-5').data[1000]! ^ 0x40),
    section: 'blobs', path: 'blobs["tb-5"].data[1000..1001]', a: '', b: '',
  },
  // one per descriptor kind
  {
    name: 'dla_network_desc', mutate: (l) => setField(l, 'task[0].network_desc', 'dynamic_roi', 1),
    section: 'blobs', path: 'task[0].network_desc.dynamic_roi', a: '0', b: '1',
    descriptor: { task: 0, slot: null, engine: null, struct: 'dla_network_desc', field: 'dynamic_roi' },
  },
  {
    name: 'dla_common_op_desc', mutate: (l) => setField(l, 'task[0].slot[1].common', 'consumers.PDP.event', 2),
    section: 'blobs', path: 'task[0].slot[1].common.consumers.PDP.event', a: '1 (OP_COMPLETED)', b: '2 (OP_PROGRAMMED)',
    descriptor: { task: 0, slot: 1, engine: 'SDP', struct: 'dla_common_op_desc', field: 'consumers.PDP.event' },
  },
  {
    name: 'dla_conv_op_desc', mutate: (l) => setField(l, 'task[0].slot[0].op', 'conv_stride_x', 2),
    section: 'blobs', path: 'task[0].slot[0].op.conv_stride_x', a: '1', b: '2',
    descriptor: { task: 0, slot: 0, engine: 'CONV', struct: 'dla_conv_op_desc', field: 'conv_stride_x' },
  },
  {
    name: 'dla_conv_surface_desc', mutate: (l) => setField(l, 'task[0].slot[0].surface', 'src_data.line_stride', 256),
    section: 'blobs', path: 'task[0].slot[0].surface.src_data.line_stride', a: '128', b: '256',
    descriptor: { task: 0, slot: 0, engine: 'CONV', struct: 'dla_conv_surface_desc', field: 'src_data.line_stride' },
  },
  {
    name: 'dla_sdp_op_desc', mutate: (l) => setField(l, 'task[0].slot[7].op', 'x1_op.act', 0),
    section: 'blobs', path: 'task[0].slot[7].op.x1_op.act', a: '1 (RELU)', b: '0 (NONE)',
    descriptor: { task: 0, slot: 7, engine: 'SDP', struct: 'dla_sdp_op_desc', field: 'x1_op.act' },
  },
  {
    name: 'dla_sdp_surface_desc', mutate: (l) => setField(l, 'task[0].slot[1].surface', 'dst_data.offset', 4096),
    section: 'blobs', path: 'task[0].slot[1].surface.dst_data.offset', a: '0', b: '4096',
    descriptor: { task: 0, slot: 1, engine: 'SDP', struct: 'dla_sdp_surface_desc', field: 'dst_data.offset' },
  },
  {
    name: 'dla_pdp_op_desc', mutate: (l) => setField(l, 'task[0].slot[2].op', 'pool_mode', 0),
    section: 'blobs', path: 'task[0].slot[2].op.pool_mode', a: '1 (MAX)', b: '0 (AVG)',
    descriptor: { task: 0, slot: 2, engine: 'PDP', struct: 'dla_pdp_op_desc', field: 'pool_mode' },
  },
  {
    name: 'dla_pdp_surface_desc', mutate: (l) => setField(l, 'task[0].slot[2].surface', 'dst_data.channel', 21),
    section: 'blobs', path: 'task[0].slot[2].surface.dst_data.channel', a: '20', b: '21',
    descriptor: { task: 0, slot: 2, engine: 'PDP', struct: 'dla_pdp_surface_desc', field: 'dst_data.channel' },
  },
  {
    name: 'emu_softmax_op_desc', mutate: (l) => setField(l, 'task[1].op[0].op', 'common.output_scale_factor', 64, true),
    section: 'blobs', path: 'task[1].op[0].op.common.output_scale_factor', a: '127', b: '64',
    descriptor: { task: 1, slot: 0, engine: 'EMU', struct: 'emu_softmax_op_desc', field: 'common.output_scale_factor' },
  },
  {
    name: 'emu_buffer_descs', mutate: (l) => setField(l, 'task[1].op[0].buffers', 'src_data.addressIndexOffset', 40960),
    section: 'blobs', path: 'task[1].op[0].buffers.src_data.addressIndexOffset', a: '45056', b: '40960',
    descriptor: { task: 1, slot: 0, engine: 'EMU', struct: 'emu_buffer_descs', field: 'src_data.addressIndexOffset' },
  },
  {
    name: 'dla_bdma_op_desc (0.10)', file: flatbuf('BDMA_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].op', 'reserved0', 7),
    section: 'blobs', path: 'task[0].slot[0].op.reserved0', a: '0', b: '7',
    descriptor: { task: 0, slot: 0, engine: 'BDMA', struct: 'dla_bdma_op_desc', field: 'reserved0' },
  },
  {
    name: 'dla_bdma_surface_desc (0.10)', file: flatbuf('BDMA_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].surface', 'transfers.0.line_repeat', 4),
    section: 'blobs', path: 'task[0].slot[0].surface.transfers.0.line_repeat', a: '8', b: '4',
    descriptor: { task: 0, slot: 0, engine: 'BDMA', struct: 'dla_bdma_surface_desc', field: 'transfers.0.line_repeat' },
  },
  {
    name: 'dla_cdp_op_desc (0.10)', file: flatbuf('CDP_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].op', 'local_size', 5),
    section: 'blobs', path: 'task[0].slot[0].op.local_size', a: '3', b: '5',
    descriptor: { task: 0, slot: 0, engine: 'CDP', struct: 'dla_cdp_op_desc', field: 'local_size' },
  },
  {
    name: 'dla_cdp_surface_desc (0.10, 28-byte cubes)', file: flatbuf('CDP_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].surface', 'dst_data.line_stride', 512),
    section: 'blobs', path: 'task[0].slot[0].surface.dst_data.line_stride', a: '256', b: '512',
    descriptor: { task: 0, slot: 0, engine: 'CDP', struct: 'dla_cdp_surface_desc', field: 'dst_data.line_stride' },
  },
  {
    name: 'dla_lut_param (0.10)', file: flatbuf('CDP_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].lut[0]', 'method', 0),
    section: 'blobs', path: 'task[0].lut[0].method', a: '1 (LINEAR)', b: '0 (EXPONENTIAL)',
    descriptor: { task: 0, slot: null, engine: null, struct: 'dla_lut_param', field: 'method' },
  },
  {
    name: 'dla_rubik_op_desc (0.10)', file: flatbuf('RBK_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].op', 'mode', 2),
    section: 'blobs', path: 'task[0].slot[0].op.mode', a: '', b: '2 (MERGE)',
    descriptor: { task: 0, slot: 0, engine: 'RUBIK', struct: 'dla_rubik_op_desc', field: 'mode' },
  },
  {
    name: 'dla_rubik_surface_desc (0.10)', file: flatbuf('RBK_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].slot[0].surface', 'src_data.surf_stride', 12345),
    section: 'blobs', path: 'task[0].slot[0].surface.src_data.surf_stride', a: '', b: '12345',
    descriptor: { task: 0, slot: 0, engine: 'RUBIK', struct: 'dla_rubik_surface_desc', field: 'src_data.surf_stride' },
  },
  {
    name: 'emu_power_op_desc (pre-0.0.1)', file: flatbuf('NN_L0_0_fbuf'), mutate: (l) => setField(l, 'task[0].op[0].op', 'shift', 0.5, true),
    section: 'blobs', path: 'task[0].op[0].op.shift', a: '0', b: '0.5',
    descriptor: { task: 0, slot: 0, engine: 'EMU', struct: 'emu_power_op_desc', field: 'shift' },
  },
];

describe('single-field mutations are each found and named', () => {
  for (const m of MUTATIONS) {
    it(m.name, () => {
      const bytes = m.file ? m.file() : goldenBytes(LENET);
      const a = read(bytes, 'a.nvdla');
      const changed = clone(a);
      m.mutate(changed);
      const b = roundTrip(changed);
      const d = diffLoadables(a, b);
      expect(d.equivalent).toBe(false);
      const bad = d.sections.filter((s) => !s.equal).map((s) => s.section);
      expect(bad).toEqual([m.section]);
      const found = differences(d);
      expect(found).toHaveLength(1);
      const x = found[0]!;
      expect(x.path).toBe(m.path);
      if (m.a) expect(x.a).toBe(m.a);
      if (m.b) expect(x.b).toBe(m.b);
      expect(x.a).not.toBe(x.b);
      if (m.descriptor) expect(x.descriptor).toMatchObject(m.descriptor);
      else expect(x.descriptor).toBeUndefined();
      // the text report says the same
      expect(diffText(d)).toContain(m.path);
    });
  }

  it('a changed weight byte is shown with both bytes', () => {
    const a = read(goldenBytes(LENET), 'a.nvdla');
    const changed = clone(a);
    const w = blob(changed, 'tb-5');
    const before = w.data[1000]!;
    w.data[1000] = before ^ 0x40;
    const x = differences(diffLoadables(a, roundTrip(changed)))[0]!;
    expect(x.a).toBe(before.toString(16).padStart(2, '0'));
    expect(x.b).toBe((before ^ 0x40).toString(16).padStart(2, '0'));
  });

  it('bytes of a task blob outside every descriptor are reported as a byte range', () => {
    // the reserved LUT slot of LeNet (num_luts 0) is not a decoded descriptor
    const a = read(goldenBytes(LENET), 'a.nvdla');
    const changed = clone(a);
    blob(changed, 'task-0-lut_list').data[10] = 0x7f;
    const found = differences(diffLoadables(a, roundTrip(changed)));
    expect(found).toEqual([{ path: 'blobs["task-0-lut_list"].data[10..11]', a: '00', b: '7f' }]);
  });

  it('a damaged file is never equivalent, even to itself', () => {
    // the last 100 bytes hold list entries the root refers to
    const bytes = goldenBytes(LENET);
    const a = read(bytes.subarray(0, bytes.length - 100), 'cut.nvdla');
    expect(a.damage.length).toBeGreaterThan(0);
    const d = diffLoadables(a, a);
    expect(d.equivalent).toBe(false);
    expect(d.sections[0]!.section).toBe('readability');
    expect(d.sections[0]!.equal).toBe(false);
  });
});
