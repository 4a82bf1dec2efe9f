/**
 * NVDLA loadable reader: bytes -> `Loadable`, bounds-checked and damage-tolerant.
 *
 * - Blob `data` are `subarray` views into the input: no blob byte is read or copied, so opening
 *   is O(structure) whatever the weight size (a 125 MB loadable opens in milliseconds).
 * - Each list, entry and field is read on its own: a failed check (truncation, an offset out of
 *   the file, an impossible vtable, the work budget) gives that field its schema default and a
 *   `Damage` naming the path, byte offset and reason; the rest of the file is still read.
 * - Only a file whose root table cannot be located throws (a `FormatError`).
 * - Cross references (task -> address -> memory -> blob, submits, events, tensor descs, relocs)
 *   are checked after reading and reported as damage too; they are never followed blindly.
 *
 * Field slots follow `schemas/loadable.fbs` (field order = field id; the round-trip test with the
 * flatc-generated builder in `write.ts` keeps both sides on the same slots).
 */
import { FormatError, isFormatError } from '../errors';
import { CheckedBytes, type FillBytes, type TableRef } from './checked';
import type {
  AddressListEntry,
  BlobEntry,
  Damage,
  EventListEntry,
  Loadable,
  LoadableVersion,
  MemoryListEntry,
  RelocListEntry,
  SubmitListEntry,
  TaskListEntry,
  TensorDescListEntry,
} from './model';
import {
  DATA_CATEGORY,
  DATA_FORMAT,
  DATA_TYPE,
  EVENT_OP,
  INTERFACE,
  MEMORY_DOMAIN,
  PIXEL_FORMAT,
  PIXEL_MAPPING,
  RELOC_TYPE,
  type EnumTable,
} from './names';

export const LOADABLE_IDENTIFIER = 'NVDA';
/** identifiers of the other FlatBuffers formats the studio reads (circle, TFLite) */
const OTHER_IDENTIFIERS = ['CIR0', 'TFL3'];
/** Damage entries kept per file; the rest are counted in one final entry. */
export const MAX_DAMAGE = 500;

/** Root table slots (schema field ids). */
const ROOT = { version: 0, task_list: 1, memory_list: 2, address_list: 3, event_list: 4, blobs: 5, tensor_desc_list: 6, reloc_list: 7, submit_list: 8 } as const;

function identifierOf(bytes: Uint8Array): string {
  if (bytes.length < 8) return '';
  return String.fromCharCode(bytes[4]!, bytes[5]!, bytes[6]!, bytes[7]!);
}

/**
 * True for compiler output (`NVDA` at bytes 4..8) and for identifier-less files whose root
 * table looks like a loadable: a sound vtable of at most the schema's 9 fields, an inline
 * version 0.x and task and memory lists (the KMD regression flatbufs). With no bytes the name
 * decides (`.nvdla`, `*_fbuf`). `fill`: as for `read`.
 */
export function detect(bytes: Uint8Array, name?: string, fill?: FillBytes): boolean {
  // every byte looked at below lies in one of these ranges, filled before it is read
  const want = (at: number, n: number): void => fill?.(bytes.byteOffset + at, bytes.byteOffset + Math.min(at + n, bytes.length));
  want(0, 8);
  const ident = identifierOf(bytes);
  if (ident === LOADABLE_IDENTIFIER) return true;
  if (OTHER_IDENTIFIERS.includes(ident)) return false;
  if (bytes.length === 0) return name !== undefined && /(\.nvdla|_fbuf)$/i.test(name);
  if (bytes.length < 24) return false;
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const root = v.getUint32(0, true);
  if (root % 4 !== 0 || root < 4 || root + 4 > bytes.length) return false;
  want(root, 4);
  const vt = root - v.getInt32(root, true);
  if (vt < 4 || vt + 4 > bytes.length) return false;
  want(vt, 4 + 2 * 9);
  const vtLen = v.getUint16(vt, true);
  const size = v.getUint16(vt + 2, true);
  if (vtLen < 4 + 2 * 3 || vtLen > 4 + 2 * 9 || vtLen % 2 || vt + vtLen > bytes.length || root + size > bytes.length) return false;
  const slot = (i: number) => (4 + 2 * i < vtLen ? v.getUint16(vt + 4 + 2 * i, true) : 0);
  const ver = slot(ROOT.version);
  // (field offsets are checked against the file, not the declared table size: see checked.ts#field)
  if (ver === 0 || root + ver + 3 > bytes.length) return false;
  want(root + ver, 1);
  if (bytes[root + ver] !== 0) return false;
  for (const s of [ROOT.task_list, ROOT.memory_list]) {
    const off = slot(s);
    if (off === 0 || root + off + 4 > bytes.length) return false;
    want(root + off, 4);
    const target = root + off + v.getUint32(root + off, true);
    if (target + 4 > bytes.length) return false;
  }
  return true;
}

