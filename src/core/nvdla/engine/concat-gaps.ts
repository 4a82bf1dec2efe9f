/**
 * Channel concatenations whose inputs do not all start on a channel-group boundary (beyond
 * nvdla_compiler, issue 14 point 4).
 *
 * A feature surface keeps its channels in groups (32 INT8 or 16 FP16 channels on nv_full, 8 INT8
 * on nv_small), and a concat places each input's surface after the whole groups of the ones before
 * it (upstream `ConcatenationNode::suggestSurfaceOffsetInBuffer` sums their sizes). An input that
 * starts mid-group therefore lands after a gap: GoogLeNet's inception_4a (192 + 208 + 48 + 64
 * channels, INT8 on nv_full) has its third input at channel 416 of the surface, not 400. Upstream
 * still describes the concat's output as 512 contiguous channels (`tempConcatLargeSurface` sums the
 * channel counts), so its buffer is a group short (the last input is written past it) and every
 * reader takes the gap for channels 400-415 and is 16 channels off from there on.
 *
 * NPU Studio keeps that placement and says so: the concat's output tensor becomes the surface it
 * really is (544 channels there, `channelPlaces` naming each Caffe channel's place), the buffer is
 * sized for it (suggest.ts aligns the inputs the same way), and the readers are made to skip the
 * gap: a convolution or fully connected layer gets its weights widened to the surface's channels
 * with zeros for the gap channels (whatever the gap holds then adds nothing). The readers that work
 * channel by channel pass the gaps on (their output has the same gaps, and its own readers are
 * treated the same way): a pooling; an SDP op (Scale, bias, BatchNorm, activation, NOP) with its
 * per-channel data widened to the surface (scale and bias 0 for the gap channels, BatchNorm mean 0
 * and the largest real variance, see widenSdpData; per-layer data stays as it is); an element-wise
 * op whose two inputs have the same gaps (two concats laid out alike, or a concat and a pooling of
 * it: it waits until both inputs are reached). A gapped network output is written in Caffe's
 * channel order by a 1x1 convolution with identity weights added before it (compactNetworkOutput).
 * A reader that mixes channels otherwise (LRN, another concat, a grouped convolution), an SDP op
 * with data per element, the CPU, or an element-wise op whose other input lacks the same gaps is
 * refused, naming both layers.
 *
 * The gap channels are never written on purpose: they hold the padding channels of the input
 * before the gap or what the buffer held before. Times a zero weight that is 0 in INT8, and in
 * FP16 for every finite value (the engines write FP16 saturated, so no earlier tensor leaves an
 * infinity or a NaN there). Past a channel-wise reader they hold what it made of them: 0 after a
 * scale, themselves after a bias, themselves times the smallest real multiplier after a
 * batch-norm, an activation's, a pooling's or a sum's finite result; the INT8 requantisation of
 * the real channels is unchanged (no gap value in the per-channel data is larger than the real ones).
 */
import type { EngineGraphEditor } from './graph';
import type { Dims4 } from '../network/model';
import type { EngineEdge, EngineNode } from './model';
import { defaultX1, sdpCommon, unpaddedConvParams } from './factory';
import { floatBlob, type WeightBlob } from './weights';

export interface ConcatGapsResult {
  /** one line per concat laid out with gaps, for the pass notes */
  notes: string[];
}

export type ConcatGapReject = (node: EngineNode, message: string) => never;

/**
 * The Caffe concats that take one tensor as two or more of their inputs (`bottom: "a" bottom:
 * "a"`), each with the sentence that refuses it. A concat is no operation on NVDLA: each input's
 * writer writes it in place in the concat's buffer, and a tensor has one writer writing one
 * place, so only one of the tensor's places would be written; nvdla_compiler compiles it so and
 * the readers take whatever the buffer held in the other places (a convolution after
 * `Concat(c1, c1)` measured at 3 dB against Caffe).
 */
