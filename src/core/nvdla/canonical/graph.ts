/**
 * The canonical AST (`canonical_ast::generateGraph`, CanonicalAST.cpp): one node per network
 * layer (`n-0`, `n-1`, ... in layer order) with the layer's parameters, and one edge per tensor
 * (`e-0`, ... numbered as the edges are first met: for each node in order, its input tensors, then
 * its output tensors). Plain data.
 */
import type { OriginSet } from '../../origin';
import type {
  ActivationParams,
  BatchNormMode,
  BiasMode,
  Dims2,
  Dims4,
  ElementWiseOperation,
  LRNParams,
  Network,
  NetworkLayer,
  PoolingType,
  ScaleMode,
  Weights,
} from '../network/model';

export type CanonicalOpType =
  | 'CONVOLUTION'
  | 'FULLY_CONNECTED'
  | 'ACTIVATION'
  | 'POOLING'
  | 'LRN'
  | 'SCALE'
  | 'BATCH_NORM'
  | 'SOFTMAX'
  | 'CONCATENATION'
  | 'DECONVOLUTION'
  | 'ELEMENTWISE'
  | 'SPLIT';

export type TensorType = 'IO' | 'NW_INPUT' | 'NW_OUTPUT' | 'STREAM' | 'WEIGHT' | 'BIAS' | 'BATCH_NORM' | 'SCALE' | 'DEBUG';

export interface GraphTensor {
  name: string;
  dims: Dims4;
  type: TensorType;
  /** per-channel scales (INT8), copied from the network tensor */
  channelScales: number[];
}

/** Parameters of a convolution-like node (conv, deconv) in canonical form. */
export interface CanonicalConvParams {
  biasMode: BiasMode;
  hasBiasTerm: boolean;
  topLeftPadding: Dims2;
  bottomRightPadding: Dims2;
  paddingValue: number;
  stride: Dims2;
  dilation: Dims2;
  weights: Weights;
  biasData: Weights;
  numGroups: number;
  /** n = output maps, c = weights.count / (n kh kw), h, w = kernel */
  weightDims: Dims4;
  biasDims: Dims4 | null;
}

export interface CanonicalFCParams {
  biasMode: BiasMode;
  hasBiasTerm: boolean;
  weights: Weights;
  biasData: Weights;
  /** n = outputs, c h w = the input's */
  weightDims: Dims4;
  biasDims: Dims4 | null;
}

export interface CanonicalPoolingParams {
  poolType: PoolingType;
  topLeftPadding: Dims2;
  bottomRightPadding: Dims2;
  kernelDims: Dims2;
  stride: Dims2;
}

export interface CanonicalScaleParams {
  mode: ScaleMode;
  shift: Weights;
  scale: Weights;
  power: Weights;
  hasBiasTerm: boolean;
  scaleDims: Dims4;
  shiftDims: Dims4 | null;
  powerDims: Dims4 | null;
}

export interface CanonicalBatchNormParams {
  mode: BatchNormMode;
  mean: Weights;
  variance: Weights;
  epsilon: number;
  meanDims: Dims4;
  varianceDims: Dims4;
}

interface NodeBase {
  /** `n-<i>` */
  id: string;
  /** the network layer's name (the Caffe layer name) */
  name: string;
  /** origin ids (Caffe layer indexes), core/origin's model */
  origins: OriginSet;
  /** edge ids, in the order upstream marks them */
  inputEdges: string[];
  outputEdges: string[];
}

export type CanonicalNode = NodeBase &
  (
    | { opType: 'CONVOLUTION'; params: CanonicalConvParams }
    | { opType: 'DECONVOLUTION'; params: CanonicalConvParams }
    | { opType: 'FULLY_CONNECTED'; params: CanonicalFCParams }
    | { opType: 'ACTIVATION'; params: ActivationParams }
    | { opType: 'POOLING'; params: CanonicalPoolingParams }
    | { opType: 'LRN'; params: { localSize: number; alpha: number; beta: number; k: number } }
    | { opType: 'SCALE'; params: CanonicalScaleParams }
    | { opType: 'BATCH_NORM'; params: CanonicalBatchNormParams }
    | { opType: 'SOFTMAX'; params: Record<string, never> }
    | { opType: 'CONCATENATION'; params: { numInputs: number } }
    | { opType: 'ELEMENTWISE'; params: { type: ElementWiseOperation } }
    | { opType: 'SPLIT'; params: { numOutputs: number } }
  );

