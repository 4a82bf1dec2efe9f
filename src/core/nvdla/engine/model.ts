/**
 * The engine AST (nvdla/sw `engine_ast`): engine nodes named as NVDLA names them (`dc-conv-0`,
 * `bias-0`, `pdp-0`, ...), data edges (a tensor on a wire, auxiliary when it carries weights,
 * bias, scale or batch-norm data), compute and hazard edges (ordering only), and, once registered,
 * tensor surfaces `tsd-N` and buffers `tb-N`. Plain data: every pass returns a new graph (weights
 * are float32 arrays shared between the graphs, never copied).
 */
import type { OriginSet } from '../../origin';
import type { GraphTensor } from '../canonical/graph';
import type { ActivationType, BiasMode, Dims2, Dims4, ElementWiseOperation, PoolingType, Weights } from '../network/model';
import type { DataFormat } from '../surface';
import type { WeightBlob } from './weights';

export type EngineType = 'CPU' | 'CONVOLUTION' | 'RUBIK' | 'SDP' | 'PDP' | 'CDP' | 'BDMA' | 'CONCATENATION' | 'SPLIT' | 'MULTI_OPS';

export type EngineOpType =
  | 'CPU_SCALE'
  | 'CPU_SOFTMAX'
  | 'CONVOLUTION_CONV'
  | 'CONVOLUTION_FC'
  | 'CONVOLUTION_DECONV'
  | 'RUBIK_DECONV'
  | 'SDP_ACTIVATION'
  | 'SDP_SCALE'
  | 'SDP_BATCH_NORM'
  | 'SDP_ELEMENTWISE'
  | 'SDP_BIAS'
  | 'SDP_NOP'
  | 'PDP_POOL'
  | 'CDP_LRN'
  | 'BDMA_SINGLE_DMA'
  | 'BDMA_GROUP_DMA'
  | 'CONCATENATION_CONCAT'
  | 'SPLIT_SOFTWARE'
  | 'SDP_SUPER';

export const ENGINE_TYPE_OF: Record<EngineOpType, EngineType> = {
  CPU_SCALE: 'CPU',
  CPU_SOFTMAX: 'CPU',
  CONVOLUTION_CONV: 'CONVOLUTION',
  CONVOLUTION_FC: 'CONVOLUTION',
  CONVOLUTION_DECONV: 'CONVOLUTION',
  RUBIK_DECONV: 'RUBIK',
  SDP_ACTIVATION: 'SDP',
  SDP_SCALE: 'SDP',
  SDP_BATCH_NORM: 'SDP',
  SDP_ELEMENTWISE: 'SDP',
  SDP_BIAS: 'SDP',
  SDP_NOP: 'SDP',
  SDP_SUPER: 'SDP',
  PDP_POOL: 'PDP',
  CDP_LRN: 'CDP',
  BDMA_SINGLE_DMA: 'BDMA',
  BDMA_GROUP_DMA: 'BDMA',
  CONCATENATION_CONCAT: 'CONCATENATION',
  SPLIT_SOFTWARE: 'SPLIT',
};

export type ConvolutionMode = 'UNKNOWN' | 'DIRECT' | 'WINOGRAD';
export type SDPMode = 'UNKNOWN' | 'PER_LAYER' | 'PER_CHANNEL' | 'PER_ELEMENT';
export type SDPALUType = 'UNKNOWN' | 'MAX' | 'MIN' | 'SUM' | 'EQL';
export type SDPOpType = 'UNKNOWN' | 'NONE' | 'MUL' | 'ADD' | 'BOTH';
export type SDPActType = 'UNKNOWN' | 'NONE' | 'RELU' | 'SIGMOID' | 'TANH';

