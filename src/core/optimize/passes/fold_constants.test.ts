import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, actOptions, checkOptimize, opTypes, randomGraph } from '../testing';

describe('fold_constants', () => {
  it('folds a chain of constant element-wise ops; the reader absorbs the folded origins', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [2, 3]);
    const k1 = b.constF32('k1', [3], [1, 2, 3]);
    const k2 = b.constF32('k2', [1, 3], [0.5, -0.25, 4]);
    const m = b.op(Op.MUL, [k1, k2], 'm', [1, 3], actOptions(1)); // RELU applied when folding
    const s = b.op(Op.SQRT, [k1], 'sq', [3]);
    const a = b.op(Op.SUB, [m, s], 'a', [1, 3], actOptions());
    b.output(b.op(Op.ADD, [x, a], 'y', [2, 3], actOptions()));
    const r = checkOptimize(b.build(), ['fold_constants']);
    expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
    expect(opTypes(r.written)).toEqual([Op.ADD]);
    expect(r.result.log[0]!.changed).toBe(3);
    expect(r.result.origins.ops).toEqual([[0, 1, 2, 3]]);
    const sg = r.written.subgraphs[0]!;
    const folded = sg.tensors[sg.operators[0]!.inputs[1]!]!;
    expect(folded.name).toBe('a');
    expect([...new Float32Array(r.written.buffers[folded.buffer]!.data!.slice().buffer)]).toEqual([0.5 - 1, 0 - Math.fround(Math.SQRT2), 12 - Math.fround(Math.sqrt(3))].map(Math.fround));
  });

  it('does not fold an op producing a graph output, or one reading a graph input', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [2]);
    const k = b.constF32('k', [2], [1, 2]);
    b.output(b.op(Op.ADD, [k, k], 'out', [2], actOptions()));
    b.output(b.op(Op.ADD, [x, k], 'out2', [2], actOptions()));
    expect(checkOptimize(b.build(), ['fold_constants']).result.log[0]!.changed).toBe(0);
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['fold_constants'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
