/**
 * The memory map of a loadable: for each memory-list entry (a pool, a bindable tensor, a task's
 * descriptor memory, ...), the regions that blobs and surfaces occupy and which op slots read
 * and write each region. Built from the decoded tasks: every data cube, EMU buffer and BDMA
 * transfer resolved to (memory, offset, size), plus the `contents`/`offsets` of SET memory.
 */
import type { MemoryListEntry } from './model';
import type { CubeRole, DecodedLoadable } from './tasks';
import { allOps } from './tasks';
import { memoryFlagsName } from './names';

export interface OpRef {
  task: number;
  slot: number;
  engine: string;
}

export interface RegionUse {
  op: OpRef;
  /** surface name in the descriptor, e.g. `src_data`, `transfers.0.source` */
  surface: string;
  role: CubeRole;
}

export interface MemoryRegion {
  offset: number;
  size: number;
  /** blobs the memory entry places here (`contents`) */
  blobs: string[];
  /** descriptor lists of tasks held here, e.g. `task 0 operation list` */
  descriptors: string[];
  uses: RegionUse[];
}

export type MemoryRole = 'input' | 'output' | 'descriptors' | 'data' | 'unused';

export interface MemoryArea {
  memId: number;
  entry: MemoryListEntry;
  role: MemoryRole;
  /** `memory 1: ALLOC|SET, 925696 bytes`, with the tensor name for bindable memory */
  label: string;
  /** regions sorted by offset, then size */
  regions: MemoryRegion[];
  /** bytes covered by at least one region */
  usedBytes: number;
}

export function memoryMap(d: DecodedLoadable): MemoryArea[] {
  const l = d.loadable;
  const blobSize = new Map(l.blobs.map((b) => [b.name, b.data.length]));
  const regions = new Map<number, Map<string, MemoryRegion>>();
  const region = (memId: number, offset: number, size: number): MemoryRegion => {
    let m = regions.get(memId);
    if (!m) regions.set(memId, (m = new Map()));
    const key = `${offset}:${size}`;
    let r = m.get(key);
    if (!r) m.set(key, (r = { offset, size, blobs: [], descriptors: [], uses: [] }));
    return r;
  };
  l.memory_list.forEach((m, memId) => {
    if (!(m.flags & 2)) return;
    m.contents.forEach((name, k) => {
      const off = m.offsets[k];
      const size = blobSize.get(name);
      if (off !== undefined && size !== undefined) region(memId, off, size).blobs.push(name);
    });
  });
  for (const t of d.tasks) {
    for (const list of t.lists) {
      const loc = list.location;
      const size = loc.blob ? blobSize.get(loc.blob)! - loc.blobOffset : 0;
      region(loc.memId, loc.memOffset, size).descriptors.push(`task ${t.index} ${list.role}`);
    }
  }
  for (const op of allOps(d)) {
    for (const s of op.surfaces) {
      if (!s.location) continue;
      region(s.location.memId, s.location.memOffset, s.size).uses.push({ op: { task: op.task, slot: op.slot, engine: op.engine }, surface: s.name, role: s.role });
    }
  }
  const tensorName = (id: number) => l.tensor_desc_list.find((t) => t.mem_id === id)?.name;
  return l.memory_list.map((entry, memId): MemoryArea => {
    const list = [...(regions.get(memId)?.values() ?? [])].sort((a, b) => a.offset - b.offset || a.size - b.size);
    let role: MemoryRole = 'unused';
    if (entry.flags & 4) role = 'input';
    else if (entry.flags & 8) role = 'output';
    else if (list.some((r) => r.descriptors.length)) role = 'descriptors';
    else if (list.length) role = 'data';
    const name = role === 'input' || role === 'output' ? tensorName(memId) : undefined;
    return {
      memId,
      entry,
      role,
      label: `memory ${memId}: ${memoryFlagsName(entry.flags)}, ${entry.size} bytes${name !== undefined ? `, ${role} "${name}"` : ''}`,
      regions: list,
      usedBytes: coveredBytes(list),
    };
  });
}

function coveredBytes(list: MemoryRegion[]): number {
  let total = 0;
  let end = -1;
  for (const r of list) {
    const a = Math.max(r.offset, end);
    const b = r.offset + r.size;
    if (b > a) total += b - a;
    end = Math.max(end, b);
  }
  return total;
}
