import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { Op } from '../editor';
import { ModelBuilder, actOptions, checkOptimize, conv2dOptions, dwOptions, opTypes, randomGraph } from '../testing';

function convAdd(depthwise: boolean, bias: boolean, kshape: number[], act = 0) {
  const b = new ModelBuilder();
  const x = b.input('x', [1, 3, 3, 2]);
  const f = depthwise ? b.constF32('f', [1, 1, 1, 2], [0.5, -1]) : b.constF32('f', [2, 1, 1, 2], [0.5, -1, 1.5, 0.25]);
  const inputs = [x, f, bias ? b.constF32('b', [2], [0.1, -0.2]) : -1];
  const c = b.op(depthwise ? Op.DEPTHWISE_CONV_2D : Op.CONV_2D, inputs, 'conv', [1, 3, 3, 2], depthwise ? dwOptions() : conv2dOptions());
  const n = kshape.reduce((a, d) => a * d, 1);
  const k = b.constF32('k', kshape, [0.75, -0.5].slice(0, n));
  b.output(b.op(Op.ADD, [k, c], 'add', [1, 3, 3, 2], actOptions(act)));
  return b.build();
}

describe('fuse_add_with_conv', () => {
  for (const depthwise of [false, true])
    for (const bias of [true, false])
      for (const kshape of [[2], [1, 1, 1, 2], []])
        it(`${depthwise ? 'DEPTHWISE_CONV_2D' : 'CONV_2D'} ${bias ? 'with' : 'without'} bias, addend [${kshape}]`, () => {
          const r = checkOptimize(convAdd(depthwise, bias, kshape, 1), ['fuse_add_with_conv']);
          expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
          expect(opTypes(r.written)).toEqual([depthwise ? Op.DEPTHWISE_CONV_2D : Op.CONV_2D]);
          const op = r.written.subgraphs[0]!.operators[0]!;
          expect(op.builtinOptions!.fields['fused_activation_function']).toBe(1); // the ADD's RELU moved over
          expect(r.written.subgraphs[0]!.tensors[op.outputs[0]!]!.name).toBe('add');
          expect(r.result.origins.ops).toEqual([[0, 1]]); // fuse: {conv} ∪ {add}
        });

  it('leaves a non-per-channel addend alone', () => {
    const b = new ModelBuilder();
    const x = b.input('x', [1, 2, 1, 1]);
    const c = b.op(Op.CONV_2D, [x, b.constF32('f', [1, 1, 1, 1], [2]), -1], 'conv', [1, 2, 1, 1], conv2dOptions());
    b.output(b.op(Op.ADD, [c, b.constF32('k', [1, 2, 1, 1], [1, 2])], 'add', [1, 2, 1, 1], actOptions()));
    expect(checkOptimize(b.build(), ['fuse_add_with_conv']).result.log[0]!.changed).toBe(0);
  });

  it('property: random graphs compute the same and keep every origin', () => {
    fc.assert(
      fc.property(randomGraph, (m) => {
        const r = checkOptimize(m, ['fuse_add_with_conv'], 2);
        expect(r.comparisons.filter((c) => !c.ok)).toEqual([]);
        expect(r.unionAfter).toEqual(r.unionBefore);
      }),
      { numRuns: 40 },
    );
  });
});
