/**
 * CDP (cross-channel LRN), firmware `cdp.c` and nvdla/hw cmod `cdp/NV_NVDLA_cdp.cpp`,
 * `hls/cdp_libs/cdp_icvt.cpp`, `cdp_ocvt.cpp`:
 *
 *   x' = in_cvt(x)                          int8: (x - offset) x scale >> shift, 9-bit result
 *   s  = sum of x'^2 over `local_size` channels centred on c (zeros past the edges)
 *   l  = LUT(s)                             the task's LUT `lut_index` (see lut.ts)
 *   y  = out_cvt(x' x l)                    int8: (v - offset) x scale >> shift, saturated
 *
 * `bypass_sqsum` feeds x' to the LUT instead of the sum, `bypass_out_mul` outputs l alone.
 * fp16: no convertors (hw/v1 precision.rst), the square sum and product in float32 (the
 * hardware's fp17 / fp32 steps are not modelled bit for bit), the LUT in its float form,
 * rounded to fp16. int8 LUT interpolation keeps 16 fraction bits and saturates the LUT result to
 * 16 bits, as the cmod's lookup_lut_int8.
 */
import type { DecodedStruct } from '../../loadable/structs';
import { PRECISION, cubeOf, featureExtent, readFeature, writeFeature } from '../cube';
import { convert, saturate } from '../fixed';
import { toHalfValue } from '../half';
import { CDP_FRACTION_BITS, decodeLut, lutLookup } from '../lut';
import { checkOverlap, fail, featureRef, num, type EngineContext, type EngineOutput } from './context';

export function runCdp(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct): { output: EngineOutput } {
  const n = (p: string) => num(ctx, op, p, 'op');
  const inPrec = n('in_precision');
  const outPrec = n('out_precision');
  if (inPrec > 2) fail(ctx, 'corrupt', 'op.in_precision', `${inPrec} is not INT8, INT16 or FP16`);
  if (inPrec !== outPrec) fail(ctx, 'corrupt', 'op.out_precision', `${outPrec} differs from in_precision ${inPrec}: the CDP converts no precision (hw/format.rst)`);
  const float = inPrec === PRECISION.FP16;
  const src = cubeOf(surface, 'src_data');
  const dst = cubeOf(surface, 'dst_data');
  if (!src || !dst) fail(ctx, 'corrupt', 'surface', 'the CDP surface descriptor is incomplete');
  if (dst.width !== src.width || dst.height !== src.height || dst.channel !== src.channel) {
    fail(ctx, 'corrupt', 'surface.dst_data', `the output cube ${dst.width}x${dst.height}x${dst.channel} differs from the input ${src.width}x${src.height}x${src.channel}`);
  }
  const localSize = n('local_size');
  if (![3, 5, 7, 9].includes(localSize)) fail(ctx, 'corrupt', 'op.local_size', `${localSize} is not 3, 5, 7 or 9`);
  const lutIndex = n('lut_index');
  const l = ctx.luts[lutIndex];
  if (!l) fail(ctx, 'corrupt', 'op.lut_index', `LUT ${lutIndex} is not among the task's ${ctx.luts.length} LUT(s)`);
  const lut = decodeLut(l, float, 'CDP');
  const bypassSq = n('bypass_sqsum') === 1;
  const bypassMul = n('bypass_out_mul') === 1;
  const ref = featureRef(ctx, src, inPrec, 'src_data');
  const x = readFeature(ref, src, inPrec, ctx.hw.atomBytes);
  const inCvt = { offset: n('in_cvt.offset'), scale: n('in_cvt.scale'), truncate: n('in_cvt.truncate') };
  const outCvt = { offset: n('out_cvt.offset'), scale: n('out_cvt.scale'), truncate: n('out_cvt.truncate') };
  const intBits = inPrec === PRECISION.INT8 ? 9 : 17;
  const xc = new Float64Array(x.length);
  for (let i = 0; i < x.length; i++) xc[i] = float ? x[i]! : convert(x[i]!, inCvt.offset, inCvt.scale, inCvt.truncate, intBits);
  const C = src.channel;
  const plane = src.width * src.height;
  const half = (localSize - 1) / 2;
  const out = new Float64Array(x.length);
  let saturated = 0;
  const outBits = outPrec === PRECISION.INT8 ? 8 : 16;
  for (let c = 0; c < C; c++)
    for (let p = 0; p < plane; p++) {
      const v = xc[c * plane + p]!;
      let s = 0;
      if (bypassSq) s = v;
      else
        for (let j = Math.max(0, c - half); j <= Math.min(C - 1, c + half); j++) {
          const u = xc[j * plane + p]!;
          s = float ? Math.fround(s + Math.fround(u * u)) : s + u * u;
        }
      let lv = lutLookup(lut, s, CDP_FRACTION_BITS).value;
      if (!float) lv = saturate(lv, 16);
      const m = bypassMul ? lv : float ? Math.fround(lv * v) : lv * v;
      let o: number;
      if (float) o = toHalfValue(m);
      else {
        o = convert(m, outCvt.offset, outCvt.scale, outCvt.truncate, outBits);
        if (o !== convert(m, outCvt.offset, outCvt.scale, outCvt.truncate, 53)) saturated++;
      }
      out[c * plane + p] = o;
    }
  const dref = ctx.mem.forWrite(featureRef(ctx, dst, outPrec, 'dst_data'));
  checkOverlap(ctx, dref, featureExtent(dst, outPrec, ctx.hw.atomBytes), [{ ref, size: featureExtent(src, inPrec, ctx.hw.atomBytes), field: 'src_data' }]);
  writeFeature(dref, dst, outPrec, ctx.hw.atomBytes, out);
  return { output: { channel: C, height: dst.height, width: dst.width, precision: outPrec === 0 ? 'INT8' : outPrec === 1 ? 'INT16' : 'FP16', where: 'memory', data: out, saturated } };
}
