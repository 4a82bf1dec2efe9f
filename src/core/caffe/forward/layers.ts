/**
 * Forward computation of each layer type, following Caffe's Forward_cpu (BVLC/caffe
 * src/caffe/layers/*.cpp) in plain TypeScript. Shapes were inferred and checked before a run
 * (shapes.ts), so these functions trust their inputs' shapes. The heavy layers go through
 * `CaffeKernels` (heavy.ts).
 */
import { get, getBool, getNumber, has, message, numbers, type ProtoMessage } from '../proto';
import { canonicalAxis, convGeometry, count, poolGeometry } from '../shapes';
import type { CaffeKernels, Conv2dParams, MaybePromise } from './heavy';
import { elementCount, tensor, type Tensor } from './tensor';

export interface LayerContext {
  layer: ProtoMessage;
  type: string;
  name: string;
  /** the learnable blobs, float32, in Caffe's order */
  weights: Float32Array[];
  /** shapes inferred for the tops */
  topShapes: number[][];
  kernels: CaffeKernels;
}

export type LayerForward = (ctx: LayerContext, bottoms: Tensor[]) => MaybePromise<Tensor[]>;

export class ForwardError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ForwardError';
  }
}

/** An output array: from the kernels' memory when they offer one (reused run after run), else a new one. */
function outputArray(ctx: LayerContext, length: number): Float32Array {
  return ctx.kernels.alloc ? ctx.kernels.alloc(length) : new Float32Array(length);
}

/** `f(v)` of a value that may be a Promise, without making a synchronous kernel asynchronous. */
function then<T, U>(v: MaybePromise<T>, f: (x: T) => U): MaybePromise<U> {
  return v instanceof Promise ? v.then(f) : f(v);
}

function map(x: Tensor, f: (v: number) => number): Tensor[] {
  const out = new Float32Array(x.data.length);
  const d = x.data;
  for (let i = 0; i < d.length; i++) out[i] = f(d[i]!);
  return [{ shape: x.shape.slice(), data: out }];
}

function p(ctx: LayerContext, field: string): ProtoMessage | undefined {
  return message(ctx.layer, field);
}

const sigmoid = (x: number) => 0.5 * Math.tanh(0.5 * x) + 0.5;

async function convolution(ctx: LayerContext, bottoms: Tensor[], deconv: boolean): Promise<Tensor[]> {
  const outs: Tensor[] = [];
  for (const [i, x] of bottoms.entries()) {
    const g = convGeometry(ctx.layer, x.shape);
    if (g.spatialAxes !== 2 || g.channelAxis !== 1 || x.shape.length !== 4) throw new ForwardError(`only 2-D convolution over NCHW blobs runs here; this input is [${x.shape.join(',')}] with channel axis ${g.channelAxis}`);
    const top = ctx.topShapes[i]!;
    const params: Conv2dParams = {
      batch: x.shape[0]!, inChannels: x.shape[1]!, inH: x.shape[2]!, inW: x.shape[3]!,
      outChannels: g.numOutput, outH: top[2]!, outW: top[3]!,
      kernelH: g.kernel[0]!, kernelW: g.kernel[1]!, strideH: g.stride[0]!, strideW: g.stride[1]!,
      padH: g.pad[0]!, padW: g.pad[1]!, dilationH: g.dilation[0]!, dilationW: g.dilation[1]!, group: g.group,
    };
    const bias = g.biasTerm ? ctx.weights[1]! : null;
    const data = deconv ? await ctx.kernels.deconv2d(x.data, ctx.weights[0]!, bias, params) : await ctx.kernels.conv2d(x.data, ctx.weights[0]!, bias, params);
    outs.push(tensor(top.slice(), data));
  }
  return outs;
}

