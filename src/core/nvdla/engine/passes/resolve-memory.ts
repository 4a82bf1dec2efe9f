/**
 * Pass `resolveMemory` (`memory::MemoryResolver`, nvdla/sw `Memory.cpp`): where every tensor
 * lives. Nodes are visited in the schedule (topological) order of generateDependencyParams.
 *
 * With memory pools (every profile but basic), aux data (weights, bias, scales) goes to the
 * GLOBAL_DRAM pool, once for all batches, and is copied there at load time; other tensors go to
 * the LOCAL_DRAM pool (or CV-SRAM, which no named profile enables), one copy per batch, through
 * a buddy allocator (power-of-two blocks of at least 4 KiB). Before placing a node's tensors, the
 * local tensors whose last consumer ran before this node (and is not the node fused into it) are
 * freed (greedy eviction frees all of them; otherwise one per retry). Bindable tensors and, in
 * the basic profile, every tensor, get memory of their own outside the pools.
 *
 * Upstream quirks kept: only batch 0's block is ever freed; surfaces to free are ranked by the
 * op slot of their last consumer, with no regard to which task it is in; a pool that cannot hold
 * a tensor fails the compile at once (the retry path upstream never triggers). A reuse that
 * would need a hazard dependency makes upstream fail ("Condition Asserted"); it is reported the
 * same way here.
 */
import { EngineGraphEditor } from '../graph';
import { dependsOn, isEmuNode } from '../depends';
import type { EngineGraph, EngineNode, MemoryPool, PoolName } from '../model';
import { bufferById, surfaceById, supportedFormats, type BufferPlacement, type TensorBufferDesc, type TensorSurfaceDesc } from '../surfaces';
import { surfaceFormat } from '../../surface';
import type { PassContext } from '../graph-state';
import { BuddyAllocator } from '../memory/buddy';
import { editCopy, type EnginePass, type PassChanges } from './pass';

export class MemoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MemoryError';
  }
}

interface Pool {
  state: MemoryPool;
  allocator: BuddyAllocator;
}

const categoriesOf = (formats: string[]) => new Set(formats.map((f) => surfaceFormat(f).category));

/** `nodeInputTensorSurface(i)` etc.: the data edges on one side whose surface is of the categories the node takes there */
function nodeSurfaces(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, side: 'in' | 'aux' | 'out'): TensorSurfaceDesc[] {
  const cats = categoriesOf(supportedFormats(node.engineOpType)[side]);
  const out: TensorSurfaceDesc[] = [];
  for (const id of side === 'out' ? node.downstream : node.upstream) {
    const e = ed.edge(id);
    if (e.kind !== 'data' || !e.surface) continue;
    const tsd = surfaceById(g, e.surface);
    if (cats.has(surfaceFormat(tsd.format).category)) out.push(tsd);
  }
  return side === 'aux' ? out : out.slice(0, 1);
}

const tsdNumber = (t: TensorSurfaceDesc) => Number(t.id.slice(4));

class MemoryResolver {
  readonly pools = new Map<PoolName, Pool>();
  /** surfaces placed in a local pool and not yet freed (upstream: a std::set of pointers) */
  private readonly inLocalPool = new Set<TensorSurfaceDesc>();
  private readonly deallocated: TensorSurfaceDesc[] = [];
  private readonly ed: EngineGraphEditor;

  constructor(
    private readonly g: EngineGraph,
    private readonly ctx: PassContext,
    private readonly changes: PassChanges,
  ) {
    this.ed = new EngineGraphEditor(g);
    const p = ctx.profile;
    if (p.useMemPool) {
      this.addPool('GLOBAL_DRAM', p.globalDRAMSize);
      this.addPool('LOCAL_DRAM', p.localDRAMSize);
      if (p.useCVSRAMAllocate) this.addPool('LOCAL_CVSRAM', p.localCVSRAMSize);
    }
  }

  private addPool(name: PoolName, size: number): void {
    this.pools.set(name, { state: { name, size, used: 0, contents: [] }, allocator: new BuddyAllocator(size, 12) });
  }

