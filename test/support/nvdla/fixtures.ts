/**
 * Test helpers: load the fixture Caffe nets (Node only: tests and benches, never the app) and run
 * the front of the NVDLA compiler on them.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateCanonicalGraph, type CanonicalGraph } from '../../../src/core/nvdla/canonical/graph';
import { generateEngineGraph, type EngineGenerateResult } from '../../../src/core/nvdla/engine/generate';
import { buildNetwork, type NetworkBuildResult } from '../../../src/core/nvdla/network/build';
import { readDeploy, readWeights } from '../../../src/core/nvdla/network/caffe-files';
import type { CaffeDeploy, CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';
import { syntheticWeights } from '../../../src/core/nvdla/network/synthetic-weights';
import { resolveOptions, type NvdlaCompileOptions } from '../../../src/core/nvdla/options';

export const FIXTURES = fileURLToPath(new URL('../../fixtures', import.meta.url));

export function fixtureDeploy(path: string): CaffeDeploy {
  return readDeploy(readFileSync(join(FIXTURES, path), 'utf8'), path.split('/').pop()!);
}

export function fixtureWeights(path: string): CaffeWeights {
  return readWeights(readFileSync(join(FIXTURES, path)), path.split('/').pop()!);
}

export function lenet(): { deploy: CaffeDeploy; weights: CaffeWeights } {
  return { deploy: fixtureDeploy('nvdla/lenet/lenet.prototxt'), weights: fixtureWeights('nvdla/lenet/lenet_iter_10000.caffemodel') };
}

export function synthetic(deploy: CaffeDeploy, fill: 'random' | 'zeros' = 'random'): CaffeWeights {
  return { file: 'synthetic.caffemodel', net: syntheticWeights(deploy.net, 1, fill) };
}

export interface FrontEnd {
  network: NetworkBuildResult;
  canonical: CanonicalGraph | null;
  engine: EngineGenerateResult | null;
}

/** network -> canonical -> engine with nvdla_compiler's options */
export function frontEnd(deploy: CaffeDeploy, weights: CaffeWeights, options: Partial<NvdlaCompileOptions> = {}): FrontEnd {
  const resolved = resolveOptions(options);
  const network = buildNetwork(deploy, weights, { precision: resolved.profile.computePrecision === 'INT8' ? 'INT8' : 'FP16', calibration: resolved.options.calibtable });
  if (!network.network) return { network, canonical: null, engine: null };
  const canonical = generateCanonicalGraph(network.network);
  return { network, canonical, engine: generateEngineGraph(canonical, resolved.profile, resolved.target) };
}
