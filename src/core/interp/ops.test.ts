import { describe, it, expect } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildFromRecipe } from '../chef';
import type { OptionTable } from '../circle/model';
import { InterpreterError, run, type DType, type TensorValue } from './index';
import { buildModel, f32, i32, type ModelSpec, type TensorSpec } from './testing';

type Arg = TensorValue | { constant: TensorValue } | null;

/** Run one operator: plain values are graph inputs, `{ constant }` are constant tensors, null is an omitted input. */
function runOp(op: string, args: Arg[], options: OptionTable = {}, outDTypes: DType[] = ['float32']): TensorValue[] {
  const tensors: Record<string, TensorSpec> = {};
  const inputs: string[] = [];
  const values: TensorValue[] = [];
  const opInputs = args.map((a, i) => {
    if (a === null) return '';
    const name = `in${i}`;
    if ('constant' in a) tensors[name] = { dtype: a.constant.dtype, shape: a.constant.shape, data: Array.from(a.constant.data, Number) };
    else {
      tensors[name] = { dtype: a.dtype, shape: a.shape };
      inputs.push(name);
      values.push(a);
    }
    return name;
  });
  const outputs = outDTypes.map((dtype, j) => {
    tensors[`out${j}`] = { dtype, shape: [] };
    return `out${j}`;
  });
  const spec: ModelSpec = { tensors, inputs, outputs, ops: [{ op, inputs: opInputs, outputs, options }] };
  return run(buildModel(spec), values);
}

const c = (t: TensorValue) => ({ constant: t });
const values = (t: TensorValue | undefined) => Array.from(t!.data, Number);