function pooling(ctx: LayerContext, [x]: Tensor[]): MaybePromise<Tensor[]> {
  const g = poolGeometry(ctx.layer, x!.shape);
  const [n, c, h, w] = x!.shape as [number, number, number, number];
  const { pooledH, pooledW, kernelH, kernelW, strideH, strideW, padH, padW } = g;
  const fast = ctx.kernels.pool2d;
  if (fast && ctx.topShapes.length === 1 && (g.method === 'MAX' || g.method === 'AVE')) {
    const shape = [n, c, pooledH, pooledW];
    const params = { method: g.method === 'MAX' ? ('max' as const) : ('ave' as const), batch: n, channels: c, inHeight: h, inWidth: w, outHeight: pooledH, outWidth: pooledW, kernelH, kernelW, strideH, strideW, padH, padW };
    return then(fast.call(ctx.kernels, x!.data, params), (data) => [tensor(shape, data)]);
  }
  const out = new Float32Array(n * c * pooledH * pooledW);
  const src = x!.data;
  // a second top holds the argmax index within the plane (Caffe's top mask), MAX only
  const mask = ctx.topShapes.length > 1 ? new Float32Array(out.length) : null;
  if (mask && g.method !== 'MAX') throw new ForwardError('a second (mask) top is produced only by MAX pooling');
  if (g.method === 'MAX') {
    for (let nc = 0; nc < n * c; nc++) {
      const ib = nc * h * w;
      const ob = nc * pooledH * pooledW;
      for (let ph = 0; ph < pooledH; ph++) {
        let hs = ph * strideH - padH;
        const he = Math.min(hs + kernelH, h);
        hs = Math.max(hs, 0);
        for (let pw = 0; pw < pooledW; pw++) {
          let ws = pw * strideW - padW;
          const we = Math.min(ws + kernelW, w);
          ws = Math.max(ws, 0);
          let m = -3.4028234663852886e38; // -FLT_MAX, as Caffe starts
          let at = -1;
          for (let y = hs; y < he; y++)
            for (let xx = ws; xx < we; xx++)
              if (src[ib + y * w + xx]! > m) {
                m = src[ib + y * w + xx]!;
                at = y * w + xx;
              }
          out[ob + ph * pooledW + pw] = m;
          if (mask) mask[ob + ph * pooledW + pw] = at;
        }
      }
    }
  } else if (g.method === 'AVE') {
    for (let nc = 0; nc < n * c; nc++) {
      const ib = nc * h * w;
      const ob = nc * pooledH * pooledW;
      for (let ph = 0; ph < pooledH; ph++) {
        for (let pw = 0; pw < pooledW; pw++) {
          let hs = ph * strideH - padH;
          let ws = pw * strideW - padW;
          let he = Math.min(hs + kernelH, h + padH);
          let we = Math.min(ws + kernelW, w + padW);
          // Caffe's divisor counts the padding inside the window, but not past it
          const size = (he - hs) * (we - ws);
          hs = Math.max(hs, 0);
          ws = Math.max(ws, 0);
          he = Math.min(he, h);
          we = Math.min(we, w);
          let s = 0;
          for (let y = hs; y < he; y++) for (let xx = ws; xx < we; xx++) s += src[ib + y * w + xx]!;
          out[ob + ph * pooledW + pw] = s / size;
        }
      }
    }
  } else {
    throw new ForwardError(`pooling method ${g.method} has no forward pass (Caffe's CPU forward does not implement STOCHASTIC either)`);
  }
  const shape = [n, c, pooledH, pooledW];
  return mask ? [tensor(shape, out), tensor(shape.slice(), mask)] : [tensor(shape, out)];
}

