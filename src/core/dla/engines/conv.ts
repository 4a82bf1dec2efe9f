/**
 * CONV (CDMA -> CSC -> CMAC -> CACC), firmware `conv.c` for the descriptor -> register mapping
 * and nvdla/hw cmod for the arithmetic:
 *
 * - input: feature data (`data_format` FEATURE), or an image (`data_format` a pixel format,
 *   read pitch linear; `pixel_override` INT reads integer pixels as signed). Image int pixels go
 *   through the CDMA convertor (`in_cvt`: (x - offset) x scale >> truncate, rounded half away,
 *   saturated to the pipeline's width; `cdma_cvt.cpp`), after the mean when `mean_format` is on.
 *   Feature data skips the convertor (hw/v1 precision.rst: "for feature input, this convertor
 *   won't be used"). Out-of-bounds taps read `pad_val` (CSC zero padding value).
 * - weights: the direct-convolution layout of hw/format.rst (kernel groups of atomic K int8
 *   kernels or atomic K / 2 fp16 ones; inside a group 1x1xC' atoms of atomic C channels scanned
 *   C' -> K -> S -> R -> C). Image weights are pre-extended (a row of S pixels as S x C channels,
 *   kernel width 1); with `post_extension` p the CSC reads 2^p rows at once, and the weights of
 *   a kernel are super atoms of 2^p rows (cmod `NV_NVDLA_csc.cpp`, SendWeightToMacSequencer):
 *   stripe by stripe, kernel by kernel, rows r..r+2^p-1 of all channels together.
 * - accumulation: int8 x int8 products summed exactly (CACC keeps 48 bits), then the CACC
 *   truncation (`out_cvt.truncate` -> CACC D_CLIP_CFG): rounded half away from zero and
 *   saturated to int32 (`NV_NVDLA_cacc.cpp` ReshapeSequencerDirectConvCommon). fp16 products
 *   summed in float64 and delivered as float32: the hardware accumulates in its own floating
 *   format and order (fp48 in CACC), so results can differ in the last float32 bits; hw/v1
 *   precision.rst gives the tolerance the hardware itself is held to.
 * - output: always on the fly to the SDP (`dst_data` type HW); NVDLA v1 has no other path.
 *
 * Not modelled (stops with the field named): Winograd (`conv_mode` 1: no compiler here emits
 * it, `canWinograd` is false in every profile), compressed weights, multi-batch (`batch` > 1).
 */
import type { DecodedStruct } from '../../loadable/structs';
import { valueOf } from '../../loadable/structs';
import type { Kernels } from '../../kernels/kernels';
import type { DlaRunCache } from '../cache';
import { MEM_TYPE, PIXEL_LAYOUTS, PRECISION, cubeOf, elementBytes, imageExtent, readFeature, readImage } from '../cube';
import { convert, roundShiftRight } from '../fixed';
import { halfTable } from '../half';
import { dlaWarning, type DlaWarning } from '../errors';
import { fail, featureRef, num, type EngineContext, type EngineOutput, type Stream } from './context';
import { nvdlaCompilerPostExtRows } from '../../nvdla/engine/weights';

const FEATURE = 36;

/** Geometry of one convolution, in standard (K, C, R, S) terms. */
export interface ConvGeometry {
  inC: number;
  inH: number;
  inW: number;
  K: number;
  R: number;
  S: number;
  outH: number;
  outW: number;
  strideX: number;
  strideY: number;
  dilationX: number;
  dilationY: number;
  padLeft: number;
  padTop: number;
}

/**
 * Direct-convolution weights (hw/format.rst) as K x C x R x S numbers. `bytes` starts at the
 * weight surface; `eb` is 1 (int8) or 2; `int` selects signed integers over fp16.
 */
