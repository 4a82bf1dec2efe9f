/**
 * Bounds-checked FlatBuffers access for the loadable reader.
 *
 * Same approach as `core/circle/checked.ts` (flatc's TypeScript trusts its input: reads past the
 * end give garbage or a RangeError deep inside an accessor): every table, vtable, field, vector
 * and string is checked against the file size before it is used, and a failed check throws a
 * `FormatError` with the byte offset and the structure path. The loadable reader catches those
 * per field (`read.ts#attempt`) so a damaged file still yields everything readable; that
 * tolerance is why this is a separate, smaller class rather than the circle one, which is tied
 * to the circle schema table and stops at the first error.
 *
 * A work budget proportional to the file size bounds the tables, vector elements and string
 * bytes decoded (blob data is never decoded here, only viewed), so a file whose offsets alias
 * one table or one string many times fails fast with kind 'limit' instead of running for ever.
 *
 * Bytes filled on demand (`FillBytes`): the command line opens a loadable as an empty array of the
 * file's size and reads into it only the pieces that are looked at, so the weights of a 50 MB file
 * are never brought into memory. `fill` is called with every range before it is read: each
 * checked access, each vtable, each vector's elements (not the [ubyte] blob data, which are only
 * viewed here).
 */
import { FormatError, type ErrorKind } from '../errors';

/**
 * Makes bytes [start, end) of an ArrayBuffer hold the file's bytes before they are read (offsets
 * in the ArrayBuffer under the views, i.e. `view.byteOffset + i` for byte i of a view). Absent
 * when the whole file is in memory, as in the studio.
 */
export type FillBytes = (start: number, end: number) => void;

export interface TableRef {
  pos: number;
  vt: number;
  vtLen: number;
  size: number;
}

const utf8 = new TextDecoder('utf-8');

export class CheckedBytes {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  readonly length: number;
  readonly file: string;
  private budget: number;
  private readonly fill: FillBytes | undefined;

  constructor(bytes: Uint8Array, file: string, fill?: FillBytes) {
    this.bytes = bytes;
    this.fill = fill;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.length = bytes.byteLength;
    this.file = file;
    // An honest file spends at least one byte per table, element or string byte it declares.
    this.budget = 2 * bytes.byteLength + 4096;
  }

  get exhausted(): boolean {
    return this.budget < 0;
  }

  fail(kind: ErrorKind, offset: number, path: string, message: string): never {
    throw new FormatError({ kind, file: this.file, offset, path: path || undefined, message });
  }

  charge(n: number, offset: number, path: string): void {
    this.budget -= n;
    if (this.budget < 0) {
      this.fail('limit', offset, path, 'the file declares far more structure than its size can hold (aliased offsets); the rest is not decoded');
    }
  }

  need(pos: number, size: number, path: string, what = 'data'): void {
    if (!(pos >= 0 && pos + size <= this.length)) {
      if (pos < 0) this.fail('corrupt', 0, path, `${what} would start before the beginning of the file`);
      this.fail('truncated', Math.min(pos, this.length), path, `${what} at byte ${pos} (${size} bytes) runs past the end of the file (${this.length} bytes)`);
    }
    if (this.fill) this.fill(this.bytes.byteOffset + pos, this.bytes.byteOffset + pos + size);
  }

