/**
 * Data-movement kernels: the values are copied unchanged (any dtype, int64 included), only the
 * layout changes.
 */
import { invalid, unsupported } from './errors';
import { fusedActivation, input, normAxis, optNumber, optNumbers, optionalInput, shapeString, type Kernel, type KernelContext } from './kernel';
import { elementCount, fromNumbers, gather, isFloat, scalarOf, stridesOf, toNumbers, type TensorValue } from './tensor';

function intsOf(t: TensorValue): number[] {
  const out: number[] = [];
  for (let i = 0; i < t.data.length; i++) out.push(scalarOf(t, i));
  return out;
}

function identityIndex(n: number): Int32Array {
  const m = new Int32Array(n);
  for (let i = 0; i < n; i++) m[i] = i;
  return m;
}

function withShape(t: TensorValue, shape: number[]): TensorValue {
  return gather(t, shape, identityIndex(elementCount(t.shape)));
}

/** Resolve a target shape with at most one -1 against an element count. */
export function resolveShape(target: readonly number[], count: number): number[] {
  const shape = [...target];
  const unknown = shape.indexOf(-1);
  if (unknown !== shape.lastIndexOf(-1)) invalid(`new shape ${shapeString(target)} has more than one -1`);
  if (shape.some((d, i) => i !== unknown && (d < 0 || !Number.isInteger(d)))) invalid(`new shape ${shapeString(target)} has an invalid dimension`);
  if (unknown >= 0) {
    const known = elementCount(shape.filter((_, i) => i !== unknown));
    if (known === 0 || count % known !== 0) invalid(`cannot reshape ${count} elements to ${shapeString(target)}`);
    shape[unknown] = count / known;
  }
  if (elementCount(shape) !== count) invalid(`cannot reshape ${count} elements to ${shapeString(target)}`);
  return shape;
}

function reshape(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const shapeT = optionalInput(ctx, 1);
  // the shape input wins when present (TFLite), else the new_shape option
  const target = shapeT && shapeT.shape.length === 1 ? intsOf(shapeT) : (optNumbers(ctx, 'new_shape') ?? (shapeT ? intsOf(shapeT) : null));
  if (!target) invalid('RESHAPE has neither a shape input nor a new_shape option');
  return [withShape(a, resolveShape(target, elementCount(a.shape)))];
}

function squeeze(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const dims = (optNumbers(ctx, 'squeeze_dims') ?? []).map((d) => normAxis(d, a.shape.length, 'squeeze dim'));
  const shape = a.shape.filter((d, i) => {
    if (dims.length === 0) return d !== 1;
    if (!dims.includes(i)) return true;
    if (d !== 1) invalid(`cannot squeeze dimension ${i} of size ${d}`);
    return false;
  });
  return [withShape(a, shape)];
}

function expandDims(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const axis = normAxis(scalarOf(input(ctx, 1)), a.shape.length + 1);
  const shape = [...a.shape];
  shape.splice(axis, 0, 1);
  return [withShape(a, shape)];
}

/** out[...] = in[perm-permuted index] */
export function transposeValue(a: TensorValue, perm: readonly number[]): TensorValue {
  const rank = a.shape.length;
  if (perm.length !== rank || [...perm].sort((x, y) => x - y).some((p, i) => p !== i)) invalid(`permutation [${perm.join(',')}] does not fit rank ${rank}`);
  const outShape = perm.map((p) => a.shape[p]!);
  const inStrides = stridesOf(a.shape);
  const st = perm.map((p) => inStrides[p]!);
  const n = elementCount(outShape);
  const map = new Int32Array(n);
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
  return gather(a, outShape, map);
}

function transpose(ctx: KernelContext): TensorValue[] {
  return [transposeValue(input(ctx, 0), intsOf(input(ctx, 1)))];
}

