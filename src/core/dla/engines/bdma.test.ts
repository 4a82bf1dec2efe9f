import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import { runBdma } from './bdma';

const BDMA = 0;

function bdma(transfers: StructValues[], src: Uint8Array, dstSize: number) {
  const ctx = testContext([src, new Uint8Array(dstSize)], { engine: 'BDMA' });
  const r = runBdma(ctx, opDesc(BDMA, { num_transfers: transfers.length }), surfaceDesc(BDMA, { num_transfers: transfers.length, transfers }));
  return { r, dst: ctx.mem.buffers[1]! };
}

describe('BDMA', () => {
  it('copies lines and surfaces with their own strides', () => {
    const src = Uint8Array.from({ length: 256 }, (_, i) => i);
    // 2 surfaces of 2 lines of 32 bytes: source lines 64 apart, surfaces 128 apart; destination packed
    const { r, dst } = bdma([{ source_address: 0, destination_address: 1, line_size: 32, line_repeat: 2, source_line: 64, destination_line: 32, surface_repeat: 2, source_surface: 128, destination_surface: 64 }], src, 128);
    expect(r.bytes).toBe(128);
    expect(Array.from(dst.subarray(0, 32))).toEqual(Array.from(src.subarray(0, 32)));
    expect(Array.from(dst.subarray(32, 64))).toEqual(Array.from(src.subarray(64, 96)));
    expect(Array.from(dst.subarray(64, 96))).toEqual(Array.from(src.subarray(128, 160)));
    expect(Array.from(dst.subarray(96, 128))).toEqual(Array.from(src.subarray(192, 224)));
  });

  it('keeps the firmware checks, naming the transfer field', () => {
    const path = (t: StructValues) => {
      try {
        bdma([t], new Uint8Array(256), 256);
      } catch (e) {
        if (e instanceof FormatError) return e.info.path;
      }
      return null;
    };
    const ok = { source_address: 0, destination_address: 1, line_size: 32, line_repeat: 1, source_line: 32, destination_line: 32, surface_repeat: 1, source_surface: 32, destination_surface: 32 };
    expect(path({ ...ok, line_size: 33, source_line: 64, destination_line: 64, source_surface: 64, destination_surface: 64 })).toBe('task[0].slot[0].surface.transfers.0.line_size');
    expect(path({ ...ok, source_line: 16 })).toBe('task[0].slot[0].surface.transfers.0.source_line');
    expect(path({ ...ok, line_repeat: 9, source_line: 32, source_surface: 288, destination_surface: 288 })).toBe('task[0].slot[0].surface.transfers.0.source_address');
    expect(path(ok)).toBeNull();
  });
});
