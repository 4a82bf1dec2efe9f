import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, actOptions, checkOptimize, conv2dOptions, dwOptions, opTypes, randomGraph } from '../testing';

function convBn(depthwise: boolean, mulAct = 0) {
  const b = new ModelBuilder();
  const x = b.input('x', [1, 3, 3, 2]);
  const f = depthwise ? b.constF32('f', [1, 3, 3, 2], [0.5, -1, 0.1, 0.2, 0.3, -0.4, 0.5, 0.6, -0.7, 0.8, 0.9, 1, -0.1, 0.2, 0.3, 0.4, 0.5, -0.6]) : b.constF32('f', [2, 1, 1, 2], [0.5, -1, 1.5, 0.25]);
  const c = b.op(depthwise ? Op.DEPTHWISE_CONV_2D : Op.CONV_2D, [x, f, b.constF32('b', [2], [0.1, -0.2])], 'conv', [1, 3, 3, 2], depthwise ? dwOptions() : conv2dOptions());
  const m = b.op(Op.MUL, [c, b.constF32('scale', [1, 1, 1, 2], [1.25, 0.5])], 'bn_mul', [1, 3, 3, 2], actOptions(mulAct));
  b.output(b.op(Op.ADD, [m, b.constF32('shift', [2], [-0.3, 0.7])], 'bn_add', [1, 3, 3, 2], actOptions(3)));
  return b.build();
}

describe('fuse_batchnorm_with_conv', () => {
  for (const depthwise of [false, true])
    it(`${depthwise ? 'DEPTHWISE_CONV_2D' : 'CONV_2D'} + MUL + ADD becomes one conv with the ADD's RELU6; origin {0,1,2}`, () => {
      const r = checkOptimize(convBn(depthwise), ['fuse_batchnorm_with_conv']);
      expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
      expect(opTypes(r.written)).toEqual([depthwise ? Op.DEPTHWISE_CONV_2D : Op.CONV_2D]);
      expect(r.written.subgraphs[0]!.operators[0]!.builtinOptions!.fields['fused_activation_function']).toBe(3);
      expect(r.result.origins.ops).toEqual([[0, 1, 2]]);
      expect(r.result.log[0]!.changed).toBe(1);
      // the old filter, bias, scale and shift constants are gone with their buffers
      expect(r.written.subgraphs[0]!.tensors.map((t) => t.name).sort()).toEqual(['bn_add', 'bn_add/bias', 'bn_add/filter', 'x']);
    });

  it('needs a MUL without fused activation', () => {
    expect(checkOptimize(convBn(false, 1), ['fuse_batchnorm_with_conv']).result.log[0]!.changed).toBe(0);
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['fuse_batchnorm_with_conv'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
