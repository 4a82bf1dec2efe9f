/**
 * nvdla/sw's `engine_ast::NodeFactory` and the canonical-parameter capture of each engine node
 * (`captureCanonicalParams`, `captureCanonicalWeights`, `addSDPJointOpNode`): the engine nodes a
 * canonical node makes, with their auxiliary edges. Used by `generateGraph` and by the passes
 * that add nodes later (splitData's partial-height convolutions and their SDPs).
 */
import type { CanonicalConvParams, CanonicalEdge, CanonicalGraph, CanonicalNode } from '../canonical/graph';
import type { Dims4, Weights } from '../network/model';
import type { CompileProfile } from '../profiles';
import type { TargetConfig } from '../targets';
import { EngineGraphEditor, EngineGraphError } from './graph';
import { floatBlob } from './weights';
import { disabledSubEngine, subEngine, type ConvCoreParams, type EngineNode, type EngineTensor, type SDPCommonParams, type SDPMode, type SDPSubEngineParams } from './model';

/** What a convolution node starts with before the passes set it (weights not yet translated,
 * no conversions, no banks, no split): shared by the factory's nodes and the split's bands. */
export function convStateDefaults(): Omit<ConvCoreParams, 'convMode' | 'hasBiasTerm' | 'weightDims' | 'topLeftPadding' | 'bottomRightPadding' | 'paddingValue' | 'stride' | 'dilation' | 'numGroups' | 'rawWeights'> {
  return {
    dlaWeights: null,
    filterScales: [],
    postExtension: 0,
    inputCVT: { scale: 1, truncate: 0, offset: 0, enable: false },
    outTruncate: 0,
    praTruncate: 0,
    allottedDataBanks: 0,
    allottedWeightBanks: 0,
    reuseData: false,
    reuseWeights: false,
    releaseData: true,
    releaseWeights: true,
    batches: null,
    splitData: null,
    retainSlices: 0,
  };
}

/** A direct convolution with no padding, stride 1, one group: what a fully connected layer (and a 1x1 channel copy) runs as. */
export function unpaddedConvParams(weightDims: Dims4, hasBiasTerm: boolean, weights: Float32Array): ConvCoreParams {
  return {
    convMode: 'DIRECT',
    hasBiasTerm,
    weightDims,
    topLeftPadding: { h: 0, w: 0 },
    bottomRightPadding: { h: 0, w: 0 },
    paddingValue: 0,
    stride: { h: 1, w: 1 },
    dilation: { h: 1, w: 1 },
    numGroups: 1,
    rawWeights: floatBlob(weights),
    ...convStateDefaults(),
  };
}

export function sdpCommon(): SDPCommonParams {
  return { x1: disabledSubEngine(), x2: disabledSubEngine(), y: disabledSubEngine(), convMode: 'DIRECT', numGroups: 1, outCVT: { scale: 1, truncate: 0, offset: 0, enable: false } };
}

/**
 * The X1 unit an SDP node of each class starts with (the `OpParams` constructors of
 * `EngineAST.h`): what a node made in engine land, without a canonical node to capture, keeps.
 */
export function defaultX1(op: 'SDP_BIAS' | 'SDP_SCALE' | 'SDP_BATCH_NORM', fields: Partial<SDPSubEngineParams> = {}): SDPSubEngineParams {
  const opType = op === 'SDP_BIAS' ? 'ADD' : op === 'SDP_SCALE' ? 'MUL' : 'BOTH';
  return { ...disabledSubEngine(), enabled: true, aluType: 'SUM', opType, ...fields };
}

export function unitWeights(count: number): Weights {
  return { count, values: new Float32Array(count).fill(1) };
}

export function blobOf(w: Weights) {
  return floatBlob(w.values ?? new Float32Array(0));
}

export function modeOf(m: string): SDPMode {
  return m === 'UNIFORM' ? 'PER_LAYER' : m === 'CHANNEL' ? 'PER_CHANNEL' : m === 'ELEMENTWISE' ? 'PER_ELEMENT' : 'UNKNOWN';
}

export class NodeFactory {
  protected readonly canEdges = new Map<string, CanonicalEdge>();
  protected readonly canNodes = new Map<string, CanonicalNode>();

  constructor(
    readonly ed: EngineGraphEditor,
    readonly can: CanonicalGraph,
    readonly profile: CompileProfile,
    readonly target: TargetConfig,
  ) {
    for (const e of can.edges) this.canEdges.set(e.id, e);
    for (const n of can.nodes) this.canNodes.set(n.id, n);
  }

  canonicalNode(id: string): CanonicalNode {
    const n = this.canNodes.get(id);
    if (!n) throw new EngineGraphError(`no canonical node ${id}`);
    return n;
  }

  get int8(): boolean {
    return this.profile.computePrecision === 'INT8';
  }

  auxTensor(dims: Dims4, type: EngineTensor['type']): EngineTensor {
    return { name: this.ed.newAuxTensorName(), dims: { ...dims }, type, dataFormat: 'NCHW', channelScales: [] };
  }

  /** a clone of the canonical node's output tensor with another type */
  outTensorClone(node: CanonicalNode, type: EngineTensor['type']): EngineTensor {
    const t = this.canEdges.get(node.outputEdges[0]!)!.tensor;
    return { name: t.name, dims: { ...t.dims }, type, dataFormat: 'NCHW', channelScales: [...t.channelScales] };
  }

