/**
 * Protobuf binary decoder for Caffe messages (a `.caffemodel` is one binary NetParameter),
 * driven by caffe.proto reflection and producing the same plain objects as the text reader.
 *
 * Why hand-written rather than protobufjs's decode: protobufjs materialises every repeated float
 * as a JS number (a 500 MB caffemodel would need gigabytes), throws plain errors without the
 * byte offset, and accepts a repeated field only in the encoding its schema declares. Here:
 * - blob payloads (`BlobProto.data` / `diff` / `double_data` / `double_diff`, and ditcaffe's
 *   `half_data` / `half_diff` = fields 10 / 11) stay views into the file (`BlobValues`), so
 *   opening costs the structure only;
 * - every repeated scalar is accepted packed or unpacked, as proto2 parsers must;
 * - a singular message given twice is merged, a singular scalar given twice keeps the last value;
 * - unknown fields are skipped (as protobuf does); a known field with the wrong wire type,
 *   a truncated varint, a length past the end, a group, or nesting deeper than 100 levels is a
 *   `FormatError` with the byte offset and the path (`layer[3].blobs[0].shape`).
 */
import type protobuf from 'protobufjs/light.js';
import { FormatError, type Diagnostic } from '../errors';
import { BlobValues, isMessage, type BlobValueKind, type ProtoMessage, type ProtoScalar } from './proto';
import { float16FromBits } from '../fp16';
import { caffeType, enumOf, messageTypeOf } from './schema';
import { fileOffset, SKELETON_FIELD, type Skeleton } from './skeleton';

const utf8 = new TextDecoder('utf-8');

/** BlobProto fields whose values stay in the file. */
const BLOB_VALUE_FIELDS: Record<number, { name: string; kind: BlobValueKind }> = {
  5: { name: 'data', kind: 'float' },
  6: { name: 'diff', kind: 'float' },
  8: { name: 'double_data', kind: 'double' },
  9: { name: 'double_diff', kind: 'double' },
  10: { name: 'half_data', kind: 'half' },
  11: { name: 'half_diff', kind: 'half' },
};

const WIRE_OF_TYPE: Record<string, number> = {
  int32: 0, int64: 0, uint32: 0, uint64: 0, sint32: 0, sint64: 0, bool: 0,
  fixed32: 5, sfixed32: 5, float: 5,
  fixed64: 1, sfixed64: 1, double: 1,
  string: 2, bytes: 2,
};

export interface DecodeOptions {
  /** deepest message nesting accepted; default 100 */
  maxDepth?: number;
  /**
   * `bytes` is a skeleton of the file (skeleton.ts): its marker fields become values that were not
   * read, and byte offsets in messages are the file's (through `skeleton.offsets`)
   */
  skeleton?: Skeleton;
}

export interface DecodeResult {
  message: ProtoMessage;
  diagnostics: Diagnostic[];
  /** byte offset of each `layer` / `layers` entry of the NetParameter (for error messages) */
  layerOffsets: { layer: number[]; layers: number[] };
}

interface BlobEntry {
  segs: (Uint8Array | Float64Array)[];
  /** unpacked values not yet in a segment */
  pending: number[];
  count: number;
  offset: number;
}

function flushPending(e: BlobEntry): void {
  if (e.pending.length) {
    e.segs.push(Float64Array.from(e.pending));
    e.pending = [];
  }
}

interface PathEntry {
  name: string;
  index: number; // -1 for singular
}

class Decoder {
  pos = 0;
  readonly diagnostics: Diagnostic[] = [];
  private readonly path: PathEntry[] = [];
  private depth = 0;
  // varint result halves (unsigned 32-bit each)
  private lo = 0;
  private hi = 0;

  constructor(
    readonly bytes: Uint8Array,
    readonly file: string,
    readonly maxDepth: number,
    readonly skeleton: Skeleton | null = null,
  ) {}

  /** A position in `bytes` as a byte offset of the file. */
  at(offset: number): number {
    return this.skeleton ? fileOffset(this.skeleton, offset) : offset;
  }

  pathText(): string {
    return this.path.map((p) => (p.index >= 0 ? `${p.name}[${p.index}]` : p.name)).join('.');
  }

  fail(kind: 'truncated' | 'corrupt' | 'limit', message: string, offset: number): never {
    const path = this.pathText();
    throw new FormatError({ kind, file: this.file, offset: this.at(offset), message, ...(path ? { path } : {}) });
  }

