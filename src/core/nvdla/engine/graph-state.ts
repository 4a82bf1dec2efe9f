/**
 * Surface and buffer bookkeeping shared by the passes (nvdla/sw `Graph::registerAllSurfaces`,
 * `registerAllBuffers`, `refreshGraphState`): over the edges in graph order, register a surface
 * per data edge, find its producers and consumers, settle its format, strides, size and offset,
 * and give it a buffer; `reserveBuffers` then sizes the buffers.
 */
import { surfaceFormat } from '../surface';
import type { CompileProfile } from '../profiles';
import type { TargetConfig } from '../targets';
import { EngineGraphEditor, repopulateEdgePorts } from './graph';
import { GraphIndex, isSoftwareNode, Suggestions, tsdSize } from './suggest';
import type { EngineEdge, EngineGraph, EngineNode, TensorBufferDesc, TensorSurfaceDesc } from './model';
import { orderedGraphElements } from './ordering';
import {
  SurfaceError,
  edgeById,
  isAuxTensorType,
  registerSurface,
  supportedFormats,
  surfaceById,
} from './surfaces';

export interface PassContext {
  profile: CompileProfile;
  target: TargetConfig;
}

/** the graph's edges and nodes in upstream's order (`orderedEdges()`, `orderedNodes()`) */
export function orderedElements(g: EngineGraph): { nodes: EngineNode[]; edges: EngineEdge[] } {
  const o = orderedGraphElements(g);
  if (o.error) throw new SurfaceError(o.error);
  return { nodes: o.nodes, edges: o.edges };
}

function edgeSurface(g: EngineGraph, id: string): TensorSurfaceDesc | null {
  const e = edgeById(g, id)!;
  return e.surface ? surfaceById(g, e.surface) : null;
}

const precisionOf = (format: string) => surfaceFormat(format).precision;

function suggestInputFormats(node: EngineNode, ctx: PassContext): string[] {
  const sup = supportedFormats(node.engineOpType).in;
  if (sup.length === 1) return sup;
  const out = sup.filter((f) => precisionOf(f) === ctx.profile.computePrecision);
  if (!out.length) throw new SurfaceError(`No supported input surface formats for node:${node.name}`);
  return out;
}

function suggestOutputFormats(g: EngineGraph, node: EngineNode, ctx: PassContext): string[] {
  const sup = supportedFormats(node.engineOpType).out;
  const inTsd = node.inputEdges.length ? edgeSurface(g, node.inputEdges[0]!) : null;
  const inSF = inTsd ? inTsd.format : 'NVDLA_UNKNOWN_FORMAT';
  if (sup.length === 1) return sup;
  if (sup.includes(inSF)) return [inSF];
  const comp = ctx.profile.computePrecision;
  let out = sup.filter((f) => precisionOf(f) === comp && precisionOf(f) === precisionOf(inSF));
  if (!out.length) out = sup.filter((f) => precisionOf(f) === comp);
  if (!out.length) throw new SurfaceError(`No suggested output surface formats for node:${node.name}`);
  return out;
}