  private buffer(tsd: TensorSurfaceDesc): TensorBufferDesc {
    const tb = tsd.buffer ? bufferById(this.g, tsd.buffer) : undefined;
    if (!tb) throw new MemoryError(`no buffer for tsd=${tsd.id}`);
    if (tb.placement.length === 0) tb.placement = Array.from({ length: this.g.batchSize }, (): BufferPlacement => ({ pool: null, poolOffset: 0, location: tb.location === 'STREAM' ? 'STREAM' : 'UNKNOWN', allocated: false }));
    return tb;
  }

  private bindable(tb: TensorBufferDesc): boolean {
    return tb.surfaces.some((id) => surfaceById(this.g, id).bind !== null);
  }

  private referencedByEmu(tsd: TensorSurfaceDesc): boolean {
    return [...tsd.producers, ...tsd.consumers].some((id) => isEmuNode(this.ed.node(id)));
  }

  private event(node: EngineNode, action: 'alloc' | 'free' | 'outside-pool', tsd: TensorSurfaceDesc, tb: TensorBufferDesc, batch: number): void {
    const pl = tb.placement[batch]!;
    this.g.memoryEvents.push({ task: node.taskId, slot: node.dependency[0]!.slot, node: node.id, action, buffer: tb.id, surface: tsd.id, batch, pool: pl.pool, offset: pl.poolOffset, size: tb.size });
  }

  private placeInPools(node: EngineNode, tsd: TensorSurfaceDesc, tb: TensorBufferDesc, tryPools: Pool[], aux: boolean): void {
    let common: Pool | null = null;
    for (let nn = 0; nn < this.g.batchSize; nn++) {
      let selected: Pool | null = null;
      for (let pi = 0; pi < tryPools.length; pi++) {
        if (aux && nn > 0) {
          // aux data is shared: later batches only mark it allocated (upstream leaves their pool unset)
          selected = common;
          tb.placement[nn]!.allocated = true;
          break;
        }
        const pool = tryPools[pi]!;
        if (tb.size === 0) throw new MemoryError('zero sized buffer desc');
        const at = pool.allocator.allocate(tb.size);
        if (at === null) {
          if (pi === tryPools.length - 1) {
            throw new MemoryError(`${pool.state.name} pool (${pool.state.size} bytes) exhausted placing ${tb.id} (${tb.size} bytes, batch ${nn}) for ${node.name}; nvdla_compiler fails here too (couldn't place all buffers)`);
          }
          continue;
        }
        const pl = tb.placement[nn]!;
        pl.pool = pool.state.name;
        pl.poolOffset = at;
        pl.location = pool.state.name === 'LOCAL_CVSRAM' ? 'CVSRAM' : 'DRAM';
        pl.allocated = true;
        pool.state.used = Math.max(pool.state.used, at + tb.size);
        this.event(node, 'alloc', tsd, tb, nn);
        selected = pool;
        if (nn === 0) common = pool;
        break;
      }
      if (selected && (selected.state.name === 'LOCAL_DRAM' || selected.state.name === 'LOCAL_CVSRAM')) this.inLocalPool.add(tsd);
    }
  }

  private placeOutsidePools(node: EngineNode, tsd: TensorSurfaceDesc, tb: TensorBufferDesc): void {
    if (tb.size === 0) throw new MemoryError('zero sized buffer desc');
    for (let nn = 0; nn < this.g.batchSize; nn++) {
      tb.placement[nn] = { pool: null, poolOffset: 0, location: 'DRAM', allocated: true };
    }
    this.event(node, 'outside-pool', tsd, tb, 0);
  }

  private place(node: EngineNode, tsd: TensorSurfaceDesc, tb: TensorBufferDesc, aux: boolean, allowFallback: boolean): void {
    const pooling = this.ctx.profile.useMemPool && !(this.bindable(tb) || tsd.copyOutDebug);
    if (!pooling) return this.placeOutsidePools(node, tsd, tb);
    let tryPools: Pool[];
    if (aux) tryPools = [this.pools.get('GLOBAL_DRAM')!];
    else {
      tryPools = [];
      if (this.ctx.profile.useCVSRAMAllocate && !this.referencedByEmu(tsd)) tryPools.push(this.pools.get('LOCAL_CVSRAM')!);
      tryPools.push(this.pools.get('LOCAL_DRAM')!);
    }
    if (tryPools.length > 1 && !allowFallback) tryPools = tryPools.slice(0, 1);
    this.placeInPools(node, tsd, tb, tryPools, aux);
  }

