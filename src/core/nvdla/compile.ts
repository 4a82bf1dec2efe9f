/**
 * The NVDLA compiler as one call: Caffe deploy + weights + nvdla_compiler's options -> every
 * stage (network, canonical graph, engine graph, ...) as plain data, with diagnostics that say
 * where NVDLA refuses the network and how upstream's nvdla_compiler would behave. A refused stage
 * leaves the later stages null; the earlier ones stay (so the Caffe graph still shows).
 */
import { generateCanonicalGraph, type CanonicalGraph } from './canonical/graph';
import { generateEngineGraph } from './engine/generate';
import type { EngineGraph } from './engine/model';
import { buildNetwork } from './network/build';
import type { CaffeDeploy, CaffeWeights } from './network/caffe-input';
import type { Network, NvdlaDiagnostic } from './network/model';
import { NvdlaOptionError, resolveOptions, type NvdlaCompileOptions, type ResolvedOptions } from './options';

export type NvdlaStageName = 'options' | 'network' | 'canonical' | 'engine';

export interface NvdlaCompileResult {
  resolved: ResolvedOptions | null;
  diagnostics: NvdlaDiagnostic[];
  network: Network | null;
  canonical: CanonicalGraph | null;
  /** the engine graph right after `engine_ast::generateGraph` */
  engine: EngineGraph | null;
  /** the last stage that completed */
  reached: NvdlaStageName | null;
}

export function compileNvdla(deploy: CaffeDeploy, weights: CaffeWeights, options: Partial<NvdlaCompileOptions> = {}): NvdlaCompileResult {
  const result: NvdlaCompileResult = { resolved: null, diagnostics: [], network: null, canonical: null, engine: null, reached: null };
  try {
    result.resolved = resolveOptions(options);
  } catch (e) {
    if (e instanceof NvdlaOptionError) {
      result.diagnostics.push({ severity: 'error', stage: 'options', message: `--${e.option}: ${e.message}` });
      return result;
    }
    throw e;
  }
  const { profile, target, warnings } = result.resolved;
  for (const w of warnings) result.diagnostics.push({ severity: 'warning', stage: 'options', message: `--${w.option}: ${w.message}` });
  result.reached = 'options';

  const net = buildNetwork(deploy, weights, { precision: profile.computePrecision === 'INT8' ? 'INT8' : 'FP16', calibration: result.resolved.options.calibtable });
  result.diagnostics.push(...net.diagnostics);
  if (!net.network) return result;
  result.network = net.network;
  result.reached = 'network';

  result.canonical = generateCanonicalGraph(net.network);
  result.reached = 'canonical';

  const eng = generateEngineGraph(result.canonical, profile, target);
  result.diagnostics.push(...eng.diagnostics);
  if (!eng.graph) return result;
  result.engine = eng.graph;
  result.reached = 'engine';
  return result;
}