/** one SDP sub-engine (X1, X2 or Y) */
export interface SDPSubEngineParams {
  enabled: boolean;
  mode: SDPMode;
  aluType: SDPALUType;
  opType: SDPOpType;
  actType: SDPActType;
  truncate: number;
  shiftValue: number;
  aluOperand: number;
  mulOperand: number;
  precision: 'UNKNOWN' | 'INT8' | 'INT16' | 'FP16';
  /** INT8: the op carries rescaling factors beside its own data */
  isINT8Rescaling: boolean;
}

export function disabledSubEngine(): SDPSubEngineParams {
  return { enabled: false, mode: 'UNKNOWN', aluType: 'UNKNOWN', opType: 'NONE', actType: 'NONE', truncate: 0, shiftValue: 0, aluOperand: 0, mulOperand: 0, precision: 'UNKNOWN', isINT8Rescaling: false };
}

/** an enabled sub-engine with the given fields (the rest at their defaults) */
export function subEngine(fields: Partial<SDPSubEngineParams>): SDPSubEngineParams {
  return { ...disabledSubEngine(), enabled: true, ...fields };
}

/** `dla_cvt_param`-like conversion */
export interface CVTParams {
  scale: number;
  truncate: number;
  offset: number;
  enable: boolean;
}

export interface ConvCoreParams {
  convMode: ConvolutionMode;
  hasBiasTerm: boolean;
  weightDims: Dims4;
  topLeftPadding: Dims2;
  bottomRightPadding: Dims2;
  paddingValue: number;
  stride: Dims2;
  dilation: Dims2;
  numGroups: number;
  rawWeights: WeightBlob;
  /** weights in the layout the CONV engine reads (translateAuxData, or IMG post-extension), null until then */
  dlaWeights: WeightBlob | null;
  /** INT8: one weight scale per kernel (quantizeAuxData) */
  filterScales: number[];
  /** IMG convolution: channel post-extension factor (0 none, 2, 4) */
  postExtension: number;
  /** INT8 conversions of the CONV pipeline (handleLowPrecisionConversions) */
  inputCVT: CVTParams;
  outTruncate: number;
  praTruncate: number;
  /** CBUF banks given to input data and weights (splitNodes) */
  allottedDataBanks: number;
  allottedWeightBanks: number;
  /** batch 0's weight/data reuse and release flags; `batches` holds every batch's once multi-batch is handled */
  reuseData: boolean;
  reuseWeights: boolean;
  releaseData: boolean;
  releaseWeights: boolean;
  batches: ConvBatchFlags[] | null;
  /** partial-height split (splitData): this op's band of the input and output; null when not split */
  splitData: SplitDataInfo | null;
  /** input slices the next band reuses from this one (CBUF retain) */
  retainSlices: number;
}

/** `ConvCoreNode::SplitDataInfo`: one partial-height band of a convolution split by splitData */
export interface SplitDataInfo {
  topSliceID: number;
  bottomSliceID: number;
  topPadding: number;
  bottomPadding: number;
  leftPadding: number;
  rightPadding: number;
  numConvs: number;
  numOverlapSlices: number;
  numRetainSlices: number;
  inDims: Dims4;
  outDims: Dims4;
  inputBufferOffset: number;
  outputBufferOffset: number;
  wtBanks: number;
  dataBanks: number;
}

/** the per-batch CBUF flags of a convolution (`ConvCoreNode::handleMultiBatch`) */
export interface ConvBatchFlags {
  reuseWeights: boolean;
  releaseWeights: boolean;
}

/** PDP hardware split along the width (`hwSplitWidthInfo`) */
export interface PdpSplitWidth {
  numSplits: number;
  firstInWidth: number;
  midInWidth: number;
  lastInWidth: number;
  firstOutWidth: number;
  midOutWidth: number;
  lastOutWidth: number;
  numOverlapStripes: number;
  rightPadding: number;
  bottomPadding: number;
}

export interface SDPCommonParams {
  x1: SDPSubEngineParams;
  x2: SDPSubEngineParams;
  y: SDPSubEngineParams;
  convMode: ConvolutionMode;
  numGroups: number;
  outCVT: CVTParams;
}

