/**
 * The EMU (CPU) ops as the runtime's emulator runs them (nvdla/sw `umd/core/src/runtime/
 * Emulator.cpp`):
 *
 * - SOFTMAX over the first `channel` elements of the source, read contiguously (the emulator
 *   ignores width, height and strides: a 1 x 1 x C surface): fp16: max, exp(x - max) summed in
 *   float32, each exp / sum written as fp16; int8: x x input_scale as fp16, the same softmax
 *   into fp16, then y / output_scale saturated to int8 and truncated toward zero
 *   (`saturate<float, int8>`: clamp, static_cast).
 * - POWER: y = (shift + scale x x)^power per element through the feature layout (32-byte
 *   atoms, 8-byte for INT8_8); int8 scales in and out like softmax.
 *
 * Buffer formats: INT8 0, INT8_8 1, INT16 2, FF16 3 (EMU 0.0.1); before 0.0.1: INT8 0, INT16 1,
 * FF16 2. Source and destination formats must agree.
 */
import type { DecodedStruct } from '../../loadable/structs';
import { member, valueOf } from '../../loadable/structs';
import { halfBitsOfExact, halfTable, toHalfValue } from '../half';
import type { MemRef } from '../memory';
import { fail, type EngineContext, type EngineOutput } from './context';

export interface EmuBuffer {
  addressIndex: number;
  offset: number;
  size: number;
  format: 'INT8' | 'INT8_8' | 'INT16' | 'FF16';
  width: number;
  height: number;
  channel: number;
  lineStride: number;
  surfStride: number;
}

function buffer(ctx: EngineContext, b: DecodedStruct, name: 'src_data' | 'dst_data', legacy: boolean): EmuBuffer {
  const m = member(b, name)!;
  const v = (k: string) => valueOf(m, k) ?? 0;
  const code = v('format');
  const format = legacy ? (['INT8', 'INT16', 'FF16'] as const)[code] : (['INT8', 'INT8_8', 'INT16', 'FF16'] as const)[code];
  if (!format) fail(ctx, 'unsupported', `buffers.${name}.format`, `${code} is not a buffer format the emulator reads`);
  if (format === 'INT16') fail(ctx, 'unsupported', `buffers.${name}.format`, 'INT16: the emulator implements FF16 and INT8 only');
  return { addressIndex: v('addressIndex'), offset: v('addressIndexOffset'), size: v('size'), format, width: v('width'), height: v('height'), channel: v('channel'), lineStride: v('line_stride'), surfStride: v('surf_stride') };
}

/** Byte offset of element (w, h, c) in the emulator's layout (`Emulator::getAddrOffset`). */
export function emuOffset(b: EmuBuffer, w: number, h: number, c: number): number {
  const bpe = b.format === 'FF16' ? 2 : 1;
  const x = (b.format === 'INT8_8' ? 8 : 32) / bpe;
  return Math.floor(c / x) * b.surfStride + h * b.lineStride + w * x * bpe + (c % x) * bpe;
}

function resolve(ctx: EngineContext, b: EmuBuffer, bytes: number, name: string): MemRef {
  return ctx.mem.resolve(ctx.task, ctx.taskIndex, b.addressIndex, b.offset, bytes, ctx.place, `buffers.${name}.addressIndex`);
}