function lrn(ctx: LayerContext, [x]: Tensor[]): MaybePromise<Tensor[]> {
  const lp = p(ctx, 'lrn_param');
  const T = 'LRNParameter';
  const size = getNumber(lp, T, 'local_size');
  const alpha = getNumber(lp, T, 'alpha');
  const beta = getNumber(lp, T, 'beta');
  const k = getNumber(lp, T, 'k');
  const [n, c, h, w] = x!.shape as [number, number, number, number];
  const fast = ctx.kernels.lrn;
  if (fast && x!.shape.length === 4 && size % 2 === 1) {
    const region = String(get(lp, T, 'norm_region')) === 'WITHIN_CHANNEL' ? ('within' as const) : ('across' as const);
    return then(fast.call(ctx.kernels, x!.data, { region, batch: n, channels: c, height: h, width: w, size, alpha, beta, k }), (data) => [tensor(x!.shape.slice(), data)]);
  }
  const plane = h * w;
  const src = x!.data;
  const out = new Float32Array(src.length);
  const pre = (size - 1) / 2;
  if (String(get(lp, T, 'norm_region')) === 'WITHIN_CHANNEL') {
    // Caffe composes: square, AVE pooling (kernel size, pad pre, stride 1), power (1 + alpha*avg)^-beta, product
    for (let nc = 0; nc < n * c; nc++) {
      const b = nc * plane;
      for (let y = 0; y < h; y++) {
        for (let xx = 0; xx < w; xx++) {
          let hs = y - pre;
          let ws = xx - pre;
          let he = Math.min(hs + size, h + pre);
          let we = Math.min(ws + size, w + pre);
          const poolSize = (he - hs) * (we - ws);
          hs = Math.max(hs, 0);
          ws = Math.max(ws, 0);
          he = Math.min(he, h);
          we = Math.min(we, w);
          let s = 0;
          for (let yy = hs; yy < he; yy++) for (let x2 = ws; x2 < we; x2++) s += Math.fround(src[b + yy * w + x2]! * src[b + yy * w + x2]!);
          const avg = Math.fround(s / poolSize);
          out[b + y * w + xx] = src[b + y * w + xx]! * Math.pow(1 + alpha * avg, -beta);
        }
      }
    }
    return [tensor(x!.shape.slice(), out)];
  }
  // ACROSS_CHANNELS: scale = k + alpha/size * sum of squares over the channel window, kept as a
  // running sum over channels (Caffe adds the head channel and subtracts the tail one)
  const aOverN = alpha / size;
  const sum = new Float64Array(plane);
  for (let ni = 0; ni < n; ni++) {
    const nb = ni * c * plane;
    sum.fill(0);
    for (let cj = 0; cj < Math.min(pre, c); cj++) {
      const b = nb + cj * plane;
      for (let i = 0; i < plane; i++) sum[i]! += src[b + i]! * src[b + i]!;
    }
    for (let ci = 0; ci < c; ci++) {
      const head = ci + pre;
      if (head < c) {
        const b = nb + head * plane;
        for (let i = 0; i < plane; i++) sum[i]! += src[b + i]! * src[b + i]!;
      }
      const tail = ci - pre - 1;
      if (tail >= 0) {
        const b = nb + tail * plane;
        for (let i = 0; i < plane; i++) sum[i]! -= src[b + i]! * src[b + i]!;
      }
      const b = nb + ci * plane;
      if (beta === 0.75) {
        // x^-0.75 = 1 / (sqrt(x) * sqrt(sqrt(x))): the common case, without Math.pow
        for (let i = 0; i < plane; i++) {
          const v = k + aOverN * sum[i]!;
          const r = Math.sqrt(v);
          out[b + i] = src[b + i]! / (r * Math.sqrt(r));
        }
      } else for (let i = 0; i < plane; i++) out[b + i] = src[b + i]! * Math.pow(k + aOverN * sum[i]!, -beta);
    }
  }
  return [tensor(x!.shape.slice(), out)];
}