  /** `placeSurfaceContent`: aux data is what the pool (or its own memory) is filled with at load time */
  private placeContent(tsd: TensorSurfaceDesc, tb: TensorBufferDesc): void {
    if (tsd.bufferOffset !== 0) throw new MemoryError('not expecting non-zero buffer offset for aux data');
    if (tsd.size !== tb.size) throw new MemoryError('not expecting differing sizes on aux data buffer vs. surface');
    if (tsd.content) return;
    tsd.content = true;
    const pl = tb.placement[0]!;
    if (!pl.pool) return;
    const contents = this.pools.get(pl.pool)!.state.contents;
    const k = surfaceNumber(tsd.id);
    let i = contents.length;
    while (i > 0 && surfaceNumber(contents[i - 1]!.surface) > k) i--;
    contents.splice(i, 0, { surface: tsd.id, buffer: tb.id, offset: tsd.bufferOffset + pl.poolOffset });
  }

  visit(node: EngineNode): void {
    const at = node.dependency[0]!.slot;
    if (at === -1) return;
    const g = this.g;
    let inputs = nodeSurfaces(g, this.ed, node, 'in');
    const aux = nodeSurfaces(g, this.ed, node, 'aux');
    let outputs = nodeSurfaces(g, this.ed, node, 'out');
    const io = inputs.filter((s) => outputs.includes(s));
    inputs = inputs.filter((s) => !io.includes(s));
    outputs = outputs.filter((s) => !io.includes(s));
    const todo = (list: TensorSurfaceDesc[]) =>
      list.filter((tsd) => {
        if (tsd.category === 'STREAM') return false;
        return !this.buffer(tsd).placement[0]!.allocated;
      });
    const tries = [...todo(inputs).map((t) => ({ tsd: t, aux: false })), ...todo(aux).map((t) => ({ tsd: t, aux: true })), ...todo(io).map((t) => ({ tsd: t, aux: false })), ...todo(outputs).map((t) => ({ tsd: t, aux: false }))];

    // local surfaces whose last consumer is done (CheckSurfaceRelease), oldest last use first
    const fusedUpstream = node.dependency[0]!.fusedInput ? this.ed.node(node.dependency[0]!.fusedInput).dependency[0]!.slot : -1;
    const deallocable: { lastRef: number; tsd: TensorSurfaceDesc }[] = [];
    for (const tsd of [...this.inLocalPool].sort((a, b) => tsdNumber(a) - tsdNumber(b))) {
      let lastRef = -1;
      for (const c of tsd.consumers) lastRef = Math.max(lastRef, this.ed.node(c).dependency[0]!.slot);
      if (lastRef === -1) continue;
      if (lastRef < at && lastRef !== fusedUpstream && !this.siblingStillRead(tsd, at)) deallocable.push({ lastRef, tsd });
    }
    deallocable.sort((a, b) => a.lastRef - b.lastRef); // stable, as list::sort

    const greedy = this.ctx.profile.useGreedyEviction;
    let okToFree = greedy;
    const allocated: TensorSurfaceDesc[] = [];
    let pending = tries;
    do {
      let freed = 0;
      while (deallocable.length && (greedy || (okToFree && !freed))) {
        const { tsd } = deallocable.shift()!;
        const tb = this.buffer(tsd);
        const pl = tb.placement[0]!;
        if (!pl.pool) throw new MemoryError(`no pool assigned to surface/buffer ${tsd.id}/${tb.id}`);
        this.pools.get(pl.pool)!.allocator.deallocate(pl.poolOffset);
        this.event(node, 'free', tsd, tb, 0);
        this.inLocalPool.delete(tsd);
        this.deallocated.push(tsd);
        freed++;
      }
      const allowFallback = deallocable.length === 0;
      for (const t of pending) {
        const tb = this.buffer(t.tsd);
        this.place(node, t.tsd, tb, t.aux, allowFallback);
        allocated.push(t.tsd);
        if (t.aux) this.placeContent(t.tsd, tb);
      }
      okToFree = true;
      pending = [];
    } while (pending.length && deallocable.length);

    for (const tsd of allocated) this.checkReuseHazards(node, tsd);
  }