function suggestAuxFormats(g: EngineGraph, node: EngineNode, ctx: PassContext): string[] {
  const sup = supportedFormats(node.engineOpType).aux;
  const comp = ctx.profile.computePrecision;
  if (!sup.length) throw new SurfaceError(`No supported aux surface formats for ${node.name}`);
  switch (node.engineOpType) {
    case 'CONVOLUTION_CONV':
    case 'CONVOLUTION_FC':
    case 'CONVOLUTION_DECONV': {
      if (sup.length === 1) return sup;
      const inTsd = node.inputEdges.length ? edgeSurface(g, node.inputEdges[0]!) : null;
      const inSF = inTsd ? inTsd.format : 'NVDLA_UNKNOWN_FORMAT';
      const inCategory = inSF !== 'NVDLA_UNKNOWN_FORMAT' ? surfaceFormat(inSF).category : 'FEATURE_DATA';
      const winograd = node.params.kind === 'conv' && node.params.conv.convMode === 'WINOGRAD';
      const out = sup.filter((f) => {
        if (precisionOf(f) !== comp) return false;
        if (winograd) return f.includes('WG');
        if (inCategory === 'IMG') return f.includes('IMG');
        if (inCategory === 'FEATURE_DATA') return f.includes('DC');
        return true;
      });
      if (!out.length) throw new SurfaceError(`No suggested aux surface formats for node:${node.name}`);
      return out;
    }
    case 'SDP_BIAS':
    case 'SDP_SCALE':
    case 'SDP_BATCH_NORM': {
      const want = comp === 'FP16' ? 'FP16' : 'INT16';
      return sup.filter((f) => precisionOf(f) === want);
    }
    case 'SDP_ACTIVATION':
    case 'SDP_ELEMENTWISE':
    case 'SDP_NOP':
    case 'SDP_SUPER':
      return sup.filter((f) => precisionOf(f) === comp);
    default: {
      if (sup.length === 1) return sup;
      const out = sup.filter((f) => precisionOf(f) === comp);
      if (!out.length) throw new SurfaceError(`No suggested aux surface formats for node:${node.name}`);
      return out;
    }
  }
}

/** `Edge::determineSurfaceFormat` */
function determineSurfaceFormat(g: EngineGraph, ed: EngineGraphEditor, e: EngineEdge, ctx: PassContext): void {
  const tsd = surfaceById(g, e.surface!);
  if (tsd.format !== 'NVDLA_UNKNOWN_FORMAT') return;
  const type = e.tensor!.type;
  const aux = isAuxTensorType(type);
  const bindable = type === 'NW_INPUT' || type === 'NW_OUTPUT';
  const consumers = tsd.consumers.map((id) => ed.node(id));
  const producers = tsd.producers.map((id) => ed.node(id));
  const consumerSFs = new Set<string>();
  const producerSFs = new Set<string>();
  for (const c of consumers) {
    const s = aux ? suggestAuxFormats(g, c, ctx) : bindable ? [ctx.profile.networkInputSurfaceFormat] : suggestInputFormats(c, ctx);
    for (const f of s) consumerSFs.add(f);
  }
  for (const p of producers) {
    const s = bindable ? [ctx.profile.networkOutputSurfaceFormat] : aux ? [] : suggestOutputFormats(g, p, ctx);
    for (const f of s) producerSFs.add(f);
  }
  let proposed: string[];
  if (bindable) proposed = [...new Set([...producerSFs, ...consumerSFs])];
  else if (aux) proposed = [...consumerSFs];
  else proposed = [...consumerSFs].filter((f) => producerSFs.has(f));
  // std::set<SurfaceFormat>: ordered by enum value; formats that fit any channel count, or exactly this one
  proposed = proposed
    .filter((f) => {
      const cpa = surfaceFormat(f).channelsPerAtom;
      return cpa === -1 || cpa === tsd.dims.c;
    })
    .sort((a, b) => surfaceFormat(a).ordinal - surfaceFormat(b).ordinal);
  if (!proposed.length) {
    // say which layers: upstream names only the edge and surface (its INT8 LRN ended here; NPU
    // Studio gives the CDP INT8 formats, surfaces.ts)
    const who = [...producers, ...consumers].map((n) => n.name).join(', ');
    throw new SurfaceError(`Couldn't narrow down to suitable SF for ${e.id}/${tsd.id}${who ? ` (between ${who})` : ''}`);
  }
  const chosen = proposed[0]!;
  for (const c of consumers) {
    const sup = aux ? supportedFormats(c.engineOpType).aux : supportedFormats(c.engineOpType).in;
    if (!sup.includes(chosen)) throw new SurfaceError(`Proposed surf format:${chosen} is not supported by node:${c.name}`);
  }
  for (const p of producers) {
    if (!aux && !supportedFormats(p.engineOpType).out.includes(chosen)) throw new SurfaceError(`Proposed surf format:${chosen} is not supported by node:${p.name}`);
  }
  tsd.format = chosen;
}

