import { describe, expect, it } from 'vitest';
import { lenet } from '../../../../../test/support/nvdla/fixtures';
import { boundGraphPass } from './bound-graph';
import { ENGINE_PASSES, passesThrough } from './pipeline';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

describe('engine pass pipeline', () => {
  it("runs nvdla_compiler's passes in Compiler::compileInternal's order", () => {
    expect(ENGINE_PASSES.map((p) => p.name)).toEqual([
      'registerBuffers', 'preProcessAuxData', 'mergeActivationOperations', 'updateScalingFactors', 'quantizeAuxData', 'fuseOnTheFlyNodes',
      'handleLowPrecisionConversions', 'translateAuxData', 'reserveBuffers', 'splitNodes', 'fuseSubEngineOps', 'boundGraph', 'handleMultiBatch',
      'generateDependencyParams', 'resolveMemory',
    ]);
    expect(() => passesThrough('flattenGraph')).toThrow(/no engine pass flattenGraph/);
  });

  it('every pass returns a new graph and leaves its input as it was; boundGraph changes nothing', () => {
    const { deploy, weights } = lenet();
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1 });
    const graphs = runPasses(graph, ctx, passesThrough('boundGraph'));
    // weights are shared between graphs (never changed in place): compare them by reference
    const arrays: ArrayBufferView[] = [];
    const text = (g: object) =>
      JSON.stringify(g, (_k, v: unknown) => {
        if (!ArrayBuffer.isView(v)) return v;
        if (!arrays.includes(v)) arrays.push(v);
        return `<array ${arrays.indexOf(v)}>`;
      });
    const snapshots = graphs.map(text);
    runPasses(graph, ctx, ENGINE_PASSES.slice(0, 12));
    expect(graphs.map(text)).toEqual(snapshots);
    for (let i = 1; i < graphs.length; i++) expect(graphs[i] !== graphs[i - 1]).toBe(true);
    const before = graphs.at(-2)!;
    expect(text(boundGraphPass.run(before, ctx).graph)).toBe(text(before));
  });
});