function batchNorm(ctx: LayerContext, [x]: Tensor[]): MaybePromise<Tensor[]> {
  const bp = p(ctx, 'batch_norm_param');
  const T = 'BatchNormParameter';
  const eps = getNumber(bp, T, 'eps');
  // Caffe: use_global_stats defaults to true in the TEST phase; runs are always TEST-phase
  const useGlobal = has(bp, 'use_global_stats') ? getBool(bp, T, 'use_global_stats') : true;
  const shape = x!.shape;
  const num = shape[0]!;
  const channels = shape.length === 1 ? 1 : shape[1]!;
  const spatial = elementCount(shape) / (num * channels);
  const src = x!.data;
  const mean = new Float64Array(channels);
  const variance = new Float64Array(channels);
  if (useGlobal) {
    const f = ctx.weights[2]![0]!;
    const factor = f === 0 ? 0 : 1 / f;
    for (let c = 0; c < channels; c++) {
      mean[c] = Math.fround(ctx.weights[0]![c]! * factor);
      variance[c] = Math.fround(ctx.weights[1]![c]! * factor);
    }
  } else {
    for (let n = 0; n < num; n++) for (let c = 0; c < channels; c++) for (let i = 0; i < spatial; i++) mean[c]! += src[(n * channels + c) * spatial + i]!;
    for (let c = 0; c < channels; c++) mean[c]! /= num * spatial;
    for (let n = 0; n < num; n++)
      for (let c = 0; c < channels; c++)
        for (let i = 0; i < spatial; i++) {
          const d = src[(n * channels + c) * spatial + i]! - mean[c]!;
          variance[c]! += d * d;
        }
    for (let c = 0; c < channels; c++) variance[c]! /= num * spatial;
  }
  const fast = ctx.kernels.channelAffine;
  if (fast) {
    // (x - mean) / sqrt(var + eps) as x * s + t
    const scale = new Float32Array(channels);
    const shift = new Float32Array(channels);
    for (let c = 0; c < channels; c++) {
      const inv = 1 / Math.sqrt(Math.fround(variance[c]! + eps));
      scale[c] = inv;
      shift[c] = -mean[c]! * inv;
    }
    return then(fast.call(ctx.kernels, src, scale, shift, { batch: num, channels, spatial }), (data) => [tensor(shape.slice(), data)]);
  }
  const out = new Float32Array(src.length);
  for (let n = 0; n < num; n++)
    for (let c = 0; c < channels; c++) {
      const inv = 1 / Math.sqrt(Math.fround(variance[c]! + eps));
      const b = (n * channels + c) * spatial;
      for (let i = 0; i < spatial; i++) out[b + i] = (src[b + i]! - mean[c]!) * inv;
    }
  return [tensor(shape.slice(), out)];
}

/** outer x dim x inner broadcast of `factors` (Scale / Bias). */
function broadcastShape(x: Tensor, factorShape: number[], axisParam: number): { outer: number; dim: number; inner: number } {
  const axis = factorShape.length === 0 ? 0 : canonicalAxis(axisParam, x.shape.length);
  return { outer: count(x.shape, 0, axis), dim: count(factorShape), inner: count(x.shape, axis + factorShape.length) };
}

function scaleLayer(ctx: LayerContext, bottoms: Tensor[]): MaybePromise<Tensor[]> {
  const sp = p(ctx, 'scale_param');
  const T = 'ScaleParameter';
  const x = bottoms[0]!;
  let factors: Float32Array;
  let fshape: number[];
  let wi = 0;
  if (bottoms.length > 1) {
    factors = bottoms[1]!.data;
    fshape = bottoms[1]!.shape;
  } else {
    factors = ctx.weights[0]!;
    wi = 1;
    const axis = canonicalAxis(getNumber(sp, T, 'axis'), x.shape.length);
    const na = getNumber(sp, T, 'num_axes');
    fshape = na === -1 ? x.shape.slice(axis) : x.shape.slice(axis, axis + na);
  }
  const { outer, dim, inner } = broadcastShape(x, fshape, getNumber(sp, T, 'axis'));
  const bias = getBool(sp, T, 'bias_term') ? ctx.weights[wi]! : null;
  const fast = ctx.kernels.channelAffine;
  if (fast && factors.length === dim && (!bias || bias.length === dim)) {
    return then(fast.call(ctx.kernels, x.data, factors, bias, { batch: outer, channels: dim, spatial: inner }), (data) => [tensor(x.shape.slice(), data)]);
  }
  const out = new Float32Array(x.data.length);
  let o = 0;
  for (let a = 0; a < outer; a++)
    for (let d = 0; d < dim; d++) {
      const f = factors[d]!;
      const b = bias ? bias[d]! : 0;
      for (let i = 0; i < inner; i++, o++) out[o] = bias ? Math.fround(x.data[o]! * f) + b : x.data[o]! * f;
    }
  return [tensor(x.shape.slice(), out)];
}