/** the suggestion round of one surface determination (`clearNodeTSDStateMapping` starts a new one) */
export function newSuggestions(g: EngineGraph, ix: GraphIndex, ctx: PassContext): Suggestions {
  return new Suggestions(ix, ctx.target, ctx.profile.computePrecision, g.batchSize, () => {
    const tb: TensorBufferDesc = { id: `tb-${g.counters.buffer++}`, size: 0, surfaces: [], location: 'UNKNOWN', placement: [] };
    g.buffers.push(tb);
    ix.addBuffer(tb);
    return tb;
  });
}

/** a surface's clients: producers then consumers, each once (upstream's unordered set of both) */
function clientsOf(ix: GraphIndex, tsd: TensorSurfaceDesc): EngineNode[] {
  const ids = tsd.producers.slice();
  for (const c of tsd.consumers) if (!ids.includes(c)) ids.push(c);
  return ids.map((id) => ix.node(id));
}

/** the surface-determination steps of `registerAllSurfaces` / `refreshGraphState` */
export function determineSurfaces(g: EngineGraph, ctx: PassContext, edges: EngineEdge[], ix: GraphIndex = new GraphIndex(g)): Suggestions {
  const ed = new EngineGraphEditor(g);
  for (const e of edges) {
    if (e.kind !== 'data' || e.surface) continue;
    registerSurface(g, e);
    ix.addSurface(surfaceById(g, e.surface!));
  }
  const data = edges.filter((e) => e.kind === 'data');
  const tsds = data.map((e) => ix.tsd(e.surface!));
  data.forEach((e, i) => {
    tsds[i]!.producers = [...e.sources];
    tsds[i]!.consumers = [...e.targets];
  });
  data.forEach((e) => determineSurfaceFormat(g, ed, e, ctx));
  const sug = newSuggestions(g, ix, ctx);
  for (const tsd of tsds) {
    tsd.lineStride = 0;
    tsd.surfaceStride = 0;
    let ls = 0;
    let ss = 0;
    for (const c of clientsOf(ix, tsd)) {
      ls = Math.max(ls, sug.lineStride(c, tsd));
      ss = Math.max(ss, sug.surfaceStride(c, tsd));
    }
    tsd.lineStride = ls;
    tsd.surfaceStride = ss;
  }
  for (const tsd of tsds) {
    tsd.size = 0;
    let size = 0;
    for (const c of clientsOf(ix, tsd)) size = Math.max(size, sug.size(c, tsd));
    tsd.size = size;
  }
  for (const tsd of tsds) {
    tsd.bufferOffset = 0;
    let offset = 0;
    for (const c of clientsOf(ix, tsd)) offset = Math.max(offset, sug.offset(c, tsd));
    tsd.bufferOffset = offset;
  }
  return sug;
}

/** `Edge::registerBuffer`: a software client (concat, split) decides the buffer, else every client agrees on one */
export function registerBuffers(g: EngineGraph, edges: EngineEdge[], ctx: PassContext, ix: GraphIndex = new GraphIndex(g), sug: Suggestions = newSuggestions(g, ix, ctx)): void {
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = ix.tsd(e.surface!);
    if (!tsd.buffer) {
      const clients = clientsOf(ix, tsd);
      const sw = clients.find(isSoftwareNode);
      let tb: TensorBufferDesc;
      if (sw) tb = sug.buffer(sw, tsd);
      else {
        tb = sug.buffer(clients[0]!, tsd);
        tsd.buffer = tb.id;
        for (const c of clients.slice(1)) if (sug.buffer(c, tsd) !== tb) throw new SurfaceError(`clients of ${tsd.id} suggest different buffers`);
      }
      tsd.buffer = tb.id;
    }
    const tb = ix.buffers.get(tsd.buffer)!;
    if (!tb.surfaces.includes(tsd.id)) tb.surfaces.push(tsd.id);
  }
}

