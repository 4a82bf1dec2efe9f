/** The memory map's lanes and colour keys, on LeNet's reused LOCAL pool and on hand-made regions. */
import { describe, expect, it } from 'vitest';
import { openLoadable } from '../../core/loadable/document';
import { goldenBytes } from '../../../test/support/nvdla-fixtures';
import { placeRegions, regionLines } from './memory-lanes';
import type { MemoryRegion } from '../../worker/api';

const region = (offset: number, size: number, extra: Partial<MemoryRegion> = {}): MemoryRegion => ({ offset, size, blobs: [], descriptors: [], uses: [], ...extra });

describe('memory lanes', () => {
  it('regions sharing bytes never share a lane; disjoint ones do', () => {
    const { placed, lanes } = placeRegions([region(0, 100), region(50, 100), region(100, 10), region(200, 5)]);
    expect(placed.map((p) => p.lane)).toEqual([0, 1, 0, 0]);
    expect(lanes).toBe(2);
    for (const a of placed) for (const b of placed) {
      if (a === b || a.lane !== b.lane) continue;
      const overlap = a.region.offset < b.region.offset + b.region.size && b.region.offset < a.region.offset + a.region.size;
      expect(overlap).toBe(false);
    }
  });

  it("LeNet's LOCAL pool: each region keyed by its writer, with its readers as a band", () => {
    const doc = openLoadable([{ name: 'l.nvdla', bytes: goldenBytes('lenet-b1-nv_full-int8-fast-math') }]);
    const pool = doc.memoryMap()[2]!;
    const { placed } = placeRegions(pool.regions);
    const at = placed.find((p) => p.region.offset === 40960 && p.region.size === 4096)!;
    expect(at.key).toBe('engine:SDP');
    expect(at.readers).toEqual(['PDP']);
    expect(regionLines(at.region)).toEqual(['task 0 slot 4 SDP writes dst_data', 'task 0 slot 5 PDP reads src_data']);
    const weights = placeRegions(doc.memoryMap()[1]!.regions).placed.find((p) => p.region.offset === 524288)!;
    expect(weights.key).toBe('engine:CONV'); // read by ip1's CONV
    expect(regionLines(weights.region)).toEqual(['blob "tb-5"', 'task 0 slot 6 CONV reads weight_data']);
    const descriptors = placeRegions(doc.memoryMap()[7]!.regions).placed[0]!;
    expect(descriptors.key).toBe('descriptors');
  });
});