/** Collects damage while reading; `attempt` is the one place a failed check is caught. */
export class DamageLog {
  readonly list: Damage[] = [];
  private dropped = 0;
  constructor(readonly file: string) {}

  add(d: Damage): void {
    if (this.list.length < MAX_DAMAGE) this.list.push(d);
    else this.dropped++;
  }

  /** Runs `fn`; on a FormatError (or any other throw) records it and returns `fallback`. */
  attempt<T>(fn: () => T, fallback: T, path: string): T {
    try {
      return fn();
    } catch (e) {
      this.record(e, path);
      return fallback;
    }
  }

  record(e: unknown, path: string): void {
    if (isFormatError(e)) {
      const i = e.info;
      this.add({ kind: i.kind, path: i.path ?? path, offset: i.offset, message: i.message });
    } else {
      this.add({ kind: 'corrupt', path, message: `could not be read (${e instanceof Error ? e.message : String(e)})` });
    }
  }

  finish(): Damage[] {
    if (this.dropped) this.list.push({ kind: 'limit', path: '', message: `${this.dropped} more damaged places are not listed` });
    return this.list;
  }
}

const defaultVersion = (): LoadableVersion => ({ major: 0, minor: 0, sub_minor: 0 });

function readVersion(r: CheckedBytes, t: TableRef, slot: number, path: string): LoadableVersion | null {
  const p = r.field(t, slot, 3, path);
  if (p === 0) return null;
  return { major: r.u8(p, path), minor: r.u8(p + 1, path), sub_minor: r.u8(p + 2, path) };
}

/** Reads a vector of tables; each entry is read by `entry` (which reads field by field). */
function readList<T>(r: CheckedBytes, log: DamageLog, root: TableRef, slot: number, name: string, make: () => T, entry: (t: TableRef, e: T, path: string) => void): T[] {
  const vec = log.attempt(() => r.fieldVector(root, slot, 4, name), { start: 0, count: 0 }, name);
  const out = new Array<T>(vec.count);
  for (let i = 0; i < vec.count; i++) {
    const path = `${name}[${i}]`;
    const e = make();
    out[i] = e;
    if (r.exhausted) {
      log.add({ kind: 'limit', path, message: `entries ${i}..${vec.count - 1} are not read: the decoding budget of this file is spent` });
      for (let j = i + 1; j < vec.count; j++) out[j] = make();
      break;
    }
    const t = log.attempt(() => r.table(r.deref(vec.start + 4 * i, path), path), null, path);
    if (t) entry(t, e, path);
  }
  return out;
}

/**
 * Reads a loadable. Throws a `FormatError` only when the root table cannot be located;
 * everything else that is unreadable or inconsistent is in `damage`. `fill`: the bytes are filled
 * on demand (see checked.ts); blob data are left as views, unfilled.
 */
