/**
 * Data cubes in DLA memory (nvdla/doc hw/format.rst): feature data is stored in atoms of
 * 32 bytes (8 on nv_small) holding 32 int8 or 16 fp16 channels of one pixel; atoms go along a
 * line (W), lines down a surface (H, `line_stride` apart), surfaces of 32 channels
 * `surf_stride` apart (C). Image input is pitch linear: a pixel's channels side by side
 * (A8B8G8R8: channel c at byte c of the pixel, as the runtime's `getAddrOffset` writes them),
 * lines `line_stride` apart. Planar data (RUBIK split / merge) keeps one plane per channel,
 * `plane_stride` apart.
 *
 * Values cross engines as numbers in CHW order: integers for int8 / int16 surfaces, the fp16
 * value for fp16 ones.
 */
import type { DecodedField, DecodedStruct } from '../loadable/structs';
import { member, valueOf } from '../loadable/structs';
import { halfBitsOfExact, halfTable, toHalfValue } from './half';
import type { MemRef } from './memory';
import { saturate } from './fixed';

export const PRECISION = { INT8: 0, INT16: 1, FP16: 2 } as const;
export const PRECISION_NAMES = ['INT8', 'INT16', 'FP16'] as const;
export type PrecisionName = (typeof PRECISION_NAMES)[number];
export const MEM_TYPE = { MC: 0, CV: 1, HW: 2 } as const;

export interface Cube {
  type: number;
  address: number;
  offset: number;
  size: number;
  width: number;
  height: number;
  channel: number;
  lineStride: number;
  surfStride: number;
  planeStride: number;
}

/** A `dla_data_cube` of a decoded surface descriptor (0.10 / 0.11 cubes have no offset: 0). */
export function cubeOf(surface: DecodedStruct | DecodedField, name: string): Cube | null {
  const c = member(surface, name);
  if (!c?.fields) return null;
  const v = (k: string) => valueOf(c, k) ?? 0;
  return {
    type: v('type'),
    address: valueOf(c, 'address') ?? -1,
    offset: v('offset'),
    size: v('size'),
    width: v('width'),
    height: v('height'),
    channel: v('channel'),
    lineStride: v('line_stride'),
    surfStride: v('surf_stride'),
    planeStride: v('plane_stride'),
  };
}

export function elementBytes(precision: number): number {
  return precision === PRECISION.INT8 ? 1 : 2;
}

/** Channels in one atom of feature data. */
export function channelsPerAtom(precision: number, atomBytes: number): number {
  return atomBytes / elementBytes(precision);
}

/** Bytes from the cube's start to the end of its last element (feature data layout). */
export function featureExtent(c: Cube, precision: number, atomBytes: number): number {
  if (c.width === 0 || c.height === 0 || c.channel === 0) return 0;
  const groups = Math.ceil(c.channel / channelsPerAtom(precision, atomBytes));
  return (groups - 1) * c.surfStride + (c.height - 1) * c.lineStride + c.width * atomBytes;
}

export function elementCount(c: { width: number; height: number; channel: number }): number {
  return c.width * c.height * c.channel;
}

/** Reads a feature data cube into CHW numbers. */
export function readFeature(ref: MemRef, c: Cube, precision: number, atomBytes: number): Float32Array {
  const { width: W, height: H, channel: C } = c;
  const out = new Float32Array(W * H * C);
  const per = channelsPerAtom(precision, atomBytes);
  const buf = ref.buf;
  if (precision === PRECISION.INT8) {
    for (let ch = 0; ch < C; ch++) {
      const g = Math.floor(ch / per);
      const inAtom = ch - g * per;
      for (let y = 0; y < H; y++) {
        let at = ref.base + g * c.surfStride + y * c.lineStride + inAtom;
        const row = (ch * H + y) * W;
        for (let x = 0; x < W; x++, at += atomBytes) out[row + x] = (buf[at]! << 24) >> 24;
      }
    }
    return out;
  }
  const half = halfTable();
  for (let ch = 0; ch < C; ch++) {
    const g = Math.floor(ch / per);
    const inAtom = (ch - g * per) * 2;
    for (let y = 0; y < H; y++) {
      let at = ref.base + g * c.surfStride + y * c.lineStride + inAtom;
      const row = (ch * H + y) * W;
      for (let x = 0; x < W; x++, at += atomBytes) {
        const bits = buf[at]! | (buf[at + 1]! << 8);
        out[row + x] = precision === PRECISION.FP16 ? half[bits]! : (bits << 16) >> 16;
      }
    }
  }
  return out;
}

/**
 * Writes CHW values into a feature data cube: int8 / int16 values are saturated to the width,
 * fp16 values rounded to nearest even and saturated at +-65504.
 */
export function writeFeature(ref: MemRef, c: Cube, precision: number, atomBytes: number, values: ArrayLike<number>): void {
  const { width: W, height: H, channel: C } = c;
  const per = channelsPerAtom(precision, atomBytes);
  const buf = ref.buf;
  for (let ch = 0; ch < C; ch++) {
    const g = Math.floor(ch / per);
    const inAtom = (ch - g * per) * elementBytes(precision);
    for (let y = 0; y < H; y++) {
      let at = ref.base + g * c.surfStride + y * c.lineStride + inAtom;
      const row = (ch * H + y) * W;
      for (let x = 0; x < W; x++, at += atomBytes) {
        const v = values[row + x]!;
        if (precision === PRECISION.INT8) buf[at] = saturate(Math.round(v), 8) & 0xff;
        else {
          const bits = precision === PRECISION.FP16 ? halfBitsOfExact(toHalfValue(v)) : saturate(Math.round(v), 16) & 0xffff;
          buf[at] = bits & 0xff;
          buf[at + 1] = bits >>> 8;
        }
      }
    }
  }
}