export type EngineNodeParams =
  | { kind: 'conv'; conv: ConvCoreParams }
  | { kind: 'sdp-bias'; sdp: SDPCommonParams; biasDims: Dims4; rawBiasData: WeightBlob; hasBiasReduction: boolean; rescaleData: WeightBlob | null; dlaBiasData: WeightBlob | null }
  | { kind: 'sdp-scale'; sdp: SDPCommonParams; scaleDims: Dims4; rawScaleData: WeightBlob; unitScale: boolean; dlaScaleData: WeightBlob | null }
  | { kind: 'sdp-bn'; sdp: SDPCommonParams; epsilon: number; meanDims: Dims4; varianceDims: Dims4; batchNormDims: Dims4; rawMeanData: WeightBlob; rawVarianceData: WeightBlob; dlaBatchNormData: WeightBlob | null }
  | { kind: 'sdp-act'; sdp: SDPCommonParams; activation: ActivationType | null; lut: string | null; lutIndex: number }
  | { kind: 'sdp-ew'; sdp: SDPCommonParams; operation: ElementWiseOperation }
  | { kind: 'sdp-nop'; sdp: SDPCommonParams }
  | { kind: 'pdp'; poolingType: PoolingType; topLeftPadding: Dims2; bottomRightPadding: Dims2; paddingValue: number; stride: Dims2; poolingWindow: Dims2; splitWidth: PdpSplitWidth | null }
  | { kind: 'cdp-lrn'; localSize: number; alpha: number; beta: number; k: number; lut: string; lutIndex: number }
  | { kind: 'cpu-scale'; power: Weights; scale: Weights; shift: Weights }
  | { kind: 'cpu-softmax' }
  | { kind: 'concat'; axis: 'C' | 'H' | 'W'; canonicalInputs: string[] | null }
  | { kind: 'split'; axis: 'C' | 'H' | 'W' | 'NONE'; canonicalOutputs: string[] | null }
  | { kind: 'rubik'; mode: 'CONTRACT' | 'SPLIT' | 'MERGE'; deconvStride: Dims2; contract: { inDims: Dims4; outDims: Dims4 } }
  | {
      kind: 'sdp-super';
      sdp: SDPCommonParams;
      /** per sub-engine: the edge carrying its data (an aux edge, or an element-wise op's second input) */
      auxEdgeOf: Record<'x1' | 'x2' | 'y', string | null>;
      /** the data input (`m_InputEdge`) */
      inputEdge: string | null;
      /** per sub-engine: the op it runs and that op's engine-ready data (`configureSDPSuperOpSubEngine`) */
      sub: Record<'x1' | 'x2' | 'y', SuperSubEngine | null>;
    };

/** what one sub-engine of an SDP super op was given by the op fused into it */
export interface SuperSubEngine {
  /** the op it came from, and the tensor type of its data (IO for an element-wise op's second input) */
  from: EngineOpType;
  auxType: EngineTensor['type'];
  dims: Dims4 | null;
  /** translated data (bias / scale / batch-norm), null for an element-wise input */
  dlaData: WeightBlob | null;
}

export interface EngineNode {
  /** `n-<i>`: creation order in this compile (upstream's node id) */
  id: string;
  /** NVDLA's name: `dc-conv-0`, `bias-0`, ... */
  name: string;
  engineType: EngineType;
  engineOpType: EngineOpType;
  /** canonical node id it came from, null for nodes made in engine land */
  canonicalNode: string | null;
  /** origin ids (Caffe layer indexes); unioned when nodes fuse */
  origins: OriginSet;
  /** edge ids where this node is on the consuming side, in the order they were attached */
  upstream: string[];
  /** edge ids where this node is on the producing side, in the order they were attached */
  downstream: string[];
  /** on-the-fly fusion (fuseOnTheFlyNodes): the node feeding this one through a wire, and the one it feeds */
  fusedInput: string | null;
  fusedOutput: string | null;
  /** data ports: edge ids, in upstream's port order */
  inputEdges: string[];
  auxEdges: string[];
  outputEdges: string[];
  params: EngineNodeParams;
  /** task (graphlet) index once task boundaries are determined, -1 before */
  taskId: number;
  /** per batch: op slot, producers and consumers per engine type (generateDependencyParams); empty before */
  dependency: NodeDependency[];
}

