/**
 * Deterministic pseudo-random weights for a deploy net, bit for bit the generator that
 * shared/tools/gen_caffemodel.py specifies in its docstring (so a bench or test can make the
 * same .caffemodel in TypeScript as the Python tool makes for OpenCV):
 *
 *   key(seed, layer, j) = FNV-1a-64 of the UTF-8 string `${seed}:${layer}:${j}` (j = blob index)
 *   element i: z = key + (i+1) * 0x9E3779B97F4A7C15 (mod 2^64), SplitMix64's two
 *   xor-shift-multiply rounds and a final xor-shift, u = (z >> 11) * 2^-53,
 *   value = float32(lo + (hi - lo) * u)
 *
 * with [lo, hi) by blob kind: conv / deconv / inner-product weights +-sqrt(6 / fan_in)
 * (fan_in = count / shape[0]), biases [-0.05, 0.05), BatchNorm mean [-0.1, 0.1), variance
 * [0.5, 1.5), moving-average factor exactly 1, Scale [0.5, 1.5), PReLU slope [0.05, 0.3).
 *
 * The file is a NetParameter with the net name and one V2 `layer` per non-Input layer (name,
 * type, bottom, top, then each blob as data (packed float) followed by shape), in canonical field
 * order. The 64-bit arithmetic runs on 32-bit halves (BigInt per element would take minutes for
 * VGG16's 138 M values).
 *
 * One deliberate difference: a channel-shared PReLU slope is written with Caffe's own blob shape
 * [] (a scalar), where the Python tool writes [1], which Caffe's CopyTrainedLayersFrom rejects.
 */
import { FormatError } from '../errors';
import { messages, strings, type ProtoMessage } from './proto';
import { buildNet } from './net';
import type { ParamKind, Shape } from './shapes';

const utf8 = new TextEncoder();