export function repeatedConcatInputs(ed: EngineGraphEditor, layerOf: (n: EngineNode) => string): { node: EngineNode; message: string }[] {
  const out: { node: EngineNode; message: string }[] = [];
  for (const node of ed.graph.nodes) {
    if (node.params.kind !== 'concat' || !node.params.canonicalInputs) continue;
    const at = new Map<string, number[]>();
    node.inputEdges.forEach((id, i) => at.set(id, [...(at.get(id) ?? []), i + 1]));
    const repeated = [...at].find(([, places]) => places.length > 1);
    if (!repeated) continue;
    const [edgeId, places] = repeated;
    const tensor = ed.edge(edgeId).tensor?.name ?? edgeId;
    out.push({
      node,
      message: `Concat '${layerOf(node)}' takes '${tensor}' as its inputs ${places.slice(0, -1).join(', ')} and ${places.at(-1)}: NVDLA writes each input of a concat in place in its buffer, one place per tensor, so the other places would never be written (compute each repeated input as a layer of its own)`,
    });
  }
  return out;
}

/** where each input of a channel concat starts in its surface, given `perGroup` channels a group */
export function concatChannelStarts(channels: readonly number[], perGroup: number): number[] {
  let at = 0;
  return channels.map((c, i) => {
    if (i > 0) at = Math.ceil(at / perGroup) * perGroup;
    const start = at;
    at += c;
    return start;
  });
}

/**
 * Lays out every engine-graph channel concat with a mid-group input as described above.
 * `perGroup`: channels per group of the feature surfaces; `layerOf`: a node's layer name for messages.
 */
export function placeConcatInputsOnGroups(
  ed: EngineGraphEditor,
  perGroup: number,
  layerOf: (n: EngineNode) => string,
  reject: ConcatGapReject,
  precision: { int8: boolean; perFilter: boolean },
): ConcatGapsResult {
  const notes: string[] = [];
  const elementWise: ElementWiseState = { passed: new Set(), waiting: new Map() };
  for (const node of [...ed.graph.nodes]) {
    const p = node.params;
    if (p.kind !== 'concat' || p.axis !== 'C' || !p.canonicalInputs) continue;
    const inputs = node.inputEdges.map((id) => ed.edge(id).tensor!);
    const channels = inputs.map((t) => t.dims.c);
    const starts = concatChannelStarts(channels, perGroup);
    const plain = channels.map((_, i) => channels.slice(0, i).reduce((a, b) => a + b, 0));
    if (starts.every((s, i) => s === plain[i])) continue;
    const concat = layerOf(node);
    inputs.forEach((t, i) => {
      if (t.channelPlaces) reject(node, `Concat '${concat}': its input ${i + 1} is itself laid out with gaps between channel groups; NPU Studio places one level of such gaps only`);
    });
    const places: number[] = [];
    channels.forEach((c, i) => {
      for (let k = 0; k < c; k++) places.push(starts[i]! + k);
    });
    const total = starts.at(-1)! + channels.at(-1)!;
    const firstMid = starts.findIndex((s, i) => s !== plain[i]);
    const why = `its input ${firstMid + 1} starts at channel ${plain[firstMid]}, not a multiple of the ${perGroup} channels a feature surface groups`;
    const out = ed.edge(node.outputEdges[0]!);
    const readers = new Set<string>();
    widenTensor(out, places, total);
    const compactions: string[] = [];
    visitReaders(ed, out, places, total, { concat, why, layerOf, reject, concatNode: node, readers, ...precision, compactions, elementWise });
    const compacted = compactions.length ? `; ${compactions.join('; ')}` : '';
    notes.push(`${node.name} (${concat}): ${why}, so its inputs start at surface channels ${starts.join(', ')} (${total} channels with the gaps, ${places.length} in Caffe); ${[...readers].join(', ')} read it with zero weights for the gap channels or pass them through${compacted}`);
  }
  // an element-wise op one of whose inputs never got the same gaps
  for (const refuse of elementWise.waiting.values()) refuse();
  return { notes };
}

/** the tensor of `e` as the gapped surface: `total` channels, Caffe channel i at `places[i]` */
function widenTensor(e: EngineEdge, places: number[], total: number): void {
  const t = e.tensor!;
  const scales = t.channelScales;
  if (scales.length) {
    const wide = new Array<number>(total).fill(scales[0]!);
    places.forEach((at, i) => (wide[at] = scales[i] ?? scales[0]!));
    t.channelScales = wide;
  }
  t.dims = { ...t.dims, c: total };
  t.channelPlaces = places;
}

