/**
 * The compile view's data, built from one `compileNvdla` run (pure: no DOM, no worker; step by
 * step with progress and cancel in `compileForViewStepwise`). The
 * Caffe document's `compile` capability (core/format.ts `CompileService`) hands the worker a
 * `CompiledNet`: a summary the UI receives whole (options as resolved, diagnostics, the pass
 * timeline with what each pass changed, origin tables of every graph, the memory plan, the
 * origins sidecar) and a `graph` service over the stage graphs (`canonical`, `engine`, `pass:N`)
 * so the worker's ordinary graph, find and node-detail calls draw them.
 *
 * Origins: every canonical and engine node carries Caffe layer indexes (core/origin ids, the
 * network's `sources` table names them). The Caffe graph's nodes are matched to those ids by
 * layer name (a folded in-place layer counts for the box that draws it), so the three panes
 * highlight each other through one id space.
 */
import { FormatError } from '../errors';
import type { CompiledNet, CompileHooks, GraphService, NodeDetails } from '../format';
import type { CaffeGraphNames, CompiledGraphInfo, CompileOptionSpec, CompileOptionValues, CompileRequest, MemoryPlan, OriginsSidecar, PassStep, PlannedBuffer, PlannedPool, StageTables } from './compile-summary';
import type { Graph, GraphNode } from '../graph/model';
import type { TensorDetails } from '../circle/values';
import { parseCalibrationTable, type CalibrationTable } from './calibrate/table';
import { compileNvdla, compileNvdlaSteps, type NvdlaCompileResult } from './compile';
import type { EngineGraph, TensorSurfaceDesc } from './engine/model';
import type { CaffeDeploy, CaffeWeights } from './network/caffe-input';
import { DEFAULT_OPTIONS, POST_EXT_WEIGHT_LAYOUTS, type NvdlaCompileOptions } from './options';
import { TARGET_NAMES } from './targets';
import { canonicalGraphView, canonicalViewStats, engineGraphView, engineViewStats, type NvdlaGraphView } from './view';



/** nvdla_compiler's options as the form shows them (choices include the names its help prints). */
export const COMPILE_OPTION_SPECS: readonly CompileOptionSpec[] = [
  { name: 'profile', label: 'profile', kind: 'choice', choices: ['basic', 'default', 'performance', 'fast-math'], default: DEFAULT_OPTIONS.profile, help: '--profile: fast-math by default' },
  {
    name: 'cprecision',
    label: 'precision',
    kind: 'choice',
    choices: ['int8', 'fp16'],
    default: DEFAULT_OPTIONS.cprecision,
    help: "--cprecision: int8 by default, although nvdla_compiler's help says fp16",
  },
  {
    name: 'configtarget',
    label: 'target',
    kind: 'choice',
    choices: [...TARGET_NAMES, 'opendla-full', 'opendla-large', 'opendla-small'],
    default: DEFAULT_OPTIONS.configtarget,
    help: "--configtarget: nv_full by default; the opendla-* names nvdla_compiler's help lists are not valid there and fall back (with a warning)",
  },
  { name: 'quantizationMode', label: 'quantization', kind: 'choice', choices: ['', 'per-kernel', 'per-filter'], default: DEFAULT_OPTIONS.quantizationMode, help: '--quantizationMode: none given means per-kernel for int8' },
  { name: 'batch', label: 'batch', kind: 'int', choices: [], default: DEFAULT_OPTIONS.batch, help: "--batch: 0 (the default) takes N from the prototxt's input shape" },
  { name: 'informat', label: 'input format', kind: 'choice', choices: ['nhwc', 'nchw', 'ncxhwx'], default: DEFAULT_OPTIONS.informat, help: '--informat: nhwc by default (an image format: the input is widened to its channel count)' },
  {
    name: 'postExtWeights',
    label: 'post-ext weights',
    kind: 'choice',
    choices: [...POST_EXT_WEIGHT_LAYOUTS],
    default: DEFAULT_OPTIONS.postExtWeights,
    help: "--post-ext-weights (NPU Studio's own): how an image-input convolution's post-extended weights are laid out on nv_full / nv_large. csc (default): as the hardware reads them; nvdla_compiler: as it writes them, byte-identical to its loadable but wrong on the hardware where the two differ (e.g. LeNet conv1; a warning names the layer)",
  },
];