function biasLayer(ctx: LayerContext, bottoms: Tensor[]): Tensor[] {
  const bp = p(ctx, 'bias_param');
  const T = 'BiasParameter';
  const x = bottoms[0]!;
  let bias: Float32Array;
  let bshape: number[];
  if (bottoms.length > 1) {
    bias = bottoms[1]!.data;
    bshape = bottoms[1]!.shape;
  } else {
    bias = ctx.weights[0]!;
    const axis = canonicalAxis(getNumber(bp, T, 'axis'), x.shape.length);
    const na = getNumber(bp, T, 'num_axes');
    bshape = na === -1 ? x.shape.slice(axis) : x.shape.slice(axis, axis + na);
  }
  const { outer, dim, inner } = broadcastShape(x, bshape, getNumber(bp, T, 'axis'));
  const out = new Float32Array(x.data.length);
  let o = 0;
  for (let a = 0; a < outer; a++)
    for (let d = 0; d < dim; d++) {
      const b = bias[d]!;
      for (let i = 0; i < inner; i++, o++) out[o] = x.data[o]! + b;
    }
  return [tensor(x.shape.slice(), out)];
}

async function eltwiseFast(ctx: LayerContext, bottoms: Tensor[], op: 'sum' | 'prod' | 'max', coeff: number[]): Promise<Tensor[]> {
  const k = ctx.kernels.eltwise!.bind(ctx.kernels);
  const c = (i: number) => (coeff.length ? coeff[i]! : 1);
  let y = await k(bottoms[0]!.data, bottoms[1]!.data, { op, coeffA: c(0), coeffB: c(1) });
  // more inputs chain, as Caffe accumulates them: y = op(y, next)
  for (let b = 2; b < bottoms.length; b++) y = await k(y, bottoms[b]!.data, { op, coeffA: 1, coeffB: c(b) });
  return [tensor(bottoms[0]!.shape.slice(), y)];
}

function eltwise(ctx: LayerContext, bottoms: Tensor[]): MaybePromise<Tensor[]> {
  const ep = p(ctx, 'eltwise_param');
  const op = String(get(ep, 'EltwiseParameter', 'operation'));
  const coeff = numbers(ep, 'coeff');
  const n = bottoms[0]!.data.length;
  if (ctx.kernels.eltwise && bottoms.length >= 2 && (op === 'SUM' || op === 'PROD' || op === 'MAX')) return eltwiseFast(ctx, bottoms, op === 'SUM' ? 'sum' : op === 'PROD' ? 'prod' : 'max', coeff);
  const out = new Float32Array(n);
  if (op === 'PROD') {
    out.set(bottoms[0]!.data);
    for (let b = 1; b < bottoms.length; b++) {
      const d = bottoms[b]!.data;
      for (let i = 0; i < n; i++) out[i]! *= d[i]!;
    }
  } else if (op === 'SUM') {
    for (let b = 0; b < bottoms.length; b++) {
      const c = coeff.length ? coeff[b]! : 1;
      const d = bottoms[b]!.data;
      if (c === 1) for (let i = 0; i < n; i++) out[i]! += d[i]!;
      else for (let i = 0; i < n; i++) out[i]! += c * d[i]!;
    }
  } else if (op === 'MAX') {
    out.set(bottoms[0]!.data);
    for (let b = 1; b < bottoms.length; b++) {
      const d = bottoms[b]!.data;
      for (let i = 0; i < n; i++) if (d[i]! > out[i]!) out[i] = d[i]!;
    }
  } else throw new ForwardError(`unknown Eltwise operation ${op}`);
  return [tensor(bottoms[0]!.shape.slice(), out)];
}