/** Concatenate along an axis (all inputs of one dtype and matching other dims). */
export function concatValues(parts: readonly TensorValue[], axis: number): TensorValue {
  const first = parts[0];
  if (!first) invalid('nothing to concatenate');
  const rank = first.shape.length;
  for (const p of parts) {
    if (p.dtype !== first.dtype) invalid(`input dtypes differ: ${first.dtype} and ${p.dtype}`);
    if (p.shape.length !== rank || p.shape.some((d, i) => i !== axis && d !== first.shape[i])) invalid(`shapes ${shapeString(first.shape)} and ${shapeString(p.shape)} do not concatenate on axis ${axis}`);
  }
  const outShape = [...first.shape];
  outShape[axis] = parts.reduce((s, p) => s + p.shape[axis]!, 0);
  const inner = elementCount(first.shape.slice(axis + 1));
  const outer = elementCount(first.shape.slice(0, axis));
  // gather from one flat source: the parts laid end to end
  const offsets: number[] = [];
  let total = 0;
  for (const p of parts) {
    offsets.push(total);
    total += p.data.length;
  }
  const joined = gatherJoin(parts);
  const map = new Int32Array(elementCount(outShape));
  let o = 0;
  for (let b = 0; b < outer; b++) {
    parts.forEach((p, k) => {
      const chunk = p.shape[axis]! * inner;
      const base = offsets[k]! + b * chunk;
      for (let j = 0; j < chunk; j++) map[o++] = base + j;
    });
  }
  return gather(joined, outShape, map);
}

function gatherJoin(parts: readonly TensorValue[]): TensorValue {
  if (parts.length === 1) return parts[0]!;
  const n = parts.reduce((s, p) => s + p.data.length, 0);
  const first = parts[0]!;
  const data = first.data.constructor as new (n: number) => typeof first.data;
  const out = new data(n);
  let at = 0;
  for (const p of parts) {
    (out as { set(a: ArrayLike<number | bigint>, o: number): void }).set(p.data, at);
    at += p.data.length;
  }
  return { dtype: first.dtype, shape: [n], data: out };
}

function concatenation(ctx: KernelContext): TensorValue[] {
  const parts = ctx.inputs.map((_, i) => input(ctx, i));
  const first = parts[0];
  if (!first) invalid('CONCATENATION has no inputs');
  const axis = normAxis(optNumber(ctx, 'axis', 0), first.shape.length);
  const joined = concatValues(parts, axis);
  const code = optNumber(ctx, 'fused_activation_function', 0);
  if (code === 0) return [joined];
  if (!isFloat(joined.dtype)) unsupported('a fused activation on an integer CONCATENATION is not supported');
  const act = fusedActivation(ctx, joined.dtype);
  return [fromNumbers(joined.dtype, joined.shape, toNumbers(joined).map(act))];
}

/** Split along an axis into pieces of the given sizes. */
export function splitValue(a: TensorValue, axis: number, sizes: readonly number[]): TensorValue[] {
  const inner = elementCount(a.shape.slice(axis + 1));
  const outer = elementCount(a.shape.slice(0, axis));
  const len = a.shape[axis]!;
  let start = 0;
  return sizes.map((size) => {
    const shape = [...a.shape];
    shape[axis] = size;
    const map = new Int32Array(elementCount(shape));
    let o = 0;
    for (let b = 0; b < outer; b++) {
      const base = (b * len + start) * inner;
      for (let j = 0; j < size * inner; j++) map[o++] = base + j;
    }
    start += size;
    return gather(a, shape, map);
  });
}

function split(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 1);
  const axis = normAxis(scalarOf(input(ctx, 0)), a.shape.length);
  const num = optNumber(ctx, 'num_splits', ctx.outputCount);
  const len = a.shape[axis]!;
  if (num <= 0 || len % num !== 0) invalid(`dimension ${axis} of size ${len} does not split into ${num} equal parts`);
  return splitValue(a, axis, new Array<number>(num).fill(len / num));
}

function splitV(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const sizes = intsOf(input(ctx, 1));
  const axis = normAxis(scalarOf(input(ctx, 2)), a.shape.length);
  const len = a.shape[axis]!;
  const unknown = sizes.indexOf(-1);
  if (unknown >= 0) sizes[unknown] = len - sizes.reduce((s, v, i) => (i === unknown ? s : s + v), 0);
  if (sizes.some((s) => s < 0) || sizes.reduce((s, v) => s + v, 0) !== len) invalid(`size_splits [${sizes.join(',')}] do not add up to ${len}`);
  return splitValue(a, axis, sizes);
}

