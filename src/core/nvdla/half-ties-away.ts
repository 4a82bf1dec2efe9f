/**
 * float32 -> binary16 as nvdla/sw converts weights (`half_float::half` of half.hpp 1.x with its
 * defaults: round to nearest, ties away from zero; HALF_ROUND_TIES_TO_EVEN = 0). This differs
 * from IEEE round-to-nearest-even (core/fp16's `roundToFloat16`) on exact ties, so it is a
 * separate function: fp16 weight blobs must match nvdla_compiler's bit for bit.
 *
 * Written by hand: the rounding rule is the library's, not IEEE's, and no npm package offers it.
 */
const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** binary16 bits of `value` (first rounded to float32), half.hpp's float2half_impl<round_to_nearest> */
export function float32ToHalfTiesAway(value: number): number {
  f32[0] = value;
  const bits = u32[0]!;
  const e9 = bits >>> 23; // sign and exponent
  const sign = e9 & 0x100 ? 0x8000 : 0;
  const exp = e9 & 0xff;
  const mant = bits & 0x7fffff;
  let base: number;
  let shift: number;
  if (exp < 103) {
    base = 0;
    shift = 24;
  } else if (exp < 113) {
    base = 1 << (exp - 103);
    shift = 126 - exp;
  } else if (exp < 143) {
    base = (exp - 112) << 10;
    shift = 13;
  } else {
    base = 0x7c00;
    shift = exp === 255 ? 13 : 24;
  }
  let h = sign + base + (shift < 32 ? mant >>> shift : 0);
  const roundBit = ((mant >>> (shift - 1)) | (exp === 102 ? 1 : 0)) & 1;
  if ((h & 0x7c00) !== 0x7c00) h += roundBit;
  return h & 0xffff;
}
