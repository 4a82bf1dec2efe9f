/**
 * The skeleton of a large `.caffemodel`: the file's structure (layers, names, types, shapes,
 * every parameter) without its blob values, read piece by piece, so the graph of a 500 MB model
 * is on screen before its weights are read (caffe.md 4.3: "structure of a 500 MB model should
 * appear within 2 s"). The worker opens the document from the skeleton, then reads the whole file
 * in the background and opens it again (core/format.ts `FormatEntry.skeleton`).
 *
 * The skeleton is a protobuf message of its own: every field is copied as it is, except that
 * (1) a message field of at least `SKELETON_MIN_BYTES` is walked into and written again with its
 * new length, and (2) a blob value field (BlobProto data / diff / double_data / double_diff /
 * half_data / half_diff) of at least that size becomes a marker field (`SKELETON_FIELD`) saying
 * which field it was, its byte length, its offset in the file and (half values) its count;
 * wire.ts, told that it decodes a skeleton, turns the marker into `BlobValues` that know their
 * count and size but hold no values. `offsets` maps skeleton offsets back to the file's, so
 * messages about a layer name the file's bytes.
 */
import type protobuf from 'protobufjs/light.js';
import { FormatError } from '../errors';
import { caffeType, messageTypeOf } from './schema';

/** A field (message or blob values) at least this long is walked into or left out; shorter ones are copied. */
export const SKELETON_MIN_BYTES = 1 << 16;
/** The BlobProto field number of a left-out value field in a skeleton (caffe.proto uses 1..11). */
export const SKELETON_FIELD = 9999;
/** BlobProto fields holding values (wire.ts: BLOB_VALUE_FIELDS). */
const VALUE_FIELDS = new Set([5, 6, 8, 9, 10, 11]);
/** Bytes read at a time while walking the structure. */
const WINDOW = 1 << 16;

/** A file read piece by piece (a browser `File` through `slice`, a Node file handle). */
export interface RandomAccessFile {
  name: string;
  size: number;
  read(offset: number, length: number): Promise<Uint8Array>;
}

export interface Skeleton {
  /** the rewritten message */
  bytes: Uint8Array;
  /** skeleton offset -> file offset, as ascending [skeleton start, file start] pairs of copied runs */
  offsets: [number, number][];
}

/** First bytes of a packed skeleton (`packSkeleton`), which no protobuf message starts with (field 0). */
const MAGIC = [0x00, 0x4e, 0x50, 0x55, 0x53, 0x4b, 0x45, 0x4c]; // \0NPUSKEL

/**
 * A skeleton as one byte array: MAGIC, the number of offset pairs (u32 LE), the pairs (f64 LE),
 * then the message. This is what `FormatEntry.skeleton` hands the document.
 */
export function packSkeleton(s: Skeleton): Uint8Array {
  const head = 8 + 4 + s.offsets.length * 16;
  const out = new Uint8Array(head + s.bytes.length);
  out.set(MAGIC, 0);
  const dv = new DataView(out.buffer);
  dv.setUint32(8, s.offsets.length, true);
  s.offsets.forEach(([a, b], i) => {
    dv.setFloat64(12 + i * 16, a, true);
    dv.setFloat64(20 + i * 16, b, true);
  });
  out.set(s.bytes, head);
  return out;
}

/** A packed skeleton's parts, or null when `bytes` is not one. */
export function unpackSkeleton(bytes: Uint8Array): Skeleton | null {
  if (bytes.length < 12 || MAGIC.some((m, i) => bytes[i] !== m)) return null;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = dv.getUint32(8, true);
  const head = 12 + n * 16;
  if (head > bytes.length) return null;
  const offsets: [number, number][] = [];
  for (let i = 0; i < n; i++) offsets.push([dv.getFloat64(12 + i * 16, true), dv.getFloat64(20 + i * 16, true)]);
  return { bytes: bytes.subarray(head), offsets };
}

/** The file offset of a skeleton offset. */
export function fileOffset(s: Pick<Skeleton, 'offsets'>, offset: number): number {
  let lo = 0;
  let hi = s.offsets.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (s.offsets[mid]![0] <= offset) lo = mid;
    else hi = mid - 1;
  }
  const run = s.offsets[lo];
  return run ? run[1] + (offset - run[0]) : offset;
}

function varintBytes(v: number): number[] {
  const out: number[] = [];
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
  return out;
}

class Walker {
  private window: { start: number; bytes: Uint8Array } | null = null;
  private readonly parts: Uint8Array[] = [];
  private length = 0;
  readonly offsets: [number, number][] = [];
  private depth = 0;

  constructor(private readonly file: RandomAccessFile) {}

  private fail(kind: 'truncated' | 'corrupt' | 'limit', message: string, offset: number): never {
    throw new FormatError({ kind, file: this.file.name, offset, message });
  }