/** Pixel formats the model reads: bytes per element, channels per pixel, value kind. */
export interface PixelLayout {
  name: string;
  elementBytes: 1 | 2;
  channels: number;
  kind: 'int' | 'fp16';
}

/** The pitch-linear formats whose channel order is byte order (others are refused). */
export const PIXEL_LAYOUTS: Record<number, PixelLayout> = {
  0: { name: 'R8', elementBytes: 1, channels: 1, kind: 'int' },
  3: { name: 'R16', elementBytes: 2, channels: 1, kind: 'int' },
  4: { name: 'R16_I', elementBytes: 2, channels: 1, kind: 'int' },
  5: { name: 'R16_F', elementBytes: 2, channels: 1, kind: 'fp16' },
  6: { name: 'A16B16G16R16', elementBytes: 2, channels: 4, kind: 'int' },
  7: { name: 'X16B16G16R16', elementBytes: 2, channels: 4, kind: 'int' },
  8: { name: 'A16B16G16R16_F', elementBytes: 2, channels: 4, kind: 'fp16' },
  12: { name: 'A8B8G8R8', elementBytes: 1, channels: 4, kind: 'int' },
  16: { name: 'X8B8G8R8', elementBytes: 1, channels: 4, kind: 'int' },
};

export function imageExtent(c: Cube, layout: PixelLayout): number {
  if (c.width === 0 || c.height === 0) return 0;
  return (c.height - 1) * c.lineStride + c.width * layout.channels * layout.elementBytes;
}

/**
 * Reads `channels` channels of a pitch-linear image into CHW numbers; integer pixels are signed
 * when the conv op's `pixel_override` says INT (1), unsigned otherwise.
 */
export function readImage(ref: MemRef, c: Cube, layout: PixelLayout, channels: number, signed: boolean): Float32Array {
  const { width: W, height: H } = c;
  const out = new Float32Array(W * H * channels);
  const buf = ref.buf;
  const pixel = layout.channels * layout.elementBytes;
  const half = layout.kind === 'fp16' ? halfTable() : null;
  for (let ch = 0; ch < channels; ch++) {
    for (let y = 0; y < H; y++) {
      let at = ref.base + y * c.lineStride + ch * layout.elementBytes;
      const row = (ch * H + y) * W;
      for (let x = 0; x < W; x++, at += pixel) {
        let v: number;
        if (layout.elementBytes === 1) v = signed ? (buf[at]! << 24) >> 24 : buf[at]!;
        else {
          const bits = buf[at]! | (buf[at + 1]! << 8);
          v = half ? half[bits]! : signed ? (bits << 16) >> 16 : bits;
        }
        out[row + x] = v;
      }
    }
  }
  return out;
}

/** Bytes from the start of planar data to its last element. */
export function planarExtent(c: Cube, precision: number): number {
  if (c.width === 0 || c.height === 0 || c.channel === 0) return 0;
  return (c.channel - 1) * c.planeStride + (c.height - 1) * c.lineStride + c.width * elementBytes(precision);
}

/** Planar data (one plane per channel) into CHW numbers. */
export function readPlanar(ref: MemRef, c: Cube, precision: number): Float32Array {
  const { width: W, height: H, channel: C } = c;
  const out = new Float32Array(W * H * C);
  const eb = elementBytes(precision);
  const half = precision === PRECISION.FP16 ? halfTable() : null;
  for (let ch = 0; ch < C; ch++)
    for (let y = 0; y < H; y++) {
      let at = ref.base + ch * c.planeStride + y * c.lineStride;
      for (let x = 0; x < W; x++, at += eb) {
        const b = ref.buf;
        out[(ch * H + y) * W + x] = eb === 1 ? (b[at]! << 24) >> 24 : half ? half[b[at]! | (b[at + 1]! << 8)]! : ((b[at]! | (b[at + 1]! << 8)) << 16) >> 16;
      }
    }
  return out;
}

export function writePlanar(ref: MemRef, c: Cube, precision: number, values: ArrayLike<number>): void {
  const { width: W, height: H, channel: C } = c;
  const eb = elementBytes(precision);
  for (let ch = 0; ch < C; ch++)
    for (let y = 0; y < H; y++) {
      let at = ref.base + ch * c.planeStride + y * c.lineStride;
      for (let x = 0; x < W; x++, at += eb) {
        const v = values[(ch * H + y) * W + x]!;
        if (eb === 1) ref.buf[at] = saturate(Math.round(v), 8) & 0xff;
        else {
          const bits = precision === PRECISION.FP16 ? halfBitsOfExact(toHalfValue(v)) : saturate(Math.round(v), 16) & 0xffff;
          ref.buf[at] = bits & 0xff;
          ref.buf[at + 1] = bits >>> 8;
        }
      }
    }
}
