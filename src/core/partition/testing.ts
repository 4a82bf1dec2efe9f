/**
 * Synthetic models for partition tests and the bench (not used by the app): float32 element-wise
 * graphs the reference interpreter can run.
 */
import type { CircleModel, CircleOperator, CircleTensor } from '../circle/model';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { f32, opcode, operator, tensor } from '../circle/testing';
import { seededRandom } from '../random';

/** An operator argument: a graph input, the output of an earlier operator, or a new constant. */
export type SynthArg = { input: number } | { op: number } | { const: number };

export interface SynthOp {
  code: number;
  args: SynthArg[];
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
  const opOut: number[] = [];
  const operators: CircleOperator[] = [];
  spec.ops.forEach((op, i) => {
    const args = op.args.map((a) => {
      if ('input' in a) return inputs[a.input]!;
      if ('op' in a) return opOut[a.op]!;
      buffers.push({ data: f32(new Array<number>(size).fill(a.const)), offset: 0, size: 0 });
      return tensors.push(tensor(`c${i}_${tensors.length}`, [size], { buffer: buffers.length - 1 })) - 1;
    });
    const out = tensors.push(tensor(`op${i}`, [size])) - 1;
    opOut.push(out);
    operators.push(operator(opcodeIndex(op.code), args, [out]));
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
    subgraphs: [{ name: 'main', tensors, inputs, outputs: outputs.map((i) => opOut[i]!), operators, deprecatedDataFormat: 0 }],
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
