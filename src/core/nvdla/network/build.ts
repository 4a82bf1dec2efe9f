/**
 * Builds the NVDLA `Network` from a Caffe deploy net and its weights exactly as nvdla_compiler's
 * Caffe parser does (caffe.md section 6; `CaffeParser::parse`, `identifyOutputs`, the `Network`
 * add* checks, and the app's tensor scales in `ParseTest.cpp` / `GenerateTest.cpp`):
 *
 * - only V2 `layer` entries are read; a layer with `phase: TEST` is skipped;
 * - Dropout and Flatten alias their top to their bottom; Input adds network inputs;
 * - the 15 parsed types, with the same accept/reject rules and the same messages (in `upstream`);
 * - outputs are the layer outputs no layer consumes; tensor names follow `setTensorNames`.
 *
 * Where upstream has undefined behaviour (a missing layer in the weights, a missing blob, an
 * unknown bottom, too few shape dims) it crashes or reads garbage; here each is a clear error
 * naming the layer. Where it computes something wrong we do it right and say so in a warning:
 * Scale with `bias_term: false`, several `input:` entries, two-valued kernel/stride/pad (read as
 * [w, h] upstream). Eltwise MAX, which the reference always rejects, is accepted with a warning.
 */
import type { CalibrationTable } from '../calibrate/table';
import { scaleOfRange } from '../calibrate/table';
import {
  bool,
  countOf,
  enumName,
  floats,
  has,
  nums,
  num,
  str,
  strs,
  sub,
  subs,
  type CaffeDeploy,
  type CaffeMessage,
  type CaffeWeights,
} from './caffe-input';
import {
  NO_WEIGHTS,
  type ActivationType,
  type BiasMode,
  type ConvolutionParams,
  type Dims2,
  type Dims4,
  type ElementWiseOperation,
  type Network,
  type NetworkLayer,
  type NetworkTensor,
  type NvdlaDiagnostic,
  type Weights,
} from './model';

const f32 = Math.fround;
const MAX_OUTPUT_MAPS = 1 << 28;
const MAX_KERNEL_DIMS_PRODUCT = 100000;
const MAX_STRIDE_SUM = 100000;
const MAX_TENSOR_SIZE = 1 << 30;
const MAX_CONCAT_INPUTS = 10000;

export interface NetworkBuildOptions {
  /** INT8 sets tensor scales (from the calibration table, else constants); FP16 none */
  precision: 'INT8' | 'FP16';
  calibration?: CalibrationTable | null;
}

export interface NetworkBuildResult {
  network: Network | null;
  diagnostics: NvdlaDiagnostic[];
}

/** Thrown inside the builder; turned into the one error diagnostic of the result. */
class Reject extends Error {
  constructor(readonly diagnostic: NvdlaDiagnostic) {
    super(diagnostic.message);
  }
}

const POOL_METHODS = ['MAX', 'AVE', 'STOCHASTIC'];
const ELTWISE_OPS = ['PROD', 'SUM', 'MAX'];
const PHASES = ['TRAIN', 'TEST'];
const NORM_REGIONS = ['ACROSS_CHANNELS', 'WITHIN_CHANNEL'];