export function decodeDirectWeights(bytes: Uint8Array, base: number, K: number, C: number, R: number, S: number, eb: number, isInt: boolean, atomicC: number, kernelsPerGroup: number): Float32Array {
  // int8, int16 and fp16 weights are all exact in float32
  const out = new Float32Array(K * C * R * S);
  const half = isInt ? null : halfTable();
  const i8 = eb === 1 ? new Int8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) : null;
  const RS = R * S;
  let at = base;
  for (let k0 = 0; k0 < K; k0 += kernelsPerGroup) {
    const kn = Math.min(kernelsPerGroup, K - k0);
    for (let c0 = 0; c0 < C; c0 += atomicC) {
      const cn = Math.min(atomicC, C - c0);
      for (let rs = 0; rs < RS; rs++)
        for (let k = k0; k < k0 + kn; k++) {
          let o = (k * C + c0) * RS + rs;
          if (i8) for (let c = 0; c < cn; c++, o += RS) out[o] = i8[at++]!;
          else
            for (let c = 0; c < cn; c++, o += RS, at += 2) {
              const bits = bytes[at]! | (bytes[at + 1]! << 8);
              out[o] = half ? half[bits]! : (bits << 16) >> 16;
            }
        }
    }
  }
  return out;
}

/**
 * Post-extended image weights (kernel width 1 after pre-extension): per kernel group, stripes of
 * `rowsPerStripe` rows; per stripe every kernel's rows side by side (rows x C channels). Returns
 * K x C x R x 1.
 */
export function decodePostExtendedWeights(bytes: Uint8Array, base: number, K: number, C: number, R: number, eb: number, isInt: boolean, kernelsPerGroup: number, rowsPerStripe: number): Float32Array {
  const out = new Float32Array(K * C * R);
  const half = isInt ? null : halfTable();
  let at = base;
  for (let k0 = 0; k0 < K; k0 += kernelsPerGroup) {
    const kn = Math.min(kernelsPerGroup, K - k0);
    for (let r0 = 0; r0 < R; r0 += rowsPerStripe) {
      const rn = Math.min(rowsPerStripe, R - r0);
      for (let k = k0; k < k0 + kn; k++)
        for (let r = r0; r < r0 + rn; r++)
          for (let c = 0; c < C; c++) {
            let v: number;
            if (eb === 1) v = (bytes[at++]! << 24) >> 24;
            else {
              const bits = bytes[at]! | (bytes[at + 1]! << 8);
              at += 2;
              v = half ? half[bits]! : (bits << 16) >> 16;
            }
            out[(k * C + c) * R + r] = v;
          }
    }
  }
  return out;
}

/** Bytes the direct layout of K x C x R x S weights takes (without the 128-byte tail padding). */
export function directWeightBytes(K: number, C: number, R: number, S: number, eb: number): number {
  return K * C * R * S * eb;
}

/**
 * The convolution itself: `acc[k][oy][ox] = sum w[k][c][r][s] * in[c][oy*sy + r*dy - pt][ox*sx + s*dx - pl]`,
 * out-of-range taps reading `padValue`. Sums in float64 (exact for int8 x int8 products up to
 * 2^53). Over a padded copy of the input: weight-stationary loops along output rows for spatial
 * outputs; for outputs of a few pixels (fully connected layers: 1 x 1) each output is one dot
 * product of the kernel with the taps at precomputed offsets, which keeps that inner loop long.
 */
