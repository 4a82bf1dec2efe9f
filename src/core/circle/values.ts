/**
 * Tensor details for the side panel: type, shape, quantization (with the dequantization formula
 * per channel) and, for constant tensors, the first values and min / max / mean over all
 * elements. Reads little-endian through a DataView, so unaligned buffers are fine. This is the
 * only place that reads weight bytes, and only for the one tensor asked for.
 */
import type { CircleModel } from './model';
import { bufferHasData } from './graph';
import { dtypeName, tensorTypeName } from './names';
import { readFloat16LE } from '../fp16';
import { float32Text, panelWidth, tensorText, type ValueKind } from '../tensor-text';
import { writeNpyBytes } from '../caffe/npy';

export const FIRST_VALUES = 64;

export interface QuantizationChannel {
  channel: number;
  scale: number | null;
  zeroPoint: number | null;
  min: number | null;
  max: number | null;
}

export interface TensorQuantization {
  /** `real = scale * (q - zero_point)` */
  formula: string;
  /** one line per channel with the real range it covers, e.g. `0 ≤ 0.0039215689 * (q - 0) ≤ 1` (the model's min / max, else the dtype's range) */
  lines: string[];
  perChannel: boolean;
  quantizedDimension: number;
  channels: QuantizationChannel[];
  /** QuantizationDetails union name (CustomQuantization, MXQuantization), if any */
  details: string | null;
}

export interface TensorValues {
  /** the first values (up to FIRST_VALUES), in row-major order */
  first: (number | boolean)[];
  /** number of elements decoded (all elements of the buffer) */
  count: number;
  min: number;
  max: number;
  mean: number;
  /** the first values dequantized, when the tensor is quantized */
  dequantized: number[] | null;
  /** the values laid out along the shape (nested brackets, the middle of big axes elided; core/tensor-text.ts) */
  text?: string;
  /** standard deviation over the finite values (formats that compute it: Caffe weight blobs) */
  std?: number;
  /** equal-width bins over [min, max] (the max falls into the last bin), for the node panel's histogram */
  histogram?: { min: number; max: number; bins: number[] };
}

export interface TensorDetails {
  subgraph: number;
  index: number;
  name: string;
  /** `float32`, `int8`, ... (`TensorType(<n>)` for unknown types) */
  dtype: string;
  /** TensorType enum name */
  typeName: string;
  type: number;
  shape: number[];
  shapeSignature: number[] | null;
  /** `float32[1,3]` */
  typeString: string;
  isVariable: boolean;
  constant: boolean;
  buffer: number;
  /** size of the tensor's data in bytes (0 when not constant) */
  byteLength: number;
  quantization: TensorQuantization | null;
  values: TensorValues | null;
  /** why values are missing, e.g. `not decoded` for types without a decoder */
  note: string | null;
}

const ELEMENT_SIZE: Record<number, number> = {
  0: 4, // FLOAT32
  1: 2, // FLOAT16
  2: 4, // INT32
  3: 1, // UINT8
  4: 8, // INT64
  6: 1, // BOOL
  7: 2, // INT16
  9: 1, // INT8
  10: 8, // FLOAT64
  12: 8, // UINT64
  15: 4, // UINT32
  16: 2, // UINT16
};

function reader(type: number, dv: DataView): ((i: number) => number) | null {
  switch (type) {
    case 0:
      return (i) => dv.getFloat32(i * 4, true);
    case 1:
      return (i) => readFloat16LE(dv, i * 2);
    case 2:
      return (i) => dv.getInt32(i * 4, true);
    case 3:
    case 6:
      return (i) => dv.getUint8(i);
    case 4:
      return (i) => Number(dv.getBigInt64(i * 8, true));
    case 7:
      return (i) => dv.getInt16(i * 2, true);
    case 9:
      return (i) => dv.getInt8(i);
    case 10:
      return (i) => dv.getFloat64(i * 8, true);
    case 12:
      return (i) => Number(dv.getBigUint64(i * 8, true));
    case 15:
      return (i) => dv.getUint32(i * 4, true);
    case 16:
      return (i) => dv.getUint16(i * 2, true);
    default:
      return null;
  }
}

