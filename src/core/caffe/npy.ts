/**
 * NumPy `.npy` arrays and `.npz` archives (a zip of `.npy` members, fflate), for run inputs and
 * outputs. Written by hand because no maintained npm package reads and writes both in the browser
 * and Node with typed errors (npyjs reads .npy only and fetches by URL).
 *
 * Format (numpy.lib.format): magic `\x93NUMPY`, version major.minor, header length (uint16 for
 * 1.0, uint32 for 2.0 / 3.0), a Python dict literal `{'descr': '<f4', 'fortran_order': False,
 * 'shape': (1, 3), }` padded with spaces to a multiple of 64 bytes and ended by `\n`, then the data.
 */
import { unzipSync, zipSync } from 'fflate';
import { FormatError } from '../errors';
import { float16FromBits } from '../fp16';

export interface NpyArray {
  shape: number[];
  /** values converted to float32 */
  data: Float32Array;
  /** dtype as stored, e.g. `<f4` */
  dtype: string;
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59];

function fail(file: string, offset: number, message: string, kind: 'corrupt' | 'truncated' | 'unsupported' = 'corrupt'): never {
  throw new FormatError({ kind, file, offset, message });
}

export function isNpy(bytes: Uint8Array): boolean {
  return bytes.length >= 6 && MAGIC.every((b, i) => bytes[i] === b);
}

export function readNpy(bytes: Uint8Array, file: string): NpyArray {
  if (!isNpy(bytes)) fail(file, 0, 'not a NumPy .npy file (the magic \\x93NUMPY is missing)', 'unsupported');
  if (bytes.length < 10) fail(file, bytes.length, 'the header is cut short', 'truncated');
  const major = bytes[6]!;
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let headerLen: number;
  let start: number;
  if (major === 1) {
    headerLen = dv.getUint16(8, true);
    start = 10;
  } else if (major === 2 || major === 3) {
    if (bytes.length < 12) fail(file, bytes.length, 'the header is cut short', 'truncated');
    headerLen = dv.getUint32(8, true);
    start = 12;
  } else fail(file, 6, `.npy format version ${major} is not one this reader knows (1, 2 or 3)`, 'unsupported');
  if (start + headerLen > bytes.length) fail(file, start, `the header declares ${headerLen} bytes but the file ends first`, 'truncated');
  const header = new TextDecoder(major === 3 ? 'utf-8' : 'latin1').decode(bytes.subarray(start, start + headerLen));
  const descr = /'descr'\s*:\s*'([^']*)'/.exec(header)?.[1];
  const fortran = /'fortran_order'\s*:\s*(True|False)/.exec(header)?.[1];
  const shapeText = /'shape'\s*:\s*\(([^)]*)\)/.exec(header)?.[1];
  if (descr === undefined || fortran === undefined || shapeText === undefined) fail(file, start, 'the header does not hold descr, fortran_order and shape');
  if (fortran === 'True') fail(file, start, 'Fortran-ordered arrays are not supported; save the array in C order', 'unsupported');
  const shape = shapeText
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s.length > 0)
    .map((s) => {
      if (!/^\d+L?$/.test(s)) fail(file, start, `shape entry '${s}' is not a non-negative integer`);
      return Number.parseInt(s, 10);
    });
  const n = shape.reduce((a, b) => a * b, 1);
  if (!Number.isSafeInteger(n)) fail(file, start, 'the shape holds too many elements', 'corrupt');
  const dataStart = start + headerLen;
  const sizes: Record<string, number> = { f4: 4, f8: 8, f2: 2, i1: 1, u1: 1, b1: 1, i2: 2, u2: 2, i4: 4, u4: 4, i8: 8, u8: 8 };
  const order = descr[0];
  const code = descr.slice(1);
  const size = sizes[code];
  if (size === undefined || (order !== '<' && order !== '|' && order !== '=' && !(order === '>' && size === 1))) {
    fail(file, start, `dtype '${descr}' is not supported (little-endian floats, integers or bools)`, 'unsupported');
  }
  if (dataStart + n * size > bytes.length) fail(file, dataStart, `the data needs ${n * size} bytes but ${bytes.length - dataStart} remain`, 'truncated');
  const out = new Float32Array(n);
  const body = new DataView(bytes.buffer, bytes.byteOffset + dataStart, n * size);
  for (let i = 0; i < n; i++) {
    const o = i * size;
    switch (code) {
      case 'f4': out[i] = body.getFloat32(o, true); break;
      case 'f8': out[i] = body.getFloat64(o, true); break;
      case 'f2': out[i] = float16FromBits(body.getUint16(o, true)); break;
      case 'i1': out[i] = body.getInt8(o); break;
      case 'u1': case 'b1': out[i] = body.getUint8(o); break;
      case 'i2': out[i] = body.getInt16(o, true); break;
      case 'u2': out[i] = body.getUint16(o, true); break;
      case 'i4': out[i] = body.getInt32(o, true); break;
      case 'u4': out[i] = body.getUint32(o, true); break;
      case 'i8': out[i] = Number(body.getBigInt64(o, true)); break;
      case 'u8': out[i] = Number(body.getBigUint64(o, true)); break;
    }
  }
  return { shape, data: out, dtype: descr };
}