export const COMPILE_DEFAULTS: CompileOptionValues = {
  profile: DEFAULT_OPTIONS.profile,
  cprecision: DEFAULT_OPTIONS.cprecision,
  configtarget: DEFAULT_OPTIONS.configtarget,
  quantizationMode: DEFAULT_OPTIONS.quantizationMode,
  batch: DEFAULT_OPTIONS.batch,
  informat: DEFAULT_OPTIONS.informat,
  postExtWeights: DEFAULT_OPTIONS.postExtWeights,
};


export const CANONICAL_GRAPH = 'canonical';
export const ENGINE_GRAPH = 'engine';
/** the engine graph after pass `i` (0-based, nvdla_compiler's order) */
export const passGraphId = (i: number): string => `pass:${i}`;










export function caffeNodeNames(graph: Graph): CaffeGraphNames {
  return { graphId: graph.id, names: graph.nodes.map((n: GraphNode) => (n.kind === 'op' ? [n.name, ...(n.chain ?? []).map((c) => c.name)] : [])) };
}

const sorted = (xs: Iterable<number>): number[] => [...new Set(xs)].sort((a, b) => a - b);

function layersOf(origins: readonly number[], names: Map<number, string>): string[] {
  return origins.map((id) => names.get(id) ?? `layer ${id}`);
}

function passTimeline(r: NvdlaCompileResult, names: Map<number, string>): PassStep[] {
  if (!r.engine) return [];
  const steps: PassStep[] = [
    {
      graphId: ENGINE_GRAPH,
      name: 'generateGraph',
      added: r.engine.nodes.map((n) => ({ id: n.id, name: n.name })),
      removed: [],
      changed: [],
      unioned: [],
      notes: [`${r.engine.nodes.length} engine nodes from ${r.canonical?.nodes.length ?? 0} canonical nodes`],
      nodes: r.engine.nodes.length,
    },
  ];
  let before: EngineGraph = r.engine;
  r.passes.forEach((p, i) => {
    const prev = new Map(before.nodes.map((n) => [n.id, n]));
    const now = new Map(p.graph.nodes.map((n) => [n.id, n]));
    const nameOf = (id: string) => now.get(id)?.name ?? prev.get(id)?.name ?? id;
    const unioned: PassStep['unioned'] = [];
    for (const n of p.graph.nodes) {
      const was = prev.get(n.id);
      if (was && n.origins.some((o) => !was.origins.includes(o))) unioned.push({ id: n.id, name: n.name, layers: layersOf(n.origins, names) });
    }
    // a removed node whose origins now sit in a node that grew was merged into it
    const removed = p.changes.removed.map((id) => {
      const gone = prev.get(id);
      const into = gone ? unioned.find((u) => gone.origins.every((o) => now.get(u.id)!.origins.includes(o))) : undefined;
      return { id, name: nameOf(id), into: into ? into.name : null };
    });
    steps.push({
      graphId: passGraphId(i),
      name: p.name,
      added: p.changes.added.map((id) => ({ id, name: nameOf(id) })),
      removed,
      changed: p.changes.changed.filter((id) => now.has(id)).map((id) => ({ id, name: nameOf(id) })),
      unioned,
      notes: p.changes.notes,
      nodes: p.graph.nodes.length,
    });
    before = p.graph;
  });
  return steps;
}

/** The op slots in execution order (tasks in order, slots in order), from what emit wrote. */
function opSequence(r: NvdlaCompileResult, g: EngineGraph): MemoryPlan['ops'] {
  const nameOf = new Map(g.nodes.map((n) => [n.id, n.name]));
  const ops: MemoryPlan['ops'] = [];
  for (const t of r.tasks ?? []) for (const o of t.ops) ops.push({ task: t.id, slot: o.slot, node: o.node, name: nameOf.get(o.node) ?? o.node, batch: o.batch });
  if (ops.length) return ops;
  // compile stopped before emit: the memory events' own (task, slot) order
  const seen = new Set<string>();
  for (const e of g.memoryEvents) {
    const key = `${e.task}:${e.slot}`;
    if (seen.has(key)) continue;
    seen.add(key);
    ops.push({ task: e.task, slot: e.slot, node: e.node, name: nameOf.get(e.node) ?? e.node, batch: e.batch });
  }
  return ops;
}