  /** Reads a varint into lo/hi; fails if it runs past `end` or is longer than 10 bytes. */
  varint(end: number): void {
    const b = this.bytes;
    const start = this.pos;
    let lo = 0;
    let hi = 0;
    let p = this.pos;
    for (let i = 0; ; i++) {
      if (p >= end) this.fail('truncated', 'a varint runs past the end of its record', start);
      if (i >= 10) this.fail('corrupt', 'a varint is longer than 10 bytes', start);
      const c = b[p++]!;
      if (i < 4) lo |= (c & 0x7f) << (7 * i);
      else if (i === 4) {
        lo |= (c & 0x0f) << 28;
        hi |= (c & 0x7f) >>> 4;
      } else hi |= (c & 0x7f) << (7 * i - 32);
      if (!(c & 0x80)) break;
    }
    this.pos = p;
    this.lo = lo >>> 0;
    this.hi = hi >>> 0;
  }

  /** unsigned value of the last varint, exact up to 2^53 */
  private unsigned(): number {
    return this.hi * 4294967296 + this.lo;
  }

  private length(end: number, what: string): number {
    const at = this.pos;
    this.varint(end);
    if (this.hi !== 0 || this.lo > end - this.pos) {
      this.fail('truncated', `${what} declares ${this.hi ? 'more than 4 GiB' : `${this.lo} bytes`} but only ${end - this.pos} remain in its enclosing record`, at);
    }
    return this.lo;
  }

  decode(type: protobuf.Type, end: number, into: ProtoMessage, layerOffsets?: DecodeResult['layerOffsets']): ProtoMessage {
    if (++this.depth > this.maxDepth) this.fail('limit', `messages nested deeper than ${this.maxDepth} levels`, this.pos);
    const isBlob = type.name === 'BlobProto' && type.parent?.name === 'caffe';
    const blobSegments: Map<number, BlobEntry> | null = isBlob ? new Map() : null;
    while (this.pos < end) {
      const keyAt = this.pos;
      this.varint(end);
      if (this.hi !== 0 || this.lo > 0xffffffff) this.fail('corrupt', 'a field key is out of range', keyAt);
      const key = this.lo;
      const fieldNo = key >>> 3;
      const wire = key & 7;
      if (fieldNo === 0) this.fail('corrupt', 'field number 0 is not valid (the bytes are not a protobuf message here)', keyAt);
      if (blobSegments && BLOB_VALUE_FIELDS[fieldNo]) {
        this.blobValues(fieldNo, wire, end, blobSegments, keyAt);
        continue;
      }
      if (blobSegments && this.skeleton && fieldNo === SKELETON_FIELD && wire === 2) {
        this.absentValues(end, into, keyAt);
        continue;
      }
      const field = type.fieldsById[fieldNo];
      if (!field) {
        this.skip(wire, end, keyAt, fieldNo);
        continue;
      }
      const msgType = messageTypeOf(field);
      if (msgType) {
        if (wire !== 2) this.wrongWire(field, wire, keyAt);
        if (field.repeated) {
          let arr = into[field.name] as ProtoMessage[] | undefined;
          if (!arr) {
            arr = [];
            into[field.name] = arr;
          }
          if (layerOffsets && this.depth === 1 && (field.name === 'layer' || field.name === 'layers')) layerOffsets[field.name].push(this.at(keyAt));
          this.path.push({ name: field.name, index: arr.length });
          const len = this.length(end, `message field '${field.name}'`);
          const stop = this.pos + len;
          const m: ProtoMessage = {};
          arr.push(m);
          this.decode(msgType, stop, m);
          if (this.pos !== stop) this.fail('corrupt', `message field '${field.name}' does not end where its length says`, this.pos);
          this.path.pop();
        } else {
          const existing = into[field.name];
          const m: ProtoMessage = isMessage(existing) ? existing : {};
          into[field.name] = m;
          this.path.push({ name: field.name, index: -1 });
          const len = this.length(end, `message field '${field.name}'`);
          const stop = this.pos + len;
          this.decode(msgType, stop, m);
          if (this.pos !== stop) this.fail('corrupt', `message field '${field.name}' does not end where its length says`, this.pos);
          this.path.pop();
        }
        continue;
      }
      const scalarWire = enumOf(field) ? 0 : WIRE_OF_TYPE[field.type];
      if (scalarWire === undefined) {
        this.skip(wire, end, keyAt, fieldNo);
        continue;
      }
      if (field.repeated && wire === 2 && scalarWire !== 2) {
        // packed
        const len = this.length(end, `packed field '${field.name}'`);
        const stop = this.pos + len;
        let arr = into[field.name] as ProtoScalar[] | undefined;
        if (!arr) {
          arr = [];
          into[field.name] = arr;
        }
        while (this.pos < stop) {
          const v = this.scalar(field, scalarWire, stop);
          if (v !== undefined) arr.push(v);
        }
        continue;
      }
      if (wire !== scalarWire) this.wrongWire(field, wire, keyAt);
      const v = this.scalar(field, wire, end);
      if (v === undefined) continue;
      if (field.repeated) {
        const arr = into[field.name] as ProtoScalar[] | undefined;
        if (arr) arr.push(v);
        else into[field.name] = [v];
      } else {
        into[field.name] = v;
      }
    }
    if (blobSegments) {
      for (const [no, s] of blobSegments) {
        flushPending(s);
        into[BLOB_VALUE_FIELDS[no]!.name] = new BlobValues(BLOB_VALUE_FIELDS[no]!.kind, s.segs, s.count, s.offset);
      }
    }
    this.depth--;
    return into;
  }

