/**
 * Synthetic circle models for samples, benchmarks and browser tests: a ResNet-like chain
 * (CONV_2D -> RELU -> ADD with a skip every 3 operators) of any length, with real constant
 * weights (seeded), and optionally padded with large constant buffers (the 100 MB reader figure);
 * and a chain of ResNet bottleneck blocks of 8 operators each (`bottleneckCircle`).
 */
import type { CircleModel, CircleTensor, CircleOperator } from '../../src/core/circle/model';
import { seededRandom } from '../../src/core/random';

const FLOAT32 = 0;
const OP = { ADD: 0, CONV_2D: 3, RELU: 19 } as const;

function tensor(name: string, shape: number[], buffer = 0): CircleTensor {
  return {
    name,
    shape,
    shapeSignature: null,
    type: FLOAT32,
    buffer,
    quantization: null,
    isVariable: false,
    sparsity: null,
    hasRank: false,
    variantTensors: [],
    compressionType: 0,
  };
}

function op(opcodeIndex: number, inputs: number[], outputs: number[], options: CircleOperator['builtinOptions']): CircleOperator {
  return {
    opcodeIndex,
    inputs,
    outputs,
    builtinOptions: options,
    builtinOptions2: null,
    customOptions: null,
    customOptionsFormat: 0,
    mutatingVariableInputs: [],
    intermediates: [],
    largeCustomOptionsOffset: 0,
    largeCustomOptionsSize: 0,
  };
}

/** Deterministic float32 bytes in [-1, 1) (the project's seeded generator) so generated files are reproducible. */
function seededFloats(count: number, seed: number): Uint8Array {
  const f = new Float32Array(count);
  const random = seededRandom(seed);
  for (let i = 0; i < count; i++) f[i] = random() * 2 - 1;
  return new Uint8Array(f.buffer);
}

export interface SyntheticCircleOptions {
  /** number of operators */
  operators: number;
  /** channels of the feature maps (weights are channels x 1 x 1 x channels) */
  channels?: number;
  /** extra constant bytes spread over the conv weights (for the big-file figure) */
  padBytes?: number;
  name?: string;
}

/**
 * ResNet's bottleneck block with a projection shortcut, 8 operators a block: CONV_2D -> RELU ->
 * CONV_2D -> RELU -> CONV_2D on the main path, a CONV_2D projection of the block's input beside
 * it, ADD of the two, RELU; blocks chained up to `operators` (the last one may be cut short).
 */
export function bottleneckCircle(opts: Omit<SyntheticCircleOptions, 'padBytes'>): CircleModel {
  const c = opts.channels ?? 8;
  const shape = [1, 16, 16, c];
  const tensors: CircleTensor[] = [];
  const buffers: CircleModel['buffers'] = [{ data: null, offset: 0, size: 0 }];
  const operators: CircleOperator[] = [];
  const addTensor = (t: CircleTensor) => tensors.push(t) - 1;
  let seed = 0;
  const conv = (name: string, x: number) => {
    buffers.push({ data: seededFloats(c * c, 7 + seed), offset: 0, size: 0 });
    const w = addTensor(tensor(`${name}/weights`, [c, 1, 1, c], buffers.length - 1));
    buffers.push({ data: seededFloats(c, 1000 + seed++), offset: 0, size: 0 });
    const b = addTensor(tensor(`${name}/bias`, [c], buffers.length - 1));
    const out = addTensor(tensor(name, shape));
    operators.push(op(1, [x, w, b], [out], CONV_OPTIONS));
    return out;
  };
  const relu = (name: string, x: number) => {
    const out = addTensor(tensor(name, shape));
    operators.push(op(2, [x], [out], null));
    return out;
  };
  const input = addTensor(tensor('input', shape));
  let x = input;
  for (let i = 0; operators.length < opts.operators; i++) {
    const block = `block${i}`;
    const steps: ((y: number) => number)[] = [
      (y) => conv(`${block}/conv_a`, y),
      (y) => relu(`${block}/relu_a`, y),
      (y) => conv(`${block}/conv_b`, y),
      (y) => relu(`${block}/relu_b`, y),
      (y) => conv(`${block}/conv_c`, y),
    ];
    const blockIn = x;
    let y = blockIn;
    for (const step of steps) {
      if (operators.length >= opts.operators) break;
      y = step(y);
    }
    if (operators.length >= opts.operators) {
      x = y;
      break;
    }
    const projection = conv(`${block}/projection`, blockIn);
    if (operators.length >= opts.operators) {
      x = projection;
      break;
    }
    const sum = addTensor(tensor(`${block}/add`, shape));
    operators.push(op(0, [y, projection], [sum], { type: 11, name: 'AddOptions', fields: { fused_activation_function: 0, pot_scale_int16: true } }));
    x = operators.length >= opts.operators ? sum : relu(`${block}/relu`, sum);
  }
  return chainModel(`synthetic chain of ResNet bottleneck blocks, ${opts.operators} operators`, opts.name, { tensors, buffers, operators, input, output: x });
}

