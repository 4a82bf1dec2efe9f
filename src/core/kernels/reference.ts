/**
 * Plain TypeScript reference kernels: the definitions the fast kernels are tested against, and
 * the fallback where WebAssembly SIMD is missing. Each is the textbook loop nest of Caffe's
 * formula, with sums in float64 rounded once to float32 (so they are at least as accurate as
 * Caffe's float BLAS); they are small on purpose and make no attempt at speed.
 */
import {
  checkConv2d,
  checkLength,
  conv2dOutputShape,
  deconv2dOutputShape,
  type AffineParams,
  type Conv2dParams,
  type EltwiseParams,
  type Deconv2dParams,
  type GemmParams,
  type InnerProductParams,
  type LrnParams,
  type Pool2dParams,
} from './params';

const FLT_MAX = 3.4028234663852886e38;

export function sgemmReference(p: GemmParams, a: Float32Array, b: Float32Array, c: Float32Array): void {
  const { m, n, k } = p;
  const alpha = p.alpha ?? 1;
  const beta = p.beta ?? 0;
  const lda = p.lda ?? (p.transA ? m : k);
  const ldb = p.ldb ?? (p.transB ? k : n);
  const ldc = p.ldc ?? n;
  for (let i = 0; i < m; i++) {
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let q = 0; q < k; q++) {
        const av = p.transA ? a[q * lda + i]! : a[i * lda + q]!;
        const bv = p.transB ? b[j * ldb + q]! : b[q * ldb + j]!;
        s += av * bv;
      }
      // beta = 0: C is not read (BLAS), so NaN or garbage in C does not leak through
      c[i * ldc + j] = beta === 0 ? alpha * s : alpha * s + beta * c[i * ldc + j]!;
    }
  }
}

export function conv2dReference(p: Conv2dParams, x: Float32Array, w: Float32Array, bias: Float32Array | null, y: Float32Array): void {
  checkConv2d(p);
  const [, outC, outH, outW] = conv2dOutputShape(p);
  const cinG = p.inChannels / p.group;
  const coutG = p.outChannels / p.group;
  const { inHeight: H, inWidth: W, kernelH: kh, kernelW: kw } = p;
  checkLength('convolution input', x, p.batch * p.inChannels * H * W);
  checkLength('convolution weights', w, outC * cinG * kh * kw);
  checkLength('convolution output', y, p.batch * outC * outH * outW);
  if (bias) checkLength('convolution bias', bias, outC);
  for (let n = 0; n < p.batch; n++) {
    for (let oc = 0; oc < outC; oc++) {
      const g = Math.floor(oc / coutG);
      for (let oy = 0; oy < outH; oy++) {
        for (let ox = 0; ox < outW; ox++) {
          let s = bias ? bias[oc]! : 0;
          for (let icg = 0; icg < cinG; icg++) {
            const ic = g * cinG + icg;
            for (let ky = 0; ky < kh; ky++) {
              const iy = oy * p.strideH - p.padH + ky * p.dilationH;
              if (iy < 0 || iy >= H) continue;
              for (let kx = 0; kx < kw; kx++) {
                const ix = ox * p.strideW - p.padW + kx * p.dilationW;
                if (ix < 0 || ix >= W) continue;
                s += x[((n * p.inChannels + ic) * H + iy) * W + ix]! * w[((oc * cinG + icg) * kh + ky) * kw + kx]!;
              }
            }
          }
          y[((n * outC + oc) * outH + oy) * outW + ox] = p.relu && s < 0 ? 0 : s;
        }
      }
    }
  }
}

