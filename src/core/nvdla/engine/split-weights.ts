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
 * FP16: the partial sums are rounded to fp16 between chunks, where one convolution would keep
 * them in its wider accumulator, so results can differ from an unsplit convolution by that
 * rounding.
 *
 * INT8 (per-kernel quantisation): the chunks keep the kernels' int8 weights and scales Sw, so
 * each chunk's accumulator is on the scale Si Sw. Its SDP NOP writes it as int8 on the partial
 * scale Sp = the layer output's scale So (no calibration table names the partials; a partial
 * sum over part of the channels is about 1/sqrt(chunks) of the whole, so So leaves headroom),
 * converting by Si Sw / Sp; the element-wise sums keep Sp; the fused SDP, which read the
 * accumulators (bias as b / (Si Sw), output by Si Sw / So), now reads the int8 sum from memory
 * and is requantised for it: bias b / Sp, output by Sp / So. Each partial is rounded to int8 once
 * and each sum once more, where one convolution rounds once: beyond-int8.test.ts measures what
 * that costs on the DLA model. Per-filter quantisation would need a per-channel rescale of each
 * partial, which an SDP NOP does not do: refused.
 */
import type { Dims4 } from '../network/model';
import { sdpCommon } from './factory';
import { EngineGraphEditor } from './graph';
import type { PassContext } from './graph-state';
import { subEngine, type EngineEdge, type EngineNode, type EngineTensor } from './model';
import { UnsupportedError } from './errors';
import { computeBlobType, translateWtsForDC, weightDims, type WeightBlob } from './weights';
import { scaleAndShiftFromScalar, scaleBiasToInt16 } from './low-precision';
import { translateSdpData } from './passes/translate-aux-data';
import { surfaceById } from './surfaces';
import { surfaceFormat } from '../surface';

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

/**
 * splitWeightsAndData (NPU Studio's own; nvdla_compiler's is a stub): the input is too big for
 * the profile's data banks and one kernel group of weights for its weight banks. The fewest
 * equal chunks of input channels (multiples of the CBUF atom's) whose kernel group fits the
 * profile's weight banks; each chunk's convolution is then split by height like any other whose
 * input does not fit. `dataBanks` is left 0: the data split decides it per chunk.
 */
export function planWeightAndDataSplit(totalC: number, kh: number, kw: number, bpe: number, ctx: PassContext): WeightSplitPlan | null {
  const t = ctx.target;
  const compressed = ctx.profile.canCompressWeights && t.isCompressWeightsCapable ? 1 : 0;
  const step = t.atomicCSize;
  for (let c = Math.floor((totalC - 1) / step) * step; c >= step; c -= step) {
    const w = minWeightBanks(c, kh, kw, bpe, ctx);
    if (w + compressed > ctx.profile.convWeightBanksAllotted) continue;
    const channels: number[] = [];
    for (let at = 0; at < totalC; at += c) channels.push(Math.min(c, totalC - at));
    return { channels, dataBanks: 0, weightBanks: w };
  }
  return null;
}