/** `Edge::reserveBuffer` */
export function reserveBuffers(g: EngineGraph, edges: EngineEdge[], target: TargetConfig, ix: GraphIndex = new GraphIndex(g)): void {
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = ix.tsd(e.surface!);
    // `TensorSurfaceDesc::size()`: a size no client suggested is the format's own, computed now
    if (!tsdSize(tsd, target)) throw new SurfaceError(`surface size == 0 for ${tsd.id}`);
    const tb = ix.buffers.get(tsd.buffer!)!;
    switch (tsd.category) {
      case 'GLOBAL':
      case 'LOCAL':
        tb.size = Math.max(tb.size, tsd.size);
        break;
      case 'EXTERNAL':
        tb.size = tb.size ? Math.max(tb.size, tsd.size * g.batchSize) : tsd.size * g.batchSize;
        break;
      case 'STREAM':
        tb.location = 'STREAM';
        break;
    }
  }
}

/**
 * `refreshGraphState` after an edit that added at most one data edge (a merge, a fusion, a node
 * that did not split): what a full refresh would change, computed for that edge alone. Ports are
 * repopulated and every surface's producers and consumers re-read; the new edge gets its surface
 * (the next `tsd-N`, as the full refresh would number it, being the only one), format, strides,
 * size, offset and buffer. Surfaces that existed keep their values: an edit of this kind does not
 * change what their clients ask of them, and the full refresh that ends each pass recomputes them
 * all. An edit that added more edges gets the full refresh (their numbering follows graph order).
 */
function sameList(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

export function refreshAfterLocalEdit(g: EngineGraph, ctx: PassContext, editor?: EngineGraphEditor): void {
  const fresh = g.edges.filter((e) => e.kind === 'data' && !e.surface);
  if (fresh.length > 1) {
    refreshGraphState(g, ctx);
    return;
  }
  // the caller's editor when it made the edit through one (its maps are current), else a new one
  const ed = editor ?? new EngineGraphEditor(g);
  for (const n of g.nodes) repopulateEdgePorts(ed, n);
  const e = fresh[0];
  if (e) registerSurface(g, e);
  for (const x of g.edges) {
    if (x.kind !== 'data' || !x.surface) continue;
    const tsd = surfaceById(g, x.surface);
    // copied only when they differ (this runs for every surface after every merge)
    if (!sameList(tsd.producers, x.sources)) tsd.producers = [...x.sources];
    if (!sameList(tsd.consumers, x.targets)) tsd.consumers = [...x.targets];
  }
  if (!e) return;
  // (the index only when a surface is new: most merges make none)
  const ix = new GraphIndex(g);
  determineSurfaceFormat(g, ed, e, ctx);
  const tsd = ix.tsd(e.surface!);
  const sug = newSuggestions(g, ix, ctx);
  tsd.lineStride = 0;
  tsd.surfaceStride = 0;
  let ls = 0;
  let ss = 0;
  for (const c of clientsOf(ix, tsd)) {
    ls = Math.max(ls, sug.lineStride(c, tsd));
    ss = Math.max(ss, sug.surfaceStride(c, tsd));
  }
  tsd.lineStride = ls;
  tsd.surfaceStride = ss;
  tsd.size = 0;
  let size = 0;
  for (const c of clientsOf(ix, tsd)) size = Math.max(size, sug.size(c, tsd));
  tsd.size = size;
  tsd.bufferOffset = 0;
  let offset = 0;
  for (const c of clientsOf(ix, tsd)) offset = Math.max(offset, sug.offset(c, tsd));
  tsd.bufferOffset = offset;
  registerBuffers(g, [e], ctx, ix, sug);
  reserveBuffers(g, [e], ctx.target, ix);
}

/** `Graph::refreshGraphState`: ports, then every surface step, buffers and their sizes */
export function refreshGraphState(g: EngineGraph, ctx: PassContext): void {
  const ed = new EngineGraphEditor(g);
  const { nodes, edges } = orderedElements(g);
  for (const n of nodes) repopulateEdgePorts(ed, n);
  const ix = new GraphIndex(g);
  const sug = determineSurfaces(g, ctx, edges, ix);
  registerBuffers(g, edges, ctx, ix, sug);
  reserveBuffers(g, edges, ctx.target, ix);
}