/** Deconvolution as the scatter it is: every input value adds weight-times-value to the outputs its kernel covers. */
export function deconv2dReference(p: Deconv2dParams, x: Float32Array, w: Float32Array, bias: Float32Array | null, y: Float32Array): void {
  checkConv2d(p, 'deconvolution');
  const [, outC, outH, outW] = deconv2dOutputShape(p);
  const cinG = p.inChannels / p.group;
  const coutG = p.outChannels / p.group;
  const { inHeight: H, inWidth: W, kernelH: kh, kernelW: kw } = p;
  checkLength('deconvolution input', x, p.batch * p.inChannels * H * W);
  checkLength('deconvolution weights', w, p.inChannels * coutG * kh * kw);
  checkLength('deconvolution output', y, p.batch * outC * outH * outW);
  if (bias) checkLength('deconvolution bias', bias, outC);
  const acc = new Float64Array(outC * outH * outW);
  for (let n = 0; n < p.batch; n++) {
    for (let oc = 0; oc < outC; oc++) acc.fill(bias ? bias[oc]! : 0, oc * outH * outW, (oc + 1) * outH * outW);
    for (let ic = 0; ic < p.inChannels; ic++) {
      const g = Math.floor(ic / cinG);
      for (let iy = 0; iy < H; iy++) {
        for (let ix = 0; ix < W; ix++) {
          const v = x[((n * p.inChannels + ic) * H + iy) * W + ix]!;
          for (let ocg = 0; ocg < coutG; ocg++) {
            const oc = g * coutG + ocg;
            for (let ky = 0; ky < kh; ky++) {
              const oy = iy * p.strideH - p.padH + ky * p.dilationH;
              if (oy < 0 || oy >= outH) continue;
              for (let kx = 0; kx < kw; kx++) {
                const ox = ix * p.strideW - p.padW + kx * p.dilationW;
                if (ox < 0 || ox >= outW) continue;
                acc[(oc * outH + oy) * outW + ox]! += v * w[((ic * coutG + ocg) * kh + ky) * kw + kx]!;
              }
            }
          }
        }
      }
    }
    const base = n * outC * outH * outW;
    for (let i = 0; i < acc.length; i++) y[base + i] = p.relu && acc[i]! < 0 ? 0 : acc[i]!;
  }
}

export function innerProductReference(p: InnerProductParams, x: Float32Array, w: Float32Array, bias: Float32Array | null, y: Float32Array): void {
  const { batch, inputSize: K, outputSize: O } = p;
  checkLength('inner product input', x, batch * K);
  checkLength('inner product weights', w, K * O);
  checkLength('inner product output', y, batch * O);
  if (bias) checkLength('inner product bias', bias, O);
  for (let b = 0; b < batch; b++) {
    for (let o = 0; o < O; o++) {
      let s = bias ? bias[o]! : 0;
      for (let k = 0; k < K; k++) s += x[b * K + k]! * (p.transpose ? w[k * O + o]! : w[o * K + k]!);
      y[b * O + o] = p.relu && s < 0 ? 0 : s;
    }
  }
}

/**
 * Caffe's pooling (pooling_layer.cpp, Forward_cpu). MAX: the window is clipped to the image
 * and starts from -FLT_MAX. AVE: the divisor is the window clipped to the padded image
 * (height + pad), taken before clipping to the image itself, so padding counts as zeros.
 */
export function pool2dReference(p: Pool2dParams, x: Float32Array, y: Float32Array): void {
  const { inHeight: H, inWidth: W, outHeight: OH, outWidth: OW } = p;
  const planes = p.batch * p.channels;
  checkLength('pooling input', x, planes * H * W);
  checkLength('pooling output', y, planes * OH * OW);
  for (let pl = 0; pl < planes; pl++) {
    for (let oy = 0; oy < OH; oy++) {
      for (let ox = 0; ox < OW; ox++) {
        let hs = oy * p.strideH - p.padH;
        let ws = ox * p.strideW - p.padW;
        let v: number;
        if (p.method === 'max') {
          const he = Math.min(hs + p.kernelH, H);
          const we = Math.min(ws + p.kernelW, W);
          hs = Math.max(hs, 0);
          ws = Math.max(ws, 0);
          v = -FLT_MAX;
          for (let iy = hs; iy < he; iy++) for (let ix = ws; ix < we; ix++) v = Math.max(v, x[(pl * H + iy) * W + ix]!);
        } else {
          let he = Math.min(hs + p.kernelH, H + p.padH);
          let we = Math.min(ws + p.kernelW, W + p.padW);
          const size = (he - hs) * (we - ws);
          hs = Math.max(hs, 0);
          ws = Math.max(ws, 0);
          he = Math.min(he, H);
          we = Math.min(we, W);
          let s = 0;
          for (let iy = hs; iy < he; iy++) for (let ix = ws; ix < we; ix++) s += x[(pl * H + iy) * W + ix]!;
          v = s / size;
        }
        y[(pl * OH + oy) * OW + ox] = v;
      }
    }
  }
}