const CONV_OPTIONS: CircleOperator['builtinOptions'] = {
  type: 1,
  name: 'Conv2DOptions',
  fields: { padding: 0, stride_w: 1, stride_h: 1, fused_activation_function: 0, dilation_w_factor: 1, dilation_h_factor: 1 },
};

/** the models' operator codes: index 0 ADD, 1 CONV_2D, 2 RELU (the operators' opcodeIndex) */
const OPERATOR_CODES: CircleModel['operatorCodes'] = [
  { code: OP.ADD, deprecatedBuiltinCode: OP.ADD, builtinCode: OP.ADD, customCode: null, version: 1 },
  { code: OP.CONV_2D, deprecatedBuiltinCode: OP.CONV_2D, builtinCode: OP.CONV_2D, customCode: null, version: 1 },
  { code: OP.RELU, deprecatedBuiltinCode: OP.RELU, builtinCode: OP.RELU, customCode: null, version: 1 },
];

export function resnetLikeCircle(opts: SyntheticCircleOptions): CircleModel {
  const c = opts.channels ?? 8;
  const shape = [1, 16, 16, c];
  const tensors: CircleTensor[] = [];
  const buffers: CircleModel['buffers'] = [{ data: null, offset: 0, size: 0 }];
  const operators: CircleOperator[] = [];
  const convCount = Math.ceil(opts.operators / 3);
  const padPerConv = opts.padBytes ? Math.ceil(opts.padBytes / convCount / 4) : 0;

  const addTensor = (t: CircleTensor) => tensors.push(t) - 1;
  const constant = (name: string, tshape: number[], data: Uint8Array) => {
    buffers.push({ data, offset: 0, size: 0 });
    return addTensor(tensor(name, tshape, buffers.length - 1));
  };

  const input = addTensor(tensor('input', shape));
  let x = input;
  let skip = input;
  for (let i = 0; operators.length < opts.operators; i++) {
    const block = `block${Math.floor(i)}`;
    // conv
    const wElems = c * c + padPerConv;
    const w = constant(`${block}/conv/weights`, padPerConv ? [wElems] : [c, 1, 1, c], seededFloats(wElems, 7 + i));
    const b = constant(`${block}/conv/bias`, [c], seededFloats(c, 1000 + i));
    const conv = addTensor(tensor(`${block}/conv`, shape));
    operators.push(
      op(1, [x, w, b], [conv], CONV_OPTIONS),
    );
    x = conv;
    if (operators.length >= opts.operators) break;
    const relu = addTensor(tensor(`${block}/relu`, shape));
    operators.push(op(2, [x], [relu], null));
    x = relu;
    if (operators.length >= opts.operators) break;
    const add = addTensor(tensor(`${block}/add`, shape));
    operators.push(op(0, [x, skip], [add], { type: 11, name: 'AddOptions', fields: { fused_activation_function: 0, pot_scale_int16: true } }));
    x = add;
    skip = add;
  }
  return chainModel(`synthetic ResNet-like chain, ${opts.operators} operators`, opts.name, { tensors, buffers, operators, input, output: x });
}

/** A one-subgraph model of these operators, tensors and buffers (one input, one output). */
function chainModel(
  description: string,
  name: string | undefined,
  g: { tensors: CircleTensor[]; buffers: CircleModel['buffers']; operators: CircleOperator[]; input: number; output: number },
): CircleModel {
  return {
    identifier: 'CIR0',
    version: 3, // circle schema version, as circlechef writes it
    description,
    operatorCodes: OPERATOR_CODES,
    subgraphs: [{ name: name ?? 'main', tensors: g.tensors, inputs: [g.input], outputs: [g.output], operators: g.operators, deprecatedDataFormat: 0 }],
    buffers: g.buffers,
    metadataBuffer: [],
    metadata: [],
    signatureDefs: [],
  };
}
