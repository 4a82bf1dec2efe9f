import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { float16FromBits, roundToFloat16 } from '../fp16';
import { float32ArrayToHalfTiesAway, float32ToHalfTiesAway, halfTiesAwayOfBits } from './half-ties-away';

describe('float32 -> fp16 as nvdla/sw rounds (ties away from zero)', () => {
  it('known values, including ties that IEEE rounds to even', () => {
    expect(float32ToHalfTiesAway(1)).toBe(0x3c00);
    expect(float32ToHalfTiesAway(-2)).toBe(0xc000);
    expect(float32ToHalfTiesAway(65504)).toBe(0x7bff);
    expect(float32ToHalfTiesAway(65520)).toBe(0x7c00); // rounds up to infinity
    expect(float32ToHalfTiesAway(2 ** -24)).toBe(0x0001);
    expect(float32ToHalfTiesAway(2 ** -25)).toBe(0x0001); // the tie below the smallest subnormal goes up
    expect(float32ToHalfTiesAway(2 ** -26)).toBe(0x0000);
    // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: IEEE keeps 1 (even), half.hpp goes to 0x3c01
    expect(float32ToHalfTiesAway(1 + 2 ** -11)).toBe(0x3c01);
    expect(float32ToHalfTiesAway(-(1 + 2 ** -11))).toBe(0xbc01);
    expect(float32ToHalfTiesAway(Infinity)).toBe(0x7c00);
  });

  it('equals IEEE round-to-nearest-even except on exact ties, where it rounds away from zero', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, min: Math.fround(-70000), max: Math.fround(70000) }), (x) => {
        const ours = float16FromBits(float32ToHalfTiesAway(x));
        const even = roundToFloat16(x);
        if (ours === even || (Object.is(ours, 0) && Object.is(even, -0)) || (Object.is(ours, -0) && Object.is(even, 0))) return;
        // a tie: x lies exactly halfway, and ours is the one farther from zero
        expect(Math.abs(ours - x)).toBe(Math.abs(even - x));
        expect(Math.abs(ours)).toBeGreaterThan(Math.abs(even));
      }),
      { numRuns: 20000 },
    );
  });

  it('the whole-array conversion gives every value the single-value conversion gives (any float32 bits but NaNs)', () => {
    // NaNs are left out: reading one into a JS number may quiet it, where the array version sees
    // the stored bits, as C++ does (weights with NaN are refused before any conversion)
    const notNaN = fc.integer({ min: 0, max: 0xffffffff }).filter((b) => (b & 0x7f800000) !== 0x7f800000 || (b & 0x7fffff) === 0);
    fc.assert(
      fc.property(fc.array(notNaN, { minLength: 1, maxLength: 64 }), (bits) => {
        const src = new Float32Array(new Uint32Array(bits).buffer);
        const want = Array.from(src, (v) => float32ToHalfTiesAway(v));
        expect(Array.from(float32ArrayToHalfTiesAway(src))).toEqual(want);
      }),
    );
  });

  it('the whole-array conversion agrees on every sign and exponent with edge-case mantissas', () => {
    const mantissas = [0, 1, 0xfff, 0x1000, 0x1001, 0x1fff, 0x2000, 0x3fffff, 0x400000, 0x400001, 0x7fdfff, 0x7fe000, 0x7fffff];
    const bits: number[] = [];
    for (let e9 = 0; e9 < 512; e9++) for (const m of mantissas) if ((e9 & 0xff) !== 0xff || m === 0) bits.push(((e9 << 23) | m) >>> 0);
    const src = new Float32Array(new Uint32Array(bits).buffer);
    const table = float32ArrayToHalfTiesAway(src);
    const bad = bits.filter((_, i) => table[i] !== float32ToHalfTiesAway(src[i]!)).map((b) => b.toString(16));
    expect(bad).toEqual([]);
  });
});

describe('halfTiesAwayOfBits (the fp16 normals computed, the rest from tables) against the single-value conversion', () => {
  const bitsOf = (sign: number, exp: number, mant: number) => ((sign << 31) | (exp << 23) | mant) >>> 0;
  const viaFloat = (bits: number) => float32ToHalfTiesAway(new Float32Array(new Uint32Array([bits]).buffer)[0]!);
  const sign = fc.integer({ min: 0, max: 1 });
  const mant = fc.integer({ min: 0, max: 0x7fffff });
  /** the mantissa of an exact tie at fp16's precision for a normal (bit 12 set, the bits below clear) */
  const tie = fc.integer({ min: 0, max: 0x3ff }).map((m) => (m << 13) | 0x1000);
  const classes = {
    'fp16 normals (float32 exponents 113 .. 142)': fc.tuple(sign, fc.integer({ min: 113, max: 142 }), mant),
    'ties in the fp16 normals': fc.tuple(sign, fc.integer({ min: 113, max: 142 }), tie),
    'the edges of the normal range (65504 .. infinity, the smallest normal)': fc.tuple(sign, fc.constantFrom(112, 113, 142, 143), fc.constantFrom(0, 1, 0xfff, 0x1000, 0x7fdfff, 0x7fe000, 0x7fffff)),
    'fp16 subnormals and below (float32 exponents 0 .. 112, float32 subnormals too)': fc.tuple(sign, fc.integer({ min: 0, max: 112 }), mant),
    'past fp16 range (exponents 143 .. 254) and infinities': fc.tuple(sign, fc.integer({ min: 143, max: 255 }), fc.constant(0)).chain(([s, e]) => fc.tuple(fc.constant(s), fc.constant(e), e === 255 ? fc.constant(0) : mant)),
  };
  for (const [name, arb] of Object.entries(classes))
    it(name, () => {
      fc.assert(
        fc.property(arb, ([s, e, m]) => {
          const bits = bitsOf(s, e, m);
          expect(halfTiesAwayOfBits(bits | 0)).toBe(viaFloat(bits));
        }),
        { numRuns: 5000 },
      );
    });

  it('NaNs (never in the fast path) stay NaN or infinity with their sign, as half.hpp keeps the top mantissa bits', () => {
    fc.assert(
      fc.property(sign, fc.integer({ min: 1, max: 0x7fffff }), (s, m) => {
        const h = halfTiesAwayOfBits(bitsOf(s, 255, m) | 0);
        expect(h).toBe((s ? 0x8000 : 0) | 0x7c00 | (m >>> 13));
      }),
    );
  });
});
