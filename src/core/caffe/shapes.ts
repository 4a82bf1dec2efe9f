/**
 * Blob shapes by Caffe's own rules: each layer type's Reshape (and LayerSetUp checks) from
 * BVLC/caffe src/caffe/layers/*.cpp, plus the learnable blobs each layer expects (the shapes
 * CopyTrainedLayersFrom checks weights against).
 *
 * A rule that fails throws `ShapeError` with the sentence Caffe's CHECK would have printed, in
 * words; the caller names the layer. A type without a rule is `unsupported`.
 */
import { get, getBool, getNumber, has, message, messages, numbers, type ProtoMessage } from './proto';

export type Shape = number[];

/** What a learnable blob is, for value ranges of generated weights (gen_caffemodel.py's kinds). */
export type ParamKind = 'weight' | 'bias' | 'bn_mean' | 'bn_var' | 'bn_factor' | 'scale' | 'prelu';

export interface ParamSpec {
  /** `weights`, `bias`, `mean`, `variance`, `moving average factor`, `scale`, `slope` */
  role: string;
  kind: ParamKind;
  shape: Shape;
}

export interface LayerShapes {
  tops: Shape[];
  params: ParamSpec[];
}

export class ShapeError extends Error {
  constructor(readonly rule: string) {
    super(rule);
    this.name = 'ShapeError';
  }
}

export function count(shape: Shape, start = 0, end = shape.length): number {
  let n = 1;
  for (let i = start; i < end; i++) n *= shape[i]!;
  return n;
}

function fail(rule: string): never {
  throw new ShapeError(rule);
}

export function canonicalAxis(axis: number, numAxes: number, what = 'axis'): number {
  if (axis < -numAxes || axis >= numAxes) fail(`${what} ${axis} is out of range for a ${numAxes}-D blob`);
  return axis < 0 ? axis + numAxes : axis;
}

function param(layer: ProtoMessage, field: string): ProtoMessage | undefined {
  return message(layer, field);
}

function fmt(s: Shape): string {
  return `[${s.join(',')}]`;
}

// --- convolution geometry ----------------------------------------------------------------------

export interface ConvGeometry {
  channelAxis: number;
  spatialAxes: number;
  kernel: number[];
  stride: number[];
  pad: number[];
  dilation: number[];
  numOutput: number;
  group: number;
  biasTerm: boolean;
}

function perAxis(p: ProtoMessage | undefined, field: string, hField: string, wField: string, spatial: number, dflt: number | null, what: string): number[] {
  const hw = has(p, hField) || has(p, wField);
  const list = numbers(p, field);
  if (hw) {
    if (spatial !== 2) fail(`${what}_h / ${what}_w can only be used for 2-D ${what === 'kernel' ? 'kernels' : 'convolution'}; this input has ${spatial} spatial axes`);
    if (list.length) fail(`either ${field} or ${hField}/${wField} may be given, not both`);
    if (!has(p, hField) || !has(p, wField)) fail(`${hField} and ${wField} must both be given`);
    return [getNumber(p, 'ConvolutionParameter', hField), getNumber(p, 'ConvolutionParameter', wField)];
  }
  if (list.length === 0) {
    if (dflt === null) fail('the kernel size is not given (kernel_size or kernel_h and kernel_w)');
    return new Array<number>(spatial).fill(dflt);
  }
  if (list.length !== 1 && list.length !== spatial) fail(`${field} must be given once or once per spatial axis (${spatial}); it is given ${list.length} times`);
  return Array.from({ length: spatial }, (_, i) => list[list.length === 1 ? 0 : i]!);
}

