/**
 * The integer arithmetic of the DLA datapaths (nvdla/hw cmod `hls/include/nvdla_int.h`,
 * `hw/v1/ias/precision.rst`): right shifts round half away from zero and saturate to the output
 * width (`IntShiftRight`: ac_fixed with AC_RND_INF, AC_SAT), left shifts saturate
 * (`IntShiftLeft`), and the convertor is `saturate(round((x - offset) * scale >> shift))`.
 *
 * Values are JavaScript numbers: products of a 33-bit and a 16-bit integer (49 bits) are exact
 * below 2^53, so no BigInt is needed on these paths.
 */

/** Saturate `v` to a signed integer of `bits` bits. */
export function saturate(v: number, bits: number): number {
  const max = 2 ** (bits - 1) - 1;
  const min = -(2 ** (bits - 1));
  return v > max ? max : v < min ? min : v;
}

/** `round(v / 2^shift)`, ties away from zero (shift >= 0; shift 0 returns v). */
export function roundShiftRight(v: number, shift: number): number {
  if (shift <= 0) return v;
  const q = v / 2 ** shift; // exact: a power-of-two division of an integer below 2^53
  return q >= 0 ? Math.floor(q + 0.5) : -Math.floor(-q + 0.5);
}

/** `IntShiftRight<.., oWidth>`: round half away from zero, then saturate to `bits`. */
export function shiftRightSat(v: number, shift: number, bits: number): number {
  return saturate(roundShiftRight(v, shift), bits);
}

/** `IntShiftLeft`: v x 2^shift saturated to `bits`. */
export function shiftLeftSat(v: number, shift: number, bits: number): number {
  return saturate(v * 2 ** shift, bits);
}

/**
 * `IntSignedShiftRight` with a signed shift: right for shift > 0 (rounded), left for shift < 0
 * (LUT slopes and index selects are 5- or 6-bit signed shifts).
 */
export function signedShift(v: number, shift: number, bits: number): number {
  return shift >= 0 ? shiftRightSat(v, shift, bits) : shiftLeftSat(v, -shift, bits);
}

/**
 * A convertor (cdma_cvt, sdp_c, cdp_icvt/ocvt): `(x - offset) * scale`, shifted right by
 * `truncate` rounding half away from zero, saturated first to `midBits` (the 17-bit truncator
 * output of SDP C) and then to `outBits`.
 */
export function convert(x: number, offset: number, scale: number, truncate: number, outBits: number, midBits = outBits): number {
  const v = roundShiftRight((x - offset) * scale, truncate);
  return saturate(saturate(v, midBits), outBits);
}

/** Sign-extend the low `bits` of `v`. */
export function signExtend(v: number, bits: number): number {
  const shift = 32 - bits;
  return ((v << shift) >> shift);
}
