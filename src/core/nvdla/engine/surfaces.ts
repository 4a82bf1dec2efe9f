/**
 * Tensor surfaces (`tsd-N`) and buffers (`tb-N`) of the engine graph (nvdla/sw `Surface.cpp`,
 * `DLAResourceManager.cpp`, `EngineEdge.cpp`): which surface format each data edge gets (what its
 * consumers and producers suggest, intersected and filtered), its line/surface strides and size
 * (formulas per surface category, the largest any client asks for), its offset in its buffer, and
 * which buffer holds it.
 */
import type { Dims4 } from '../network/model';
import { surfaceFormat, type DataFormat, type SurfaceFormatInfo } from '../surface';
import type { TargetConfig } from '../targets';
import type { CompileProfile } from '../profiles';
import type { EngineEdge, EngineGraph, EngineNode, EngineOpType, TensorBufferDesc, TensorCategory, TensorSurfaceDesc } from './model';

export type { TensorCategory, TensorSurfaceDesc, TensorBufferDesc, BufferPlacement } from './model';

const IMG_FORMAT_NAMES = [
  'R8', 'R10', 'R12', 'R16', 'R16_I', 'R16_F', 'A16B16G16R16', 'X16B16G16R16', 'A16B16G16R16_F', 'A16Y16U16V16',
  'V16U16Y16A16', 'A16Y16U16V16_F', 'A8B8G8R8', 'A8R8G8B8', 'B8G8R8A8', 'R8G8B8A8', 'X8B8G8R8', 'X8R8G8B8',
  'B8G8R8X8', 'R8G8B8X8', 'A2B10G10R10', 'A2R10G10B10', 'B10G10R10A2', 'R10G10B10A2', 'A2Y10U10V10', 'V10U10Y10A2',
  'A8Y8U8V8', 'V8U8Y8A8', 'Y8___U8V8_N444', 'Y8___V8U8_N444', 'Y10___U10V10_N444', 'Y10___V10U10_N444',
  'Y12___U12V12_N444', 'Y12___V12U12_N444', 'Y16___U16V16_N444', 'Y16___V16U16_N444',
].map((n) => `NVDLA_IMG_${n}`);

const FEATURE = ['NVDLA_FEATURE_DATA_INT8', 'NVDLA_FEATURE_DATA_FP16'];

interface SupportedFormats {
  in: string[];
  out: string[];
  aux: string[];
}

/** The surface formats each engine node class supports (its constructor in `EngineAST.h`). */
export function supportedFormats(op: EngineOpType): SupportedFormats {
  switch (op) {
    case 'CONVOLUTION_CONV':
      return { in: [...IMG_FORMAT_NAMES, ...FEATURE], out: FEATURE, aux: ['NVDLA_WEIGHT_DC_INT8', 'NVDLA_WEIGHT_DC_FP16', 'NVDLA_WEIGHT_IMG_INT8', 'NVDLA_WEIGHT_IMG_FP16', 'NVDLA_WEIGHT_WG_INT8', 'NVDLA_WEIGHT_WG_FP16'] };
    case 'CONVOLUTION_FC':
      return { in: ['NVDLA_IMG_R16_F', ...FEATURE], out: FEATURE, aux: ['NVDLA_WEIGHT_DC_INT8', 'NVDLA_WEIGHT_DC_FP16'] };
    case 'CONVOLUTION_DECONV':
      return { in: FEATURE, out: FEATURE, aux: ['NVDLA_WEIGHT_DC_INT8', 'NVDLA_WEIGHT_DC_FP16'] };
    case 'SDP_SCALE':
      return { in: FEATURE, out: FEATURE, aux: ['NVDLA_SCALE_DATA_INT8', 'NVDLA_SCALE_DATA_INT16', 'NVDLA_SCALE_DATA_FP16'] };
    case 'SDP_BATCH_NORM':
      return { in: FEATURE, out: FEATURE, aux: ['NVDLA_BATCH_NORM_DATA_INT8', 'NVDLA_BATCH_NORM_DATA_INT16', 'NVDLA_BATCH_NORM_DATA_FP16'] };
    case 'SDP_BIAS':
      return { in: FEATURE, out: FEATURE, aux: ['NVDLA_BIAS_DATA_INT8', 'NVDLA_BIAS_DATA_INT16', 'NVDLA_BIAS_DATA_FP16'] };
    case 'SDP_SUPER':
      return {
        in: FEATURE,
        out: FEATURE,
        aux: ['NVDLA_BIAS_DATA_INT8', 'NVDLA_BIAS_DATA_INT16', 'NVDLA_BIAS_DATA_FP16', 'NVDLA_SCALE_DATA_INT8', 'NVDLA_SCALE_DATA_INT16', 'NVDLA_SCALE_DATA_FP16', 'NVDLA_BATCH_NORM_DATA_INT8', 'NVDLA_BATCH_NORM_DATA_INT16', 'NVDLA_BATCH_NORM_DATA_FP16'],
      };
    case 'CDP_LRN':
      // upstream: FP16 only (so its INT8 nets with LRN fail "Couldn't narrow down to suitable SF");
      // NPU Studio runs the CDP in INT8 too, with a table of its own (emit/luts.ts lrnInt8Plan)
      return { in: ['NVDLA_FEATURE_DATA_INT8', 'NVDLA_FEATURE_DATA_FP16'], out: ['NVDLA_FEATURE_DATA_INT8', 'NVDLA_FEATURE_DATA_FP16'], aux: [] };
    case 'SPLIT_SOFTWARE':
      return { in: [...IMG_FORMAT_NAMES, ...FEATURE], out: [...IMG_FORMAT_NAMES, ...FEATURE], aux: [] };
    case 'CPU_SCALE':
    case 'CPU_SOFTMAX':
    case 'CONCATENATION_CONCAT':
    case 'SDP_ACTIVATION':
    case 'SDP_ELEMENTWISE':
    case 'SDP_NOP':
    case 'PDP_POOL':
    case 'RUBIK_DECONV':
    default:
      return { in: FEATURE, out: FEATURE, aux: [] };
  }
}

