/**
 * The memory and address lists, tensor descriptors and aux-data blobs of a loadable
 * (`Graph::prepareMemoryListEntries`; nvdla.md section 3): memory entry 0 is left for the dead
 * page (emit adds it), then one entry per non-empty pool (GLOBAL_DRAM, LOCAL_DRAM, LOCAL_CVSRAM)
 * with the aux blobs copied into it, then one per buffer outside the pools (buffers in id order as
 * strings), bindable ones with a tensor descriptor; then one address entry per pool and per
 * surface outside the pools (per batch, aux data once). Surfaces in a pool are addressed as the
 * pool's address entry plus an offset.
 */
import type { EngineGraph, EngineNode } from '../engine/model';
import type { TensorBufferDesc, TensorSurfaceDesc } from '../engine/surfaces';
import { DirectConvolutionWeights, blobBytes, type WeightBlob } from '../engine/weights';
import { surfaceFormat } from '../surface';
import type { TargetConfig } from '../targets';
import { DATA_FORMAT_CODE } from '../surface';
import { INTERFACE, MEMORY_DOMAIN, MEMORY_FLAGS, WrittenBlob, type AddressListEntry, type Blob, type MemoryListEntry, type TensorDescListEntry } from './loadable';

export class EmitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EmitError';
  }
}

/** where each surface is addressed from, per batch: the global address list entry and the offset in it */
export interface SurfaceAddress {
  addressId: number[];
  offset: number[];
}

export interface MemoryLayout {
  memory: MemoryListEntry[];
  addresses: AddressListEntry[];
  tensorDescs: TensorDescListEntry[];
  blobs: Blob[];
  /** by tsd id */
  surfaceAddress: Map<string, SurfaceAddress>;
}

const byIdString = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

const DATA_TYPE: Record<string, number> = { INT8: 4, INT16: 3, FP16: 2, UINT8: 5, UINT16: 6 };

/** `Graph::createTensorDescListEntry` */
function tensorDesc(tsd: TensorSurfaceDesc, tb: TensorBufferDesc, id: number, memId: number, memoryAtomicSize: number): TensorDescListEntry {
  const sf = surfaceFormat(tsd.format);
  const dataType = DATA_TYPE[sf.precision];
  if (dataType === undefined) throw new EmitError(`${tsd.id}: no loadable data type for precision ${sf.precision}`);
  const t: TensorDescListEntry = {
    name: tsd.name,
    id,
    memId,
    size: tb.size,
    offset: 0,
    dataFormat: DATA_FORMAT_CODE[tsd.dataFormat],
    dataType,
    dataCategory: 0,
    pixelFormat: 0,
    pixelMapping: 0,
    n: tsd.dims.n,
    c: tsd.dims.c,
    h: tsd.dims.h,
    w: tsd.dims.w,
    strides: [sf.bytesPerElement, tsd.lineStride, tsd.surfaceStride, 0, 0, 0, 0, 0],
  };
  if (sf.category === 'IMG') {
    t.dataCategory = 0;
    t.pixelFormat = sf.ordinal;
  } else if (sf.category === 'FEATURE_DATA') {
    t.dataCategory = 2;
    t.pixelFormat = memoryAtomicSize === 8 ? 37 : 36;
    t.dataFormat = DATA_FORMAT_CODE.NCxHWx;
  } else {
    throw new EmitError(`${tsd.id}: no tensor descriptor for a bindable ${sf.category} surface`);
  }
  return t;
}

/** the engine-ready data an aux surface holds: its consumer's translated weights, bias or scale data */
export function auxData(g: EngineGraph, tsd: TensorSurfaceDesc): WeightBlob {
  const node: EngineNode | undefined = g.nodes.find((n) => tsd.consumers.includes(n.id));
  const p = node?.params;
  let blob: WeightBlob | null = null;
  if (p?.kind === 'conv') blob = p.conv.dlaWeights;
  else if (p?.kind === 'sdp-bias') blob = p.dlaBiasData;
  else if (p?.kind === 'sdp-scale') blob = p.dlaScaleData;
  else if (p?.kind === 'sdp-bn') blob = p.dlaBatchNormData;
  else if (p?.kind === 'sdp-super') {
    const x = (['x1', 'x2', 'y'] as const).find((k) => p.auxEdgeOf[k] === tsd.edge);
    blob = x ? (p.sub[x]?.dlaData ?? null) : null;
  }
  if (!blob) throw new EmitError(`${tsd.id}: no engine data for this aux surface (${node?.name ?? 'no consumer'})`);
  return blob;
}

