/**
 * Neural-network kernels (float only): CONV_2D, DEPTHWISE_CONV_2D, AVERAGE_POOL_2D, MAX_POOL_2D,
 * FULLY_CONNECTED, SOFTMAX, INSTANCE_NORM, BATCH_MATMUL. Sums accumulate in float64 and the result
 * is rounded once to float32, then the fused activation applies.
 */
import { broadcastIndex, broadcastShape } from './elementwise';
import { invalid, unsupported } from './errors';
import { fusedActivation, input, optBool, optNumber, optionalInput, shapeString, type KernelContext, type Kernel } from './kernel';
import { elementCount, fromNumbers, isFloat, toNumbers, type TensorValue } from './tensor';

function floatInput(ctx: KernelContext, i: number, what: string): TensorValue {
  const t = input(ctx, i);
  if (!isFloat(t.dtype)) unsupported(`${what} of type ${t.dtype} is not supported (float only)`);
  return t;
}

function optionalFloatInput(ctx: KernelContext, i: number, what: string): TensorValue | null {
  const t = optionalInput(ctx, i);
  if (t && !isFloat(t.dtype)) unsupported(`${what} of type ${t.dtype} is not supported (float only)`);
  return t;
}

export interface Window {
  out: number;
  /** padding before the first element (TFLite: total padding / 2, the odd one goes after) */
  before: number;
}

/**
 * Output size and leading padding as TFLite computes them (ComputePaddingHeightWidth):
 * SAME: out = ceil(in / stride), total = max((out - 1) * stride + effective_filter - in, 0),
 * before = floor(total / 2); VALID: out = floor((in - effective_filter) / stride) + 1, before = 0.
 */
export function window(inSize: number, filter: number, stride: number, dilation: number, padding: number): Window {
  if (stride <= 0 || dilation <= 0 || filter <= 0) invalid(`stride ${stride}, dilation ${dilation} and filter ${filter} must be positive`);
  const eff = (filter - 1) * dilation + 1;
  if (padding === 0) {
    const out = Math.ceil(inSize / stride);
    const total = Math.max((out - 1) * stride + eff - inSize, 0);
    return { out, before: Math.floor(total / 2) };
  }
  if (padding !== 1) unsupported(`padding ${padding} is not supported`);
  const out = Math.floor((inSize - eff + stride) / stride);
  if (out <= 0) invalid(`a filter of ${eff} does not fit an input of ${inSize} with VALID padding`);
  return { out, before: 0 };
}

function rank4(t: TensorValue, what: string): [number, number, number, number] {
  if (t.shape.length !== 4) invalid(`${what} must have rank 4, got ${shapeString(t.shape)}`);
  return [t.shape[0]!, t.shape[1]!, t.shape[2]!, t.shape[3]!];
}

function dilation(ctx: KernelContext, name: string): number {
  const d = optNumber(ctx, name, 1);
  return d === 0 ? 1 : d;
}