export function convGeometry(layer: ProtoMessage, input: Shape): ConvGeometry {
  const p = param(layer, 'convolution_param');
  const channelAxis = canonicalAxis(getNumber(p, 'ConvolutionParameter', 'axis'), input.length);
  const spatialAxes = input.length - channelAxis - 1;
  if (spatialAxes < 0) fail('the input has no spatial axes after the channel axis');
  const kernel = perAxis(p, 'kernel_size', 'kernel_h', 'kernel_w', spatialAxes, null, 'kernel');
  const stride = perAxis(p, 'stride', 'stride_h', 'stride_w', spatialAxes, 1, 'stride');
  const pad = perAxis(p, 'pad', 'pad_h', 'pad_w', spatialAxes, 0, 'pad');
  const dl = numbers(p, 'dilation');
  if (dl.length > 1 && dl.length !== spatialAxes) fail(`dilation must be given once or once per spatial axis (${spatialAxes}); it is given ${dl.length} times`);
  const dilation = Array.from({ length: spatialAxes }, (_, i) => (dl.length === 0 ? 1 : dl[dl.length === 1 ? 0 : i]!));
  if (kernel.some((k) => k <= 0)) fail('kernel dimensions must be greater than zero');
  if (stride.some((s) => s <= 0)) fail('stride dimensions must be greater than zero');
  const numOutput = getNumber(p, 'ConvolutionParameter', 'num_output');
  const group = getNumber(p, 'ConvolutionParameter', 'group');
  if (numOutput <= 0) fail('num_output must be greater than zero');
  if (group <= 0) fail('group must be greater than zero');
  const channels = input[channelAxis]!;
  if (channels % group !== 0) fail(`the input channels (${channels}) must be divisible by group (${group})`);
  if (numOutput % group !== 0) fail(`num_output (${numOutput}) must be divisible by group (${group})`);
  return { channelAxis, spatialAxes, kernel, stride, pad, dilation, numOutput, group, biasTerm: getBool(p, 'ConvolutionParameter', 'bias_term') };
}

function convolution(layer: ProtoMessage, bottoms: Shape[], deconv: boolean): LayerShapes {
  const input = bottoms[0]!;
  for (let i = 1; i < bottoms.length; i++) if (fmt(bottoms[i]!) !== fmt(input)) fail(`all bottoms must have the same shape; bottom ${i} is ${fmt(bottoms[i]!)}, bottom 0 is ${fmt(input)}`);
  const g = convGeometry(layer, input);
  const out = input.slice(0, g.channelAxis);
  out.push(g.numOutput);
  for (let i = 0; i < g.spatialAxes; i++) {
    const inDim = input[g.channelAxis + 1 + i]!;
    const extent = g.dilation[i]! * (g.kernel[i]! - 1) + 1;
    const o = deconv ? g.stride[i]! * (inDim - 1) + extent - 2 * g.pad[i]! : Math.trunc((inDim + 2 * g.pad[i]! - extent) / g.stride[i]!) + 1;
    if (o <= 0) {
      fail(
        deconv
          ? `output size stride*(in-1)+dilation*(kernel-1)+1-2*pad = ${o} along spatial axis ${i} is not positive`
          : `the dilated kernel (${extent}) is larger than the padded input (${inDim}+2*${g.pad[i]}) along spatial axis ${i}`,
      );
    }
    out.push(o);
  }
  const channels = input[g.channelAxis]!;
  const wshape = deconv ? [channels, g.numOutput / g.group, ...g.kernel] : [g.numOutput, channels / g.group, ...g.kernel];
  const params: ParamSpec[] = [{ role: 'weights', kind: 'weight', shape: wshape }];
  if (g.biasTerm) params.push({ role: 'bias', kind: 'bias', shape: [g.numOutput] });
  return { tops: bottoms.map(() => out.slice()), params };
}

// --- pooling -------------------------------------------------------------------------------------

export interface PoolGeometry {
  kernelH: number;
  kernelW: number;
  strideH: number;
  strideW: number;
  padH: number;
  padW: number;
  pooledH: number;
  pooledW: number;
  method: string;
  global: boolean;
}

