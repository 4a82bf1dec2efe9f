/**
 * nvdla_compiler's engine passes in its order (`Compiler::compileInternal`; nvdla.md section 9).
 * `enableCopyOutDebugSurfaces` runs only with the copy-out-debug profile flag, which no named
 * profile sets, and is not part of this list. `generateDependencyParams` and `resolveMemory` run
 * once: upstream loops them until the graph stops changing and asserts that one round suffices.
 */
import { boundGraphPass } from './bound-graph';
import { fuseOnTheFlyNodesPass } from './fuse-on-the-fly-nodes';
import { fuseSubEngineOpsPass } from './fuse-sub-engine-ops';
import { generateDependencyParamsPass } from './generate-dependency-params';
import { handleLowPrecisionConversionsPass } from './handle-low-precision-conversions';
import { handleMultiBatchPass } from './handle-multi-batch';
import { mergeActivationOperationsPass } from './merge-activation-operations';
import type { EnginePass } from './pass';
import { preProcessAuxDataPass } from './pre-process-aux-data';
import { quantizeAuxDataPass } from './quantize-aux-data';
import { registerBuffersPass } from './register-buffers';
import { reserveBuffersPass } from './reserve-buffers';
import { resolveMemoryPass } from './resolve-memory';
import { splitNodesPass } from './split-nodes';
import { translateAuxDataPass } from './translate-aux-data';
import { updateScalingFactorsPass } from './update-scaling-factors';

export const ENGINE_PASSES: readonly EnginePass[] = [
  registerBuffersPass,
  preProcessAuxDataPass,
  mergeActivationOperationsPass,
  updateScalingFactorsPass,
  quantizeAuxDataPass,
  fuseOnTheFlyNodesPass,
  handleLowPrecisionConversionsPass,
  translateAuxDataPass,
  reserveBuffersPass,
  splitNodesPass,
  fuseSubEngineOpsPass,
  boundGraphPass,
  handleMultiBatchPass,
  generateDependencyParamsPass,
  resolveMemoryPass,
];

/** the passes up to and including `name` */
export function passesThrough(name: string): EnginePass[] {
  const i = ENGINE_PASSES.findIndex((p) => p.name === name);
  if (i < 0) throw new RangeError(`no engine pass ${name}`);
  return ENGINE_PASSES.slice(0, i + 1);
}