export interface CanonicalEdge {
  /** `e-<i>` */
  id: string;
  tensor: GraphTensor;
  /** node ids producing (FIRST side) and consuming (SECOND side) the tensor */
  sources: string[];
  targets: string[];
}

export interface CanonicalGraph {
  nodes: CanonicalNode[];
  edges: CanonicalEdge[];
  /** edge ids of the network inputs and outputs, in network order */
  inputEdges: string[];
  outputEdges: string[];
}

function biasDimsOf(mode: BiasMode, count: number, input: Dims4): Dims4 | null {
  switch (mode) {
    case 'UNIFORM':
      return { n: 1, c: 1, h: 1, w: 1 };
    case 'CHANNEL':
      return { n: 1, c: count, h: 1, w: 1 };
    case 'ELEMENTWISE':
      return { n: 1, c: input.c, h: input.h, w: input.w };
    default:
      return null;
  }
}

function convParams(layer: NetworkLayer & { type: 'CONVOLUTION' | 'DECONVOLUTION' }, input: Dims4): CanonicalConvParams {
  const p = layer.params;
  const hasBiasTerm = p.biasWeights.count > 0;
  const kernChannels = Math.floor(p.kernelWeights.count / (p.numOutputMaps * p.kernelSize.h * p.kernelSize.w)) >>> 0;
  return {
    biasMode: p.biasMode,
    hasBiasTerm,
    topLeftPadding: { ...p.topLeftPadding },
    bottomRightPadding: { ...p.bottomRightPadding },
    paddingValue: p.paddingValue,
    stride: { ...p.stride },
    dilation: { ...p.dilation },
    weights: p.kernelWeights,
    biasData: p.biasWeights,
    numGroups: p.numGroups,
    weightDims: { n: p.numOutputMaps, c: kernChannels, h: p.kernelSize.h, w: p.kernelSize.w },
    biasDims: hasBiasTerm ? biasDimsOf(p.biasMode, p.biasWeights.count, input) : null,
  };
}

