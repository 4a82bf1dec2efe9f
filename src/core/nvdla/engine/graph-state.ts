/**
 * Surface and buffer bookkeeping shared by the passes (nvdla/sw `Graph::registerAllSurfaces`,
 * `registerAllBuffers`, `refreshGraphState`): over the edges in graph order, register a surface
 * per data edge, find its producers and consumers, settle its format, strides, size and offset,
 * and give it a buffer; `reserveBuffers` then sizes the buffers.
 */
import { surfaceFormat } from '../surface';
import type { CompileProfile } from '../profiles';
import type { TargetConfig } from '../targets';
import { EngineGraphEditor } from './graph';
import type { EngineEdge, EngineGraph, EngineNode } from './model';
import { graphOrder } from './ordering';
import {
  SurfaceError,
  formulaLineStride,
  formulaSize,
  formulaSurfaceStride,
  isAuxTensorType,
  registerSurface,
  supportedFormats,
  surfaceById,
  type TensorBufferDesc,
  type TensorSurfaceDesc,
} from './surfaces';

export interface PassContext {
  profile: CompileProfile;
  target: TargetConfig;
}

/** the graph's edges and nodes in upstream's order (`orderedEdges()`, `orderedNodes()`) */
export function orderedElements(g: EngineGraph): { nodes: EngineNode[]; edges: EngineEdge[] } {
  const o = graphOrder(g);
  if (o.error) throw new SurfaceError(o.error);
  const ed = new EngineGraphEditor(g);
  return { nodes: o.nodes.map((id) => ed.node(id)), edges: o.edges.map((id) => ed.edge(id)) };
}

function edgeSurface(g: EngineGraph, id: string): TensorSurfaceDesc | null {
  const e = g.edges.find((x) => x.id === id)!;
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
  if (!proposed.length) throw new SurfaceError(`Couldn't narrow down to suitable SF for ${e.id}/${tsd.id}`);
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

function isAuxOf(node: EngineNode, e: EngineEdge): boolean {
  return node.auxEdges.includes(e.id);
}

/** bytes of a surface as one client sees it (SDP aux data doubles with INT8 rescaling factors) */
function suggestSize(g: EngineGraph, node: EngineNode, e: EngineEdge, tsd: TensorSurfaceDesc, ctx: PassContext): number {
  let size = formulaSize(tsd.format, tsd.dims, tsd.alignLineStride, ctx.target);
  if (node.engineType === 'SDP' && 'sdp' in node.params && node.params.sdp.x1.isINT8Rescaling && isAuxOf(node, e)) size *= 2;
  return size;
}

/** offset of the surface in its buffer as one client sees it */
function suggestOffset(g: EngineGraph, node: EngineNode, e: EngineEdge, tsd: TensorSurfaceDesc): number {
  if (node.engineType === 'SDP' && node.inputEdges.includes(e.id)) {
    return tsd.category === 'STREAM' ? tsd.bufferOffset : 0;
  }
  if (node.engineType === 'CONCATENATION' || node.engineType === 'SPLIT' || node.engineType === 'RUBIK') {
    throw new SurfaceError(`${node.name}: surface offsets for ${node.engineType.toLowerCase()} nodes are not implemented yet`);
  }
  return 0;
}

/** the surface-determination steps of `registerAllSurfaces` / `refreshGraphState` */
export function determineSurfaces(g: EngineGraph, ctx: PassContext, edges: EngineEdge[]): void {
  const ed = new EngineGraphEditor(g);
  for (const e of edges) registerSurface(g, e);
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    tsd.producers = [...e.sources];
    tsd.consumers = [...e.targets];
  }
  for (const e of edges) if (e.kind === 'data') determineSurfaceFormat(g, ed, e, ctx);
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    // all clients see the surface's own dims in direct (non-Winograd) convolution
    tsd.lineStride = formulaLineStride(tsd.format, tsd.dims, tsd.alignLineStride, ctx.target);
    tsd.surfaceStride = formulaSurfaceStride(tsd.format, tsd.dims, tsd.alignLineStride, ctx.target);
  }
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    let size = 0;
    const clients = [...new Set([...tsd.producers, ...tsd.consumers])].map((id) => ed.node(id));
    for (const c of clients) size = Math.max(size, suggestSize(g, c, e, tsd, ctx));
    tsd.size = size;
  }
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    let offset = 0;
    const clients = [...new Set([...tsd.producers, ...tsd.consumers])].map((id) => ed.node(id));
    const previous = tsd.bufferOffset;
    tsd.bufferOffset = 0;
    for (const c of clients) offset = Math.max(offset, suggestOffset(g, c, e, { ...tsd, bufferOffset: previous }));
    tsd.bufferOffset = offset;
  }
}

/** `Edge::registerBuffer`: one buffer per surface unless a software node (concat, split) shares one */
export function registerBuffers(g: EngineGraph, edges: EngineEdge[]): void {
  const ed = new EngineGraphEditor(g);
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    if (!tsd.buffer) {
      const clients = [...new Set([...tsd.producers, ...tsd.consumers])].map((id) => ed.node(id));
      if (clients.some((c) => c.engineType === 'CONCATENATION' || c.engineType === 'SPLIT')) {
        throw new SurfaceError(`${tsd.id}: buffers shared through concat/split nodes are not implemented yet`);
      }
      const tb: TensorBufferDesc = { id: `tb-${g.counters.buffer++}`, size: 0, surfaces: [], location: 'UNKNOWN', placement: [] };
      g.buffers.push(tb);
      tsd.buffer = tb.id;
    }
    const tb = g.buffers.find((b) => b.id === tsd.buffer)!;
    if (!tb.surfaces.includes(tsd.id)) tb.surfaces.push(tsd.id);
  }
}

/** `Edge::reserveBuffer` */
export function reserveBuffers(g: EngineGraph, edges: EngineEdge[]): void {
  for (const e of edges) {
    if (e.kind !== 'data') continue;
    const tsd = surfaceById(g, e.surface!);
    if (!tsd.size) throw new SurfaceError(`surface size == 0 for ${tsd.id}`);
    const tb = g.buffers.find((b) => b.id === tsd.buffer)!;
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

/** `Graph::refreshGraphState`: ports, then every surface step, buffers and their sizes */
export function refreshGraphState(g: EngineGraph, ctx: PassContext): void {
  const ed = new EngineGraphEditor(g);
  for (const n of g.nodes) {
    if (n.engineType === 'CONCATENATION' || n.engineType === 'SPLIT' || n.engineOpType === 'SDP_ELEMENTWISE') continue;
    ed.populateEdgePorts(n);
  }
  const { edges } = orderedElements(g);
  determineSurfaces(g, ctx, edges);
  registerBuffers(g, edges);
  reserveBuffers(g, edges);
}
