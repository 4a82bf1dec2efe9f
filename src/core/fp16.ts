/**
 * IEEE 754 binary16 ("half", circle's FLOAT16) for the whole project: the bits of a number
 * (round to nearest, ties to even), the number of some bits, and rounding a number to the
 * nearest half value. The conversions are @petamoriken/float16's (the Float16Array polyfill);
 * this module only adapts them to bits, which is how circle buffers and chef fillers hold halves.
 */
import { f16round, getFloat16, setFloat16 } from '@petamoriken/float16';

const scratch = new DataView(new ArrayBuffer(2));

/** The binary16 bits of `value`, rounded to nearest even; NaN is the quiet NaN 0x7e00. */
export function float16Bits(value: number): number {
  setFloat16(scratch, 0, value);
  return scratch.getUint16(0);
}

/** The number binary16 `bits` (0..0xffff) hold. */
export function float16FromBits(bits: number): number {
  scratch.setUint16(0, bits);
  return getFloat16(scratch, 0);
}

/** `value` rounded to the nearest binary16 value (ties to even; beyond 65504 rounds to infinity). */
export function roundToFloat16(value: number): number {
  return f16round(value);
}

/** A little-endian binary16 at `offset` of a DataView (tensor buffers). */
export function readFloat16LE(view: DataView, offset: number): number {
  return getFloat16(view, offset, true);
}

/** Writes `value` as a little-endian binary16 at `offset`. */
export function writeFloat16LE(view: DataView, offset: number, value: number): void {
  setFloat16(view, offset, value, true);
}
