/**
 * Weights too big for the convolution buffer (NPU Studio's own; nvdla_compiler stops with "Not
 * enough banks to hold weight data. No software split supported", VGG16's fc6 for one): when
 * even one kernel group of weights (atomic-K kernels over all input channels) does not fit beside
 * the input, the input channels are cut into chunks that do. Each chunk is a convolution of its
 * own over its slice of the input (a software split along C hands it its channels of the one input
 * buffer) with the matching slice of every kernel, writing a partial result through an SDP NOP;
 * element-wise sums on the SDP add the partials up, and the SDP op that was fused to the
 * convolution (its bias, activation, ...) then runs on the sum, reading it from memory.
 *
 * Only FP16: in INT8 each partial would need its own output scale, which a calibration table does
 * not give. The partial sums are rounded to fp16 between chunks, where one convolution would keep
 * them in its wider accumulator, so results can differ from an unsplit convolution by that
 * rounding.
 */
import type { Dims4 } from '../network/model';
import { sdpCommon } from './factory';
import { EngineGraphEditor } from './graph';
import type { PassContext } from './graph-state';
import { subEngine, type EngineEdge, type EngineNode, type EngineTensor } from './model';
import { UnsupportedError } from './errors';
import { computeBlobType, translateWtsForDC, weightDims, type WeightBlob } from './weights';

export interface WeightSplitPlan {
  /** input channels of each chunk, in order */
  channels: number[];
  /** CBUF banks for one chunk's data and weights */
  dataBanks: number;
  weightBanks: number;
}

const roundUp = (n: number, a: number) => (n % a ? n + a - (n % a) : n);
const f32 = Math.fround;

/** banks for one kernel group of a chunk of `c` channels (`calculateMinBanksForWeight`) */
function minWeightBanks(c: number, h: number, w: number, bpe: number, ctx: PassContext): number {
  const t = ctx.target;
  const kpg = bpe === 1 ? t.atomicKSize : t.atomicKSize / 2;
  const bytes = roundUp(c * h * w * kpg * bpe, t.numConvBufEntryWidth);
  return Math.ceil(f32(Math.trunc(bytes / t.numConvBufEntryWidth) / t.numConvBufEntriesPerBank));
}

/**
 * The fewest equal chunks (multiples of the CBUF atom's channels, the last one the rest) whose
 * data and one kernel group of weights fit in the banks. `dataBanksFor(c)` gives the banks the
 * input slice of c channels needs.
 */
export function planWeightSplit(totalC: number, kh: number, kw: number, bpe: number, dataBanksFor: (c: number) => number, ctx: PassContext): WeightSplitPlan | null {
  const t = ctx.target;
  const compressed = ctx.profile.canCompressWeights && t.isCompressWeightsCapable ? 1 : 0;
  const step = t.atomicCSize;
  for (let c = Math.floor((totalC - 1) / step) * step; c >= step; c -= step) {
    const d = dataBanksFor(c);
    const w = minWeightBanks(c, kh, kw, bpe, ctx);
    if (w + d + compressed > t.numConvBufBankAllotted) continue;
    const channels: number[] = [];
    for (let at = 0; at < totalC; at += c) channels.push(Math.min(c, totalC - at));
    const pingPong = 2 * w + d + compressed <= t.numConvBufBankAllotted;
    return { channels, dataBanks: d, weightBanks: pingPong ? 2 * w : w };
  }
  return null;
}

/** the weights of input channels [c0, c0 + c) of every kernel (K x C x H x W, float) */
function sliceChannels(raw: WeightBlob, k: number, c: number, h: number, w: number, c0: number, cn: number): WeightBlob {
  if (raw.type !== 'FLOAT') throw new UnsupportedError('a weight split needs float weights');
  const src = raw.values as Float32Array;
  const out = new Float32Array(k * cn * h * w);
  const plane = h * w;
  for (let kk = 0; kk < k; kk++) out.set(src.subarray((kk * c + c0) * plane, (kk * c + c0 + cn) * plane), kk * cn * plane);
  return { type: 'FLOAT', count: out.length, values: out };
}

function tensorLike(t: EngineTensor, name: string, dims: Dims4, type: EngineTensor['type']): EngineTensor {
  return { ...t, name, dims: { ...dims }, channelScales: [...t.channelScales], type };
}

/**
 * Rewrite `conv` (and the SDP fused to it) as the chunked convolutions of `plan`. Returns the
 * nodes added.
 */