describe('element-wise binary operators', () => {
  it('ADD broadcasts [2,3] + [3] and [2,1] + [1,3]', () => {
    const [r] = runOp('ADD', [f32([2, 3], [1, 2, 3, 4, 5, 6]), f32([3], [10, 20, 30])]);
    expect(r!.shape).toEqual([2, 3]);
    expect(values(r)).toEqual([11, 22, 33, 14, 25, 36]);
    const [s] = runOp('ADD', [f32([2, 1], [1, 2]), f32([1, 3], [10, 20, 30])]);
    expect(s!.shape).toEqual([2, 3]);
    expect(values(s)).toEqual([11, 21, 31, 12, 22, 32]);
  });

  it('ADD with a scalar and with a higher-rank operand on the right', () => {
    const [r] = runOp('ADD', [f32([], [1]), f32([2, 2, 1], [1, 2, 3, 4])]);
    expect(r!.shape).toEqual([2, 2, 1]);
    expect(values(r)).toEqual([2, 3, 4, 5]);
  });

  it('rejects shapes that do not broadcast, naming the operator', () => {
    expect(() => runOp('ADD', [f32([2], [1, 2]), f32([3], [1, 2, 3])])).toThrow(/operator 0 \(ADD\).*do not broadcast/);
  });

  it('applies fused activations NONE, RELU, RELU_N1_TO_1, RELU6, TANH', () => {
    const a = f32([5], [-8, -0.5, 0.5, 3, 9]);
    const zero = f32([5], [0, 0, 0, 0, 0]);
    const act = (code: number) => values(runOp('ADD', [a, zero], { fused_activation_function: code })[0]);
    expect(act(0)).toEqual([-8, -0.5, 0.5, 3, 9]);
    expect(act(1)).toEqual([0, 0, 0.5, 3, 9]);
    expect(act(2)).toEqual([-1, -0.5, 0.5, 1, 1]);
    expect(act(3)).toEqual([0, 0, 0.5, 3, 6]);
    expect(act(4)).toEqual([-8, -0.5, 0.5, 3, 9].map((v) => Math.fround(Math.tanh(v))));
    expect(() => act(5)).toThrow(/SIGN_BIT/);
  });

  it('SUB, MUL, DIV with fused activations', () => {
    const a = f32([3], [1, -2, 6]);
    const b = f32([3], [4, 4, 4]);
    expect(values(runOp('SUB', [a, b], { fused_activation_function: 1 })[0])).toEqual([0, 0, 2]);
    expect(values(runOp('MUL', [a, b], { fused_activation_function: 3 })[0])).toEqual([4, 0, 6]);
    expect(values(runOp('DIV', [a, b])[0])).toEqual([0.25, -0.5, 1.5]);
    expect(values(runOp('DIV', [f32([1], [1]), f32([1], [3])])[0])).toEqual([Math.fround(1 / 3)]);
  });

  it('POW, SQUARED_DIFFERENCE, MAXIMUM, MINIMUM broadcast', () => {
    const a = f32([2, 2], [1, 2, 3, 4]);
    const b = f32([2], [2, 0.5]);
    expect(values(runOp('POW', [a, b])[0])).toEqual([1, Math.fround(Math.SQRT2), 9, 2]);
    expect(values(runOp('SQUARED_DIFFERENCE', [a, b])[0])).toEqual([1, 2.25, 1, 12.25]);
    expect(values(runOp('MAXIMUM', [a, b])[0])).toEqual([2, 2, 3, 4]);
    expect(values(runOp('MINIMUM', [a, b])[0])).toEqual([1, 0.5, 2, 0.5]);
  });

  it('LESS gives bool, broadcasting', () => {
    const [r] = runOp('LESS', [f32([2, 2], [1, 5, 10, 11]), f32([], [10])], {}, ['bool']);
    expect(r!.dtype).toBe('bool');
    expect(values(r)).toEqual([1, 1, 0, 0]);
  });

  it('int32 arithmetic is exact and wraps', () => {
    expect(values(runOp('ADD', [i32([2], [2147483647, -5]), i32([2], [1, 3])], {}, ['int32'])[0])).toEqual([-2147483648, -2]);
    expect(values(runOp('MUL', [i32([1], [65536]), i32([1], [65537])], {}, ['int32'])[0])).toEqual([65536]);
    expect(values(runOp('DIV', [i32([2], [7, -7]), i32([2], [2, 2])], {}, ['int32'])[0])).toEqual([3, -3]);
    expect(values(runOp('MUL', [i32([1], [123456789]), i32([1], [987654321])], {}, ['int32'])[0])).toEqual([Math.imul(123456789, 987654321)]);
  });

  it('int64 arithmetic is exact up to 2^53 and refuses beyond', () => {
    const i64 = (data: number[]): TensorValue => ({ dtype: 'int64', shape: [data.length], data: BigInt64Array.from(data.map(BigInt)) });
    const [r] = runOp('MUL', [i64([3000000000, -7]), i64([1000, 3])], {}, ['int64']);
    expect(r!.data).toEqual(BigInt64Array.from([3000000000000n, -21n]));
    expect(values(runOp('DIV', [i64([7, -7]), i64([2, 2])], {}, ['int64'])[0])).toEqual([3, -3]);
    expect(() => runOp('MUL', [i64([2 ** 40]), i64([2 ** 20])], {}, ['int64'])).toThrow(/beyond 2\^53/);
  });
});

