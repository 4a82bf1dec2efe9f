/**
 * Tensor values of the reference interpreter: plain data (structured-clone safe), one typed array
 * per tensor in row-major order.
 *
 * Element storage per dtype:
 * - float32 / float64: Float32Array / Float64Array;
 * - float16: Float32Array holding the half-precision values (every value is exactly representable
 *   in binary16; results are rounded to it), as JavaScript has no portable Float16Array yet;
 * - int8 / int16 / int32 / uint8 / uint16 / uint32: the matching typed array;
 * - int64 / uint64: BigInt64Array / BigUint64Array (exact; arithmetic converts to number, exact
 *   up to 2^53);
 * - bool: Uint8Array of 0 and 1.
 */
import type { CircleModel, CircleTensor } from '../circle/model';
import { readFloat16LE, roundToFloat16 } from '../fp16';

export type DType =
  | 'float32'
  | 'float16'
  | 'float64'
  | 'int8'
  | 'int16'
  | 'int32'
  | 'int64'
  | 'uint8'
  | 'uint16'
  | 'uint32'
  | 'uint64'
  | 'bool';

export type NumberData = Float32Array | Float64Array | Int8Array | Int16Array | Int32Array | Uint8Array | Uint16Array | Uint32Array;
export type BigData = BigInt64Array | BigUint64Array;
export type TensorData = NumberData | BigData;

export interface TensorValue {
  dtype: DType;
  shape: number[];
  data: TensorData;
}

/** circle TensorType code -> dtype; null for types the interpreter does not hold (string, complex, 4-bit, ...). */
export function dtypeOfTensorType(type: number): DType | null {
  switch (type) {
    case 0:
      return 'float32';
    case 1:
      return 'float16';
    case 2:
      return 'int32';
    case 3:
      return 'uint8';
    case 4:
      return 'int64';
    case 6:
      return 'bool';
    case 7:
      return 'int16';
    case 9:
      return 'int8';
    case 10:
      return 'float64';
    case 12:
      return 'uint64';
    case 15:
      return 'uint32';
    case 16:
      return 'uint16';
    default:
      return null;
  }
}

/** Bytes per element as stored in a circle buffer. */
export function byteSize(dtype: DType): number {
  switch (dtype) {
    case 'float64':
    case 'int64':
    case 'uint64':
      return 8;
    case 'float32':
    case 'int32':
    case 'uint32':
      return 4;
    case 'float16':
    case 'int16':
    case 'uint16':
      return 2;
    default:
      return 1;
  }
}

export function isFloat(dtype: DType): boolean {
  return dtype === 'float32' || dtype === 'float16' || dtype === 'float64';
}

export function isBigData(data: TensorData): data is BigData {
  return data instanceof BigInt64Array || data instanceof BigUint64Array;
}

export function elementCount(shape: readonly number[]): number {
  let n = 1;
  for (const d of shape) n *= d;
  return n;
}

export function allocate(dtype: DType, n: number): TensorData {
  switch (dtype) {
    case 'float32':
    case 'float16':
      return new Float32Array(n);
    case 'float64':
      return new Float64Array(n);
    case 'int8':
      return new Int8Array(n);
    case 'int16':
      return new Int16Array(n);
    case 'int32':
      return new Int32Array(n);
    case 'int64':
      return new BigInt64Array(n);
    case 'uint8':
    case 'bool':
      return new Uint8Array(n);
    case 'uint16':
      return new Uint16Array(n);
    case 'uint32':
      return new Uint32Array(n);
    case 'uint64':
      return new BigUint64Array(n);
  }
}

/** The elements as numbers (int64 exact up to 2^53). */
export function toNumbers(t: TensorValue): Float64Array {
  const d = t.data;
  const out = new Float64Array(d.length);
  if (isBigData(d)) for (let i = 0; i < d.length; i++) out[i] = Number(d[i]);
  else out.set(d);
  return out;
}

