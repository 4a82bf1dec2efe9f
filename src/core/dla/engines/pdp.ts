/**
 * PDP (pooling), firmware `pdp.c` and nvdla/hw cmod `pdp/NV_NVDLA_pdp.cpp`:
 *
 * - windows `pool_width + 1` x `pool_height + 1` (the descriptor stores size - 1), strides,
 *   padding on four sides; MAX and MIN look at the input elements of the window only (padding
 *   never wins); AVERAGE adds, for every line of the window, `padding_value[n - 1]` for its n
 *   padded columns and, for n padded lines, `padding_value[n - 1] x kernel width` (cmod
 *   LineOperation / PoolingStage0Calc: the padding values hold n x the pad value, to undo an
 *   input offset), then divides by the whole window through the firmware's reciprocals:
 *   int: round(round(sum x recip_w / 2^16) x recip_h / 2^16), half away from zero each time
 *   (recip_kernel_size = 0x10000, 0x8000, 0x5555, ... for 1/1, 1/2, 1/3, ...); fp16: the sum
 *   times the fp17 reciprocals (1/k with a 10-bit mantissa), in float32 here (the hardware's
 *   fp17 / fp32 steps are not modelled bit for bit), rounded to fp16.
 * - split widths (`split_num`, `partial_*`): the hardware pools the width in parts; the result is
 *   the full-width pooling, so the model checks that the output parts add up to the output
 *   width and pools the whole surface.
 * - input from memory or on the fly from the SDP (`src_data` type HW), output to memory.
 */
import type { DecodedStruct } from '../../loadable/structs';
import { valueOf } from '../../loadable/structs';
import { MEM_TYPE, PRECISION, cubeOf, featureExtent, readFeature, writeFeature } from '../cube';
import { roundShiftRight, saturate } from '../fixed';
import { toHalfValue } from '../half';
import { checkOverlap, fail, featureRef, num, takeStream, type EngineContext, type EngineOutput, type ReadRegion } from './context';

/** firmware pdp.c recip_kernel_size: int8 / int16 (2^16 / k, truncated) and fp16 (fp17 bits) */
export const RECIP_INT = [0x10000, 0x8000, 0x5555, 0x4000, 0x3333, 0x2aaa, 0x2492, 0x2000];
export const RECIP_FP17 = [0x7c00, 0x7800, 0x7555, 0x7400, 0x7266, 0x7155, 0x7092, 0x7000];

/** An fp17 value (1 sign, 6 exponent bits with bias 31, 10 mantissa bits). */
export function fp17Value(bits: number): number {
  const sign = bits & 0x10000 ? -1 : 1;
  const e = (bits >>> 10) & 0x3f;
  const m = bits & 0x3ff;
  if (e === 0) return sign * m * 2 ** -40;
  return sign * (1 + m / 1024) * 2 ** (e - 31);
}

const POOL = { AVG: 0, MAX: 1, MIN: 2 } as const;

export interface PoolGeometry {
  C: number;
  H: number;
  W: number;
  outH: number;
  outW: number;
  kw: number;
  kh: number;
  sx: number;
  sy: number;
  padLeft: number;
  padTop: number;
}

/**
 * Pooling of CHW values. `padding[n - 1]` is what n padded elements add to an average (int);
 * `recip` the two reciprocals (int: x / 2^16; float: values); `float` pools in float32.
 */
export function pool(input: ArrayLike<number>, g: PoolGeometry, mode: number, padding: number[], float: boolean, recipW: number, recipH: number): Float64Array {
  const out = new Float64Array(g.C * g.outH * g.outW);
  const pad = (n: number) => (n > 0 ? (padding[n - 1] ?? 0) : 0);
  for (let c = 0; c < g.C; c++) {
    const inBase = c * g.H * g.W;
    for (let oy = 0; oy < g.outH; oy++) {
      const y0 = oy * g.sy - g.padTop;
      const yStart = Math.max(0, y0);
      const yEnd = Math.min(g.H, y0 + g.kh);
      for (let ox = 0; ox < g.outW; ox++) {
        const x0 = ox * g.sx - g.padLeft;
        const xStart = Math.max(0, x0);
        const xEnd = Math.min(g.W, x0 + g.kw);
        let r: number;
        if (mode === POOL.AVG) {
          let sum = 0;
          for (let y = yStart; y < yEnd; y++) {
            const row = inBase + y * g.W;
            for (let x = xStart; x < xEnd; x++) sum = float ? Math.fround(sum + input[row + x]!) : sum + input[row + x]!;
            if (!float) sum += pad(xStart - x0) + pad(x0 + g.kw - xEnd);
          }
          if (!float) sum += (pad(yStart - y0) + pad(y0 + g.kh - yEnd)) * g.kw;
          if (float) r = Math.fround(Math.fround(sum * recipW) * recipH);
          else r = roundShiftRight(roundShiftRight(sum * recipW, 16) * recipH, 16);
        } else {
          r = mode === POOL.MAX ? -Infinity : Infinity;
          for (let y = yStart; y < yEnd; y++) {
            const row = inBase + y * g.W;
            for (let x = xStart; x < xEnd; x++) {
              const v = input[row + x]!;
              if (mode === POOL.MAX ? v > r : v < r) r = v;
            }
          }
          if (!Number.isFinite(r)) r = pad(1); // a window of padding only (not produced by valid geometry)
        }
        out[(c * g.outH + oy) * g.outW + ox] = r;
      }
    }
  }
  return out;
}

