/**
 * Test support for the optimizer (not used by the app): a small builder of float circle graphs,
 * a fast-check arbitrary of random conv/add/mul/relu/reshape graphs, and `checkOptimize`, which
 * runs passes and checks the result numerically with the reference interpreter (through a real
 * write + read) and the origin-union invariant.
 */
import fc from 'fast-check';
import type { CircleModel, CircleOperator, CircleTensor, OptionTable } from '../circle/model';
import { read } from '../circle/read';
import { write, encodeOpcode } from '../circle/write';
import { compareOutputs, randomInputs, run, type ComparisonReport } from '../interp';
import { originsOf } from '../origin/origins';
import { originUnion, type OriginSet } from '../origin/rules';
import { OPTIONS_OF, Op } from './editor';
import { optimize, type OptimizeResult } from './optimize';
import { seededRandom } from '../random';

/** Options tables of the ops test graphs build: those that carry a fused activation, and a few more. */
const OPTIONS: Record<number, [number, string]> = {
  ...OPTIONS_OF,
  [Op.RESHAPE]: [17, 'ReshapeOptions'],
  [Op.MEAN]: [27, 'ReducerOptions'],
};

export class ModelBuilder {
  readonly tensors: CircleTensor[] = [];
  readonly operators: CircleOperator[] = [];
  readonly buffers: CircleModel['buffers'] = [{ data: null, offset: 0, size: 0 }];
  readonly codes: number[] = [];
  readonly inputs: number[] = [];
  readonly outputs: number[] = [];

  private tensor(name: string, shape: number[], type = 0, data: Uint8Array | null = null): number {
    let buffer = 0;
    if (data) {
      this.buffers.push({ data, offset: 0, size: 0 });
      buffer = this.buffers.length - 1;
    }
    this.tensors.push({ name, shape, shapeSignature: null, type, buffer, quantization: null, isVariable: false, sparsity: null, hasRank: false, variantTensors: [], compressionType: 0 });
    return this.tensors.length - 1;
  }
  input(name: string, shape: number[]): number {
    const t = this.tensor(name, shape);
    this.inputs.push(t);
    return t;
  }
  constF32(name: string, shape: number[], values: number[]): number {
    return this.tensor(name, shape, 0, new Uint8Array(new Float32Array(values).buffer));
  }
  constI32(name: string, shape: number[], values: number[]): number {
    return this.tensor(name, shape, 2, new Uint8Array(new Int32Array(values).buffer));
  }
  /** Adds an operator with one float32 output of `shape`; returns the output tensor. */
  op(code: number, inputs: number[], name: string, shape: number[], fields: OptionTable | null = null): number {
    const out = this.tensor(name, shape);
    let oc = this.codes.indexOf(code);
    if (oc < 0) {
      this.codes.push(code);
      oc = this.codes.length - 1;
    }
    const spec = OPTIONS[code];
    const builtinOptions = fields ? (code === Op.INSTANCE_NORM ? { type: 254, name: 'InstanceNormOptions', fields } : spec ? { type: spec[0], name: spec[1], fields } : null) : null;
    this.operators.push({
      opcodeIndex: oc,
      inputs,
      outputs: [out],
      builtinOptions,
      builtinOptions2: null,
      customOptions: null,
      customOptionsFormat: 0,
      mutatingVariableInputs: [],
      intermediates: [],
      largeCustomOptionsOffset: 0,
      largeCustomOptionsSize: 0,
    });
    return out;
  }
  output(t: number): void {
    this.outputs.push(t);
  }
  build(): CircleModel {
    return {
      identifier: 'CIR0',
      version: 0,
      description: 'optimizer test graph',
      operatorCodes: this.codes.map((code) => ({ code, ...encodeOpcode(code), customCode: null, version: 1 })),
      subgraphs: [{ name: 'main', tensors: this.tensors, inputs: this.inputs, outputs: this.outputs, operators: this.operators, deprecatedDataFormat: 0 }],
      buffers: this.buffers,
      metadataBuffer: [],
      metadata: [],
      signatureDefs: [],
    };
  }
}

