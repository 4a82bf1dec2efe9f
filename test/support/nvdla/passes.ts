/** Test helpers for the engine passes: LeNet (or any net) run up to a pass. */
import type { CaffeDeploy, CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';
import { resolveOptions, type NvdlaCompileOptions } from '../../../src/core/nvdla/options';
import { frontEnd } from './fixtures';
import type { PassContext } from '../../../src/core/nvdla/engine/graph-state';
import type { EngineGraph } from '../../../src/core/nvdla/engine/model';
import type { EnginePass } from '../../../src/core/nvdla/engine/passes/pass';

export function engineFor(deploy: CaffeDeploy, weights: CaffeWeights, options: Partial<NvdlaCompileOptions>): { graph: EngineGraph; ctx: PassContext } {
  const r = frontEnd(deploy, weights, options);
  const o = resolveOptions(options);
  return { graph: r.engine!.graph!, ctx: { profile: { ...o.profile, multiBatchSize: r.engine!.graph!.batchSize }, target: o.target } };
}

/** run passes in order, returning every graph */
export function runPasses(graph: EngineGraph, ctx: PassContext, passes: EnginePass[]): EngineGraph[] {
  const out = [graph];
  for (const p of passes) out.push(p.run(out.at(-1)!, ctx).graph);
  return out;
}
