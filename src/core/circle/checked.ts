/**
 * Bounds-checked FlatBuffers access: the verifier layer under the circle reader.
 *
 * The flatbuffers JS runtime trusts its input (reads past the end give garbage, a declared
 * vector length of 2^32 makes a loop of 2^32 steps). Every read here is checked against the
 * file size first and fails with a `FormatError` that carries the byte offset and the path in
 * the structure (`subgraphs[0].tensors[3].shape`). A work budget proportional to the file size
 * bounds the total number of tables, vector elements and string bytes decoded, so files whose
 * offsets alias one table many times (a "billion laughs" FlatBuffer) fail fast with kind 'limit'.
 */
import { FormatError, type ErrorKind } from '../errors';
import type { OptionTable, OptionValue, UnionValue } from './model';
import type { SchemaField, ScalarType, SchemaTableDef } from './fbs-schema';
import { CIRCLE_SCHEMA } from './schema-table';

export const SCALAR_SIZE: Record<ScalarType, number> = {
  bool: 1, byte: 1, ubyte: 1, short: 2, ushort: 2, int: 4, uint: 4, long: 8, ulong: 8, float: 4, double: 8,
};

/** A table located in the file: its position and its vtable. */
export interface TableRef {
  pos: number;
  vt: number;
  vtLen: number;
  size: number;
}

const utf8 = new TextDecoder('utf-8');
/** `stringAt`'s scratch: the character codes of the short string being decoded */
const SHORT_CODES: number[] = [];

/**
 * `e` with `prefix` put before its structure path, when it is a FormatError (anything else is
 * returned as it is). Readers of many elements (tensors, operators, option fields) read each one
 * with paths relative to it, made of constant strings, and put the element's own path in front
 * only when something fails: no path string is built per element of an honest file.
 */
export function prefixed(e: unknown, prefix: string): unknown {
  if (!(e instanceof FormatError) || !prefix) return e;
  const path = e.info.path ? (e.info.path.startsWith('[') ? `${prefix}${e.info.path}` : `${prefix}.${e.info.path}`) : prefix;
  return new FormatError({ ...e.info, path });
}

/**
 * Tables of a vector, located and checked (`CheckedBuffer.fieldTableList`): their positions only;
 * `at` reads a table's vtable position, vtable length and size from the file again (checked when
 * the list was made), which costs less than keeping them (8 more bytes per table, a few MB of
 * fresh memory at 100,000 operators).
 */
export class TableList {
  readonly pos: Uint32Array;
  private readonly ref: TableRef = { pos: 0, vt: 0, vtLen: 0, size: 0 };
  constructor(readonly count: number, private readonly view: DataView) {
    this.pos = new Uint32Array(count);
  }
  /** table i, in a TableRef reused by the next call (read it before asking for another) */
  at(i: number): TableRef {
    const r = this.ref;
    const v = this.view;
    const pos = this.pos[i]!;
    const vt = pos - v.getInt32(pos, true);
    r.pos = pos;
    r.vt = vt;
    r.vtLen = v.getUint16(vt, true);
    r.size = v.getUint16(vt + 2, true);
    return r;
  }
}

export class CheckedBuffer {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly file: string;
  private budget: number;