export function fnv1a64(s: string): bigint {
  let h = 0xcbf29ce484222325n;
  for (const b of utf8.encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h;
}

/** low 64 bits of (aHi:aLo) * (bHi:bLo), as [hi, lo] unsigned 32-bit halves */
function mul64(aHi: number, aLo: number, bHi: number, bLo: number, out: Uint32Array): void {
  const a0 = aLo & 0xffff;
  const a1 = aLo >>> 16;
  const b0 = bLo & 0xffff;
  const b1 = bLo >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  out[1] = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const carry = Math.floor(mid / 65536) + Math.floor(p01 / 65536) + Math.floor(p10 / 65536) + p11;
  out[0] = (carry + Math.imul(aHi, bLo) + Math.imul(aLo, bHi)) >>> 0;
}

const GOLDEN_HI = 0x9e3779b9;
const GOLDEN_LO = 0x7f4a7c15;
const MIX1_HI = 0xbf58476d;
const MIX1_LO = 0x1ce4e5b9;
const MIX2_HI = 0x94d049bb;
const MIX2_LO = 0x133111eb;

/** Writes `n` float32 values uniform in [lo, hi) for `key` into `out` (little-endian bytes at `offset`). */
export function uniformValues(key: bigint, n: number, lo: number, hi: number, out: DataView, offset: number): void {
  const span = hi - lo;
  let sHi = Number((key >> 32n) & 0xffffffffn);
  let sLo = Number(key & 0xffffffffn);
  const t = new Uint32Array(2);
  for (let i = 0; i < n; i++) {
    // s += GOLDEN (so s = key + (i+1) * GOLDEN)
    const lo32 = sLo + GOLDEN_LO;
    sLo = lo32 >>> 0;
    sHi = (sHi + GOLDEN_HI + (lo32 > 0xffffffff ? 1 : 0)) >>> 0;
    let zHi = sHi;
    let zLo = sLo;
    // z = (z ^ (z >> 30)) * MIX1
    zLo = (zLo ^ ((zLo >>> 30) | (zHi << 2))) >>> 0;
    zHi = (zHi ^ (zHi >>> 30)) >>> 0;
    mul64(zHi, zLo, MIX1_HI, MIX1_LO, t);
    zHi = t[0]!;
    zLo = t[1]!;
    // z = (z ^ (z >> 27)) * MIX2
    zLo = (zLo ^ ((zLo >>> 27) | (zHi << 5))) >>> 0;
    zHi = (zHi ^ (zHi >>> 27)) >>> 0;
    mul64(zHi, zLo, MIX2_HI, MIX2_LO, t);
    zHi = t[0]!;
    zLo = t[1]!;
    // z ^= z >> 31
    zLo = (zLo ^ ((zLo >>> 31) | (zHi << 1))) >>> 0;
    zHi = (zHi ^ (zHi >>> 31)) >>> 0;
    const u = (zHi * 2097152 + (zLo >>> 11)) * 2 ** -53;
    out.setFloat32(offset + i * 4, lo + span * u, true);
  }
}

/** [lo, hi) of a blob kind (gen_caffemodel.py's value_range). */
export function valueRange(kind: ParamKind, shape: Shape): [number, number] {
  switch (kind) {
    case 'weight': {
      const count = shape.reduce((a, b) => a * b, 1);
      const fanIn = Math.floor(count / shape[0]!);
      const a = Math.sqrt(6 / fanIn);
      return [-a, a];
    }
    case 'bias':
      return [-0.05, 0.05];
    case 'bn_mean':
      return [-0.1, 0.1];
    case 'bn_var':
      return [0.5, 1.5];
    case 'scale':
      return [0.5, 1.5];
    case 'prelu':
      return [0.05, 0.3];
    case 'bn_factor':
      return [1, 1];
  }
}

function varintSize(n: number): number {
  let s = 1;
  while (n >= 128) {
    n = Math.floor(n / 128);
    s++;
  }
  return s;
}

class ByteWriter {
  pos = 0;
  readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  varint(n: number): void {
    while (n >= 128) {
      this.bytes[this.pos++] = (n % 128) | 0x80;
      n = Math.floor(n / 128);
    }
    this.bytes[this.pos++] = n;
  }
  key(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }
  raw(b: Uint8Array): void {
    this.bytes.set(b, this.pos);
    this.pos += b.length;
  }
}

interface PlannedBlob {
  shape: Shape;
  kind: ParamKind;
  count: number;
  dimsBytes: number; // packed dims size
  shapeBytes: number; // BlobShape message size
  blobBytes: number; // BlobProto message size
}

interface PlannedLayer {
  head: Uint8Array; // name, type, bottom, top fields
  blobs: PlannedBlob[];
  name: string;
  bodyBytes: number;
}

function stringField(field: number, s: string): Uint8Array {
  const b = utf8.encode(s);
  const out = new Uint8Array(varintSize(field * 8 + 2) + varintSize(b.length) + b.length);
  const w = new ByteWriter(out);
  w.key(field, 2);
  w.varint(b.length);
  w.raw(b);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((a, p) => a + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

export interface GenerateOptions {
  seed?: number;
  file?: string;
  /**
   * 'zeros': the same file with every value 0 (moving-average factors still 1), made without the
   * generator's arithmetic: a fast stand-in where only the net's structure matters (tests)
   */
  fill?: 'random' | 'zeros';
}

/**
 * A .caffemodel with seeded random weights for an (upgraded, V2) deploy NetParameter. Throws a
 * FormatError naming the layer when a shape cannot be inferred.
 */
export function generateCaffemodel(netParam: ProtoMessage, options: GenerateOptions = {}): Uint8Array {
  const seed = options.seed ?? 1;
  const file = options.file ?? 'net';
  const zeros = options.fill === 'zeros';
  const net = buildNet(netParam, { file });
  const planned: PlannedLayer[] = [];
  for (const layer of net.layers) {
    if (layer.type === 'Input') continue;
    if (layer.expected === null) {
      throw new FormatError({ kind: 'unsupported', file, ...layer.source, message: `cannot generate weights for layer '${layer.name}' (${layer.type}): ${layer.shapeProblem ?? 'its shapes are unknown'}` });
    }
    const lp = messages(netParam, 'layer')[layer.index]!;
    const head = concat([
      ...(lp.name !== undefined ? [stringField(1, layer.name)] : []),
      ...(lp.type !== undefined ? [stringField(2, layer.type)] : []),
      ...strings(lp, 'bottom').map((b) => stringField(3, b)),
      ...strings(lp, 'top').map((t) => stringField(4, t)),
    ]);
    const blobs = layer.expected.map((p): PlannedBlob => {
      const shape = p.shape;
      const count = shape.reduce((a, b) => a * b, 1);
      const dimsBytes = shape.reduce((a, d) => a + varintSize(d), 0);
      const shapeBytes = shape.length ? 1 + varintSize(dimsBytes) + dimsBytes : 0;
      const blobBytes = 1 + varintSize(count * 4) + count * 4 + 1 + varintSize(shapeBytes) + shapeBytes;
      return { shape, kind: p.kind, count, dimsBytes, shapeBytes, blobBytes };
    });
    const bodyBytes = head.length + blobs.reduce((a, b) => a + 1 + varintSize(b.blobBytes) + b.blobBytes, 0);
    planned.push({ head, blobs, name: layer.name, bodyBytes });
  }
  const nameField = typeof netParam.name === 'string' ? stringField(1, netParam.name) : new Uint8Array(0);
  const total = nameField.length + planned.reduce((a, l) => a + 2 + varintSize(l.bodyBytes) + l.bodyBytes, 0);
  const out = new Uint8Array(total);
  const w = new ByteWriter(out);
  w.raw(nameField);
  for (const l of planned) {
    w.key(100, 2);
    w.varint(l.bodyBytes);
    w.raw(l.head);
    l.blobs.forEach((b, j) => {
      w.key(7, 2);
      w.varint(b.blobBytes);
      w.key(5, 2);
      w.varint(b.count * 4);
      if (b.kind === 'bn_factor') for (let i = 0; i < b.count; i++) w.view.setFloat32(w.pos + i * 4, 1, true);
      else if (zeros) out.fill(0, w.pos, w.pos + b.count * 4);
      else {
        const [lo, hi] = valueRange(b.kind, b.shape);
        uniformValues(fnv1a64(`${seed}:${l.name}:${j}`), b.count, lo, hi, w.view, w.pos);
      }
      w.pos += b.count * 4;
      w.key(7, 2);
      w.varint(b.shapeBytes);
      if (b.shape.length) {
        w.key(1, 2);
        w.varint(b.dimsBytes);
        for (const d of b.shape) w.varint(d);
      }
    });
  }
  if (w.pos !== total) throw new Error(`internal: caffemodel size planned ${total}, written ${w.pos}`);
  return out;
}