  // -------------------------------------------------------------- node factories

  convNode(can: CanonicalNode & { params: CanonicalConvParams }, op: 'CONVOLUTION_CONV' | 'CONVOLUTION_DECONV'): EngineNode {
    const p = can.params;
    const prefix = op === 'CONVOLUTION_DECONV' ? 'deconv-' : 'dc-conv-'; // Winograd is never chosen (canWinograd is off in every profile)
    const node = this.ed.addNode(prefix, op, can.id, can.origins, {
      kind: 'conv',
      conv: {
        convMode: 'DIRECT',
        hasBiasTerm: p.hasBiasTerm,
        weightDims: { ...p.weightDims },
        topLeftPadding: { ...p.topLeftPadding },
        bottomRightPadding: { ...p.bottomRightPadding },
        paddingValue: p.paddingValue,
        stride: { ...p.stride },
        dilation: { ...p.dilation },
        numGroups: p.numGroups,
        rawWeights: floatBlob(p.weights.values ?? new Float32Array(0)),
        ...convStateDefaults(),
      },
    });
    this.ed.addDataEdge(null, node, this.auxTensor(p.weightDims, 'WEIGHT')); // captureCanonicalWeights
    return node;
  }

  fcNode(can: CanonicalNode & { opType: 'FULLY_CONNECTED' }): EngineNode {
    const p = can.params;
    const node = this.ed.addNode('fc-', 'CONVOLUTION_FC', can.id, can.origins, {
      kind: 'conv',
      conv: unpaddedConvParams({ ...p.weightDims }, p.hasBiasTerm, p.weights.values ?? new Float32Array(0)),
    });
    this.ed.addDataEdge(null, node, this.auxTensor(p.weightDims, 'WEIGHT'));
    return node;
  }

  biasNode(can: CanonicalNode, fromScale: boolean): EngineNode {
    const sdp = sdpCommon();
    sdp.x1 = subEngine({ mode: 'UNKNOWN', aluType: 'SUM', opType: 'ADD', actType: 'NONE' });
    let biasDims: Dims4;
    let rawBiasData: Weights;
    if (can.opType === 'SCALE') {
      biasDims = can.params.shiftDims ?? { n: 1, c: 1, h: 1, w: 1 };
      rawBiasData = can.params.shift;
      sdp.x1.mode = modeOf(can.params.mode);
    } else if (can.opType === 'CONVOLUTION' || can.opType === 'DECONVOLUTION' || can.opType === 'FULLY_CONNECTED') {
      biasDims = can.params.biasDims ?? { n: 1, c: 1, h: 1, w: 1 };
      rawBiasData = can.params.biasData;
      sdp.x1.mode = modeOf(can.params.biasMode);
      if (can.opType !== 'FULLY_CONNECTED') sdp.numGroups = can.params.numGroups;
    } else {
      throw new EngineGraphError(`unrecognized canonical op type ${can.opType} for a bias node`);
    }
    const node = this.ed.addNode('bias-', 'SDP_BIAS', can.id, can.origins, { kind: 'sdp-bias', sdp, biasDims: { ...biasDims }, rawBiasData: blobOf(rawBiasData), hasBiasReduction: false, rescaleData: null, dlaBiasData: null });
    void fromScale;
    this.ed.addDataEdge(null, node, this.auxTensor(biasDims, 'BIAS')); // captureCanonicalBiasData
    return node;
  }

  /** `addSDPJointOpNode(canNode)`: bias, or INT8 unit scale, or NOP; joined by a stream edge */
  jointSDP(conv: EngineNode, can: CanonicalNode & { opType: 'CONVOLUTION' | 'DECONVOLUTION' | 'FULLY_CONNECTED' }): EngineNode {
    let sdpNode: EngineNode;
    if (can.params.hasBiasTerm) {
      sdpNode = this.biasNode(can, false);
    } else if (this.int8) {
      const perFilter = this.profile.quantizationMode === 'PER_FILTER';
      const c = this.outTensorClone(can, 'IO').dims.c;
      const scaleDims: Dims4 = { n: 1, c: perFilter ? c : 1, h: 1, w: 1 };
      const sdp = sdpCommon();
      // made without a canonical node: only the mode is set (captureCanonicalParams never runs)
      sdp.x1 = defaultX1('SDP_SCALE', { mode: perFilter ? 'PER_CHANNEL' : 'PER_LAYER' });
      sdpNode = this.ed.addNode('sdp-scale-', 'SDP_SCALE', null, can.origins, { kind: 'sdp-scale', sdp, scaleDims, rawScaleData: blobOf(unitWeights(perFilter ? c : 1)), unitScale: false, dlaScaleData: null });
      this.ed.addDataEdge(null, sdpNode, this.auxTensor(scaleDims, 'SCALE')); // captureCanonicalScaleData
    } else {
      const sdp = sdpCommon();
      if (can.opType !== 'FULLY_CONNECTED') sdp.numGroups = can.params.numGroups;
      sdpNode = this.ed.addNode('sdp-nop-', 'SDP_NOP', can.id, can.origins, { kind: 'sdp-nop', sdp });
    }
    this.ed.addDataEdge(conv, sdpNode, this.outTensorClone(can, 'STREAM'));
    return sdpNode;
  }

}
