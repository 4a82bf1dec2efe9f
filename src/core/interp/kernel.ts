/**
 * What a kernel sees: its input values (null for an omitted optional input, index -1), the
 * operator's options (schema field names, defaults filled), the dtypes the model declares for
 * its outputs, and a way to run another subgraph (IF / WHILE).
 */
import type { CircleQuantization, OptionTable, OptionValue } from '../circle/model';
import { invalid, unsupported } from './errors';
import { isFloat, type DType, type TensorValue } from './tensor';
import { roundToFloat16 } from '../fp16';

export interface KernelContext {
  readonly inputs: readonly (TensorValue | null)[];
  readonly outputCount: number;
  readonly outputDTypes: readonly (DType | null)[];
  readonly options: OptionTable;
  /** quantization parameters of each input tensor (null when none or omitted) */
  readonly inputQuantization?: readonly (CircleQuantization | null)[];
  runSubgraph(index: number, inputs: TensorValue[]): TensorValue[];
}

export type Kernel = (ctx: KernelContext) => TensorValue[];

export function input(ctx: KernelContext, i: number): TensorValue {
  const t = ctx.inputs[i];
  if (!t) invalid(`input ${i} is missing`);
  return t;
}

export function optionalInput(ctx: KernelContext, i: number): TensorValue | null {
  return ctx.inputs[i] ?? null;
}

function option(ctx: KernelContext, name: string): OptionValue | undefined {
  return ctx.options[name];
}

export function optNumber(ctx: KernelContext, name: string, fallback: number): number {
  const v = option(ctx, name);
  return typeof v === 'number' ? v : typeof v === 'boolean' ? Number(v) : fallback;
}

export function optBool(ctx: KernelContext, name: string): boolean {
  const v = option(ctx, name);
  return v === true || (typeof v === 'number' && v !== 0);
}

export function optNumbers(ctx: KernelContext, name: string): number[] | null {
  const v = option(ctx, name);
  return Array.isArray(v) && v.every((x): x is number => typeof x === 'number') ? v : null;
}

/** Round a float64 result to the dtype's precision (integers are left to `fromNumbers`). */
export function rounder(dtype: DType): (v: number) => number {
  if (dtype === 'float32') return Math.fround;
  if (dtype === 'float16') return roundToFloat16;
  return (v) => v;
}

export type Activation = (v: number) => number;

const ACTIVATIONS: Record<number, Activation | undefined> = {
  0: (v) => v,
  1: (v) => (v < 0 ? 0 : v),
  2: (v) => (v < -1 ? -1 : v > 1 ? 1 : v),
  3: (v) => (v < 0 ? 0 : v > 6 ? 6 : v),
  4: Math.tanh,
};
const ACTIVATION_NAMES = ['NONE', 'RELU', 'RELU_N1_TO_1', 'RELU6', 'TANH', 'SIGN_BIT'];

/**
 * The fused activation of the options, composed with rounding: the op's float result is rounded
 * to the dtype first (as the TFLite kernels compute it in float), then the activation applies.
 */
export function fusedActivation(ctx: KernelContext, dtype: DType): Activation {
  const code = optNumber(ctx, 'fused_activation_function', 0);
  const act = ACTIVATIONS[code];
  if (!act) unsupported(`fused activation ${ACTIVATION_NAMES[code] ?? code} is not supported`);
  const round = rounder(dtype);
  if (code === 0) return round;
  if (!isFloat(dtype)) {
    if (code === 4) unsupported('fused TANH on an integer tensor is not supported');
    return act;
  }
  return (v) => round(act(round(v)));
}

/** Normalise an axis against a rank (negative counts from the end). */
export function normAxis(axis: number, rank: number, what = 'axis'): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) invalid(`${what} ${axis} is out of range for rank ${rank}`);
  return a;
}

export function sameShape(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}

export function shapeString(shape: readonly number[]): string {
  return `[${shape.join(',')}]`;
}