export function convolve(input: Float32Array, w: Float32Array, g: ConvGeometry, padValue: number): Float64Array {
  const { inC: C, inH: H, inW: W, K, R, S, outH: OH, outW: OW } = g;
  const Hp = Math.max(H + g.padTop, (OH - 1) * g.strideY + (R - 1) * g.dilationY + 1);
  const Wp = Math.max(W + g.padLeft, (OW - 1) * g.strideX + (S - 1) * g.dilationX + 1);
  const padded = new Float64Array(C * Hp * Wp);
  if (padValue !== 0) padded.fill(padValue);
  for (let c = 0; c < C; c++)
    for (let y = 0; y < H; y++) {
      const py = y + g.padTop;
      if (py < 0 || py >= Hp) continue;
      const len = Math.min(W, Wp - g.padLeft);
      if (len > 0) padded.set(input.subarray((c * H + y) * W, (c * H + y) * W + len), (c * Hp + py) * Wp + g.padLeft);
    }
  const acc = new Float64Array(K * OH * OW);
  if (OH * OW > 4) {
    const sx = g.strideX;
    for (let k = 0; k < K; k++) {
      const outBase = k * OH * OW;
      for (let c = 0; c < C; c++)
        for (let r = 0; r < R; r++)
          for (let s = 0; s < S; s++) {
            const wv = w[((k * C + c) * R + r) * S + s]!;
            if (wv === 0) continue;
            for (let oy = 0; oy < OH; oy++) {
              const inRow = (c * Hp + oy * g.strideY + r * g.dilationY) * Wp + s * g.dilationX;
              const o = outBase + oy * OW;
              if (sx === 1) for (let ox = 0; ox < OW; ox++) acc[o + ox] += wv * padded[inRow + ox]!;
              else for (let ox = 0, ix = inRow; ox < OW; ox++, ix += sx) acc[o + ox] += wv * padded[ix]!;
            }
          }
    }
    return acc;
  }
  const T = C * R * S;
  const taps = new Int32Array(T);
  for (let c = 0, t = 0; c < C; c++) for (let r = 0; r < R; r++) for (let s = 0; s < S; s++, t++) taps[t] = (c * Hp + r * g.dilationY) * Wp + s * g.dilationX;
  for (let oy = 0; oy < OH; oy++)
    for (let ox = 0; ox < OW; ox++) {
      const base = oy * g.strideY * Wp + ox * g.strideX;
      for (let k = 0, wk = 0; k < K; k++, wk += T) {
        let sum = 0;
        for (let t = 0; t < T; t++) sum += w[wk + t]! * padded[base + taps[t]!]!;
        acc[(k * OH + oy) * OW + ox] = sum;
      }
    }
  return acc;
}

export interface ConvOptions {
  /** float kernels for fp16 convolutions (float32 accumulation); int8 always sums exactly */
  kernels?: Kernels;
}

export interface ConvResult {
  stream: Stream;
  output: EngineOutput;
  /** the convolution in standard terms, for tests and the UI */
  geometry: ConvGeometry;
  /** what computes other than the network meant (the post-extension layout of nvdla_compiler) */
  warnings: DlaWarning[];
}

/**
 * The kernel rows the CSC uses for rows 0 .. R - 1 when nvdla_compiler laid the weights out
 * (-1: none of this kernel's); the layout itself is described at `nvdlaCompilerPostExtRows`
 * (core/nvdla/engine/weights.ts, which writes it under `--post-ext-weights nvdla_compiler`).
 */
export const postExtensionRows = nvdlaCompilerPostExtRows;

/** What a post-extended weight blob shows of nvdla_compiler's layout (`postExtensionLayoutEvidence`). */
export interface PostExtensionEvidence {
  /** places that layout fills from a kernel value it also writes somewhere else */
  repeats: number;
  /** of those, places whose value differs from the other copy: that layout did not write this blob */
  mismatches: number;
}

/**
 * Whether post-extended weights were laid out as nvdla_compiler lays them, from the weights alone.
 * `decoded` holds them as the CSC reads them, (k x C + c) x R + p for stripe row p. nvdla_compiler
 * fills place (k, c, p) from pre-extended weight (k x C + c) x R + row(p) (row(p) =
 * floor(p / ext) x atomicC / C + p mod ext in full stripes, p after them; past R it runs into the
 * next channel's rows, as its pointer arithmetic does), so where it takes one weight twice both
 * places hold the same value. LeNet's conv1 (rows 0, 1, 3, 4, 4) repeats row 4 of every kernel and
 * channel. Weights laid out as the CSC reads them (NPU Studio's compiler) hold two different
 * kernel rows there. No repeats: the blob cannot tell.
 */
