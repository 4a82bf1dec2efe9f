/**
 * Tensor fillers of ONE recipes: `filler { tag: "explicit" | "constant" | "gaussian" arg: ... }`
 * -> the little-endian bytes of a constant tensor's buffer.
 *
 * Argument parsing follows what tflchef accepts (C++ stof/stoi/stoll read a numeric prefix;
 * booleans are T/t/TRUE/true/1 and F/f/FALSE/false/0), but rejects text with no number at all.
 * `gaussian` draws from a PRNG seeded by the operand name, so every build of a recipe gives the
 * same bytes (tflchef seeds from the clock, so its values are not reproducible anyway).
 */
import type { TextMessage } from '../textproto';
import { seededRandom } from '../random';
import { writeFloat16LE } from '../fp16';

/** Reports a bad filler; `argIndex` names the offending `arg` when there is one. */
export type FillFail = (message: string, argIndex?: number) => never;

/** Largest constant a recipe may ask for (hostile input guard). */
export const MAX_FILL_BYTES = 512 * 1024 * 1024;

interface Kind {
  size: number;
  write(view: DataView, offset: number, value: number | bigint | boolean): void;
  parse(text: string, fail: (m: string) => never): number | bigint | boolean;
  /** converts a gaussian sample; absent = gaussian not supported for this type */
  fromGaussian?: (x: number) => number;
}

const FLOAT_PREFIX = /^\s*[+-]?(?:inf(?:inity)?|nan|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?)/i;
const INT_PREFIX = /^\s*[+-]?\d+/;

function parseFloatPrefix(text: string, fail: (m: string) => never): number {
  const m = FLOAT_PREFIX.exec(text);
  if (!m) fail(`'${text}' is not a number`);
  const s = m[0].trim().toLowerCase();
  const sign = s.startsWith('-') ? -1 : 1;
  const body = s.replace(/^[+-]/, '');
  if (body.startsWith('inf')) return sign * Infinity;
  if (body === 'nan') return NaN;
  return Number(s);
}

function parseIntPrefix(text: string, min: bigint, max: bigint, what: string, fail: (m: string) => never): bigint {
  const m = INT_PREFIX.exec(text);
  if (!m) fail(`'${text}' is not an integer`);
  const v = BigInt(m[0].trim());
  if (v < min || v > max) fail(`${text} is out of range for ${what}`);
  return v;
}

function intKind(size: number, signed: boolean, what: string): Kind {
  const bits = BigInt(size * 8);
  const min = signed ? -(2n ** (bits - 1n)) : 0n;
  const max = signed ? 2n ** (bits - 1n) - 1n : 2n ** bits - 1n;
  const lo = Number(min);
  const hi = Number(max);
  return {
    size,
    parse: (t, fail) => {
      const v = parseIntPrefix(t, min, max, what, fail);
      return size === 8 ? v : Number(v);
    },
    write: (view, o, v) => {
      const n = typeof v === 'boolean' ? (v ? 1 : 0) : v;
      switch (size) {
        case 1:
          if (signed) view.setInt8(o, Number(n));
          else view.setUint8(o, Number(n));
          break;
        case 2:
          view.setInt16(o, Number(n), true);
          break;
        case 4:
          view.setInt32(o, Number(n), true);
          break;
        default:
          view.setBigInt64(o, BigInt(n), true);
      }
    },
    // C++ casts truncate toward zero; narrow types are clamped to their range
    fromGaussian: (x) => Math.min(hi, Math.max(lo, Math.trunc(x))),
  };
}

const KINDS: Record<string, Kind> = {
  FLOAT32: {
    size: 4,
    parse: parseFloatPrefix,
    write: (view, o, v) => view.setFloat32(o, Number(v), true),
    fromGaussian: (x) => x,
  },
  FLOAT16: {
    size: 2,
    parse: parseFloatPrefix,
    write: (view, o, v) => writeFloat16LE(view, o, Number(v)),
    fromGaussian: (x) => x,
  },
  INT32: intKind(4, true, 'INT32'),
  INT64: intKind(8, true, 'INT64'),
  INT16: intKind(2, true, 'INT16'),
  INT8: intKind(1, true, 'INT8'),
  UINT8: intKind(1, false, 'UINT8'),
  BOOL: {
    size: 1,
    parse: (t, fail) => {
      if (t === 'T' || t === 't' || t === 'TRUE' || t === 'true' || t === '1') return true;
      if (t === 'F' || t === 'f' || t === 'FALSE' || t === 'false' || t === '0') return false;
      return fail(`'${t}' is not a boolean (T/F, true/false, 1/0)`);
    },
    write: (view, o, v) => view.setUint8(o, v === true || v === 1 || v === 1n ? 1 : 0),
  },
};