function conv2d(ctx: KernelContext, depthwise: boolean): TensorValue[] {
  const x = floatInput(ctx, 0, 'input');
  const w = floatInput(ctx, 1, 'filter');
  const b = optionalFloatInput(ctx, 2, 'bias');
  const [N, H, W, C] = rank4(x, 'input');
  const [FO, KH, KW, FI] = rank4(w, 'filter');
  const sh = optNumber(ctx, 'stride_h', 1);
  const sw = optNumber(ctx, 'stride_w', 1);
  const dh = dilation(ctx, 'dilation_h_factor');
  const dw = dilation(ctx, 'dilation_w_factor');
  const padding = optNumber(ctx, 'padding', 0);
  const wy = window(H, KH, sh, dh, padding);
  const wx = window(W, KW, sw, dw, padding);
  let O: number;
  let inChannel: (oc: number, ci: number) => number;
  let weightIndex: (oc: number, ky: number, kx: number, ci: number) => number;
  let depth: number;
  if (depthwise) {
    // filter [1, KH, KW, C * multiplier]; the multiplier follows from the shapes as TFLite does
    if (FO !== 1) invalid(`depthwise filter ${shapeString(w.shape)} must have a leading 1`);
    O = FI;
    if (O % C !== 0) invalid(`depthwise filter channels ${O} are not a multiple of input channels ${C}`);
    const mult = O / C;
    depth = 1;
    inChannel = (oc) => Math.floor(oc / mult);
    weightIndex = (oc, ky, kx) => (ky * KW + kx) * O + oc;
  } else {
    // filter [O, KH, KW, C / groups]
    O = FO;
    if (FI <= 0 || C % FI !== 0) invalid(`filter input channels ${FI} do not divide input channels ${C}`);
    const groups = C / FI;
    if (O % groups !== 0) invalid(`output channels ${O} are not a multiple of the ${groups} groups`);
    const perGroup = O / groups;
    depth = FI;
    inChannel = (oc, ci) => Math.floor(oc / perGroup) * FI + ci;
    weightIndex = (oc, ky, kx, ci) => ((oc * KH + ky) * KW + kx) * FI + ci;
  }
  if (b && elementCount(b.shape) !== O) invalid(`bias ${shapeString(b.shape)} does not match ${O} output channels`);
  const xs = toNumbers(x);
  const ws = toNumbers(w);
  const bs = b ? toNumbers(b) : null;
  const act = fusedActivation(ctx, x.dtype);
  const outShape = [N, wy.out, wx.out, O];
  const out = new Float64Array(elementCount(outShape));
  let o = 0;
  for (let n = 0; n < N; n++)
    for (let oy = 0; oy < wy.out; oy++)
      for (let ox = 0; ox < wx.out; ox++)
        for (let oc = 0; oc < O; oc++) {
          let sum = bs ? bs[oc]! : 0;
          for (let ky = 0; ky < KH; ky++) {
            const iy = oy * sh - wy.before + ky * dh;
            if (iy < 0 || iy >= H) continue;
            for (let kx = 0; kx < KW; kx++) {
              const ix = ox * sw - wx.before + kx * dw;
              if (ix < 0 || ix >= W) continue;
              const base = ((n * H + iy) * W + ix) * C;
              if (depth === 1) sum += xs[base + inChannel(oc, 0)]! * ws[weightIndex(oc, ky, kx, 0)]!;
              else {
                // regular conv: FI contiguous input channels against FI contiguous weights
                const xb = base + inChannel(oc, 0);
                const wb = weightIndex(oc, ky, kx, 0);
                for (let ci = 0; ci < depth; ci++) sum += xs[xb + ci]! * ws[wb + ci]!;
              }
            }
          }
          out[o++] = act(sum);
        }
  return [fromNumbers(x.dtype, outShape, out)];
}

function pool(kind: 'average' | 'max'): Kernel {
  return (ctx) => {
    const x = floatInput(ctx, 0, 'input');
    const [N, H, W, C] = rank4(x, 'input');
    const fh = optNumber(ctx, 'filter_height', 1);
    const fw = optNumber(ctx, 'filter_width', 1);
    const sh = optNumber(ctx, 'stride_h', 1);
    const sw = optNumber(ctx, 'stride_w', 1);
    const padding = optNumber(ctx, 'padding', 0);
    const wy = window(H, fh, sh, 1, padding);
    const wx = window(W, fw, sw, 1, padding);
    const xs = toNumbers(x);
    const act = fusedActivation(ctx, x.dtype);
    const outShape = [N, wy.out, wx.out, C];
    const out = new Float64Array(elementCount(outShape));
    let o = 0;
    for (let n = 0; n < N; n++)
      for (let oy = 0; oy < wy.out; oy++) {
        const y0 = oy * sh - wy.before;
        const ys = Math.max(0, y0);
        const ye = Math.min(H, y0 + fh);
        for (let ox = 0; ox < wx.out; ox++) {
          const x0 = ox * sw - wx.before;
          const xs0 = Math.max(0, x0);
          const xe = Math.min(W, x0 + fw);
          for (let c = 0; c < C; c++) {
            // only the elements inside the input count (TFLite's filter_count)
            let acc = kind === 'max' ? -Infinity : 0;
            let count = 0;
            for (let iy = ys; iy < ye; iy++)
              for (let ix = xs0; ix < xe; ix++) {
                const v = xs[((n * H + iy) * W + ix) * C + c]!;
                if (kind === 'max') acc = v > acc ? v : acc;
                else acc += v;
                count++;
              }
            if (count === 0) invalid('a pooling window lies entirely in the padding');
            out[o++] = act(kind === 'max' ? acc : acc / count);
          }
        }
      }
    return [fromNumbers(x.dtype, outShape, out)];
  };
}