// ------------------------------------------------------------------ formulas (Surface.cpp)

const roundUp = (n: number, a: number): number => (n % a ? n + a - (n % a) : n);

export interface SurfaceContext {
  target: TargetConfig;
  profile: CompileProfile;
}

/** channels per group (atom) of a feature surface */
export function featureChannelsPerGroup(f: SurfaceFormatInfo, t: TargetConfig): number {
  return f.precision === 'INT8' ? t.atomicKSize : t.atomicKSize / 2;
}

function eltwiseChannelsPerGroup(f: SurfaceFormatInfo, t: TargetConfig): number {
  return f.precision === 'FP16' ? t.atomicKSize / 2 : t.atomicKSize;
}

function eltwiseLineStride(d: Dims4, f: SurfaceFormatInfo, t: TargetConfig): number {
  return d.w * eltwiseChannelsPerGroup(f, t) * f.bytesPerElement;
}

function eltwiseSize(d: Dims4, f: SurfaceFormatInfo, t: TargetConfig): number {
  return eltwiseLineStride(d, f, t) * d.h * Math.ceil(Math.fround(d.c / eltwiseChannelsPerGroup(f, t)));
}

/** `TensorSurfaceDesc::lineStride()` from the format and dims */
export function formulaLineStride(format: string, d: Dims4, alignLineStride: boolean, t: TargetConfig): number {
  const f = surfaceFormat(format);
  switch (f.category) {
    case 'IMG':
      return f.ordinal < surfaceFormat('NVDLA_IMG_Y8___U8V8_N444').ordinal ? roundUp(d.w * f.bytesPerElement * f.channelsPerAtom, 32) : roundUp(d.w * f.bytesPerElement, 32);
    case 'FEATURE_DATA':
      return d.w * featureChannelsPerGroup(f, t) * f.bytesPerElement;
    case 'BIAS_DATA':
      return eltwiseLineStride(d, f, t) * (alignLineStride ? 2 : 1);
    case 'BATCH_NORM_DATA':
    case 'SCALE_DATA':
      return eltwiseLineStride(d, f, t);
    default:
      return 0;
  }
}

export function formulaSurfaceStride(format: string, d: Dims4, alignLineStride: boolean, t: TargetConfig): number {
  const f = surfaceFormat(format);
  switch (f.category) {
    case 'FEATURE_DATA':
    case 'BIAS_DATA':
    case 'BATCH_NORM_DATA':
    case 'SCALE_DATA':
      return formulaLineStride(format, d, alignLineStride, t) * d.h;
    default:
      return 0;
  }
}

export function formulaSize(format: string, d: Dims4, alignLineStride: boolean, t: TargetConfig): number {
  const f = surfaceFormat(format);
  switch (f.category) {
    case 'IMG':
      return d.h * formulaLineStride(format, d, alignLineStride, t);
    case 'FEATURE_DATA':
      return formulaSurfaceStride(format, d, alignLineStride, t) * Math.ceil(Math.fround(d.c / featureChannelsPerGroup(f, t)));
    case 'WEIGHT':
      return roundUp(d.n * d.c * d.h * d.w * f.bytesPerElement, t.numConvBufEntryWidth);
    case 'BIAS_DATA':
    case 'SCALE_DATA':
      if (d.h === 1 && d.w === 1) return d.c * d.h * d.w * f.bytesPerElement;
      return eltwiseSize(d, f, t);
    case 'BATCH_NORM_DATA':
      return 2 * f.bytesPerElement * d.c;
    default:
      return 0;
  }
}

// ------------------------------------------------------------------ registration

export class SurfaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SurfaceError';
  }
}

const categoryOfTensorType: Record<string, TensorCategory> = {
  DEBUG: 'EXTERNAL',
  NW_INPUT: 'EXTERNAL',
  NW_OUTPUT: 'EXTERNAL',
  WEIGHT: 'GLOBAL',
  BIAS: 'GLOBAL',
  BATCH_NORM: 'GLOBAL',
  SCALE: 'GLOBAL',
  IO: 'LOCAL',
  STREAM: 'STREAM',
};

