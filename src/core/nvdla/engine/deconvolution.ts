/**
 * Deconvolution on NVDLA (nvdla/sw `ConvCoreDeconvolutionOpNode::preProcessAuxData`,
 * `WeightTrns::convertWtsToKCRS`, `splitWeightsForDeconv`, `RubikNode::determineContractOpParams`):
 * a deconvolution of stride sx x sy runs as sx * sy stride-1 convolutions, one per output phase,
 * each with the kernel taps of its phase; their outputs are concatenated along C and the Rubik
 * engine (contract mode) interleaves the phases back into the full-size output.
 *
 * Caffe's deconvolution weights are C x K x R x S; they are first reordered to K x C x R x S (the
 * convolution layout). Each phase's kernel is ceil(R / sy) x ceil(S / sx), zero where the phase has
 * no tap. Padding is not supported (upstream's limitation, kept): the phase outputs times the
 * stride must give the deconvolution's output exactly.
 *
 * The phases' concat places each phase after the whole channel groups of the ones before it, as a
 * Caffe concat does (concat-gaps.ts), but it needs no gaps: the phase convolutions' output surfaces
 * are suggested with their channels rounded up to the group (suggest.ts, upstream
 * `ConvCoreDeconvolutionOpNode::suggestSurfaceDims`) and their fused SDPs take those dims, so the
 * concat's sum of its inputs' channels is already the group-aligned total its buffer is sized for,
 * and the Rubik contract reads phase p at channel p x roundUp(C, group), where it was written
 * (deconvolution.test.ts: 3 and 20 channels, in dB against Caffe and in the memory plan).
 *
 * Node and edge creation follows upstream step for step (split, concat and rubik nodes first, then
 * per further phase a deconvolution and a copy of the fused SDP made as from their canonical
 * nodes), because creation numbers decide the graph order and so the loadable.
 */
import type { Dims4 } from '../network/model';
import { UnsupportedError } from './errors';
import { EngineGraphEditor, downstreamDataNodes } from './graph';
import type { PassContext } from './graph-state';
import type { EngineEdge, EngineNode, EngineNodeParams } from './model';
import { captureAux, cloneTensor, newSdpLike, replaceEdgeNodes } from './split-data';
import { surfaceById } from './surfaces';
import type { WeightBlob } from './weights';

/** `convertWtsToKCRS`: C x K x R x S -> K x C x R x S, as float */
export function convertWtsToKCRS(src: WeightBlob, k: number, c: number, h: number, w: number): WeightBlob {
  const out = new Float32Array(k * c * h * w);
  const plane = h * w;
  const v = src.values;
  for (let kk = 0; kk < k; kk++)
    for (let cc = 0; cc < c; cc++) {
      const from = (cc * k + kk) * plane;
      const to = (kk * c + cc) * plane;
      for (let i = 0; i < plane; i++) out[to + i] = v[from + i]!;
    }
  return { type: 'FLOAT', count: out.length, values: out };
}

/** `splitWeightsForDeconv`: one K x C x ceil(R/sy) x ceil(S/sx) kernel set per phase (y, x), row by row */
export function splitWeightsForDeconv(kcrs: WeightBlob, dims: Dims4, strideH: number, strideW: number): { sets: WeightBlob[]; setDims: Dims4 } {
  const setDims: Dims4 = { n: dims.n, c: dims.c, h: Math.ceil(Math.fround(dims.h / strideH)), w: Math.ceil(Math.fround(dims.w / strideW)) };
  const sets: WeightBlob[] = [];
  const count = setDims.n * setDims.c * setDims.h * setDims.w;
  for (let y = 0; y < strideH; y++) {
    for (let x = 0; x < strideW; x++) {
      const out = kcrs.type === 'INT8' ? new Int8Array(count) : new Float32Array(count);
      let n = 0;
      for (let k = 0; k < setDims.n; k++)
        for (let c = 0; c < setDims.c; c++)
          for (let r = 0; r < setDims.h; r++)
            for (let s = 0; s < setDims.w; s++) {
              const sj = x + s * strideW;
              const rj = y + r * strideH;
              out[n++] = sj < dims.w && rj < dims.h ? kcrs.values[sj + dims.w * (rj + dims.h * (c + dims.c * k))]! : 0;
            }
      sets.push({ type: kcrs.type, count, values: out });
    }
  }
  return { sets, setDims };
}