export function postExtensionLayoutEvidence(decoded: Float32Array, K: number, C: number, R: number, ext: number, atomicC: number): PostExtensionEvidence {
  const fullRows = Math.floor(atomicC / C);
  const fullStripes = Math.floor(R / ext);
  const total = K * C * R;
  const first = new Map<number, number>();
  let repeats = 0;
  let mismatches = 0;
  for (let kc = 0; kc < K * C; kc++)
    for (let p = 0; p < R; p++) {
      const row = p < fullStripes * ext ? Math.floor(p / ext) * fullRows + (p % ext) : p;
      const from = kc * R + row;
      if (from >= total) continue; // past the blob upstream reads memory we cannot know
      const place = kc * R + p;
      const seen = first.get(from);
      if (seen === undefined) {
        first.set(from, place);
        continue;
      }
      repeats++;
      if (!Object.is(decoded[seen], decoded[place])) mismatches++;
    }
  return { repeats, mismatches };
}

/** the layout evidence of decoded image weights, kept with them (the weight cache reuses the array across runs) */
const layoutEvidence = new WeakMap<Float32Array, PostExtensionEvidence>();

export function runConv(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct, options: ConvOptions = {}): ConvResult {
  const n = (p: string) => num(ctx, op, p, 'op');
  if (n('conv_mode') !== 0) fail(ctx, 'unsupported', 'op.conv_mode', `${n('conv_mode')} (Winograd) is not modelled; no compiler here emits it`);
  if (n('weight_format') !== 0) fail(ctx, 'unsupported', 'op.weight_format', `${n('weight_format')} (compressed weights) is not modelled`);
  if (n('batch') > 1) fail(ctx, 'unsupported', 'op.batch', `${n('batch')} batches in one op are not modelled (compilers here emit one op slot per batch)`);
  const inPrec = n('in_precision');
  const outPrec = n('out_precision');
  if (inPrec > 2) fail(ctx, 'corrupt', 'op.in_precision', `${inPrec} is not INT8 (0), INT16 (1) or FP16 (2)`);
  if (outPrec > 2) fail(ctx, 'corrupt', 'op.out_precision', `${outPrec} is not INT8 (0), INT16 (1) or FP16 (2)`);
  const isFloat = outPrec === PRECISION.FP16;
  const dataFormat = n('data_format');
  const src = cubeOf(surface, 'src_data');
  const dst = cubeOf(surface, 'dst_data');
  const wt = cubeOf(surface, 'weight_data');
  if (!src || !dst || !wt) fail(ctx, 'corrupt', 'surface', 'the conv surface descriptor is incomplete');
  if (dst.type !== MEM_TYPE.HW) fail(ctx, 'unsupported', 'surface.dst_data.type', `${dst.type}: CONV output goes to the SDP on the fly (HW, 2) in NVDLA v1`);
  const K = dst.channel;
  const inC = n('input_channel_csc');
  const kC = n('kernel_channel_csc');
  const R = n('kernel_height_csc');
  const kS = n('kernel_width_csc');
  if (K === 0 || kC === 0 || R === 0 || kS === 0) fail(ctx, 'corrupt', 'op.kernel_channel_csc', `kernel ${kS}x${R}x${kC} for ${K} kernels is empty`);
  const geometry: ConvGeometry = {
    inC,
    inH: src.height,
    inW: src.width,
    K,
    R,
    S: kS,
    outH: dst.height,
    outW: dst.width,
    strideX: n('conv_stride_x'),
    strideY: n('conv_stride_y'),
    dilationX: Math.max(1, n('dilation_x')),
    dilationY: Math.max(1, n('dilation_y')),
    padLeft: n('pad_x_left'),
    padTop: n('pad_y_top'),
  };
  if (geometry.strideX < 1 || geometry.strideY < 1) fail(ctx, 'corrupt', 'op.conv_stride_x', `stride ${geometry.strideX}x${geometry.strideY} is below 1`);
  if (n('input_width_cmac') !== dst.width || n('input_height_cmac') !== dst.height) {
    fail(ctx, 'corrupt', 'op.input_width_cmac', `CMAC size ${n('input_width_cmac')}x${n('input_height_cmac')} differs from the output cube ${dst.width}x${dst.height}`);
  }

  // ---- input
  let input: Float32Array;
  const isImage = dataFormat !== FEATURE;
  const padBits = n('pad_val');
  const padValue = isFloat ? halfTable()[padBits & 0xffff]! : padBits;
  if (!isImage) {
    if (src.type === MEM_TYPE.HW) fail(ctx, 'corrupt', 'surface.src_data.type', 'CONV reads its input from memory');
    if (src.channel !== inC) fail(ctx, 'corrupt', 'op.input_channel_csc', `${inC} differs from the input cube's ${src.channel} channels`);
    if (kC !== inC) fail(ctx, 'corrupt', 'op.kernel_channel_csc', `${kC} differs from the ${inC} input channels`);
    if (inPrec !== outPrec) fail(ctx, 'corrupt', 'op.in_precision', `feature input ${inPrec} with output precision ${outPrec}: direct convolution does not convert precision`);
    input = readFeature(featureRef(ctx, src, inPrec, 'src_data'), src, inPrec, ctx.hw.atomBytes);
  } else {
    const layout = PIXEL_LAYOUTS[dataFormat];
    if (!layout) fail(ctx, 'unsupported', 'op.data_format', `pixel format ${dataFormat} is not modelled (R8, R16, A16B16G16R16(_F), X16B16G16R16, A8B8G8R8, X8B8G8R8 are)`);
    if (inC > layout.channels) fail(ctx, 'corrupt', 'op.input_channel_csc', `${inC} channels from ${layout.name}, which has ${layout.channels}`);
    if (layout.kind === 'fp16' && !isFloat) fail(ctx, 'corrupt', 'op.out_precision', `an fp16 image (${layout.name}) converts only to FP16`);
    if (src.type === MEM_TYPE.HW) fail(ctx, 'corrupt', 'surface.src_data.type', 'CONV reads its input from memory');
    const ref = ctx.mem.resolve(ctx.task, ctx.taskIndex, src.address, src.offset, imageExtent(src, layout), ctx.place, 'surface.src_data.address');
    input = readImage(ref, src, layout, inC, n('pixel_override') === 1);
    const means = [n('mean_ry'), n('mean_gu'), n('mean_bv'), n('mean_ax')];
    const meanOn = n('mean_format') === 1;
    if (layout.kind === 'int') {
      const cvtOn = valueOf(op, 'in_cvt.enable') === 1;
      const offset = n('in_cvt.offset');
      const scale = n('in_cvt.scale');
      const truncate = n('in_cvt.truncate');
      const bits = outPrec === PRECISION.INT8 ? 8 : 16;
      const plane = src.width * src.height;
      for (let c = 0; c < inC; c++) {
        const mean = meanOn ? means[c]! : 0;
        for (let i = c * plane; i < (c + 1) * plane; i++) {
          const v = input[i]! - mean;
          // to fp16: the convertor's 17-bit result becomes a float (FpIntToFloat)
          input[i] = cvtOn ? (isFloat ? convert(v, offset, scale, truncate, 17) : convert(v, offset, scale, truncate, bits, 17)) : v;
        }
      }
    } else if (meanOn) {
      const plane = src.width * src.height;
      for (let c = 0; c < inC; c++) for (let i = c * plane; i < (c + 1) * plane; i++) input[i] = Math.fround(input[i]! - halfTable()[means[c]! & 0xffff]!);
    }
    if (kC % inC !== 0) fail(ctx, 'corrupt', 'op.kernel_channel_csc', `${kC} pre-extended channels are not a multiple of the image's ${inC}`);
    if (kS !== 1) fail(ctx, 'corrupt', 'op.kernel_width_csc', `${kS}: image weights are pre-extended to width 1`);
  }

  // ---- weights
  // weights come in the pipeline's precision (hw/format.rst, precision conversion table)
  const eb = elementBytes(outPrec);
  const isInt = !isFloat;
  const kernelsPerGroup = eb === 1 ? ctx.hw.atomicK : ctx.hw.atomicK / 2;
  const bytesPerKernel = n('bytes_per_kernel');
  if (bytesPerKernel !== kC * R * kS * eb) fail(ctx, 'corrupt', 'op.bytes_per_kernel', `${bytesPerKernel} differs from ${kS}x${R}x${kC} elements of ${eb} byte(s)`);
  const wBytes = directWeightBytes(K, kC, R, kS, eb);
  if (wt.size < wBytes) fail(ctx, 'corrupt', 'surface.weight_data.size', `${wt.size} bytes hold less than ${K} kernels of ${bytesPerKernel} bytes`);
  const wRef = ctx.mem.resolve(ctx.task, ctx.taskIndex, wt.address, wt.offset, wBytes, ctx.place, 'surface.weight_data.address');
  const postExtension = n('post_extension');
  const warnings: DlaWarning[] = [];
  if (isImage && postExtension > 0) {
    if (postExtension > 2) fail(ctx, 'corrupt', 'op.post_extension', `${postExtension}: the CSC extends by 2 (1) or 4 (2) lines`);
    if (kC > ctx.hw.atomicC) fail(ctx, 'corrupt', 'op.post_extension', `post-extension needs the ${kC} pre-extended channels to fit one atom of ${ctx.hw.atomicC}`);
  }
  // decoded weights are kept across runs while their memory holds what the loadable set
  const cacheable = ctx.cache !== null && ctx.mem.isPristine(wRef.memId);
  const key = `${wRef.memId}:${wRef.base}:${K}:${kC}:${R}:${kS}:${eb}:${isInt ? 'i' : 'f'}:${postExtension}:${isImage ? inC : 0}:${ctx.hw.atomicC}:${kernelsPerGroup}`;
  let weights = cacheable ? ctx.cache!.weights.get(key) : undefined;
  if (!weights) {
    weights = isImage && postExtension > 0 ? decodePostExtendedWeights(wRef.buf, wRef.base, K, kC, R, eb, isInt, kernelsPerGroup, 1 << postExtension) : decodeDirectWeights(wRef.buf, wRef.base, K, kC, R, kS, eb, isInt, ctx.hw.atomicC, kernelsPerGroup);
    const evidence = isImage && postExtension > 0 ? postExtensionLayoutEvidence(weights, K, kC, R, 1 << postExtension, ctx.hw.atomicC) : null;
    // image: pre-extended channel c' = s x C + c back to (c, s)
    if (isImage) {
      const S = kC / inC;
      const std = new Float32Array(K * inC * R * S);
      for (let k = 0; k < K; k++)
        for (let cp = 0; cp < kC; cp++) {
          const s = Math.floor(cp / inC);
          const c = cp % inC;
          for (let r = 0; r < R; r++) std[((k * inC + c) * R + r) * S + s] = weights[(k * kC + cp) * R + r]!;
        }
      weights = std;
    }
    if (evidence) layoutEvidence.set(weights, evidence);
    if (cacheable) ctx.cache!.weights.set(key, weights);
  }
  if (isImage) geometry.S = kC / inC;
  if (isImage && postExtension > 0) {
    const ext = 1 << postExtension;
    const rows = postExtensionRows(R, ext, kC, ctx.hw.atomicC);
    const evidence = layoutEvidence.get(weights) ?? { repeats: 0, mismatches: 0 };
    // the layouts differ, and the weights do not show the CSC's (a repeat that does not hold)
    if (rows.some((r, p) => r !== p) && evidence.mismatches === 0) {
      const apart = Math.floor(ctx.hw.atomicC / kC);
      const misread = `the CSC multiplies input rows 0..${R - 1} by kernel rows ${rows.map((r) => (r < 0 ? '?' : r)).join(', ')}: the convolution differs from the network's (an upstream layout bug; the model computes what the hardware would)`;
      warnings.push(
        dlaWarning(
          ctx.place,
          'op.post_extension',
          `${postExtension} (${ext} kernel rows a stripe) with ${kC} pre-extended channels on ${ctx.hw.name} (atomic C ${ctx.hw.atomicC}): ` +
            (evidence.repeats > 0
              ? `the weights are laid out as nvdla_compiler lays them, ${apart} rows apart a stripe (they repeat a kernel row wherever that layout does, ${evidence.repeats} places), so ${misread}. NPU Studio's compiler lays them out as the CSC reads them unless told --post-ext-weights nvdla_compiler`
              : `nvdla_compiler lays such weights out ${apart} rows apart a stripe, and these weights cannot show which layout wrote them; if nvdla_compiler did, ${misread}`),
        ),
      );
    }
  }

  // ---- multiply-accumulate
  let acc: Float64Array;
  const k = options.kernels;
  if (isFloat && k && padValue === 0) {
    acc = floatKernelConv(k, input, weights, geometry, cacheable ? ctx.cache : null, key);
  } else {
    acc = convolve(input, weights, geometry, padValue);
  }
  let saturated = 0;
  const data = new Float64Array(acc.length);
  if (isFloat) {
    for (let i = 0; i < acc.length; i++) data[i] = Math.fround(acc[i]!);
  } else {
    const clip = n('out_cvt.truncate');
    const max = 2147483647;
    for (let i = 0; i < acc.length; i++) {
      let v = roundShiftRight(acc[i]!, clip);
      if (v > max) (v = max), saturated++;
      else if (v < -2147483648) (v = -2147483648), saturated++;
      data[i] = v;
    }
  }
  const stream: Stream = { channel: K, height: dst.height, width: dst.width, kind: isFloat ? 'float' : 'int', precision: outPrec, data };
  return {
    stream,
    output: { channel: K, height: dst.height, width: dst.width, precision: isFloat ? 'FP32' : 'INT32', where: 'stream', data, saturated },
    geometry,
    warnings,
  };
}

