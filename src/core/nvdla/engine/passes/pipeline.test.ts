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

  it('every pass leaves its input as it was and returns a new graph, but for the passes with nothing to do (boundGraph, INT8 passes in FP16): they hand back their input', () => {
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
    const passes = ['generateGraph', ...passesThrough('boundGraph').map((p) => p.name)];
    const shared = passes.filter((_p, i) => i > 0 && graphs[i] === graphs[i - 1]);
    expect(shared).toEqual(['boundGraph']);
    const before = graphs.at(-2)!;
    expect(boundGraphPass.run(before, ctx).graph).toBe(before);
    // in FP16 the INT8-only passes change nothing either
    const fp16 = engineFor(deploy, weights, { batch: 1, cprecision: 'fp16' });
    const fp16Graphs = runPasses(fp16.graph, fp16.ctx, passesThrough('boundGraph'));
    expect(passes.filter((_p, i) => i > 0 && fp16Graphs[i] === fp16Graphs[i - 1])).toEqual(['updateScalingFactors', 'quantizeAuxData', 'boundGraph']);
  });
});