  /** A skeleton's marker: a value field of the file that was not read (which field, bytes, file offset, half count). */
  private absentValues(end: number, into: ProtoMessage, keyAt: number): void {
    const len = this.length(end, 'a skeleton marker');
    const stop = this.pos + len;
    const v: number[] = [];
    while (this.pos < stop) {
      this.varint(stop);
      this.varint(stop);
      v.push(this.unsigned());
    }
    const [fieldNo = 0, bytes = 0, offset = 0, halves = 0] = v;
    const info = BLOB_VALUE_FIELDS[fieldNo];
    if (!info) this.fail('corrupt', `a skeleton marker names field ${fieldNo}, which holds no blob values`, keyAt);
    const size = info.kind === 'float' ? 4 : info.kind === 'double' ? 8 : 0;
    if (size && bytes % size !== 0) throw new FormatError({ kind: 'corrupt', file: this.file, offset, path: this.pathText(), message: `blob field '${info.name}' holds ${bytes} bytes, not a whole number of ${info.kind} values` });
    into[info.name] = BlobValues.absent(info.kind, size ? bytes / size : halves, offset, bytes);
  }

  private wrongWire(field: protobuf.Field, wire: number, at: number): never {
    this.fail('corrupt', `field '${field.name}' (${field.type}) has wire type ${wire}, which does not fit its type`, at);
  }