  private async byte(p: number): Promise<number> {
    const w = this.window;
    if (!w || p < w.start || p >= w.start + w.bytes.length) {
      const start = Math.max(0, p);
      this.window = { start, bytes: await this.file.read(start, Math.min(WINDOW, this.file.size - start)) };
      return this.window.bytes[0]!;
    }
    return w.bytes[p - w.start]!;
  }

  /** A varint at p (at most 2^53) and the position after it. */
  private async varint(p: number, end: number): Promise<[number, number]> {
    const start = p;
    let v = 0;
    let scale = 1;
    for (let i = 0; ; i++) {
      if (p >= end) this.fail('truncated', 'a varint runs past the end of its record', start);
      if (i >= 10) this.fail('corrupt', 'a varint is longer than 10 bytes', start);
      const c = await this.byte(p++);
      v += (c & 0x7f) * scale;
      scale *= 128;
      if (!(c & 0x80)) return [v, p];
    }
  }

  private emit(bytes: Uint8Array | number[], from: number | null): void {
    const b = bytes instanceof Uint8Array ? bytes : Uint8Array.from(bytes);
    if (from !== null) this.offsets.push([this.length, from]);
    this.parts.push(b);
    this.length += b.length;
  }

  /** Copies file bytes [start, end) into the skeleton. */
  private async copy(start: number, end: number): Promise<void> {
    if (end > start) this.emit(await this.file.read(start, end - start), start);
  }

  /** Rewrites the message of `type` in [start, end); returns its new length. */
  async message(type: protobuf.Type, start: number, end: number): Promise<number> {
    if (++this.depth > 100) this.fail('limit', 'messages nested deeper than 100 levels', start);
    const before = this.length;
    const isBlob = type.name === 'BlobProto';
    let p = start;
    while (p < end) {
      const keyAt = p;
      const [key, afterKey] = await this.varint(p, end);
      const fieldNo = Math.floor(key / 8);
      const wire = key % 8;
      p = afterKey;
      if (wire === 0) {
        p = (await this.varint(p, end))[1];
        await this.copy(keyAt, p);
      } else if (wire === 1 || wire === 5) {
        p += wire === 1 ? 8 : 4;
        if (p > end) this.fail('truncated', `field ${fieldNo} runs past the end`, keyAt);
        await this.copy(keyAt, p);
      } else if (wire === 2) {
        const [len, body] = await this.varint(p, end);
        if (len > end - body) this.fail('truncated', `field ${fieldNo} declares ${len} bytes but only ${end - body} remain in its enclosing record`, p);
        p = body + len;
        const field = type.fieldsById[fieldNo];
        const sub = field ? messageTypeOf(field) : null;
        if (isBlob && VALUE_FIELDS.has(fieldNo) && len >= SKELETON_MIN_BYTES) {
          // a left-out value field: which field, how many bytes, where (and for halves, how many values)
          let count = 0;
          if (fieldNo === 10 || fieldNo === 11) {
            const bytes = await this.file.read(body, len);
            for (const b of bytes) if (b < 0x80) count++;
          }
          const inner = [0x08, ...varintBytes(fieldNo), 0x10, ...varintBytes(len), 0x18, ...varintBytes(body), 0x20, ...varintBytes(count)];
          this.emit([...varintBytes(SKELETON_FIELD * 8 + 2), ...varintBytes(inner.length), ...inner], keyAt);
        } else if (sub && len >= SKELETON_MIN_BYTES) {
          // walk into a large message: its key, then its new length once its content is known
          const keyBytes = varintBytes(key);
          const headerAt = this.parts.length;
          this.emit(keyBytes, keyAt);
          this.parts.push(new Uint8Array(0)); // the length, filled in below
          const innerStart = this.length;
          const n = await this.message(sub, body, p);
          const lenBytes = Uint8Array.from(varintBytes(n));
          this.parts[headerAt + 1] = lenBytes;
          // the length's bytes shift every offset recorded inside the message
          for (const o of this.offsets) if (o[0] >= innerStart) o[0] += lenBytes.length;
          this.length += lenBytes.length;
        } else {
          await this.copy(keyAt, p);
        }
      } else {
        this.fail('corrupt', `field ${fieldNo} has wire type ${wire}, which caffe.proto never uses (groups) or which does not exist`, keyAt);
      }
    }
    this.depth--;
    return this.length - before;
  }

  result(): Skeleton {
    const bytes = new Uint8Array(this.length);
    let o = 0;
    for (const part of this.parts) {
      bytes.set(part, o);
      o += part.length;
    }
    return { bytes, offsets: this.offsets };
  }
}

/** The skeleton of a binary NetParameter (a `.caffemodel`). */
export async function caffemodelSkeleton(file: RandomAccessFile): Promise<Skeleton> {
  const w = new Walker(file);
  await w.message(caffeType('NetParameter'), 0, file.size);
  return w.result();
}
