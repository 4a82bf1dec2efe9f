/**
 * The NVDLA `Network` (nvdla/sw `Network.cpp`, `Layer.cpp`): what nvdla_compiler's Caffe parser
 * builds, layer by layer, before any graph exists. Plain data; weights are float32 arrays shared
 * (never copied) with the stages that follow.
 */
import type { OriginSet } from '../../origin';

export interface Dims4 {
  n: number;
  c: number;
  h: number;
  w: number;
}

export interface Dims2 {
  h: number;
  w: number;
}

/** `nvdla::Weights`: a count and the values (null when count is 0). */
export interface Weights {
  count: number;
  values: Float32Array | null;
}

export const NO_WEIGHTS: Weights = Object.freeze({ count: 0, values: null }) as Weights;

export type LayerType =
  | 'CONVOLUTION'
  | 'FULLY_CONNECTED'
  | 'ACTIVATION'
  | 'POOLING'
  | 'LRN'
  | 'SCALE'
  | 'BATCH_NORM'
  | 'SOFTMAX'
  | 'DECONVOLUTION'
  | 'CONCATENATION'
  | 'ELEMENTWISE'
  | 'SLICE';

export type BiasMode = 'NONE' | 'UNIFORM' | 'CHANNEL' | 'ELEMENTWISE';
export type ScaleMode = 'UNIFORM' | 'CHANNEL' | 'ELEMENTWISE';
export type BatchNormMode = 'UNIFORM' | 'CHANNEL';
export type ActivationType = 'RELU' | 'SIGMOID' | 'TANH';
export type PoolingType = 'MAX' | 'AVERAGE';
export type ElementWiseOperation = 'SUM' | 'PROD' | 'MAX';

export interface ConvolutionParams {
  numOutputMaps: number;
  paddingValue: number;
  kernelSize: Dims2;
  topLeftPadding: Dims2;
  bottomRightPadding: Dims2;
  stride: Dims2;
  dilation: Dims2;
  kernelWeights: Weights;
  biasWeights: Weights;
  biasMode: BiasMode;
  numGroups: number;
}

export interface FullyConnectedParams {
  numOutputChannels: number;
  kernelWeights: Weights;
  biasWeights: Weights;
  biasMode: BiasMode;
}

export interface ActivationParams {
  activationType: ActivationType;
}

export interface PoolingParams {
  poolingType: PoolingType;
  windowSize: Dims2;
  stride: Dims2;
  topLeftPadding: Dims2;
  bottomRightPadding: Dims2;
}

export interface LRNParams {
  windowSize: number;
  alpha: number;
  beta: number;
  k: number;
}

export interface ScaleParams {
  mode: ScaleMode;
  shift: Weights;
  scale: Weights;
  power: Weights;
}

export interface BatchNormParams {
  mode: BatchNormMode;
  /** already divided by the moving-average factor (blob 2), as the parser stores them */
  mean: Weights;
  variance: Weights;
  epsilon: number;
}

export interface ElementWiseParams {
  operation: ElementWiseOperation;
}

export interface SliceParams {
  numOutputs: number;
}

interface LayerBase {
  /** index in `Network.layers` */
  index: number;
  /** the Caffe layer name (`layer->setName`) */
  name: string;
  /** the Caffe layer this came from */
  caffe: { index: number; name: string; type: string; line?: number; column?: number };
  /** origin ids (core/origin): the Caffe layer index */
  origins: OriginSet;
  /** tensor ids */
  inputs: number[];
  outputs: number[];
}

export type NetworkLayer = LayerBase &
  (
    | { type: 'CONVOLUTION'; params: ConvolutionParams }
    | { type: 'DECONVOLUTION'; params: ConvolutionParams }
    | { type: 'FULLY_CONNECTED'; params: FullyConnectedParams }
    | { type: 'ACTIVATION'; params: ActivationParams }
    | { type: 'POOLING'; params: PoolingParams }
    | { type: 'LRN'; params: LRNParams }
    | { type: 'SCALE'; params: ScaleParams }
    | { type: 'BATCH_NORM'; params: BatchNormParams }
    | { type: 'SOFTMAX'; params: Record<string, never> }
    | { type: 'CONCATENATION'; params: { numInputs: number } }
    | { type: 'ELEMENTWISE'; params: ElementWiseParams }
    | { type: 'SLICE'; params: SliceParams }
  );

export interface NetworkTensor {
  id: number;
  /** final name (`setTensorNames`: the last blob name, in byte order, that refers to it) */
  name: string;
  dims: Dims4;
  /** per-channel scales (INT8 only; `setChannelDynamicRange`) */
  channelScales: number[];
}

export interface Network {
  /** all tensors, in creation order (inputs and layer outputs) */
  tensors: NetworkTensor[];
  layers: NetworkLayer[];
  /** tensor ids */
  inputs: number[];
  outputs: number[];
  /** origin id -> Caffe layer name (the source table of core/origin) */
  sources: { id: number; name: string }[];
}

/** Where nvdla_compiler stands on something, for diagnostics that compare with it. */
export type UpstreamBehaviour =
  | 'rejects' // nvdla_compiler refuses with a message; we say the same
  | 'crashes' // undefined behaviour / segfault upstream; we give a clear error or do it right
  | 'wrong-result' // upstream compiles but the result is wrong; we do it right or refuse
  | 'ignores' // upstream silently ignores a parameter; we warn
  | 'same'; // information only

export interface NvdlaDiagnostic {
  severity: 'error' | 'warning' | 'info';
  /** the stage that found it */
  stage: 'options' | 'network' | 'canonical' | 'engine' | 'passes' | 'memory' | 'emit';
  message: string;
  /** Caffe layer name and index in the prototxt's `layer` list, when it concerns a layer */
  layer?: string;
  layerIndex?: number;
  line?: number;
  column?: number;
  /** what nvdla_compiler prints, where it prints something */
  upstream?: string;
  upstreamBehaviour?: UpstreamBehaviour;
  /** what NPU Studio does differently, when it does */
  studio?: string;
}