describe('element-wise unary operators', () => {
  const x = f32([4], [0.25, 1, 4, 9]);
  it('SQRT, RSQRT, SQUARE, NEG, ABS', () => {
    expect(values(runOp('SQRT', [x])[0])).toEqual([0.5, 1, 2, 3]);
    expect(values(runOp('RSQRT', [x])[0])).toEqual([2, 1, 0.5, Math.fround(1 / 3)]);
    expect(values(runOp('SQUARE', [x])[0])).toEqual([0.0625, 1, 16, 81]);
    expect(values(runOp('NEG', [x])[0])).toEqual([-0.25, -1, -4, -9]);
    expect(values(runOp('ABS', [f32([2], [-3, 2])])[0])).toEqual([3, 2]);
  });
  it('TANH, LOGISTIC, EXP, LOG', () => {
    const y = f32([3], [-1, 0, 2]);
    expect(values(runOp('TANH', [y])[0])).toEqual([-1, 0, 2].map((v) => Math.fround(Math.tanh(v))));
    expect(values(runOp('LOGISTIC', [y])[0])).toEqual([-1, 0, 2].map((v) => Math.fround(1 / (1 + Math.exp(-v)))));
    expect(values(runOp('EXP', [y])[0])).toEqual([-1, 0, 2].map((v) => Math.fround(Math.exp(v))));
    expect(values(runOp('LOG', [x])[0])).toEqual([0.25, 1, 4, 9].map((v) => Math.fround(Math.log(v))));
  });
  it('RELU, RELU6, RELU_N1_TO_1', () => {
    const y = f32([4], [-2, -0.5, 0.5, 7]);
    expect(values(runOp('RELU', [y])[0])).toEqual([0, 0, 0.5, 7]);
    expect(values(runOp('RELU6', [y])[0])).toEqual([0, 0, 0.5, 6]);
    expect(values(runOp('RELU_N1_TO_1', [y])[0])).toEqual([-1, -0.5, 0.5, 1]);
  });
});

describe('MEAN', () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  it('reduces over constant axes, keep_dims false and true', () => {
    const [r] = runOp('MEAN', [x, c(i32([1], [1]))], { keep_dims: false });
    expect(r!.shape).toEqual([2]);
    expect(values(r)).toEqual([2, 5]);
    const [k] = runOp('MEAN', [x, c(i32([1], [0]))], { keep_dims: true });
    expect(k!.shape).toEqual([1, 3]);
    expect(values(k)).toEqual([2.5, 3.5, 4.5]);
  });
  it('takes negative, scalar and repeated axes', () => {
    expect(values(runOp('MEAN', [x, c(i32([], [-1]))], { keep_dims: false })[0])).toEqual([2, 5]);
    const [all] = runOp('MEAN', [x, c(i32([3], [0, -1, 1]))], { keep_dims: true });
    expect(all!.shape).toEqual([1, 1]);
    expect(values(all)).toEqual([3.5]);
  });
});

describe('FULLY_CONNECTED', () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  const w = f32([2, 3], [1, 0, 1, 0, 1, 0]); // [out, in]
  it('computes x W^T + b', () => {
    const [r] = runOp('FULLY_CONNECTED', [x, c(w), c(f32([2], [10, -10]))]);
    expect(r!.shape).toEqual([2, 2]);
    expect(values(r)).toEqual([14, -8, 20, -5]);
  });
  it('takes an omitted (-1) bias and a missing third input', () => {
    expect(values(runOp('FULLY_CONNECTED', [x, c(w), null])[0])).toEqual([4, 2, 10, 5]);
    expect(values(runOp('FULLY_CONNECTED', [x, c(w)])[0])).toEqual([4, 2, 10, 5]);
  });
  it('keep_num_dims keeps leading dims; otherwise flattens; fused RELU', () => {
    const x3 = f32([1, 2, 3], [1, 2, 3, 4, 5, 6]);
    const [k] = runOp('FULLY_CONNECTED', [x3, c(w), null], { keep_num_dims: true });
    expect(k!.shape).toEqual([1, 2, 2]);
    const [f] = runOp('FULLY_CONNECTED', [x3, c(w), c(f32([2], [-5, 0]))], { keep_num_dims: false, fused_activation_function: 1 });
    expect(f!.shape).toEqual([2, 2]);
    expect(values(f)).toEqual([0, 2, 5, 5]);
  });
  it('refuses hybrid (int8) weights instead of computing a wrong result', () => {
    expect(() => runOp('FULLY_CONNECTED', [x, c({ dtype: 'int8', shape: [2, 3], data: Int8Array.from([1, 0, 1, 0, 1, 0]) }), null])).toThrow(/FULLY_CONNECTED.*not supported/);
  });
});