/** Each pool's buffers from the memory resolver's events: placed at their first op, freed after their last. */
export function memoryPlanOf(r: NvdlaCompileResult, names: Map<number, string>): MemoryPlan | null {
  const last = r.passes.at(-1);
  if (!last || last.name !== 'resolveMemory') return null;
  const g = last.graph;
  const ops = opSequence(r, g);
  const index = new Map<string, number>();
  ops.forEach((o, i) => {
    const key = `${o.task}:${o.slot}`;
    if (!index.has(key)) index.set(key, i);
  });
  const byNode = new Map<string, number>();
  ops.forEach((o, i) => {
    const key = `${o.node}#${o.batch}`;
    if (!byNode.has(key)) byNode.set(key, i);
  });
  // an event names the node being placed and the batch: that batch's op slot of the node (events carry batch 0's slot)
  const at = (task: number, slot: number, node?: string, batch?: number) => (node !== undefined ? byNode.get(`${node}#${batch ?? 0}`) : undefined) ?? index.get(`${task}:${slot}`) ?? 0;
  const surfaces = new Map<string, TensorSurfaceDesc>(g.surfaces.map((s) => [s.id, s]));
  const nodes = new Map(g.nodes.map((n) => [n.id, n]));
  const usersOf = (surfaceIds: string[]) => {
    const ids = new Set<string>();
    for (const s of surfaceIds) for (const n of [...(surfaces.get(s)?.producers ?? []), ...(surfaces.get(s)?.consumers ?? [])]) ids.add(n);
    const list = [...ids].map((id) => nodes.get(id)).filter((n) => n !== undefined);
    return { users: list.map((n) => n.name), layers: layersOf(sorted(list.flatMap((n) => [...n.origins])), names) };
  };
  const bufferSurfaces = new Map(g.buffers.map((b) => [b.id, b.surfaces]));
  const open = new Map<string, PlannedBuffer & { pool: string }>();
  const done: (PlannedBuffer & { pool: string })[] = [];
  const outside: MemoryPlan['outside'] = [];
  for (const e of g.memoryEvents) {
    const key = `${e.buffer}#${e.batch}`;
    if (e.action === 'outside-pool') {
      outside.push({ buffer: e.buffer, surface: e.surface, size: e.size, first: at(e.task, e.slot, e.node, e.batch) });
    } else if (e.action === 'alloc') {
      const surfs = bufferSurfaces.get(e.buffer) ?? [e.surface];
      const content = surfs.some((s) => surfaces.get(s)?.content === true);
      open.set(key, { pool: e.pool ?? '', buffer: e.buffer, surfaces: surfs, offset: e.offset, size: e.size, first: at(e.task, e.slot, e.node, e.batch), last: ops.length - 1, batch: e.batch, content, ...usersOf(surfs) });
    } else {
      const b = open.get(key);
      if (!b) continue;
      // freed before op (task, slot) is placed: its last use is the op before
      b.last = Math.max(b.first, at(e.task, e.slot, e.node, e.batch) - 1);
      done.push(b);
      open.delete(key);
    }
  }
  done.push(...open.values());
  const pools: PlannedPool[] = g.pools.map((p) => {
    const buffers = done.filter((b) => b.pool === p.name).map(({ pool: _pool, ...b }) => b);
    buffers.sort((a, b) => a.first - b.first || a.offset - b.offset);
    return { name: p.name, size: p.size, used: p.used, buffers, reused: reuseCount(buffers) };
  });
  return { ops, pools, outside };
}

