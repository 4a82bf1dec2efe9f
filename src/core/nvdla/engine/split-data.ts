/**
 * Partial-height convolutions (nvdla/sw `ConvCoreNode::determineSplitDataRatios` and
 * `ConvCoreNode::splitData`): when a convolution's input does not fit in the convolution buffer
 * beside its weights, the input is cut into horizontal bands that each fit, and each band gets a
 * convolution (and a copy of the SDP fused to it) of its own. A software split node hands every
 * band its rows of the one input buffer, a software concat node collects the bands' outputs in
 * the one output buffer; the band ops run in order, chained by compute edges, and share the
 * weights (and the SDP's data). Only direct convolution splits: Winograd is never chosen.
 *
 * Node and edge creation follows upstream step for step (a new convolution and SDP are made as
 * from their canonical nodes, with aux edges that are then dropped for the shared ones), because
 * node and edge numbers decide the graph order and so the loadable's layout.
 */
import { EngineGraphEditor } from './graph';
import type { PassContext } from './graph-state';
import type { EngineEdge, EngineNode, EngineNodeParams, EngineTensor, SplitDataInfo } from './model';
import type { Dims4 } from '../network/model';
import { UnsupportedError } from './errors';
import { convStateDefaults } from './factory';
import { GraphIndex } from './suggest';
import { newSuggestions } from './graph-state';
import { surfaceById } from './surfaces';
import { surfaceFormat } from '../surface';

/** a surface's entries per slice and the line strides a split needs, from the caller (split-nodes.ts) */
export interface SplitMeasures {
  entriesPerSlice: number;
  totalBanksForWeight: number;
}

function blankInfo(): SplitDataInfo {
  return {
    topSliceID: -1,
    bottomSliceID: -1,
    topPadding: -1,
    bottomPadding: -1,
    leftPadding: -1,
    rightPadding: -1,
    numConvs: 0,
    numOverlapSlices: 0,
    numRetainSlices: 0,
    inDims: { n: 0, c: 0, h: 0, w: 0 },
    outDims: { n: 0, c: 0, h: 0, w: 0 },
    inputBufferOffset: 0,
    outputBufferOffset: 0,
    wtBanks: 0,
    dataBanks: 0,
  };
}

