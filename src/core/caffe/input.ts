/**
 * Run inputs: a decoded image (RGBA pixels; decoding PNG / JPEG happens outside core, in the
 * browser with createImageBitmap and in the CLI with pngjs / jpeg-js), seeded random values, or a
 * float32 array (.npy) in the input's shape.
 *
 * Image preprocessing follows what a Caffe user does with OpenCV before `net.forward`:
 * resize with cv2.resize's default (bilinear, pixel centres aligned, edge pixels repeated), keep
 * 8-bit values, convert to grayscale (cvtColor's 0.299 R + 0.587 G + 0.114 B) or to BGR channel
 * order, then Caffe's DataTransformer: value = (pixel - mean[c]) * scale.
 */
import { seededRandom } from '../random';
import { getNumber, message, messages, numbers, type ProtoMessage } from './proto';

export interface RgbaImage {
  width: number;
  height: number;
  /** width * height * 4 bytes, row-major RGBA */
  data: Uint8Array | Uint8ClampedArray;
}

export type ColorOrder = 'gray' | 'bgr' | 'rgb';

export interface ImageTransform {
  /** default: gray for 1 channel, bgr for 3 */
  color?: ColorOrder;
  /** multiplies after the mean is subtracted; default 1 */
  scale?: number;
  /** per channel in the net's channel order (one value applies to all); default 0 */
  mean?: number[];
}

/** cv2.resize INTER_LINEAR source coordinate and weight for destination index `d`. */
function linearTap(d: number, scale: number, size: number): [number, number, number] {
  let f = (d + 0.5) * scale - 0.5;
  let i = Math.floor(f);
  f -= i;
  if (i < 0) {
    i = 0;
    f = 0;
  }
  if (i >= size - 1) {
    i = size - 1;
    f = 0;
  }
  return [i, Math.min(i + 1, size - 1), f];
}

/** Bilinear resize of one 8-bit plane, rounded back to 8 bits. */
export function resizePlane(src: Float32Array, w: number, h: number, ow: number, oh: number): Float32Array {
  if (w === ow && h === oh) return src.slice();
  const out = new Float32Array(ow * oh);
  const xs = Array.from({ length: ow }, (_, x) => linearTap(x, w / ow, w));
  for (let y = 0; y < oh; y++) {
    const [y0, y1, fy] = linearTap(y, h / oh, h);
    for (let x = 0; x < ow; x++) {
      const [x0, x1, fx] = xs[x]!;
      const top = src[y0 * w + x0]! * (1 - fx) + src[y0 * w + x1]! * fx;
      const bot = src[y1 * w + x0]! * (1 - fx) + src[y1 * w + x1]! * fx;
      out[y * ow + x] = Math.min(255, Math.max(0, Math.round(top * (1 - fy) + bot * fy)));
    }
  }
  return out;
}

/** Image -> blob values of shape [N, C, H, W] (C = 1 or 3; the image is repeated over N). */
export function imageToBlob(img: RgbaImage, shape: readonly number[], t: ImageTransform = {}): Float32Array {
  if (shape.length !== 4) throw new RangeError(`an image feeds a 4-D input (N, C, H, W); this input is [${shape.join(',')}]`);
  const [n, c, h, w] = shape as [number, number, number, number];
  if (c !== 1 && c !== 3) throw new RangeError(`an image feeds an input of 1 or 3 channels; this input has ${c}`);
  const color = t.color ?? (c === 1 ? 'gray' : 'bgr');
  if ((color === 'gray') !== (c === 1)) throw new RangeError(`${color} needs ${color === 'gray' ? 1 : 3} channels; the input has ${c}`);
  if (img.data.length < img.width * img.height * 4) throw new RangeError('the image has fewer pixels than its size says');
  const planes: Float32Array[] = [];
  const px = img.width * img.height;
  const chan = (k: number) => {
    const p = new Float32Array(px);
    for (let i = 0; i < px; i++) p[i] = img.data[i * 4 + k]!;
    return p;
  };
  if (color === 'gray') {
    const g = new Float32Array(px);
    for (let i = 0; i < px; i++) g[i] = Math.round(0.299 * img.data[i * 4]! + 0.587 * img.data[i * 4 + 1]! + 0.114 * img.data[i * 4 + 2]!);
    planes.push(g);
  } else if (color === 'bgr') planes.push(chan(2), chan(1), chan(0));
  else planes.push(chan(0), chan(1), chan(2));
  const scale = t.scale ?? 1;
  const mean = t.mean ?? [0];
  const out = new Float32Array(n * c * h * w);
  planes.forEach((plane, ci) => {
    const r = resizePlane(plane, img.width, img.height, w, h);
    const m = mean.length === 1 ? mean[0]! : (mean[ci] ?? 0);
    for (let b = 0; b < n; b++) {
      const o = (b * c + ci) * h * w;
      for (let i = 0; i < h * w; i++) out[o + i] = (r[i]! - m) * scale;
    }
  });
  return out;
}

/** Uniform values in [lo, hi) from the project's seeded PRNG (mulberry32). */
export function randomBlob(count: number, seed: number, range: [number, number] = [0, 1]): Float32Array {
  const rnd = seededRandom(seed);
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = range[0] + (range[1] - range[0]) * rnd();
  return out;
}

/**
 * Scale and per-channel mean of a train_test net's data layer (`transform_param`), the defaults
 * for image inputs. `mean_file` (a binaryproto) is not read here: the caller is told it is set.
 */
export function transformDefaults(net: ProtoMessage): { scale?: number; mean?: number[]; meanFile?: string; layer: string } | null {
  for (const layer of messages(net, 'layer')) {
    const tp = message(layer, 'transform_param');
    if (!tp) continue;
    const out: { scale?: number; mean?: number[]; meanFile?: string; layer: string } = { layer: String(layer.name ?? '') };
    if (tp.scale !== undefined) out.scale = getNumber(tp, 'TransformationParameter', 'scale');
    const mv = numbers(tp, 'mean_value');
    if (mv.length) out.mean = mv;
    if (typeof tp.mean_file === 'string') out.meanFile = tp.mean_file;
    return out;
  }
  return null;
}
