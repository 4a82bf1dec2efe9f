import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, checkOptimize, opTypes, randomGraph } from '../testing';

function reshapes(extraReader: boolean) {
  const b = new ModelBuilder();
  const x = b.input('x', [1, 2, 3, 2]);
  const a = b.op(Op.RESHAPE, [x, b.constI32('s1', [2], [6, 2])], 'r1', [6, 2], { new_shape: [6, 2] });
  const c = b.op(Op.RESHAPE, [a, b.constI32('s2', [3], [3, 2, 2])], 'r2', [3, 2, 2], { new_shape: [3, 2, 2] });
  b.output(b.op(Op.RELU, [c], 'out', [3, 2, 2]));
  if (extraReader) b.output(b.op(Op.RELU, [a], 'other', [6, 2]));
  return b.build();
}

describe('remove_redundant_reshape', () => {
  it('RESHAPE(RESHAPE(x)) -> RESHAPE(x); the outer one absorbs the inner origin', () => {
    const r = checkOptimize(reshapes(false), ['remove_redundant_reshape']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.RESHAPE, Op.RELU]);
    expect(r.result.origins.ops).toEqual([[0, 1], [2]]);
    expect(r.written.subgraphs[0]!.operators[0]!.inputs[0]).toBe(r.written.subgraphs[0]!.inputs[0]);
  });

  it('keeps the inner RESHAPE when something else reads it', () => {
    const r = checkOptimize(reshapes(true), ['remove_redundant_reshape']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.RESHAPE, Op.RESHAPE, Op.RELU, Op.RELU]);
    expect(r.result.log[0]!.details[0]).toMatch(/bypassed/);
    expect(r.unionAfter).toEqual(r.unionBefore);
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['remove_redundant_reshape'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