export const conv2dOptions = (act = 0, padding = 0): OptionTable => ({ padding, stride_w: 1, stride_h: 1, fused_activation_function: act, dilation_w_factor: 1, dilation_h_factor: 1 });
export const dwOptions = (act = 0): OptionTable => ({ padding: 0, stride_w: 1, stride_h: 1, depth_multiplier: 1, fused_activation_function: act, dilation_w_factor: 1, dilation_h_factor: 1 });
export const actOptions = (act = 0): OptionTable => ({ fused_activation_function: act });

export interface OptimizeCheck {
  result: OptimizeResult;
  comparisons: ComparisonReport[];
  /** union of origins over the input and the output graph */
  unionBefore: OriginSet;
  unionAfter: OriginSet;
  /** the optimized model as read back from its written bytes */
  written: CircleModel;
}

/** Optimize, write + read the result, and run both models on `seeds` random inputs in [-2, 2). */
export function checkOptimize(model: CircleModel, passes: readonly string[], seeds = 3): OptimizeCheck {
  const result = optimize(model, passes);
  const written = read(write(result.model), 'optimized.circle');
  const comparisons: ComparisonReport[] = [];
  // absolute 1e-5 plus relative 1e-5: folding an ADD into a bias changes the float32 rounding order,
  // and products downstream scale that last-bit difference with the values (a counterexample of
  // the all-passes property had 1.5e-5 on outputs of magnitude ~10)
  for (let seed = 1; seed <= seeds; seed++) {
    const inputs = randomInputs(model, seed, { floatRange: [-2, 2] });
    comparisons.push(compareOutputs(run(model, inputs), run(written, inputs), { floatTolerance: 1e-5, relativeTolerance: 1e-5 }));
  }
  return {
    result,
    comparisons,
    unionBefore: originUnion(originsOf(model).ops),
    unionAfter: originUnion(originsOf(written).ops),
    written,
  };
}

/** Operator type names of subgraph 0, in order. */
export function opTypes(model: CircleModel): number[] {
  const sg = model.subgraphs[0]!;
  return sg.operators.map((o) => model.operatorCodes[o.opcodeIndex]!.code);
}

// ---- random graphs -------------------------------------------------------------------------

type Step =
  | { kind: 'conv'; out: number; k: number; bias: boolean; act: number; seed: number }
  | { kind: 'dw'; k: number; bias: boolean; seed: number }
  | { kind: 'add' | 'mul'; shape: 'vector' | 'rank4' | 'scalar'; swap: boolean; act: number; seed: number }
  | { kind: 'act'; op: number }
  | { kind: 'reshape'; twice: boolean }
  | { kind: 'residual'; op: number }
  | { kind: 'constfold'; seed: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ kind: fc.constant('conv' as const), out: fc.integer({ min: 1, max: 4 }), k: fc.constantFrom(1, 3), bias: fc.boolean(), act: fc.constantFrom(0, 0, 1), seed: fc.nat() }),
  fc.record({ kind: fc.constant('dw' as const), k: fc.constantFrom(1, 3), bias: fc.boolean(), seed: fc.nat() }),
  fc.record({ kind: fc.constantFrom('add' as const, 'mul' as const), shape: fc.constantFrom('vector' as const, 'rank4' as const, 'scalar' as const), swap: fc.boolean(), act: fc.constantFrom(0, 0, 1, 3), seed: fc.nat() }),
  fc.record({ kind: fc.constant('act' as const), op: fc.constantFrom(Op.RELU, Op.RELU6, Op.TANH) }),
  fc.record({ kind: fc.constant('reshape' as const), twice: fc.boolean() }),
  fc.record({ kind: fc.constant('residual' as const), op: fc.constantFrom(Op.ADD, Op.MUL, Op.SUB) }),
  fc.record({ kind: fc.constant('constfold' as const), seed: fc.nat() }),
);

function values(seed: number, n: number, lo = -1, hi = 1): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: n }, () => lo + random() * (hi - lo));
}