function fullyConnected(ctx: KernelContext): TensorValue[] {
  const x = floatInput(ctx, 0, 'input');
  const w = floatInput(ctx, 1, 'weights (hybrid or quantized weights)');
  const b = optionalFloatInput(ctx, 2, 'bias');
  if (optNumber(ctx, 'weights_format', 0) !== 0) unsupported('weights_format other than DEFAULT is not supported');
  if (w.shape.length !== 2) invalid(`weights must be [out, in], got ${shapeString(w.shape)}`);
  const [O, K] = [w.shape[0]!, w.shape[1]!];
  const size = elementCount(x.shape);
  if (K === 0 || size % K !== 0) invalid(`input ${shapeString(x.shape)} does not flatten to rows of ${K}`);
  const batches = size / K;
  const keep = optBool(ctx, 'keep_num_dims');
  if (keep && x.shape[x.shape.length - 1] !== K) invalid(`keep_num_dims needs the input's last dimension to be ${K}`);
  if (b && elementCount(b.shape) !== O) invalid(`bias ${shapeString(b.shape)} does not match ${O} outputs`);
  const outShape = keep ? [...x.shape.slice(0, -1), O] : [batches, O];
  const xs = toNumbers(x);
  const ws = toNumbers(w);
  const bs = b ? toNumbers(b) : null;
  const act = fusedActivation(ctx, x.dtype);
  const out = new Float64Array(batches * O);
  for (let r = 0; r < batches; r++)
    for (let oc = 0; oc < O; oc++) {
      let sum = bs ? bs[oc]! : 0;
      for (let k = 0; k < K; k++) sum += xs[r * K + k]! * ws[oc * K + k]!;
      out[r * O + oc] = act(sum);
    }
  return [fromNumbers(x.dtype, outShape, out)];
}

function softmax(ctx: KernelContext): TensorValue[] {
  const x = floatInput(ctx, 0, 'input');
  const beta = optNumber(ctx, 'beta', 1);
  const depth = x.shape[x.shape.length - 1] ?? 1;
  const xs = toNumbers(x);
  const out = new Float64Array(xs.length);
  for (let r = 0; r < xs.length; r += depth) {
    let max = -Infinity;
    for (let i = 0; i < depth; i++) max = Math.max(max, xs[r + i]!);
    let sum = 0;
    for (let i = 0; i < depth; i++) {
      const e = Math.exp((xs[r + i]! - max) * beta);
      out[r + i] = e;
      sum += e;
    }
    for (let i = 0; i < depth; i++) out[r + i] = out[r + i]! / sum;
  }
  return [fromNumbers(x.dtype, x.shape, out)];
}

/**
 * INSTANCE_NORM (circle builtin -2) as luci-interpreter's kernel: per batch and channel, mean and
 * variance (E[x^2] - E[x]^2, in float64) over the spatial elements, then
 * `x * gamma / sqrt(var + epsilon) + (beta - mean * gamma / sqrt(var + epsilon))`, rounded to
 * float32, then the fused activation. Rank 4 is NHWC (over H, W); rank 3 is N, C, D (over D).
 * gamma and beta are per channel or a single value.
 */