/** `ConvCoreNode::determineSplitDataRatios` for direct convolution */
export function determineSplitDataRatios(ed: EngineGraphEditor, node: EngineNode, avlbDataBanks: number, ctx: PassContext, eps: number): SplitDataInfo[] {
  if (node.params.kind !== 'conv') throw new Error(`${node.name} is not a convolution`);
  const p = node.params.conv;
  const g = ed.graph;
  const srcTsd = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
  const wtTsd = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  const dstTsd = surfaceById(g, ed.edge(node.outputEdges[0]!).surface!);
  const t = ctx.target;
  const srcDims = srcTsd.dims;
  const dstDims = dstTsd.dims;
  const wtBanksReserved = t.numConvBufBankAllotted - avlbDataBanks;
  const isIMG = surfaceFormat(srcTsd.format).category === 'IMG';
  if (p.convMode !== 'DIRECT') throw new UnsupportedError(`Cant recognize conv mode ${p.convMode} for a data split of ${node.name}`);
  const totalEntries = avlbDataBanks * t.numConvBufEntriesPerBank;
  const srcSlicesInCBuff = srcDims.h;
  const firstHeight = Math.floor(totalEntries / eps);
  const midHeight = Math.floor(totalEntries / eps);
  const kH = isIMG ? p.weightDims.h : wtTsd.dims.h;
  const kW = isIMG ? p.weightDims.w : wtTsd.dims.w;
  const dilatedH = (kH - 1) * p.dilation.h + 1;
  const dilatedW = (kW - 1) * p.dilation.w + 1;
  const strideH = p.stride.h;
  const u32 = (v: number) => v >>> 0;
  const chunks: SplitDataInfo[] = [];
  const first = blankInfo();
  first.topSliceID = 0;
  first.bottomSliceID = firstHeight - 1;
  first.topPadding = p.topLeftPadding.h;
  first.bottomPadding = 0;
  first.leftPadding = p.topLeftPadding.w;
  first.rightPadding = p.bottomRightPadding.w;
  chunks.push(first);
  let opSlider = u32(dilatedH - p.topLeftPadding.h - 1);
  if (dilatedH - 1 > chunks[chunks.length - 1]!.bottomSliceID) throw new UnsupportedError(`${node.name}: Kernel height greater than single split possible`);
  while (opSlider < srcSlicesInCBuff) {
    const last = chunks[chunks.length - 1]!;
    while (opSlider <= u32(last.bottomSliceID)) opSlider = u32(opSlider + strideH);
    if (opSlider > u32(last.bottomSliceID)) opSlider = u32(opSlider - strideH);
    const ph = blankInfo();
    ph.topSliceID = u32(Math.min(opSlider, u32(last.bottomSliceID)) - (dilatedH - 1) + strideH) | 0;
    ph.bottomSliceID = ph.topSliceID + midHeight - 1;
    ph.topPadding = 0;
    ph.leftPadding = p.topLeftPadding.w;
    ph.rightPadding = p.bottomRightPadding.w;
    if (ph.bottomSliceID >= srcDims.h - 1) {
      ph.bottomSliceID = srcDims.h - 1;
      ph.bottomPadding = p.bottomRightPadding.h;
      chunks.push(ph);
      break;
    }
    opSlider = u32(ph.topSliceID + dilatedH - 1);
    ph.bottomPadding = 0;
    chunks.push(ph);
  }
  const tail = chunks[chunks.length - 1]!;
  if (tail.topSliceID >= srcDims.h || tail.bottomSliceID >= srcDims.h + p.bottomRightPadding.h) chunks.pop();
  for (let i = 1; i < chunks.length; i++) {
    const prev = chunks[i - 1]!;
    const cur = chunks[i]!;
    if (prev.bottomSliceID >= cur.topSliceID) {
      cur.numOverlapSlices = prev.bottomSliceID - cur.topSliceID + 1;
      prev.numRetainSlices = cur.numOverlapSlices;
    } else {
      cur.numOverlapSlices = 0;
      prev.numRetainSlices = 0;
    }
  }
  const sug = newSuggestions(g, new GraphIndex(g), ctx);
  const srcLineStride = sug.lineStride(node, srcTsd);
  const dstLineStride = sug.lineStride(node, dstTsd);
  let outputHeightProcessed = 0;
  for (const c of chunks) {
    let convSlider = u32(c.topSliceID + dilatedH - 1 - c.topPadding);
    let counter = 0;
    while (convSlider <= u32(c.bottomSliceID + c.bottomPadding)) {
      convSlider = u32(convSlider + strideH);
      counter++;
    }
    c.numConvs = counter;
    if (c.bottomSliceID > srcDims.h - 1) c.bottomSliceID = srcDims.h - 1;
    c.inDims = { n: srcDims.n, c: srcDims.c, h: c.bottomSliceID - c.topSliceID + 1, w: srcDims.w };
    c.outDims = {
      n: dstDims.n,
      c: dstDims.c,
      h: Math.trunc((c.inDims.h + c.topPadding + c.bottomPadding - dilatedH) / strideH) + 1,
      w: Math.trunc((c.inDims.w + c.leftPadding + c.rightPadding - dilatedW) / p.stride.w) + 1,
    };
    c.inputBufferOffset = srcLineStride * c.topSliceID;
    c.outputBufferOffset = dstLineStride * outputHeightProcessed;
    outputHeightProcessed += c.outDims.h;
    c.wtBanks = wtBanksReserved;
    c.dataBanks = avlbDataBanks;
  }
  verifyPartialH(node, chunks, srcDims, dilatedH);
  return chunks;
}

