/**
 * Plain-object protobuf messages for Caffe, the same shape the text parser (core/textproto)
 * produces: keys are the .proto field names, repeated fields are arrays, enums are value names,
 * 64-bit integers are numbers (decimal strings when not exactly representable), bytes are
 * Uint8Array. Only fields present in the input appear; `get` fills in proto2 defaults.
 *
 * The one addition is `BlobValues`: the float payload of a BlobProto read from a binary
 * .caffemodel is kept as views into the file (never copied to open it), decoded on demand.
 */
import type protobuf from 'protobufjs/light.js';
import { fieldValue, type TextMessage } from '../textproto';
import { caffeType } from './schema';
import { float16FromBits } from '../fp16';

export type ProtoScalar = number | string | boolean | Uint8Array;
export type ProtoValue = ProtoScalar | ProtoMessage | ProtoScalar[] | ProtoMessage[] | BlobValues;
export interface ProtoMessage {
  [field: string]: ProtoValue;
}

/** Which encoding a blob's values were stored in. */
export type BlobValueKind = 'float' | 'double' | 'half';

/**
 * The values of one BlobProto field (data, diff, double_data, double_diff, or ditcaffe's
 * half_data) as read from a binary file: a list of segments, each a view into the file bytes
 * (packed records) or values already decoded (unpacked records, one per value).
 */
export class BlobValues {
  private cached: Float32Array | null = null;

  constructor(
    readonly kind: BlobValueKind,
    /** raw little-endian bytes (views into the file) or decoded values */
    readonly segments: readonly (Uint8Array | Float64Array)[],
    /** number of values over all segments */
    readonly count: number,
    /** file offset of the first segment's bytes (for messages), -1 when unknown */
    readonly offset: number,
    /**
     * the values were left out of a skeleton of the file (skeleton.ts): their size is known, their
     * bytes were not read; reading them is a bug (the worker re-opens the whole file first)
     */
    readonly absentBytes: number | null = null,
  ) {}

  /** Values of a skeleton: `count` values taking `byteLength` bytes at `offset` of the file, not read. */
  static absent(kind: BlobValueKind, count: number, offset: number, byteLength: number): BlobValues {
    return new BlobValues(kind, [], count, offset, byteLength);
  }

  private present(): void {
    if (this.absentBytes !== null) throw new Error(`the ${this.count} values at byte ${this.offset} were not read (the file was opened from its skeleton; its values come with the whole file)`);
  }

  static fromNumbers(kind: BlobValueKind, values: ArrayLike<number>): BlobValues {
    return new BlobValues(kind, [Float64Array.from(values)], values.length, -1);
  }

  /** bytes the values take in the file */
  get byteLength(): number {
    if (this.absentBytes !== null) return this.absentBytes;
    let n = 0;
    for (const s of this.segments) n += s.byteLength;
    return n;
  }

  /**
   * The values as float32. A single float segment at a 4-byte-aligned offset is a zero-copy
   * view into the file (kept); anything else is decoded into a new array each call, so a
   * 400 MB weight looked at once is not held twice.
   */
  toFloat32(): Float32Array {
    if (this.cached) return this.cached;
    this.present();
    const only = this.segments.length === 1 ? this.segments[0] : undefined;
    if (this.kind === 'float' && only instanceof Uint8Array && only.byteOffset % 4 === 0 && LITTLE_ENDIAN) {
      this.cached = new Float32Array(only.buffer, only.byteOffset, only.byteLength / 4);
      return this.cached;
    }
    return this.decodeAll();
  }

  /** Calls `f` with the values in order, a chunk at a time, without holding a decoded copy. */
  forEachChunk(f: (chunk: Float32Array) => void, chunkValues = 1 << 16): void {
    this.present();
    if (this.cached || (this.segments.length === 1 && this.kind === 'float' && this.segments[0] instanceof Uint8Array && this.segments[0].byteOffset % 4 === 0)) {
      const all = this.toFloat32();
      for (let i = 0; i < all.length; i += chunkValues) f(all.subarray(i, Math.min(all.length, i + chunkValues)));
      return;
    }
    const buf = new Float32Array(Math.max(1, Math.min(chunkValues, this.count)));
    chunkValues = buf.length;
    let n = 0;
    const push = (v: number) => {
      buf[n++] = v;
      if (n === chunkValues) {
        f(buf);
        n = 0;
      }
    };
    for (const s of this.segments) {
      if (s instanceof Float64Array) {
        for (let i = 0; i < s.length; i++) push(s[i]!);
        continue;
      }
      const dv = new DataView(s.buffer, s.byteOffset, s.byteLength);
      if (this.kind === 'float') for (let i = 0; i + 4 <= s.byteLength; i += 4) push(dv.getFloat32(i, true));
      else if (this.kind === 'double') for (let i = 0; i + 8 <= s.byteLength; i += 8) push(dv.getFloat64(i, true));
      else {
        const tmp = new Float32Array(s.length);
        const k = decodeHalfSegment(s, tmp, 0);
        for (let i = 0; i < k; i++) push(tmp[i]!);
      }
    }
    if (n > 0) f(buf.subarray(0, n));
  }