export function prepareMemoryList(g: EngineGraph, target: TargetConfig): MemoryLayout {
  const memory: MemoryListEntry[] = [];
  const addresses: AddressListEntry[] = [];
  const tensorDescs: TensorDescListEntry[] = [];
  const blobs: Blob[] = [];
  const surfaceAddress = new Map<string, SurfaceAddress>();
  const batches = g.batchSize;
  let memId = 1;
  let addrId = 1;
  const poolIds = new Map<string, { memId: number; addrId: number }>();
  const surfaces = new Map(g.surfaces.map((s) => [s.id, s]));
  const buffers = new Map(g.buffers.map((b) => [b.id, b]));

  // pools
  for (const pool of g.pools) {
    if (!pool.used) continue;
    const ids = { memId: memId++, addrId: addrId++ };
    poolIds.set(pool.name, ids);
    const size = 4096 * Math.ceil(pool.used / 4096);
    const entry: MemoryListEntry = {
      id: ids.memId,
      domain: pool.name === 'LOCAL_CVSRAM' ? MEMORY_DOMAIN.SRAM : MEMORY_DOMAIN.SYSTEM,
      flags: MEMORY_FLAGS.ALLOC,
      size,
      alignment: 4096,
      contents: [],
      offsets: [],
      bindId: 0,
      tensorDescId: 0,
    };
    if (pool.contents.length) {
      entry.flags |= MEMORY_FLAGS.SET;
      for (const c of pool.contents) {
        entry.contents.push(c.buffer);
        entry.offsets.push(c.offset);
      }
    }
    memory.push(entry);
    addresses.push({ id: ids.addrId, memId: ids.memId, offset: 0, size });
  }

  // buffers outside the pools
  const bufferMemIds = new Map<string, number[]>();
  const surfacesOf = (tb: TensorBufferDesc) => tb.surfaces.map((id) => surfaces.get(id)!);
  for (const tb of [...g.buffers].sort(byIdString)) {
    const content = surfacesOf(tb).some((s) => s.content);
    const bound = surfacesOf(tb).filter((s) => s.bind);
    const bindable = bound.length > 0;
    const pl0 = tb.placement[0];
    if (pl0?.pool) {
      if (bindable) throw new EmitError(`found bindable yet pooled buffer=${tb.id}`);
      continue;
    }
    const ids: number[] = [];
    for (let nn = 0; nn < batches; nn++) {
      const loc = tb.location === 'STREAM' ? 'STREAM' : (tb.placement[nn]?.location ?? 'UNKNOWN');
      if (loc === 'STREAM') continue;
      let domain: number;
      if (loc === 'CVSRAM') domain = MEMORY_DOMAIN.SRAM;
      else if (loc === 'DRAM') domain = MEMORY_DOMAIN.SYSTEM;
      else if (bindable) domain = MEMORY_DOMAIN.SYSTEM;
      else throw new EmitError(`discovered non-bindable ${tb.id} at unknown mem domain`);
      if (tb.size === 0) throw new EmitError(`zero sized buffer ${tb.id}`);
      if ((content || bindable) && nn > 0) {
        ids[nn] = ids[0]!;
        continue;
      }
      const entry: MemoryListEntry = { id: memId++, domain, flags: MEMORY_FLAGS.ALLOC, size: tb.size, alignment: 4096, contents: [], offsets: [], bindId: 0, tensorDescId: 0 };
      ids[nn] = entry.id;
      if (content) {
        entry.flags |= MEMORY_FLAGS.SET;
        entry.contents.push(tb.id);
        entry.offsets.push(0);
      }
      if (bindable) {
        entry.tensorDescId = tensorDescs.length;
        tensorDescs.push(tensorDesc(bound[0]!, tb, entry.tensorDescId, entry.id, target.memoryAtomicSize));
        const last = bound.at(-1)!.bind!;
        entry.bindId = last.id;
        entry.flags |= last.direction === 'input' ? MEMORY_FLAGS.INPUT : MEMORY_FLAGS.OUTPUT;
      }
      memory.push(entry);
    }
    bufferMemIds.set(tb.id, ids);
  }

  // surface addresses (and the aux blobs)
  for (const tsd of [...g.surfaces].sort(byIdString)) {
    const tb = tsd.buffer ? buffers.get(tsd.buffer) : undefined;
    if (!tb || tb.size === 0) continue;
    const where: SurfaceAddress = { addressId: [], offset: [] };
    for (let nn = 0; nn < batches; nn++) {
      if (tsd.content && nn > 0) {
        where.addressId[nn] = where.addressId[0]!;
        where.offset[nn] = where.offset[0]!;
        continue;
      }
      const pl = tb.placement[nn];
      const bufferOffset = tsd.batchOffsets[nn] ?? tsd.bufferOffset;
      if (!pl?.pool) {
        const id = addrId++;
        where.addressId[nn] = id;
        where.offset[nn] = 0;
        const mem = bufferMemIds.get(tb.id)?.[nn];
        if (mem === undefined) throw new EmitError(`${tsd.id}/${tb.id}: batch ${nn} has no memory`);
        addresses.push({ id, memId: mem, offset: (pl?.poolOffset ?? 0) + bufferOffset, size: tb.size });
      } else {
        const pool = poolIds.get(pl.pool);
        if (!pool) throw new EmitError(`${tb.id}: its pool ${pl.pool} has no memory entry`);
        where.addressId[nn] = pool.addrId;
        where.offset[nn] = pl.poolOffset + bufferOffset;
      }
      if (tsd.content) {
        const data = auxData(g, tsd);
        // laid-out weights are written straight into the loadable's buffer (serializeLoadable)
        if (data instanceof DirectConvolutionWeights) blobs.push(new WrittenBlob(tb.id, tsd.size, (into) => data.writeBytes(into)));
        else blobs.push({ name: tb.id, size: tsd.size, interface: INTERFACE.NONE, subInterface: 0, version: { major: 0, minor: 0, subMinor: 0 }, data: blobBytes(data, tsd.size) });
      }
    }
    surfaceAddress.set(tsd.id, where);
  }
  return { memory, addresses, tensorDescs, blobs, surfaceAddress };
}
