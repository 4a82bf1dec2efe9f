import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { PRECISION } from '../cube';
import { featureBytes, featureCube, opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import { RECIP_FP17, RECIP_INT, fp17Value, runPdp } from './pdp';

const PDP = 3;

function pdp(input: number[], C: number, H: number, W: number, outH: number, outW: number, op: StructValues, precision: number = PRECISION.INT8) {
  const ctx = testContext([featureBytes(input, C, H, W, precision, 32), new Uint8Array(featureCube(1, C, outH, outW, precision, 32).size as number)], { engine: 'PDP' });
  const r = runPdp(
    ctx,
    opDesc(PDP, { precision, split_num: 1, stride_x: 1, stride_y: 1, ...op }),
    surfaceDesc(PDP, { src_data: featureCube(0, C, H, W, precision, 32), dst_data: featureCube(1, C, outH, outW, precision, 32) }),
  );
  return Array.from(r.output.data);
}

function thrown(f: () => unknown): FormatError {
  try {
    f();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw e;
  }
  throw new Error('no error');
}

// 4x4 plane: 1..16
const plane = Array.from({ length: 16 }, (_, i) => i + 1);

describe('PDP', () => {
  it('MAX and MIN 2x2 stride 2 (hand computed)', () => {
    expect(pdp(plane, 1, 4, 4, 2, 2, { pool_mode: 1, pool_width: 1, pool_height: 1, stride_x: 2, stride_y: 2 })).toEqual([6, 8, 14, 16]);
    expect(pdp(plane, 1, 4, 4, 2, 2, { pool_mode: 2, pool_width: 1, pool_height: 1, stride_x: 2, stride_y: 2 })).toEqual([1, 3, 9, 11]);
  });

  it('MAX never lets padding win', () => {
    const neg = plane.map((v) => -v);
    // 3x3 windows, stride 2, padded left and top: the windows' largest inputs are -1, -2, -5, -6
    expect(pdp(neg, 1, 4, 4, 2, 2, { pool_mode: 1, pool_width: 2, pool_height: 2, stride_x: 2, stride_y: 2, pad_left: 1, pad_top: 1, pad_right: 0, pad_bottom: 0, padding_value: [100, 200, 300, 0, 0, 0, 0] })).toEqual([
      -1, -2, -5, -6,
    ]);
  });

  it('int AVERAGE divides by the reciprocals of the firmware, rounding half away twice', () => {
    // 2x2 windows of 1..16: sums 14, 22, 46, 54 -> x 0x8000 / 2^16 -> 7, 11, 23, 27 -> x 0x8000 / 2^16 -> 3.5 5.5 11.5 13.5 -> 4 6 12 14
    expect(pdp(plane, 1, 4, 4, 2, 2, { pool_mode: 0, pool_width: 1, pool_height: 1, stride_x: 2, stride_y: 2 })).toEqual([4, 6, 12, 14]);
    // 3x3 of ones: 9 x 0x5555 / 2^16 = 2.99995 -> 3, x 0x5555 / 2^16 = 0.99998 -> 1
    expect(pdp(new Array(9).fill(1), 1, 3, 3, 1, 1, { pool_mode: 0, pool_width: 2, pool_height: 2 })).toEqual([1]);
    // negative sums round away from zero: -14 / 4 = -3.5 -> (-7, then -3.5) -> -4
    expect(pdp([-1, -2, -5, -6], 1, 2, 2, 1, 1, { pool_mode: 0, pool_width: 1, pool_height: 1 })).toEqual([-4]);
  });

  it('int AVERAGE adds the padding values for the padded elements of the window', () => {
    // 2x2 plane [4 4; 4 4], 3x3 window padded left and top by 1: 4 inputs + 2 padded columns (one per line)
    // + a padded line of kernel width 3: padding_value[0] = 10 (one padded element)
    // sum = 16 + 2 x 10 + 10 x 3 = 66; 66 x 0x5555 / 2^16 = 21.99966 -> 22; 22 x 0x5555 / 2^16 = 7.3332 -> 7
    expect(pdp([4, 4, 4, 4], 1, 2, 2, 1, 1, { pool_mode: 0, pool_width: 2, pool_height: 2, pad_left: 1, pad_top: 1, padding_value: [10, 20, 30, 0, 0, 0, 0] })).toEqual([7]);
  });

  it('int8 AVERAGE saturates when padding values push it past 127', () => {
    // sum = 4 x 120 + 2 x 300 + 3 x 300 = 1980 -> 660 -> 220 -> 127
    expect(pdp([120, 120, 120, 120], 1, 2, 2, 1, 1, { pool_mode: 0, pool_width: 2, pool_height: 2, pad_left: 1, pad_top: 1, padding_value: [300, 0, 0, 0, 0, 0, 0] })).toEqual([127]);
  });

  it('fp16 AVERAGE multiplies by the fp17 reciprocals', () => {
    expect(fp17Value(RECIP_FP17[0]!)).toBe(1);
    expect(fp17Value(RECIP_FP17[1]!)).toBe(0.5);
    expect(fp17Value(RECIP_FP17[2]!)).toBeCloseTo(1 / 3, 3);
    expect(RECIP_INT[2]).toBe(0x5555);
    // 2x2 of 1, 2, 3, 4.5: (10.5 x 0.5) x 0.5 = 2.625
    expect(pdp([1, 2, 3, 4.5], 1, 2, 2, 1, 1, { pool_mode: 0, pool_width: 1, pool_height: 1 }, PRECISION.FP16)).toEqual([2.625]);
  });

  it('split widths must add up to the output width', () => {
    const e = thrown(() => pdp(plane, 1, 4, 4, 2, 2, { pool_mode: 1, pool_width: 1, pool_height: 1, stride_x: 2, stride_y: 2, split_num: 2, partial_width_first: 1, partial_width_last: 2 }));
    expect(e.info).toMatchObject({ kind: 'corrupt', path: 'task[0].slot[0].op.partial_width_first' });
    expect(pdp(plane, 1, 4, 4, 2, 2, { pool_mode: 1, pool_width: 1, pool_height: 1, stride_x: 2, stride_y: 2, split_num: 2, partial_width_first: 1, partial_width_last: 1 })).toEqual([6, 8, 14, 16]);
  });

  it('refuses windows past 8 and fp16 padding values', () => {
    expect(thrown(() => pdp(plane, 1, 4, 4, 1, 1, { pool_mode: 1, pool_width: 8, pool_height: 1 })).info.path).toBe('task[0].slot[0].op.pool_width');
    expect(thrown(() => pdp(plane, 1, 4, 4, 3, 3, { pool_mode: 0, pool_width: 1, pool_height: 1, padding_value: [1, 0, 0, 0, 0, 0, 0] }, PRECISION.FP16)).info.path).toBe('task[0].slot[0].op.padding_value');
  });

  it('refuses outputs whose windows start past the input', () => {
    expect(thrown(() => pdp(plane, 1, 4, 4, 5, 5, { pool_mode: 1, pool_width: 0, pool_height: 0 })).info.path).toBe('task[0].slot[0].surface.dst_data.width');
  });
});
