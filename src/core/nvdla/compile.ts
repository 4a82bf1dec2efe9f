/**
 * The NVDLA compiler as one call: Caffe deploy + weights + nvdla_compiler's options -> every
 * stage (network, canonical graph, engine graph, ...) as plain data, with diagnostics that say
 * where NVDLA refuses the network and how upstream's nvdla_compiler would behave. A refused stage
 * leaves the later stages null; the earlier ones stay (so the Caffe graph still shows).
 */
import { generateCanonicalGraph, type CanonicalGraph } from './canonical/graph';
import { emitLoadable, type EmittedTask } from './emit/emit';
import type { NvdlaLoadable } from './emit/loadable';
import { serializeLoadable } from './emit/serialize';
import { generateEngineGraph } from './engine/generate';
import type { EngineGraph } from './engine/model';
import type { PassChanges } from './engine/passes/pass';
import { ENGINE_PASSES } from './engine/passes/pipeline';
import { buildNetwork } from './network/build';
import type { CaffeDeploy, CaffeWeights } from './network/caffe-input';
import type { Network, NvdlaDiagnostic } from './network/model';
import { NvdlaOptionError, resolveOptions, type NvdlaCompileOptions, type ResolvedOptions } from './options';

export type NvdlaStageName = 'options' | 'network' | 'canonical' | 'engine' | 'passes' | 'emit';

/** one engine pass as it ran: the graph it made and what it changed */
export interface NvdlaPassStage {
  name: string;
  graph: EngineGraph;
  changes: PassChanges;
}

export interface NvdlaCompileResult {
  resolved: ResolvedOptions | null;
  diagnostics: NvdlaDiagnostic[];
  network: Network | null;
  canonical: CanonicalGraph | null;
  /** the engine graph right after `engine_ast::generateGraph` */
  engine: EngineGraph | null;
  /** every engine pass that completed, in nvdla_compiler's order (the last one's graph is the one emitted) */
  passes: NvdlaPassStage[];
  /** the loadable as data and as the bytes nvdla_compiler writes (`<profile>.nvdla`), and each task's descriptors */
  loadable: NvdlaLoadable | null;
  tasks: EmittedTask[] | null;
  bytes: Uint8Array | null;
  /** the last stage that completed */
  reached: NvdlaStageName | null;
}

/** Where a compile is: before step `done` (0-based) of `total`, named as nvdla_compiler names it. */
export interface NvdlaCompileProgress {
  /** `network`, `canonical`, `generateGraph`, a pass name (`registerBuffers` ... `resolveMemory`), `emit` */
  step: string;
  done: number;
  total: number;
}

/** the steps of a compile in order: the network, the canonical graph, generateGraph, every engine pass, emit */
export const NVDLA_COMPILE_STEPS: readonly string[] = ['network', 'canonical', 'generateGraph', ...ENGINE_PASSES.map((p) => p.name), 'emit'];

/** The whole compile at once (the CLI, tests, benches). */
export function compileNvdla(deploy: CaffeDeploy, weights: CaffeWeights, options: Partial<NvdlaCompileOptions> = {}): NvdlaCompileResult {
  const steps = compileNvdlaSteps(deploy, weights, options);
  for (;;) {
    const r = steps.next();
    if (r.done) return r.value;
  }
}

/**
 * The compile step by step: yields before each step of `NVDLA_COMPILE_STEPS` (a worker reports
 * progress there, yields to its event loop and may stop: a generator left unfinished computes
 * nothing more), returns the result. A refused step ends it early, as `compileNvdla` does.
 */
export function* compileNvdlaSteps(deploy: CaffeDeploy, weights: CaffeWeights, options: Partial<NvdlaCompileOptions> = {}): Generator<NvdlaCompileProgress, NvdlaCompileResult, void> {
  const total = NVDLA_COMPILE_STEPS.length;
  let done = 0;
  const at = (step: string): NvdlaCompileProgress => ({ step, done: done++, total });
  const result: NvdlaCompileResult = { resolved: null, diagnostics: [], network: null, canonical: null, engine: null, passes: [], loadable: null, tasks: null, bytes: null, reached: null };
  try {
    result.resolved = resolveOptions(options);
  } catch (e) {
    if (e instanceof NvdlaOptionError) {
      result.diagnostics.push({ severity: 'error', stage: 'options', message: `--${optionFlag(e.option)}: ${e.message}` });
      return result;
    }
    throw e;
  }
  const { profile, target, warnings } = result.resolved;
  for (const w of warnings) result.diagnostics.push({ severity: 'warning', stage: 'options', message: `--${optionFlag(w.option)}: ${w.message}` });
  result.reached = 'options';

  yield at('network');
  const net = buildNetwork(deploy, weights, { precision: profile.computePrecision === 'INT8' ? 'INT8' : 'FP16', calibration: result.resolved.options.calibtable });
  result.diagnostics.push(...net.diagnostics);
  if (!net.network) return result;
  result.network = net.network;
  result.reached = 'network';

  yield at('canonical');
  result.canonical = generateCanonicalGraph(net.network);
  result.reached = 'canonical';

  yield at('generateGraph');
  const eng = generateEngineGraph(result.canonical, profile, target);
  result.diagnostics.push(...eng.diagnostics);
  if (!eng.graph) return result;
  result.engine = eng.graph;
  result.reached = 'engine';

  const ctx = { profile: { ...profile, multiBatchSize: eng.graph.batchSize }, target };
  let graph = eng.graph;
  for (const pass of ENGINE_PASSES) {
    yield at(pass.name);
    try {
      const r = pass.run(graph, ctx);
      // a pass knows a node's Caffe layer by index: name it as the network's sources do
      for (const d of r.diagnostics) {
        const layer = d.layer === undefined && d.layerIndex !== undefined ? net.network.sources.find((x) => x.id === d.layerIndex)?.name : undefined;
        result.diagnostics.push(layer !== undefined ? { ...d, layer } : d);
      }
      result.passes.push({ name: pass.name, graph: r.graph, changes: r.changes });
      graph = r.graph;
    } catch (e) {
      result.diagnostics.push(failure(pass.name === 'resolveMemory' ? 'memory' : 'passes', pass.name, e));
      return result;
    }
  }
  result.reached = 'passes';

  yield at('emit');
  try {
    const emitted = emitLoadable(graph, ctx);
    result.loadable = emitted.loadable;
    result.tasks = emitted.tasks;
    result.bytes = serializeLoadable(emitted.loadable);
  } catch (e) {
    result.diagnostics.push(failure('emit', 'emit', e));
    return result;
  }
  result.reached = 'emit';
  return result;
}

/** the command-line spelling of an option (nvdla_compiler's own keep theirs; NPU Studio's are kebab-case) */
const optionFlag = (o: keyof NvdlaCompileOptions): string => (o === 'postExtWeights' ? 'post-ext-weights' : o);

/** a pass or emit that threw: what it said, naming the step; a JS runtime error is flagged as a compiler bug */
function failure(stage: NvdlaDiagnostic['stage'], step: string, e: unknown): NvdlaDiagnostic {
  if (!(e instanceof Error)) return { severity: 'error', stage, message: `${step}: ${String(e)}` };
  const bug = e instanceof TypeError || e instanceof RangeError || e instanceof ReferenceError;
  return {
    severity: 'error',
    stage,
    message: bug ? `${step}: internal error (${e.name}: ${e.message}); this is a bug in NPU Studio's NVDLA compiler` : `${step}: ${e.message}`,
    upstream: `failed compilation phase: ${step}`,
  };
}