export function lrnReference(p: LrnParams, x: Float32Array, y: Float32Array): void {
  const { channels: C, height: H, width: W, size } = p;
  checkLength('LRN input', x, p.batch * C * H * W);
  checkLength('LRN output', y, p.batch * C * H * W);
  if (size < 1 || size % 2 !== 1) throw new RangeError(`LRN: local_size must be odd and positive (Caffe's rule), got ${size}`);
  const pre = (size - 1) / 2;
  for (let n = 0; n < p.batch; n++) {
    for (let c = 0; c < C; c++) {
      for (let iy = 0; iy < H; iy++) {
        for (let ix = 0; ix < W; ix++) {
          let s = 0;
          let scale: number;
          if (p.region === 'across') {
            for (let cc = Math.max(0, c - pre); cc <= Math.min(C - 1, c + pre); cc++) {
              const v = x[((n * C + cc) * H + iy) * W + ix]!;
              s += v * v;
            }
            scale = p.k + (p.alpha / size) * s;
          } else {
            for (let yy = Math.max(0, iy - pre); yy <= Math.min(H - 1, iy + pre); yy++) {
              for (let xx = Math.max(0, ix - pre); xx <= Math.min(W - 1, ix + pre); xx++) {
                const v = x[((n * C + c) * H + yy) * W + xx]!;
                s += v * v;
              }
            }
            scale = 1 + p.alpha * (s / (size * size));
          }
          const i = ((n * C + c) * H + iy) * W + ix;
          y[i] = x[i]! * Math.pow(scale, -p.beta);
        }
      }
    }
  }
}

function reluOf(v: number, slope: number): number {
  return Math.max(v, 0) + slope * Math.min(v, 0);
}

export function channelAffineReference(p: AffineParams, x: Float32Array, scale: Float32Array | null, shift: Float32Array | null, y: Float32Array): void {
  const n = p.batch * p.channels * p.spatial;
  checkLength('affine input', x, n);
  checkLength('affine output', y, n);
  if (scale) checkLength('affine scale', scale, p.channels);
  if (shift) checkLength('affine shift', shift, p.channels);
  for (let i = 0; i < n; i++) {
    const c = Math.floor(i / p.spatial) % p.channels;
    const v = x[i]! * (scale ? scale[c]! : 1) + (shift ? shift[c]! : 0);
    y[i] = p.relu ? reluOf(v, p.negativeSlope ?? 0) : v;
  }
}

export function eltwiseReference(p: EltwiseParams, a: Float32Array, b: Float32Array, y: Float32Array): void {
  const n = y.length;
  checkLength('eltwise input A', a, n);
  checkLength('eltwise input B', b, n);
  for (let i = 0; i < n; i++) {
    const u = a[i]!;
    const w = b[i]!;
    const v = p.op === 'sum' ? (p.coeffA ?? 1) * u + (p.coeffB ?? 1) * w : p.op === 'prod' ? u * w : Math.max(u, w);
    y[i] = p.relu ? reluOf(v, p.negativeSlope ?? 0) : v;
  }
}