describe('SPLIT, SPLIT_V, UNPACK', () => {
  const x = f32([2, 4], [1, 2, 3, 4, 5, 6, 7, 8]);
  it('SPLIT: axis input first, num_splits parts', () => {
    const r = runOp('SPLIT', [c(i32([], [1])), x], { num_splits: 2 }, ['float32', 'float32']);
    expect(r.map((t) => t.shape)).toEqual([
      [2, 2],
      [2, 2],
    ]);
    expect(values(r[0])).toEqual([1, 2, 5, 6]);
    expect(values(r[1])).toEqual([3, 4, 7, 8]);
    const n = runOp('SPLIT', [c(i32([], [-2])), x], { num_splits: 2 }, ['float32', 'float32']);
    expect(values(n[1])).toEqual([5, 6, 7, 8]);
    expect(() => runOp('SPLIT', [c(i32([], [1])), x], { num_splits: 3 }, ['float32', 'float32', 'float32'])).toThrow(/equal parts/);
  });
  it('SPLIT_V: sizes with -1', () => {
    const r = runOp('SPLIT_V', [x, c(i32([2], [1, -1])), c(i32([], [1]))], { num_splits: 2 }, ['float32', 'float32']);
    expect(r[0]!.shape).toEqual([2, 1]);
    expect(r[1]!.shape).toEqual([2, 3]);
    expect(values(r[1])).toEqual([2, 3, 4, 6, 7, 8]);
  });
  it('UNPACK along axis 0, 1 and -1', () => {
    const r0 = runOp('UNPACK', [x], { num: 2, axis: 0 }, ['float32', 'float32']);
    expect(r0.map((t) => t.shape)).toEqual([[4], [4]]);
    expect(values(r0[1])).toEqual([5, 6, 7, 8]);
    const r1 = runOp('UNPACK', [x], { num: 4, axis: -1 }, ['float32', 'float32', 'float32', 'float32']);
    expect(r1.map((t) => t.shape)).toEqual([[2], [2], [2], [2]]);
    expect(r1.map(values)).toEqual([
      [1, 5],
      [2, 6],
      [3, 7],
      [4, 8],
    ]);
  });
});

describe('CUMSUM', () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  const cs = (exclusive: boolean, reverse: boolean, axis = 1) => values(runOp('CUMSUM', [x, c(i32([], [axis]))], { exclusive, reverse })[0]);
  it('inclusive / exclusive, forward / reverse', () => {
    expect(cs(false, false)).toEqual([1, 3, 6, 4, 9, 15]);
    expect(cs(true, false)).toEqual([0, 1, 3, 0, 4, 9]);
    expect(cs(false, true)).toEqual([6, 5, 3, 15, 11, 6]);
    expect(cs(true, true)).toEqual([5, 3, 0, 11, 6, 0]);
    expect(cs(false, false, 0)).toEqual([1, 2, 3, 5, 7, 9]);
    expect(cs(false, false, -2)).toEqual([1, 2, 3, 5, 7, 9]);
  });
});

const grid4 = f32([1, 4, 4, 1], Array.from({ length: 16 }, (_, i) => i + 1));
const grid3 = f32([1, 3, 3, 1], Array.from({ length: 9 }, (_, i) => i + 1));
const SAME = 0;
const VALID = 1;