const sameDims = (a: Dims4, b: Dims4) => a.n === b.n && a.c === b.c && a.h === b.h && a.w === b.w;

/**
 * The graph rewrite of `preProcessAuxData` for a deconvolution whose weights are in KCRS order
 * (and quantised, in INT8). Returns the nodes added.
 */
export function splitDeconvolution(ed: EngineGraphEditor, deconv: EngineNode, ctx: PassContext): EngineNode[] {
  if (deconv.params.kind !== 'conv') throw new Error(`${deconv.name} is not a deconvolution`);
  const p = deconv.params.conv;
  const g = ed.graph;
  const added: EngineNode[] = [];
  const strides = { ...p.stride };
  const origWeightDims = { ...p.weightDims };
  const numSplits = strides.w * strides.h;
  const { sets, setDims } = splitWeightsForDeconv(p.rawWeights, p.weightDims, strides.h, strides.w);
  const sdp = downstreamDataNodes(ed, deconv)[0];
  if (!sdp) throw new UnsupportedError(`${deconv.name} has no SDP after it`);
  const sdpAux = sdp.auxEdges.length ? ed.edge(sdp.auxEdges[0]!) : null;
  const origInput = ed.edge(deconv.inputEdges[0]!);
  const origStream = ed.edge(deconv.outputEdges[0]!);
  const origOutput = ed.edge(sdp.outputEdges[0]!);
  const auxEdge = ed.edge(deconv.auxEdges[0]!);
  const srcDims = surfaceById(g, origInput.surface!).dims;
  const dstDims = surfaceById(g, origOutput.surface!).dims;

  const split = ed.addNode('split-', 'SPLIT_SOFTWARE', null, deconv.origins, { kind: 'split', axis: 'NONE', canonicalOutputs: null });
  const concat = ed.addNode('concat-', 'CONCATENATION_CONCAT', null, deconv.origins, { kind: 'concat', axis: 'C', canonicalInputs: null });
  const zero: Dims4 = { n: 0, c: 0, h: 0, w: 0 };
  const rubik = ed.addNode('rubik-', 'RUBIK_DECONV', deconv.canonicalNode, deconv.origins, { kind: 'rubik', mode: 'CONTRACT', deconvStride: { ...strides }, contract: { inDims: zero, outDims: zero } });
  added.push(split, concat, rubik);

  p.stride = { h: 1, w: 1 };
  p.rawWeights = sets[0]!;
  p.weightDims = { ...setDims };
  auxEdge.tensor!.dims = { ...setDims };
  const auxTsd = surfaceById(g, auxEdge.surface!);
  auxTsd.dims = { ...setDims };

  const concatDims: Dims4 = { n: dstDims.n, c: dstDims.c * numSplits, h: Math.trunc(dstDims.h / strides.h), w: Math.trunc(dstDims.w / strides.w) };
  const rubikDims: Dims4 = { n: concatDims.n, c: concatDims.c / numSplits, h: concatDims.h * strides.h, w: concatDims.w * strides.w };
  if (!sameDims(dstDims, rubikDims)) throw new UnsupportedError(`${deconv.name}: its output ${dstDims.h}x${dstDims.w} is not a multiple of its stride ${strides.h}x${strides.w}`);
  const streamDims: Dims4 = { n: dstDims.n, c: dstDims.c, h: srcDims.h - setDims.h + 1, w: srcDims.w - setDims.w + 1 };
  if (streamDims.h * strides.h !== dstDims.h || streamDims.w * strides.w !== dstDims.w) {
    throw new UnsupportedError(`${deconv.name}: Padding issue, dims difference: (orig - computed) (H x W) = (${dstDims.h - streamDims.h * strides.h} x ${dstDims.w - streamDims.w * strides.w}) (a padded deconvolution is not supported)`);
  }
  const bandStream: Dims4 = { ...streamDims, n: 1 };
  origStream.tensor!.dims = { ...bandStream };
  surfaceById(g, origStream.surface!).dims = { ...bandStream };
  const first = ed.addDataEdge(split, deconv, cloneTensor(origInput.tensor!, 'IO', srcDims), origInput.canonicalEdge);
  if (origInput.bind) first.bind = { ...origInput.bind };
  ed.addDataEdge(sdp, concat, cloneTensor(origOutput.tensor!, 'IO', bandStream), origOutput.canonicalEdge);
  replaceEdgeNodes(ed, origInput, 'second', deconv, split);
  replaceEdgeNodes(ed, origOutput, 'first', sdp, rubik);
  const concatTensor = cloneTensor(origOutput.tensor!, 'IO', { ...concatDims, n: 1 });
  if (ctx.profile.computePrecision === 'INT8' && concatTensor.channelScales.length) concatTensor.channelScales = new Array<number>(concatDims.c).fill(concatTensor.channelScales[0]!);
  ed.addDataEdge(concat, rubik, concatTensor);

  const deconvs: EngineNode[] = [deconv];
  const sdps: EngineNode[] = [sdp];
  for (let n = 1; n < numSplits; n++) {
    const params: EngineNodeParams = {
      kind: 'conv',
      conv: {
        ...p,
        weightDims: { ...p.weightDims },
        topLeftPadding: { ...p.topLeftPadding },
        bottomRightPadding: { ...p.bottomRightPadding },
        stride: { h: 1, w: 1 },
        dilation: { ...p.dilation },
        rawWeights: sets[n]!,
        dlaWeights: null,
        filterScales: [...p.filterScales],
        inputCVT: { scale: 1, truncate: 0, offset: 0, enable: false },
        outTruncate: 0,
        praTruncate: 0,
        batches: null,
        splitData: null,
        allottedDataBanks: 0,
        allottedWeightBanks: 0,
      },
    };
    const nd = ed.addNode('deconv-', 'CONVOLUTION_DECONV', deconv.canonicalNode, deconv.origins, params);
    // captureCanonicalWeights with the canonical dims; the tensor then takes the phase kernel's
    const aux = captureAux(ed, nd, origWeightDims, 'WEIGHT');
    aux.tensor!.dims = { ...setDims };
    const { node: ns, redundantAux } = newSdpLike(ed, nd, sdp, origStream);
    if (sdpAux && redundantAux) {
      ed.removeNodeFromEdge(redundantAux, 'second', ns);
      ed.deleteEdge(redundantAux);
      ed.appendNodeToEdge(sdpAux, 'second', ns);
    } else if (sdpAux) ed.appendNodeToEdge(sdpAux, 'second', ns);
    const stream: EngineEdge = ed.edge(nd.downstream.find((id) => ed.edge(id).tensor?.type === 'STREAM')!);
    stream.tensor!.dims = { ...bandStream };
    const e = ed.addDataEdge(split, nd, cloneTensor(origInput.tensor!, 'IO', srcDims), origInput.canonicalEdge);
    if (origInput.bind) e.bind = { ...origInput.bind };
    ed.addDataEdge(ns, concat, cloneTensor(origOutput.tensor!, 'IO', bandStream), origOutput.canonicalEdge);
    ed.addComputeEdge(deconvs[deconvs.length - 1]!, nd);
    ed.addComputeEdge(sdps[sdps.length - 1]!, ns);
    deconvs.push(nd);
    sdps.push(ns);
    added.push(nd, ns);
  }
  determineContractOpParams(ed, rubik, ctx);
  return added;
}

/** `RubikNode::determineContractOpParams`: channels aligned to 16 (fp16) or 32 (int8) on both sides */
function determineContractOpParams(ed: EngineGraphEditor, rubik: EngineNode, ctx: PassContext): void {
  if (rubik.params.kind !== 'rubik') return;
  const ins = ed.upstreamDataEdges(rubik);
  const outs = ed.downstreamDataEdges(rubik);
  const align = ctx.profile.computePrecision === 'INT8' ? ctx.target.atomicKSize : ctx.target.atomicKSize / 2;
  const up = (v: number) => (v % align ? v + align - (v % align) : v);
  const inDims = { ...ins[0]!.tensor!.dims };
  const outDims = { ...outs[0]!.tensor!.dims };
  rubik.params.contract = { inDims: { ...inDims, c: up(inDims.c) }, outDims: { ...outDims, c: up(outDims.c) } };
}