interface VisitContext {
  concat: string;
  why: string;
  layerOf: (n: EngineNode) => string;
  reject: ConcatGapReject;
  concatNode: EngineNode;
  readers: Set<string>;
  int8: boolean;
  perFilter: boolean;
  /** the identity convolutions made to write gapped network outputs in Caffe's channel order */
  compactions: string[];
  elementWise: ElementWiseState;
}

/** element-wise ops reached through a gapped input: passed on, or waiting for their other input's gaps (with the refusal if they never come) */
interface ElementWiseState {
  passed: Set<string>;
  waiting: Map<string, () => never>;
}

/** `via`: the poolings between the concat and `e`, in order */
function visitReaders(ed: EngineGraphEditor, gapped: EngineEdge, places: number[], total: number, cx: VisitContext, via: string[] = []): void {
  let e = gapped;
  const through = via.length ? ` through ${via.map((v) => `'${v}'`).join(', ')}` : '';
  const refuse = (what: string) =>
    cx.reject(cx.concatNode, `Concat '${cx.concat}': ${cx.why}, so NPU Studio places its inputs on group boundaries with gap channels between them; ${what}, which cannot skip the gap channels (make the inputs before '${cx.concat}' multiples of the group, or compile it in another precision or for another target)`);
  // the readers the gapped tensor had (not the compacting convolution made for a network output)
  const readers = [...e.targets];
  if (e.bind) e = compactNetworkOutput(ed, e, places, total, cx);
  for (const id of readers) {
    const n = ed.node(id);
    const layer = cx.layerOf(n);
    const p = n.params;
    if (p.kind === 'conv' && (n.engineOpType === 'CONVOLUTION_CONV' || n.engineOpType === 'CONVOLUTION_FC')) {
      if (p.conv.numGroups !== 1) refuse(`'${layer}', reading it${through}, is a grouped convolution (${p.conv.numGroups} groups)`);
      widenWeights(ed, n, places, total);
      cx.readers.add(layer);
    } else if (p.kind === 'pdp' || p.kind === 'sdp-scale' || p.kind === 'sdp-bias' || p.kind === 'sdp-bn' || p.kind === 'sdp-act' || p.kind === 'sdp-nop') {
      if (p.kind !== 'pdp' && p.sdp.x1.mode === 'PER_ELEMENT') refuse(`'${layer}' (${n.engineOpType}), reading it${through}, has data per element`);
      widenSdpData(ed, n, places, total, (what) => refuse(`'${layer}' (${n.engineOpType}), reading it${through}, has ${what}`));
      const out = ed.edge(n.outputEdges[0]!);
      widenTensor(out, places, total);
      cx.readers.add(layer);
      visitReaders(ed, out, places, total, cx, [...via, layer]);
    } else if (p.kind === 'sdp-ew') {
      // both inputs with the same gaps: channel by channel, the gaps passed on (as a pooling)
      if (cx.elementWise.passed.has(n.id)) continue;
      const others = n.inputEdges.map((id) => ed.edge(id).tensor!).filter((t) => t !== e.tensor);
      const same = (t: { dims: { c: number }; channelPlaces?: number[] }) => t.dims.c === total && t.channelPlaces !== undefined && t.channelPlaces.length === places.length && t.channelPlaces.every((at, i) => at === places[i]);
      const mixed = () => refuse(`'${layer}' (${n.engineOpType}) reads it${through} with another input that does not have the same gap channels`);
      if (!others.every(same)) {
        if (others.some((t) => t.channelPlaces)) mixed();
        cx.elementWise.waiting.set(n.id, mixed);
        cx.readers.add(layer);
        continue;
      }
      cx.elementWise.waiting.delete(n.id);
      cx.elementWise.passed.add(n.id);
      const out = ed.edge(n.outputEdges[0]!);
      widenTensor(out, places, total);
      cx.readers.add(layer);
      visitReaders(ed, out, places, total, cx, [...via, layer]);
    } else {
      refuse(`'${layer}' (${n.engineOpType}) reads it${through}`);
    }
  }
}

