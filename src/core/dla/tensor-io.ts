/**
 * Bindable tensors in and out of the loadable's formats, as the runtime's test app fills and
 * reads them (nvdla/sw `umd/apps/runtime/TestUtils.cpp` createImageCopy, `DlaImage.cpp`
 * getAddrOffset):
 *
 * - pitch-linear images (A8B8G8R8, A16B16G16R16_F, R8, ...): pixel (x, y) at y x line_stride +
 *   x x (channels x bytes), channel c at c x bytes inside the pixel; channels the network does
 *   not have stay 0 (the compiler widened C = 1 to 4 channels and zero-padded the weights);
 * - feature data (FEATURE, FEATURE_X8): 32-byte (8-byte) atoms, c / atom surfaces
 *   `stride_2` apart, lines `stride_1` apart;
 * - a batch of n items: item b at b x (size / n).
 *
 * Values: fp16 tensors hold the value rounded to nearest even; int8 tensors hold
 * round(x / scale) (half away from zero) saturated to -128..127, the scale being the tensor's
 * calibration scale (absmax / 127).
 */
import type { TensorDescListEntry } from '../loadable/model';
import { PIXEL_FORMAT } from '../loadable/names';
import { FormatError } from '../errors';
import { PIXEL_LAYOUTS } from './cube';
import { halfBits, halfTable } from './half';

const DATA_TYPE = { FLOAT: 1, HALF: 2, INT16: 3, INT8: 4, UINT8: 5, UINT16: 6 } as const;
const FEATURE = 36;
const FEATURE_X8 = 37;

export interface TensorShape {
  n: number;
  c: number;
  h: number;
  w: number;
}

/** Where element (b, c, y, x) of a tensor is, and how wide an element is. */
export interface TensorLayout {
  shape: TensorShape;
  elementBytes: 1 | 2;
  kind: 'int8' | 'int16' | 'fp16';
  offset: (b: number, c: number, y: number, x: number) => number;
  /** `image (A8B8G8R8)`, `feature (32-byte atoms)` */
  description: string;
}

export function tensorLayout(desc: TensorDescListEntry, file: string): TensorLayout {
  const shape = { n: Math.max(1, desc.n), c: desc.c, h: desc.h, w: desc.w };
  const kind = desc.data_type === DATA_TYPE.HALF ? 'fp16' : desc.data_type === DATA_TYPE.INT8 || desc.data_type === DATA_TYPE.UINT8 ? 'int8' : desc.data_type === DATA_TYPE.INT16 || desc.data_type === DATA_TYPE.UINT16 ? 'int16' : null;
  if (!kind) throw new FormatError({ kind: 'unsupported', file, path: `tensor_desc_list[${desc.id}].data_type`, message: `tensor '${desc.name}' has data type ${desc.data_type}, not HALF, INT8 or INT16` });
  const eb = kind === 'int8' ? 1 : 2;
  const item = desc.size / shape.n;
  if (desc.pixel_format === FEATURE || desc.pixel_format === FEATURE_X8) {
    const atom = desc.pixel_format === FEATURE_X8 ? 8 : 32;
    const per = atom / eb;
    const line = desc.stride_1;
    const surf = desc.stride_2;
    return {
      shape,
      elementBytes: eb,
      kind,
      offset: (b, c, y, x) => b * item + Math.floor(c / per) * surf + y * line + x * atom + (c % per) * eb,
      description: `feature data (${atom}-byte atoms, line ${line}, surface ${surf})`,
    };
  }
  const layout = PIXEL_LAYOUTS[desc.pixel_format];
  if (!layout) {
    throw new FormatError({ kind: 'unsupported', file, path: `tensor_desc_list[${desc.id}].pixel_format`, message: `tensor '${desc.name}': pixel format ${PIXEL_FORMAT[desc.pixel_format] ?? desc.pixel_format} is not one the model reads` });
  }
  const pixel = layout.channels * layout.elementBytes;
  const line = desc.stride_1;
  return {
    shape,
    elementBytes: layout.elementBytes,
    kind,
    offset: (b, c, y, x) => b * item + y * line + x * pixel + c * layout.elementBytes,
    description: `image (${layout.name}, line ${line})`,
  };
}

function roundHalfAway(v: number): number {
  return v >= 0 ? Math.floor(v + 0.5) : -Math.floor(-v + 0.5);
}

/**
 * A float NCHW tensor (`values`, shape n x channels x h x w with channels <= the descriptor's C)
 * in the tensor's format. `scale` quantises int tensors (required for them).
 */
export function encodeTensor(desc: TensorDescListEntry, file: string, values: ArrayLike<number>, channels: number, scale: number | null): Uint8Array {
  const L = tensorLayout(desc, file);
  const { n, h, w } = L.shape;
  if (channels > L.shape.c) throw new FormatError({ kind: 'corrupt', file, message: `tensor '${desc.name}' has ${L.shape.c} channels; the input has ${channels}` });
  if (values.length !== n * channels * h * w) throw new FormatError({ kind: 'corrupt', file, message: `tensor '${desc.name}' takes ${n}x${channels}x${h}x${w} = ${n * channels * h * w} values; ${values.length} were given` });
  if (L.kind !== 'fp16' && !(scale && scale > 0)) throw new FormatError({ kind: 'corrupt', file, message: `tensor '${desc.name}' is ${L.kind}: a positive scale is needed to quantise it` });
  const out = new Uint8Array(desc.size);
  const bits = L.kind === 'int8' ? 8 : 16;
  const max = 2 ** (bits - 1) - 1;
  for (let b = 0; b < n; b++)
    for (let c = 0; c < channels; c++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const v = values[((b * channels + c) * h + y) * w + x]!;
          const at = L.offset(b, c, y, x);
          if (at + L.elementBytes > out.length) throw new FormatError({ kind: 'corrupt', file, message: `tensor '${desc.name}': element (${b}, ${c}, ${y}, ${x}) lands past its ${desc.size} bytes` });
          if (L.kind === 'fp16') {
            const hb = halfBits(v);
            out[at] = hb & 0xff;
            out[at + 1] = hb >>> 8;
          } else {
            const q = Math.max(-max - 1, Math.min(max, roundHalfAway(v / scale!)));
            out[at] = q & 0xff;
            if (bits === 16) out[at + 1] = (q >> 8) & 0xff;
          }
        }
  return out;
}

/** A tensor's bytes as numbers, NCHW: fp16 values, or integers times `scale` (raw integers when null). */
export function decodeTensor(desc: TensorDescListEntry, file: string, bytes: Uint8Array, scale: number | null): { shape: TensorShape; values: Float32Array } {
  const L = tensorLayout(desc, file);
  const { n, c: C, h, w } = L.shape;
  const out = new Float32Array(n * C * h * w);
  const half = halfTable();
  for (let b = 0; b < n; b++)
    for (let c = 0; c < C; c++)
      for (let y = 0; y < h; y++)
        for (let x = 0; x < w; x++) {
          const at = L.offset(b, c, y, x);
          let v: number;
          if (L.kind === 'fp16') v = half[bytes[at]! | (bytes[at + 1]! << 8)]!;
          else if (L.kind === 'int8') v = (bytes[at]! << 24) >> 24;
          else v = ((bytes[at]! | (bytes[at + 1]! << 8)) << 16) >> 16;
          out[((b * C + c) * h + y) * w + x] = L.kind === 'fp16' || scale === null ? v : v * scale;
        }
  return { shape: L.shape, values: out };
}