export function poolGeometry(layer: ProtoMessage, input: Shape): PoolGeometry {
  const p = param(layer, 'pooling_param');
  const T = 'PoolingParameter';
  if (input.length !== 4) fail(`the input must have 4 axes (num, channels, height, width); it has ${input.length}`);
  const global = getBool(p, T, 'global_pooling');
  const [, , h, w] = input as [number, number, number, number];
  let kernelH: number;
  let kernelW: number;
  if (global) {
    if (has(p, 'kernel_size') || has(p, 'kernel_h') || has(p, 'kernel_w')) fail('with global_pooling: true the kernel size cannot be given');
    kernelH = h;
    kernelW = w;
  } else {
    const hasHW = has(p, 'kernel_h') && has(p, 'kernel_w');
    if (has(p, 'kernel_size') === hasHW) fail(has(p, 'kernel_size') ? 'the kernel size is kernel_size OR kernel_h and kernel_w, not both' : 'the kernel size is not given (kernel_size, or both kernel_h and kernel_w)');
    kernelH = hasHW ? getNumber(p, T, 'kernel_h') : getNumber(p, T, 'kernel_size');
    kernelW = hasHW ? getNumber(p, T, 'kernel_w') : getNumber(p, T, 'kernel_size');
  }
  if (kernelH <= 0 || kernelW <= 0) fail('kernel dimensions must be greater than zero');
  if (!((!has(p, 'pad') && has(p, 'pad_h') && has(p, 'pad_w')) || (!has(p, 'pad_h') && !has(p, 'pad_w')))) fail('padding is pad OR both pad_h and pad_w');
  if (!((!has(p, 'stride') && has(p, 'stride_h') && has(p, 'stride_w')) || (!has(p, 'stride_h') && !has(p, 'stride_w')))) fail('stride is stride OR both stride_h and stride_w');
  const padH = has(p, 'pad_h') ? getNumber(p, T, 'pad_h') : getNumber(p, T, 'pad');
  const padW = has(p, 'pad_h') ? getNumber(p, T, 'pad_w') : getNumber(p, T, 'pad');
  const strideH = has(p, 'stride_h') ? getNumber(p, T, 'stride_h') : getNumber(p, T, 'stride');
  const strideW = has(p, 'stride_h') ? getNumber(p, T, 'stride_w') : getNumber(p, T, 'stride');
  if (strideH <= 0 || strideW <= 0) fail('stride must be greater than zero');
  if (global && (padH !== 0 || padW !== 0 || strideH !== 1 || strideW !== 1)) fail('with global_pooling: true only pad = 0 and stride = 1 are allowed');
  const method = String(get(p, T, 'pool'));
  if (padH !== 0 || padW !== 0) {
    if (method !== 'MAX' && method !== 'AVE') fail('padding is implemented only for MAX and AVE pooling');
    if (padH >= kernelH || padW >= kernelW) fail(`the padding (${padH},${padW}) must be smaller than the kernel (${kernelH},${kernelW})`);
  }
  const ceil = String(get(p, T, 'round_mode')) !== 'FLOOR';
  // Caffe divides in float, then rounds; exact for these integer ranges
  const round = ceil ? Math.ceil : Math.floor;
  let pooledH = round(Math.fround(h + 2 * padH - kernelH) / strideH) + 1;
  let pooledW = round(Math.fround(w + 2 * padW - kernelW) / strideW) + 1;
  if (padH || padW) {
    // the last pooling window must start inside the image, not in the padding: clip it
    if ((pooledH - 1) * strideH >= h + padH) pooledH--;
    if ((pooledW - 1) * strideW >= w + padW) pooledW--;
  }
  if (pooledH <= 0 || pooledW <= 0) fail(`the kernel (${kernelH}x${kernelW}) is larger than the padded input (${h}x${w} with pad ${padH},${padW})`);
  return { kernelH, kernelW, strideH, strideW, padH, padW, pooledH, pooledW, method, global };
}

// --- the rules -----------------------------------------------------------------------------------

type Rule = (layer: ProtoMessage, bottoms: Shape[], tops: number) => LayerShapes;

const same: Rule = (_l, b) => ({ tops: [b[0]!.slice()], params: [] });

function needBottoms(n: number, exact = true): (rule: Rule) => Rule {
  return (rule) => (l, b, t) => {
    if (exact ? b.length !== n : b.length < n) fail(`this layer takes ${exact ? 'exactly' : 'at least'} ${n} bottom${n === 1 ? '' : 's'}; it has ${b.length}`);
    return rule(l, b, t);
  };
}

