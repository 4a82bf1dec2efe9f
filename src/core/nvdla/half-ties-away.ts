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

/**
 * The same conversion per sign+exponent (the top 9 bits), as tables: the half's sign, exponent
 * and implicit bit (`HALF_BASE`), how far the mantissa moves right (`HALF_SHIFT`), and where the
 * rounding bit is in the mantissa with its implicit bit set (`HALF_ROUND_SHIFT`: 24 reads none,
 * 23 the implicit bit, which makes the tie below the smallest subnormal round up).
 */
const HALF_BASE = new Uint16Array(512);
const HALF_SHIFT = new Uint8Array(512);
const HALF_ROUND_SHIFT = new Uint8Array(512);
for (let e9 = 0; e9 < 512; e9++) {
  const exp = e9 & 0xff;
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
  HALF_BASE[e9] = (e9 & 0x100 ? 0x8000 : 0) + base;
  HALF_SHIFT[e9] = shift;
  HALF_ROUND_SHIFT[e9] = exp === 102 ? 23 : shift === 24 ? 24 : shift - 1;
}

/**
 * `float32ToHalfTiesAway` of the float32 whose bits are `bits` (as an int32), table-driven (no
 * branch on the exponent; int32 bits stay small integers in V8): every fp16 weight goes through
 * here, whole arrays at once or one value at a time while a layout is permuted.
 */
export function halfTiesAwayOfBits(bits: number): number {
  const magnitude = bits & 0x7fffffff;
  // fp16 normals (float32 exponents 113 .. 142, nearly every weight): rebias the exponent, cut
  // the mantissa, add the rounding bit (a carry may make the largest finite value infinity, as
  // half.hpp's does); the same as the tables below give, with no lookup
  if (magnitude >= 0x38800000 && magnitude < 0x47800000) return ((bits >>> 16) & 0x8000) + ((magnitude - 0x38000000) >>> 13) + ((magnitude >>> 12) & 1);
  const e9 = bits >>> 23;
  const mant = bits & 0x7fffff;
  const h = HALF_BASE[e9]! + (mant >>> HALF_SHIFT[e9]!);
  // no rounding into infinity's or NaN's exponent from there (half.hpp adds the bit below it)
  return (h & 0x7c00) !== 0x7c00 ? h + (((mant | 0x800000) >>> HALF_ROUND_SHIFT[e9]!) & 1) : h;
}

const F32 = new Float32Array(1);
const I32 = new Int32Array(F32.buffer);

/** `halfTiesAwayOfBits` of `value` rounded to float32 (a product computed in double, say) */
export function halfTiesAwayOfFloat(value: number): number {
  F32[0] = value;
  return halfTiesAwayOfBits(I32[0]!);
}

/** `float32ToHalfTiesAway` over a whole array */
export function float32ArrayToHalfTiesAway(src: Float32Array): Uint16Array {
  const out = new Uint16Array(src.length);
  float32BitsToHalfTiesAwayInto(new Int32Array(src.buffer, src.byteOffset, src.length), out);
  return out;
}

/** `halfTiesAwayOfBits` of every float32 bit pattern of `bits` into `out` (at least as long) */
export function float32BitsToHalfTiesAwayInto(bits: Int32Array, out: Uint16Array): void {
  for (let i = 0; i < bits.length; i++) out[i] = halfTiesAwayOfBits(bits[i]!);
}
