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
import { generateCaffemodel } from '../../../src/core/caffe/random-weights';
import type { ProtoMessage } from '../../../src/core/caffe/proto';
import { upgradeNet } from '../../../src/core/caffe/upgrade';
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

/**
 * The seeded caffemodel `gen_caffemodel.py --seed 1` writes for a deploy (core/caffe's generator;
 * the reference results in test/fixtures/nvdla/oracle were recorded from these bytes). `'zeros'`:
 * the same file with zero values, quicker where only the structure matters.
 */
export function syntheticCaffemodel(deploy: CaffeDeploy, fill: 'random' | 'zeros' = 'random'): Uint8Array {
  return generateCaffemodel(upgradeNet(deploy.net as ProtoMessage, deploy.file).net, { seed: 1, file: deploy.file, fill });
}

/** `syntheticCaffemodel` read as the compiler reads a caffemodel */
export function synthetic(deploy: CaffeDeploy, fill: 'random' | 'zeros' = 'random'): CaffeWeights {
  return readWeights(syntheticCaffemodel(deploy, fill), 'synthetic.caffemodel');
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