const one = needBottoms(1);

function scaleLikeParams(layer: ProtoMessage, bottoms: Shape[], field: 'scale_param' | 'bias_param', typeName: string): Shape {
  const p = param(layer, field);
  const input = bottoms[0]!;
  if (bottoms.length > 1) {
    const s = bottoms[1]!;
    const axis = s.length === 0 ? 0 : canonicalAxis(getNumber(p, typeName, 'axis'), input.length);
    if (input.length < axis + s.length) fail(`the second bottom's shape ${fmt(s)} extends past the first's ${fmt(input)} from axis ${axis}`);
    for (let i = 0; i < s.length; i++) if (input[axis + i] !== s[i]) fail(`dimension mismatch between bottom 0 axis ${axis + i} (${input[axis + i]}) and bottom 1 axis ${i} (${s[i]})`);
    return s;
  }
  const axis = canonicalAxis(getNumber(p, typeName, 'axis'), input.length);
  const numAxes = getNumber(p, typeName, 'num_axes');
  if (numAxes < -1) fail('num_axes must be non-negative, or -1 to extend to the end');
  if (numAxes >= 0 && input.length < axis + numAxes) fail(`the ${field === 'scale_param' ? 'scale' : 'bias'} blob extends past the input's ${input.length} axes from axis ${axis}`);
  return numAxes === -1 ? input.slice(axis) : input.slice(axis, axis + numAxes);
}

