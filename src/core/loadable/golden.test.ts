/**
 * Every golden loadable decodes to exactly what its `.summary.txt` and `.ops.json` say, and
 * every KMD regression flatbuf decodes (firmware 0.10 / 0.11 layouts) without a single
 * unreadable field and as the reference decoder read it. Comparisons are field by field: a
 * failure lists each path with the expected and the decoded value.
 */
import { describe, expect, it } from 'vitest';
import { read } from './read';
import { decodeTasks, type DecodedLoadable, type DlaTask, type EmuTask } from './tasks';
import { leaves, type DecodedField, type DecodedStruct } from './structs';
import { EVENT_OP, INTERFACE } from './names';
import { compareFlat, flattenOps, parseSummary, type Flat } from '../../../test/support/nvdla-oracle';
import { FLATBUF_DIR, FLATBUFS, GOLDEN_DIR, GOLDENS, flatbufBytes, goldenBytes, goldenSummary, opsJson } from '../../../test/support/nvdla-fixtures';

// flatc prints an enum by name only when the schema has the value (loadable.fbs), else as a number
const SCHEMA_DATA_FORMAT = ['UNKNOWN', 'NCHW', 'NHWC'];
const SCHEMA_DATA_TYPE = ['UNKNOWN', 'FLOAT', 'HALF', 'INT16', 'INT8'];
const SCHEMA_DATA_CATEGORY = ['IMAGE', 'WEIGHT', 'FEATURE', 'PLANAR', 'BIAS'];
const SCHEMA_MEMORY_FLAGS: Record<number, string> = { 0: 'NONE', 1: 'ALLOC', 2: 'SET', 4: 'INPUT', 8: 'OUTPUT' };
const SCHEMA_DOMAIN = ['SYSTEM', 'SRAM'];
const SCHEMA_PIXEL_FORMAT_LAST = 37;
import { PIXEL_FORMAT } from './names';

const named = (names: readonly string[] | Record<number, string>, v: number): string | number => (names as Record<number, string>)[v] ?? v;

function flatStruct(out: Flat, prefix: string, s: DecodedStruct | null): void {
  if (!s) return;
  for (const { path, field } of leaves(s.fields)) out.set(`${prefix}.${path}`, field.missing ? 'missing' : field.value);
}