/** How many buffers over the run share a byte with an earlier one (the resolver reusing freed space). */
function reuseCount(buffers: PlannedBuffer[]): number {
  let n = 0;
  buffers.forEach((b, i) => {
    if (buffers.some((a, j) => j < i && a.last < b.first && a.offset < b.offset + b.size && b.offset < a.offset + a.size)) n++;
  });
  return n;
}

export function originsSidecarOf(r: NvdlaCompileResult): OriginsSidecar | null {
  if (!r.tasks || !r.resolved || !r.network) return null;
  const g = r.passes.at(-1)!.graph;
  const names = new Map(r.network.sources.map((s) => [s.id, s.name]));
  const nodes = new Map(g.nodes.map((n) => [n.id, n]));
  return {
    loadable: `${r.resolved.profile.name}.nvdla`,
    profile: r.resolved.profile.name,
    target: r.resolved.target.name,
    precision: r.resolved.profile.computePrecision,
    batch: g.batchSize,
    sources: r.network.sources.map((s) => ({ id: s.id, name: s.name })),
    tasks: r.tasks.map((t) => ({
      id: t.id,
      interface: t.interface,
      ops: t.ops.map((o) => {
        const n = nodes.get(o.node);
        const origins = n ? [...n.origins] : [];
        return { slot: o.slot, batch: o.batch, node: o.node, name: n?.name ?? o.node, layers: layersOf(origins, names), origins };
      }),
    })),
  };
}

/** Text of `<profile>.origins.json` (the CLI and the browser download write the same). */
export function originsSidecarText(s: OriginsSidecar): string {
  return JSON.stringify(s, null, 1) + '\n';
}

function surfaceRows(s: TensorSurfaceDesc, g: EngineGraph): { name: string; value: string }[] {
  const b = s.buffer ? g.buffers.find((x) => x.id === s.buffer) : undefined;
  const place = b?.placement[0];
  const where = place ? (place.pool ? `${place.pool} + ${place.poolOffset}` : place.location === 'UNKNOWN' ? 'not placed' : `${place.location} (memory of its own)`) : 'not placed';
  return [
    {
      name: s.id,
      value: `${s.name}: ${s.format} ${s.dims.n}x${s.dims.c}x${s.dims.h}x${s.dims.w} ${s.dataFormat}, line stride ${s.lineStride}, surface stride ${s.surfaceStride}, ${s.size} bytes, ${s.category}${s.bind ? ` (bindable ${s.bind.direction} ${s.bind.id})` : ''}`,
    },
    ...(b ? [{ name: `${s.id} buffer`, value: `${b.id}: ${b.size} bytes at ${where}${s.bufferOffset ? `, surface at +${s.bufferOffset}` : ''}` }] : []),
  ];
}

interface StageGraph {
  view: NvdlaGraphView;
  engine: EngineGraph | null;
}

/** Compiles and keeps what the compile view shows; `caffe`: the Caffe graph the origins are matched against. */
export function compileForView(deploy: CaffeDeploy, weights: CaffeWeights, request: CompileRequest, calibration: CalibrationTable | null, caffe: CaffeGraphNames, now: () => number = () => 0): CompiledNet {
  const t0 = now();
  const options: CompileOptionValues = { ...COMPILE_DEFAULTS, ...request.options };
  const r = compileNvdla(deploy, weights, { ...options, calibtable: calibration });
  return viewOfCompile(r, options, calibration, caffe, now() - t0, request.shown);
}

/**
 * `compileForView` step by step: `hooks.onProgress` hears of every step (network, canonical,
 * generateGraph, each pass, emit; awaited, so a worker yields to its event loop there) and a
 * compile whose `hooks.signal` is aborted by then stops with a FormatError of kind `cancelled`
 * naming the step it did not start.
 */
