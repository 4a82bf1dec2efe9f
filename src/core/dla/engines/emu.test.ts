import { describe, expect, it } from 'vitest';
import { EMU_LAYOUTS_0_0_1 } from '../../loadable/structs';
import { halfBits, halfTable, toHalfValue } from '../half';
import { descriptor, testContext, type StructValues } from '../testing';
import { emuOffset, runEmu } from './emu';

function emu(op: StructValues, type: 0 | 1, src: Uint8Array, buffers: { src: StructValues; dst: StructValues }, dstSize: number) {
  const ctx = testContext([src, new Uint8Array(dstSize)], { engine: 'EMU' });
  ctx.place = { task: 1, kind: 'EMU', slot: 0, engine: type ? 'SOFTMAX' : 'POWER' };
  const r = runEmu(ctx, descriptor(EMU_LAYOUTS_0_0_1.op[type]!, op), descriptor(EMU_LAYOUTS_0_0_1.buffers, { src_data: buffers.src, dst_data: buffers.dst }), false);
  return { r, dst: ctx.mem.buffers[1]! };
}

const softmax = (x: number[]) => {
  const m = Math.max(...x);
  const e = x.map((v) => Math.exp(v - m));
  const s = e.reduce((a, b) => a + b, 0);
  return e.map((v) => v / s);
};

describe('EMU', () => {
  it('fp16 softmax over the channels', () => {
    const src = new Uint8Array(6);
    [1, 2, 3].forEach((v, i) => new DataView(src.buffer).setUint16(2 * i, halfBits(v), true));
    const buf = { addressIndex: 0, size: 6, format: 3, width: 1, height: 1, channel: 3, line_stride: 32, surf_stride: 32 };
    const { r, dst } = emu({ common: { op_type: 1, input_scale_factor: 1, output_scale_factor: 1 } }, 1, src, { src: buf, dst: { ...buf, addressIndex: 1 } }, 6);
    const want = softmax([1, 2, 3]).map(toHalfValue);
    expect(Array.from(r.output.data)).toEqual(want);
    expect([0, 1, 2].map((i) => halfTable()[new DataView(dst.buffer).getUint16(2 * i, true)])).toEqual(want);
  });

  it('int8 softmax: x times the input scale, probabilities over the output scale, truncated toward zero', () => {
    // 10 20 30 x 0.1 = 1 2 3; softmax 0.0900 0.2447 0.6652 x 127 = 11.43 31.08 84.49 -> 11 31 84
    const src = Int8Array.from([10, 20, 30]);
    const buf = { addressIndex: 0, size: 3, format: 0, width: 1, height: 1, channel: 3, line_stride: 32, surf_stride: 32 };
    const { r } = emu({ common: { op_type: 1, input_scale_factor: 0.1, output_scale_factor: 1 / 127 } }, 1, new Uint8Array(src.buffer), { src: buf, dst: { ...buf, addressIndex: 1 } }, 3);
    expect(Array.from(r.output.data)).toEqual([11, 31, 84]);
  });

  it('fp16 power (shift + scale x)^power through the feature layout', () => {
    const buf = { addressIndex: 0, size: 64, format: 3, width: 2, height: 1, channel: 1, line_stride: 64, surf_stride: 64 };
    const src = new Uint8Array(64);
    const b = { ...buf, format: 'FF16' as const, addressIndex: 0, offset: 0, lineStride: 64, surfStride: 64 };
    new DataView(src.buffer).setUint16(emuOffset(b, 0, 0, 0), halfBits(1), true);
    new DataView(src.buffer).setUint16(emuOffset(b, 1, 0, 0), halfBits(3), true);
    const { r } = emu({ common: { op_type: 0, input_scale_factor: 1, output_scale_factor: 1 }, power: 2, scale: 2, shift: 1 }, 0, src, { src: buf, dst: { ...buf, addressIndex: 1 } }, 64);
    // (1 + 2 x 1)^2 = 9, (1 + 2 x 3)^2 = 49
    expect(Array.from(r.output.data)).toEqual([9, 49]);
  });

  it('refuses mixed formats and unknown op types, naming the field', () => {
    const buf = { addressIndex: 0, size: 3, format: 0, width: 1, height: 1, channel: 3 };
    expect(() => emu({ common: { op_type: 1 } }, 1, new Uint8Array(8), { src: buf, dst: { ...buf, format: 3, addressIndex: 1 } }, 8)).toThrow(/buffers.dst_data.format/);
    expect(() => emu({ common: { op_type: 7 } }, 1, new Uint8Array(8), { src: buf, dst: { ...buf, addressIndex: 1 } }, 8)).toThrow(/task 1 \(EMU\) op 0 \(SOFTMAX\): op.common.op_type/);
  });
});