/** Random chains of conv / depthwise / add / mul / activation / reshape / residual ops. */
export const randomGraph: fc.Arbitrary<CircleModel> = fc
  .record({ h: fc.integer({ min: 1, max: 4 }), w: fc.integer({ min: 1, max: 4 }), c: fc.integer({ min: 1, max: 3 }), steps: fc.array(stepArb, { minLength: 1, maxLength: 8 }) })
  .map(({ h, w, c, steps }) => {
    const b = new ModelBuilder();
    let x = b.input('input', [1, h, w, c]);
    let ch = c;
    const history: { t: number; ch: number }[] = [{ t: x, ch }];
    steps.forEach((s, i) => {
      const shape = [1, h, w, ch];
      switch (s.kind) {
        case 'conv': {
          const f = b.constF32(`f${i}`, [s.out, s.k, s.k, ch], values(s.seed, s.out * s.k * s.k * ch));
          const inputs = [x, f, s.bias ? b.constF32(`b${i}`, [s.out], values(s.seed + 1, s.out)) : -1];
          ch = s.out;
          x = b.op(Op.CONV_2D, inputs, `conv${i}`, [1, h, w, ch], conv2dOptions(s.act));
          break;
        }
        case 'dw': {
          const f = b.constF32(`f${i}`, [1, s.k, s.k, ch], values(s.seed, s.k * s.k * ch));
          const inputs = [x, f, s.bias ? b.constF32(`b${i}`, [ch], values(s.seed + 1, ch)) : -1];
          x = b.op(Op.DEPTHWISE_CONV_2D, inputs, `dw${i}`, shape, dwOptions());
          break;
        }
        case 'add':
        case 'mul': {
          const cshape = s.shape === 'vector' ? [ch] : s.shape === 'rank4' ? [1, 1, 1, ch] : [];
          const k = b.constF32(`k${i}`, cshape, values(s.seed, s.shape === 'scalar' ? 1 : ch, s.kind === 'mul' ? 0.25 : -1, s.kind === 'mul' ? 1.5 : 1));
          x = b.op(s.kind === 'add' ? Op.ADD : Op.MUL, s.swap ? [k, x] : [x, k], `${s.kind}${i}`, shape, actOptions(s.act));
          break;
        }
        case 'act':
          x = b.op(s.op, [x], `act${i}`, shape);
          break;
        case 'reshape': {
          const flat = b.op(Op.RESHAPE, [x, b.constI32(`s${i}`, [2], [h * w, ch])], `flat${i}`, [h * w, ch], { new_shape: [h * w, ch] });
          const mid = s.twice ? b.op(Op.RESHAPE, [flat, b.constI32(`t${i}`, [1], [h * w * ch])], `line${i}`, [h * w * ch], { new_shape: [h * w * ch] }) : flat;
          const back = b.op(Op.RESHAPE, [mid, b.constI32(`u${i}`, [4], shape)], `back${i}`, shape, { new_shape: shape });
          x = b.op(Op.RESHAPE, [back, b.constI32(`v${i}`, [4], shape)], `same${i}`, shape, { new_shape: shape });
          break;
        }
        case 'residual': {
          const other = [...history].reverse().find((hh) => hh.ch === ch && hh.t !== x);
          if (other) x = b.op(s.op, [x, other.t], `res${i}`, shape, actOptions(0));
          break;
        }
        case 'constfold': {
          const k1 = b.constF32(`c${i}a`, [ch], values(s.seed, ch));
          const k2 = b.constF32(`c${i}b`, [ch], values(s.seed + 7, ch));
          const k = b.op(Op.MUL, [k1, k2], `cm${i}`, [ch], actOptions(0));
          const k3 = b.op(Op.ADD, [k, k2], `ca${i}`, [ch], actOptions(0));
          x = b.op(Op.ADD, [x, k3], `cadd${i}`, shape, actOptions(0));
          break;
        }
      }
      history.push({ t: x, ch });
    });
    b.output(x);
    return b.build();
  });
