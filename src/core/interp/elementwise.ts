/**
 * Element-wise kernels (numpy broadcasting), reductions and CUMSUM.
 *
 * Float math runs in float64 and each result is rounded to the tensor's precision once per op,
 * which equals what the TFLite reference kernels compute in float32 for single operations
 * (+, -, *, /, sqrt are correctly rounded either way).
 */
import { invalid, unsupported } from './errors';
import { fusedActivation, input, normAxis, optBool, optNumber, rounder, sameShape, shapeString, type Kernel, type KernelContext } from './kernel';
import { elementCount, fromNumbers, isFloat, scalarOf, stridesOf, toNumbers, type DType, type TensorValue } from './tensor';

/** numpy broadcast of two shapes; throws on incompatible dims. */
export function broadcastShape(a: readonly number[], b: readonly number[]): number[] {
  const rank = Math.max(a.length, b.length);
  const out = new Array<number>(rank);
  for (let i = 0; i < rank; i++) {
    const da = a[a.length - rank + i] ?? 1;
    const db = b[b.length - rank + i] ?? 1;
    if (da !== db && da !== 1 && db !== 1) invalid(`shapes ${shapeString(a)} and ${shapeString(b)} do not broadcast`);
    out[i] = da === 1 ? db : da;
  }
  return out;
}

/** For every flat index of `outShape`, the flat index of the element of `inShape` broadcast to it. */
export function broadcastIndex(outShape: readonly number[], inShape: readonly number[]): Int32Array {
  const n = elementCount(outShape);
  const map = new Int32Array(n);
  if (sameShape(outShape, inShape)) {
    for (let i = 0; i < n; i++) map[i] = i;
    return map;
  }
  const rank = outShape.length;
  const inStrides = stridesOf(inShape);
  const st = new Array<number>(rank);
  for (let d = 0; d < rank; d++) {
    const k = inShape.length - rank + d;
    st[d] = k < 0 || inShape[k] === 1 ? 0 : inStrides[k]!;
  }
  const counter = new Array<number>(rank).fill(0);
  let idx = 0;
  for (let i = 0; i < n; i++) {
    map[i] = idx;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      idx += st[d]!;
      if (counter[d]! < outShape[d]!) break;
      idx -= st[d]! * outShape[d]!;
      counter[d] = 0;
    }
  }
  return map;
}

type BinaryFn = (a: number, b: number) => number;

function checkSameDType(a: TensorValue, b: TensorValue): void {
  if (a.dtype !== b.dtype) invalid(`input dtypes differ: ${a.dtype} and ${b.dtype}`);
}

function binaryArith(floatFn: BinaryFn, intFn: BinaryFn = floatFn, options: { activation: boolean } = { activation: true }): Kernel {
  return (ctx) => {
    const a = input(ctx, 0);
    const b = input(ctx, 1);
    checkSameDType(a, b);
    if (a.dtype === 'bool') unsupported('arithmetic on bool tensors is not supported');
    const shape = broadcastShape(a.shape, b.shape);
    const ia = broadcastIndex(shape, a.shape);
    const ib = broadcastIndex(shape, b.shape);
    const x = toNumbers(a);
    const y = toNumbers(b);
    const wide = a.dtype === 'int64' || a.dtype === 'uint64';
    // 64-bit integers: plain float64 math, then every result must be a safe integer (checked below)
    const fn = isFloat(a.dtype) || wide ? floatFn : intFn;
    const act = options.activation ? fusedActivation(ctx, a.dtype) : rounder(a.dtype);
    const out = new Float64Array(ia.length);
    for (let i = 0; i < out.length; i++) out[i] = act(fn(x[ia[i]!]!, y[ib[i]!]!));
    if (wide)
      for (const v of out) if (!Number.isSafeInteger(Math.trunc(v))) unsupported(`${a.dtype} arithmetic beyond 2^53 is not supported (result ${v})`);
    return [fromNumbers(a.dtype, shape, out)];
  };
}

function intDiv(a: number, b: number): number {
  if (b === 0) invalid('integer division by zero');
  return Math.trunc(a / b);
}

function intPow(a: number, b: number): number {
  if (b < 0) invalid('integer POW with a negative exponent');
  return Math.pow(a, b);
}

