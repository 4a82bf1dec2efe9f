/**
 * binary16 <-> number for the DLA's fp16 surfaces, fast enough for whole feature maps: a 64 Ki
 * entry table decodes, and encoding rounds with core/fp16 (IEEE round to nearest even, as the
 * hardware's Fp32ToFp16) and then takes the bits of the now exact value from its float32 bits.
 * Values past the fp16 range saturate to +-65504: "there won't be any INF output from any
 * NVDLA sub-module, if saturation happens, NVDLA will output the maximum representable"
 * (nvdla/doc hw/format.rst, FP16 supporting).
 */
import { float16FromBits, roundToFloat16 } from '../fp16';

let table: Float32Array | null = null;

/** number of each of the 65536 bit patterns */
export function halfTable(): Float32Array {
  if (!table) {
    table = new Float32Array(65536);
    for (let i = 0; i < 65536; i++) table[i] = float16FromBits(i);
  }
  return table;
}

export const HALF_MAX = 65504;

/** `v` as the hardware writes it to an fp16 surface: rounded to nearest even, saturated. */
export function toHalfValue(v: number): number {
  if (v !== v) return v;
  const r = roundToFloat16(v);
  return r > HALF_MAX ? HALF_MAX : r < -HALF_MAX ? -HALF_MAX : r;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** The bits of a value already exact in binary16 (from `toHalfValue`). */
export function halfBitsOfExact(v: number): number {
  f32[0] = v;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const e = (b >>> 23) & 0xff;
  const m = b & 0x7fffff;
  if (e === 0) return sign;
  if (e === 255) return sign | 0x7c00 | (m ? 0x200 : 0);
  const E = e - 112;
  if (E >= 1) return sign | (E << 10) | (m >>> 13);
  return sign | ((m | 0x800000) >>> (126 - e));
}

/** binary16 bits of `v` rounded and saturated as the hardware writes it. */
export function halfBits(v: number): number {
  return halfBitsOfExact(toHalfValue(v));
}