function nodeOf(layer: NetworkLayer, id: string, network: Network): CanonicalNode {
  const base: NodeBase = { id, name: layer.name, origins: [...layer.origins], inputEdges: [], outputEdges: [] };
  const input = network.tensors[layer.inputs[0]!]!.dims;
  switch (layer.type) {
    case 'CONVOLUTION':
      return { ...base, opType: 'CONVOLUTION', params: convParams(layer, input) };
    case 'DECONVOLUTION':
      return { ...base, opType: 'DECONVOLUTION', params: convParams(layer, input) };
    case 'FULLY_CONNECTED': {
      const p = layer.params;
      const hasBiasTerm = p.biasWeights.count > 0;
      return {
        ...base,
        opType: 'FULLY_CONNECTED',
        params: {
          biasMode: p.biasMode,
          hasBiasTerm,
          weights: p.kernelWeights,
          biasData: p.biasWeights,
          weightDims: { n: p.numOutputChannels, c: input.c, h: input.h, w: input.w },
          biasDims: hasBiasTerm ? biasDimsOf(p.biasMode, p.biasWeights.count, input) : null,
        },
      };
    }
    case 'ACTIVATION':
      return { ...base, opType: 'ACTIVATION', params: { ...layer.params } };
    case 'POOLING': {
      const p = layer.params;
      return {
        ...base,
        opType: 'POOLING',
        params: { poolType: p.poolingType, topLeftPadding: { ...p.topLeftPadding }, bottomRightPadding: { ...p.bottomRightPadding }, kernelDims: { ...p.windowSize }, stride: { ...p.stride } },
      };
    }
    case 'LRN': {
      const p: LRNParams = layer.params;
      return { ...base, opType: 'LRN', params: { localSize: p.windowSize, alpha: p.alpha, beta: p.beta, k: p.k } };
    }
    case 'SCALE': {
      const p = layer.params;
      const scaleDims: Dims4 =
        p.mode === 'UNIFORM' ? { n: 1, c: 1, h: 1, w: 1 } : p.mode === 'CHANNEL' ? { n: 1, c: p.scale.count, h: 1, w: 1 } : { n: 1, c: input.c, h: input.h, w: input.w };
      const hasBiasTerm = p.shift.count > 0;
      return {
        ...base,
        opType: 'SCALE',
        params: {
          mode: p.mode,
          shift: p.shift,
          scale: p.scale,
          power: p.power,
          hasBiasTerm,
          scaleDims,
          shiftDims: hasBiasTerm ? { ...scaleDims } : null,
          powerDims: p.power.count > 0 ? { n: 1, c: 1, h: 1, w: 1 } : null,
        },
      };
    }
    case 'BATCH_NORM': {
      const p = layer.params;
      const meanDims: Dims4 = p.mode === 'UNIFORM' ? { n: 1, c: 1, h: 1, w: 1 } : { n: 1, c: p.mean.count, h: 1, w: 1 };
      return { ...base, opType: 'BATCH_NORM', params: { mode: p.mode, mean: p.mean, variance: p.variance, epsilon: p.epsilon, meanDims, varianceDims: { ...meanDims } } };
    }
    case 'SOFTMAX':
      return { ...base, opType: 'SOFTMAX', params: {} };
    case 'CONCATENATION':
      return { ...base, opType: 'CONCATENATION', params: { numInputs: layer.inputs.length } };
    case 'ELEMENTWISE':
      return { ...base, opType: 'ELEMENTWISE', params: { type: layer.params.operation } };
    case 'SLICE':
      return { ...base, opType: 'SPLIT', params: { numOutputs: layer.params.numOutputs } };
  }
}

/** `canonical_ast::generateGraph(network)` */
export function generateCanonicalGraph(network: Network): CanonicalGraph {
  const nodes = network.layers.map((l, i) => nodeOf(l, `n-${i}`, network));
  const edges: CanonicalEdge[] = [];
  const edgeOfTensor = new Map<number, CanonicalEdge>();
  const inputEdges: (string | null)[] = network.inputs.map(() => null);
  const outputEdges: (string | null)[] = network.outputs.map(() => null);

  network.layers.forEach((layer, li) => {
    const node = nodes[li]!;
    const io: [number, boolean][] = [...layer.inputs.map((t): [number, boolean] => [t, true]), ...layer.outputs.map((t): [number, boolean] => [t, false])];
    for (const [tid, isInput] of io) {
      let edge = edgeOfTensor.get(tid);
      if (!edge) {
        const t = network.tensors[tid]!;
        edge = { id: `e-${edges.length}`, tensor: { name: t.name, dims: { ...t.dims }, type: 'IO', channelScales: [...t.channelScales] }, sources: [], targets: [] };
        edges.push(edge);
        edgeOfTensor.set(tid, edge);
      }
      if (isInput) {
        edge.targets.push(node.id);
        const k = network.inputs.indexOf(tid);
        if (k >= 0) {
          inputEdges[k] = edge.id;
          edge.tensor.type = 'NW_INPUT';
        }
        node.inputEdges.push(edge.id);
      } else {
        edge.sources.push(node.id);
        const k = network.outputs.indexOf(tid);
        if (k >= 0) {
          outputEdges[k] = edge.id;
          edge.tensor.type = 'NW_OUTPUT';
        }
        node.outputEdges.push(edge.id);
      }
    }
  });
  return {
    nodes,
    edges,
    inputEdges: inputEdges.filter((e): e is string => e !== null),
    outputEdges: outputEdges.filter((e): e is string => e !== null),
  };
}