function compare(fn: (a: number, b: number) => boolean): Kernel {
  return (ctx) => {
    const a = input(ctx, 0);
    const b = input(ctx, 1);
    checkSameDType(a, b);
    const shape = broadcastShape(a.shape, b.shape);
    const ia = broadcastIndex(shape, a.shape);
    const ib = broadcastIndex(shape, b.shape);
    const x = toNumbers(a);
    const y = toNumbers(b);
    const out = new Uint8Array(ia.length);
    for (let i = 0; i < out.length; i++) out[i] = fn(x[ia[i]!]!, y[ib[i]!]!) ? 1 : 0;
    return [{ dtype: 'bool', shape, data: out }];
  };
}

function logical(fn: (a: boolean, b: boolean) => boolean): Kernel {
  return (ctx) => {
    const a = input(ctx, 0);
    const b = input(ctx, 1);
    if (a.dtype !== 'bool' || b.dtype !== 'bool') invalid('logical operators take bool inputs');
    return compare((x, y) => fn(x !== 0, y !== 0))(ctx);
  };
}

function unary(fn: (v: number) => number, options: { floatOnly?: boolean; intFn?: (v: number) => number } = {}): Kernel {
  return (ctx) => {
    const a = input(ctx, 0);
    if (a.dtype === 'bool') unsupported('this operator does not take bool tensors');
    const float = isFloat(a.dtype);
    if (!float && options.floatOnly) unsupported(`${a.dtype} input is not supported (float only)`);
    const f = float ? fn : (options.intFn ?? fn);
    const round = rounder(a.dtype);
    const x = toNumbers(a);
    const out = new Float64Array(x.length);
    for (let i = 0; i < x.length; i++) out[i] = round(f(x[i]!));
    return [fromNumbers(a.dtype, a.shape, out)];
  };
}

const floatOnly = { floatOnly: true };

export const ELEMENTWISE_KERNELS: Record<string, Kernel> = {
  ADD: binaryArith((a, b) => a + b),
  SUB: binaryArith((a, b) => a - b),
  // integer products beyond 2^53 lose bits in float64; Math.imul gives the exact low 32 bits (int32 wraps)
  MUL: binaryArith(
    (a, b) => a * b,
    (a, b) => (Number.isSafeInteger(a * b) ? a * b : Math.imul(a, b)),
  ),
  DIV: binaryArith((a, b) => a / b, intDiv),
  POW: binaryArith(Math.pow, intPow, { activation: false }),
  SQUARED_DIFFERENCE: binaryArith((a, b) => (a - b) * (a - b), (a, b) => (a - b) * (a - b), { activation: false }),
  // TFLite's MaximumOp / MinimumOp: `a > b ? a : b`, `a < b ? a : b`
  MAXIMUM: binaryArith((a, b) => (a > b ? a : b), undefined, { activation: false }),
  MINIMUM: binaryArith((a, b) => (a < b ? a : b), undefined, { activation: false }),
  FLOOR_DIV: binaryArith(
    (a, b) => Math.floor(a / b),
    (a, b) => {
      if (b === 0) invalid('integer division by zero');
      return Math.floor(a / b);
    },
    { activation: false },
  ),
  LESS: compare((a, b) => a < b),
  LESS_EQUAL: compare((a, b) => a <= b),
  GREATER: compare((a, b) => a > b),
  GREATER_EQUAL: compare((a, b) => a >= b),
  EQUAL: compare((a, b) => a === b),
  NOT_EQUAL: compare((a, b) => a !== b),
  LOGICAL_AND: logical((a, b) => a && b),
  LOGICAL_OR: logical((a, b) => a || b),
  LOGICAL_NOT: (ctx) => {
    const a = input(ctx, 0);
    if (a.dtype !== 'bool') invalid('LOGICAL_NOT takes a bool input');
    const out = new Uint8Array(a.data.length);
    for (let i = 0; i < out.length; i++) out[i] = a.data[i] ? 0 : 1;
    return [{ dtype: 'bool', shape: [...a.shape], data: out }];
  },
  SQRT: unary(Math.sqrt, floatOnly),
  // rounded as 1 / sqrt(x) in float32 (TFLite computes 1.f / std::sqrt(x))
  RSQRT: unary((v) => 1 / Math.fround(Math.sqrt(v)), floatOnly),
  TANH: unary(Math.tanh, floatOnly),
  LOGISTIC: unary((v) => 1 / (1 + Math.exp(-v)), floatOnly),
  EXP: unary(Math.exp, floatOnly),
  LOG: unary(Math.log, floatOnly),
  SIN: unary(Math.sin, floatOnly),
  COS: unary(Math.cos, floatOnly),
  FLOOR: unary(Math.floor, floatOnly),
  CEIL: unary(Math.ceil, floatOnly),
  NEG: unary((v) => -v),
  ABS: unary(Math.abs),
  SQUARE: unary((v) => v * v),
  RELU: unary((v) => (v < 0 ? 0 : v), floatOnly),
  RELU6: unary((v) => (v < 0 ? 0 : v > 6 ? 6 : v), floatOnly),
  RELU_N1_TO_1: unary((v) => (v < -1 ? -1 : v > 1 ? 1 : v), floatOnly),
  LEAKY_RELU: (ctx) => {
    const alpha = Math.fround(optNumber(ctx, 'alpha', 0));
    return unary((v) => (v > 0 ? v : v * alpha), floatOnly)(ctx);
  },
  MEAN: reducer('mean'),
  SUM: reducer('sum'),
  REDUCE_MAX: reducer('max'),
  REDUCE_MIN: reducer('min'),
  REDUCE_PROD: reducer('prod'),
  CUMSUM: cumsum,
};

