import { describe, expect, it } from 'vitest';
import { goldenCase } from '../../../../../test/support/nvdla/golden';
import { handleMultiBatchPass } from './handle-multi-batch';
import { passesThrough } from './pipeline';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

describe('pass handleMultiBatch', () => {
  const c = goldenCase('lenet-b64-nv_full-int8-fast-math');
  const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
  const before = runPasses(graph, ctx, passesThrough('boundGraph')).at(-1)!;
  const r = handleMultiBatchPass.run(before, ctx);
  const g = r.graph;

  it('weights that fit the CBUF whole stay there across the 64 batches: reused from batch 1, released after batch 63', () => {
    const conv = g.nodes.find((n) => n.name === 'dc-conv-1')!;
    if (conv.params.kind !== 'conv') throw new Error('not a conv');
    const b = conv.params.conv.batches!;
    expect(b.length).toBe(64);
    expect([b[0], b[1], b[63]]).toEqual([
      { reuseWeights: false, releaseWeights: false },
      { reuseWeights: true, releaseWeights: false },
      { reuseWeights: true, releaseWeights: true },
    ]);
    expect(r.changes.notes).toContain('dc-conv-1: weights stay in the CBUF across the 64 batches');
  });

  it('the bindable input holds batch n at n x the surface size; intermediate tensors are per-batch copies at one offset', () => {
    const input = g.surfaces.find((s) => s.edge === g.inputEdges[0])!;
    expect(input.size).toBe(3584);
    expect(input.batchOffsets.slice(0, 3)).toEqual([0, 3584, 7168]);
    expect(input.batchOffsets[63]).toBe(63 * 3584);
    const inner = g.surfaces.find((s) => !s.bind && s.category === 'LOCAL')!;
    expect(new Set(inner.batchOffsets)).toEqual(new Set([0]));
    expect(before.surfaces.every((s) => s.batchOffsets.length === 0)).toBe(true); // input graph untouched
  });
});