/** fp16 convolution through the float kernels (zero padding only), float32 accumulation. */
function floatKernelConv(k: Kernels, input: Float32Array, w: Float32Array, g: ConvGeometry, cache: DlaRunCache | null, key: string): Float64Array {
  // the kernels compute Caffe's geometry: pad both sides equally and take the output size from it,
  // so pad the input ourselves to the exact extent and call them unpadded
  const Hp = Math.max(g.inH + g.padTop, (g.outH - 1) * g.strideY + (g.R - 1) * g.dilationY + 1);
  const Wp = Math.max(g.inW + g.padLeft, (g.outW - 1) * g.strideX + (g.S - 1) * g.dilationX + 1);
  const x = k.alloc(g.inC * Hp * Wp);
  for (let c = 0; c < g.inC; c++)
    for (let y = 0; y < g.inH; y++) {
      const py = y + g.padTop;
      if (py >= Hp) continue;
      const row = (c * Hp + py) * Wp + g.padLeft;
      const len = Math.min(g.inW, Wp - g.padLeft);
      x.set(input.subarray((c * g.inH + y) * g.inW, (c * g.inH + y) * g.inW + len), row);
    }
  // weights kept in the kernels' memory across runs are packed once (the kernels key packing by array)
  if (cache && cache.kernels !== k) {
    cache.kernels = k;
    cache.kernelWeights.clear();
  }
  let wt = cache?.kernelWeights.get(key);
  const kept = wt !== undefined;
  if (!wt) {
    wt = k.alloc(w.length);
    wt.set(w);
    cache?.kernelWeights.set(key, wt);
  }
  const outH = Math.floor((Hp - ((g.R - 1) * g.dilationY + 1)) / g.strideY) + 1;
  const outW = Math.floor((Wp - ((g.S - 1) * g.dilationX + 1)) / g.strideX) + 1;
  const y = k.alloc(g.K * outH * outW);
  k.conv2d(
    { batch: 1, inChannels: g.inC, inHeight: Hp, inWidth: Wp, outChannels: g.K, kernelH: g.R, kernelW: g.S, strideH: g.strideY, strideW: g.strideX, padH: 0, padW: 0, dilationH: g.dilationY, dilationW: g.dilationX, group: 1 },
    x,
    wt,
    null,
    y,
  );
  const out = new Float64Array(g.K * g.outH * g.outW);
  for (let kk = 0; kk < g.K; kk++)
    for (let oy = 0; oy < g.outH; oy++)
      for (let ox = 0; ox < g.outW; ox++) out[(kk * g.outH + oy) * g.outW + ox] = y[(kk * outH + oy) * outW + ox]!;
  k.free(x);
  if (!kept && !cache) {
    k.forget(wt);
    k.free(wt);
  }
  k.free(y);
  return out;
}
