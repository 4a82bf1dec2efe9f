import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import type { OptionTable } from '../circle/model';
import { compareOutputs, randomInputs, run, type TensorValue } from './index';
import { buildModel, f32, i32, type TensorSpec } from './testing';
import { broadcastShape } from './elementwise';
import { float16FromBits, roundToFloat16 } from '../fp16';

function single(op: string, ins: TensorValue[], consts: Record<string, TensorValue>, inputOrder: string[], outCount: number, options: OptionTable = {}): TensorValue[] {
  const tensors: Record<string, TensorSpec> = {};
  ins.forEach((t, i) => (tensors[`x${i}`] = { shape: t.shape, dtype: t.dtype }));
  for (const [name, t] of Object.entries(consts)) tensors[name] = { shape: t.shape, dtype: t.dtype, data: Array.from(t.data, Number) };
  const outputs = Array.from({ length: outCount }, (_, j) => `y${j}`);
  for (const o of outputs) tensors[o] = { shape: [] };
  const model = buildModel({ tensors, inputs: ins.map((_, i) => `x${i}`), outputs, ops: [{ op, inputs: inputOrder, outputs, options }] });
  return run(model, ins);
}

const shape = (maxRank = 4) => fc.array(fc.integer({ min: 1, max: 4 }), { minLength: 0, maxLength: maxRank });
const floats = (n: number) => fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: n, maxLength: n });
const tensorOf = (s: number[]) => floats(s.reduce((a, b) => a * b, 1)).map((d) => f32(s, d));

/** a pair of shapes that broadcast: each dim of the second is the first's, or 1, and either may be shorter */
const broadcastPair = shape().chain((a) =>
  fc.tuple(
    fc.constant(a),
    fc.array(fc.boolean(), { minLength: a.length, maxLength: a.length }).chain((ones) => fc.integer({ min: 0, max: a.length }).map((drop) => a.map((d, i) => (ones[i] ? 1 : d)).slice(drop))),
  ),
);