function concatAxis(lp: ProtoMessage | undefined, numAxes: number, typeName: string, legacy: string): number {
  return has(lp, legacy) ? getNumber(lp, typeName, legacy) : canonicalAxis(getNumber(lp, typeName, 'axis'), numAxes);
}

function concat(ctx: LayerContext, bottoms: Tensor[]): Tensor[] {
  const axis = concatAxis(p(ctx, 'concat_param'), bottoms[0]!.shape.length, 'ConcatParameter', 'concat_dim');
  const top = ctx.topShapes[0]!;
  const out = outputArray(ctx, elementCount(top));
  const outer = count(top, 0, axis);
  const inner = count(top, axis + 1);
  const topAxis = top[axis]!;
  let offset = 0;
  for (const b of bottoms) {
    const bAxis = b.shape[axis]!;
    const chunk = bAxis * inner;
    for (let o = 0; o < outer; o++) out.set(b.data.subarray(o * chunk, (o + 1) * chunk), (o * topAxis + offset) * inner);
    offset += bAxis;
  }
  return [tensor(top.slice(), out)];
}

function slice(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  const axis = concatAxis(p(ctx, 'slice_param'), x!.shape.length, 'SliceParameter', 'slice_dim');
  const outer = count(x!.shape, 0, axis);
  const inner = count(x!.shape, axis + 1);
  const bAxis = x!.shape[axis]!;
  let offset = 0;
  return ctx.topShapes.map((top) => {
    const tAxis = top[axis]!;
    const out = new Float32Array(elementCount(top));
    for (let o = 0; o < outer; o++) out.set(x!.data.subarray((o * bAxis + offset) * inner, (o * bAxis + offset + tAxis) * inner), o * tAxis * inner);
    offset += tAxis;
    return tensor(top.slice(), out);
  });
}

function softmax(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  const axis = canonicalAxis(getNumber(p(ctx, 'softmax_param'), 'SoftmaxParameter', 'axis'), x!.shape.length);
  const outer = count(x!.shape, 0, axis);
  const dim = x!.shape[axis]!;
  const inner = count(x!.shape, axis + 1);
  const src = x!.data;
  const out = new Float32Array(src.length);
  for (let o = 0; o < outer; o++)
    for (let i = 0; i < inner; i++) {
      const b = o * dim * inner + i;
      let m = -Infinity;
      for (let d = 0; d < dim; d++) m = Math.max(m, src[b + d * inner]!);
      let s = 0;
      for (let d = 0; d < dim; d++) {
        const e = Math.fround(Math.exp(src[b + d * inner]! - m));
        out[b + d * inner] = e;
        s += e;
      }
      for (let d = 0; d < dim; d++) out[b + d * inner]! /= s;
    }
  return [tensor(x!.shape.slice(), out)];
}

function innerProduct(ctx: LayerContext, [x]: Tensor[]): MaybePromise<Tensor[]> {
  const ip = p(ctx, 'inner_product_param');
  const T = 'InnerProductParameter';
  const axis = canonicalAxis(getNumber(ip, T, 'axis'), x!.shape.length);
  const n = getNumber(ip, T, 'num_output');
  const m = count(x!.shape, 0, axis);
  const k = count(x!.shape, axis);
  const bias = getBool(ip, T, 'bias_term') ? ctx.weights[1]! : null;
  const top = ctx.topShapes[0]!.slice();
  const r = ctx.kernels.innerProduct(x!.data, ctx.weights[0]!, bias, { m, k, n, transpose: getBool(ip, T, 'transpose') });
  return r instanceof Promise ? r.then((d) => [tensor(top, d)]) : [tensor(top, r)];
}

function prelu(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  const shared = getBool(p(ctx, 'prelu_param'), 'PReLUParameter', 'channel_shared');
  const slope = ctx.weights[0]!;
  const channels = x!.shape[1]!;
  const dim = count(x!.shape, 2);
  const src = x!.data;
  const out = new Float32Array(src.length);
  for (let i = 0; i < src.length; i++) {
    const c = shared ? 0 : Math.floor(i / dim) % channels;
    const v = src[i]!;
    out[i] = Math.max(v, 0) + slope[c]! * Math.min(v, 0);
  }
  return [tensor(x!.shape.slice(), out)];
}