  /**
   * Whether another surface of `tsd`'s buffer is read at op slot `at` or later. Upstream frees a
   * buffer when the one surface it was placed for has no reader left, even though other surfaces
   * in the same buffer still have some: the bands a split convolution reads (SPLIT outputs laid in
   * its input's buffer) lose their data when the input's only hardware reader is done, and the
   * next tensor placed there is read as the later bands' input (GoogLeNet INT8 on nv_small:
   * inception_3a's reduce convolutions at 6-8 dB against Caffe). NPU Studio keeps the buffer
   * until those readers have run too; where upstream's free was safe nothing changes.
   */
  private siblingStillRead(tsd: TensorSurfaceDesc, at: number): boolean {
    const tb = this.buffer(tsd);
    if (tb.surfaces.length < 2) return false;
    for (const id of tb.surfaces) {
      if (id === tsd.id) continue;
      for (const c of surfaceById(this.g, id).consumers) if (this.ed.node(c).dependency[0]!.slot >= at) return true;
    }
    return false;
  }

  /** `findReuseHazards` + `resolveHazards` */
  private checkReuseHazards(node: EngineNode, tsd: TensorSurfaceDesc): void {
    const tb = this.buffer(tsd);
    const pl = tb.placement[0]!;
    if (!pl.pool) return;
    for (const old of this.deallocated) {
      const otb = this.buffer(old);
      const opl = otb.placement[0]!;
      if (opl.pool !== pl.pool) continue;
      if (!(pl.poolOffset > opl.poolOffset && pl.poolOffset < opl.poolOffset + otb.size)) continue;
      for (const reader of old.consumers) {
        for (const writer of tsd.producers) {
          if (reader === writer) continue;
          const r = this.ed.node(reader);
          const w = this.ed.node(writer);
          if (dependsOn(this.ed, w, r, ['compute', 'hazard'], ['data', 'compute'])) continue;
          if (dependsOn(this.ed, r, w, ['compute', 'hazard'], ['data', 'compute'])) continue;
          const h = this.ed.addHazardEdge(r, w);
          this.changes.notes.push(`hazard edge ${h.id}: ${r.name} -> ${w.name} (${tb.id} reuses ${otb.id}'s memory)`);
          throw new MemoryError(
            `${node.name}: ${tb.id} reuses the memory of ${otb.id} while ${r.name} may still read it; nvdla_compiler adds a hazard dependency here and then fails its one-round check ("Condition Asserted")`,
          );
        }
      }
    }
  }
}

/** the memory resolver over a graph being edited */
export function resolveMemory(g: EngineGraph, ctx: PassContext, changes: PassChanges): void {
  if (!g.schedule.length) throw new MemoryError('visiting an empty node sequence.');
  g.memoryEvents = [];
  const r = new MemoryResolver(g, ctx, changes);
  const ed = new EngineGraphEditor(g);
  for (const id of g.schedule) r.visit(ed.node(id));
  g.pools = [...r.pools.values()].map((p) => p.state);
  for (const p of g.pools) if (p.used) changes.notes.push(`${p.name}: ${p.used} bytes used (${p.contents.length} aux buffers)`);
  const outside = g.buffers.filter((b) => b.placement[0]?.allocated && !b.placement[0].pool).length;
  if (outside) changes.notes.push(`${outside} buffer(s) in memory of their own`);
}

export const resolveMemoryPass: EnginePass = {
  name: 'resolveMemory',
  run(input, ctx) {
    return editCopy(input, (g, changes) => resolveMemory(g, ctx, changes));
  },
};

/** the creation number of `tsd-<i>` */
function surfaceNumber(id: string): number {
  return Number(id.slice(4));
}