/** A float32 `.npy` (format 1.0), as numpy.save writes it. */
export function writeNpy(shape: readonly number[], data: Float32Array): Uint8Array {
  const bytes = new Uint8Array(data.length * 4);
  const body = new DataView(bytes.buffer);
  for (let i = 0; i < data.length; i++) body.setFloat32(i * 4, data[i]!, true);
  return writeNpyBytes('<f4', shape, bytes);
}

/**
 * A `.npy` (format 1.0) of any dtype from its element bytes as stored (little-endian, C order):
 * `descr` is NumPy's, e.g. `<f4`, `|i1`, `|b1`.
 */
export function writeNpyBytes(descr: string, shape: readonly number[], data: Uint8Array): Uint8Array {
  const shapeText = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  let header = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shapeText}, }`;
  const total = 10 + header.length + 1;
  header += ' '.repeat((64 - (total % 64)) % 64) + '\n';
  const out = new Uint8Array(10 + header.length + data.length);
  out.set(MAGIC, 0);
  out[6] = 1;
  out[7] = 0;
  new DataView(out.buffer).setUint16(8, header.length, true);
  for (let i = 0; i < header.length; i++) out[10 + i] = header.charCodeAt(i);
  out.set(data, 10 + header.length);
  return out;
}

/**
 * `.npz`: member `<key>.npy` per array, stored uncompressed (as numpy.savez). Every member is
 * dated 1980-01-01 (the zip format's first day) rather than now, so the same run writes the same
 * bytes (numpy stamps the current time; nothing reads it).
 */
export function writeNpz(arrays: Iterable<[string, { shape: readonly number[]; data: Float32Array }]>): Uint8Array {
  const files: Record<string, [Uint8Array, { level: 0; mtime: Date }]> = {};
  const mtime = new Date(1980, 0, 1);
  for (const [key, a] of arrays) files[`${key}.npy`] = [writeNpy(a.shape, a.data), { level: 0, mtime }];
  return zipSync(files);
}

export function readNpz(bytes: Uint8Array, file: string): Map<string, NpyArray> {
  let entries: Record<string, Uint8Array>;
  try {
    entries = unzipSync(bytes);
  } catch (e) {
    fail(file, 0, `not a readable .npz (zip) archive: ${e instanceof Error ? e.message : String(e)}`);
  }
  const out = new Map<string, NpyArray>();
  for (const [name, member] of Object.entries(entries)) {
    if (!name.endsWith('.npy')) continue;
    out.set(name.slice(0, -4), readNpy(member, `${file}:${name}`));
  }
  return out;
}
