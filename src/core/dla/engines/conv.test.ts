import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { seededRandom } from '../../random';
import { blobBytes, preChnlExtWtsForIMG, translateWtsForDC, weightDims, type BlobType } from '../../nvdla/engine/weights';
import { halfBits, toHalfValue } from '../half';
import { PRECISION } from '../cube';
import { DLA_CONFIGS, type DlaConfigName } from '../hardware';
import { featureBytes, featureCube, opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import { postExtensionLayoutEvidence, postExtensionRows, runConv } from './conv';

const CONV = 1;

interface Case {
  C: number;
  H: number;
  W: number;
  K: number;
  R: number;
  S: number;
  input: number[];
  /** K x C x R x S */
  weights: number[];
  precision?: number;
  pad?: number;
  padVal?: number;
  stride?: number;
  dilation?: number;
  truncate?: number;
  hw?: DlaConfigName;
  op?: StructValues;
}

function outSize(n: number, k: number, pad: number, stride: number, dil: number): number {
  return Math.floor((n + 2 * pad - (dil * (k - 1) + 1)) / stride) + 1;
}

/** The direct layout, written by the compiler's own `translateWtsForDC` (upstream's loops). */
function directWeights(c: Case): Uint8Array {
  const hw = DLA_CONFIGS[c.hw ?? 'nv_full'];
  const isInt = (c.precision ?? PRECISION.INT8) !== PRECISION.FP16;
  const type: BlobType = isInt ? 'INT8' : 'HALF';
  const src = isInt ? Int8Array.from(c.weights) : Uint16Array.from(c.weights, (v) => halfBits(v));
  const blob = translateWtsForDC(weightDims(c.weights.length, c.K, c.C, c.S, c.R, 1, 1), { type, count: c.weights.length, values: src }, type, hw.atomicK, hw.atomicC, 128);
  return blobBytes(blob);
}

function convCase(c: Case) {
  const precision = c.precision ?? PRECISION.INT8;
  const hw = DLA_CONFIGS[c.hw ?? 'nv_full'];
  const pad = c.pad ?? 0;
  const stride = c.stride ?? 1;
  const dil = c.dilation ?? 1;
  const OH = outSize(c.H, c.R, pad, stride, dil);
  const OW = outSize(c.W, c.S, pad, stride, dil);
  const eb = precision === PRECISION.INT8 ? 1 : 2;
  const wBytes = directWeights(c);
  const ctx = testContext([featureBytes(c.input, c.C, c.H, c.W, precision, hw.atomBytes), wBytes], { hw: hw.name, engine: 'CONV' });
  const op = opDesc(CONV, {
    data_format: 36,
    in_precision: precision,
    out_precision: precision,
    batch: 1,
    input_width_csc: c.W,
    input_height_csc: c.H,
    input_channel_csc: c.C,
    kernel_width_csc: c.S,
    kernel_height_csc: c.R,
    kernel_channel_csc: c.C,
    input_width_cmac: OW,
    input_height_cmac: OH,
    bytes_per_kernel: c.C * c.R * c.S * eb,
    conv_stride_x: stride,
    conv_stride_y: stride,
    pad_x_left: pad,
    pad_x_right: pad,
    pad_y_top: pad,
    pad_y_bottom: pad,
    dilation_x: dil,
    dilation_y: dil,
    pad_val: c.padVal ?? 0,
    out_cvt: { scale: 1, truncate: c.truncate ?? 0, enable: 1, offset: 0 },
    ...c.op,
  });
  const surface = surfaceDesc(CONV, {
    weight_data: { type: 0, address: 1, offset: 0, size: wBytes.length, width: c.S, height: c.R, channel: c.C },
    src_data: featureCube(0, c.C, c.H, c.W, precision, hw.atomBytes),
    dst_data: { type: 2, address: -1, width: OW, height: OH, channel: c.K },
  });
  return { ctx, op, surface, OH, OW };
}

/** The textbook convolution (float64), out-of-range taps reading `padVal`. */
function oracle(c: Case): number[] {
  const pad = c.pad ?? 0;
  const stride = c.stride ?? 1;
  const dil = c.dilation ?? 1;
  const OH = outSize(c.H, c.R, pad, stride, dil);
  const OW = outSize(c.W, c.S, pad, stride, dil);
  const out: number[] = [];
  for (let k = 0; k < c.K; k++)
    for (let oy = 0; oy < OH; oy++)
      for (let ox = 0; ox < OW; ox++) {
        let acc = 0;
        for (let ch = 0; ch < c.C; ch++)
          for (let r = 0; r < c.R; r++)
            for (let s = 0; s < c.S; s++) {
              const y = oy * stride + r * dil - pad;
              const x = ox * stride + s * dil - pad;
              const v = y < 0 || y >= c.H || x < 0 || x >= c.W ? (c.padVal ?? 0) : c.input[(ch * c.H + y) * c.W + x]!;
              acc += v * c.weights[((k * c.C + ch) * c.R + r) * c.S + s]!;
            }
        out.push(acc);
      }
  return out;
}

function ints(n: number, lo: number, hi: number, seed: number): number[] {
  const rnd = seededRandom(seed);
  return Array.from({ length: n }, () => lo + Math.floor(rnd() * (hi - lo + 1)));
}

function thrown(f: () => unknown): FormatError {
  try {
    f();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('CONV: int8 direct convolution, CACC truncation', () => {
  const input = [1, 2, 3, 4, 5, 6, 7, 8, 9];
  it('sums exactly and truncates rounding half away from zero (hand computed)', () => {
    // 2x2 kernel [1 1; 0 0] over 3x3 1..9: 1+2, 2+3, 4+5, 5+6 = 3, 5, 9, 11; >> 1: 1.5 2.5 4.5 5.5 -> 2 3 5 6
    const up = convCase({ C: 1, H: 3, W: 3, K: 2, R: 2, S: 2, input, weights: [1, 1, 0, 0, -1, -1, 0, 0], truncate: 1 });
    const r = runConv(up.ctx, up.op, up.surface);
    expect(Array.from(r.output.data)).toEqual([2, 3, 5, 6, -2, -3, -5, -6]);
    expect(r.output.precision).toBe('INT32');
    expect(r.stream.kind).toBe('int');
  });

  it('without truncation passes the exact sums', () => {
    const up = convCase({ C: 1, H: 3, W: 3, K: 1, R: 2, S: 2, input, weights: [1, 0, 0, -1] });
    expect(Array.from(runConv(up.ctx, up.op, up.surface).output.data)).toEqual([-4, -4, -4, -4]);
  });

  it('padded taps read pad_val (hand computed)', () => {
    // 3x3 ones over [1 2; 3 4] padded by 1 with pad_val -1: every window holds the 4 inputs and 5 pads
    const up = convCase({ C: 1, H: 2, W: 2, K: 1, R: 3, S: 3, input: [1, 2, 3, 4], weights: new Array(9).fill(1), pad: 1, padVal: -1 });
    expect(Array.from(runConv(up.ctx, up.op, up.surface).output.data)).toEqual([5, 5, 5, 5]);
  });

  it('saturates the truncated sum to int32', () => {
    // 3x3 x 16384 channels of 127 x 127 = 2.38e9 > 2^31 - 1; the negative kernel gives -2.38e9 < -2^31
    const C = 16384;
    const up = convCase({ C, H: 3, W: 3, K: 2, R: 3, S: 3, input: new Array(C * 9).fill(127), weights: [...new Array(C * 9).fill(127), ...new Array(C * 9).fill(-128)] });
    const r = runConv(up.ctx, up.op, up.surface);
    expect(Array.from(r.output.data)).toEqual([2147483647, -2147483648]);
    expect(r.output.saturated).toBe(2);
  });

  it.each([
    ['nv_full', 70, 40],
    ['nv_small', 10, 12],
  ] as const)('%s: kernel groups and channel groups of the weight layout (C %i, K %i)', (hw, C, K) => {
    const c: Case = { C, H: 5, W: 6, K, R: 3, S: 3, input: ints(C * 30, -128, 127, 1), weights: ints(K * C * 9, -128, 127, 2), pad: 1, stride: 2, hw };
    const up = convCase(c);
    const got = Array.from(runConv(up.ctx, up.op, up.surface).output.data);
    const want = oracle(c);
    expect(got.length).toBe(want.length);
    expect(got.map((v, i) => (v === want[i] ? null : { i, got: v, want: want[i] })).filter((x) => x)).toEqual([]);
  });

  it('dilation spreads the taps', () => {
    const c: Case = { C: 3, H: 7, W: 7, K: 2, R: 3, S: 3, input: ints(147, -20, 20, 3), weights: ints(54, -5, 5, 4), dilation: 2 };
    const up = convCase(c);
    expect(Array.from(runConv(up.ctx, up.op, up.surface).output.data)).toEqual(oracle(c));
  });
});

describe('CONV: fp16', () => {
  it('accumulates fp16 products and delivers float32', () => {
    const rnd = seededRandom(5);
    const c: Case = {
      C: 20,
      H: 6,
      W: 6,
      K: 17,
      R: 3,
      S: 3,
      input: Array.from({ length: 720 }, () => toHalfValue(rnd() * 4 - 2)),
      weights: Array.from({ length: 17 * 20 * 9 }, () => toHalfValue(rnd() - 0.5)),
      precision: PRECISION.FP16,
      pad: 1,
    };
    const up = convCase(c);
    const r = runConv(up.ctx, up.op, up.surface);
    expect(r.output.precision).toBe('FP32');
    const want = oracle(c).map((v) => Math.fround(v));
    expect(Array.from(r.output.data).map((v, i) => (v === want[i] ? null : { i, got: v, want: want[i] })).filter((x) => x)).toEqual([]);
  });
});

describe('CONV: image input', () => {
  /** A8B8G8R8 image of one real channel, 3x3 kernel pre-extended (S x C channels, width 1), as the compiler lays it out. */
  function imageCase(pixels: number[], H: number, W: number, kernel: number[], op: StructValues) {
    const hw = DLA_CONFIGS.nv_full;
    const K = kernel.length / 9;
    const img = new Uint8Array(H * W * 4);
    pixels.forEach((p, i) => (img[i * 4] = p));
    // weights K x 1 x 3 x 3 -> zero padded to 4 channels -> pre-extended to 12 channels x 3 rows x 1
    const padded = new Int8Array(K * 4 * 9);
    for (let k = 0; k < K; k++) for (let i = 0; i < 9; i++) padded[k * 36 + i] = kernel[k * 9 + i]!;
    const pre = preChnlExtWtsForIMG(weightDims(padded.length, K, 4, 3, 3, 1, 1), weightDims(padded.length, K, 12, 1, 3, 1, 1), { type: 'INT8', count: padded.length, values: padded })!;
    const wBytes = blobBytes(translateWtsForDC(weightDims(pre.count, K, 12, 1, 3, 1, 1), pre, 'INT8', hw.atomicK, hw.atomicC, 128));
    const ctx = testContext([img, wBytes], { engine: 'CONV' });
    const opd = opDesc(CONV, {
      data_format: 12, // A8B8G8R8
      in_precision: 0,
      out_precision: 0,
      batch: 1,
      input_channel_csc: 4,
      kernel_width_csc: 1,
      kernel_height_csc: 3,
      kernel_channel_csc: 12,
      input_width_cmac: W - 2,
      input_height_cmac: H - 2,
      bytes_per_kernel: 36,
      conv_stride_x: 1,
      conv_stride_y: 1,
      ...op,
    });
    const surface = surfaceDesc(CONV, {
      weight_data: { type: 0, address: 1, size: wBytes.length },
      src_data: { type: 0, address: 0, size: img.length, width: W, height: H, channel: 4, line_stride: W * 4 },
      dst_data: { type: 2, address: -1, width: W - 2, height: H - 2, channel: K },
    });
    return runConv(ctx, opd, surface);
  }

  it('reads unsigned pixels and undoes the pre-extension (hand computed)', () => {
    // 3x3 window of 200, 201, ... ; kernel: centre 1, corner (0, 0) -1 -> x[1][1] - x[0][0] = 4 everywhere
    const px = Array.from({ length: 16 }, (_, i) => 200 + i);
    const r = imageCase(px, 4, 4, [-1, 0, 0, 0, 1, 0, 0, 0, 0], {});
    expect(Array.from(r.output.data)).toEqual([5, 5, 5, 5]);
    expect(r.geometry.S).toBe(3);
  });

  it('subtracts the mean and applies the CDMA convertor (offset, scale, truncate, 8-bit saturation)', () => {
    // x' = sat8(round((x - mean - offset) x scale / 2^truncate)); 200 -> (200 - 128 - 2) x 3 / 4 = 52.5 -> 53;
    // 255 -> (255 - 130) x 3 / 4 = 93.75 -> 94; 10 -> (10 - 130) x 3 / 4 = -90; 0 -> -97.5 -> -98
    const r = imageCase([200, 255, 10, 0, 200, 255, 10, 0, 200, 255, 10, 0], 3, 4, [1, 0, 0, 0, 0, 0, 0, 0, 0], {
      mean_format: 1,
      mean_ry: 128,
      in_cvt: { enable: 1, offset: 2, scale: 3, truncate: 2 },
    });
    expect(Array.from(r.output.data)).toEqual([53, 94]);
  });

  it('signed pixels when pixel_override is INT', () => {
    const r = imageCase([250, 0, 0, 0, 0, 0, 0, 0, 0], 3, 3, [1, 0, 0, 0, 0, 0, 0, 0, 0], { pixel_override: 1 });
    expect(Array.from(r.output.data)).toEqual([-6]);
  });
});

describe('CONV: post-extension rows of nvdla_compiler', () => {
  it('LeNet conv1 on nv_full: rows 0, 1, 3, 4, 4', () => {
    expect(postExtensionRows(5, 2, 20, 64)).toEqual([0, 1, 3, 4, 4]);
  });
  it('is the identity when atomic C / channels is the extension', () => {
    expect(postExtensionRows(5, 2, 32, 64)).toEqual([0, 1, 2, 3, 4]);
    expect(postExtensionRows(7, 4, 16, 64)).toEqual([0, 1, 2, 3, 4, 5, 6]);
  });
  it('names rows past the kernel', () => {
    expect(postExtensionRows(3, 2, 12, 64)).toEqual([0, 1, 2]);
    expect(postExtensionRows(6, 2, 12, 64)).toEqual([0, 1, 5, -1, -1, -1]);
  });
});

describe('CONV: which layout wrote post-extended weights', () => {
  // LeNet conv1 on nv_full: 20 kernels, 20 pre-extended channels, 5 rows, by 2; every pre-extended weight distinct
  const K = 20;
  const C = 20;
  const R = 5;
  const pre = Float32Array.from({ length: K * C * R }, (_, i) => ((i * 7919) % 1000) / 100 - 5);
  it("nvdla_compiler's layout: the CSC sees row 4 twice (rows 0, 1, 3, 4, 4) in every kernel and channel, and no repeat disagrees", () => {
    const rows = postExtensionRows(R, 2, C, 64);
    const decoded = Float32Array.from({ length: K * C * R }, (_, i) => pre[Math.floor(i / R) * R + rows[i % R]!]!);
    expect(postExtensionLayoutEvidence(decoded, K, C, R, 2, 64)).toEqual({ repeats: K * C, mismatches: 0 });
  });
  it("the CSC's layout (NPU Studio's compiler): the same places hold rows 3 and 4, which differ", () => {
    expect(postExtensionLayoutEvidence(pre, K, C, R, 2, 64)).toEqual({ repeats: K * C, mismatches: K * C });
  });
  it('a blob whose repeats all fall past its end cannot tell', () => {
    // one kernel of one channel, 64 rows apart: stripe 1 would read rows 64 and 65
    expect(postExtensionLayoutEvidence(Float32Array.of(1, 2, 3, 4), 1, 1, 4, 2, 64)).toEqual({ repeats: 0, mismatches: 0 });
  });
});

describe('CONV: what it refuses', () => {
  const base = (): Case => ({ C: 1, H: 3, W: 3, K: 1, R: 2, S: 2, input: [1, 2, 3, 4, 5, 6, 7, 8, 9], weights: [1, 0, 0, 1] });
  it('Winograd, named by its field', () => {
    const up = convCase({ ...base(), op: { conv_mode: 1 } });
    const e = thrown(() => runConv(up.ctx, up.op, up.surface));
    expect(e.info.kind).toBe('unsupported');
    expect(e.info.path).toBe('task[0].slot[0].op.conv_mode');
    expect(e.message).toContain('task 0 (DLA) op slot 0 (CONV)');
  });
  it('bytes_per_kernel that does not match the kernel', () => {
    const up = convCase({ ...base(), op: { bytes_per_kernel: 5 } });
    const e = thrown(() => runConv(up.ctx, up.op, up.surface));
    expect(e.info).toMatchObject({ kind: 'corrupt', path: 'task[0].slot[0].op.bytes_per_kernel' });
  });
  it('an input address past the task', () => {
    const up = convCase(base());
    const surface = surfaceDesc(CONV, {
      weight_data: { type: 0, address: 1, size: 128 },
      src_data: { ...featureCube(7, 1, 3, 3, 0, 32) },
      dst_data: { type: 2, address: -1, width: 2, height: 2, channel: 1 },
    });
    const e = thrown(() => runConv(up.ctx, up.op, surface));
    expect(e.info).toMatchObject({ kind: 'corrupt', path: 'task[0].slot[0].surface.src_data.address' });
    expect(e.message).toContain("past task 0's address list");
  });
  it('an input cube running past its memory', () => {
    const up = convCase(base());
    const surface = surfaceDesc(CONV, {
      weight_data: { type: 0, address: 1, size: 128 },
      src_data: { ...featureCube(0, 1, 3, 3, 0, 32), offset: 64 },
      dst_data: { type: 2, address: -1, width: 2, height: 2, channel: 1 },
    });
    const e = thrown(() => runConv(up.ctx, up.op, surface));
    expect(e.message).toMatch(/run past its 288 bytes/);
  });
});