export function runPdp(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct): { output: EngineOutput } {
  const n = (p: string) => num(ctx, op, p, 'op');
  const precision = n('precision');
  if (precision > 2) fail(ctx, 'corrupt', 'op.precision', `${precision} is not INT8, INT16 or FP16`);
  const mode = n('pool_mode');
  if (mode > 2) fail(ctx, 'corrupt', 'op.pool_mode', `${mode} is not AVG, MAX or MIN`);
  const src = cubeOf(surface, 'src_data');
  const dst = cubeOf(surface, 'dst_data');
  if (!src || !dst) fail(ctx, 'corrupt', 'surface', 'the PDP surface descriptor is incomplete');
  if (dst.type === MEM_TYPE.HW) fail(ctx, 'corrupt', 'surface.dst_data.type', 'the PDP writes to memory');
  if (dst.channel !== src.channel) fail(ctx, 'corrupt', 'surface.dst_data.channel', `${dst.channel} differs from the input's ${src.channel}`);
  const float = precision === PRECISION.FP16;
  const kw = n('pool_width') + 1;
  const kh = n('pool_height') + 1;
  if (kw > 8 || kh > 8) fail(ctx, 'corrupt', 'op.pool_width', `window ${kw}x${kh} is larger than 8x8`);
  const g = {
    C: src.channel,
    H: src.height,
    W: src.width,
    outH: dst.height,
    outW: dst.width,
    kw,
    kh,
    sx: n('stride_x'),
    sy: n('stride_y'),
    padLeft: n('pad_left'),
    padTop: n('pad_top'),
  };
  if (g.sx < 1 || g.sy < 1) fail(ctx, 'corrupt', 'op.stride_x', `stride ${g.sx}x${g.sy} is below 1`);
  const lastX = (g.outW - 1) * g.sx - g.padLeft;
  const lastY = (g.outH - 1) * g.sy - g.padTop;
  if (lastX >= g.W || lastY >= g.H) fail(ctx, 'corrupt', 'surface.dst_data.width', `output ${g.outW}x${g.outH} has windows that start past the ${g.W}x${g.H} input`);
  const split = n('split_num');
  if (split > 1) {
    const first = n('partial_width_first');
    const mid = n('partial_width_mid');
    const last = n('partial_width_last');
    const total = first + mid * (split - 2) + last;
    if (total !== g.outW) fail(ctx, 'corrupt', 'op.partial_width_first', `the ${split} split widths (${first}, ${split - 2} x ${mid}, ${last}) add up to ${total}, not the output width ${g.outW}`);
  }
  const padding: number[] = [];
  for (let i = 0; i < 7; i++) padding.push(valueOf(op, `padding_value.${i}`) ?? 0);
  if (float && padding.some((v) => v !== 0)) fail(ctx, 'corrupt', 'op.padding_value', 'fp16 pooling takes no padding values (firmware asserts they are 0)');
  let input: ArrayLike<number>;
  const reads: ReadRegion[] = [];
  if (src.type === MEM_TYPE.HW) input = takeStream(ctx, src, 'src_data').data;
  else {
    const ref = featureRef(ctx, src, precision, 'src_data');
    reads.push({ ref, size: featureExtent(src, precision, ctx.hw.atomBytes), field: 'src_data' });
    input = readFeature(ref, src, precision, ctx.hw.atomBytes);
  }
  const recipW = float ? fp17Value(RECIP_FP17[kw - 1]!) : RECIP_INT[kw - 1]!;
  const recipH = float ? fp17Value(RECIP_FP17[kh - 1]!) : RECIP_INT[kh - 1]!;
  const raw = pool(input, g, mode, padding, float, recipW, recipH);
  let saturated = 0;
  const bits = precision === PRECISION.INT8 ? 8 : 16;
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]!;
    const o = float ? toHalfValue(v) : saturate(v, bits);
    if (!float && o !== v) saturated++;
    raw[i] = o;
  }
  const dref = ctx.mem.forWrite(featureRef(ctx, dst, precision, 'dst_data'));
  checkOverlap(ctx, dref, featureExtent(dst, precision, ctx.hw.atomBytes), reads);
  writeFeature(dref, dst, precision, ctx.hw.atomBytes, raw);
  return { output: { channel: dst.channel, height: dst.height, width: dst.width, precision: precision === 0 ? 'INT8' : precision === 1 ? 'INT16' : 'FP16', where: 'memory', data: raw, saturated } };
}