/** engine types in upstream's enum order: the index into producers/consumers */
export const ENGINE_TYPES: readonly EngineType[] = ['CPU', 'CONVOLUTION', 'RUBIK', 'SDP', 'PDP', 'CDP', 'BDMA', 'CONCATENATION', 'SPLIT', 'MULTI_OPS'];

export type OperationEvent = 'OP_COMPLETED' | 'OP_PROGRAMMED' | 'OP_ENABLED' | 'OP_CDMA_WEIGHT_DONE' | 'OP_CDMA_DATA_DONE';

/** one producer or consumer link (`DependencyParams::BindNode`) */
export interface DependencyLink {
  node: string | null;
  /** the linked node's op slot (annotation id), -1 until annotated */
  slot: number;
  event: OperationEvent;
}

/** `DependencyParams` of one batch */
export interface NodeDependency {
  /** op slot in the task (annotation id); -1 for software nodes */
  slot: number;
  /** indexed like ENGINE_TYPES */
  producers: DependencyLink[];
  consumers: DependencyLink[];
  fusedInput: string | null;
  fusedOutput: string | null;
}

export function emptyDependency(): NodeDependency {
  const link = (): DependencyLink => ({ node: null, slot: -1, event: 'OP_COMPLETED' });
  return { slot: -1, producers: ENGINE_TYPES.map(link), consumers: ENGINE_TYPES.map(link), fusedInput: null, fusedOutput: null };
}

export type EdgeKind = 'data' | 'compute' | 'hazard';

export interface EngineTensor extends GraphTensor {
  dataFormat: DataFormat;
  /**
   * a tensor laid out with gaps between channel groups (the output of a channel concat whose
   * inputs start on group boundaries, concat-gaps.ts, and of the poolings reading it): per channel
   * of the Caffe blob, its channel in the surface (`dims.c` counts the gaps); absent when channel i is channel i
   */
  channelPlaces?: number[];
}

export interface EngineEdge {
  /** `e-<i>` */
  id: string;
  kind: EdgeKind;
  /** a data edge carrying weights, bias, scale or batch-norm data */
  aux: boolean;
  /** node ids on the producing (FIRST) and consuming (SECOND) sides */
  sources: string[];
  targets: string[];
  tensor: EngineTensor | null;
  /** the canonical edge this mirrors */
  canonicalEdge: string | null;
  /** bindable network input/output: bind id and direction */
  bind: { id: number; direction: 'input' | 'output' } | null;
  /** tensor surface id (`tsd-N`) once registered */
  surface: string | null;
}

export interface EngineGraph {
  nodes: EngineNode[];
  edges: EngineEdge[];
  inputEdges: string[];
  outputEdges: string[];
  /** tensor surfaces and buffers, once registered (registerBuffers) */
  surfaces: TensorSurfaceDesc[];
  buffers: TensorBufferDesc[];
  /** counters: node and edge ids, aux tensor names, per-class node names, surfaces, buffers */
  counters: { node: number; edge: number; auxTensor: number; surface: number; buffer: number; names: Record<string, number> };
  /** the batch size the graph is compiled for (profile multiBatchSize after generateGraph) */
  batchSize: number;
  /** lookup tables registered (`LutManager`): one per distinct LRN / sigmoid / tanh, in registration order */
  luts: LutEntry[];
  /** the topological order of generateDependencyParams (node ids), which resolveMemory walks */
  schedule: string[];
  /** tasks (`graphlets`): node ids in slot order, DLA or EMU, and the first node of each engine type */
  tasks: EngineTask[];
  /** memory pools once memory is resolved */
  pools: MemoryPool[];
  /** what the memory resolver did, in order (for the memory-plan view) */
  memoryEvents: MemoryEvent[];
}