function instanceNorm(ctx: KernelContext): TensorValue[] {
  const x = floatInput(ctx, 0, 'input');
  const gamma = floatInput(ctx, 1, 'gamma');
  const beta = floatInput(ctx, 2, 'beta');
  const epsilon = optNumber(ctx, 'epsilon', 0);
  const rank = x.shape.length;
  if (rank !== 4 && rank !== 3) unsupported(`INSTANCE_NORM of rank ${rank} is not supported (rank 3 or 4)`);
  const N = x.shape[0]!;
  const C = rank === 4 ? x.shape[3]! : x.shape[1]!;
  const size = rank === 4 ? x.shape[1]! * x.shape[2]! : x.shape[2]!;
  // element (n, c, s): NHWC -> (n * size + s) * C + c; NCD -> (n * C + c) * size + s
  const at = rank === 4 ? (n: number, c: number, s: number) => (n * size + s) * C + c : (n: number, c: number, s: number) => (n * C + c) * size + s;
  const gs = toNumbers(gamma);
  const bs = toNumbers(beta);
  for (const [t, what] of [
    [gs, 'gamma'],
    [bs, 'beta'],
  ] as const)
    if (t.length !== 1 && t.length !== C) invalid(`${what} has ${t.length} values, expected 1 or ${C}`);
  const xs = toNumbers(x);
  const act = fusedActivation(ctx, x.dtype);
  const out = new Float64Array(xs.length);
  for (let n = 0; n < N; n++)
    for (let c = 0; c < C; c++) {
      let sum = 0;
      let squares = 0;
      for (let s = 0; s < size; s++) {
        const v = xs[at(n, c, s)]!;
        sum += v;
        squares += v * v;
      }
      const mean = sum / size;
      const variance = squares / size - mean * mean;
      const g = gs.length === 1 ? gs[0]! : gs[c]!;
      const bt = bs.length === 1 ? bs[0]! : bs[c]!;
      const a = g / Math.sqrt(variance + epsilon);
      const b = -mean * a + bt;
      for (let s = 0; s < size; s++) {
        const i = at(n, c, s);
        out[i] = act(xs[i]! * a + b);
      }
    }
  return [fromNumbers(x.dtype, x.shape, out)];
}

function batchMatMul(ctx: KernelContext): TensorValue[] {
  const a = floatInput(ctx, 0, 'lhs');
  const b = floatInput(ctx, 1, 'rhs');
  if (a.shape.length < 2 || b.shape.length < 2) invalid('BATCH_MATMUL inputs need rank 2 or more');
  const adjA = optBool(ctx, 'adjoint_lhs') || optBool(ctx, 'adj_x');
  const adjB = optBool(ctx, 'adjoint_rhs') || optBool(ctx, 'adj_y');
  const ar = a.shape.length;
  const br = b.shape.length;
  const [aRows, aCols] = [a.shape[ar - 2]!, a.shape[ar - 1]!];
  const [bRows, bCols] = [b.shape[br - 2]!, b.shape[br - 1]!];
  const M = adjA ? aCols : aRows;
  const K = adjA ? aRows : aCols;
  const K2 = adjB ? bCols : bRows;
  const Nn = adjB ? bRows : bCols;
  if (K !== K2) invalid(`inner dimensions differ: ${shapeString(a.shape)} x ${shapeString(b.shape)}`);
  const batchA = a.shape.slice(0, -2);
  const batchB = b.shape.slice(0, -2);
  const batch = broadcastShape(batchA, batchB);
  const ia = broadcastIndex(batch, batchA);
  const ib = broadcastIndex(batch, batchB);
  const xs = toNumbers(a);
  const ys = toNumbers(b);
  const round = fusedActivation({ ...ctx, options: {} }, a.dtype);
  const outShape = [...batch, M, Nn];
  const out = new Float64Array(elementCount(outShape));
  let o = 0;
  for (let p = 0; p < ia.length; p++) {
    const baseA = ia[p]! * aRows * aCols;
    const baseB = ib[p]! * bRows * bCols;
    for (let i = 0; i < M; i++)
      for (let j = 0; j < Nn; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) {
          const av = xs[baseA + (adjA ? k * aCols + i : i * aCols + k)]!;
          const bv = ys[baseB + (adjB ? j * bCols + k : k * bCols + j)]!;
          sum += av * bv;
        }
        out[o++] = round(sum);
      }
  }
  return [fromNumbers(a.dtype, outShape, out)];
}

export const NN_KERNELS: Record<string, Kernel> = {
  CONV_2D: (ctx) => conv2d(ctx, false),
  DEPTHWISE_CONV_2D: (ctx) => conv2d(ctx, true),
  AVERAGE_POOL_2D: pool('average'),
  MAX_POOL_2D: pool('max'),
  FULLY_CONNECTED: fullyConnected,
  SOFTMAX: softmax,
  INSTANCE_NORM: instanceNorm,
  BATCH_MATMUL: batchMatMul,
};