/** quantization parameters are float32 in the schema: their shortest float32 text */
function fmt(n: number): string {
  return Number.isInteger(n) ? String(n) : float32Text(n);
}

/** the integer range of a quantized dtype (TensorType), or null for float types */
const Q_RANGE: Record<number, [number, number]> = {
  2: [-2147483648, 2147483647], // INT32
  3: [0, 255], // UINT8
  7: [-32768, 32767], // INT16
  9: [-128, 127], // INT8
  16: [0, 65535], // UINT16
  17: [-8, 7], // INT4
};

/** NumPy's dtype text for a TensorType */
const NPY_DESCR: Record<number, string> = {
  0: '<f4', 1: '<f2', 2: '<i4', 3: '|u1', 4: '<i8', 6: '|b1', 7: '<i2', 9: '|i1', 10: '<f8', 12: '<u8', 15: '<u4', 16: '<u2',
};

function valueKind(type: number): ValueKind {
  if (type === 0 || type === 1) return 'float32';
  if (type === 10) return 'float64';
  if (type === 6) return 'bool';
  return 'integer';
}

/**
 * A constant tensor as a NumPy `.npy` file (its bytes as stored, with its dtype and shape), or null
 * when it has no data here or its type has no NumPy dtype.
 */
export function tensorNpy(model: CircleModel, sg: number, tensorIndex: number, fileBytes?: Uint8Array): { name: string; bytes: Uint8Array } | null {
  const t = model.subgraphs[sg]?.tensors[tensorIndex];
  if (!t) throw new RangeError(`tensor ${tensorIndex} does not exist in subgraph ${sg}`);
  const buf = model.buffers[t.buffer];
  if (t.buffer === 0 || !bufferHasData(buf) || !buf) return null;
  const data = buf.data && buf.data.length ? buf.data : fileBytes && buf.offset + buf.size <= fileBytes.length ? fileBytes.subarray(buf.offset, buf.offset + buf.size) : null;
  const descr = NPY_DESCR[t.type];
  const size = ELEMENT_SIZE[t.type];
  if (!data || !descr || !size) return null;
  const count = Math.floor(data.length / size);
  const expected = t.shape.reduce((a, d) => a * Math.max(d, 0), 1);
  const shape = count === expected ? t.shape : [count];
  const safe = (t.name || `tensor_${tensorIndex}`).replace(/[^\w.-]+/g, '_').slice(0, 120);
  return { name: `${safe}.npy`, bytes: writeNpyBytes(descr, shape, data.subarray(0, count * size)) };
}

/**
 * Details of tensor `tensorIndex` of subgraph `sg`. `fileBytes` (the whole file) is needed only
 * for tensors whose data is stored outside the FlatBuffer (extended buffers).
 */