/** a convolution's (or fully connected layer's) weights over the gapped channels: zero kernels' worth for the gaps */
function widenWeights(ed: EngineGraphEditor, n: EngineNode, places: number[], total: number): void {
  if (n.params.kind !== 'conv') return;
  const conv = n.params.conv;
  const wd = conv.weightDims;
  const raw = conv.rawWeights.values as Float32Array;
  const hw = wd.h * wd.w;
  const k = wd.n;
  const c = wd.c;
  if (c !== places.length) throw new Error(`${n.name}: ${c} weight channels for ${places.length} input channels`);
  const wide = new Float32Array(k * total * hw);
  for (let kk = 0; kk < k; kk++) {
    for (let ch = 0; ch < c; ch++) wide.set(raw.subarray((kk * c + ch) * hw, (kk * c + ch + 1) * hw), (kk * total + places[ch]!) * hw);
  }
  conv.rawWeights = floatBlob(wide);
  conv.weightDims = { ...wd, c: total };
  for (const id of n.auxEdges) {
    const t = ed.edge(id).tensor;
    if (t && t.type === 'WEIGHT') t.dims = { ...t.dims, c: total };
  }
}

/**
 * An SDP op's per-channel data over the gapped channels (per-layer data stays as it is): scale and
 * bias 0 for the gap channels, so the op writes 0 there; batch-norm mean 0 and the largest variance
 * of the real channels, so the gap channels are multiplied by the smallest real 1/sqrt(var + eps)
 * (finite, and the INT8 conversion's common shift, set by the largest multiplier, is unchanged;
 * a variance of 0 would make the gap's multiplier 1/sqrt(eps), the largest, and cost the real
 * channels precision). Readers further on skip the gap channels whatever they hold.
 */
function widenSdpData(ed: EngineGraphEditor, n: EngineNode, places: number[], total: number, refuse: (what: string) => never): void {
  const p = n.params;
  const widen = (blob: WeightBlob, dims: Dims4, what: string, gapValue: number): { blob: WeightBlob; dims: Dims4 } => {
    if (dims.c === 1 && dims.h === 1 && dims.w === 1) return { blob, dims };
    if (blob.type !== 'FLOAT') throw new Error(`${n.name}: ${what} data must be float before the gaps are laid out`);
    if (dims.c !== places.length || dims.h !== 1 || dims.w !== 1 || blob.count !== places.length) refuse(`${what} data of ${dims.n}x${dims.c}x${dims.h}x${dims.w} for ${places.length} channels`);
    const raw = blob.values as Float32Array;
    const wide = new Float32Array(total).fill(gapValue);
    places.forEach((at, i) => (wide[at] = raw[i]!));
    return { blob: floatBlob(wide), dims: { ...dims, c: total } };
  };
  let auxDims: Dims4 | null = null;
  if (p.kind === 'sdp-scale') {
    const w = widen(p.rawScaleData, p.scaleDims, 'scale', 0);
    p.rawScaleData = w.blob;
    p.scaleDims = auxDims = w.dims;
  } else if (p.kind === 'sdp-bias') {
    const w = widen(p.rawBiasData, p.biasDims, 'bias', 0);
    p.rawBiasData = w.blob;
    p.biasDims = auxDims = w.dims;
  } else if (p.kind === 'sdp-bn') {
    const variance = p.rawVarianceData.values as Float32Array;
    let largest = variance[0] ?? 1;
    for (const v of variance) if (v > largest) largest = v;
    const m = widen(p.rawMeanData, p.meanDims, 'batch-norm mean', 0);
    const v = widen(p.rawVarianceData, p.varianceDims, 'batch-norm variance', largest);
    p.rawMeanData = m.blob;
    p.rawVarianceData = v.blob;
    p.meanDims = m.dims;
    p.varianceDims = v.dims;
    p.batchNormDims = auxDims = { ...p.batchNormDims, c: m.dims.c };
  }
  if (!auxDims) return;
  for (const id of n.auxEdges) {
    const t = ed.edge(id).tensor;
    if (t) t.dims = { ...auxDims };
  }
}

