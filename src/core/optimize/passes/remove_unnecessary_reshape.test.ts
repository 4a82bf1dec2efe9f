import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, checkOptimize, opTypes, randomGraph } from '../testing';

describe('remove_unnecessary_reshape', () => {
  it('a RESHAPE to the same shape between two ops goes; its producer absorbs its origin', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 4]);
    const r0 = b.op(Op.RELU, [x], 'relu', [1, 4]);
    const s = b.op(Op.RESHAPE, [r0, b.constI32('s', [2], [1, 4])], 'same', [1, 4], { new_shape: [1, 4] });
    b.output(b.op(Op.TANH, [s], 'out', [1, 4]));
    const r = checkOptimize(b.build(), ['remove_unnecessary_reshape']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.RELU, Op.TANH]);
    expect(r.result.origins.ops).toEqual([[0, 1], [2]]);
  });

  it('reading a graph input: the readers absorb the origin', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [2, 3]);
    const s = b.op(Op.RESHAPE, [x, b.constI32('s', [2], [2, 3])], 'same', [2, 3], { new_shape: [2, 3] });
    b.output(b.op(Op.RELU, [s], 'a', [2, 3]));
    b.output(b.op(Op.TANH, [s], 'b', [2, 3]));
    const r = checkOptimize(b.build(), ['remove_unnecessary_reshape']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(r.result.origins.ops).toEqual([[0, 1], [0, 2]]);
  });

  it('as the graph output: the producer writes the output tensor (its name stays)', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 4]);
    const r0 = b.op(Op.RELU, [x], 'relu', [1, 4]);
    b.output(b.op(Op.RESHAPE, [r0, b.constI32('s', [2], [1, 4])], 'y', [1, 4], { new_shape: [1, 4] }));
    const r = checkOptimize(b.build(), ['remove_unnecessary_reshape']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    const sg = r.written.subgraphs[0]!;
    expect(opTypes(r.written)).toEqual([Op.RELU]);
    expect(sg.tensors[sg.outputs[0]!]!.name).toBe('y');
    expect(r.result.origins.ops).toEqual([[0, 1]]);
  });

  it('keeps a RESHAPE that changes the shape, and one from a graph input to a graph output', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 4]);
    b.output(b.op(Op.RESHAPE, [x, b.constI32('s', [1], [4])], 'flat', [4], { new_shape: [4] }));
    b.output(b.op(Op.RESHAPE, [x, b.constI32('t', [2], [1, 4])], 'same', [1, 4], { new_shape: [1, 4] }));
    expect(checkOptimize(b.build(), ['remove_unnecessary_reshape']).result.log[0]!.changed).toBe(0);
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['remove_unnecessary_reshape'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
