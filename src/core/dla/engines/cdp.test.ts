import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { DLA_LUT_PARAM } from '../../loadable/structs';
import { PRECISION } from '../cube';
import { halfBits } from '../half';
import { descriptor, featureBytes, featureCube, opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import { runCdp } from './cdp';

const CDP = 4;

/** LO table lo[i] = f(i), index = x (frac_bits 0), start 0; slopes 0 past the end */
function identityLut(f: (i: number) => number, float = false): StructValues {
  return {
    linear_exp_table: new Array(65).fill(0),
    linear_only_table: Array.from({ length: 257 }, (_, i) => (float ? halfBits(f(i)) : f(i))),
    linear_only_offset: { frac_bits: 0 },
    linear_exp_start: 0,
    linear_exp_end: 0,
    linear_only_start: 0,
    linear_only_end: 256,
    hybrid_priority: 1,
    underflow_priority: 1,
    overflow_priority: 1,
    method: 1,
  };
}

function cdp(input: number[], C: number, op: StructValues, lut: StructValues, precision: number = PRECISION.INT8) {
  const W = input.length / C;
  const ctx = testContext([featureBytes(input, C, 1, W, precision, 32), new Uint8Array(featureCube(1, C, 1, W, precision, 32).size as number)], {
    engine: 'CDP',
    luts: [descriptor(DLA_LUT_PARAM, lut)],
  });
  const r = runCdp(
    ctx,
    opDesc(CDP, { in_precision: precision, out_precision: precision, lut_index: 0, local_size: 3, in_cvt: { scale: 1, enable: 1 }, out_cvt: { scale: 1, enable: 1 }, ...op }),
    surfaceDesc(CDP, { src_data: featureCube(0, C, 1, W, precision, 32), dst_data: featureCube(1, C, 1, W, precision, 32) }),
  );
  return { out: Array.from(r.output.data), r };
}

describe('CDP (LRN)', () => {
  it('int8: x times the LUT of the square sum over 3 channels (hand computed)', () => {
    // x = 1 2 3 at one pixel: sums 1+4 = 5, 1+4+9 = 14, 4+9 = 13; LUT(s) = s; x x s = 5 28 39
    expect(cdp([1, 2, 3], 3, {}, identityLut((i) => i)).out).toEqual([5, 28, 39]);
    // out_cvt >> 2: 1.25 7 9.75 -> 1 7 10
    expect(cdp([1, 2, 3], 3, { out_cvt: { scale: 1, truncate: 2, enable: 1 } }, identityLut((i) => i)).out).toEqual([1, 7, 10]);
  });

  it('int8: the output convertor saturates and counts', () => {
    const { out, r } = cdp([10, 10, 10], 3, {}, identityLut((i) => i));
    // 10 x 200 = 2000, 10 x 256 (300 overflows: lo[256]) = 2560 -> 127
    expect(out).toEqual([127, 127, 127]);
    expect(r.output.saturated).toBe(3);
  });

  it('int8: the input convertor runs first ((x - offset) x scale >> truncate)', () => {
    // x' = (x - 1) x 3 >> 1: 1 -> 0, 3 -> 3, 5 -> 6; squares 0 9 36: sums 9, 45, 45; outputs x' x s = 0 135 270 -> 0 127 127
    expect(cdp([1, 3, 5], 3, { in_cvt: { offset: 1, scale: 3, truncate: 1, enable: 1 } }, identityLut((i) => i)).out).toEqual([0, 127, 127]);
  });

  it('bypass_sqsum feeds x to the LUT; bypass_out_mul outputs the LUT alone', () => {
    expect(cdp([1, 2, 3], 3, { bypass_sqsum: 1 }, identityLut((i) => 2 * i)).out).toEqual([2, 8, 18]);
    expect(cdp([1, 2, 3], 3, { bypass_out_mul: 1 }, identityLut((i) => i)).out).toEqual([5, 14, 13]);
  });

  it('local size 5 reaches two channels each side', () => {
    // sums: c0 1+4+9 = 14, c1 30, c2 1+4+9+16+25 = 55, c3 54, c4 50
    expect(cdp([1, 2, 3, 4, 5], 5, { local_size: 5, bypass_out_mul: 1 }, identityLut((i) => i)).out).toEqual([14, 30, 55, 54, 50]);
  });

  it('fp16: square sums and products in float, LUT in fp16, output rounded to fp16', () => {
    // LUT(s) = 1 / (1 + s): x 0.5 1 -> s = 1.25 both; the table interpolates between 1/2 and 1/3 at 0.25
    const { out } = cdp([0.5, 1], 2, { local_size: 3 }, identityLut((i) => 1 / (1 + i), true), PRECISION.FP16);
    const lut = Math.fround(0.75 * 0.5 + 0.25 * 0.333251953125); // fp16(1/3) = 0.333251953125
    expect(out[0]).toBeCloseTo(0.5 * lut, 3);
    expect(out[1]).toBeCloseTo(lut, 3);
  });

  it('refuses a local size the hardware lacks and a precision change', () => {
    const t = (op: StructValues) => {
      try {
        cdp([1, 2, 3], 3, op, identityLut((i) => i));
      } catch (e) {
        if (e instanceof FormatError) return e.info.path;
      }
      return null;
    };
    expect(t({ local_size: 4 })).toBe('task[0].slot[0].op.local_size');
    expect(t({ out_precision: 2 })).toBe('task[0].slot[0].op.out_precision');
    expect(t({ lut_index: 3 })).toBe('task[0].slot[0].op.lut_index');
  });
});