const RULES: Record<string, Rule> = {
  Input: (l, _b, tops) => {
    const shapes = messages(message(l, 'input_param'), 'shape');
    if (shapes.length !== 1 && shapes.length !== tops) fail(`input_param must give one shape, or one per top (${tops}); it gives ${shapes.length}`);
    const out: Shape[] = [];
    for (let i = 0; i < tops; i++) {
      const dims = numbers(shapes.length === 1 ? shapes[0] : shapes[i], 'dim');
      if (dims.some((d) => !Number.isSafeInteger(d) || d < 0)) fail(`input shape ${fmt(dims)} has a negative or huge dimension`);
      out.push(dims);
    }
    return { tops: out, params: [] };
  },
  Convolution: needBottoms(1, false)((l, b) => convolution(l, b, false)),
  Deconvolution: needBottoms(1, false)((l, b) => convolution(l, b, true)),
  Pooling: one((l, b, tops) => {
    const g = poolGeometry(l, b[0]!);
    const out = [b[0]![0]!, b[0]![1]!, g.pooledH, g.pooledW];
    return { tops: Array.from({ length: Math.max(1, Math.min(tops, 2)) }, () => out.slice()), params: [] };
  }),
  InnerProduct: one((l, b) => {
    const p = param(l, 'inner_product_param');
    const T = 'InnerProductParameter';
    const input = b[0]!;
    const axis = canonicalAxis(getNumber(p, T, 'axis'), input.length);
    const n = getNumber(p, T, 'num_output');
    if (n <= 0) fail('num_output must be greater than zero');
    const k = count(input, axis);
    const params: ParamSpec[] = [{ role: 'weights', kind: 'weight', shape: getBool(p, T, 'transpose') ? [k, n] : [n, k] }];
    if (getBool(p, T, 'bias_term')) params.push({ role: 'bias', kind: 'bias', shape: [n] });
    return { tops: [[...input.slice(0, axis), n]], params };
  }),
  ReLU: one(same),
  Sigmoid: one(same),
  TanH: one(same),
  AbsVal: one(same),
  BNLL: one(same),
  ELU: one(same),
  Exp: one(same),
  Log: one(same),
  Power: one(same),
  Threshold: one(same),
  Clip: one(same),
  Swish: one(same),
  Dropout: one(same),
  PReLU: one((l, b) => {
    const input = b[0]!;
    if (input.length < 2) fail(`the input must have at least 2 axes (num, channels); it has ${input.length}`);
    const shared = getBool(message(l, 'prelu_param'), 'PReLUParameter', 'channel_shared');
    return { tops: [input.slice()], params: [{ role: 'slope', kind: 'prelu', shape: shared ? [] : [input[1]!] }] };
  }),
  LRN: one((l, b) => {
    const p = param(l, 'lrn_param');
    if (b[0]!.length !== 4) fail(`the input must have 4 axes (num, channels, height, width); it has ${b[0]!.length}`);
    if (getNumber(p, 'LRNParameter', 'local_size') % 2 !== 1) fail('LRN supports only odd values of local_size');
    return same(l, b, 1);
  }),
  BatchNorm: one((_l, b) => {
    const input = b[0]!;
    const c = input.length === 1 ? 1 : input[1]!;
    return {
      tops: [input.slice()],
      params: [
        { role: 'mean', kind: 'bn_mean', shape: [c] },
        { role: 'variance', kind: 'bn_var', shape: [c] },
        { role: 'moving average factor', kind: 'bn_factor', shape: [1] },
      ],
    };
  }),
  Scale: (l, b) => {
    if (b.length < 1 || b.length > 2) fail(`this layer takes 1 or 2 bottoms; it has ${b.length}`);
    const s = scaleLikeParams(l, b, 'scale_param', 'ScaleParameter');
    const params: ParamSpec[] = b.length === 1 ? [{ role: 'scale', kind: 'scale', shape: s }] : [];
    if (getBool(param(l, 'scale_param'), 'ScaleParameter', 'bias_term')) params.push({ role: 'bias', kind: 'bias', shape: s });
    return { tops: [b[0]!.slice()], params };
  },
  Bias: (l, b) => {
    if (b.length < 1 || b.length > 2) fail(`this layer takes 1 or 2 bottoms; it has ${b.length}`);
    const s = scaleLikeParams(l, b, 'bias_param', 'BiasParameter');
    return { tops: [b[0]!.slice()], params: b.length === 1 ? [{ role: 'bias', kind: 'bias', shape: s }] : [] };
  },
  Eltwise: needBottoms(2, false)((l, b) => {
    const p = param(l, 'eltwise_param');
    const coeff = numbers(p, 'coeff');
    if (coeff.length !== 0 && coeff.length !== b.length) fail(`Eltwise takes one coefficient per bottom (${b.length}) or none; it has ${coeff.length}`);
    if (coeff.length && String(get(p, 'EltwiseParameter', 'operation')) !== 'SUM') fail('Eltwise coefficients are only for the SUM operation');
    for (let i = 1; i < b.length; i++) if (fmt(b[i]!) !== fmt(b[0]!)) fail(`all bottoms must have the same shape; bottom ${i} is ${fmt(b[i]!)}, bottom 0 is ${fmt(b[0]!)}`);
    return { tops: [b[0]!.slice()], params: [] };
  }),
  Concat: needBottoms(1, false)((l, b) => {
    const p = param(l, 'concat_param');
    if (has(p, 'axis') && has(p, 'concat_dim')) fail('either axis or concat_dim may be given, not both');
    const n = b[0]!.length;
    let axis: number;
    if (has(p, 'concat_dim')) {
      axis = getNumber(p, 'ConcatParameter', 'concat_dim');
      if (axis >= n) fail(`concat_dim ${axis} is out of range for a ${n}-D blob`);
    } else axis = canonicalAxis(getNumber(p, 'ConcatParameter', 'axis'), n);
    const out = b[0]!.slice();
    for (let i = 1; i < b.length; i++) {
      const s = b[i]!;
      if (s.length !== n) fail(`all bottoms must have the same number of axes; bottom ${i} has ${s.length}, bottom 0 has ${n}`);
      for (let j = 0; j < n; j++) {
        if (j === axis) continue;
        if (s[j] !== out[j]) fail(`all bottoms must have the same shape except on the concat axis ${axis}; bottom ${i} is ${fmt(s)}, bottom 0 is ${fmt(b[0]!)}`);
      }
      out[axis]! += s[axis]!;
    }
    return { tops: [out], params: [] };
  }),
  Slice: one((l, b, tops) => {
    const p = param(l, 'slice_param');
    if (has(p, 'axis') && has(p, 'slice_dim')) fail('either axis or slice_dim may be given, not both');
    const input = b[0]!;
    let axis: number;
    if (has(p, 'slice_dim')) {
      axis = getNumber(p, 'SliceParameter', 'slice_dim');
      if (axis >= input.length) fail(`slice_dim ${axis} is out of range for a ${input.length}-D blob`);
    } else axis = canonicalAxis(getNumber(p, 'SliceParameter', 'axis'), input.length);
    const dim = input[axis]!;
    const points = numbers(p, 'slice_point');
    const sizes: number[] = [];
    if (points.length) {
      if (points.length !== tops - 1) fail(`a Slice with ${tops} tops needs ${tops - 1} slice points; it has ${points.length}`);
      if (tops > dim) fail(`${tops} tops cannot slice an axis of size ${dim}`);
      let prev = 0;
      for (const pt of points) {
        if (pt <= prev) fail(`slice points must be strictly increasing and positive (${points.join(', ')})`);
        sizes.push(pt - prev);
        prev = pt;
      }
      if (prev >= dim) fail(`the last slice point ${prev} is not inside the axis of size ${dim}`);
      sizes.push(dim - prev);
    } else {
      if (tops === 0 || dim % tops !== 0) fail(`the number of tops (${tops}) must divide the sliced axis (${dim}) evenly`);
      for (let i = 0; i < tops; i++) sizes.push(dim / tops);
    }
    return { tops: sizes.map((s) => input.map((d, i) => (i === axis ? s : d))), params: [] };
  }),
  Split: one((_l, b, tops) => ({ tops: Array.from({ length: tops }, () => b[0]!.slice()), params: [] })),
  Silence: () => ({ tops: [], params: [] }),
  Flatten: one((l, b) => {
    const p = param(l, 'flatten_param');
    const input = b[0]!;
    const a = canonicalAxis(getNumber(p, 'FlattenParameter', 'axis'), input.length, 'axis');
    const e = canonicalAxis(getNumber(p, 'FlattenParameter', 'end_axis'), input.length, 'end_axis');
    if (e < a) fail(`end_axis (${e}) comes before axis (${a})`);
    return { tops: [[...input.slice(0, a), count(input, a, e + 1), ...input.slice(e + 1)]], params: [] };
  }),
  Reshape: one((l, b) => {
    const p = param(l, 'reshape_param');
    const input = b[0]!;
    const dims = numbers(message(p, 'shape'), 'dim');
    const inAxis = getNumber(p, 'ReshapeParameter', 'axis');
    const start = inAxis >= 0 ? inAxis : input.length + inAxis + 1;
    if (start < 0 || start > input.length) fail(`axis ${inAxis} is out of range for a ${input.length}-D blob`);
    const numAxes = getNumber(p, 'ReshapeParameter', 'num_axes');
    if (numAxes < -1) fail('num_axes must be >= 0, or -1 for all');
    const end = numAxes === -1 ? input.length : start + numAxes;
    if (end > input.length) fail('axis + num_axes is out of range');
    let inferred = -1;
    let constant = 1;
    const copies: number[] = [];
    dims.forEach((d, i) => {
      if (d === 0) copies.push(i);
      else if (d === -1) {
        if (inferred >= 0) fail('the new shape has more than one -1 dimension');
        inferred = i;
      } else if (d < -1) fail(`the new shape has an invalid dimension ${d}`);
      else constant *= d;
    });
    const out = [...input.slice(0, start), ...dims, ...input.slice(end)];
    for (const c of copies) {
      if (input.length <= start + c) fail('the new shape has a 0 with no corresponding input axis to copy');
      out[start + c] = input[start + c]!;
    }
    if (inferred >= 0) {
      let explicit = constant * count(input, 0, start) * count(input, end);
      for (const c of copies) explicit *= out[start + c]!;
      if (explicit === 0 || count(input) % explicit !== 0) fail(`the input count (${count(input)}) is not divisible by the product of the given dimensions (${explicit})`);
      out[start + inferred] = count(input) / explicit;
    }
    if (count(out) !== count(input)) fail(`the output count (${count(out)}, shape ${fmt(out)}) must equal the input count (${count(input)})`);
    return { tops: [out], params: [] };
  }),
  Softmax: one((l, b) => {
    canonicalAxis(getNumber(param(l, 'softmax_param'), 'SoftmaxParameter', 'axis'), b[0]!.length);
    return same(l, b, 1);
  }),
  Crop: needBottoms(2)((l, b) => {
    const p = param(l, 'crop_param');
    const [x, ref] = b as [Shape, Shape];
    if (x.length !== ref.length) fail(`both bottoms must have the same number of axes (${x.length} vs ${ref.length})`);
    const axis = canonicalAxis(getNumber(p, 'CropParameter', 'axis'), x.length);
    const offsets = numbers(p, 'offset');
    if (offsets.length > 1 && offsets.length !== x.length - axis) fail(`crop takes one offset, or one per cropped axis (${x.length - axis}); it has ${offsets.length}`);
    const out = x.map((d, i) => {
      if (i < axis) return d;
      const off = offsets.length === 0 ? 0 : offsets[offsets.length === 1 ? 0 : i - axis]!;
      if (d - off < ref[i]!) fail(`the crop of axis ${i} (size ${ref[i]}, offset ${off}) runs past the input (size ${d})`);
      return ref[i]!;
    });
    return { tops: [out], params: [] };
  }),
  ArgMax: one((l, b) => {
    const p = param(l, 'argmax_param');
    const input = b[0]!;
    const topK = getNumber(p, 'ArgMaxParameter', 'top_k');
    if (topK < 1) fail('top_k must be at least 1');
    if (has(p, 'axis')) {
      const axis = canonicalAxis(getNumber(p, 'ArgMaxParameter', 'axis'), input.length);
      if (topK > input[axis]!) fail(`top_k (${topK}) must not exceed the size of axis ${axis} (${input[axis]})`);
      return { tops: [input.map((d, i) => (i === axis ? topK : d))], params: [] };
    }
    if (topK > count(input, 1)) fail(`top_k (${topK}) must not exceed the number of classes (${count(input, 1)})`);
    const out = new Array<number>(Math.max(3, input.length)).fill(1);
    out[0] = input[0]!;
    out[2] = topK;
    if (getBool(p, 'ArgMaxParameter', 'out_max_val')) out[1] = 2;
    return { tops: [out], params: [] };
  }),
  SoftmaxWithLoss: needBottoms(2, false)((_l, b, tops) => ({ tops: tops > 1 ? [[], b[0]!.slice()] : [[]], params: [] })),
  EuclideanLoss: needBottoms(2)((_l, b) => {
    if (count(b[0]!, 1) !== count(b[1]!, 1)) fail('both inputs must have the same count per item');
    return { tops: [[]], params: [] };
  }),
  Accuracy: needBottoms(2)((_l, b, tops) => {
    return { tops: tops > 1 ? [[], [b[0]![1] ?? 1]] : [[]], params: [] };
  }),
};

/** Layer types whose top shapes come from outside the net (a database, a file). */
export const DATA_LAYER_TYPES = new Set(['Data', 'ImageData', 'HDF5Data', 'WindowData', 'MemoryData', 'DummyData', 'Python', 'AnnotatedData']);

export function hasShapeRule(type: string): boolean {
  return Object.prototype.hasOwnProperty.call(RULES, type);
}

/** Top shapes and expected learnable blobs of one layer; throws ShapeError when a rule fails. */
export function layerShapes(layer: ProtoMessage, type: string, bottoms: Shape[], tops: number): LayerShapes {
  const rule = RULES[type];
  if (!rule) throw new ShapeError(`layer type '${type}' has no shape rule here`);
  const r = rule(layer, bottoms, tops);
  if (type !== 'Silence' && r.tops.length < tops) fail(`this layer produces ${r.tops.length} top${r.tops.length === 1 ? '' : 's'}; ${tops} are named`);
  for (const t of r.tops) for (const d of t) if (!Number.isSafeInteger(d) || d < 0) fail(`an output dimension (${d}) is not a valid size`);
  return { tops: r.tops.slice(0, tops), params: r.params };
}