describe('CONV_2D', () => {
  const ones3 = f32([1, 3, 3, 1], new Array(9).fill(1));
  it('SAME with stride 2 puts the odd padding after (TFLite)', () => {
    const [r] = runOp('CONV_2D', [grid4, c(ones3), null], { padding: SAME, stride_h: 2, stride_w: 2, dilation_h_factor: 1, dilation_w_factor: 1 });
    expect(r!.shape).toEqual([1, 2, 2, 1]);
    expect(values(r)).toEqual([54, 45, 72, 54]);
  });
  it('VALID stride 1', () => {
    const [r] = runOp('CONV_2D', [grid4, c(ones3), null], { padding: VALID, stride_h: 1, stride_w: 1 });
    expect(r!.shape).toEqual([1, 2, 2, 1]);
    expect(values(r)).toEqual([54, 63, 90, 99]);
  });
  it('SAME stride 1 pads one before and one after', () => {
    const [r] = runOp('CONV_2D', [grid3, c(ones3), null], { padding: SAME, stride_h: 1, stride_w: 1 });
    expect(values(r)).toEqual([12, 21, 16, 27, 45, 33, 24, 39, 28]);
  });
  it('dilation', () => {
    const [r] = runOp('CONV_2D', [grid4, c(f32([1, 2, 2, 1], [1, 1, 1, 1])), null], { padding: VALID, stride_h: 1, stride_w: 1, dilation_h_factor: 2, dilation_w_factor: 2 });
    expect(values(r)).toEqual([24, 28, 40, 44]);
  });
  it('OHWI filter over channels, bias, fused RELU', () => {
    const x = f32([1, 1, 1, 2], [1, 2]);
    const w = f32([2, 1, 1, 2], [1, 10, 100, 1000]);
    const [r] = runOp('CONV_2D', [x, c(w), c(f32([2], [-30, 0]))], { padding: VALID, stride_h: 1, stride_w: 1, fused_activation_function: 1 });
    expect(r!.shape).toEqual([1, 1, 1, 2]);
    expect(values(r)).toEqual([0, 2100]);
  });
});

describe('DEPTHWISE_CONV_2D', () => {
  it('SAME 2x2 on 3x3 (padding after only)', () => {
    const [r] = runOp('DEPTHWISE_CONV_2D', [grid3, c(f32([1, 2, 2, 1], [1, 1, 1, 1])), null], { padding: SAME, stride_h: 1, stride_w: 1, depth_multiplier: 1 });
    expect(r!.shape).toEqual([1, 3, 3, 1]);
    expect(values(r)).toEqual([12, 16, 9, 24, 28, 15, 15, 17, 9]);
  });
  it('depth_multiplier 2: output channel c * 2 + m reads input channel c', () => {
    const [r] = runOp('DEPTHWISE_CONV_2D', [f32([1, 1, 1, 2], [2, 3]), c(f32([1, 1, 1, 4], [1, 2, 3, 4])), c(f32([4], [0, 0, 0, 1]))], { padding: VALID, stride_h: 1, stride_w: 1, depth_multiplier: 2 });
    expect(r!.shape).toEqual([1, 1, 1, 4]);
    expect(values(r)).toEqual([2, 4, 9, 13]);
  });
});

describe('pooling', () => {
  const pool = { filter_height: 2, filter_width: 2, stride_h: 2, stride_w: 2 };
  it('AVERAGE_POOL_2D SAME averages only over elements inside the input', () => {
    const [r] = runOp('AVERAGE_POOL_2D', [grid3], { ...pool, padding: SAME });
    expect(r!.shape).toEqual([1, 2, 2, 1]);
    expect(values(r)).toEqual([3, 4.5, 7.5, 9]);
  });
  it('AVERAGE_POOL_2D SAME with padding before and after', () => {
    const [r] = runOp('AVERAGE_POOL_2D', [f32([1, 1, 4, 1], [1, 2, 3, 4])], { filter_height: 1, filter_width: 3, stride_h: 1, stride_w: 1, padding: SAME });
    expect(values(r)).toEqual([1.5, 2, 3, 3.5]);
  });
  it('AVERAGE_POOL_2D VALID and MAX_POOL_2D SAME / VALID', () => {
    expect(values(runOp('AVERAGE_POOL_2D', [grid3], { ...pool, stride_h: 1, stride_w: 1, padding: VALID })[0])).toEqual([3, 4, 6, 7]);
    expect(values(runOp('MAX_POOL_2D', [grid3], { ...pool, padding: SAME })[0])).toEqual([5, 6, 8, 9]);
    const [v] = runOp('MAX_POOL_2D', [grid3], { ...pool, padding: VALID });
    expect(v!.shape).toEqual([1, 1, 1, 1]);
    expect(values(v)).toEqual([5]);
  });
  it('fused activation on a pool', () => {
    const [r] = runOp('MAX_POOL_2D', [grid3], { ...pool, padding: SAME, fused_activation_function: 3 });
    expect(values(r)).toEqual([5, 6, 6, 6]);
  });
});