function unpack(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const axis = normAxis(optNumber(ctx, 'axis', 0), a.shape.length);
  const len = a.shape[axis]!;
  const num = optNumber(ctx, 'num', len);
  if (num !== len) invalid(`UNPACK num ${num} does not match dimension ${axis} of size ${len}`);
  const shape = a.shape.filter((_, i) => i !== axis);
  return splitValue(a, axis, new Array<number>(len).fill(1)).map((p) => ({ ...p, shape: [...shape] }));
}

function pack(ctx: KernelContext): TensorValue[] {
  const parts = ctx.inputs.map((_, i) => input(ctx, i));
  const first = parts[0];
  if (!first) invalid('PACK has no inputs');
  const axis = normAxis(optNumber(ctx, 'axis', 0), first.shape.length + 1);
  const expanded = parts.map((p) => {
    const s = [...p.shape];
    s.splice(axis, 0, 1);
    return { ...p, shape: s };
  });
  return [concatValues(expanded, axis)];
}

function pad(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const paddings = intsOf(input(ctx, 1));
  const rank = a.shape.length;
  if (paddings.length !== rank * 2) invalid(`paddings hold ${paddings.length} values, rank ${rank} needs ${rank * 2}`);
  if (paddings.some((p) => p < 0)) invalid('negative padding');
  const valueT = optionalInput(ctx, 2);
  const fill = valueT ? scalarOf(valueT) : 0;
  const outShape = a.shape.map((d, i) => d + paddings[2 * i]! + paddings[2 * i + 1]!);
  const x = toNumbers(a);
  const out = new Float64Array(elementCount(outShape)).fill(fill);
  const outStrides = stridesOf(outShape);
  const counter = new Array<number>(rank).fill(0);
  for (let i = 0; i < x.length; i++) {
    let o = 0;
    for (let d = 0; d < rank; d++) o += (counter[d]! + paddings[2 * d]!) * outStrides[d]!;
    out[o] = x[i]!;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      if (counter[d]! < a.shape[d]!) break;
      counter[d] = 0;
    }
  }
  if (a.dtype === 'int64' || a.dtype === 'uint64') unsupported('PAD of 64-bit integers is not supported');
  return [fromNumbers(a.dtype, outShape, out)];
}

function slice(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const begin = intsOf(input(ctx, 1));
  const size = intsOf(input(ctx, 2));
  const rank = a.shape.length;
  if (begin.length !== rank || size.length !== rank) invalid(`begin and size must have ${rank} values`);
  const outShape = size.map((s, i) => (s === -1 ? a.shape[i]! - begin[i]! : s));
  outShape.forEach((s, i) => {
    if (begin[i]! < 0 || s < 0 || begin[i]! + s > a.shape[i]!) invalid(`slice [${begin[i]}, +${s}) is outside dimension ${i} of size ${a.shape[i]}`);
  });
  const inStrides = stridesOf(a.shape);
  const n = elementCount(outShape);
  const map = new Int32Array(n);
  const counter = new Array<number>(rank).fill(0);
  for (let i = 0; i < n; i++) {
    let idx = 0;
    for (let d = 0; d < rank; d++) idx += (counter[d]! + begin[d]!) * inStrides[d]!;
    map[i] = idx;
    for (let d = rank - 1; d >= 0; d--) {
      counter[d]!++;
      if (counter[d]! < outShape[d]!) break;
      counter[d] = 0;
    }
  }
  return [gather(a, outShape, map)];
}

function shapeOp(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const dtype = ctx.outputDTypes[0] === 'int64' ? 'int64' : 'int32';
  return [fromNumbers(dtype, [a.shape.length], a.shape)];
}

function cast(ctx: KernelContext): TensorValue[] {
  const a = input(ctx, 0);
  const dtype = ctx.outputDTypes[0];
  if (!dtype) unsupported('CAST to this output type is not supported');
  return [fromNumbers(dtype, a.shape, toNumbers(a))];
}

export const SHAPE_KERNELS: Record<string, Kernel> = {
  RESHAPE: reshape,
  SQUEEZE: squeeze,
  EXPAND_DIMS: expandDims,
  TRANSPOSE: transpose,
  CONCATENATION: concatenation,
  SPLIT: split,
  SPLIT_V: splitV,
  UNPACK: unpack,
  PACK: pack,
  PAD: pad,
  PADV2: pad,
  SLICE: slice,
  SHAPE: shapeOp,
  CAST: cast,
};
