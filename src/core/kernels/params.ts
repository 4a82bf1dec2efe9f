/**
 * Parameters of the numeric kernels, as plain objects (no protobuf types), and the output-size
 * rules of Caffe's layers (conv_layer.cpp, deconv_layer.cpp, pooling_layer.cpp). Every tensor is
 * float32, NCHW, dense; the kernels never allocate their outputs.
 */

/** C = alpha * op(A) * op(B) + beta * C, row-major; op(X) = X or its transpose. */
export interface GemmParams {
  m: number;
  n: number;
  k: number;
  /** A is stored K x M (lda >= M) instead of M x K (lda >= K) */
  transA?: boolean;
  /** B is stored N x K (ldb >= K) instead of K x N (ldb >= N) */
  transB?: boolean;
  alpha?: number;
  beta?: number;
  /** leading dimensions (row strides, in elements); default: dense */
  lda?: number;
  ldb?: number;
  ldc?: number;
}

/** Caffe Convolution: weights [outChannels, inChannels / group, kernelH, kernelW], bias [outChannels]. */
export interface Conv2dParams {
  batch: number;
  inChannels: number;
  inHeight: number;
  inWidth: number;
  outChannels: number;
  kernelH: number;
  kernelW: number;
  strideH: number;
  strideW: number;
  padH: number;
  padW: number;
  dilationH: number;
  dilationW: number;
  group: number;
  /** ReLU (slope 0) applied to the output, fused into the last pass over it */
  relu?: boolean;
}

/**
 * Caffe Deconvolution (the backward pass of a convolution with the same parameters):
 * weights [inChannels, outChannels / group, kernelH, kernelW], bias [outChannels].
 */
export type Deconv2dParams = Conv2dParams;

/**
 * Caffe InnerProduct: input [batch, inputSize] (everything after `axis` flattened), output
 * [batch, outputSize]; weights [outputSize, inputSize], or [inputSize, outputSize] when
 * `transpose` (InnerProductParameter.transpose) is set; bias [outputSize].
 */
export interface InnerProductParams {
  batch: number;
  inputSize: number;
  outputSize: number;
  transpose?: boolean;
  relu?: boolean;
}

/**
 * Caffe Pooling (MAX or AVE) over [batch, channels, inHeight, inWidth] into
 * [batch, channels, outHeight, outWidth]; `poolOutputSize` gives Caffe's output size.
 */
export interface Pool2dParams {
  method: 'max' | 'ave';
  batch: number;
  channels: number;
  inHeight: number;
  inWidth: number;
  outHeight: number;
  outWidth: number;
  kernelH: number;
  kernelW: number;
  strideH: number;
  strideW: number;
  padH: number;
  padW: number;
}

/**
 * Caffe LRN over [batch, channels, height, width].
 * ACROSS_CHANNELS: y = x * (k + alpha / size * sum of x^2 over `size` channels centred on c)^-beta.
 * WITHIN_CHANNEL (Caffe builds it from Power, AVE pooling and Power layers, and ignores k):
 * y = x * (1 + alpha * (sum of x^2 over the size x size window, zero-padded) / size^2)^-beta.
 */
export interface LrnParams {
  region: 'across' | 'within';
  batch: number;
  channels: number;
  height: number;
  width: number;
  size: number;
  alpha: number;
  beta: number;
  k: number;
}

/**
 * A per-channel affine map over [batch, channels, spatial]: y = x * scale[c] + shift[c], then
 * Caffe's ReLU when `relu` (max(y, 0) + negativeSlope * min(y, 0)). BatchNorm in inference
 * (scale = 1 / sqrt(var + eps), shift = -mean * scale, after Caffe's moving-average factor),
 * Scale (gamma, beta) and Bias are this map; so are their compositions.
 */
export interface AffineParams {
  batch: number;
  channels: number;
  /** values per channel (height x width, or the product of the axes after the channel axis) */
  spatial: number;
  relu?: boolean;
  negativeSlope?: number;
}