/**
 * A gapped network output: whoever wrote it writes a new gapped tensor instead, and a 1x1
 * convolution with identity weights (zero for the gap channels) writes the bound output in Caffe's
 * channel order, through the SDP op a convolution without bias gets (a NOP in FP16, a unit scale
 * for the INT8 requantisation). Returns the gapped edge, which now carries the output's readers.
 */
function compactNetworkOutput(ed: EngineGraphEditor, out: EngineEdge, places: number[], total: number, cx: VisitContext): EngineEdge {
  const t = out.tensor!;
  const c = places.length;
  const compact = { ...t, dims: { ...t.dims, c }, channelScales: t.channelScales.length ? places.map((at) => t.channelScales[at]!) : [] };
  delete compact.channelPlaces;
  const gapped = ed.addDataEdge(null, null, { ...t, dims: { ...t.dims }, type: 'IO', channelScales: [...t.channelScales], channelPlaces: [...places] });
  const replace = (ids: string[]) => ids.map((id) => (id === out.id ? gapped.id : id));
  for (const id of [...out.sources]) {
    const n = ed.node(id);
    ed.removeNodeFromEdge(out, 'first', n);
    ed.appendNodeToEdge(gapped, 'first', n);
    n.outputEdges = replace(n.outputEdges);
  }
  for (const id of [...out.targets]) {
    const n = ed.node(id);
    ed.removeNodeFromEdge(out, 'second', n);
    ed.appendNodeToEdge(gapped, 'second', n);
    n.inputEdges = replace(n.inputEdges);
  }
  const writer = gapped.sources[0] !== undefined ? ed.node(gapped.sources[0]) : null;
  const origins = writer?.origins ?? cx.concatNode.origins;
  const weights = new Float32Array(c * total);
  places.forEach((at, k) => (weights[k * total + at] = 1));
  const weightDims = { n: c, c: total, h: 1, w: 1 };
  const conv = ed.addNode('dc-conv-', 'CONVOLUTION_CONV', null, origins, { kind: 'conv', conv: unpaddedConvParams(weightDims, false, weights) });
  ed.addDataEdge(null, conv, { name: ed.newAuxTensorName(), dims: { ...weightDims }, type: 'WEIGHT', dataFormat: 'NCHW', channelScales: [] });
  let sdp: EngineNode;
  if (cx.int8) {
    // as NodeFactory.jointSDP for a convolution without bias in INT8
    const scaleDims = { n: 1, c: cx.perFilter ? c : 1, h: 1, w: 1 };
    const common = sdpCommon();
    common.x1 = defaultX1('SDP_SCALE', { mode: cx.perFilter ? 'PER_CHANNEL' : 'PER_LAYER' });
    sdp = ed.addNode('sdp-scale-', 'SDP_SCALE', null, origins, { kind: 'sdp-scale', sdp: common, scaleDims, rawScaleData: floatBlob(new Float32Array(scaleDims.c).fill(1)), unitScale: false, dlaScaleData: null });
    ed.addDataEdge(null, sdp, { name: ed.newAuxTensorName(), dims: { ...scaleDims }, type: 'SCALE', dataFormat: 'NCHW', channelScales: [] });
  } else {
    sdp = ed.addNode('sdp-nop-', 'SDP_NOP', null, origins, { kind: 'sdp-nop', sdp: sdpCommon() });
  }
  ed.appendNodeToEdge(gapped, 'second', conv);
  ed.addDataEdge(conv, sdp, { ...compact, dims: { ...compact.dims }, type: 'STREAM', dataFormat: 'NCHW', channelScales: [...compact.channelScales] });
  out.tensor = compact;
  ed.appendNodeToEdge(out, 'first', sdp);
  ed.populateEdgePorts(conv);
  ed.populateEdgePorts(sdp);
  cx.compactions.push(`the network output '${t.name}' written in Caffe's channel order by ${conv.name} (1x1, identity weights) and ${sdp.name}`);
  return gapped;
}