/** std::map<std::string> order: bytewise on UTF-8 */
function byteCompare(a: string, b: string): number {
  const enc = new TextEncoder();
  const x = enc.encode(a);
  const y = enc.encode(b);
  const n = Math.min(x.length, y.length);
  for (let i = 0; i < n; i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

interface LayerContext {
  msg: CaffeMessage;
  index: number;
  name: string;
  type: string;
  line?: number;
  column?: number;
}


/**
 * A weights blob's values as float32 with the index of its first NaN (-1: none), kept per blob
 * message: a recompile of the same weights (an option changed) neither converts nor scans them
 * again. The values are only read downstream (passes copy before they change weights).
 */
const blobValueCache = new WeakMap<object, { values: Float32Array; firstNaN: number }>();
function blobValues(b: CaffeMessage): { values: Float32Array; firstNaN: number } {
  let v = blobValueCache.get(b);
  if (!v) {
    const values = floats(b.data)!;
    let firstNaN = -1;
    for (let i = 0; i < values.length; i++) {
      // NaN is the only value not equal to itself
      if (values[i] !== values[i]) {
        firstNaN = i;
        break;
      }
    }
    v = { values, firstNaN };
    blobValueCache.set(b, v);
  }
  return v;
}

class Builder {
  readonly diagnostics: NvdlaDiagnostic[] = [];
  readonly tensors: NetworkTensor[] = [];
  readonly layers: NetworkLayer[] = [];
  readonly inputs: number[] = [];
  /** blob name -> tensor id (BlobNameToTensor) */
  readonly blobs = new Map<string, number>();
  private readonly weightLayers: CaffeMessage[];
  private readonly weightField: 'layer' | 'layers';

  constructor(
    private readonly deploy: CaffeDeploy,
    private readonly weights: CaffeWeights,
  ) {
    const layer = subs(weights.net, 'layer');
    this.weightField = layer.length > 0 ? 'layer' : 'layers';
    this.weightLayers = layer.length > 0 ? layer : subs(weights.net, 'layers');
  }

  reject(ctx: LayerContext | null, message: string, extra: Partial<NvdlaDiagnostic> = {}): never {
    throw new Reject({
      severity: 'error',
      stage: 'network',
      message,
      ...(ctx ? { layer: ctx.name, layerIndex: ctx.index, line: ctx.line, column: ctx.column } : {}),
      ...extra,
    });
  }

  warn(ctx: LayerContext | null, message: string, extra: Partial<NvdlaDiagnostic> = {}): void {
    this.diagnostics.push({
      severity: 'warning',
      stage: 'network',
      message,
      ...(ctx ? { layer: ctx.name, layerIndex: ctx.index, line: ctx.line, column: ctx.column } : {}),
      ...extra,
    });
  }

  /** a failed `API_CHECK_RETVAL` inside `Network::addX`, then the parser's own line */
  apiCheck(ctx: LayerContext, ok: boolean, fn: string, condition: string, message: string): void {
    if (ok) return;
    this.reject(ctx, message, {
      upstream: `Parameter check failed in ${fn}, condition: ${condition}\nerror: parsing layer type ${ctx.type} index ${ctx.index}`,
      upstreamBehaviour: 'rejects',
    });
  }

  addTensor(name: string, dims: Dims4): number {
    const id = this.tensors.length;
    this.tensors.push({ id, name, dims, channelScales: [] });
    return id;
  }

  dims(id: number): Dims4 {
    return this.tensors[id]!.dims;
  }

  /** `(*tensors)[bottom]`: a bottom must name a tensor made earlier (upstream: null -> crash) */
  bottom(ctx: LayerContext, i: number): number {
    const names = strs(ctx.msg, 'bottom');
    const name = names[i];
    if (name === undefined) {
      this.reject(ctx, `layer '${ctx.name}' (${ctx.type}) needs bottom ${i}, but it has ${names.length} bottom${names.length === 1 ? '' : 's'}`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler reads past the end of the bottom list (undefined behaviour)',
      });
    }
    const t = this.blobs.get(name);
    if (t === undefined) {
      this.reject(ctx, `bottom '${name}' of layer '${ctx.name}' is not produced by any earlier layer or input`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler inserts a null tensor for it and crashes in setTensorNames',
      });
    }
    return t;
  }

  top(ctx: LayerContext): string {
    const tops = strs(ctx.msg, 'top');
    if (tops.length === 0) {
      this.reject(ctx, `layer '${ctx.name}' (${ctx.type}) has no top`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler reads top(0) of an empty list (undefined behaviour)',
      });
    }
    return tops[0]!;
  }

  /** `CaffeWeightFactory::operator()`: blob `index` of the weights-file layer named like ctx */
  blob(ctx: LayerContext, index: number, what: string): Weights {
    const layer = this.weightLayers.find((l) => str(l, 'name') === ctx.name);
    if (!layer) {
      this.reject(ctx, `layer '${ctx.name}' has no weights in ${this.weights.file} (no ${this.weightField} of that name)`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler runs past the end of the layer list looking for it (undefined behaviour)',
      });
    }
    const blobs = subs(layer, 'blobs');
    const b = blobs[index];
    if (!b) {
      this.reject(ctx, `layer '${ctx.name}' has ${blobs.length} weight blob${blobs.length === 1 ? '' : 's'} in ${this.weights.file}; the ${what} (blob ${index}) is missing`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler reads blobs(' + index + ') out of range (undefined behaviour)',
      });
    }
    if (countOf(b.data) === 0) {
      this.reject(ctx, `layer '${ctx.name}': the ${what} (blob ${index}) has no 32-bit float data (nvdla_compiler reads only BlobProto.data)`, {
        upstream: `${ctx.name}: ERROR - 32-bit weights not found for 32-bit model`,
        upstreamBehaviour: 'rejects',
      });
    }
    const { values, firstNaN } = blobValues(b);
    if (firstNaN >= 0) {
      this.reject(ctx, `layer '${ctx.name}': the ${what} (blob ${index}) contains NaN at index ${firstNaN}`, {
        upstream: `Unable to parse caffemodel: "${this.deploy.file}"`,
        upstreamBehaviour: 'rejects',
        studio: 'nvdla_compiler fails without naming the layer',
      });
    }
    return { count: values.length, values };
  }

  addLayer(ctx: LayerContext, layer: Omit<NetworkLayer, 'index' | 'name' | 'caffe' | 'origins' | 'outputs'>, outDims: Dims4): NetworkLayer {
    // `newTensorName()` counts the tensors made so far
    const out = this.addTensor(`tensor-anon-${this.tensors.length}`, outDims);
    const full = {
      ...layer,
      index: this.layers.length,
      name: ctx.name,
      caffe: { index: ctx.index, name: ctx.name, type: ctx.type, line: ctx.line, column: ctx.column },
      origins: [ctx.index],
      outputs: [out],
    } as NetworkLayer;
    this.layers.push(full);
    return full;
  }

  // ---------------------------------------------------------------- spatial parameters

  /** kernel/stride/pad/dilation of a ConvolutionParameter, Caffe's [h, w] order */
  spatial(ctx: LayerContext, p: CaffeMessage | undefined, field: string, hField: string | null, wField: string | null, fallback: number): Dims2 {
    const list = nums(p, field);
    let h: number;
    let w: number;
    if (hField && wField && has(p, hField)) h = num(p, hField, fallback);
    else h = list.length > 0 ? list[0]! : fallback;
    if (hField && wField && has(p, wField)) w = num(p, wField, fallback);
    else w = list.length > 1 ? list[1]! : list.length > 0 ? list[0]! : fallback;
    if (list.length > 1 && list[0] !== list[1] && !(hField && has(p, hField)) && !(wField && has(p, wField))) {
      this.warn(ctx, `${field} [${list[0]}, ${list[1]}] of '${ctx.name}' means [h, w] in Caffe; nvdla_compiler reads it as [w, h] and swaps them. NPU Studio uses Caffe's meaning.`, {
        upstreamBehaviour: 'wrong-result',
      });
    }
    return { h, w };
  }

  // ---------------------------------------------------------------- layer handlers

  convolutionParams(ctx: LayerContext, deconv: boolean): { input: number; params: ConvolutionParams; outDims: Dims4 } {
    const p = sub(ctx.msg, 'convolution_param');
    const numOutputs = num(p, 'num_output', 0);
    const numGroups = has(p, 'group') ? num(p, 'group', 1) : 1;
    if (nums(p, 'kernel_size').length === 0 && !(has(p, 'kernel_h') && has(p, 'kernel_w'))) {
      this.reject(ctx, `${ctx.type} '${ctx.name}' has no kernel_size (nor kernel_h and kernel_w)`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler reads kernel_size(0) of an empty list (undefined behaviour)',
      });
    }
    const kernelSize = this.spatial(ctx, p, 'kernel_size', 'kernel_h', 'kernel_w', 0);
    const stride = this.spatial(ctx, p, 'stride', 'stride_h', 'stride_w', 1);
    const pad = this.spatial(ctx, p, 'pad', 'pad_h', 'pad_w', 0);
    const dilation = this.spatial(ctx, p, 'dilation', null, null, 1);
    const kernelWeights = this.blob(ctx, 0, 'kernel weights');
    const biasTerm = !has(p, 'bias_term') || bool(p, 'bias_term', true);
    const biasWeights = biasTerm ? this.blob(ctx, 1, 'bias') : NO_WEIGHTS;
    const biasMode: BiasMode =
      biasWeights.count === 0 ? 'NONE' : biasWeights.count === 1 ? 'UNIFORM' : biasWeights.count === numOutputs ? 'CHANNEL' : 'ELEMENTWISE';
    const input = this.bottom(ctx, 0);
    const fn = deconv ? 'addDeconvolution' : 'addConvolution';
    this.apiCheck(ctx, numOutputs >= 1 && numOutputs < MAX_OUTPUT_MAPS, fn, deconv ? 'numOutputs > 0 && numOutputs < MAX_OUTPUT_MAPS' : 'numOutputChannels >= 1 && numOutputChannels < MAX_OUTPUT_MAPS', `${ctx.type} '${ctx.name}': num_output must be at least 1 (it is ${numOutputs})`);
    this.apiCheck(ctx, kernelSize.h > 0, fn, 'kernelSize.h > 0', `${ctx.type} '${ctx.name}': the kernel height must be positive`);
    this.apiCheck(ctx, kernelSize.w > 0, fn, 'kernelSize.w > 0', `${ctx.type} '${ctx.name}': the kernel width must be positive`);
    this.apiCheck(ctx, kernelSize.h * kernelSize.w < MAX_KERNEL_DIMS_PRODUCT, fn, '(kernelSize.h * kernelSize.w) < MAX_KERNEL_DIMS_PRODUCT', `${ctx.type} '${ctx.name}': a ${kernelSize.h}x${kernelSize.w} kernel is larger than NVDLA accepts (fewer than ${MAX_KERNEL_DIMS_PRODUCT} elements)`);
    if (stride.h <= 0 || stride.w <= 0 || dilation.h <= 0 || dilation.w <= 0) {
      this.reject(ctx, `${ctx.type} '${ctx.name}': stride and dilation must be positive`, { upstreamBehaviour: 'crashes', studio: 'nvdla_compiler divides by the stride when computing the output size' });
    }
    const inDims = this.dims(input);
    let outH: number;
    let outW: number;
    const dh = (kernelSize.h - 1) * dilation.h + 1;
    const dw = (kernelSize.w - 1) * dilation.w + 1;
    if (deconv) {
      outH = (inDims.h - 1) * stride.h + dh - 2 * pad.h;
      outW = (inDims.w - 1) * stride.w + dw - 2 * pad.w;
    } else {
      outH = Math.trunc((inDims.h + 2 * pad.h - dh) / stride.h) + 1;
      outW = Math.trunc((inDims.w + 2 * pad.w - dw) / stride.w) + 1;
    }
    if (outH <= 0 || outW <= 0) {
      this.reject(ctx, `${ctx.type} '${ctx.name}': the output would be ${outH}x${outW} (input ${inDims.h}x${inDims.w}, kernel ${kernelSize.h}x${kernelSize.w}, stride ${stride.h}x${stride.w}, pad ${pad.h}x${pad.w})`, {
        upstreamBehaviour: 'crashes',
      });
    }
    return {
      input,
      params: {
        numOutputMaps: numOutputs,
        paddingValue: 0,
        kernelSize,
        topLeftPadding: pad,
        bottomRightPadding: { ...pad },
        stride,
        dilation,
        kernelWeights,
        biasWeights,
        biasMode,
        numGroups,
      },
      outDims: { n: 1, c: numOutputs, h: outH, w: outW },
    };
  }

  parseLayer(ctx: LayerContext): void {
    const msg = ctx.msg;
    switch (ctx.type) {
      case 'Convolution': {
        const { input, params, outDims } = this.convolutionParams(ctx, false);
        if (params.numGroups < 1) this.reject(ctx, `Convolution '${ctx.name}': group must be at least 1`, { upstreamBehaviour: 'crashes' });
        this.addLayer(ctx, { type: 'CONVOLUTION', params, inputs: [input] }, outDims);
        return;
      }
      case 'Deconvolution': {
        const { input, params, outDims } = this.convolutionParams(ctx, true);
        if (params.numGroups !== 1) {
          // the layer is added to the network, then the parser returns null
          this.reject(ctx, `Deconvolution '${ctx.name}' has group ${params.numGroups}: NVDLA supports only group 1`, {
            upstream: `error: parsing layer type Deconvolution index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        this.addLayer(ctx, { type: 'DECONVOLUTION', params, inputs: [input] }, outDims);
        return;
      }
      case 'Pooling': {
        const p = sub(msg, 'pooling_param');
        const pool = enumName(p, 'pool', POOL_METHODS, 'MAX');
        if (pool !== 'MAX' && pool !== 'AVE') {
          this.reject(ctx, `Pooling '${ctx.name}' uses ${pool}: only MAX and AVE pooling are supported`, {
            upstream: `only AVE and MAX pool operations are supported\nerror: parsing layer type Pooling index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        const input = this.bottom(ctx, 0);
        const inDims = this.dims(input);
        let kernelH: number;
        let kernelW: number;
        if (bool(p, 'global_pooling', false)) {
          kernelH = inDims.h;
          kernelW = inDims.w;
        } else {
          kernelH = has(p, 'kernel_h') ? num(p, 'kernel_h', 0) : num(p, 'kernel_size', 0);
          kernelW = has(p, 'kernel_w') ? num(p, 'kernel_w', 0) : num(p, 'kernel_size', 0);
        }
        const strideH = has(p, 'stride_h') ? num(p, 'stride_h', 1) : num(p, 'stride', 1);
        const strideW = has(p, 'stride_w') ? num(p, 'stride_w', 1) : num(p, 'stride', 1);
        const padH = has(p, 'pad_h') ? num(p, 'pad_h', 0) : num(p, 'pad', 0);
        const padW = has(p, 'pad_w') ? num(p, 'pad_w', 0) : num(p, 'pad', 0);
        const fn = 'addPooling';
        this.apiCheck(ctx, kernelH > 0, fn, 'windowSize.h > 0', `Pooling '${ctx.name}': the window height must be positive`);
        this.apiCheck(ctx, kernelW > 0, fn, 'windowSize.w > 0', `Pooling '${ctx.name}': the window width must be positive`);
        this.apiCheck(ctx, kernelH * kernelW < MAX_KERNEL_DIMS_PRODUCT, fn, '(windowSize.h*windowSize.w) < MAX_KERNEL_DIMS_PRODUCT', `Pooling '${ctx.name}': the window is too large`);
        this.apiCheck(ctx, strideH + strideW < MAX_STRIDE_SUM, fn, '(stride.h + stride.w) < MAX_STRIDE_SUM', `Pooling '${ctx.name}': the stride is too large`);
        this.apiCheck(ctx, padW < kernelW, fn, 'tlPadding.w < windowSize.w', `Pooling '${ctx.name}': pad ${padW} is not smaller than the window width ${kernelW}`);
        this.apiCheck(ctx, padH < kernelH, fn, 'tlPadding.h < windowSize.h', `Pooling '${ctx.name}': pad ${padH} is not smaller than the window height ${kernelH}`);
        if (strideH <= 0 || strideW <= 0) this.reject(ctx, `Pooling '${ctx.name}': the stride must be positive`, { upstreamBehaviour: 'crashes' });
        if (inDims.h + 2 * padH < kernelH || inDims.w + 2 * padW < kernelW) {
          this.reject(ctx, `Pooling '${ctx.name}': the ${kernelH}x${kernelW} window is larger than the padded ${inDims.h}x${inDims.w} input`, {
            upstreamBehaviour: 'crashes',
            studio: 'nvdla_compiler asserts in the pooling output-size formula',
          });
        }
        // NetworkDefaultPoolingFormula / CaffeParserPoolingDimsCallback (Caffe's ceil rounding)
        let outH = Math.ceil(f32((inDims.h + 2 * padH - kernelH) / strideH)) + 1;
        let outW = Math.ceil(f32((inDims.w + 2 * padW - kernelW) / strideW)) + 1;
        if (padH || padW) {
          if ((outH - 1) * strideH >= inDims.h + padH) outH--;
          if ((outW - 1) * strideW >= inDims.w + padW) outW--;
        }
        this.addLayer(
          ctx,
          {
            type: 'POOLING',
            params: {
              poolingType: pool === 'AVE' ? 'AVERAGE' : 'MAX',
              windowSize: { h: kernelH, w: kernelW },
              stride: { h: strideH, w: strideW },
              topLeftPadding: { h: padH, w: padW },
              bottomRightPadding: { h: padH, w: padW },
            },
            inputs: [input],
          },
          { n: 1, c: inDims.c, h: outH, w: outW },
        );
        return;
      }
      case 'InnerProduct': {
        const p = sub(msg, 'inner_product_param');
        const numOutputs = num(p, 'num_output', 0);
        const kernelWeights = this.blob(ctx, 0, 'weights');
        const biasTerm = !has(p, 'bias_term') || bool(p, 'bias_term', true);
        const biasWeights = biasTerm ? this.blob(ctx, 1, 'bias') : NO_WEIGHTS;
        const biasMode: BiasMode =
          biasWeights.count === 0 ? 'NONE' : biasWeights.count === 1 ? 'UNIFORM' : biasWeights.count === numOutputs ? 'CHANNEL' : 'ELEMENTWISE';
        const input = this.bottom(ctx, 0);
        this.apiCheck(ctx, numOutputs >= 1 && numOutputs < MAX_OUTPUT_MAPS, 'addFullyConnected', 'outputSize >= 1 && outputSize < MAX_OUTPUT_MAPS', `InnerProduct '${ctx.name}': num_output must be at least 1 (it is ${numOutputs})`);
        if (has(p, 'axis') && num(p, 'axis', 1) !== 1) this.warn(ctx, `InnerProduct '${ctx.name}': axis is ignored by nvdla_compiler (it flattens C x H x W)`, { upstreamBehaviour: 'ignores' });
        if (bool(p, 'transpose', false)) this.warn(ctx, `InnerProduct '${ctx.name}': transpose is ignored by nvdla_compiler, so its weights are read untransposed`, { upstreamBehaviour: 'ignores' });
        this.addLayer(ctx, { type: 'FULLY_CONNECTED', params: { numOutputChannels: numOutputs, kernelWeights, biasWeights, biasMode }, inputs: [input] }, { n: 1, c: numOutputs, h: 1, w: 1 });
        return;
      }
      case 'ReLU':
      case 'Sigmoid':
      case 'TanH': {
        const input = this.bottom(ctx, 0);
        const activationType: ActivationType = ctx.type === 'ReLU' ? 'RELU' : ctx.type === 'Sigmoid' ? 'SIGMOID' : 'TANH';
        if (ctx.type === 'ReLU' && num(sub(msg, 'relu_param'), 'negative_slope', 0) !== 0) {
          this.warn(ctx, `ReLU '${ctx.name}': negative_slope ${num(sub(msg, 'relu_param'), 'negative_slope', 0)} is ignored by nvdla_compiler, so this leaky ReLU becomes a plain ReLU`, { upstreamBehaviour: 'ignores' });
        }
        this.addLayer(ctx, { type: 'ACTIVATION', params: { activationType }, inputs: [input] }, { ...this.dims(input) });
        return;
      }
      case 'Softmax':
      case 'SoftmaxWithLoss': {
        const input = this.bottom(ctx, 0);
        if (has(sub(msg, 'softmax_param'), 'axis') && num(sub(msg, 'softmax_param'), 'axis', 1) !== 1) {
          this.warn(ctx, `${ctx.type} '${ctx.name}': axis is ignored by nvdla_compiler (softmax over channels)`, { upstreamBehaviour: 'ignores' });
        }
        this.addLayer(ctx, { type: 'SOFTMAX', params: {}, inputs: [input] }, { ...this.dims(input) });
        return;
      }
      case 'LRN': {
        const p = sub(msg, 'lrn_param');
        const localSize = has(p, 'local_size') ? num(p, 'local_size', 5) : 5;
        const alpha = f32(has(p, 'alpha') ? num(p, 'alpha', 1) : 1);
        const beta = f32(has(p, 'beta') ? num(p, 'beta', 5) : 5);
        const k = f32(has(p, 'k') ? num(p, 'k', 1) : 1);
        if (!has(p, 'beta')) this.warn(ctx, `LRN '${ctx.name}' gives no beta: nvdla_compiler uses 5 where Caffe's default is 0.75`, { upstreamBehaviour: 'ignores' });
        if (enumName(p, 'norm_region', NORM_REGIONS, 'ACROSS_CHANNELS') !== 'ACROSS_CHANNELS') {
          this.warn(ctx, `LRN '${ctx.name}': norm_region WITHIN_CHANNEL is ignored by nvdla_compiler (it normalises across channels)`, { upstreamBehaviour: 'ignores' });
        }
        const input = this.bottom(ctx, 0);
        const fn = 'addLRN';
        this.apiCheck(ctx, localSize >= 1 && localSize <= 16, fn, 'lrnWindow >= ILRNLayer::Parameters::minWindowSize() && lrnWindow <= ILRNLayer::Parameters::maxWindowSize()', `LRN '${ctx.name}': local_size ${localSize} is outside 1..16`);
        this.apiCheck(ctx, Math.abs(alpha) <= f32(1e20), fn, 'fabsf(alpha) <= ILRNLayer::Parameters::maxAbsAlpha()', `LRN '${ctx.name}': |alpha| exceeds 1e20`);
        this.apiCheck(ctx, beta >= f32(0.01) && beta <= f32(1e5), fn, 'beta >= ILRNLayer::Parameters::minBeta() && beta <= ILRNLayer::Parameters::maxBeta()', `LRN '${ctx.name}': beta ${beta} is outside 0.01..1e5`);
        this.apiCheck(ctx, k >= f32(1e-5) && k <= f32(1e10), fn, 'k >= ILRNLayer::Parameters::minK() && k <= ILRNLayer::Parameters::maxK()', `LRN '${ctx.name}': k ${k} is outside 1e-5..1e10`);
        this.addLayer(ctx, { type: 'LRN', params: { windowSize: localSize, alpha, beta, k }, inputs: [input] }, { ...this.dims(input) });
        return;
      }
      case 'Power': {
        const p = sub(msg, 'power_param');
        const shift = f32(has(p, 'shift') ? num(p, 'shift', 0) : 0);
        const scale = f32(has(p, 'scale') ? num(p, 'scale', 1) : 1);
        const power = f32(has(p, 'power') ? num(p, 'power', 1) : 1);
        if (power !== 1 || shift !== 0) {
          this.reject(ctx, `Power '${ctx.name}' has power ${power} and shift ${shift}: NVDLA supports only power 1 with shift 0 (a plain scale)`, {
            upstream: `error: parsing layer type Power index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        const input = this.bottom(ctx, 0);
        this.addLayer(
          ctx,
          {
            type: 'SCALE',
            params: {
              mode: 'UNIFORM',
              shift: { count: 1, values: Float32Array.of(shift) },
              scale: { count: 1, values: Float32Array.of(scale) },
              power: { count: 1, values: Float32Array.of(power) },
            },
            inputs: [input],
          },
          { ...this.dims(input) },
        );
        return;
      }
      case 'Eltwise': {
        const p = sub(msg, 'eltwise_param');
        const op = enumName(p, 'operation', ELTWISE_OPS, 'SUM');
        const a = this.bottom(ctx, 0);
        const b = this.bottom(ctx, 1);
        const operation: ElementWiseOperation = op === 'PROD' ? 'PROD' : op === 'MAX' ? 'MAX' : 'SUM';
        if (strs(msg, 'bottom').length > 2) {
          this.warn(ctx, `Eltwise '${ctx.name}' has ${strs(msg, 'bottom').length} bottoms: nvdla_compiler uses the first two and ignores the rest`, { upstreamBehaviour: 'ignores' });
        }
        if (nums(p, 'coeff').some((c) => c !== 1)) {
          this.warn(ctx, `Eltwise '${ctx.name}': coeff is ignored by nvdla_compiler`, { upstreamBehaviour: 'ignores' });
        }
        if (operation === 'MAX') {
          this.warn(ctx, `Eltwise '${ctx.name}' is MAX: nvdla_compiler always rejects it (its parameter check in addElementWise excludes MAX), although SDP can compute it; NPU Studio compiles it`, {
            upstream: `Parameter check failed in addElementWise, condition: int(op) >= 0 && int(op) < EnumMax<ElementWiseOperation>()\nerror: parsing layer type Eltwise index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
            studio: 'accepted: SDP element-wise MAX',
          });
        }
        this.addLayer(ctx, { type: 'ELEMENTWISE', params: { operation }, inputs: [a, b] }, { ...this.dims(a) });
        return;
      }
      case 'Concat': {
        const n = strs(msg, 'bottom').length;
        this.apiCheck(ctx, n > 0 && n < MAX_CONCAT_INPUTS, 'addConcatenation', 'numInputs > 0 && numInputs < MAX_CONCAT_INPUTS', `Concat '${ctx.name}' needs at least one bottom`);
        const inputs: number[] = [];
        for (let i = 0; i < n; i++) inputs.push(this.bottom(ctx, i));
        const p = sub(msg, 'concat_param');
        const axis = has(p, 'axis') ? num(p, 'axis', 1) : has(p, 'concat_dim') ? num(p, 'concat_dim', 1) : 1;
        if (axis !== 1) this.warn(ctx, `Concat '${ctx.name}' has axis ${axis}: nvdla_compiler ignores it and concatenates channels`, { upstreamBehaviour: 'ignores' });
        const first = this.dims(inputs[0]!);
        let c = 0;
        for (const t of inputs) {
          const d = this.dims(t);
          if (d.h !== first.h || d.w !== first.w) {
            this.warn(ctx, `Concat '${ctx.name}': input ${this.tensors[t]!.name} is ${d.h}x${d.w}, the first is ${first.h}x${first.w}; nvdla_compiler does not check this`, { upstreamBehaviour: 'wrong-result' });
          }
          c += d.c;
        }
        this.addLayer(ctx, { type: 'CONCATENATION', params: { numInputs: n }, inputs }, { n: 1, c, h: first.h, w: first.w });
        return;
      }
      case 'BatchNorm': {
        const p = sub(msg, 'batch_norm_param');
        const mean = this.blob(ctx, 0, 'mean');
        const variance = this.blob(ctx, 1, 'variance');
        const movingAverage = this.blob(ctx, 2, 'moving-average factor');
        const eps = f32(num(p, 'eps', 1e-5));
        const average = movingAverage.values![0]!;
        if (average === 0) {
          this.reject(ctx, `BatchNorm '${ctx.name}': the moving-average factor (blob 2) is zero`, {
            upstream: `Batch Normalization moving average is zero \nerror: parsing layer type BatchNorm index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        const scaleFactor = f32(1 / average);
        if (mean.count !== variance.count) {
          this.reject(ctx, `BatchNorm '${ctx.name}': mean has ${mean.count} values and variance ${variance.count}`, {
            upstream: `Mean and variance have differing number of elements ${mean.count} & ${variance.count}\nerror: parsing layer type BatchNorm index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        const input = this.bottom(ctx, 0);
        const inDims = this.dims(input);
        let mode: 'UNIFORM' | 'CHANNEL';
        if (mean.count === 1) mode = 'UNIFORM';
        else if (mean.count === inDims.c) mode = 'CHANNEL';
        else {
          this.reject(ctx, `BatchNorm '${ctx.name}': ${mean.count} means for ${inDims.c} channels (neither one per channel nor one for all)`, {
            upstream: `Unknown batch norm mode\nerror: parsing layer type BatchNorm index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        const m = new Float32Array(mean.count);
        const v = new Float32Array(variance.count);
        for (let i = 0; i < m.length; i++) {
          m[i] = f32(mean.values![i]! * scaleFactor);
          v[i] = f32(variance.values![i]! * scaleFactor);
        }
        this.addLayer(
          ctx,
          { type: 'BATCH_NORM', params: { mode, mean: { count: m.length, values: m }, variance: { count: v.length, values: v }, epsilon: eps }, inputs: [input] },
          { ...inDims },
        );
        return;
      }
      case 'Scale': {
        const p = sub(msg, 'scale_param');
        const scale = this.blob(ctx, 0, 'scale');
        let shift = NO_WEIGHTS;
        if (has(p, 'bias_term')) {
          if (bool(p, 'bias_term', false)) shift = this.blob(ctx, 1, 'bias');
          else {
            this.warn(ctx, `Scale '${ctx.name}' says bias_term: false; nvdla_compiler reads a bias blob whenever bias_term is written at all, and crashes when there is none. NPU Studio uses no bias.`, {
              upstreamBehaviour: 'crashes',
              studio: 'no bias, as Caffe means',
            });
          }
        }
        const input = this.bottom(ctx, 0);
        const inDims = this.dims(input);
        if (strs(msg, 'bottom').length > 1) {
          this.reject(ctx, `Scale '${ctx.name}' has ${strs(msg, 'bottom').length} bottoms: NVDLA supports a Scale with learned parameters only (one bottom)`, {
            upstream: `Parser can't handle more than 1 inputs to scale op\nerror: parsing layer type Scale index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        let mode: 'UNIFORM' | 'CHANNEL' | 'ELEMENTWISE';
        if (scale.count === 1) mode = 'UNIFORM';
        else if (scale.count === inDims.c) mode = 'CHANNEL';
        else if (scale.count === inDims.c * inDims.h * inDims.w) mode = 'ELEMENTWISE';
        else {
          this.reject(ctx, `Scale '${ctx.name}': ${scale.count} scale values fit neither 1, ${inDims.c} channels nor ${inDims.c * inDims.h * inDims.w} elements`, {
            upstream: `Unknown scale mode\nerror: parsing layer type Scale index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        if (shift.count > 0 && shift.count !== scale.count) {
          this.reject(ctx, `Scale '${ctx.name}': ${shift.count} bias values for ${scale.count} scale values`, {
            upstream: `Bias dims not same as scale dims\nerror: parsing layer type Scale index ${ctx.index}`,
            upstreamBehaviour: 'rejects',
          });
        }
        this.addLayer(ctx, { type: 'SCALE', params: { mode, shift, scale, power: NO_WEIGHTS }, inputs: [input] }, { ...inDims });
        return;
      }
      default:
        this.reject(ctx, `layer '${ctx.name}' has type ${ctx.type}, which NVDLA's Caffe parser does not support`, {
          upstream: `could not parse layer type ${ctx.type}`,
          upstreamBehaviour: 'rejects',
        });
    }
  }

  checkInputDims(ctx: LayerContext | null, name: string, dims: number[], where: string): Dims4 {
    if (dims.length < 4) {
      this.reject(ctx, `${where} of '${name}' has ${dims.length} dimension${dims.length === 1 ? '' : 's'}; NVDLA needs N, C, H, W`, {
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler reads four dims whatever the shape holds (undefined behaviour)',
      });
    }
    const d: Dims4 = { n: Math.trunc(dims[0]!), c: Math.trunc(dims[1]!), h: Math.trunc(dims[2]!), w: Math.trunc(dims[3]!) };
    if (dims.length > 4) this.warn(ctx, `${where} of '${name}' has ${dims.length} dimensions: nvdla_compiler uses the first four`, { upstreamBehaviour: 'ignores' });
    if (!(d.n > 0 && d.c > 0 && d.h > 0 && d.w > 0 && d.c * d.h * d.w < MAX_TENSOR_SIZE)) {
      this.reject(ctx, `input '${name}' has shape ${d.n}x${d.c}x${d.h}x${d.w}: every dimension must be positive and C x H x W below 2^30`, {
        upstream: 'Parameter check failed in addInput, condition: dims.n > 0 && dims.c > 0 && dims.h > 0 && dims.w > 0 && uint64_t(dims.c)*uint64_t(dims.h)*uint64_t(dims.w) < MAX_TENSOR_SIZE',
        upstreamBehaviour: 'rejects',
      });
    }
    return d;
  }

  addInput(name: string, dims: Dims4): void {
    const id = this.addTensor(name, dims);
    this.inputs.push(id);
    this.blobs.set(name, id);
  }

  run(): Network {
    const net = this.deploy.net;
    // 1. legacy `input:` entries (input_shape, else input_dim)
    const inputNames = strs(net, 'input');
    const inputShapes = subs(net, 'input_shape');
    const inputDim = nums(net, 'input_dim');
    if (inputNames.length > 1) {
      this.warn(null, `the net lists ${inputNames.length} inputs (${inputNames.join(', ')}): nvdla_compiler names every one of them '${inputNames[0]}' and then crashes building the graph. NPU Studio keeps each input's own name.`, {
        upstreamBehaviour: 'crashes',
        studio: 'each input keeps its name',
      });
    }
    for (let i = 0; i < inputNames.length; i++) {
      const dims = inputShapes.length > 0 ? nums(inputShapes[i], 'dim') : inputDim.slice(i * 4, i * 4 + 4);
      this.addInput(inputNames[i]!, this.checkInputDims(null, inputNames[i]!, dims, inputShapes.length > 0 ? 'input_shape' : 'input_dim'));
    }

    // 2. layers (V2 only; V1 `layers` and V0 nets are ignored upstream without a message)
    const layers = subs(net, 'layer');
    if (layers.length === 0 && subs(net, 'layers').length > 0) {
      this.warn(null, `the prototxt uses the V1 'layers' format: nvdla_compiler's parser reads only V2 'layer' entries and ignores these without a message, so the network has no layers`, {
        upstreamBehaviour: 'ignores',
      });
    }
    const sources = this.deploy.layerSources ?? [];
    layers.forEach((msg, index) => {
      const ctx: LayerContext = { msg, index, name: str(msg, 'name'), type: str(msg, 'type'), line: sources[index]?.line, column: sources[index]?.column };
      const pooling = sub(msg, 'pooling_param');
      if (pooling && has(pooling, 'round_mode')) {
        this.reject(ctx, `Pooling '${ctx.name}' sets round_mode, a caffe.proto field that nvdla_compiler's ditcaffe.proto lacks, so it cannot read this prototxt`, {
          upstream: 'Caffe Parser: could not parse text file\nCould not parse deploy file',
          upstreamBehaviour: 'rejects',
        });
      }
    });
    layers.forEach((msg, index) => {
      const ctx: LayerContext = { msg, index, name: str(msg, 'name'), type: str(msg, 'type'), line: sources[index]?.line, column: sources[index]?.column };
      if (has(msg, 'phase') && enumName(msg, 'phase', PHASES, 'TRAIN') === 'TEST') {
        this.diagnostics.push({ severity: 'info', stage: 'network', message: `layer '${ctx.name}' has phase: TEST and is skipped, as nvdla_compiler does`, layer: ctx.name, layerIndex: index, line: ctx.line, column: ctx.column, upstreamBehaviour: 'same' });
        return;
      }
      if (ctx.type === 'Dropout' || ctx.type === 'Flatten') {
        const t = this.bottom(ctx, 0);
        this.blobs.set(this.top(ctx), t);
        if (ctx.type === 'Flatten') {
          this.warn(ctx, `Flatten '${ctx.name}' is ignored (its top is its bottom), as nvdla_compiler does`, { upstream: 'Warning: Flatten layer ignored.', upstreamBehaviour: 'same' });
        }
        return;
      }
      if (ctx.type === 'Input') {
        const shapes = subs(sub(msg, 'input_param'), 'shape');
        strs(msg, 'top').forEach((top, i) => {
          const shape = shapes[i];
          if (!shape) {
            this.reject(ctx, `Input '${ctx.name}' has no shape for top ${i} ('${top}'); nvdla_compiler needs one shape per top`, {
              upstreamBehaviour: 'crashes',
              studio: 'nvdla_compiler reads shape(' + i + ') out of range (undefined behaviour)',
            });
          }
          this.addInput(top, this.checkInputDims(ctx, top, nums(shape, 'dim'), 'the shape'));
        });
        return;
      }
      const nInputsBefore = this.layers.length;
      this.parseLayer(ctx);
      if (this.layers.length > nInputsBefore) {
        const layer = this.layers[this.layers.length - 1]!;
        this.blobs.set(this.top(ctx), layer.outputs[0]!);
      }
    });

    // 3. setTensorNames: every blob name, in std::map order, names its tensor (last one wins)
    const names = [...this.blobs.keys()].sort(byteCompare);
    for (const name of names) this.tensors[this.blobs.get(name)!]!.name = name;

    // 4. identifyOutputs: layer outputs no layer consumes, in tensor order
    const consumed = new Set<number>();
    for (const l of this.layers) for (const t of l.inputs) consumed.add(t);
    const outputs: number[] = [];
    for (const l of this.layers) for (const t of l.outputs) if (!consumed.has(t) && !outputs.includes(t)) outputs.push(t);
    outputs.sort((a, b) => a - b);
    if (outputs.length === 0) {
      this.reject(null, this.layers.length === 0 ? 'the network has no layers NVDLA can compile, so it has no outputs' : 'every layer output is consumed by another layer, so the network has no outputs', {
        upstream: 'Marking total 0 outputs\nUnable to identify outputs for the network: 0',
        upstreamBehaviour: 'rejects',
      });
    }
    const seen = new Set<string>();
    const layerSources: { id: number; name: string }[] = [];
    for (const l of this.layers) {
      if (!seen.has(String(l.caffe.index))) {
        seen.add(String(l.caffe.index));
        layerSources.push({ id: l.caffe.index, name: l.caffe.name });
      }
    }
    return { tensors: this.tensors, layers: this.layers, inputs: this.inputs, outputs, sources: layerSources };
  }
}

/** INT8 tensor scales, as nvdla_compiler's app sets them after parsing (nvdla.md 8.1). */
function applyTensorScales(network: Network, calibration: CalibrationTable | null | undefined, diagnostics: NvdlaDiagnostic[]): void {
  const setRange = (t: NetworkTensor, min: number, max: number) => {
    const s = scaleOfRange(min, max);
    t.channelScales = new Array<number>(t.dims.c).fill(s);
  };
  const lookup = (key: string, what: string) => {
    const e = calibration!.entries[key];
    if (!e) {
      throw new Reject({
        severity: 'error',
        stage: 'network',
        message: `the calibration table ${calibration!.file} has no entry for ${what} '${key}'`,
        ...(what === 'layer' ? { layer: key } : {}),
        upstreamBehaviour: 'crashes',
        studio: 'nvdla_compiler indexes the JSON document with a missing key (undefined behaviour)',
      });
    }
    return e;
  };
  for (const id of network.inputs) {
    const t = network.tensors[id]!;
    if (calibration) {
      const e = lookup(t.name, 'input');
      setRange(t, e.min, e.max);
    } else setRange(t, -127, 127);
  }
  for (const l of network.layers) {
    const t = network.tensors[l.outputs[0]!]!;
    if (calibration) {
      const e = lookup(l.name, 'layer');
      setRange(t, e.min, e.max);
    } else setRange(t, f32(127 * -127), f32(127 * 127));
  }
  diagnostics.push({
    severity: 'info',
    stage: 'network',
    message: calibration ? `tensor scales from ${calibration.file}` : 'no calibration table: every input gets scale 1 and every layer output scale 127, as nvdla_compiler does',
    upstream: calibration ? 'parsing calibration table...' : 'initialize all tensors with const scaling factors of 127...',
    upstreamBehaviour: 'same',
  });
}

/** nvdla_compiler's Caffe parser: the `Network`, or null with the reason in `diagnostics`. */
export function buildNetwork(deploy: CaffeDeploy, weights: CaffeWeights, options: NetworkBuildOptions): NetworkBuildResult {
  const builder = new Builder(deploy, weights);
  try {
    const network = builder.run();
    if (options.precision === 'INT8') applyTensorScales(network, options.calibration, builder.diagnostics);
    return { network, diagnostics: builder.diagnostics };
  } catch (e) {
    if (e instanceof Reject) return { network: null, diagnostics: [...builder.diagnostics, e.diagnostic] };
    throw e;
  }
}