function crop(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  const cp = p(ctx, 'crop_param');
  const shape = x!.shape;
  const axis = canonicalAxis(getNumber(cp, 'CropParameter', 'axis'), shape.length);
  const offsets = numbers(cp, 'offset');
  const top = ctx.topShapes[0]!;
  const off = shape.map((_, i) => (i < axis || offsets.length === 0 ? 0 : offsets[offsets.length === 1 ? 0 : i - axis]!));
  const out = new Float32Array(elementCount(top));
  const srcStrides = shape.map((_, i) => count(shape, i + 1));
  const idx = new Array<number>(top.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let s = 0;
    for (let d = 0; d < top.length; d++) s += (idx[d]! + off[d]!) * srcStrides[d]!;
    out[o] = x!.data[s]!;
    for (let d = top.length - 1; d >= 0; d--) {
      if (++idx[d]! < top[d]!) break;
      idx[d] = 0;
    }
  }
  return [tensor(top.slice(), out)];
}

function argmax(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  const ap = p(ctx, 'argmax_param');
  const T = 'ArgMaxParameter';
  const topK = getNumber(ap, T, 'top_k');
  const outMax = getBool(ap, T, 'out_max_val');
  const top = ctx.topShapes[0]!;
  const out = new Float32Array(elementCount(top));
  const shape = x!.shape;
  const hasAxis = has(ap, 'axis');
  const axis = hasAxis ? canonicalAxis(getNumber(ap, T, 'axis'), shape.length) : 0;
  const num = hasAxis ? count(shape, 0, axis) : shape[0]!;
  const dim = hasAxis ? shape[axis]! : count(shape, 1);
  const inner = hasAxis ? count(shape, axis + 1) : 1;
  for (let i = 0; i < num; i++)
    for (let j = 0; j < inner; j++) {
      const pairs: [number, number][] = [];
      for (let d = 0; d < dim; d++) pairs.push([x!.data[(i * dim + d) * inner + j]!, d]);
      // std::greater on (value, index): ties go to the larger index
      pairs.sort((a, b) => b[0] - a[0] || b[1] - a[1]);
      for (let k = 0; k < topK; k++) {
        if (hasAxis) out[(i * topK + k) * inner + j] = outMax ? pairs[k]![0] : pairs[k]![1];
        else if (outMax) {
          out[i * 2 * topK + k] = pairs[k]![1];
          out[i * 2 * topK + topK + k] = pairs[k]![0];
        } else out[i * topK + k] = pairs[k]![1];
      }
    }
  return [tensor(top.slice(), out)];
}

/** The same values under another shape: the array is shared (no layer writes into its inputs). */
function reshapeLike(ctx: LayerContext, [x]: Tensor[]): Tensor[] {
  return [tensor(ctx.topShapes[0]!.slice(), x!.data)];
}