/** `ConvCoreNode::verifyPartialHInfo` (direct): the bands together do as many convolutions as the whole */
function verifyPartialH(node: EngineNode, chunks: SplitDataInfo[], srcDims: Dims4, dilatedH: number): void {
  if (node.params.kind !== 'conv') return;
  const p = node.params.conv;
  let unsplit = 0;
  for (let slider = dilatedH - 1 - p.topLeftPadding.h; slider <= srcDims.h + p.bottomRightPadding.h - 1; slider += p.stride.h) unsplit++;
  let split = 0;
  for (const c of chunks) {
    if (c.topSliceID > c.bottomSliceID) throw new UnsupportedError(`${node.name}: Partial-H data split logic made some mistake!!! (band top ${c.topSliceID} > bottom ${c.bottomSliceID})`);
    split += c.numConvs;
  }
  if (split !== unsplit) throw new UnsupportedError(`${node.name}: Partial-H data split logic made some mistake!!! (unsplit num convs ${unsplit} != split num convs ${split})`);
}

// ------------------------------------------------------------------ the rewrite

export function cloneTensor(t: EngineTensor, type: EngineTensor['type'], dims: Dims4): EngineTensor {
  return { ...t, dims: { ...dims }, channelScales: [...t.channelScales], type };
}

/** `replaceEdgeNodes(edge, side, oldNode, newNode)` */
export function replaceEdgeNodes(ed: EngineGraphEditor, e: EngineEdge, side: 'first' | 'second', oldNode: EngineNode, newNode: EngineNode): void {
  ed.removeNodeFromEdge(e, side, oldNode);
  ed.appendNodeToEdge(e, side, newNode);
}

/** the aux tensor a node made from its canonical node would capture (`captureCanonicalWeights` etc.) */
export function captureAux(ed: EngineGraphEditor, node: EngineNode, dims: Dims4, type: EngineTensor['type']): EngineEdge {
  return ed.addDataEdge(null, node, { name: ed.newAuxTensorName(), dims: { ...dims }, type, dataFormat: 'NCHW', channelScales: [] });
}

/** `NodeFactory::newConvCoreConvolutionOpNode(canonical)` + `inheritParams`: a fresh convolution like `orig` */
function newConvLike(ed: EngineGraphEditor, orig: EngineNode): { node: EngineNode; redundantAux: EngineEdge } {
  if (orig.params.kind !== 'conv') throw new Error(`${orig.name} is not a convolution`);
  const o = orig.params.conv;
  const prefix = orig.engineOpType === 'CONVOLUTION_DECONV' ? 'deconv-' : orig.engineOpType === 'CONVOLUTION_FC' ? 'fc-' : 'dc-conv-';
  const params: EngineNodeParams = {
    kind: 'conv',
    conv: {
      convMode: o.convMode,
      hasBiasTerm: o.hasBiasTerm,
      weightDims: { ...o.weightDims },
      topLeftPadding: { ...o.topLeftPadding },
      bottomRightPadding: { ...o.bottomRightPadding },
      paddingValue: o.paddingValue,
      stride: { ...o.stride },
      dilation: { ...o.dilation },
      numGroups: o.numGroups,
      rawWeights: o.rawWeights,
      // what inheritParams does not copy stays at its default (the conversions were set before the split)
      ...convStateDefaults(),
      postExtension: o.postExtension,
    },
  };
  const node = ed.addNode(prefix, orig.engineOpType, orig.canonicalNode, orig.origins, params);
  const redundantAux = captureAux(ed, node, o.weightDims, 'WEIGHT');
  return { node, redundantAux };
}