/** The studio's decode in the shape of `summ.py` (see parseSummary for the paths). */
function summaryOf(d: DecodedLoadable): Flat {
  const l = d.loadable;
  const out: Flat = new Map();
  out.set('version.major', l.version.major);
  out.set('version.minor', l.version.minor);
  out.set('version.sub_minor', l.version.sub_minor);
  out.set('tasks', l.task_list.length);
  d.tasks.forEach((t, i) => {
    const e = l.task_list[i]!;
    const p = `task[${i}]`;
    out.set(`${p}.id`, e.id);
    out.set(`${p}.if`, named(INTERFACE, e.interface));
    out.set(`${p}.inst`, e.instance);
    out.set(`${p}.addr_list`, e.address_list);
    out.set(`${p}.pre`, e.pre_actions);
    out.set(`${p}.post`, e.post_actions);
    if (t.kind === 'DLA') {
      flatStruct(out, `${p}.network_desc`, t.network);
      out.set(`${p}.slots`, t.slots.length);
      for (const s of t.slots) {
        const sp = `${p}.slot[${s.slot}]`;
        out.set(`${sp}.type`, s.engine);
        out.set(`${sp}.idx`, s.common.fields.find((x) => x.name === 'index')!.value);
        out.set(`${sp}.deps`, s.dependencyCount);
        out.set(`${sp}.cons`, s.consumers.map((c) => [c.engine, c.slot, c.event]));
        out.set(`${sp}.fused`, s.fusedParent ? s.fusedParent.slot : -1);
      }
    } else if (t.kind === 'EMU') {
      const v = (s: DecodedStruct | null, k: string) => s!.fields.find((x) => x.name === k)!.value;
      out.set(`${p}.emu.op_desc_idx`, v(t.network, 'operation_desc_index'));
      out.set(`${p}.emu.op_buf_desc_idx`, v(t.network, 'operation_buffer_desc_index'));
      out.set(`${p}.emu.num_ops`, v(t.network, 'num_operations'));
      const op = t.ops[0];
      if (op) {
        const common = op.op.fields.find((x) => x.name === 'common')!.fields!;
        out.set(`${p}.emu.op0.op_type`, op.opType);
        out.set(`${p}.emu.op0.in_scale`, common.find((x) => x.name === 'input_scale_factor')!.value);
        out.set(`${p}.emu.op0.out_scale`, common.find((x) => x.name === 'output_scale_factor')!.value);
        out.set(`${p}.emu.op0.axis/extra`, v(op.op, 'axis'));
        for (const [k, name] of [['src', 'src_data'], ['dst', 'dst_data']] as const) {
          const b = op.buffers!.fields.find((x) => x.name === name)!.fields!;
          const g = (n: string) => b.find((x) => x.name === n)!.value!;
          const q = `${p}.emu.${k}`;
          out.set(`${q}.addrIdx`, g('addressIndex'));
          out.set(`${q}.off`, g('addressIndexOffset'));
          out.set(`${q}.size`, g('size'));
          out.set(`${q}.fmt`, g('format'));
          out.set(`${q}.WxHxC`, `${g('width')}x${g('height')}x${g('channel')}`);
          out.set(`${q}.line`, g('line_stride'));
          out.set(`${q}.surf`, g('surf_stride'));
        }
      }
    }
  });
  out.set('memory_list', l.memory_list.length);
  for (const m of l.memory_list) {
    const p = `mem[${m.id}]`;
    out.set(`${p}.id`, m.id);
    out.set(`${p}.dom`, named(SCHEMA_DOMAIN, m.domain));
    out.set(`${p}.flags`, named(SCHEMA_MEMORY_FLAGS, m.flags));
    out.set(`${p}.size`, m.size);
    out.set(`${p}.align`, m.alignment);
    out.set(`${p}.bind_id`, m.bind_id);
    out.set(`${p}.tdesc`, m.tensor_desc_id);
    out.set(`${p}.contents`, m.contents.map((c, k) => [c, m.offsets[k]]));
  }
  out.set('address_list', l.address_list.length);
  for (const a of l.address_list) {
    out.set(`addr[${a.id}].id`, a.id);
    out.set(`addr[${a.id}].mem`, a.mem_id);
    out.set(`addr[${a.id}].off`, a.offset);
    out.set(`addr[${a.id}].size`, a.size);
  }
  out.set('event_list', l.event_list.length);
  for (const e of l.event_list) out.set(`event[${e.id}]`, [named(EVENT_OP, e.op), e.target, e.val]);
  out.set('submit_list', l.submit_list.length);
  for (const s of l.submit_list) out.set(`submit[${s.id}]`, s.task_id);
  out.set('tensor_desc_list', l.tensor_desc_list.length);
  for (const t of l.tensor_desc_list) {
    const p = `td[${t.id}]`;
    out.set(`${p}.id`, t.id);
    out.set(`${p}.name`, t.name);
    out.set(`${p}.mem`, t.mem_id);
    out.set(`${p}.size`, t.size);
    out.set(`${p}.off`, t.offset);
    out.set(`${p}.fmt`, named(SCHEMA_DATA_FORMAT, t.data_format));
    out.set(`${p}.type`, named(SCHEMA_DATA_TYPE, t.data_type));
    out.set(`${p}.cat`, named(SCHEMA_DATA_CATEGORY, t.data_category));
    out.set(`${p}.pix`, t.pixel_format <= SCHEMA_PIXEL_FORMAT_LAST ? PIXEL_FORMAT[t.pixel_format]! : t.pixel_format);
    out.set(`${p}.nchw`, `${t.n}x${t.c}x${t.h}x${t.w}`);
    out.set(`${p}.strides`, [t.stride_0, t.stride_1, t.stride_2, t.stride_3]);
  }
  out.set('blobs', l.blobs.length);
  for (const b of l.blobs) {
    const p = `blob[${b.name}]`;
    out.set(`${p}.size`, b.size);
    out.set(`${p}.if`, named(INTERFACE, b.interface));
    out.set(`${p}.sub`, b.sub_interface);
    out.set(`${p}.ver`, `${b.version.major}.${b.version.minor}.${b.version.sub_minor}`);
  }
  out.set('reloc_list', l.reloc_list.length);
  l.reloc_list.slice(0, 20).forEach((r, i) => {
    const p = `reloc[${i}]`;
    out.set(`${p}.addr`, r.address_id);
    out.set(`${p}.write`, r.write_id);
    out.set(`${p}.off`, r.offset);
    out.set(`${p}.if`, r.interface);
    out.set(`${p}.sub`, r.sub_interface);
    out.set(`${p}.type`, r.reloc_type);
  });
  return out;
}