export function tensorDetails(model: CircleModel, sg: number, tensorIndex: number, fileBytes?: Uint8Array, valuesWidth?: number): TensorDetails {
  const subgraph = model.subgraphs[sg];
  if (!subgraph) throw new RangeError(`subgraph ${sg} does not exist`);
  const t = subgraph.tensors[tensorIndex];
  if (!t) throw new RangeError(`tensor ${tensorIndex} does not exist in subgraph ${sg}`);
  const buf = model.buffers[t.buffer];
  const constant = t.buffer !== 0 && bufferHasData(buf);
  let data: Uint8Array | null = null;
  let note: string | null = null;
  if (constant && buf) {
    if (buf.data && buf.data.length) data = buf.data;
    else if (fileBytes && buf.offset + buf.size <= fileBytes.length) data = fileBytes.subarray(buf.offset, buf.offset + buf.size);
    else note = `data stored outside the FlatBuffer (${buf.size} bytes at byte ${buf.offset}); not loaded`;
  }
  const quantization = describeQuantization(t.quantization, t.type);
  let values: TensorValues | null = null;
  if (data) {
    const size = ELEMENT_SIZE[t.type];
    const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
    const get = reader(t.type, dv);
    if (!size || !get) note = `values of type ${tensorTypeName(t.type)} are not decoded`;
    else {
      const count = Math.floor(data.length / size);
      const expected = t.shape.reduce((a, d) => a * Math.max(d, 0), 1);
      if (count !== expected) note = `the buffer holds ${count} elements, the shape says ${expected}`;
      let min = Infinity;
      let max = -Infinity;
      let sum = 0;
      const first: (number | boolean)[] = [];
      for (let i = 0; i < count; i++) {
        const v = get(i);
        if (v < min) min = v;
        if (v > max) max = v;
        sum += v;
        if (i < FIRST_VALUES) first.push(t.type === 6 ? v !== 0 : v);
      }
      let dequantized: number[] | null = null;
      if (quantization && t.type !== 0 && t.type !== 1 && t.type !== 10 && t.quantization) {
        const q = t.quantization;
        const axis = q.quantizedDimension;
        const stride = t.shape.slice(axis + 1).reduce((a, d) => a * Math.max(d, 1), 1);
        const channels = t.shape[axis] ?? 1;
        dequantized = first.slice(0, Math.min(first.length, FIRST_VALUES)).map((v, i) => {
          const c = q.scale.length > 1 ? Math.floor(i / stride) % channels : 0;
          const scale = q.scale[c] ?? q.scale[0] ?? 1;
          const zp = q.zeroPoint[c] ?? q.zeroPoint[0] ?? 0;
          return scale * (Number(v) - zp);
        });
      }
      const text = tensorText(count === expected ? t.shape : [count], count, t.type === 6 ? (i) => get(i) !== 0 : get, valueKind(t.type), { width: panelWidth(valuesWidth) });
      values = count ? { first, count, min, max, mean: sum / count, dequantized, text } : { first, count, min: NaN, max: NaN, mean: NaN, dequantized, text };
    }
  }
  const shapeStr = t.shape.map((d, i) => (t.shapeSignature?.[i] === -1 ? '?' : String(d))).join(',');
  return {
    subgraph: sg,
    index: tensorIndex,
    name: t.name,
    dtype: dtypeName(t.type),
    typeName: tensorTypeName(t.type),
    type: t.type,
    shape: t.shape,
    shapeSignature: t.shapeSignature,
    typeString: `${dtypeName(t.type)}[${shapeStr}]`,
    isVariable: t.isVariable,
    constant,
    buffer: t.buffer,
    byteLength: constant && buf ? (buf.data?.length || buf.size) : 0,
    quantization,
    values,
    note,
  };
}

function describeQuantization(q: CircleModel['subgraphs'][number]['tensors'][number]['quantization'], type: number): TensorQuantization | null {
  if (!q) return null;
  const n = Math.max(q.scale.length, q.zeroPoint.length, q.min.length, q.max.length);
  if (n === 0 && !q.details) return null;
  const channels: QuantizationChannel[] = [];
  const lines: string[] = [];
  for (let c = 0; c < n; c++) {
    const ch: QuantizationChannel = {
      channel: c,
      scale: q.scale[c] ?? null,
      zeroPoint: q.zeroPoint[c] ?? null,
      min: q.min[c] ?? null,
      max: q.max[c] ?? null,
    };
    channels.push(ch);
    if (ch.scale !== null) {
      const zp = ch.zeroPoint ?? 0;
      const range = Q_RANGE[type];
      // the model's min / max when it stores them, else the real values the dtype's range reaches
      const lo = ch.min ?? (range ? Math.fround(ch.scale * (range[0] - zp)) : null);
      const hi = ch.max ?? (range ? Math.fround(ch.scale * (range[1] - zp)) : null);
      const formula = `${fmt(ch.scale)} * (q - ${zp})`;
      lines.push(`${n > 1 ? `[${c}] ` : ''}${lo !== null && hi !== null ? `${fmt(lo)} ≤ ${formula} ≤ ${fmt(hi)}` : formula}`);
    } else if (ch.min !== null && ch.max !== null) lines.push(`${n > 1 ? `[${c}] ` : ''}${fmt(ch.min)} ≤ q ≤ ${fmt(ch.max)}`);
  }
  return {
    formula: 'scale * (q - zero_point)',
    lines,
    perChannel: q.scale.length > 1,
    quantizedDimension: q.quantizedDimension,
    channels,
    details: q.details ? q.details.name : null,
  };
}