export interface LutEntry {
  /** upstream's key: type, precision and, for LRN, its parameters (6 significant digits) */
  key: string;
  type: 'LRN' | 'SIGMOID' | 'TANH';
  precision: 'INT8' | 'INT16' | 'FP16';
  /**
   * LRN parameters; in INT8 also the scale of the LRN's input tensor (NPU Studio's INT8 table
   * samples the function at the integer square sums of that scale, emit/luts.ts)
   */
  lrn: { localSize: number; alpha: number; beta: number; k: number; inputScale?: number } | null;
}

export interface EngineTask {
  id: number;
  kind: 'DLA' | 'EMU';
  nodes: string[];
  /** first node of each engine type in the task (ENGINE_TYPES order), null when none */
  opHeads: (string | null)[];
}

export type PoolName = 'GLOBAL_DRAM' | 'LOCAL_DRAM' | 'LOCAL_CVSRAM';

export interface MemoryPool {
  name: PoolName;
  /** the pool's size (profile) and the high-water mark of what was placed in it */
  size: number;
  used: number;
  /**
   * aux buffers whose data is copied into the pool at load time (`tb-N`, offset in the pool), in
   * creation order of their surfaces: upstream keeps them in a `std::set<TensorSurfaceDesc *>`,
   * i.e. by heap address, which for these same-sized objects allocated one after another is the
   * order they were made in
   */
  contents: { surface: string; buffer: string; offset: number }[];
}

export interface MemoryEvent {
  /** annotation id (op slot) of the node being placed, and its task */
  task: number;
  slot: number;
  node: string;
  action: 'alloc' | 'free' | 'outside-pool';
  buffer: string;
  surface: string;
  batch: number;
  pool: PoolName | null;
  offset: number;
  size: number;
}

export const AUX_TENSOR_TYPES = new Set(['WEIGHT', 'BIAS', 'BATCH_NORM', 'SCALE']);

// ---- tensor surfaces (`tsd-N`) and buffers (`tb-N`): their rules live in ./surfaces.ts ----

export type TensorCategory = 'EXTERNAL' | 'GLOBAL' | 'LOCAL' | 'STREAM';

export interface TensorSurfaceDesc {
  /** `tsd-N` */
  id: string;
  name: string;
  /** the data edge it describes */
  edge: string;
  category: TensorCategory;
  dims: Dims4;
  dataFormat: DataFormat;
  /** surface format name (surface.ts), `NVDLA_UNKNOWN_FORMAT` until determined */
  format: string;
  lineStride: number;
  surfaceStride: number;
  size: number;
  bufferOffset: number;
  /** per batch (handleMultiBatch): batches of a bindable tensor sit one after another in its buffer */
  batchOffsets: number[];
  /** aux data (weights, bias, scale) placed with its content */
  content: boolean;
  bind: { id: number; direction: 'input' | 'output' } | null;
  copyOutDebug: boolean;
  alignLineStride: boolean;
  producers: string[];
  consumers: string[];
  /** `tb-N` */
  buffer: string | null;
}

export interface TensorBufferDesc {
  /** `tb-N` */
  id: string;
  size: number;
  /** surfaces placed in it */
  surfaces: string[];
  /** where it lives once memory is resolved */
  location: 'UNKNOWN' | 'DRAM' | 'CVSRAM' | 'STREAM';
  /** per batch, once memory is resolved: the pool it sits in (null outside pools) and where */
  placement: BufferPlacement[];
}

export interface BufferPlacement {
  pool: PoolName | null;
  poolOffset: number;
  location: 'UNKNOWN' | 'DRAM' | 'CVSRAM' | 'STREAM';
  allocated: boolean;
}