/** the weights of input channels [c0, c0 + c) of every kernel (K x C x H x W, float or int8) */
function sliceChannels(raw: WeightBlob, k: number, c: number, h: number, w: number, c0: number, cn: number): WeightBlob {
  if (raw.type !== 'FLOAT' && raw.type !== 'INT8') throw new UnsupportedError(`a weight split needs float or int8 weights, not ${raw.type}`);
  const src = raw.values as Float32Array | Int8Array;
  const out = raw.type === 'FLOAT' ? new Float32Array(k * cn * h * w) : new Int8Array(k * cn * h * w);
  const plane = h * w;
  for (let kk = 0; kk < k; kk++) out.set(src.subarray((kk * c + c0) * plane, (kk * c + c0 + cn) * plane), kk * cn * plane);
  return { type: raw.type, count: out.length, values: out };
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
  const int8 = ctx.profile.computePrecision === 'INT8';
  if (!int8 && ctx.profile.computePrecision !== 'FP16') throw new UnsupportedError(`${conv.name}: a weight split in ${ctx.profile.computePrecision}`);
  const sdp = conv.fusedOutput ? ed.node(conv.fusedOutput) : null;
  if (!sdp) throw new UnsupportedError(`${conv.name} has no SDP to write its output`);
  const cp = conv.params.conv;
  if (int8 && ctx.profile.quantizationMode === 'PER_FILTER') {
    throw new UnsupportedError(`${conv.name}: its weights do not fit in the convolution buffer even one kernel group at a time, and NPU Studio splits them by input channel in INT8 only with per-kernel quantisation (per filter, each partial sum would need a rescale per channel, which the SDP that writes it does not do)`);
  }
  if (int8 && sdp.params.kind !== 'sdp-bias' && sdp.params.kind !== 'sdp-nop') {
    throw new UnsupportedError(`${conv.name}: an INT8 weight split before a ${sdp.params.kind} SDP (only bias and NOP are requantised for it)`);
  }
  if (cp.numGroups !== 1) throw new UnsupportedError(`${conv.name}: a weight split of a grouped convolution`);
  const inEdge = ed.edge(conv.inputEdges[0]!);
  const auxEdge = ed.edge(conv.auxEdges[0]!);
  const streamEdge = ed.edge(conv.outputEdges[0]!);
  // the weights as they are now (a grouped convolution's were widened to all input channels)
  const wd = auxEdge.surface ? surfaceById(ed.graph, auxEdge.surface).dims : auxEdge.tensor!.dims;
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

  // INT8: the scales of the accumulators (Si Sw), the partials and sums (Sp) and the output (So)
  const si = inEdge.tensor!.channelScales[0] ?? NaN;
  const sw = cp.filterScales[0] ?? NaN;
  const so = ed.edge(sdp.outputEdges[0]!).tensor!.channelScales[0] ?? NaN;
  const sp = so;
  if (int8 && !(si > 0 && sw > 0 && so > 0)) throw new UnsupportedError(`${conv.name}: an INT8 weight split needs the input, weight and output scales (input ${si}, weights ${sw}, output ${so})`);
  const requantise = (s: number) => {
    const ss = scaleAndShiftFromScalar(Math.fround(s));
    return { enable: true, offset: 0, scale: ss.scale, truncate: ss.shift };
  };
  const onPartialScale = (t: EngineTensor): EngineTensor => (int8 ? { ...t, channelScales: new Array<number>(t.dims.c).fill(sp) } : t);

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
        conv: { ...cp, rawWeights: w.raw, dlaWeights: w.dla, weightDims: { ...cp.weightDims }, topLeftPadding: { ...cp.topLeftPadding }, bottomRightPadding: { ...cp.bottomRightPadding }, stride: { ...cp.stride }, dilation: { ...cp.dilation }, filterScales: [...cp.filterScales], inputCVT: { ...cp.inputCVT }, batches: null, splitData: null },
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
    const nop = ed.addNode('sdp-nop-', 'SDP_NOP', null, conv.origins, { kind: 'sdp-nop', sdp: { ...sdpCommon(), convMode: 'DIRECT', ...(int8 ? { outCVT: requantise((si * sw) / sp) } : {}) } });
    added.push(nop);
    ed.appendNodeToEdge(stream, 'second', nop);
    node.fusedOutput = nop.id;
    nop.fusedInput = node.id;
    partials.push(ed.addDataEdge(nop, null, onPartialScale(tensorLike(streamEdge.tensor!, `${streamEdge.tensor!.name}-partial${i}`, outDims, 'IO'))));
    c0 += cn;
  });

  // the sums, one element-wise add per further chunk; the last one feeds the fused SDP
  let acc = partials[0]!;
  for (let i = 1; i < partials.length; i++) {
    const ew = ed.addNode('ew-', 'SDP_ELEMENTWISE', null, conv.origins, {
      kind: 'sdp-ew',
      sdp: { ...sdpCommon(), x1: subEngine({ mode: 'PER_ELEMENT', aluType: 'SUM', opType: 'ADD', actType: 'NONE' }), ...(int8 ? { outCVT: requantise(1) } : {}) },
      operation: 'SUM',
    });
    added.push(ew);
    ed.appendNodeToEdge(acc, 'second', ew);
    ed.appendNodeToEdge(partials[i]!, 'second', ew);
    acc = ed.addDataEdge(ew, null, onPartialScale(tensorLike(streamEdge.tensor!, `${streamEdge.tensor!.name}-sum${i}`, outDims, 'IO')));
  }
  ed.appendNodeToEdge(acc, 'second', sdp);
  if (int8) requantiseForSum(ed, sdp, si * sw, sp, so, ctx);
  return added;
}

/**
 * INT8: the SDP that was fused to the convolution read accumulators on the scale `accScale`
 * (Si Sw); it now reads the int8 sum on `sumScale` from memory. Its bias (int16 b / accScale with
 * a left shift) is recovered as b and scaled again to b / sumScale; its output conversion becomes
 * sumScale / So.
 */
function requantiseForSum(ed: EngineGraphEditor, sdp: EngineNode, accScale: number, sumScale: number, so: number, ctx: PassContext): void {
  const p = sdp.params;
  const f32 = Math.fround;
  const ss = scaleAndShiftFromScalar(f32(sumScale / so));
  if (p.kind === 'sdp-nop') {
    p.sdp.outCVT = { enable: true, offset: 0, scale: ss.scale, truncate: ss.shift };
    return;
  }
  if (p.kind !== 'sdp-bias') throw new UnsupportedError(`${sdp.name}: an INT8 weight split before a ${p.kind} SDP`);
  if (p.sdp.x1.isINT8Rescaling) throw new UnsupportedError(`${sdp.name}: an INT8 weight split with per-channel rescaling`);
  if (p.rawBiasData.type !== 'INT16') throw new UnsupportedError(`${sdp.name}: an INT8 weight split needs the bias already quantised (it is ${p.rawBiasData.type})`);
  const q = p.rawBiasData.values as Int16Array;
  const bias = Float32Array.from(q, (v) => v * 2 ** p.sdp.x1.shiftValue * accScale);
  const r = scaleBiasToInt16(bias, sumScale, null);
  p.rawBiasData = { type: 'INT16', count: r.values.length, values: r.values };
  p.sdp.x1.shiftValue = r.shift;
  p.sdp.outCVT = { enable: true, offset: 0, scale: ss.scale, truncate: ss.shift };
  const aux = surfaceById(ed.graph, ed.edge(sdp.auxEdges[0]!).surface!);
  const rt = computeBlobType(surfaceFormat(aux.format).precision);
  p.dlaBiasData = translateSdpData(p.sdp.x1.mode, aux.dims, p.rawBiasData, rt, ctx.target.atomicKSize, sdp);
}