/** The studio's descriptors in the shape of `decode_ops.py` (union members as its raw values). */
function opsOf(d: DecodedLoadable, skipLegacyEmu: boolean): Flat {
  const out: Flat = new Map();
  d.tasks.forEach((t, ti) => {
    const p = `task[${ti}]`;
    out.set(`${p}.interface`, t.interfaceName);
    if (t.kind === 'DLA') dlaOps(out, p, t);
    else if (t.kind === 'EMU' && !(skipLegacyEmu && t.layout !== '0.0.1')) emuOps(out, p, t);
    else if (t.kind === 'EMU') flatStruct(out, `${p}.network_desc`, t.network);
  });
  return out;
}

function dlaOps(out: Flat, p: string, t: DlaTask): void {
  flatStruct(out, `${p}.network_desc`, t.network);
  for (const s of t.slots) {
    const sp = `${p}.slot[${s.slot}]`;
    flatStruct(out, `${sp}.common`, s.common);
    flatStruct(out, `${sp}.op_desc`, s.op);
    if (s.surface && s.opType === 0) {
      // decode_ops lists the used transfers only
      const n = s.surface.fields.find((x) => x.name === 'num_transfers')!.value!;
      for (const { path, field } of leaves(s.surface.fields)) {
        const m = /^transfers\.(\d+)\./.exec(path);
        if (!m || Number(m[1]) < n) out.set(`${sp}.surface_desc.${path}`, field.value);
      }
    } else flatStruct(out, `${sp}.surface_desc`, s.surface);
  }
  t.luts.forEach((lut, i) => {
    const lp = `${p}.lut[${i}]`;
    const raw32 = (slope: DecodedField) => {
      const di = slope.fields!.find((x) => x.name === 'data_i')!.fields!;
      const g = (n: string) => di.find((x) => x.name === n)!.value!;
      return ((g('scale') & 0xffff) | ((g('shifter') & 0xff) << 16) | (g('reserved0') << 24)) >>> 0;
    };
    for (const f of lut.fields) {
      if (f.type === 'dla_lut_offset') out.set(`${lp}.${f.name}_raw_u16`, f.fields!.find((x) => x.name === 'reserved0')!.value);
      else if (f.type === 'dla_slope') out.set(`${lp}.${f.name}_raw_u32`, raw32(f));
      else if (f.fields) f.fields.forEach((x) => out.set(`${lp}.${f.name}.${x.name}`, x.value));
      else out.set(`${lp}.${f.name}`, f.value);
    }
  });
}

function emuOps(out: Flat, p: string, t: EmuTask): void {
  flatStruct(out, `${p}.network_desc`, t.network);
  for (const o of t.ops) {
    const sp = `${p}.slot[${o.slot}]`;
    for (const { path, field } of leaves(o.op.fields)) out.set(`${sp}.op_desc.${path.replace(/^common\./, '')}`, field.value);
    flatStruct(out, `${sp}.buffer_descs`, o.buffers);
  }
}

