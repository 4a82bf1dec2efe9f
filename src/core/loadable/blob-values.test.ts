/**
 * Blob values: the element type the reading descriptor gives (real goldens), and the histogram,
 * checked on hand-made bytes and, as a property, against a plain per-value decode.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { read } from './read';
import { decodeTasks } from './tasks';
import { blobElement, histogram, type HistogramElement } from './blob-values';
import { float16FromBits } from '../fp16';
import { goldenBytes } from '../../../test/support/nvdla-fixtures';

const decoded = (name: string) => decodeTasks(read(goldenBytes(name), `${name}.nvdla`));

describe('element types from the descriptors', () => {
  it('int8 weights and int16 biases (SDP x1_op.precision) in the int8 golden, fp16 in the fp16 golden', () => {
    const d = decoded('lenet-b1-nv_full-int8-fast-math');
    expect(blobElement(d, 'tb-0')).toEqual({ element: 'int8', reason: 'task 0 slot 0 CONV reads it as weight_data, in_precision INT8' });
    expect(blobElement(d, 'tb-2')).toEqual({ element: 'int16', reason: 'task 0 slot 1 SDP reads it as x1_data, x1_op.precision INT16' });
    const f = decoded('lenet-b1-nv_full-fp16-fast-math');
    expect(blobElement(f, 'tb-0').element).toBe('fp16');
    expect(blobElement(f, 'task-0-op_list')).toEqual({ element: null, reason: 'no op slot reads this blob' });
  });
});

/** The plain way: decode each value, then the same statistics. */
function naive(bytes: Uint8Array, element: HistogramElement) {
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const values: number[] = [];
  const n = element === 'int8' || element === 'uint8' ? bytes.length : bytes.length >> 1;
  for (let i = 0; i < n; i++) {
    values.push(element === 'int8' ? v.getInt8(i) : element === 'uint8' ? v.getUint8(i) : element === 'int16' ? v.getInt16(2 * i, true) : element === 'uint16' ? v.getUint16(2 * i, true) : float16FromBits(v.getUint16(2 * i, true)));
  }
  const finite = values.filter(Number.isFinite);
  return { count: n, nonFinite: n - finite.length, zeros: finite.filter((x) => x === 0).length, min: Math.min(...finite), max: Math.max(...finite), mean: finite.reduce((a, b) => a + b, 0) / finite.length, finite };
}

describe('histogram', () => {
  it('integer types get a bin per value, fp16 counts non-finite values apart', () => {
    const h = histogram(new Uint8Array([0, 1, 255, 1]), 'int8', 'test');
    expect([h.min, h.max, h.mean, h.zeros, h.count]).toEqual([-1, 1, 0.25, 1, 4]);
    expect(h.bins).toEqual([{ x0: -1.5, x1: -0.5, count: 1 }, { x0: -0.5, x1: 0.5, count: 1 }, { x0: 0.5, x1: 1.5, count: 2 }]);
    // fp16 1.0 (0x3c00), -2.0 (0xc000), +inf (0x7c00), little-endian
    const f = histogram(new Uint8Array([0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c]), 'fp16', 'test', 3);
    expect([f.min, f.max, f.nonFinite, f.count, f.mean]).toEqual([-2, 1, 1, 3, -0.5]);
    expect(f.bins.map((b) => b.count)).toEqual([1, 0, 1]);
    const i16 = histogram(new Uint8Array([0x00, 0x80, 0xff, 0x7f]), 'int16', 'test', 4);
    expect([i16.min, i16.max, i16.bins.length]).toEqual([-32768, 32767, 4]);
  });

  it('a view at an odd byte offset reads the same values', () => {
    const buf = new Uint8Array([9, 0x00, 0x3c, 0x00, 0xc0]);
    expect(histogram(buf.subarray(1), 'fp16', 't', 2).bins.map((b) => b.count)).toEqual([1, 1]);
  });

  it('property: the statistics and bin counts agree with a per-value decode', () => {
    const elements: HistogramElement[] = ['int8', 'uint8', 'int16', 'uint16', 'fp16'];
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 2, maxLength: 600 }), fc.constantFrom(...elements), fc.nat({ max: 1 }), (raw, element, shift) => {
        const bytes = raw.subarray(shift);
        const h = histogram(bytes, element, 't', 16);
        const r = naive(bytes, element);
        expect([h.count, h.nonFinite, h.zeros]).toEqual([r.count, r.nonFinite, r.zeros]);
        expect(h.bins.reduce((n, b) => n + b.count, 0)).toBe(r.finite.length);
        if (r.finite.length) {
          expect([h.min, h.max]).toEqual([r.min, r.max]);
          expect(h.mean).toBeCloseTo(r.mean, 6);
          // every value falls in the bin that claims its range
          for (const x of r.finite) expect(h.bins.some((b) => b.count > 0 && x >= b.x0 && x <= b.x1)).toBe(true);
        }
      }),
      { numRuns: 400 },
    );
  });
});