/**
 * Caffe Eltwise of two inputs: SUM (coeffA a + coeffB b), PROD (a b) or MAX; more inputs chain
 * (y = op(y, next)), as Caffe accumulates them. Then ReLU when `relu`, as in AffineParams.
 */
export interface EltwiseParams {
  op: 'sum' | 'prod' | 'max';
  coeffA?: number;
  coeffB?: number;
  relu?: boolean;
  negativeSlope?: number;
}

/** Caffe's convolution output size: floor((in + 2 pad - (dilation (kernel - 1) + 1)) / stride) + 1. */
export function convOutputSize(inSize: number, kernel: number, stride: number, pad: number, dilation: number): number {
  return Math.floor((inSize + 2 * pad - (dilation * (kernel - 1) + 1)) / stride) + 1;
}

/** Caffe's deconvolution output size: stride (in - 1) + dilation (kernel - 1) + 1 - 2 pad. */
export function deconvOutputSize(inSize: number, kernel: number, stride: number, pad: number, dilation: number): number {
  return stride * (inSize - 1) + dilation * (kernel - 1) + 1 - 2 * pad;
}

/**
 * Caffe's pooling output size: ceil((in + 2 pad - kernel) / stride) + 1 (floor with
 * round_mode FLOOR), then, when there is padding, one less if the last window would start
 * inside the bottom or right padding.
 */
export function poolOutputSize(inSize: number, kernel: number, stride: number, pad: number, roundMode: 'ceil' | 'floor' = 'ceil'): number {
  const q = (inSize + 2 * pad - kernel) / stride;
  let out = (roundMode === 'ceil' ? Math.ceil(q) : Math.floor(q)) + 1;
  if (pad > 0 && (out - 1) * stride >= inSize + pad) out--;
  return out;
}

export function conv2dOutputShape(p: Conv2dParams): [number, number, number, number] {
  return [
    p.batch,
    p.outChannels,
    convOutputSize(p.inHeight, p.kernelH, p.strideH, p.padH, p.dilationH),
    convOutputSize(p.inWidth, p.kernelW, p.strideW, p.padW, p.dilationW),
  ];
}

export function deconv2dOutputShape(p: Deconv2dParams): [number, number, number, number] {
  return [
    p.batch,
    p.outChannels,
    deconvOutputSize(p.inHeight, p.kernelH, p.strideH, p.padH, p.dilationH),
    deconvOutputSize(p.inWidth, p.kernelW, p.strideW, p.padW, p.dilationW),
  ];
}

/** Multiply-adds of a convolution (the usual FLOP count is twice this). */
export function conv2dMacs(p: Conv2dParams): number {
  const [n, c, h, w] = conv2dOutputShape(p);
  return n * c * h * w * (p.inChannels / p.group) * p.kernelH * p.kernelW;
}

/** The parameter checks every implementation shares; throws a RangeError naming the problem. */
export function checkConv2d(p: Conv2dParams, what = 'convolution'): void {
  const ints: (keyof Conv2dParams)[] = ['batch', 'inChannels', 'inHeight', 'inWidth', 'outChannels', 'kernelH', 'kernelW', 'strideH', 'strideW', 'padH', 'padW', 'dilationH', 'dilationW', 'group'];
  for (const f of ints) {
    const v = p[f] as number;
    if (!Number.isInteger(v) || v < 0) throw new RangeError(`${what}: ${f} must be a non-negative integer, got ${v}`);
  }
  for (const f of ['kernelH', 'kernelW', 'strideH', 'strideW', 'dilationH', 'dilationW', 'group'] as const) {
    if (p[f] < 1) throw new RangeError(`${what}: ${f} must be at least 1, got ${p[f]}`);
  }
  if (p.inChannels % p.group !== 0 || p.outChannels % p.group !== 0) {
    throw new RangeError(`${what}: group ${p.group} must divide both ${p.inChannels} input and ${p.outChannels} output channels`);
  }
}

export function checkLength(what: string, a: Float32Array, need: number): void {
  if (a.length < need) throw new RangeError(`${what} has ${a.length} values, ${need} needed`);
}