describe('properties', () => {
  it('ADD commutes under broadcasting, and MUL too', () => {
    fc.assert(
      fc.property(
        broadcastPair.chain(([sa, sb]) => fc.tuple(tensorOf(sa), tensorOf(sb))),
        ([a, b]) => {
          const [ab] = single('ADD', [a, b], {}, ['x0', 'x1'], 1);
          const [ba] = single('ADD', [b, a], {}, ['x0', 'x1'], 1);
          expect(ab!.shape).toEqual(broadcastShape(a.shape, b.shape));
          expect(compareOutputs([ab!], [ba!], { floatTolerance: 0 }).ok).toBe(true);
          const [m1] = single('MUL', [a, b], {}, ['x0', 'x1'], 1);
          const [m2] = single('MUL', [b, a], {}, ['x0', 'x1'], 1);
          expect(compareOutputs([m1!], [m2!], { floatTolerance: 0 }).ok).toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('ADD with a broadcast operand equals ADD with it tiled out', () => {
    fc.assert(
      fc.property(
        broadcastPair.chain(([sa, sb]) => fc.tuple(tensorOf(sa), tensorOf(sb))),
        ([a, b]) => {
          const [direct] = single('ADD', [a, b], {}, ['x0', 'x1'], 1);
          // tile b by adding a zero tensor of a's shape first
          const zero = f32(a.shape, new Array(a.data.length).fill(0));
          const [tiled] = single('ADD', [b, zero], {}, ['x0', 'x1'], 1);
          const [again] = single('ADD', [a, tiled!], {}, ['x0', 'x1'], 1);
          expect(values(direct)).toEqual(values(again));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('RESHAPE preserves the data in order', () => {
    fc.assert(
      fc.property(
        shape().chain((s) => fc.tuple(tensorOf(s), fc.shuffledSubarray(s.length ? s : [1]))),
        ([t, dims]) => {
          const n = t.data.length;
          const target = [n];
          for (const d of dims) if (target[0]! % d === 0 && d > 1) {
            target[0] = target[0]! / d;
            target.push(d);
          }
          const withMinus = [...target];
          withMinus[0] = -1;
          const [r] = single('RESHAPE', [t], {}, ['x0'], 1, { new_shape: withMinus });
          expect(r!.shape).toEqual(target);
          expect(values(r)).toEqual(values(t));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('CONCATENATION then SPLIT is the identity', () => {
    fc.assert(
      fc.property(
        shape(3)
          .filter((s) => s.length > 0)
          .chain((s) => fc.tuple(fc.constant(s), fc.integer({ min: 0, max: s.length - 1 }), fc.integer({ min: 2, max: 3 })))
          .chain(([s, axis, parts]) => fc.tuple(fc.array(tensorOf(s), { minLength: parts, maxLength: parts }), fc.constant(axis), fc.boolean())),
        ([parts, axis, negative]) => {
          const rank = parts[0]!.shape.length;
          const a = negative ? axis - rank : axis;
          const [joined] = single('CONCATENATION', parts, {}, parts.map((_, i) => `x${i}`), 1, { axis: a });
          const back = single('SPLIT', [joined!], { axis: i32([], [a]) }, ['axis', 'x0'], parts.length, { num_splits: parts.length });
          expect(back.map((t) => t.shape)).toEqual(parts.map((p) => p.shape));
          back.forEach((t, i) => expect(values(t)).toEqual(values(parts[i])));
          const unpacked = single('UNPACK', [joined!], {}, ['x0'], joined!.shape[axis]!, { num: joined!.shape[axis]!, axis: a });
          expect(unpacked).toHaveLength(joined!.shape[axis]!);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('TRANSPOSE by a permutation then by its inverse is the identity', () => {
    fc.assert(
      fc.property(
        shape().chain((s) => fc.tuple(tensorOf(s), fc.shuffledSubarray(s.map((_, i) => i), { minLength: s.length, maxLength: s.length }))),
        ([t, perm]) => {
          const inverse = perm.map((_, i) => perm.indexOf(i));
          const [p] = single('TRANSPOSE', [t], { perm: i32([perm.length], perm) }, ['x0', 'perm'], 1);
          expect(p!.shape).toEqual(perm.map((k) => t.shape[k]));
          const [q] = single('TRANSPOSE', [p!], { perm: i32([inverse.length], inverse) }, ['x0', 'perm'], 1);
          expect(q!.shape).toEqual(t.shape);
          expect(values(q)).toEqual(values(t));
        },
      ),
      { numRuns: 60 },
    );
  });

  it('a 1x1 CONV_2D equals FULLY_CONNECTED over the channels', () => {
    fc.assert(
      fc.property(
        fc.tuple(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 4 }), fc.integer({ min: 1, max: 4 })).chain(([h, w, ci, co]) =>
          fc.tuple(tensorOf([1, h, w, ci]), floats(co * ci), floats(co)),
        ),
        ([x, wd, bd]) => {
          const ci = x.shape[3]!;
          const co = bd.length;
          const [conv] = single('CONV_2D', [x], { w: f32([co, 1, 1, ci], wd), b: f32([co], bd) }, ['x0', 'w', 'b'], 1, { padding: 1, stride_h: 1, stride_w: 1 });
          const [fcOut] = single('FULLY_CONNECTED', [x], { w: f32([co, ci], wd), b: f32([co], bd) }, ['x0', 'w', 'b'], 1, { keep_num_dims: true });
          expect(conv!.shape).toEqual(fcOut!.shape);
          expect(values(conv)).toEqual(values(fcOut));
        },
      ),
      { numRuns: 40 },
    );
  });

  it('float16 rounding agrees with decoding every half value', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 0x7bff }), fc.boolean(), (bits, neg) => {
        const v = float16FromBits(bits | (neg ? 0x8000 : 0));
        expect(roundToFloat16(v)).toBe(v);
      }),
    );
  });
});

describe('randomInputs and compareOutputs', () => {
  const model = buildModel({
    tensors: { a: { shape: [2, 3] }, n: { dtype: 'int32', shape: [4] }, f: { dtype: 'bool', shape: [3] }, s: { shape: [2, 3] } },
    inputs: ['a', 'n', 'f'],
    outputs: ['s'],
    ops: [{ op: 'RELU', inputs: ['a'], outputs: ['s'] }],
  });

  it('is deterministic per seed, typed and shaped per input, in the default ranges', () => {
    const one = randomInputs(model, 7);
    const two = randomInputs(model, 7);
    const other = randomInputs(model, 8);
    expect(one.map((t) => [t.dtype, t.shape])).toEqual([
      ['float32', [2, 3]],
      ['int32', [4]],
      ['bool', [3]],
    ]);
    expect(one.map(values)).toEqual(two.map(values));
    expect(values(one[0])).not.toEqual(values(other[0]));
    for (const v of values(one[0])) expect(v >= 0 && v < 1).toBe(true);
    for (const v of values(one[1])) expect(Number.isInteger(v) && v >= 0 && v < 10).toBe(true);
    for (const v of values(one[2])) expect(v === 0 || v === 1).toBe(true);
  });

  it('dynamic dimensions (-1 in shape_signature) become 1', () => {
    const dyn = buildModel({ tensors: { a: { shape: [1, 5] }, s: { shape: [1, 5] } }, inputs: ['a'], outputs: ['s'], ops: [{ op: 'RELU', inputs: ['a'], outputs: ['s'] }] });
    dyn.subgraphs[0]!.tensors[0]!.shapeSignature = [-1, 5];
    const [a] = randomInputs(dyn, 1, { floatRange: [-2, -1] });
    expect(a!.shape).toEqual([1, 5]);
    for (const v of values(a)) expect(v >= -2 && v < -1).toBe(true);
    // a batch of 3 runs too: the dynamic dimension is free
    expect(run(dyn, [f32([3, 5], new Array(15).fill(-1))])[0]!.shape).toEqual([3, 5]);
  });

  it('reports the largest difference per output with float tolerance 1e-5 and exact integers', () => {
    const a = [f32([3], [1, 2, 3]), i32([2], [5, 6]), f32([1], [NaN])];
    const b = [f32([3], [1, 2.000001, 3.5]), i32([2], [5, 7]), f32([1], [NaN])];
    const report = compareOutputs(a, b);
    expect(report.ok).toBe(false);
    expect(report.outputs[0]).toMatchObject({ index: 0, dtype: 'float32', worstIndex: 2, mismatches: 1, tolerance: 1e-5, ok: false });
    expect(report.outputs[0]!.maxAbsDiff).toBe(0.5);
    expect(report.outputs[1]).toMatchObject({ maxAbsDiff: 1, mismatches: 1, tolerance: 0, ok: false });
    expect(report.outputs[2]).toMatchObject({ maxAbsDiff: 0, ok: true });
    expect(report.maxAbsDiff).toBe(1);
    const close = compareOutputs([f32([2], [1, 2])], [f32([2], [1.000001, 2])]);
    expect(close.ok).toBe(true);
    expect(close.outputs[0]!.maxAbsDiff).toBeGreaterThan(0);
    expect(compareOutputs([f32([2], [1, 2])], [f32([1, 2], [1, 2])]).outputs[0]!.problem).toMatch(/shapes differ/);
    expect(compareOutputs([f32([1], [1])], [i32([1], [1])]).outputs[0]!.problem).toMatch(/dtypes differ/);
    expect(compareOutputs([f32([1], [1])], []).outputs[0]!.problem).toMatch(/missing/);
    expect(compareOutputs([f32([1], [NaN])], [f32([1], [0])]).outputs[0]!.maxAbsDiff).toBe(Infinity);
  });
});

function values(t: TensorValue | undefined): number[] {
  return Array.from(t!.data, Number);
}