export function read(bytes: Uint8Array, file: string, fill?: FillBytes): Loadable {
  if (bytes.length === 0) throw new FormatError({ kind: 'empty', file, message: 'the file is empty' });
  if (bytes.length < 8) throw new FormatError({ kind: 'truncated', file, offset: 0, message: `${bytes.length} bytes cannot hold a FlatBuffers root offset and identifier` });
  fill?.(bytes.byteOffset, bytes.byteOffset + 8);
  const r = new CheckedBytes(bytes, file, fill);
  const log = new DamageLog(file);
  let root: TableRef;
  try {
    root = r.table(r.deref(0, 'root'), 'root');
  } catch (e) {
    if (isFormatError(e)) throw new FormatError({ ...e.info, message: `not a readable loadable: ${e.info.message}` });
    throw e;
  }
  const ident = identifierOf(bytes);
  const f = <T>(fn: () => T, fallback: T, path: string) => log.attempt(fn, fallback, path);

  let version = f(() => readVersion(r, root, ROOT.version, 'version'), null, 'version');
  if (!version) {
    log.add({ kind: 'corrupt', path: 'version', offset: root.pos, message: 'the required version field is missing' });
    version = defaultVersion();
  }

  const task_list = readList<TaskListEntry>(r, log, root, ROOT.task_list, 'task_list',
    () => ({ id: 0, interface: 0, instance: 0, address_list: [], pre_actions: [], post_actions: [] }),
    (t, e, p) => {
      e.id = f(() => r.fieldU16(t, 0, `${p}.id`), 0, `${p}.id`);
      e.interface = f(() => r.fieldU32(t, 1, `${p}.interface`), 0, `${p}.interface`);
      e.instance = f(() => r.fieldI16(t, 2, `${p}.instance`), 0, `${p}.instance`);
      e.address_list = f(() => r.fieldU16Vector(t, 3, `${p}.address_list`), [], `${p}.address_list`);
      e.pre_actions = f(() => r.fieldU16Vector(t, 4, `${p}.pre_actions`), [], `${p}.pre_actions`);
      e.post_actions = f(() => r.fieldU16Vector(t, 5, `${p}.post_actions`), [], `${p}.post_actions`);
    });

  const memory_list = readList<MemoryListEntry>(r, log, root, ROOT.memory_list, 'memory_list',
    () => ({ id: 0, domain: 0, flags: 0, size: 0, alignment: 0, contents: [], offsets: [], bind_id: 0, tensor_desc_id: 0 }),
    (t, e, p) => {
      e.id = f(() => r.fieldU16(t, 0, `${p}.id`), 0, `${p}.id`);
      e.domain = f(() => r.fieldU8(t, 1, `${p}.domain`), 0, `${p}.domain`);
      e.flags = f(() => r.fieldU16(t, 2, `${p}.flags`), 0, `${p}.flags`);
      e.size = f(() => r.fieldU64(t, 3, `${p}.size`), 0, `${p}.size`);
      e.alignment = f(() => r.fieldU32(t, 4, `${p}.alignment`), 0, `${p}.alignment`);
      const cv = f(() => r.fieldVector(t, 5, 4, `${p}.contents`), { start: 0, count: 0 }, `${p}.contents`);
      for (let i = 0; i < cv.count && !r.exhausted; i++) {
        e.contents.push(f(() => r.stringAt(cv.start + 4 * i, `${p}.contents[${i}]`), '', `${p}.contents[${i}]`));
      }
      e.offsets = f(() => r.fieldU64Vector(t, 6, `${p}.offsets`), [], `${p}.offsets`);
      e.bind_id = f(() => r.fieldU16(t, 7, `${p}.bind_id`), 0, `${p}.bind_id`);
      e.tensor_desc_id = f(() => r.fieldU16(t, 8, `${p}.tensor_desc_id`), 0, `${p}.tensor_desc_id`);
    });

  const address_list = readList<AddressListEntry>(r, log, root, ROOT.address_list, 'address_list',
    () => ({ id: 0, mem_id: 0, offset: 0, size: 0 }),
    (t, e, p) => {
      e.id = f(() => r.fieldU16(t, 0, `${p}.id`), 0, `${p}.id`);
      e.mem_id = f(() => r.fieldU16(t, 1, `${p}.mem_id`), 0, `${p}.mem_id`);
      e.offset = f(() => r.fieldU64(t, 2, `${p}.offset`), 0, `${p}.offset`);
      e.size = f(() => r.fieldU64(t, 3, `${p}.size`), 0, `${p}.size`);
    });

  const event_list = readList<EventListEntry>(r, log, root, ROOT.event_list, 'event_list',
    () => ({ id: 0, type: 0, target: 0, val: 0, op: 0 }),
    (t, e, p) => {
      e.id = f(() => r.fieldU16(t, 0, `${p}.id`), 0, `${p}.id`);
      e.type = f(() => r.fieldU8(t, 1, `${p}.type`), 0, `${p}.type`);
      e.target = f(() => r.fieldU16(t, 2, `${p}.target`), 0, `${p}.target`);
      e.val = f(() => r.fieldU32(t, 3, `${p}.val`), 0, `${p}.val`);
      e.op = f(() => r.fieldU8(t, 4, `${p}.op`), 0, `${p}.op`);
    });

  const blobs = readList<BlobEntry>(r, log, root, ROOT.blobs, 'blobs',
    () => ({ name: '', size: 0, interface: 0, sub_interface: 0, version: defaultVersion(), data: new Uint8Array(0) }),
    (t, e, p) => {
      e.name = f(() => r.fieldString(t, 0, `${p}.name`), '', `${p}.name`);
      e.size = f(() => r.fieldU64(t, 1, `${p}.size`), 0, `${p}.size`);
      e.interface = f(() => r.fieldU32(t, 2, `${p}.interface`), 0, `${p}.interface`);
      e.sub_interface = f(() => r.fieldU32(t, 3, `${p}.sub_interface`), 0, `${p}.sub_interface`);
      e.version = f(() => readVersion(r, t, 4, `${p}.version`), null, `${p}.version`) ?? defaultVersion();
      e.data = f(() => r.fieldBytes(t, 5, `${p}.data`), new Uint8Array(0), `${p}.data`);
    });

  const tensor_desc_list = readList<TensorDescListEntry>(r, log, root, ROOT.tensor_desc_list, 'tensor_desc_list',
    () => ({
      name: '', id: 0, mem_id: 0, size: 0, offset: 0, data_format: 0, data_type: 0, data_category: 0, pixel_format: 0, pixel_mapping: 0,
      n: 0, c: 0, h: 0, w: 0, stride_0: 0, stride_1: 0, stride_2: 0, stride_3: 0, stride_4: 0, stride_5: 0, stride_6: 0, stride_7: 0,
    }),
    (t, e, p) => {
      e.name = f(() => r.fieldString(t, 0, `${p}.name`), '', `${p}.name`);
      e.id = f(() => r.fieldU16(t, 1, `${p}.id`), 0, `${p}.id`);
      e.mem_id = f(() => r.fieldU16(t, 2, `${p}.mem_id`), 0, `${p}.mem_id`);
      e.size = f(() => r.fieldU64(t, 3, `${p}.size`), 0, `${p}.size`);
      e.offset = f(() => r.fieldU64(t, 4, `${p}.offset`), 0, `${p}.offset`);
      e.data_format = f(() => r.fieldU8(t, 5, `${p}.data_format`), 0, `${p}.data_format`);
      e.data_type = f(() => r.fieldU8(t, 6, `${p}.data_type`), 0, `${p}.data_type`);
      e.data_category = f(() => r.fieldU8(t, 7, `${p}.data_category`), 0, `${p}.data_category`);
      e.pixel_format = f(() => r.fieldU8(t, 8, `${p}.pixel_format`), 0, `${p}.pixel_format`);
      e.pixel_mapping = f(() => r.fieldU8(t, 9, `${p}.pixel_mapping`), 0, `${p}.pixel_mapping`);
      e.n = f(() => r.fieldI32(t, 10, `${p}.n`), 0, `${p}.n`);
      e.c = f(() => r.fieldI32(t, 11, `${p}.c`), 0, `${p}.c`);
      e.h = f(() => r.fieldI32(t, 12, `${p}.h`), 0, `${p}.h`);
      e.w = f(() => r.fieldI32(t, 13, `${p}.w`), 0, `${p}.w`);
      e.stride_0 = f(() => r.fieldU32(t, 14, `${p}.stride_0`), 0, `${p}.stride_0`);
      e.stride_1 = f(() => r.fieldU32(t, 15, `${p}.stride_1`), 0, `${p}.stride_1`);
      e.stride_2 = f(() => r.fieldU32(t, 16, `${p}.stride_2`), 0, `${p}.stride_2`);
      e.stride_3 = f(() => r.fieldU32(t, 17, `${p}.stride_3`), 0, `${p}.stride_3`);
      e.stride_4 = f(() => r.fieldU32(t, 18, `${p}.stride_4`), 0, `${p}.stride_4`);
      e.stride_5 = f(() => r.fieldU32(t, 19, `${p}.stride_5`), 0, `${p}.stride_5`);
      e.stride_6 = f(() => r.fieldU32(t, 20, `${p}.stride_6`), 0, `${p}.stride_6`);
      e.stride_7 = f(() => r.fieldU32(t, 21, `${p}.stride_7`), 0, `${p}.stride_7`);
    });

  const reloc_list = readList<RelocListEntry>(r, log, root, ROOT.reloc_list, 'reloc_list',
    () => ({ address_id: 0, write_id: 0, offset: 0, interface: 0, sub_interface: 0, reloc_type: 0 }),
    (t, e, p) => {
      e.address_id = f(() => r.fieldU16(t, 0, `${p}.address_id`), 0, `${p}.address_id`);
      e.write_id = f(() => r.fieldU16(t, 1, `${p}.write_id`), 0, `${p}.write_id`);
      e.offset = f(() => r.fieldU64(t, 2, `${p}.offset`), 0, `${p}.offset`);
      e.interface = f(() => r.fieldU32(t, 3, `${p}.interface`), 0, `${p}.interface`);
      e.sub_interface = f(() => r.fieldU32(t, 4, `${p}.sub_interface`), 0, `${p}.sub_interface`);
      e.reloc_type = f(() => r.fieldU8(t, 5, `${p}.reloc_type`), 0, `${p}.reloc_type`);
    });

  const submit_list = readList<SubmitListEntry>(r, log, root, ROOT.submit_list, 'submit_list',
    () => ({ id: 0, task_id: [] }),
    (t, e, p) => {
      e.id = f(() => r.fieldU16(t, 0, `${p}.id`), 0, `${p}.id`);
      e.task_id = f(() => r.fieldU16Vector(t, 1, `${p}.task_id`), [], `${p}.task_id`);
    });

  const loadable: Loadable = {
    file,
    size: bytes.length,
    identifier: ident === LOADABLE_IDENTIFIER ? ident : null,
    version,
    task_list,
    memory_list,
    address_list,
    event_list,
    blobs,
    tensor_desc_list,
    reloc_list,
    submit_list,
    damage: [],
  };
  crossCheck(loadable, log);
  loadable.damage = log.finish();
  return loadable;
}

