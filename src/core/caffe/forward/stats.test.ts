import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BlobValues } from '../proto';
import { histogram, streamedStats, valueStats } from './stats';

describe('value statistics', () => {
  it('hand-computed figures, non-finite values left out', () => {
    expect(valueStats([1, 2, 3, 4, NaN, Infinity, 0])).toEqual({ count: 7, min: 0, max: 4, mean: 2, std: Math.sqrt(2), nonFinite: 2, zeros: 1 });
    expect(histogram([0, 1, 2, 3, 4], 4).bins).toEqual([1, 1, 1, 2]);
  });

  it('streamed over file segments (unaligned, chunked) equals the in-memory figures', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 300 }), fc.nat(3), fc.integer({ min: 1, max: 64 }), (vals, shift, chunk) => {
        const bytes = new Uint8Array(shift + vals.length * 4);
        const dv = new DataView(bytes.buffer);
        vals.forEach((v, i) => dv.setFloat32(shift + i * 4, v, true));
        const bv = new BlobValues('float', [bytes.subarray(shift)], vals.length, shift);
        const data = bv.toFloat32();
        expect(Array.from(data)).toEqual(vals.map(Math.fround));
        const s = streamedStats((f) => bv.forEachChunk(f, chunk), 8, 5);
        const ref = valueStats(data);
        expect(s.first).toEqual(Array.from(data.subarray(0, 5)));
        expect([s.stats.count, s.stats.min, s.stats.max, s.stats.zeros]).toEqual([ref.count, ref.min, ref.max, ref.zeros]);
        expect(s.stats.mean).toBeCloseTo(ref.mean, 3);
        expect(Math.abs(s.stats.std - ref.std)).toBeLessThanOrEqual(1e-6 * Math.max(1, ref.std));
        expect(s.histogram.bins.reduce((a, b) => a + b, 0)).toBe(vals.length);
      }),
      { numRuns: 200 },
    );
  });
});