describe('golden loadables decode as their reference summaries and op dumps say', () => {
  it('has the goldens of notes/nvdla.md section 14', () => {
    expect(GOLDENS.length).toBe(17);
  });

  for (const name of GOLDENS) {
    describe(name, () => {
      const d = decodeTasks(read(goldenBytes(name), `${name}.nvdla`));

      it('reads without damage, as firmware 0.12', () => {
        expect(d.damage).toEqual([]);
        expect(d.firmware).toBe('0.12');
        expect(d.loadable.identifier).toBe('NVDA');
      });

      it('matches .summary.txt field by field', () => {
        expect(compareFlat(parseSummary(goldenSummary(name)), summaryOf(d))).toEqual([]);
      });

      const ops = opsJson(GOLDEN_DIR, name);
      if (ops) {
        it('matches .ops.json field by field', () => {
          expect((ops as { assumed_dla_data_cube_size: number }).assumed_dla_data_cube_size).toBe(32);
          const expected = flattenOps(ops);
          expect(compareFlat(expected, opsOf(d, false))).toEqual([]);
          expect(expected.size).toBeGreaterThan(1000);
        });
      }
    });
  }
});

describe('KMD regression flatbufs decode without an unreadable field', () => {
  it('has the 15 regression files of notes/nvdla.md section 16', () => {
    expect(FLATBUFS.length).toBe(15);
  });

  for (const name of FLATBUFS) {
    it(`${name}: no damage, 28-byte cubes, same fields as decode_ops.py`, () => {
      const d = decodeTasks(read(flatbufBytes(name), name));
      expect(d.damage).toEqual([]);
      expect(d.firmware).toBe(name === 'NN_L0_0_fbuf' ? '0.11' : '0.10');
      for (const t of d.tasks) if (t.kind === 'DLA') expect(t.cubeSize).toBe(28);
      const ops = opsJson(FLATBUF_DIR, name) as { assumed_dla_data_cube_size: number; tasks: { note?: string }[] };
      expect(ops.assumed_dla_data_cube_size).toBe(28);
      const expected = flattenOps(ops);
      // decode_ops.py leaves the pre-0.0.1 EMU tasks as hex with a note: compare the rest
      for (const k of [...expected.keys()]) if (/\.note$/.test(k)) expected.delete(k);
      expect(compareFlat(expected, opsOf(d, true))).toEqual([]);
    });
  }

  it('NN_L0_0_fbuf: the two EMU tasks in the layout before INT8 scale factors, read by hand', () => {
    const d = decodeTasks(read(flatbufBytes('NN_L0_0_fbuf'), 'NN_L0_0_fbuf'));
    const emu = d.tasks.filter((t): t is EmuTask => t.kind === 'EMU');
    expect(emu.map((t) => t.layout)).toEqual(['pre-0.0.1', 'pre-0.0.1']);
    const flat = (s: DecodedStruct | null) => Object.fromEntries(leaves(s!.fields).map((x) => [x.path, x.field.enumName ?? x.field.value]));
    // op list 00 0000803f 0000803f 00000000: POWER, power 1, scale 1, shift 0
    expect(flat(emu[0]!.ops[0]!.op)).toEqual({ 'common.op_type': 'POWER', power: 1, scale: 1, shift: 0 });
    // buffers 0200 00620000 0200 1c00 1c00 0100 80030000 00620000
    expect(flat(emu[0]!.ops[0]!.buffers)).toMatchObject({
      'src_data.addressIndex': 2, 'src_data.size': 25088, 'src_data.format': 'FF16', 'src_data.width': 28, 'src_data.height': 28,
      'src_data.channel': 1, 'src_data.line_stride': 896, 'src_data.surf_stride': 25088,
    });
    // relocs point at the line / surface strides of the old buffer layout (offsets 14 / 18, 270 / 274)
    expect(d.loadable.reloc_list.map((r) => r.offset)).toEqual([14, 18, 270, 274]);
    expect(flat(emu[1]!.ops[0]!.op)).toEqual({ 'common.op_type': 'SOFTMAX', axis: 1 });
    expect(emu[1]!.ops[0]!.surfaces.map((s) => [s.name, s.location?.memId])).toEqual([['src_data', 10], ['dst_data', 12]]);
  });
});
