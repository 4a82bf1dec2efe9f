/**
 * Pass `boundGraph` (`Compiler::boundGraph`): upstream returns the graph unchanged (the bounding
 * of tensors to hardware limits it is named for was never written). Kept so the pass timeline
 * shows every step nvdla_compiler takes.
 */
import { unchanged, type EnginePass } from './pass';

export const boundGraphPass: EnginePass = {
  name: 'boundGraph',
  run(input) {
    return unchanged(input, 'nothing to do (upstream: identity)');
  },
};