function checkEnum(log: DamageLog, table: EnumTable, value: number, path: string, what: string): void {
  if (table[value] === undefined) log.add({ kind: 'unsupported', path, message: `${what} ${value} is not a known value` });
}

/** References between the lists, checked without following them (notes/nvdla.md 2.4). */
function crossCheck(l: Loadable, log: DamageLog): void {
  const nTasks = l.task_list.length;
  const nMem = l.memory_list.length;
  const nAddr = l.address_list.length;
  const nEvents = l.event_list.length;
  const blobByName = new Map<string, BlobEntry>();
  l.blobs.forEach((b, i) => {
    if (blobByName.has(b.name)) log.add({ kind: 'corrupt', path: `blobs[${i}].name`, message: `a second blob is named "${b.name}"` });
    else blobByName.set(b.name, b);
    if (b.size !== b.data.length) log.add({ kind: 'corrupt', path: `blobs[${i}].size`, message: `blob "${b.name}" says ${b.size} bytes but its data holds ${b.data.length}` });
    checkEnum(log, INTERFACE, b.interface, `blobs[${i}].interface`, 'interface');
  });
  l.task_list.forEach((t, i) => {
    checkEnum(log, INTERFACE, t.interface, `task_list[${i}].interface`, 'interface');
    t.address_list.forEach((a, k) => {
      if (a >= nAddr) log.add({ kind: 'corrupt', path: `task_list[${i}].address_list[${k}]`, message: `address ${a} is past the address list (${nAddr} entries)` });
    });
    for (const key of ['pre_actions', 'post_actions'] as const) {
      t[key].forEach((ev, k) => {
        if (ev >= nEvents) log.add({ kind: 'corrupt', path: `task_list[${i}].${key}[${k}]`, message: `event ${ev} is past the event list (${nEvents} entries)` });
      });
    }
  });
  l.submit_list.forEach((s, i) => {
    s.task_id.forEach((t, k) => {
      if (t >= nTasks) log.add({ kind: 'corrupt', path: `submit_list[${i}].task_id[${k}]`, message: `task ${t} is past the task list (${nTasks} entries)` });
    });
  });
  l.event_list.forEach((e, i) => checkEnum(log, EVENT_OP, e.op, `event_list[${i}].op`, 'event op'));
  l.memory_list.forEach((m, i) => {
    const p = `memory_list[${i}]`;
    checkEnum(log, MEMORY_DOMAIN, m.domain, `${p}.domain`, 'memory domain');
    if (m.flags & ~0x1f) log.add({ kind: 'unsupported', path: `${p}.flags`, message: `memory flags 0x${m.flags.toString(16)} have bits no loadable defines` });
    if (m.contents.length !== m.offsets.length) {
      log.add({ kind: 'corrupt', path: `${p}.offsets`, message: `${m.contents.length} contents but ${m.offsets.length} offsets` });
    }
    if (!(m.flags & 2)) return; // contents are only copied into SET memory
    m.contents.forEach((name, k) => {
      const b = blobByName.get(name);
      if (!b) {
        log.add({ kind: 'corrupt', path: `${p}.contents[${k}]`, message: `names blob "${name}", which the blob list does not have` });
        return;
      }
      const off = m.offsets[k];
      if (off !== undefined && off + b.data.length > m.size) {
        log.add({ kind: 'corrupt', path: `${p}.offsets[${k}]`, message: `blob "${name}" (${b.data.length} bytes) at offset ${off} runs past the end of the memory (${m.size} bytes)` });
      }
    });
  });
  l.address_list.forEach((a, i) => {
    const m = l.memory_list[a.mem_id];
    // (no check of offset + size against the memory size: multi-batch compiler output gives each
    // batch's address entry the whole tensor's size at the batch's offset)
    if (!m) log.add({ kind: 'corrupt', path: `address_list[${i}].mem_id`, message: `memory ${a.mem_id} is past the memory list (${nMem} entries)` });
    else if (a.offset > m.size) log.add({ kind: 'corrupt', path: `address_list[${i}].offset`, message: `offset ${a.offset} is past the end of memory ${a.mem_id} (${m.size} bytes)` });
  });
  l.tensor_desc_list.forEach((t, i) => {
    const p = `tensor_desc_list[${i}]`;
    if (t.mem_id >= nMem) log.add({ kind: 'corrupt', path: `${p}.mem_id`, message: `memory ${t.mem_id} is past the memory list (${nMem} entries)` });
    checkEnum(log, DATA_FORMAT, t.data_format, `${p}.data_format`, 'data format');
    checkEnum(log, DATA_TYPE, t.data_type, `${p}.data_type`, 'data type');
    checkEnum(log, DATA_CATEGORY, t.data_category, `${p}.data_category`, 'data category');
    checkEnum(log, PIXEL_FORMAT, t.pixel_format, `${p}.pixel_format`, 'pixel format');
    checkEnum(log, PIXEL_MAPPING, t.pixel_mapping, `${p}.pixel_mapping`, 'pixel mapping');
  });
  l.reloc_list.forEach((x, i) => {
    const p = `reloc_list[${i}]`;
    if (x.address_id >= nAddr) log.add({ kind: 'corrupt', path: `${p}.address_id`, message: `address ${x.address_id} is past the address list (${nAddr} entries)` });
    if (x.write_id >= nMem) log.add({ kind: 'corrupt', path: `${p}.write_id`, message: `memory ${x.write_id} is past the memory list (${nMem} entries)` });
    checkEnum(log, RELOC_TYPE, x.reloc_type, `${p}.reloc_type`, 'reloc type');
  });
}
