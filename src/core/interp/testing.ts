/**
 * Test helper: a one-operator (or few-operator) circle model built in memory, with constants
 * encoded little-endian into buffers as a writer would store them.
 */
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import type { CircleModel, CircleOperator, CircleTensor, OptionTable } from '../circle/model';
import { byteSize, type DType, type TensorValue } from './tensor';
import { writeFloat16LE } from '../fp16';

const TYPE_CODES: Record<DType, number> = { float32: 0, float16: 1, int32: 2, uint8: 3, int64: 4, bool: 6, int16: 7, int8: 9, float64: 10, uint64: 12, uint32: 15, uint16: 16 };

export interface TensorSpec {
  name?: string;
  dtype?: DType;
  shape: number[];
  /** constant data; absent for graph inputs and computed tensors */
  data?: ArrayLike<number>;
  /** quantization scale (marks the tensor quantized) */
  scale?: number[];
}

export interface OpSpec {
  op: string;
  /** tensor names; '' = omitted optional input */
  inputs: string[];
  outputs: string[];
  options?: OptionTable;
}

export interface ModelSpec {
  tensors: Record<string, TensorSpec>;
  inputs: string[];
  outputs: string[];
  ops: OpSpec[];
}

function encode(dtype: DType, values: ArrayLike<number>): Uint8Array {
  const size = byteSize(dtype);
  // one spare byte in front so the data is deliberately unaligned
  const raw = new Uint8Array(values.length * size + 1);
  const bytes = raw.subarray(1);
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const o = i * size;
    switch (dtype) {
      case 'float32': view.setFloat32(o, v, true); break;
      case 'float64': view.setFloat64(o, v, true); break;
      case 'float16': writeFloat16LE(view, o, v); break;
      case 'int8': view.setInt8(o, v); break;
      case 'uint8': case 'bool': view.setUint8(o, v); break;
      case 'int16': view.setInt16(o, v, true); break;
      case 'uint16': view.setUint16(o, v, true); break;
      case 'int32': view.setInt32(o, v, true); break;
      case 'uint32': view.setUint32(o, v, true); break;
      case 'int64': view.setBigInt64(o, BigInt(v), true); break;
      case 'uint64': view.setBigUint64(o, BigInt(v), true); break;
    }
  }
  return bytes;
}

export function buildModel(spec: ModelSpec, extraSubgraphs: ModelSpec[] = []): CircleModel {
  const codes: string[] = [];
  const model: CircleModel = {
    identifier: 'CIR0',
    version: 3,
    description: 'interp test',
    operatorCodes: [],
    subgraphs: [],
    buffers: [{ data: null, offset: 0, size: 0 }],
    metadataBuffer: [],
    metadata: [],
    signatureDefs: [],
  };
  for (const g of [spec, ...extraSubgraphs]) {
    const names = Object.keys(g.tensors);
    const index = (n: string): number => {
      if (n === '') return -1;
      const i = names.indexOf(n);
      if (i < 0) throw new Error(`no tensor ${n}`);
      return i;
    };
    const tensors: CircleTensor[] = names.map((name) => {
      const t = g.tensors[name]!;
      const dtype = t.dtype ?? 'float32';
      let buffer = 0;
      if (t.data) {
        model.buffers.push({ data: encode(dtype, t.data), offset: 0, size: 0 });
        buffer = model.buffers.length - 1;
      }
      return {
        name: t.name ?? name,
        shape: t.shape,
        shapeSignature: null,
        type: TYPE_CODES[dtype],
        buffer,
        quantization: t.scale ? { min: [], max: [], scale: t.scale, zeroPoint: t.scale.map(() => 0), quantizedDimension: 0, details: null } : null,
        isVariable: false,
        sparsity: null,
        hasRank: true,
        variantTensors: [],
        compressionType: 0,
      };
    });
    const operators: CircleOperator[] = g.ops.map((o) => {
      let opcodeIndex = codes.indexOf(o.op);
      if (opcodeIndex < 0) {
        codes.push(o.op);
        opcodeIndex = codes.length - 1;
      }
      return {
        opcodeIndex,
        inputs: o.inputs.map(index),
        outputs: o.outputs.map(index),
        builtinOptions: o.options ? { type: 0, name: `${o.op}Options`, fields: o.options } : null,
        builtinOptions2: null,
        customOptions: null,
        customOptionsFormat: 0,
        mutatingVariableInputs: [],
        intermediates: [],
        largeCustomOptionsOffset: 0,
        largeCustomOptionsSize: 0,
      };
    });
    model.subgraphs.push({ name: '', tensors, inputs: g.inputs.map(index), outputs: g.outputs.map(index), operators, deprecatedDataFormat: 0 });
  }
  model.operatorCodes = codes.map((name) => {
    const code = (BuiltinOperator as unknown as Record<string, number | undefined>)[name];
    const c = code ?? 32; // CUSTOM
    return { code: c, deprecatedBuiltinCode: c >= 0 && c < 127 ? c : 127, builtinCode: c, customCode: code === undefined ? name : null, version: 1 };
  });
  return model;
}

/** A float32 tensor value. */
export function f32(shape: number[], data: ArrayLike<number>): TensorValue {
  return { dtype: 'float32', shape, data: Float32Array.from(data) };
}

export function i32(shape: number[], data: ArrayLike<number>): TensorValue {
  return { dtype: 'int32', shape, data: Int32Array.from(data) };
}