export function runEmu(ctx: EngineContext, op: DecodedStruct, buffers: DecodedStruct | null, legacy: boolean): { output: EngineOutput } {
  if (!buffers) fail(ctx, 'corrupt', 'buffers', 'the op has no buffer descriptors');
  const type = valueOf(op, 'common.op_type') ?? -1;
  const inScale = legacy ? 1 : (valueOf(op, 'common.input_scale_factor') ?? 1);
  const outScale = legacy ? 1 : (valueOf(op, 'common.output_scale_factor') ?? 1);
  const src = buffer(ctx, buffers, 'src_data', legacy);
  const dst = buffer(ctx, buffers, 'dst_data', legacy);
  if (src.format !== dst.format) fail(ctx, 'corrupt', 'buffers.dst_data.format', `${dst.format} differs from the source's ${src.format}: the emulator refuses mixed formats`);
  const half = halfTable();
  const isHalf = src.format === 'FF16';
  const f = Math.fround;
  if (type === 1) {
    const C = src.channel;
    const bpe = isHalf ? 2 : 1;
    const s = resolve(ctx, src, C * bpe, 'src_data');
    const d = ctx.mem.forWrite(resolve(ctx, dst, dst.channel * bpe, 'dst_data'));
    const x = new Float64Array(C);
    for (let i = 0; i < C; i++) {
      if (isHalf) x[i] = half[s.buf[s.base + 2 * i]! | (s.buf[s.base + 2 * i + 1]! << 8)]!;
      else x[i] = toHalfValue(f(((s.buf[s.base + i]! << 24) >> 24) * inScale)); // pSrc[i] * scale stored as half
    }
    let max = -Infinity;
    for (let i = 0; i < C; i++) if (x[i]! > max) max = x[i]!;
    let sum = 0;
    for (let i = 0; i < C; i++) sum = f(sum + f(Math.exp(f(x[i]! - max))));
    const out = new Float64Array(dst.channel);
    for (let i = 0; i < dst.channel; i++) {
      const p = toHalfValue(f(f(Math.exp(f((x[i] ?? 0) - max))) / sum));
      if (isHalf) {
        out[i] = p;
        const bits = halfBitsOfExact(p);
        d.buf[d.base + 2 * i] = bits & 0xff;
        d.buf[d.base + 2 * i + 1] = bits >>> 8;
      } else {
        const q = Math.trunc(Math.max(-128, Math.min(127, f(p / outScale))));
        out[i] = q;
        d.buf[d.base + i] = q & 0xff;
      }
    }
    return { output: { channel: dst.channel, height: 1, width: 1, precision: isHalf ? 'FP16' : 'INT8', where: 'memory', data: out, saturated: 0 } };
  }
  if (type === 0) {
    const power = valueOf(op, 'power') ?? 1;
    const scale = valueOf(op, 'scale') ?? 1;
    const shift = valueOf(op, 'shift') ?? 0;
    const extent = (b: EmuBuffer) => emuOffset(b, Math.max(0, b.width - 1), Math.max(0, b.height - 1), Math.max(0, b.channel - 1)) + (isHalf ? 2 : 1);
    const s = resolve(ctx, src, extent(src), 'src_data');
    const d = ctx.mem.forWrite(resolve(ctx, dst, extent(dst), 'dst_data'));
    const out = new Float64Array(src.channel * src.height * src.width);
    let saturated = 0;
    for (let c = 0; c < src.channel; c++)
      for (let h = 0; h < src.height; h++)
        for (let w = 0; w < src.width; w++) {
          const so = s.base + emuOffset(src, w, h, c);
          const dOff = d.base + emuOffset(dst, w, h, c);
          const i = (c * src.height + h) * src.width + w;
          if (isHalf) {
            const x = half[s.buf[so]! | (s.buf[so + 1]! << 8)]!;
            const y = toHalfValue(f(Math.pow(f(shift + f(scale * x)), power)));
            out[i] = y;
            const bits = halfBitsOfExact(y);
            d.buf[dOff] = bits & 0xff;
            d.buf[dOff + 1] = bits >>> 8;
          } else {
            const x = f(((s.buf[so]! << 24) >> 24) * inScale);
            const y = f(f(Math.pow(f(shift + f(scale * x)), power)) / outScale);
            const q = Math.trunc(Math.max(-128, Math.min(127, y)));
            if (q !== Math.trunc(y)) saturated++;
            out[i] = q;
            d.buf[dOff] = q & 0xff;
          }
        }
    return { output: { channel: src.channel, height: src.height, width: src.width, precision: isHalf ? 'FP16' : 'INT8', where: 'memory', data: out, saturated } };
  }
  return fail(ctx, 'unsupported', 'op.common.op_type', `EMU op type ${type} is neither POWER (0) nor SOFTMAX (1)`);
}