/** Axes of a reduction from its second input (scalar or 1-D), normalised and deduplicated. */
function reductionAxes(axesT: TensorValue, rank: number): Set<number> {
  const axes = new Set<number>();
  for (let i = 0; i < axesT.data.length; i++) axes.add(normAxis(scalarOf(axesT, i), rank));
  return axes;
}

function reducer(kind: 'mean' | 'sum' | 'max' | 'min' | 'prod'): Kernel {
  return (ctx) => {
    const a = input(ctx, 0);
    if (a.dtype === 'bool') unsupported('reduction of bool tensors is not supported');
    const axes = reductionAxes(input(ctx, 1), a.shape.length);
    const keepDims = optBool(ctx, 'keep_dims');
    const keptShape = a.shape.map((d, i) => (axes.has(i) ? 1 : d));
    const outShape = keepDims ? keptShape : a.shape.filter((_, i) => !axes.has(i));
    const map = broadcastIndex(a.shape, keptShape);
    const n = elementCount(keptShape);
    const init = kind === 'max' ? -Infinity : kind === 'min' ? Infinity : kind === 'prod' ? 1 : 0;
    const acc = new Float64Array(n).fill(init);
    const x = toNumbers(a);
    for (let i = 0; i < x.length; i++) {
      const o = map[i]!;
      const v = x[i]!;
      if (kind === 'max') acc[o] = v > acc[o]! ? v : acc[o]!;
      else if (kind === 'min') acc[o] = v < acc[o]! ? v : acc[o]!;
      else if (kind === 'prod') acc[o] = acc[o]! * v;
      else acc[o] = acc[o]! + v;
    }
    if (kind === 'mean') {
      const count = x.length / Math.max(n, 1);
      const float = isFloat(a.dtype);
      for (let i = 0; i < n; i++) acc[i] = float ? acc[i]! / count : Math.trunc(acc[i]! / count);
    }
    const round = rounder(a.dtype);
    for (let i = 0; i < n; i++) acc[i] = round(acc[i]!);
    return [fromNumbers(a.dtype, outShape, acc)];
  };
}

/** CUMSUM(input, axis) with exclusive / reverse; accumulates in the tensor's type like TFLite's kernel. */
function cumsum(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  if (a.dtype === 'bool') unsupported('CUMSUM of bool tensors is not supported');
  const axis = normAxis(scalarOf(input(ctx, 1)), a.shape.length);
  const exclusive = optBool(ctx, 'exclusive');
  const reverse = optBool(ctx, 'reverse');
  const round = rounder(a.dtype);
  const wrap = isFloat(a.dtype) ? round : integerWrap(a.dtype);
  const x = toNumbers(a);
  const out = new Float64Array(x.length);
  const len = a.shape[axis]!;
  const inner = elementCount(a.shape.slice(axis + 1));
  const outer = elementCount(a.shape.slice(0, axis));
  for (let o = 0; o < outer; o++) {
    for (let k = 0; k < inner; k++) {
      let acc = 0;
      for (let j = 0; j < len; j++) {
        const jj = reverse ? len - 1 - j : j;
        const idx = (o * len + jj) * inner + k;
        if (exclusive) {
          out[idx] = acc;
          acc = wrap(acc + x[idx]!);
        } else {
          acc = wrap(acc + x[idx]!);
          out[idx] = acc;
        }
      }
    }
  }
  return [fromNumbers(a.dtype, a.shape, out)];
}

function integerWrap(dtype: DType): (v: number) => number {
  if (dtype === 'int32') return (v) => v | 0;
  return (v) => v;
}