describe('shape operators', () => {
  const x = f32([2, 3], [1, 2, 3, 4, 5, 6]);
  it('RESHAPE from the new_shape option, from a shape input, with -1', () => {
    expect(runOp('RESHAPE', [x], { new_shape: [3, -1] })[0]!.shape).toEqual([3, 2]);
    const [r] = runOp('RESHAPE', [x, c(i32([3], [1, -1, 2]))]);
    expect(r!.shape).toEqual([1, 3, 2]);
    expect(values(r)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(() => runOp('RESHAPE', [x], { new_shape: [4, -1] })).toThrow(/RESHAPE/);
  });
  it('CONCATENATION on axis 1 and -1 (same), axis 0', () => {
    const y = f32([2, 1], [7, 8]);
    for (const axis of [1, -1]) {
      const [r] = runOp('CONCATENATION', [x, y], { axis });
      expect(r!.shape).toEqual([2, 4]);
      expect(values(r)).toEqual([1, 2, 3, 7, 4, 5, 6, 8]);
    }
    const [z] = runOp('CONCATENATION', [x, f32([1, 3], [7, 8, 9])], { axis: 0, fused_activation_function: 3 });
    expect(values(z)).toEqual([1, 2, 3, 4, 5, 6, 6, 6, 6]);
  });
  it('TRANSPOSE, PAD, SQUEEZE, EXPAND_DIMS', () => {
    const [t] = runOp('TRANSPOSE', [x, c(i32([2], [1, 0]))]);
    expect(t!.shape).toEqual([3, 2]);
    expect(values(t)).toEqual([1, 4, 2, 5, 3, 6]);
    const [p] = runOp('PAD', [f32([1, 2], [1, 2]), c(i32([2, 2], [0, 1, 1, 0]))]);
    expect(p!.shape).toEqual([2, 3]);
    expect(values(p)).toEqual([0, 1, 2, 0, 0, 0]);
    expect(runOp('SQUEEZE', [f32([1, 2, 1], [1, 2])], { squeeze_dims: [] })[0]!.shape).toEqual([2]);
    expect(runOp('SQUEEZE', [f32([1, 2, 1], [1, 2])], { squeeze_dims: [-1] })[0]!.shape).toEqual([1, 2]);
    expect(runOp('EXPAND_DIMS', [x, c(i32([], [-1]))])[0]!.shape).toEqual([2, 3, 1]);
    expect(runOp('EXPAND_DIMS', [x, c(i32([1], [0]))])[0]!.shape).toEqual([1, 2, 3]);
  });
});

describe('SOFTMAX, INSTANCE_NORM, BATCH_MATMUL', () => {
  it('SOFTMAX over the last axis with beta', () => {
    const [r] = runOp('SOFTMAX', [f32([2, 3], [1, 2, 3, 0, 0, 0])], { beta: 2 });
    const e = [Math.exp(-4), Math.exp(-2), 1];
    const s = e[0]! + e[1]! + e[2]!;
    expect(values(r)).toEqual([...e.map((v) => Math.fround(v / s)), Math.fround(1 / 3), Math.fround(1 / 3), Math.fround(1 / 3)]);
  });
  it('INSTANCE_NORM normalises each channel over H, W with gamma and beta', () => {
    // channel 0: [1, 3] mean 2 var 1; channel 1: [2, 6] mean 4 var 4
    const x = f32([1, 2, 1, 2], [1, 2, 3, 6]);
    const [r] = runOp('INSTANCE_NORM', [x, c(f32([2], [1, 2])), c(f32([2], [0, 1]))], { epsilon: 0, fused_activation_function: 0 });
    expect(r!.shape).toEqual([1, 2, 1, 2]);
    expect(values(r)).toEqual([-1, -1, 1, 3]);
    const [e] = runOp('INSTANCE_NORM', [x, c(f32([1], [1])), c(f32([1], [0]))], { epsilon: 0.001, fused_activation_function: 1 });
    const a0 = 1 / Math.sqrt(1 + Math.fround(0.001));
    const a1 = 1 / Math.sqrt(4 + Math.fround(0.001));
    expect(values(e)).toEqual([0, 0, Math.fround(a0), Math.fround(2 * a1)]);
  });
  it('BATCH_MATMUL with broadcast batch and adjoint rhs', () => {
    const a = f32([2, 1, 2], [1, 2, 3, 4]);
    const b = f32([2, 1], [10, 100]);
    const [r] = runOp('BATCH_MATMUL', [a, b]);
    expect(r!.shape).toEqual([2, 1, 1]);
    expect(values(r)).toEqual([210, 430]);
    const [t] = runOp('BATCH_MATMUL', [a, f32([1, 2], [10, 100])], { adjoint_rhs: true });
    expect(values(t)).toEqual([210, 430]);
  });
});

describe('DEQUANTIZE', () => {
  it('float16 constants become float32; per-channel int8 uses its scales and zero points', () => {
    const [h] = runOp('DEQUANTIZE', [c({ dtype: 'float16', shape: [2], data: Float32Array.from([0.5, -2]) })]);
    expect(h!.dtype).toBe('float32');
    expect(values(h)).toEqual([0.5, -2]);
    const model = buildModel({
      tensors: { q: { dtype: 'int8', shape: [2, 2], data: [1, 2, 3, 4], scale: [0.5, 2] }, y: { shape: [2, 2] } },
      inputs: [],
      outputs: ['y'],
      ops: [{ op: 'DEQUANTIZE', inputs: ['q'], outputs: ['y'] }],
    });
    model.subgraphs[0]!.tensors[0]!.quantization!.zeroPoint = [1, 0];
    // quantized_dimension 0: row 0 (q - 1) * 0.5, row 1 q * 2
    expect(values(run(model, [])[0])).toEqual([0, 0.5, 6, 8]);
  });
});

describe('errors', () => {
  it('an unsupported operator is named with its index', () => {
    const model = buildModel({
      tensors: { x: { shape: [2] }, y: { shape: [2] }, z: { shape: [2] } },
      inputs: ['x'],
      outputs: ['z'],
      ops: [
        { op: 'RELU', inputs: ['x'], outputs: ['y'] },
        { op: 'HARD_SWISH', inputs: ['y'], outputs: ['z'] },
      ],
    });
    let error: unknown;
    try {
      run(model, [f32([2], [1, 2])]);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InterpreterError);
    const info = (error as InterpreterError).info;
    expect(info).toMatchObject({ kind: 'unsupported', operator: 'HARD_SWISH', operatorIndex: 1, subgraphIndex: 0 });
    expect((error as Error).message).toMatch(/operator 1 \(HARD_SWISH\).*not supported/);
  });
  it('a quantized ADD is refused, not computed on raw integers', () => {
    const model = buildModel({
      tensors: { x: { dtype: 'uint8', shape: [2], scale: [0.5] }, y: { dtype: 'uint8', shape: [2], scale: [0.5] }, z: { dtype: 'uint8', shape: [2], scale: [1] } },
      inputs: ['x', 'y'],
      outputs: ['z'],
      ops: [{ op: 'ADD', inputs: ['x', 'y'], outputs: ['z'] }],
    });
    const u8 = { dtype: 'uint8' as const, shape: [2], data: Uint8Array.from([1, 2]) };
    expect(() => run(model, [u8, u8])).toThrow(/quantized ADD/);
  });
  it('inputs by name, wrong dtype and wrong shape', () => {
    const model = buildModel({ tensors: { a: { shape: [2] }, b: { shape: [2] }, s: { shape: [2] } }, inputs: ['a', 'b'], outputs: ['s'], ops: [{ op: 'SUB', inputs: ['a', 'b'], outputs: ['s'] }] });
    expect(values(run(model, { b: f32([2], [1, 1]), a: f32([2], [5, 6]) })[0])).toEqual([4, 5]);
    expect(() => run(model, { a: f32([2], [5, 6]) })).toThrow(/no value given for input "b"/);
    expect(() => run(model, [i32([2], [1, 2]), f32([2], [1, 1])])).toThrow(/expected float32, got int32/);
    expect(() => run(model, [f32([3], [1, 2, 3]), f32([2], [1, 1])])).toThrow(/does not fit/);
  });
});

const recipesDir = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'one', 'recipes');
const recipe = (name: string) => buildFromRecipe(readFileSync(join(recipesDir, name, 'test.recipe'), 'utf8'), `${name}/test.recipe`);

