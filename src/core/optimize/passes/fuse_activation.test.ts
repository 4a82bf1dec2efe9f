import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, actOptions, checkOptimize, conv2dOptions, opTypes, randomGraph } from '../testing';

function convRelu(act: number, activationOp: number = Op.RELU, extraReader = false) {
  const b = new ModelBuilder();
  const x = b.input('x', [1, 3, 3, 2]);
  const f = b.constF32('f', [2, 1, 1, 2], [0.5, -1, 1.5, 0.25]);
  const c = b.op(Op.CONV_2D, [x, f, b.constF32('b', [2], [0.1, -0.2])], 'conv', [1, 3, 3, 2], conv2dOptions(act));
  const r = b.op(activationOp, [c], 'relu', [1, 3, 3, 2]);
  b.output(r);
  if (extraReader) b.output(b.op(Op.ADD, [c, c], 'other', [1, 3, 3, 2], actOptions()));
  return b.build();
}

describe('fuse_activation', () => {
  it('fuses RELU into CONV_2D: one op, RELU fused, output name kept, origin absorbed {0,1}', () => {
    const r = checkOptimize(convRelu(0), ['fuse_activation']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.CONV_2D]);
    const sg = r.written.subgraphs[0]!;
    expect(sg.operators[0]!.builtinOptions!.fields['fused_activation_function']).toBe(1);
    expect(sg.tensors[sg.outputs[0]!]!.name).toBe('relu');
    expect(r.result.origins.ops).toEqual([[0, 1]]);
    expect(r.unionAfter).toEqual(r.unionBefore);
    expect(r.result.log).toEqual([{ pass: 'fuse_activation', changed: 1, details: ['#1 "relu" fused into #0 "conv"'] }]);
  });

  it('fuses RELU6 and TANH (fused codes 3 and 4)', () => {
    for (const [op, code] of [
      [Op.RELU6, 3],
      [Op.TANH, 4],
    ] as const) {
      const r = checkOptimize(convRelu(0, op), ['fuse_activation']);
      expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
      expect(r.written.subgraphs[0]!.operators[0]!.builtinOptions!.fields['fused_activation_function']).toBe(code);
    }
  });

  it('does not fuse into an op that already has an activation, or whose output has other readers', () => {
    expect(checkOptimize(convRelu(1), ['fuse_activation']).result.log[0]!.changed).toBe(0);
    expect(checkOptimize(convRelu(0, Op.RELU, true), ['fuse_activation']).result.log[0]!.changed).toBe(0);
  });

  it('fuses into ADD / SUB / MUL / DIV without options tables', () => {
    for (const op of [Op.ADD, Op.SUB, Op.MUL, Op.DIV]) {
      const b = new ModelBuilder();
      const x = b.input('x', [1, 4]);
      const k = b.constF32('k', [4], [1, 2, -3, 0.5]);
      b.output(b.op(Op.RELU, [b.op(op, [x, k], 'bin', [1, 4])], 'relu', [1, 4]));
      const r = checkOptimize(b.build(), ['fuse_activation']);
      expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
      expect(opTypes(r.written)).toEqual([op]);
      expect(r.result.origins.ops).toEqual([[0, 1]]);
    }
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['fuse_activation'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