export function splitWeights(ed: EngineGraphEditor, conv: EngineNode, plan: WeightSplitPlan, ctx: PassContext): EngineNode[] {
  if (conv.params.kind !== 'conv') throw new Error(`${conv.name} is not a convolution`);
  if (ctx.profile.computePrecision !== 'FP16') {
    throw new UnsupportedError(`${conv.name}: its weights do not fit in the convolution buffer even one kernel group at a time; NPU Studio splits them by input channel only in FP16 (in INT8 each partial sum would need an output scale of its own)`);
  }
  const sdp = conv.fusedOutput ? ed.node(conv.fusedOutput) : null;
  if (!sdp) throw new UnsupportedError(`${conv.name} has no SDP to write its output`);
  const cp = conv.params.conv;
  if (cp.numGroups !== 1) throw new UnsupportedError(`${conv.name}: a weight split of a grouped convolution`);
  const inEdge = ed.edge(conv.inputEdges[0]!);
  const auxEdge = ed.edge(conv.auxEdges[0]!);
  const streamEdge = ed.edge(conv.outputEdges[0]!);
  const wd = auxEdge.tensor!.dims;
  const K = wd.n;
  const C = wd.c;
  const raw = cp.rawWeights;
  if (raw.count !== K * C * wd.h * wd.w) throw new UnsupportedError(`${conv.name}: weights of ${raw.count} values for dims ${K}x${C}x${wd.h}x${wd.w}`);
  const outDims = streamEdge.tensor!.dims;
  const added: EngineNode[] = [];
  const t = ctx.target;
  const rt = computeBlobType(ctx.profile.computePrecision);
  const weightsOf = (c0: number, cn: number) => {
    const s = sliceChannels(raw, K, C, wd.h, wd.w, c0, cn);
    return { raw: s, dla: translateWtsForDC(weightDims(s.count, K, cn, wd.w, wd.h, cp.stride.w, cp.stride.h), s, rt, t.atomicKSize, t.atomicCSize, t.numConvBufEntryWidth) };
  };

  // the input goes to a split along C; the fused SDP now reads the sum from memory
  const split = ed.addNode('split-', 'SPLIT_SOFTWARE', null, conv.origins, { kind: 'split', axis: 'C', canonicalOutputs: null });
  added.push(split);
  ed.removeNodeFromEdge(inEdge, 'second', conv);
  ed.appendNodeToEdge(inEdge, 'second', split);
  ed.removeNodeFromEdge(streamEdge, 'second', sdp);
  conv.fusedOutput = null;
  sdp.fusedInput = null;

  const partials: EngineEdge[] = [];
  let c0 = 0;
  plan.channels.forEach((cn, i) => {
    const chunkIn = { ...inEdge.tensor!.dims, n: 1, c: cn };
    let node: EngineNode;
    let stream: EngineEdge;
    const w = weightsOf(c0, cn);
    if (i === 0) {
      // the original convolution does the first chunk
      node = conv;
      cp.rawWeights = w.raw;
      cp.dlaWeights = w.dla;
      auxEdge.tensor!.dims = { n: K, c: cn, h: wd.h, w: wd.w };
      stream = streamEdge;
    } else {
      node = ed.addNode(conv.engineOpType === 'CONVOLUTION_FC' ? 'fc-' : 'dc-conv-', conv.engineOpType, conv.canonicalNode, conv.origins, {
        kind: 'conv',
        conv: { ...cp, rawWeights: w.raw, dlaWeights: w.dla, weightDims: { ...cp.weightDims }, topLeftPadding: { ...cp.topLeftPadding }, bottomRightPadding: { ...cp.bottomRightPadding }, stride: { ...cp.stride }, dilation: { ...cp.dilation }, filterScales: [], inputCVT: { ...cp.inputCVT }, batches: null, splitData: null },
      });
      added.push(node);
      ed.addDataEdge(null, node, { name: ed.newAuxTensorName(), dims: { n: K, c: cn, h: wd.h, w: wd.w }, type: 'WEIGHT', dataFormat: 'NCHW', channelScales: [] });
      stream = ed.addDataEdge(node, null, tensorLike(streamEdge.tensor!, `${streamEdge.tensor!.name}-part${i}`, outDims, 'STREAM'));
    }
    if (node.params.kind === 'conv') {
      node.params.conv.allottedDataBanks = plan.dataBanks;
      node.params.conv.allottedWeightBanks = plan.weightBanks;
    }
    ed.addDataEdge(split, node, tensorLike(inEdge.tensor!, `${inEdge.tensor!.name}-c${c0}`, chunkIn, 'IO'), inEdge.canonicalEdge);
    const nop = ed.addNode('sdp-nop-', 'SDP_NOP', null, conv.origins, { kind: 'sdp-nop', sdp: { ...sdpCommon(), convMode: 'DIRECT' } });
    added.push(nop);
    ed.appendNodeToEdge(stream, 'second', nop);
    node.fusedOutput = nop.id;
    nop.fusedInput = node.id;
    partials.push(ed.addDataEdge(nop, null, tensorLike(streamEdge.tensor!, `${streamEdge.tensor!.name}-partial${i}`, outDims, 'IO')));
    c0 += cn;
  });

  // the sums, one element-wise add per further chunk; the last one feeds the fused SDP
  let acc = partials[0]!;
  for (let i = 1; i < partials.length; i++) {
    const ew = ed.addNode('ew-', 'SDP_ELEMENTWISE', null, conv.origins, {
      kind: 'sdp-ew',
      sdp: { ...sdpCommon(), x1: subEngine({ mode: 'PER_ELEMENT', aluType: 'SUM', opType: 'ADD', actType: 'NONE' }) },
      operation: 'SUM',
    });
    added.push(ew);
    ed.appendNodeToEdge(acc, 'second', ew);
    ed.appendNodeToEdge(partials[i]!, 'second', ew);
    acc = ed.addDataEdge(ew, null, tensorLike(streamEdge.tensor!, `${streamEdge.tensor!.name}-sum${i}`, outDims, 'IO'));
  }
  ed.appendNodeToEdge(acc, 'second', sdp);
  return added;
}