/** `ConvCoreNode::addSDPJointOpNode(copyFromSDP)`: a copy of the SDP fused to the convolution, made as from its canonical node */
export function newSdpLike(ed: EngineGraphEditor, conv: EngineNode, from: EngineNode, streamIn: EngineEdge): { node: EngineNode; redundantAux: EngineEdge | null } {
  const p = structuredCloneParams(from.params);
  const prefix: Record<string, string> = { SDP_ACTIVATION: 'act-', SDP_BATCH_NORM: 'sdp-bn-', SDP_BIAS: 'bias-', SDP_NOP: 'sdp-nop-', SDP_SCALE: 'sdp-scale-' };
  const pre = prefix[from.engineOpType];
  if (!pre) throw new UnsupportedError(`Don't support SDP node type ${from.engineOpType} as joint op of CONV ${conv.name}`);
  const node = ed.addNode(pre, from.engineOpType, from.canonicalNode, from.origins, p);
  let redundantAux: EngineEdge | null = null;
  // captureCanonicalParams of an SDP with a canonical node adds its aux data edge
  if (from.canonicalNode) {
    if (p.kind === 'sdp-bias') redundantAux = captureAux(ed, node, p.biasDims, 'BIAS');
    else if (p.kind === 'sdp-scale') redundantAux = captureAux(ed, node, p.scaleDims, 'SCALE');
    else if (p.kind === 'sdp-bn') redundantAux = captureAux(ed, node, p.batchNormDims, 'BATCH_NORM');
  }
  ed.addDataEdge(conv, node, cloneTensor(streamIn.tensor!, 'STREAM', streamIn.tensor!.dims));
  return { node, redundantAux };
}

/** the parameters a copied SDP inherits (`inheritParams`): everything but per-batch state */
function structuredCloneParams(p: EngineNodeParams): EngineNodeParams {
  // weight blobs are shared (never mutated in place), the rest copied
  const copy = (v: unknown): unknown => {
    if (v === null || typeof v !== 'object') return v;
    if (ArrayBuffer.isView(v)) return v;
    if (Array.isArray(v)) return v.map(copy);
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = copy(x);
    return out;
  };
  return copy(p) as EngineNodeParams;
}

/**
 * `ConvCoreNode::splitData`: the convolution (and its fused SDP) become one pair per band, between
 * a software split along H and a software concat along H. Returns the nodes added.
 */