/** A tensor of `dtype` from numbers: floats rounded to their precision, integers truncated and wrapped, bool = non-zero. */
export function fromNumbers(dtype: DType, shape: number[], values: ArrayLike<number>): TensorValue {
  const n = values.length;
  const data = allocate(dtype, n);
  if (isBigData(data)) {
    for (let i = 0; i < n; i++) {
      const v = values[i]!;
      data[i] = Number.isFinite(v) ? BigInt(Math.trunc(v)) : 0n;
    }
  } else if (dtype === 'bool') {
    for (let i = 0; i < n; i++) data[i] = values[i] !== 0 ? 1 : 0;
  } else if (dtype === 'float16') {
    for (let i = 0; i < n; i++) data[i] = roundToFloat16(values[i]!);
  } else if (isFloat(dtype)) {
    data.set(values);
  } else {
    // typed-array stores wrap modulo 2^bits after truncation; NaN/infinity store 0
    for (let i = 0; i < n; i++) data[i] = Math.trunc(values[i]!);
  }
  return { dtype, shape: [...shape], data };
}

export function scalarOf(t: TensorValue, i = 0): number {
  const v = t.data[i];
  return typeof v === 'bigint' ? Number(v) : (v ?? NaN);
}

/** Copy out[i] = src[index[i]] (any dtype, bigint included). */
export function gather(t: TensorValue, shape: number[], index: ArrayLike<number>): TensorValue {
  const src = t.data;
  const n = index.length;
  const out = allocate(t.dtype, n);
  if (isBigData(src)) {
    const o = out as BigData;
    for (let i = 0; i < n; i++) o[i] = src[index[i]!]!;
  } else {
    const o = out as NumberData;
    for (let i = 0; i < n; i++) o[i] = src[index[i]!]!;
  }
  return { dtype: t.dtype, shape: [...shape], data: out };
}

export function stridesOf(shape: readonly number[]): number[] {
  const s = new Array<number>(shape.length);
  let acc = 1;
  for (let i = shape.length - 1; i >= 0; i--) {
    s[i] = acc;
    acc *= shape[i]!;
  }
  return s;
}

/**
 * Decode the constant data of a tensor (little-endian, any alignment). Returns null when the
 * tensor has no inline data.
 */
export function decodeConstant(model: CircleModel, tensor: CircleTensor, dtype: DType): TensorValue | null {
  const buffer = model.buffers[tensor.buffer];
  if (!buffer || !buffer.data || buffer.data.length === 0) return null;
  const bytes = buffer.data;
  const shape = [...tensor.shape];
  const n = elementCount(shape);
  const size = byteSize(dtype);
  if (bytes.length < n * size) throw new RangeError(`buffer ${tensor.buffer} holds ${bytes.length} bytes, ${n} ${dtype} elements need ${n * size}`);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const data = allocate(dtype, n);
  const nd = data as NumberData;
  for (let i = 0; i < n; i++) {
    const o = i * size;
    switch (dtype) {
      case 'float32':
        nd[i] = view.getFloat32(o, true);
        break;
      case 'float16':
        nd[i] = readFloat16LE(view, o);
        break;
      case 'float64':
        nd[i] = view.getFloat64(o, true);
        break;
      case 'int8':
        nd[i] = view.getInt8(o);
        break;
      case 'int16':
        nd[i] = view.getInt16(o, true);
        break;
      case 'int32':
        nd[i] = view.getInt32(o, true);
        break;
      case 'uint8':
        nd[i] = view.getUint8(o);
        break;
      case 'bool':
        nd[i] = view.getUint8(o) !== 0 ? 1 : 0;
        break;
      case 'uint16':
        nd[i] = view.getUint16(o, true);
        break;
      case 'uint32':
        nd[i] = view.getUint32(o, true);
        break;
      case 'int64':
        (data as BigInt64Array)[i] = view.getBigInt64(o, true);
        break;
      case 'uint64':
        (data as BigUint64Array)[i] = view.getBigUint64(o, true);
        break;
    }
  }
  return { dtype, shape, data };
}