  private decodeAll(): Float32Array {
    const out = new Float32Array(this.count);
    let o = 0;
    for (const s of this.segments) {
      if (s instanceof Float64Array) {
        out.set(s, o);
        o += s.length;
        continue;
      }
      const dv = new DataView(s.buffer, s.byteOffset, s.byteLength);
      if (this.kind === 'float') for (let i = 0; i + 4 <= s.byteLength; i += 4) out[o++] = dv.getFloat32(i, true);
      else if (this.kind === 'double') for (let i = 0; i + 8 <= s.byteLength; i += 8) out[o++] = dv.getFloat64(i, true);
      else o = decodeHalfSegment(s, out, o);
    }
    return out;
  }
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** ditcaffe's half_data: packed uint32 varints, each holding one FP16 value in its low 16 bits. */
function decodeHalfSegment(bytes: Uint8Array, out: Float32Array, o: number): number {
  let p = 0;
  while (p < bytes.length) {
    let v = 0;
    let shift = 0;
    let b: number;
    do {
      b = bytes[p++]!;
      if (shift < 28) v |= (b & 0x7f) << shift;
      shift += 7;
    } while (b & 0x80 && p < bytes.length);
    out[o++] = float16FromBits(v & 0xffff);
  }
  return o;
}

export function isMessage(v: ProtoValue | undefined): v is ProtoMessage {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof Uint8Array) && !(v instanceof BlobValues);
}

/** A field's value as present, or its proto2 default (enums by name); undefined for absent messages. */
export function get(msg: ProtoMessage | undefined, typeName: string, field: string): ProtoValue | undefined {
  const present = msg?.[field];
  if (present !== undefined) return present;
  return fieldValue(undefined, caffeType(typeName), field) as ProtoValue | undefined;
}

export function getNumber(msg: ProtoMessage | undefined, typeName: string, field: string): number {
  const v = get(msg, typeName, field);
  if (typeof v === 'number') return v;
  if (typeof v === 'string' && /^-?\d+$/.test(v)) return Number(v);
  return 0;
}

export function getBool(msg: ProtoMessage | undefined, typeName: string, field: string): boolean {
  return get(msg, typeName, field) === true;
}

export function getString(msg: ProtoMessage | undefined, typeName: string, field: string): string {
  const v = get(msg, typeName, field);
  return typeof v === 'string' ? v : '';
}

export function has(msg: ProtoMessage | undefined, field: string): boolean {
  return msg !== undefined && msg[field] !== undefined;
}

export function messages(msg: ProtoMessage | undefined, field: string): ProtoMessage[] {
  const v = msg?.[field];
  return Array.isArray(v) ? (v as ProtoMessage[]) : isMessage(v) ? [v] : [];
}

export function message(msg: ProtoMessage | undefined, field: string): ProtoMessage | undefined {
  const v = msg?.[field];
  return isMessage(v) ? v : undefined;
}

export function numbers(msg: ProtoMessage | undefined, field: string): number[] {
  const v = msg?.[field];
  if (Array.isArray(v)) return (v as ProtoScalar[]).map((x) => (typeof x === 'number' ? x : Number(x)));
  if (typeof v === 'number') return [v];
  if (v instanceof BlobValues) return Array.from(v.toFloat32());
  return [];
}

export function strings(msg: ProtoMessage | undefined, field: string): string[] {
  const v = msg?.[field];
  if (Array.isArray(v)) return (v as ProtoScalar[]).map(String);
  if (typeof v === 'string') return [v];
  return [];
}

/** TextMessage (from the text parser) is a ProtoMessage without BlobValues. */
export function fromText(msg: TextMessage): ProtoMessage {
  return msg as ProtoMessage;
}

export type { protobuf };