export function splitData(ed: EngineGraphEditor, conv: EngineNode, chunks: SplitDataInfo[], totalBanksForWeight: number): EngineNode[] {
  if (conv.params.kind !== 'conv') throw new Error(`${conv.name} is not a convolution`);
  const sdp = conv.fusedOutput ? ed.node(conv.fusedOutput) : null;
  if (!sdp || sdp.engineType !== 'SDP') throw new UnsupportedError(`ConvCore op ${conv.name} doesn't have any fused SDP partner.Can't split the node without a memory-write capable fused partner`);
  if (chunks.length <= 1) throw new UnsupportedError(`Num of partial-H ops: ${chunks.length}. This function shouldn't have been invoked for ${conv.name}`);
  const added: EngineNode[] = [];
  const origInput = ed.edge(conv.inputEdges[0]!);
  const origConvAux = ed.edge(conv.auxEdges[0]!);
  const origStream = ed.edge(conv.outputEdges[0]!);
  const origOutput = ed.edge(sdp.outputEdges[0]!);
  const computeOut = (n: EngineNode) => n.downstream.map((id) => ed.edge(id)).find((e) => e.kind === 'compute') ?? null;
  const convComputeOut = computeOut(conv);
  const sdpComputeOut = computeOut(sdp);
  const origSdpAux = sdp.auxEdges.length ? ed.edge(sdp.auxEdges[0]!) : null;

  const split = ed.addNode('split-', 'SPLIT_SOFTWARE', null, conv.origins, { kind: 'split', axis: 'H', canonicalOutputs: null });
  const concat = ed.addNode('concat-', 'CONCATENATION_CONCAT', null, conv.origins, { kind: 'concat', axis: 'H', canonicalInputs: null });
  added.push(split, concat);
  replaceEdgeNodes(ed, origInput, 'second', conv, split);
  replaceEdgeNodes(ed, origOutput, 'first', sdp, concat);

  const convs: EngineNode[] = [conv];
  const sdps: EngineNode[] = [sdp];
  const c0 = chunks[0]!;
  const cp = conv.params.conv;
  cp.topLeftPadding = { h: c0.topPadding, w: c0.leftPadding };
  cp.bottomRightPadding = { h: c0.bottomPadding, w: c0.rightPadding };
  const band = (d: Dims4): Dims4 => ({ n: 1, c: d.c, h: d.h, w: d.w });
  origStream.tensor!.dims = band(c0.outDims);
  surfaceById(ed.graph, origStream.surface!).dims = band(c0.outDims);
  ed.addDataEdge(split, conv, cloneTensor(origInput.tensor!, 'IO', band(c0.inDims)), origInput.canonicalEdge);
  ed.addDataEdge(sdp, concat, cloneTensor(origOutput.tensor!, 'IO', band(c0.outDims)), origOutput.canonicalEdge);
  cp.splitData = c0;
  cp.retainSlices = c0.numRetainSlices;
  cp.allottedDataBanks = c0.dataBanks;

  for (const chunk of chunks.slice(1)) {
    const { node: nc, redundantAux: convAux } = newConvLike(ed, conv);
    const { node: ns, redundantAux: sdpAux } = newSdpLike(ed, nc, sdp, origStream);
    if (nc.params.kind !== 'conv') throw new Error('unreachable');
    const np = nc.params.conv;
    np.topLeftPadding = { h: chunk.topPadding, w: chunk.leftPadding };
    np.bottomRightPadding = { h: chunk.bottomPadding, w: chunk.rightPadding };
    // the band ops share the original weights (and SDP data)
    ed.removeNodeFromEdge(convAux, 'second', nc);
    ed.appendNodeToEdge(origConvAux, 'second', nc);
    ed.deleteEdge(convAux);
    if (origSdpAux) {
      if (sdpAux) {
        ed.removeNodeFromEdge(sdpAux, 'second', ns);
        ed.deleteEdge(sdpAux);
      }
      ed.appendNodeToEdge(origSdpAux, 'second', ns);
    }
    const stream = ed.edge(nc.downstream.find((id) => ed.edge(id).tensor?.type === 'STREAM')!);
    stream.tensor!.dims = band(chunk.outDims);
    ed.addDataEdge(split, nc, cloneTensor(origInput.tensor!, 'IO', band(chunk.inDims)), origInput.canonicalEdge);
    ed.addDataEdge(ns, concat, cloneTensor(origOutput.tensor!, 'IO', band(chunk.outDims)), origOutput.canonicalEdge);
    ed.addComputeEdge(convs[convs.length - 1]!, nc);
    ed.addComputeEdge(sdps[sdps.length - 1]!, ns);
    np.splitData = chunk;
    convs.push(nc);
    sdps.push(ns);
    nc.fusedOutput = ns.id;
    ns.fusedInput = nc.id;
    np.retainSlices = chunk.numRetainSlices;
    np.allottedWeightBanks = chunk.wtBanks;
    np.allottedDataBanks = chunk.dataBanks;
    added.push(nc, ns);
  }
  if (convComputeOut) replaceEdgeNodes(ed, convComputeOut, 'first', conv, convs[convs.length - 1]!);
  if (sdpComputeOut) replaceEdgeNodes(ed, sdpComputeOut, 'first', sdp, sdps[sdps.length - 1]!);
  if (cp.allottedWeightBanks === totalBanksForWeight) {
    cp.releaseWeights = false;
    for (const n of convs.slice(1)) {
      if (n.params.kind !== 'conv') continue;
      n.params.conv.reuseWeights = true;
      n.params.conv.releaseWeights = false;
    }
    const last = convs[convs.length - 1]!;
    if (last.params.kind === 'conv') last.params.conv.releaseWeights = true;
  }
  return added;
}
