/**
 * Hand-built circle models for tests (reader, writer, graph, CLI). Not used by the app.
 */
import type { CircleModel, CircleOperator, CircleQuantization, CircleTensor, OptionTable, UnionValue } from './model';
import { encodeOpcode } from './write';

export function tensor(name: string, shape: number[], opts: Partial<CircleTensor> = {}): CircleTensor {
  return {
    name,
    shape,
    shapeSignature: null,
    type: 0,
    buffer: 0,
    quantization: null,
    isVariable: false,
    sparsity: null,
    hasRank: false,
    variantTensors: [],
    compressionType: 0,
    ...opts,
  };
}

export function quant(scale: number[], zeroPoint: number[], quantizedDimension = 0): CircleQuantization {
  return { min: [], max: [], scale, zeroPoint, quantizedDimension, details: null };
}

export function operator(opcodeIndex: number, inputs: number[], outputs: number[], opts: Partial<CircleOperator> = {}): CircleOperator {
  return {
    opcodeIndex,
    inputs,
    outputs,
    builtinOptions: null,
    builtinOptions2: null,
    customOptions: null,
    customOptionsFormat: 0,
    mutatingVariableInputs: [],
    intermediates: [],
    largeCustomOptionsOffset: 0,
    largeCustomOptionsSize: 0,
    ...opts,
  };
}

export function options(type: number, name: string, fields: OptionTable): UnionValue {
  return { type, name, fields };
}

export function opcode(code: number, customCode: string | null = null, version = 1) {
  return { code, ...encodeOpcode(code), customCode, version };
}

export function f32(values: number[]): Uint8Array {
  return new Uint8Array(new Float32Array(values).buffer);
}

/**
 * input(1x4) -> CONV_2D(filter const, bias const) -> RELU -> ADD(x, x) -> output,
 * with metadata, a signature def and an INSTANCE_NORM op (circle code -2).
 */
export function sampleModel(): CircleModel {
  return {
    identifier: 'CIR0',
    version: 0,
    description: 'hand-built test model',
    operatorCodes: [opcode(3), opcode(19), opcode(0), opcode(-2)],
    subgraphs: [
      {
        name: 'main',
        tensors: [
          tensor('input', [1, 2, 2, 1]),
          tensor('filter', [1, 1, 1, 1], { buffer: 1 }),
          tensor('bias', [1], { buffer: 2, type: 2 }),
          tensor('conv', [1, 2, 2, 1]),
          tensor('relu', [1, 2, 2, 1]),
          tensor('add', [1, 2, 2, 1], { quantization: quant([0.5, 0.25], [0, 3], 3) }),
          tensor('norm', [1, 2, 2, 1], { shapeSignature: [-1, 2, 2, 1] }),
        ],
        inputs: [0],
        outputs: [6],
        operators: [
          operator(0, [0, 1, 2], [3], {
            builtinOptions: options(1, 'Conv2DOptions', {
              padding: 1,
              stride_w: 1,
              stride_h: 1,
              fused_activation_function: 0,
              dilation_w_factor: 1,
              dilation_h_factor: 1,
              quantized_bias_type: 0,
            }),
          }),
          operator(1, [3], [4]),
          operator(2, [4, 4], [5], { builtinOptions: options(11, 'AddOptions', { fused_activation_function: 1, pot_scale_int16: true }) }),
          operator(3, [5, -1, -1], [6], { builtinOptions: options(254, 'InstanceNormOptions', { epsilon: 0.0010000000474974513, fused_activation_function: 0 }) }),
        ],
        deprecatedDataFormat: 0,
      },
    ],
    buffers: [
      { data: null, offset: 0, size: 0 },
      { data: f32([2]), offset: 0, size: 0 },
      { data: new Uint8Array([7, 0, 0, 0]), offset: 0, size: 0 },
      { data: new TextEncoder().encode('1.14.0'), offset: 0, size: 0 },
      { data: new Uint8Array([1, 0, 0, 0, 0, 0, 0, 0, 200, 201]), offset: 0, size: 0 },
    ],
    metadataBuffer: [],
    metadata: [
      { name: 'min_runtime_version', buffer: 3 },
      { name: 'ONE_unknown_table', buffer: 4 },
    ],
    signatureDefs: [{ inputs: [{ name: 'x', tensorIndex: 0 }], outputs: [{ name: 'y', tensorIndex: 6 }], signatureKey: 'serving_default', subgraphIndex: 0 }],
  };
}

/** FNV-1a of bytes, for comparing large buffers without vitest's slow element-wise equality. */
export function digest(bytes: Uint8Array): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i++) h = Math.imul(h ^ bytes[i]!, 0x01000193);
  return `${bytes.length}:${(h >>> 0).toString(16)}`;
}

/** The model with every byte array replaced by its digest (deep-equal friendly). */
export function comparable(m: CircleModel): unknown {
  return {
    ...m,
    buffers: m.buffers.map((b) => ({ ...b, data: b.data ? digest(b.data) : null })),
    subgraphs: m.subgraphs.map((sg) => ({
      ...sg,
      operators: sg.operators.map((op) => ({ ...op, customOptions: op.customOptions ? digest(op.customOptions) : null })),
    })),
  };
}
