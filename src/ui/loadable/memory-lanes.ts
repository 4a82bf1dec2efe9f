/**
 * The memory map's geometry, DOM-free: regions of one memory entry stacked in lanes so that
 * regions sharing bytes (a pool reused by several op slots over time) sit one above the other
 * instead of hiding each other, and each region's colour key (the engine that writes it, else
 * the one that reads it; blobs nobody reads and descriptor lists get their own keys).
 */
import type { MemoryRegion } from '../../worker/api';

export interface PlacedRegion {
  region: MemoryRegion;
  lane: number;
  /** `engine:CONV`, `blob`, `descriptors`, `unused` */
  key: string;
  /** engines reading it when `key` names the writer (drawn as a band) */
  readers: string[];
}

/** First-fit lanes over regions sorted by offset: O(n * lanes). */
export function placeRegions(regions: readonly MemoryRegion[]): { placed: PlacedRegion[]; lanes: number } {
  const laneEnds: number[] = [];
  const placed: PlacedRegion[] = [];
  for (const region of regions) {
    const end = region.offset + Math.max(1, region.size);
    let lane = laneEnds.findIndex((e) => e <= region.offset);
    if (lane < 0) {
      lane = laneEnds.length;
      laneEnds.push(end);
    } else laneEnds[lane] = end;
    const writer = region.uses.find((u) => u.role === 'write');
    const reader = region.uses.find((u) => u.role === 'read');
    const key = writer ? `engine:${writer.op.engine}` : reader ? `engine:${reader.op.engine}` : region.descriptors.length ? 'descriptors' : region.blobs.length ? 'blob' : 'unused';
    const readers = writer ? [...new Set(region.uses.filter((u) => u.role === 'read').map((u) => u.op.engine))] : [];
    placed.push({ region, lane, key, readers });
  }
  return { placed, lanes: Math.max(1, laneEnds.length) };
}

/** A region's uses as lines a tooltip shows: `CONV slot 0 reads weight_data`. */
export function regionLines(r: MemoryRegion): string[] {
  const lines: string[] = [];
  for (const b of r.blobs) lines.push(`blob "${b}"`);
  for (const d of r.descriptors) lines.push(d);
  for (const u of r.uses) lines.push(`task ${u.op.task} ${u.op.engine === 'EMU' ? 'op' : 'slot'} ${u.op.slot} ${u.op.engine} ${u.role === 'read' ? 'reads' : 'writes'} ${u.surface}`);
  return lines;
}
