/**
 * The optimizer's ordered pipeline: every pass, once, in the order `optimize` runs them when
 * asked for all of them. Adding a pass = one file in passes/ (with its test) + one line here.
 */
import type { Pass } from './pass';
import { foldConstants } from './passes/fold_constants';
import { removeRedundantReshape } from './passes/remove_redundant_reshape';
import { removeUnnecessaryReshape } from './passes/remove_unnecessary_reshape';
import { fuseInstanceNorm } from './passes/fuse_instance_norm';
import { fuseBatchNormWithConv } from './passes/fuse_batchnorm_with_conv';
import { fuseMulWithConv } from './passes/fuse_mul_with_conv';
import { fuseAddWithConv } from './passes/fuse_add_with_conv';
import { fuseActivation } from './passes/fuse_activation';

export const PIPELINE: readonly Pass[] = [
  foldConstants,
  removeRedundantReshape,
  removeUnnecessaryReshape,
  fuseInstanceNorm,
  fuseBatchNormWithConv,
  fuseMulWithConv,
  fuseAddWithConv,
  fuseActivation,
];

export const PASS_NAMES: readonly string[] = PIPELINE.map((p) => p.name);

export function passByName(name: string): Pass | undefined {
  return PIPELINE.find((p) => p.name === name);
}