/** The surface and buffer tables an engine graph carries once buffers are registered. */
export interface SurfaceTables {
  surfaces: TensorSurfaceDesc[];
  buffers: TensorBufferDesc[];
}

/**
 * an id index over one of a graph's lists, rebuilt when the list is replaced or shrinks; a list
 * that grew (the passes only push onto them: a removal makes a new array) has its new tail added,
 * so registering surfaces one by one while looking them up stays linear
 */
interface ListIndex<T> {
  list: readonly T[];
  length: number;
  byId: Map<string, T>;
}

const surfaceIndexes = new WeakMap<EngineGraph, ListIndex<TensorSurfaceDesc>>();
const bufferIndexes = new WeakMap<EngineGraph, ListIndex<TensorBufferDesc>>();
const edgeIndexes = new WeakMap<EngineGraph, ListIndex<EngineEdge>>();

function lookup<T extends { id: string }>(cache: WeakMap<EngineGraph, ListIndex<T>>, g: EngineGraph, list: readonly T[], id: string): T | undefined {
  let ix = cache.get(g);
  if (!ix || ix.list !== list || ix.length > list.length) {
    ix = { list, length: list.length, byId: new Map(list.map((x) => [x.id, x])) };
    cache.set(g, ix);
  } else if (ix.length < list.length) {
    for (let i = ix.length; i < list.length; i++) ix.byId.set(list[i]!.id, list[i]!);
    ix.length = list.length;
  }
  const hit = ix.byId.get(id);
  if (hit && hit.id === id) return hit;
  // a list edited in place: fall back to a scan and start the index anew next time
  cache.delete(g);
  return list.find((x) => x.id === id);
}

/**
 * `list` without the element `id`, as a new array (the passes replace a list to remove from it),
 * with `g`'s index over it kept current instead of rebuilt at the next lookup (the merges of
 * mergeActivationOperations remove a surface and an edge each, then look surfaces up all over)
 */
function withoutId<T extends { id: string }>(cache: WeakMap<EngineGraph, ListIndex<T>>, g: EngineGraph, list: readonly T[], id: string): T[] {
  const out = list.filter((x) => x.id !== id);
  const ix = cache.get(g);
  if (ix && ix.list === list && ix.length === list.length) {
    ix.byId.delete(id);
    ix.list = out;
    ix.length = out.length;
  }
  return out;
}

/** `g.surfaces` without surface `id` (a new list) */
export function surfacesWithout(g: EngineGraph, id: string): TensorSurfaceDesc[] {
  return withoutId(surfaceIndexes, g, g.surfaces, id);
}

/** `g.buffers` without buffer `id` (a new list) */
export function buffersWithout(g: EngineGraph, id: string): TensorBufferDesc[] {
  return withoutId(bufferIndexes, g, g.buffers, id);
}

/** `g.edges` without edge `id` (a new list) */
export function edgesWithout(g: EngineGraph, id: string): EngineEdge[] {
  return withoutId(edgeIndexes, g, g.edges, id);
}

export function surfaceById(g: EngineGraph, id: string): TensorSurfaceDesc {
  const s = lookup(surfaceIndexes, g, g.surfaces, id);
  if (!s) throw new SurfaceError(`no surface ${id}`);
  return s;
}

export function bufferById(g: EngineGraph, id: string): TensorBufferDesc | undefined {
  return lookup(bufferIndexes, g, g.buffers, id);
}

/** a graph's edge by id (the list is only pushed onto or replaced, as the surface list is) */
export function edgeById(g: EngineGraph, id: string): EngineEdge | undefined {
  return lookup(edgeIndexes, g, g.edges, id);
}

export function surfaceOfEdge(g: EngineGraph, e: EngineEdge): TensorSurfaceDesc | null {
  return e.surface ? surfaceById(g, e.surface) : null;
}

/** `Edge::registerSurface` */
export function registerSurface(g: EngineGraph, e: EngineEdge): void {
  if (e.kind !== 'data' || e.surface) return;
  const t = e.tensor;
  const type = t ? t.type : 'DEBUG';
  const tsd: TensorSurfaceDesc = {
    id: `tsd-${g.counters.surface++}`,
    name: t ? t.name : '',
    edge: e.id,
    category: categoryOfTensorType[type]!,
    dims: t ? { ...t.dims } : { n: 1, c: 0, h: 0, w: 0 },
    dataFormat: t ? t.dataFormat : 'UNKNOWN',
    format: 'NVDLA_UNKNOWN_FORMAT',
    lineStride: 0,
    surfaceStride: 0,
    size: 0,
    bufferOffset: 0,
    batchOffsets: [],
    content: false,
    bind: e.bind ? { ...e.bind } : null,
    copyOutDebug: type === 'DEBUG',
    alignLineStride: false,
    producers: [],
    consumers: [],
    buffer: null,
  };
  g.surfaces.push(tsd);
  e.surface = tsd.id;
}

export function isAuxTensorType(type: string): boolean {
  return type === 'WEIGHT' || type === 'BIAS' || type === 'BATCH_NORM' || type === 'SCALE';
}
