/**
 * Synthetic models for partition tests and the bench (not used by the app): float32 element-wise
 * graphs the reference interpreter can run.
 */
import type { CircleModel, CircleOperator, CircleTensor } from '../circle/model';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { f32, opcode, operator, tensor } from '../circle/testing';
import { seededRandom } from '../random';
import { encodeOpTable, encodeSourceTable, OP_TABLE_NAME, SOURCE_TABLE_NAME } from '../origin/tables';

/**
 * An operator argument: a graph input, an output of an earlier operator (`output`, default 0), or
 * a new constant.
 */
export type SynthArg = { input: number } | { op: number; output?: number } | { const: number };

export interface SynthOp {
  code: number;
  args: SynthArg[];
  /** number of outputs (default 1); output k > 0 is named `op<i>:<k>`, as luci names them */
  outputs?: number;
}

export interface SynthSpec {
  inputs: number;
  ops: SynthOp[];
  /** operator indices whose outputs are graph outputs (default: operators nobody reads) */
  outputs?: number[];
  /** elements per tensor (default 4) */
  size?: number;
}

export function synthModel(spec: SynthSpec): CircleModel {
  const size = spec.size ?? 4;
  const tensors: CircleTensor[] = [];
  const buffers: CircleModel['buffers'] = [{ data: null, offset: 0, size: 0 }];
  const codes: number[] = [];
  const opcodeIndex = (code: number) => {
    let i = codes.indexOf(code);
    if (i < 0) i = codes.push(code) - 1;
    return i;
  };
  const inputs: number[] = [];
  for (let k = 0; k < spec.inputs; k++) inputs.push(tensors.push(tensor(`in${k}`, [size])) - 1);
  const opOut: number[][] = [];
  const operators: CircleOperator[] = [];
  spec.ops.forEach((op, i) => {
    const args = op.args.map((a) => {
      if ('input' in a) return inputs[a.input]!;
      if ('op' in a) return opOut[a.op]![a.output ?? 0]!;
      buffers.push({ data: f32(new Array<number>(size).fill(a.const)), offset: 0, size: 0 });
      return tensors.push(tensor(`c${i}_${tensors.length}`, [size], { buffer: buffers.length - 1 })) - 1;
    });
    const outs: number[] = [];
    for (let k = 0; k < (op.outputs ?? 1); k++) outs.push(tensors.push(tensor(k === 0 ? `op${i}` : `op${i}:${k}`, [size])) - 1);
    opOut.push(outs);
    operators.push(operator(opcodeIndex(op.code), args, outs));
  });
  let outputs = spec.outputs;
  if (!outputs) {
    const read = new Set<number>();
    for (const op of spec.ops) for (const a of op.args) if ('op' in a) read.add(a.op);
    outputs = spec.ops.map((_, i) => i).filter((i) => !read.has(i));
  }
  return {
    identifier: 'CIR0',
    version: 3,
    description: 'synthetic',
    operatorCodes: codes.map((c) => opcode(c)),
    subgraphs: [{ name: 'main', tensors, inputs, outputs: outputs.map((i) => opOut[i]![0]!), operators, deprecatedDataFormat: 0 }],
    buffers,
    metadataBuffer: [],
    metadata: [],
    signatureDefs: [],
  };
}

/** Seeded layered graph of `n` binary/unary element-wise operators (bench and size tests). */
export function layeredModel(n: number, seed = 7, size = 4): CircleModel {
  const rnd = seededRandom(seed);
  const codes = [BuiltinOperator.ADD, BuiltinOperator.MUL, BuiltinOperator.SUB, BuiltinOperator.MAXIMUM, BuiltinOperator.TANH];
  const ops: SynthOp[] = [];
  for (let i = 0; i < n; i++) {
    const code = codes[Math.floor(rnd() * codes.length)]!;
    const pick = (): SynthArg => {
      if (i === 0) return { input: 0 };
      const r = rnd();
      if (r < 0.15) return { const: 0.5 };
      // mostly recent producers: long chains with some skips, as real networks
      const back = 1 + Math.floor(rnd() * rnd() * Math.min(i, 16));
      return { op: i - back };
    };
    ops.push({ code, args: code === BuiltinOperator.TANH ? [pick()] : [pick(), pick()] });
  }
  return synthModel({ inputs: 1, ops, size });
}

export interface AlternatingChainOptions {
  /** operators in the chain */
  operators: number;
  /** operators per backend run: ADD runs (default backend) and MUL runs alternate */
  run: number;
  /** the first run is this much shorter, so the run count can be tuned (default 0) */
  firstRunShortBy?: number;
  /** float32 elements per tensor; every operator reads one constant of this size (default 16) */
  size?: number;
  /** write ONE_source_table / ONE_op_table into the model, as circle2circle --generate_profile_data does */
  originTables?: boolean;
}

/**
 * A chain `in0 -> op0 -> op1 -> ...` of ADD and MUL operators, each with its own constant, in
 * alternating runs: with `.part` `MUL=npu` (default cpu) every run is one part. Tensor names look
 * like a converter's (`model/block_12/mul_3/BiasAdd`), so origin tables have realistic sizes.
 * Used by the partition size test and the partition bench (10,000 operators, 2,501 parts).
 */
export function alternatingChainModel(opts: AlternatingChainOptions): CircleModel {
  const size = opts.size ?? 16;
  const shift = opts.firstRunShortBy ?? 0;
  const tensors: CircleTensor[] = [tensor('model/input', [1, size])];
  const buffers: CircleModel['buffers'] = [{ data: null, offset: 0, size: 0 }];
  const operators: CircleOperator[] = [];
  let x = 0;
  for (let i = 0; i < opts.operators; i++) {
    const mul = Math.floor((i + shift) / opts.run) % 2 === 1;
    const layer = `model/block_${Math.floor(i / 8)}/${mul ? 'mul' : 'add'}_${i % 8}`;
    buffers.push({ data: f32(new Array<number>(size).fill(mul ? 1 : 0)), offset: 0, size: 0 });
    const c = tensors.push(tensor(`${layer}/y`, [1, size], { buffer: buffers.length - 1 })) - 1;
    const out = tensors.push(tensor(`${layer}/BiasAdd`, [1, size])) - 1;
    operators.push(operator(mul ? 1 : 0, [x, c], [out]));
    x = out;
  }
  const model: CircleModel = {
    identifier: 'CIR0',
    version: 3,
    description: 'synthetic alternating chain',
    operatorCodes: [opcode(BuiltinOperator.ADD), opcode(BuiltinOperator.MUL)],
    subgraphs: [{ name: 'main', tensors, inputs: [0], outputs: [x], operators, deprecatedDataFormat: 0 }],
    buffers,
    metadataBuffer: [],
    metadata: [],
    signatureDefs: [],
  };
  if (opts.originTables) {
    const sources = new Map<number, string>();
    const ops = new Map<number, number[]>();
    operators.forEach((op, i) => {
      sources.set(i, tensors[op.outputs[0]!]!.name);
      ops.set(i, [i]);
    });
    model.metadata.push({ name: SOURCE_TABLE_NAME, buffer: buffers.length }, { name: OP_TABLE_NAME, buffer: buffers.length + 1 });
    buffers.push({ data: encodeSourceTable(sources), offset: 0, size: 0 }, { data: encodeOpTable(ops), offset: 0, size: 0 });
  }
  return model;
}