  constructor(bytes: Uint8Array, file: string) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
    this.file = file;
    // An honest file spends at least one byte per table, element or string byte it declares.
    this.budget = 2 * bytes.byteLength + 4096;
  }

  fail(kind: ErrorKind, offset: number, path: string, message: string): never {
    throw new FormatError({ kind, file: this.file, offset, path: path || undefined, message });
  }

  /** Charges `n` units of decoding work (tables, elements, string bytes). */
  charge(n: number, offset: number, path: string): void {
    this.budget -= n;
    if (this.budget < 0) {
      this.fail('limit', offset, path, 'the file declares far more structure than its size can hold (aliased offsets); refusing to decode it');
    }
  }

  need(pos: number, size: number, path: string, what = 'data'): void {
    if (!(pos >= 0 && pos + size <= this.length)) {
      if (pos < 0) this.fail('corrupt', pos, path, `${what} starts before the beginning of the file`);
      this.fail('truncated', pos, path, `${what} at byte ${pos} (${size} bytes) runs past the end of the file (${this.length} bytes)`);
    }
  }

  u8(pos: number, path: string): number {
    this.need(pos, 1, path);
    return this.view.getUint8(pos);
  }
  u16(pos: number, path: string): number {
    this.need(pos, 2, path);
    return this.view.getUint16(pos, true);
  }
  i32(pos: number, path: string): number {
    this.need(pos, 4, path);
    return this.view.getInt32(pos, true);
  }
  u32(pos: number, path: string): number {
    this.need(pos, 4, path);
    return this.view.getUint32(pos, true);
  }

  /** Reads a scalar of a schema base type at a checked position. */
  scalar(pos: number, base: ScalarType, path: string): number {
    this.need(pos, SCALAR_SIZE[base], path);
    const v = this.view;
    switch (base) {
      case 'bool':
      case 'ubyte':
        return v.getUint8(pos);
      case 'byte':
        return v.getInt8(pos);
      case 'short':
        return v.getInt16(pos, true);
      case 'ushort':
        return v.getUint16(pos, true);
      case 'int':
        return v.getInt32(pos, true);
      case 'uint':
        return v.getUint32(pos, true);
      case 'long':
        return Number(v.getBigInt64(pos, true));
      case 'ulong':
        return Number(v.getBigUint64(pos, true));
      case 'float':
        return v.getFloat32(pos, true);
      case 'double':
        return v.getFloat64(pos, true);
    }
  }

  /** Locates and checks the table at `pos` (its vtable and its inline size). */
  table(pos: number, path: string): TableRef {
    this.locate(pos, path);
    return { pos, vt: this.lastVt, vtLen: this.lastVtLen, size: this.lastSize };
  }

  /** `table` into a TableRef the caller reuses (returned); unchanged when the table fails its checks */
  tableInto(pos: number, path: string, ref: TableRef): TableRef {
    this.locate(pos, path);
    ref.pos = pos;
    ref.vt = this.lastVt;
    ref.vtLen = this.lastVtLen;
    ref.size = this.lastSize;
    return ref;
  }

  /**
   * `table` without the TableRef: the vtable position, vtable length and table size are left in
   * `lastVt`, `lastVtLen`, `lastSize` (read them before locating another). The vectors of tables
   * (several hundred thousand at 100,000 operators) go into typed arrays, not objects.
   */
  private locate(pos: number, path: string): void {
    this.need(pos, 4, path, 'table');
    this.charge(1, pos, path);
    const vt = pos - this.view.getInt32(pos, true);
    if (vt < 0 || vt + 4 > this.length) this.fail('corrupt', pos, path, `table at byte ${pos} points to a vtable outside the file`);
    const vtLen = this.view.getUint16(vt, true);
    const size = this.view.getUint16(vt + 2, true);
    if (vtLen < 4 || vtLen % 2 !== 0) this.fail('corrupt', vt, path, `vtable at byte ${vt} has an impossible size ${vtLen}`);
    this.need(vt, vtLen, path, 'vtable');
    if (size < 4) this.fail('corrupt', vt, path, `vtable at byte ${vt} gives an impossible table size ${size}`);
    this.need(pos, size, path, 'table');
    this.lastVt = vt;
    this.lastVtLen = vtLen;
    this.lastSize = size;
  }
  private lastVt = 0;
  private lastVtLen = 0;
  private lastSize = 0;

  /** Absolute position of a field's inline value, or 0 when absent. */
  field(t: TableRef, slot: number, size: number, path: string): number {
    const entry = 4 + 2 * slot;
    if (entry + 2 > t.vtLen) return 0;
    const off = this.view.getUint16(t.vt + entry, true);
    if (off === 0) return 0;
    if (off + size > t.size) this.fail('corrupt', t.pos + off, path, `field lies outside its table (offset ${off}, table size ${t.size})`);
    return t.pos + off;
  }

  /** Follows a uoffset stored at `pos`. */
  deref(pos: number, path: string): number {
    const target = pos + this.u32(pos, path);
    if (target >= this.length) this.fail('truncated', pos, path, `offset at byte ${pos} points past the end of the file (to byte ${target})`);
    return target;
  }

  /** A vector referenced from `pos`: returns the position of element 0 and the count. */
  vector(pos: number, elemSize: number, path: string, chargeElements = true): { start: number; count: number } {
    const start = this.vectorAt(pos, elemSize, path, chargeElements);
    return { start, count: this.lastCount };
  }

  /**
   * `vector` without the object: returns the position of element 0 and leaves the count in
   * `lastCount` (read it before the next vector). Every vector of every tensor and operator
   * goes through here.
   */
  private vectorAt(pos: number, elemSize: number, path: string, chargeElements: boolean): number {
    const at = this.deref(pos, path);
    const count = this.u32(at, path);
    const start = at + 4;
    if (count * elemSize > this.length - start) {
      this.fail('truncated', at, path, `vector declares ${count} elements of ${elemSize} bytes, which run past the end of the file`);
    }
    if (chargeElements) this.charge(count, at, path);
    this.lastCount = count;
    return start;
  }
  private lastCount = 0;

  stringAt(pos: number, path: string): string {
    const start = this.vectorAt(pos, 1, path, true);
    const count = this.lastCount;
    const b = this.bytes;
    if (count < 64) {
      // a short ASCII string (tensor names, mostly): its codes into one reused array, then one
      // `apply` (not a spread: a spread iterates, an iterator result per character; not a
      // subarray: a typed-array view per string cost several times the decoding at 100,000
      // operators)
      const codes = SHORT_CODES;
      codes.length = count;
      let ascii = true;
      for (let i = 0; i < count; i++) {
        const c = b[start + i]!;
        if (c >= 0x80) {
          ascii = false;
          break;
        }
        codes[i] = c;
      }
      if (ascii) return String.fromCharCode.apply(null, codes);
    }
    return utf8.decode(b.subarray(start, start + count));
  }

  // ---- typed helpers over a table + slot ---------------------------------------------------

  fieldScalar(t: TableRef, slot: number, base: ScalarType, def: number, path: string): number {
    const p = this.field(t, slot, SCALAR_SIZE[base], path);
    return p === 0 ? def : this.scalar(p, base, path);
  }
  fieldString(t: TableRef, slot: number, path: string): string | null {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? null : this.stringAt(p, path);
  }
  fieldTable(t: TableRef, slot: number, path: string): TableRef | null {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? null : this.table(this.deref(p, path), path);
  }
  fieldScalarVector(t: TableRef, slot: number, base: ScalarType, path: string): number[] | null {
    const p = this.field(t, slot, 4, path);
    if (p === 0) return null;
    const size = SCALAR_SIZE[base];
    const start = this.vectorAt(p, size, path, true);
    const count = this.lastCount;
    const out = new Array<number>(count);
    // the whole vector lies in the file (checked by vector()): int32, the common case (shapes,
    // tensor indices), is read without a check and a type switch per element
    if (base === 'int') {
      const v = this.view;
      for (let i = 0; i < count; i++) out[i] = v.getInt32(start + 4 * i, true);
    } else {
      for (let i = 0; i < count; i++) out[i] = this.scalar(start + i * size, base, path);
    }
    return out;
  }
  /**
   * `fieldTableVector` without an object per table: the tables located and checked the same way,
   * in the same order (so the same first failure), kept in typed arrays; `TableList.at` gives one
   * at a time in a reused TableRef. At 100,000 operators the vectors of tensors and operators are
   * several hundred thousand tables, whose TableRef objects lived until the vector was read.
   */
  fieldTableList(t: TableRef, slot: number, path: string): TableList | null {
    const p = this.field(t, slot, 4, path);
    if (p === 0) return null;
    const start = this.vectorAt(p, 4, path, true);
    const count = this.lastCount;
    const list = new TableList(count, this.view);
    for (let i = 0; i < count; i++) {
      try {
        const pos = this.deref(start + i * 4, '');
        this.locate(pos, '');
        list.pos[i] = pos;
      } catch (e) {
        throw prefixed(e, `${path}[${i}]`);
      }
    }
    return list;
  }

  /**
   * An int vector, or the array of `recent` that holds exactly its values (shared then: callers
   * pass arrays nobody modifies, such as frozen shapes of the tensors read before).
   */
  fieldIntVectorOf(t: TableRef, slot: number, path: string, recent: readonly (readonly number[])[]): number[] | null {
    const p = this.field(t, slot, 4, path);
    if (p === 0) return null;
    const start = this.vectorAt(p, 4, path, true);
    const count = this.lastCount;
    const v = this.view;
    for (let k = 0; k < recent.length; k++) {
      const same = recent[k]!;
      if (same.length !== count) continue;
      let i = 0;
      while (i < count && v.getInt32(start + 4 * i, true) === same[i]) i++;
      if (i === count) return same as number[];
    }
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) out[i] = v.getInt32(start + 4 * i, true);
    return out;
  }

  /** Tables of a vector of tables, each located and checked. */
  fieldTableVector(t: TableRef, slot: number, path: string): TableRef[] | null {
    const p = this.field(t, slot, 4, path);
    if (p === 0) return null;
    const { start, count } = this.vector(p, 4, path);
    const out = new Array<TableRef>(count);
    for (let i = 0; i < count; i++) {
      try {
        out[i] = this.table(this.deref(start + i * 4, ''), '');
      } catch (e) {
        throw prefixed(e, `${path}[${i}]`);
      }
    }
    return out;
  }
  /** A [ubyte] vector as a view into the file (zero-copy, not charged per byte). */
  fieldBytes(t: TableRef, slot: number, path: string): Uint8Array | null {
    const p = this.field(t, slot, 4, path);
    if (p === 0) return null;
    const start = this.vectorAt(p, 1, path, false);
    return this.bytes.subarray(start, start + this.lastCount);
  }

  // ---- generic, schema-driven decoding (option tables, unions) ----------------------------

  /** Decodes a table of the schema into an OptionTable with snake_case field names. */
  decodeTable(def: SchemaTableDef, t: TableRef, path: string): OptionTable {
    const out: OptionTable = {};
    try {
      for (const f of def.fields) {
        if (f.deprecated) continue;
        out[f.name] = this.decodeField(f, t, f.name);
      }
    } catch (e) {
      throw prefixed(e, path);
    }
    return out;
  }

  decodeUnion(unionName: string, type: number, valuePos: number, path: string): UnionValue {
    const member = CIRCLE_SCHEMA.unions[unionName]?.[String(type)];
    const def = member ? CIRCLE_SCHEMA.tables[member] : undefined;
    if (!member || !def) {
      // Unknown union member (newer schema): keep the id, the table cannot be decoded.
      return { type, name: `${unionName}(${type})`, fields: {} };
    }
    if (valuePos === 0) return { type, name: member, fields: defaultsOf(def) };
    const t = this.table(this.deref(valuePos, path), path);
    return { type, name: member, fields: this.decodeTable(def, t, path) };
  }

  /** Reads a union field pair (type byte at slot-1, value at slot) of a table. */
  fieldUnion(t: TableRef, slot: number, unionName: string, path: string): UnionValue | null {
    const type = this.fieldScalar(t, slot - 1, 'ubyte', 0, path);
    if (type === 0) return null;
    return this.decodeUnion(unionName, type, this.field(t, slot, 4, path), path);
  }

  private decodeField(f: SchemaField, t: TableRef, path: string): OptionValue {
    const k = f.type.kind;
    if (!f.vector) {
      if (k === 'scalar' || k === 'enum') {
        const v = this.fieldScalar(t, f.slot, f.type.base!, typeof f.default === 'boolean' ? Number(f.default) : f.default, path);
        return f.type.base === 'bool' ? v !== 0 : v;
      }
      if (k === 'string') return this.fieldString(t, f.slot, path);
      if (k === 'table') {
        const sub = this.fieldTable(t, f.slot, path);
        return sub ? this.decodeTable(CIRCLE_SCHEMA.tables[f.type.ref!]!, sub, path) : null;
      }
      const u = this.fieldUnion(t, f.slot, f.type.ref!, path);
      return u ? { type: u.type, name: u.name, fields: u.fields } : null;
    }
    if (k === 'scalar' || k === 'enum') return this.fieldScalarVector(t, f.slot, f.type.base!, path);
    if (k === 'string') {
      const p = this.field(t, f.slot, 4, path);
      if (p === 0) return null;
      const { start, count } = this.vector(p, 4, path);
      const out: string[] = [];
      for (let i = 0; i < count; i++) {
        try {
          out.push(this.stringAt(start + 4 * i, ''));
        } catch (e) {
          throw prefixed(e, `${path}[${i}]`);
        }
      }
      return out;
    }
    if (k === 'table') {
      const tables = this.fieldTableVector(t, f.slot, path);
      if (!tables) return null;
      const def = CIRCLE_SCHEMA.tables[f.type.ref!]!;
      const out: OptionTable[] = new Array<OptionTable>(tables.length);
      for (let i = 0; i < tables.length; i++) {
        try {
          out[i] = this.decodeTable(def, tables[i]!, '');
        } catch (e) {
          throw prefixed(e, `${path}[${i}]`);
        }
      }
      return out;
    }
    this.fail('unsupported', t.pos, path, 'vectors of unions are not supported');
  }
}

/** The value every field of a table takes when absent. */
export function defaultsOf(def: SchemaTableDef): OptionTable {
  const out: OptionTable = {};
  for (const f of def.fields) {
    if (f.deprecated) continue;
    if (f.vector || f.type.kind === 'string' || f.type.kind === 'table' || f.type.kind === 'union') out[f.name] = null;
    else out[f.name] = f.type.base === 'bool' ? Boolean(f.default) : Number(f.default);
  }
  return out;
}

/** Slot of a field of a schema table (throws at module load if the schema changed shape). */
export function slotOf(table: string, field: string): number {
  const f = CIRCLE_SCHEMA.tables[table]?.fields.find((x) => x.name === field);
  if (!f) throw new Error(`circle schema has no ${table}.${field}`);
  return f.slot;
}