describe('control flow on the fixture recipes', () => {
  it('Part_If_Add_Sub_001: cond T -> IF_THEN, whose IF takes IF_THEN_THEN: (a + b) + (a - b) = 2a', () => {
    const model = recipe('Part_If_Add_Sub_001');
    const a = f32([2, 3], [1, 2, 3, 4, 5, 6]);
    const b = f32([2, 3], [0.5, -1, 7, 0, 2, 3]);
    const [r] = run(model, [a, b]);
    expect(r!.shape).toEqual([2, 3]);
    expect(values(r)).toEqual([2, 4, 6, 8, 10, 12]);
  });
  it('IF takes the else branch when the condition is false', () => {
    const model = recipe('Part_If_Add_Sub_001');
    // flip the main graph's constant condition to false: then IF_ELSE (subgraph 3, Add) runs
    const main = model.subgraphs[0]!;
    const cond = main.tensors.find((t) => t.name === 'cond')!;
    model.buffers[cond.buffer] = { data: Uint8Array.from([0]), offset: 0, size: 0 };
    const a = f32([2, 3], [1, 2, 3, 4, 5, 6]);
    const b = f32([2, 3], [1, 1, 1, 1, 1, 1]);
    // else: add + sub = (a + b) + (a - b) through IF_ELSE's Add, also 2a
    expect(values(run(model, [a, b])[0])).toEqual([2, 4, 6, 8, 10, 12]);
    // the inner IF of IF_THEN picks its else (Mul) when its own condition is false
    const ifThen = model.subgraphs[4]!;
    const innerCond = ifThen.tensors.find((t) => t.name === 'cond')!;
    model.buffers[innerCond.buffer] = { data: Uint8Array.from([0]), offset: 0, size: 0 };
    model.buffers[cond.buffer] = { data: Uint8Array.from([1]), offset: 0, size: 0 };
    // then IF_THEN -> IF_THEN_ELSE: (a + b) * (a - b) = a^2 - b^2
    expect(values(run(model, [a, b])[0])).toEqual([0, 3, 8, 15, 24, 35]);
  });
  it('Part_While_000: the loop counts max(min(x, 0), 0) up to 10', () => {
    const model = recipe('Part_While_000');
    expect(values(run(model, [f32([1], [-3.5])])[0])).toEqual([10]);
    expect(values(run(model, [f32([1], [0.25])])[0])).toEqual([10]);
  });
  it('Part_While_001: a WHILE nested in a WHILE body ends at 10', () => {
    const model = recipe('Part_While_001');
    const [r] = run(model, [f32([], [0.7])]);
    expect(r!.shape).toEqual([]);
    expect(values(r)).toEqual([10]);
  });
  it('a WHILE that never ends hits the iteration cap with a limit error', () => {
    const model = recipe('Part_While_000');
    // make the body add 0: the condition x < 10 never turns false
    const body = model.subgraphs[2]!;
    const step = body.tensors.find((t) => t.name === 'ifm3')!;
    model.buffers[step.buffer] = { data: new Uint8Array(4), offset: 0, size: 0 };
    expect(() => run(model, [f32([1], [0])], { maxWhileIterations: 50 })).toThrow(/WHILE did not finish within 50 iterations/);
    try {
      run(model, [f32([1], [0])], { maxWhileIterations: 50 });
    } catch (e) {
      expect((e as InterpreterError).info).toMatchObject({ kind: 'limit', operator: 'WHILE', operatorIndex: 2 });
    }
  });
});