export const LAYER_FORWARD: Record<string, LayerForward> = {
  Convolution: (c, b) => convolution(c, b, false),
  Deconvolution: (c, b) => convolution(c, b, true),
  InnerProduct: innerProduct,
  Pooling: pooling,
  LRN: lrn,
  BatchNorm: batchNorm,
  Scale: scaleLayer,
  Bias: biasLayer,
  Eltwise: eltwise,
  Concat: concat,
  Slice: slice,
  Split: (c, [x]) => c.topShapes.map((s) => tensor(s.slice(), x!.data.slice())),
  Silence: () => [],
  Flatten: reshapeLike,
  Reshape: reshapeLike,
  // TEST phase: the input unchanged (Caffe's DropoutLayer copies it; the array is shared here)
  Dropout: (_c, [x]) => [tensor(x!.shape.slice(), x!.data)],
  Softmax: softmax,
  Crop: crop,
  ArgMax: argmax,
  PReLU: prelu,
  ReLU: (c, [x]) => {
    const slope = getNumber(p(c, 'relu_param'), 'ReLUParameter', 'negative_slope');
    const src = x!.data;
    const fast = c.kernels.channelAffine;
    if (fast) return then(fast.call(c.kernels, src, null, null, { batch: 1, channels: 1, spatial: src.length, relu: true, negativeSlope: slope }), (data) => [tensor(x!.shape.slice(), data)]);
    const out = new Float32Array(src.length);
    // NaN passes through, as with Caffe's max(x, 0) + slope * min(x, 0)
    if (slope === 0) for (let i = 0; i < src.length; i++) out[i] = src[i]! < 0 ? 0 : src[i]!;
    else for (let i = 0; i < src.length; i++) out[i] = src[i]! < 0 ? slope * src[i]! : src[i]!;
    return [tensor(x!.shape.slice(), out)];
  },
  Sigmoid: (_c, [x]) => map(x!, sigmoid),
  TanH: (_c, [x]) => map(x!, Math.tanh),
  AbsVal: (_c, [x]) => map(x!, Math.abs),
  BNLL: (_c, [x]) => map(x!, (v) => (v > 0 ? v + Math.log(1 + Math.exp(-v)) : Math.log(1 + Math.exp(v)))),
  ELU: (c, [x]) => {
    const alpha = getNumber(p(c, 'elu_param'), 'ELUParameter', 'alpha');
    return map(x!, (v) => Math.max(v, 0) + alpha * (Math.exp(Math.min(v, 0)) - 1));
  },
  Swish: (c, [x]) => {
    const beta = getNumber(p(c, 'swish_param'), 'SwishParameter', 'beta');
    return map(x!, (v) => v * sigmoid(beta * v));
  },
  Threshold: (c, [x]) => {
    const t = getNumber(p(c, 'threshold_param'), 'ThresholdParameter', 'threshold');
    return map(x!, (v) => (v > t ? 1 : 0));
  },
  Clip: (c, [x]) => {
    const cp = p(c, 'clip_param');
    const lo = getNumber(cp, 'ClipParameter', 'min');
    const hi = getNumber(cp, 'ClipParameter', 'max');
    return map(x!, (v) => Math.max(lo, Math.min(hi, v)));
  },
  Power: (c, [x]) => {
    const pp = p(c, 'power_param');
    const T = 'PowerParameter';
    const power = getNumber(pp, T, 'power');
    const scale = getNumber(pp, T, 'scale');
    const shift = getNumber(pp, T, 'shift');
    if (power * scale === 0) {
      const v = power === 0 ? 1 : Math.pow(shift, power);
      return map(x!, () => v);
    }
    return map(x!, (v) => Math.pow(shift + scale * v, power));
  },
  Exp: (c, [x]) => {
    const ep = p(c, 'exp_param');
    const T = 'ExpParameter';
    const base = getNumber(ep, T, 'base');
    const scale = getNumber(ep, T, 'scale');
    const shift = getNumber(ep, T, 'shift');
    if (base !== -1 && base <= 0) throw new ForwardError('Exp base must be strictly positive (or -1 for e)');
    const lnBase = base === -1 ? 1 : Math.log(base);
    return map(x!, (v) => Math.exp(lnBase * (shift + scale * v)));
  },
  Log: (c, [x]) => {
    const lp = p(c, 'log_param');
    const T = 'LogParameter';
    const base = getNumber(lp, T, 'base');
    const scale = getNumber(lp, T, 'scale');
    const shift = getNumber(lp, T, 'shift');
    if (base !== -1 && base <= 0) throw new ForwardError('Log base must be strictly positive (or -1 for e)');
    const inv = base === -1 ? 1 : 1 / Math.log(base);
    return map(x!, (v) => Math.log(shift + scale * v) * inv);
  },
};

export function hasForward(type: string): boolean {
  return Object.prototype.hasOwnProperty.call(LAYER_FORWARD, type);
}