  private blobValues(fieldNo: number, wire: number, end: number, map: Map<number, BlobEntry>, keyAt: number): void {
    const info = BLOB_VALUE_FIELDS[fieldNo]!;
    let entry = map.get(fieldNo);
    if (!entry) {
      entry = { segs: [], pending: [], count: 0, offset: -1 };
      map.set(fieldNo, entry);
    }
    const size = info.kind === 'float' ? 4 : info.kind === 'double' ? 8 : 0;
    if (wire === 2) {
      const len = this.length(end, `blob field '${info.name}'`);
      if (size && len % size !== 0) this.fail('corrupt', `blob field '${info.name}' holds ${len} bytes, not a whole number of ${info.kind} values`, keyAt);
      const view = this.bytes.subarray(this.pos, this.pos + len);
      let count = size ? len / size : 0;
      if (!size) {
        // half: count the varints (each ends with a byte below 0x80)
        for (let i = 0; i < len; i++) if (view[i]! < 0x80) count++;
        if (len && view[len - 1]! >= 0x80) this.fail('truncated', `blob field '${info.name}' ends inside a varint`, this.pos + len - 1);
      }
      if (entry.offset < 0) entry.offset = this.at(this.pos);
      flushPending(entry);
      entry.segs.push(view);
      entry.count += count;
      this.pos += len;
      return;
    }
    const expected = info.kind === 'float' ? 5 : info.kind === 'double' ? 1 : 0;
    if (wire !== expected) this.fail('corrupt', `blob field '${info.name}' has wire type ${wire}, which does not fit ${info.kind} values`, keyAt);
    let value: number;
    if (info.kind === 'half') {
      this.varint(end);
      value = float16FromBits(this.lo & 0xffff);
    } else {
      if (end - this.pos < size) this.fail('truncated', `a ${info.kind} value of '${info.name}' runs past the end`, this.pos);
      const dv = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, size);
      value = size === 4 ? dv.getFloat32(0, true) : dv.getFloat64(0, true);
      this.pos += size;
    }
    entry.pending.push(value);
    if (entry.offset < 0) entry.offset = this.at(keyAt);
    entry.count++;
  }

  private skip(wire: number, end: number, keyAt: number, fieldNo: number): void {
    switch (wire) {
      case 0:
        this.varint(end);
        return;
      case 1:
        if (end - this.pos < 8) this.fail('truncated', `field ${fieldNo} (fixed64) runs past the end`, keyAt);
        this.pos += 8;
        return;
      case 2: {
        const len = this.length(end, `field ${fieldNo}`);
        this.pos += len;
        return;
      }
      case 5:
        if (end - this.pos < 4) this.fail('truncated', `field ${fieldNo} (fixed32) runs past the end`, keyAt);
        this.pos += 4;
        return;
      default:
        this.fail('corrupt', `field ${fieldNo} has wire type ${wire}, which caffe.proto never uses (groups) or which does not exist`, keyAt);
    }
  }

  private scalar(field: protobuf.Field, wire: number, end: number): ProtoScalar | undefined {
    const at = this.pos;
    switch (wire) {
      case 0: {
        this.varint(end);
        const en = enumOf(field);
        if (en) {
          const n = this.lo | 0;
          const name = en.valuesById[n];
          if (name === undefined) {
            this.diagnostics.push({ severity: 'warning', file: this.file, offset: this.at(at), path: this.pathText(), message: `value ${n} of field '${field.name}' is not in enum ${en.name}; ignored` });
            return undefined;
          }
          return name;
        }
        switch (field.type) {
          case 'bool':
            return this.lo !== 0 || this.hi !== 0;
          case 'int32':
            return this.lo | 0;
          case 'uint32':
            return this.lo;
          case 'sint32':
            return (this.lo >>> 1) ^ -(this.lo & 1);
          case 'uint64':
            return int64Value(this.lo, this.hi, false);
          case 'int64':
            return int64Value(this.lo, this.hi, true);
          case 'sint64': {
            // zigzag over 64 bits
            const u = (BigInt(this.hi) << 32n) | BigInt(this.lo);
            const v = (u >> 1n) ^ -(u & 1n);
            const n = Number(v);
            return Number.isSafeInteger(n) ? n : v.toString();
          }
          default:
            return this.unsigned();
        }
      }
      case 5: {
        if (end - this.pos < 4) this.fail('truncated', `field '${field.name}' runs past the end`, at);
        const dv = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 4);
        this.pos += 4;
        if (field.type === 'float') return dv.getFloat32(0, true);
        if (field.type === 'sfixed32') return dv.getInt32(0, true);
        return dv.getUint32(0, true);
      }
      case 1: {
        if (end - this.pos < 8) this.fail('truncated', `field '${field.name}' runs past the end`, at);
        const dv = new DataView(this.bytes.buffer, this.bytes.byteOffset + this.pos, 8);
        this.pos += 8;
        if (field.type === 'double') return dv.getFloat64(0, true);
        const lo = dv.getUint32(0, true);
        const hi = dv.getUint32(4, true);
        return int64Value(lo, hi, field.type === 'sfixed64');
      }
      case 2: {
        const len = this.length(end, `field '${field.name}'`);
        const view = this.bytes.subarray(this.pos, this.pos + len);
        this.pos += len;
        return field.type === 'bytes' ? view : utf8.decode(view);
      }
      default:
        return undefined;
    }
  }
}

function int64Value(lo: number, hi: number, signed: boolean): number | string {
  if (signed && hi & 0x80000000) {
    const v = ((BigInt(hi) << 32n) | BigInt(lo)) - (1n << 64n);
    const n = Number(v);
    return Number.isSafeInteger(n) ? n : v.toString();
  }
  const n = hi * 4294967296 + lo;
  if (Number.isSafeInteger(n)) return n;
  return ((BigInt(hi) << 32n) | BigInt(lo)).toString();
}

/** Decodes `bytes` as a binary message of caffe type `typeName` (default NetParameter). */
export function decodeBinary(bytes: Uint8Array, file: string, typeName = 'NetParameter', options: DecodeOptions = {}): DecodeResult {
  const src = options.skeleton ? options.skeleton.bytes : bytes;
  const d = new Decoder(src, file, options.maxDepth ?? 100, options.skeleton ?? null);
  const layerOffsets = { layer: [] as number[], layers: [] as number[] };
  const message = d.decode(caffeType(typeName), src.length, {}, layerOffsets);
  return { message, diagnostics: d.diagnostics, layerOffsets };
}
