import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { float16Bits, float16FromBits, readFloat16LE, roundToFloat16, writeFloat16LE } from './fp16';

describe('binary16', () => {
  it('bits of known values, rounding like IEEE (overflow to infinity, smallest subnormal, quiet NaN)', () => {
    const cases: [number, number][] = [[1, 0x3c00], [-2, 0xc000], [0.5, 0x3800], [65504, 0x7bff], [1e6, 0x7c00], [0, 0], [5.960464477539063e-8, 1], [NaN, 0x7e00], [-0, 0x8000], [65520, 0x7c00], [65519, 0x7bff]];
    const bad = cases.filter(([v, bits]) => float16Bits(v) !== bits).map(([v, bits]) => ({ value: v, expected: bits, got: float16Bits(v) }));
    expect(bad).toEqual([]);
  });

  it('ties go to the even neighbour', () => {
    // 1 + 2^-11 lies halfway between 1 (even) and 1 + 2^-10; 1 + 3 * 2^-11 halfway between 1 + 2^-10 and 1 + 2^-9 (even)
    expect(float16Bits(1 + 2 ** -11)).toBe(0x3c00);
    expect(float16Bits(1 + 3 * 2 ** -11)).toBe(0x3c02);
  });

  it('every finite half value survives bits -> number -> bits, and rounding leaves it alone', () => {
    const bad: number[] = [];
    for (let bits = 0; bits < 0x10000; bits++) {
      if ((bits & 0x7c00) === 0x7c00 && (bits & 0x3ff) !== 0) continue; // NaN payloads
      const v = float16FromBits(bits);
      if (float16Bits(v) !== bits || !Object.is(roundToFloat16(v), v)) bad.push(bits);
    }
    expect(bad).toEqual([]);
  });

  it('rounding a number gives the half value of its bits', () => {
    fc.assert(fc.property(fc.double({ noNaN: true }), (x) => Object.is(roundToFloat16(x), float16FromBits(float16Bits(x)))));
  });

  it('reads and writes little-endian halves in a DataView', () => {
    const view = new DataView(new ArrayBuffer(4));
    writeFloat16LE(view, 1, -2.5);
    expect([view.getUint8(1), view.getUint8(2)]).toEqual([0x00, 0xc1]);
    expect(readFloat16LE(view, 1)).toBe(-2.5);
  });
});
