import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { featureBytes, featureCube, opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import { readFeature } from '../cube';
import { runRubik } from './rubik';

const RUBIK = 5;

describe('RUBIK', () => {
  it('SPLIT: feature data to planes plane_stride apart; MERGE back', () => {
    // 2 channels of 2x2 int8: c0 = 1 2 3 4, c1 = 5 6 7 8; planes of 2 lines of 4 bytes (line stride 4), 16 bytes apart
    const feature = featureBytes([1, 2, 3, 4, 5, 6, 7, 8], 2, 2, 2, 0, 32);
    const ctx = testContext([feature, new Uint8Array(32)], { engine: 'RUBIK' });
    const planar = { type: 0, address: 1, size: 32, width: 2, height: 2, channel: 2, line_stride: 4, plane_stride: 16 };
    runRubik(ctx, opDesc(RUBIK, { mode: 1, precision: 0 }), surfaceDesc(RUBIK, { src_data: featureCube(0, 2, 2, 2, 0, 32), dst_data: planar }));
    const p = ctx.mem.buffers[1]!;
    expect([p[0], p[1], p[4], p[5], p[16], p[17], p[20], p[21]]).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    const back = testContext([p, new Uint8Array(feature.length)], { engine: 'RUBIK' });
    const r = runRubik(back, opDesc(RUBIK, { mode: 2, precision: 0 }), surfaceDesc(RUBIK, { src_data: { ...planar, address: 0 }, dst_data: featureCube(1, 2, 2, 2, 0, 32) }));
    expect(Array.from(back.mem.buffers[1]!)).toEqual(Array.from(feature));
    expect(Array.from(r.output.data)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('CONTRACT: stride_x x stride_y phases of the input become interleaved output pixels', () => {
    // one input pixel, 4 phases of 32 channels (one output channel, padded to an atom): phase (py, px) -> pixel (px, py)
    const input = new Array(128).fill(0);
    input[0] = 1;
    input[32] = 2;
    input[64] = 3;
    input[96] = 4;
    const ctx = testContext([featureBytes(input, 128, 1, 1, 0, 32), new Uint8Array(128)], { engine: 'RUBIK' });
    runRubik(ctx, opDesc(RUBIK, { mode: 0, precision: 0, stride_x: 2, stride_y: 2 }), surfaceDesc(RUBIK, { src_data: featureCube(0, 128, 1, 1, 0, 32), dst_data: featureCube(1, 1, 2, 2, 0, 32) }));
    const out = readFeature({ memId: 1, buf: ctx.mem.buffers[1]!, base: 0 }, { type: 0, address: 1, offset: 0, size: 128, width: 2, height: 2, channel: 1, lineStride: 64, surfStride: 128, planeStride: 0 }, 0, 32);
    expect(Array.from(out)).toEqual([1, 2, 3, 4]);
  });

  it('refuses on-the-fly cubes and contract sizes that do not match', () => {
    const path = (src: StructValues, dst: StructValues, op: StructValues) => {
      const ctx = testContext([new Uint8Array(4096), new Uint8Array(4096)], { engine: 'RUBIK' });
      try {
        runRubik(ctx, opDesc(RUBIK, op), surfaceDesc(RUBIK, { src_data: src, dst_data: dst }));
      } catch (e) {
        if (e instanceof FormatError) return e.info.path;
      }
      return null;
    };
    expect(path({ ...featureCube(0, 1, 1, 1, 0, 32), type: 2 }, featureCube(1, 1, 1, 1, 0, 32), { mode: 1 })).toBe('task[0].slot[0].surface.src_data.type');
    expect(path(featureCube(0, 128, 1, 1, 0, 32), featureCube(1, 1, 3, 2, 0, 32), { mode: 0, stride_x: 2, stride_y: 2 })).toBe('task[0].slot[0].surface.dst_data');
  });
});