export async function compileForViewStepwise(
  deploy: CaffeDeploy,
  weights: CaffeWeights,
  request: CompileRequest,
  calibration: CalibrationTable | null,
  caffe: CaffeGraphNames,
  hooks: CompileHooks = {},
): Promise<CompiledNet> {
  const now = hooks.now ?? (() => 0);
  const t0 = now();
  const options: CompileOptionValues = { ...COMPILE_DEFAULTS, ...request.options };
  const steps = compileNvdlaSteps(deploy, weights, { ...options, calibtable: calibration });
  let ms = 0;
  for (;;) {
    const t = now();
    const next = steps.next();
    ms += now() - t;
    if (next.done) return viewOfCompile(next.value, options, calibration, caffe, ms, request.shown);
    await hooks.onProgress?.(next.value);
    if (hooks.signal?.aborted) {
      throw new FormatError({ kind: 'cancelled', file: deploy.file, message: `the compile was cancelled before ${next.value.step} (step ${next.value.done + 1} of ${next.value.total})` });
    }
  }
}

/**
 * What the compile view gets of a compile: the summary (with the tables of the canonical graph and
 * of the engine graph after the timeline step named `shown`, the first step when none) and the
 * stage graphs, built when asked for. Exported for the tests.
 */
export function viewOfCompile(r: NvdlaCompileResult, options: CompileOptionValues, calibration: CalibrationTable | null, caffe: CaffeGraphNames, ms: number, shown?: string): CompiledNet {
  const sources = r.network ? r.network.sources.map((s) => ({ id: s.id, name: s.name })) : [];
  const names = new Map(sources.map((s) => [s.id, s.name]));
  const idOfName = new Map(sources.map((s) => [s.name, s.id]));

  // The stage graphs are listed with their counts; a stage's drawable graph and its tables are
  // built when asked for (the graph calls, `stage`), once. The canonical graph and the engine
  // graph the view shows first (`request.shown`, a timeline step's name) come built with the
  // summary: building all 17 eagerly cost 100-250 ms of worker time per ResNet-50 compile.
  const stages = new Map<string, StageGraph>();
  const stageIds: { id: string; name: string; stats: () => Graph['stats']; make: () => StageGraph }[] = [];
  if (r.canonical) {
    const can = r.canonical;
    stageIds.push({ id: CANONICAL_GRAPH, name: 'canonical graph', stats: () => canonicalViewStats(can), make: () => ({ view: canonicalGraphView(can), engine: null }) });
  }
  if (r.engine) {
    const eng = r.engine;
    const name = 'engine graph (generateGraph)';
    stageIds.push({ id: ENGINE_GRAPH, name, stats: () => engineViewStats(eng), make: () => ({ view: engineGraphView(eng, name), engine: eng }) });
  }
  r.passes.forEach((p, i) => {
    const name = `engine graph after ${p.name}`;
    stageIds.push({ id: passGraphId(i), name, stats: () => engineViewStats(p.graph), make: () => ({ view: engineGraphView(p.graph, name), engine: p.graph }) });
  });
  const stage = (id: string): StageGraph => {
    let s = stages.get(id);
    if (!s) {
      const spec = stageIds.find((x) => x.id === id);
      if (!spec) throw new RangeError(`the compile has no graph '${id}' (it has ${stageIds.map((x) => x.id).join(', ') || 'none'})`);
      s = spec.make();
      stages.set(id, s);
    }
    return s;
  };
  const tablesOf = (id: string): StageTables => {
    const v = stage(id).view;
    return { origins: v.origins, edgeKinds: v.edgeKinds };
  };

  const graphs: CompiledGraphInfo[] = stageIds.map(({ id, name, stats }) => ({ id, name, stats: stats() }));
  const timeline = passTimeline(r, names);
  const shownStep = timeline.find((s) => s.name === shown) ?? timeline[0];
  const eager: Record<string, StageTables> = {};
  for (const id of [CANONICAL_GRAPH, shownStep?.graphId]) if (id && stageIds.some((x) => x.id === id)) eager[id] = tablesOf(id);

  const graph: GraphService = {
    graph: (id) => stage(id).view.graph,
    nodeDetails(graphId, nodeIndex): NodeDetails {
      const s = stage(graphId);
      const node = s.view.graph.nodes[nodeIndex];
      if (!node) throw new RangeError(`node ${nodeIndex} does not exist in ${graphId}`);
      const extra: NodeDetails['extra'] = [];
      const origins = s.view.origins[nodeIndex] ?? [];
      if (origins.length) extra.push({ name: 'Caffe layers', value: layersOf(origins, names).join(', ') });
      const g = s.engine;
      if (g && node.kind === 'op') {
        const n = g.nodes.find((x) => x.id === node.id);
        if (n) {
          if (n.taskId >= 0) extra.push({ name: 'task', value: String(n.taskId) });
          const slots = n.dependency.map((d) => d.slot).filter((x) => x >= 0);
          if (slots.length) extra.push({ name: 'op slot', value: slots.join(', ') });
          const edges = [...n.inputEdges, ...n.auxEdges, ...n.outputEdges];
          for (const e of edges) {
            const surface = g.surfaces.find((x) => x.edge === e);
            if (surface) extra.push(...surfaceRows(surface, g));
          }
        }
      }
      return { node, extra };
    },
    tensorDetails(graphId, tensor): TensorDetails {
      const s = stage(graphId);
      const e = s.engine?.edges[tensor];
      const t = e?.tensor ?? null;
      const surface = e ? s.engine!.surfaces.find((x) => x.edge === e.id) : undefined;
      const canonicalEdge = s.engine ? null : r.canonical?.edges[tensor];
      const tensorInfo = t ?? canonicalEdge?.tensor ?? null;
      if (!tensorInfo) throw new RangeError(`tensor ${tensor} does not exist in ${graphId}`);
      const shape = [tensorInfo.dims.n, tensorInfo.dims.c, tensorInfo.dims.h, tensorInfo.dims.w];
      return {
        subgraph: 0,
        index: tensor,
        name: tensorInfo.name,
        shape,
        dtype: surface?.format ?? 'tensor',
        typeName: surface?.format ?? 'tensor',
        type: 0,
        typeString: surface ? `${surface.format} ${shape.join('x')}` : shape.join('x'),
        shapeSignature: null,
        isVariable: false,
        buffer: -1,
        constant: false,
        byteLength: surface?.size ?? 0,
        values: null,
        quantization: null,
        note: surface ? `${surface.id} (${surface.category}, line stride ${surface.lineStride}, surface stride ${surface.surfaceStride}) in ${surface.buffer ?? 'no buffer'}` : null,
      };
    },
  };

  const caffeOrigins = caffe.names.map((ns) => sorted(ns.map((n) => idOfName.get(n)).filter((x): x is number => x !== undefined)));
  const res = r.resolved;
  const finalGraph = r.passes.at(-1)?.graph ?? r.engine;
  return {
    bytes: r.bytes,
    graph,
    stage: tablesOf,
    summary: {
      options,
      calibration: calibration?.file ?? null,
      resolved: res
        ? { profile: res.profile.name, target: res.target.name, precision: res.profile.computePrecision, batch: finalGraph?.batchSize ?? res.profile.multiBatchSize, inputFormat: `${res.profile.networkInputDataFormat} ${res.profile.networkInputSurfaceFormat}` }
        : null,
      diagnostics: r.diagnostics,
      reached: r.reached,
      graphs,
      stages: eager,
      timeline,
      sources,
      caffeGraphId: caffe.graphId,
      caffeOrigins,
      memory: memoryPlanOf(r, names),
      origins: originsSidecarOf(r),
      loadableName: `${res?.profile.name ?? options.profile}.nvdla`,
      loadableSize: r.bytes ? r.bytes.length : null,
      ms,
    },
  };
}

/** The calibration table of a request: given as text, or a file of the document's set (by name). */
export function calibrationOf(request: CompileRequest, files: { name: string; bytes: Uint8Array }[]): CalibrationTable | null {
  const c = request.calibration;
  if (!c) return null;
  if (c.text !== undefined) return parseCalibrationTable(c.text, c.file);
  const f = files.find((x) => x.name === c.file);
  if (!f) throw new FormatError({ kind: 'semantic', file: c.file, message: `the calibration table '${c.file}' is not among the files opened with the net` });
  return parseCalibrationTable(new TextDecoder().decode(f.bytes), f.name);
}


export type * from './compile-summary';
export type { CompiledNet } from '../format';