/** FNV-1a of a string: the gaussian filler's seed. */
function seedOf(name: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < name.length; i++) {
    h ^= name.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/**
 * Normal samples (Marsaglia's polar form of Box-Muller: no trig, so it is quick for big weight
 * tensors) from a seeded PRNG, into `out` (a new Float64Array by default).
 */
export function gaussianSamples(count: number, mean: number, stddev: number, seed: number, out: Float64Array | Float32Array = new Float64Array(count)): Float64Array | Float32Array {
  const rand = seededRandom(seed);
  for (let i = 0; i < count; i += 2) {
    let u = 0;
    let v = 0;
    let s = 0;
    do {
      u = 2 * rand() - 1;
      v = 2 * rand() - 1;
      s = u * u + v * v;
    } while (s >= 1 || s === 0);
    const f = Math.sqrt((-2 * Math.log(s)) / s);
    out[i] = mean + stddev * u * f;
    if (i + 1 < count) out[i + 1] = mean + stddev * v * f;
  }
  return out;
}

function stringTensor(values: string[]): Uint8Array {
  // TFLite string tensor: int32 count, int32 offsets[count + 1] (from the buffer start), bytes
  const enc = new TextEncoder();
  const bytes = values.map((v) => enc.encode(v));
  const header = 4 * (values.length + 2);
  const total = header + bytes.reduce((a, b) => a + b.length, 0);
  const out = new Uint8Array(total);
  const view = new DataView(out.buffer);
  view.setInt32(0, values.length, true);
  let off = header;
  bytes.forEach((b, i) => {
    view.setInt32(4 * (i + 1), off, true);
    out.set(b, off);
    off += b.length;
  });
  view.setInt32(4 * (values.length + 1), off, true);
  return out;
}

/** The bytes of a constant operand of `type` (a tflchef TensorType name) and `shape`. */
export function fillTensor(filler: TextMessage, type: string, shape: number[], operandName: string, fail: FillFail): Uint8Array {
  const tag = filler.tag;
  const args = (filler.arg as string[] | undefined) ?? [];
  if (typeof tag !== 'string') return fail('filler has no tag');
  const elements = shape.reduce((a, d) => a * d, 1);
  const count = elements > 0 ? elements : args.length;

  if (type === 'STRING') {
    if (tag !== 'explicit') return fail(`filler '${tag}' is not available for STRING (only 'explicit')`);
    return stringTensor(Array.from({ length: count }, (_, i) => args[i] ?? ''));
  }
  const kind = KINDS[type];
  if (!kind) return fail(`fillers are not available for type ${type}`);
  if (count * kind.size > MAX_FILL_BYTES) return fail(`filler would make ${count * kind.size} bytes, more than this chef accepts (${MAX_FILL_BYTES})`);
  const out = new Uint8Array(count * kind.size);
  const view = new DataView(out.buffer);
  const parseArg = (i: number) => kind.parse(args[i]!, (m) => fail(m, i));

  switch (tag) {
    case 'explicit': {
      const values = args.map((_, i) => parseArg(i));
      // elements past the given arguments stay zero, as tflchef pads them
      for (let i = 0; i < Math.min(count, values.length); i++) kind.write(view, i * kind.size, values[i]!);
      return out;
    }
    case 'constant': {
      if (args.length < 1) return fail("filler 'constant' needs one arg (the value)");
      const v = parseArg(0);
      for (let i = 0; i < count; i++) kind.write(view, i * kind.size, v);
      return out;
    }
    case 'gaussian': {
      if (!kind.fromGaussian) return fail(`filler 'gaussian' is not available for type ${type}`);
      if (args.length < 2) return fail("filler 'gaussian' needs two args (mean, stddev)");
      const mean = parseFloatPrefix(args[0]!, (m) => fail(m, 0));
      const stddev = parseFloatPrefix(args[1]!, (m) => fail(m, 1));
      if (type === 'FLOAT32' && LITTLE_ENDIAN) {
        // fast path for big weight tensors: sample straight into the buffer
        gaussianSamples(count, mean, stddev, seedOf(operandName), new Float32Array(out.buffer));
        return out;
      }
      const samples = gaussianSamples(count, mean, stddev, seedOf(operandName));
      const conv = kind.fromGaussian;
      for (let i = 0; i < count; i++) {
        const x = conv(samples[i]!);
        kind.write(view, i * kind.size, kind.size === 8 ? BigInt(x) : x);
      }
      return out;
    }
    default:
      return fail(`unknown filler '${tag}' (explicit, constant or gaussian)`);
  }
}