  u8(pos: number, path: string): number {
    this.need(pos, 1, path);
    return this.view.getUint8(pos);
  }
  i16(pos: number, path: string): number {
    this.need(pos, 2, path);
    return this.view.getInt16(pos, true);
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
  /** ulong as a number; values past 2^53 cannot be exact and fail as 'corrupt'. */
  u64(pos: number, path: string): number {
    this.need(pos, 8, path);
    const v = this.view.getBigUint64(pos, true);
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.fail('corrupt', pos, path, `value ${v} is larger than any size or offset a loadable can hold`);
    return Number(v);
  }

  /** Locates and checks the table at `pos` (its vtable and its inline size). */
  table(pos: number, path: string): TableRef {
    this.need(pos, 4, path, 'table');
    this.charge(1, pos, path);
    const vt = pos - this.view.getInt32(pos, true);
    if (vt < 0 || vt + 4 > this.length) this.fail('corrupt', pos, path, `table at byte ${pos} points to a vtable outside the file`);
    this.need(vt, 4, path, 'vtable');
    const vtLen = this.view.getUint16(vt, true);
    const size = this.view.getUint16(vt + 2, true);
    if (vtLen < 4 || vtLen % 2 !== 0) this.fail('corrupt', vt, path, `vtable at byte ${vt} has an impossible size ${vtLen}`);
    this.need(vt, vtLen, path, 'vtable');
    if (size < 4) this.fail('corrupt', vt, path, `vtable at byte ${vt} gives an impossible table size ${size}`);
    this.need(pos, size, path, 'table');
    return { pos, vt, vtLen, size };
  }

  /**
   * Absolute position of a field's inline value, or 0 when absent. The value must lie in the
   * file, not inside the table size the vtable declares: the KMD regression flatbufs (an old
   * FlatBuffers builder) put the root's version struct just past that size, and flatc's
   * verifier, like the runtime, accepts them.
   */
  field(t: TableRef, slot: number, size: number, path: string): number {
    const entry = 4 + 2 * slot;
    if (entry + 2 > t.vtLen) return 0;
    const off = this.view.getUint16(t.vt + entry, true);
    if (off === 0) return 0;
    this.need(t.pos + off, size, path, 'field');
    return t.pos + off;
  }

  /** Follows a uoffset stored at `pos`. */
  deref(pos: number, path: string): number {
    const target = pos + this.u32(pos, path);
    if (target >= this.length) this.fail('truncated', pos, path, `offset at byte ${pos} points past the end of the file (to byte ${target})`);
    return target;
  }

  /**
   * A vector referenced from `pos`: the position of element 0 and the count. `chargeElements`
   * false: the elements are only viewed, never read here (blob data), so neither charged to the
   * budget nor filled.
   */
  vector(pos: number, elemSize: number, path: string, chargeElements = true): { start: number; count: number } {
    const at = this.deref(pos, path);
    const count = this.u32(at, path);
    const start = at + 4;
    if (count * elemSize > this.length - start) {
      this.fail('truncated', at, path, `vector declares ${count} elements of ${elemSize} bytes, which run past the end of the file`);
    }
    if (chargeElements) {
      this.charge(count, at, path);
      if (this.fill) this.fill(this.bytes.byteOffset + start, this.bytes.byteOffset + start + count * elemSize);
    }
    return { start, count };
  }

  stringAt(pos: number, path: string): string {
    const { start, count } = this.vector(pos, 1, path);
    const b = this.bytes;
    let ascii = count < 256;
    for (let i = start; ascii && i < start + count; i++) if (b[i]! >= 0x80) ascii = false;
    if (ascii) return String.fromCharCode(...b.subarray(start, start + count));
    return utf8.decode(b.subarray(start, start + count));
  }

  // ---- typed helpers over a table + slot ---------------------------------------------------

  fieldU8(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 1, path);
    return p === 0 ? 0 : this.u8(p, path);
  }
  fieldI16(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 2, path);
    return p === 0 ? 0 : this.i16(p, path);
  }
  fieldU16(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 2, path);
    return p === 0 ? 0 : this.u16(p, path);
  }
  fieldI32(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? 0 : this.i32(p, path);
  }
  fieldU32(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? 0 : this.u32(p, path);
  }
  fieldU64(t: TableRef, slot: number, path: string): number {
    const p = this.field(t, slot, 8, path);
    return p === 0 ? 0 : this.u64(p, path);
  }
  fieldString(t: TableRef, slot: number, path: string): string {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? '' : this.stringAt(p, path);
  }
  /** Position of a vector field's first element and its count (count 0 when absent). */
  fieldVector(t: TableRef, slot: number, elemSize: number, path: string, chargeElements = true): { start: number; count: number } {
    const p = this.field(t, slot, 4, path);
    return p === 0 ? { start: 0, count: 0 } : this.vector(p, elemSize, path, chargeElements);
  }
  fieldU16Vector(t: TableRef, slot: number, path: string): number[] {
    const { start, count } = this.fieldVector(t, slot, 2, path);
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) out[i] = this.view.getUint16(start + 2 * i, true);
    return out;
  }
  fieldU64Vector(t: TableRef, slot: number, path: string): number[] {
    const { start, count } = this.fieldVector(t, slot, 8, path);
    const out = new Array<number>(count);
    for (let i = 0; i < count; i++) out[i] = this.u64(start + 8 * i, `${path}[${i}]`);
    return out;
  }
  /** A [ubyte] vector as a view into the file (zero-copy, not charged per byte). */
  fieldBytes(t: TableRef, slot: number, path: string): Uint8Array {
    const { start, count } = this.fieldVector(t, slot, 1, path, false);
    return count === 0 ? new Uint8Array(0) : this.bytes.subarray(start, start + count);
  }
}
