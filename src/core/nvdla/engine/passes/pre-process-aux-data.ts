/**
 * Pass `preProcessAuxData` (`Graph::preProcessAuxData`, `ConvCoreNode::preProcessAuxData`):
 * convolution weights are prepared before anything else touches them.
 *
 * - An image-input convolution (its input surface is an IMG format) cannot dilate; in INT8 its
 *   weights are quantised now (the channel extensions below need the final int8 values), then
 *   zero-padded to the image's channels and pre-extended (kernel width folded into channels),
 *   and, where the CONV atom allows, post-extended by 2 or 4 rows (the weights are then already
 *   in the engine's layout: as the CSC reads them, or with `--post-ext-weights nvdla_compiler`
 *   as nvdla_compiler writes them; where the two differ a warning names the layer).
 * - A grouped convolution becomes one convolution whose kernels see every input channel (zeros
 *   outside their group).
 *
 * - A batch-norm's mean and variance become the SDP's add and multiply factors.
 *
 * - A deconvolution's weights go to KCRS and, when strided, the node is rewritten into
 *   split + one stride-1 convolution per output phase + concat + rubik contract
 *   (`ConvCoreDeconvolutionOpNode::preProcessAuxData`; engine/deconvolution.ts).
 *
 * SDP super ops do not exist yet at this pass (fuseSubEngineOps makes them later).
 */
import { convertWtsToKCRS, splitDeconvolution } from '../deconvolution';
import { EngineGraphEditor, downstreamDataNodes } from '../graph';
import { orderedElements, refreshGraphState, type PassContext } from '../graph-state';
import { defaultX1, sdpCommon } from '../factory';
import type { EngineGraph, EngineNode } from '../model';
import type { Dims4, NvdlaDiagnostic } from '../../network/model';
import { SurfaceError, surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { computeBlobType, nvdlaCompilerPostExtRows, nvdlaCompilerPostExtRowsApart, padGroupWeights, postChnlExtWtsForIMG, preChnlExtWtsForIMG, quantizeWeights, weightDims, zeroPadWtsForIMG } from '../weights';
import { UnsupportedError } from '../errors';
import { editCopy, type EnginePass, type PassChanges } from './pass';

export { UnsupportedError };

/** `ConvCoreNode::quantizeAuxData` (also run early for image convolutions) */
export function quantizeConvWeights(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, ctx: PassContext): boolean {
  if (node.params.kind !== 'conv') return false;
  const p = node.params.conv;
  if (ctx.profile.computePrecision !== 'INT8') return false;
  if (p.rawWeights.type === 'INT8') return false;
  const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  if (surfaceFormat(aux.format).precision !== 'INT8') return false;
  if (p.filterScales.length) return false;
  if (p.numGroups !== 1) throw new UnsupportedError(`Don't support weight quantization for group convolutions yet for ${node.name}`);
  const G = p.numGroups;
  const K = p.weightDims.n / G;
  const RS = p.weightDims.h * p.weightDims.w;
  // the channels of the blob as it is now: a grouped convolution's weights were widened to all
  // input channels (padGroupWeights) while weightDims keeps the per-group count. nvdla_compiler
  // indexes with weightDims and so quantises only the first 1/G of the widened blob, leaving the
  // rest of its malloc'd output unset (its INT8 grouped convolutions compute garbage: AlexNet's
  // conv2 came out at 3 dB on the DLA model); NPU Studio quantises it all.
  const C = p.rawWeights.count / (p.weightDims.n * RS);
  if (!Number.isInteger(C)) throw new SurfaceError(`${node.name}: ${p.rawWeights.count} weights are not ${p.weightDims.n} kernels of ${RS} taps`);
  const q = quantizeWeights(p.rawWeights, G, K, C, RS, ctx.profile.quantizationMode === 'PER_FILTER');
  p.rawWeights = q.blob;
  p.filterScales = q.filterScales;
  return true;
}

function processWtsForIMG(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges, diagnostics: NvdlaDiagnostic[]): void {
  if (node.params.kind !== 'conv') return;
  const p = node.params.conv;
  const input = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
  const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  const raw = p.rawWeights;
  const d = aux.dims;
  const rawDims = weightDims(raw.count, d.n, d.c, d.w, d.h, p.stride.w, p.stride.h);
  // mandatory: zero padding to the image's channels, then pre-extension
  let zp = raw;
  let zpDims = { ...d };
  let zpTrns = rawDims;
  if (d.c !== input.dims.c) {
    zpTrns = weightDims((raw.count * input.dims.c) / d.c, d.n, input.dims.c, d.w, d.h, p.stride.w, p.stride.h);
    zp = zeroPadWtsForIMG(rawDims, zpTrns, raw);
    zpDims = { n: zpTrns.numKernels, c: zpTrns.numChannels, h: zpTrns.height, w: zpTrns.width };
    aux.dims = { ...zpDims };
    p.rawWeights = zp;
  }
  const preTrns = weightDims(zp.count, zpDims.n, zpDims.c * zpDims.w, 1, zpDims.h, p.stride.w, p.stride.h);
  const pre = preChnlExtWtsForIMG(zpTrns, preTrns, zp);
  if (!pre) throw new SurfaceError(`IMG channel pre-extension failed for weights of node '${node.name}'`);
  aux.dims = { n: preTrns.numKernels, c: preTrns.numChannels, h: preTrns.height, w: preTrns.width };
  p.rawWeights = pre;
  changes.notes.push(`${node.name}: image weights padded to ${input.dims.c} channels and pre-extended to ${aux.dims.n}x${aux.dims.c}x${aux.dims.h}x${aux.dims.w}`);
  if (!ctx.profile.canIMGPostChnlExtend) return;
  // optional: post-extension for better MAC use
  const preChnls = aux.dims.c;
  const zeroPadded = input.dims.c;
  const t = ctx.target;
  if (p.stride.w > p.weightDims.w) {
    p.postExtension = 0;
    return;
  }
  let factor = 0;
  if (zeroPadded * p.stride.w * 3 + preChnls <= t.atomicCSize && preChnls <= t.atomicCSize / 4) factor = 4;
  else if (zeroPadded * p.stride.w + preChnls <= t.atomicCSize && preChnls <= t.atomicCSize / 2) factor = 2;
  if (!factor) return;
  const post = postChnlExtWtsForIMG(
    weightDims(pre.count, aux.dims.n, aux.dims.c, 1, aux.dims.h, p.stride.w, p.stride.h),
    pre,
    factor,
    computeBlobType(ctx.profile.computePrecision),
    t.atomicKSize,
    t.atomicCSize,
    t.numConvBufEntryWidth,
    ctx.profile.imgPostExtWeightLayout,
  );
  if (!post) return; // upstream warns and goes on without post-extension
  p.dlaWeights = post;
  p.postExtension = factor;
  changes.notes.push(`${node.name}: image weights post-extended by ${factor}`);
  const apart = nvdlaCompilerPostExtRowsApart(t.atomicCSize, preChnls);
  if (apart === factor) return; // both layouts are the same bytes
  const R = aux.dims.h;
  const rows = nvdlaCompilerPostExtRows(R, factor, preChnls, t.atomicCSize)
    .map((r) => (r < 0 ? '?' : r))
    .join(', ');
  const misread = `the hardware reads a stripe as ${factor} consecutive kernel rows, so with nvdla_compiler's layout it multiplies input rows 0..${R - 1} by kernel rows ${rows}`;
  const at = { stage: 'passes' as const, ...(node.origins.length ? { layerIndex: node.origins[0]! } : {}) };
  if (ctx.profile.imgPostExtWeightLayout === 'CSC') {
    changes.notes.push(`${node.name}: post-extended weights laid out as the CSC reads them (${factor} consecutive rows a stripe), not as nvdla_compiler does (${apart} rows apart)`);
    diagnostics.push({
      severity: 'warning',
      ...at,
      message: `${node.name}: image weights post-extended by ${factor} are laid out as the convolution buffer reads them (${factor} consecutive kernel rows a stripe), not ${apart} rows apart as nvdla_compiler lays them: this weight blob differs from nvdla_compiler's (--post-ext-weights nvdla_compiler writes its layout)`,
      upstreamBehaviour: 'wrong-result',
      studio: `${misread}; NPU Studio lays the rows out as the CSC reads them, so the convolution is the network's`,
    });
  } else {
    diagnostics.push({
      severity: 'warning',
      ...at,
      message: `${node.name}: image weights post-extended by ${factor} are laid out as nvdla_compiler lays them (--post-ext-weights nvdla_compiler: ${apart} rows apart a stripe): ${misread}, not the network's convolution`,
      upstreamBehaviour: 'wrong-result',
    });
  }
}

function squashWeightGroups(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, changes: PassChanges): void {
  if (node.params.kind !== 'conv') return;
  const p = node.params.conv;
  const input = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
  const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  const isIMG = surfaceFormat(input.format).category === 'IMG';
  const d = aux.dims;
  let numGroups = p.numGroups;
  if (isIMG) {
    if (input.dims.c % d.c !== 0) throw new SurfaceError('Input channel size is not divisible by kernel channel size');
    numGroups = input.dims.c / d.c;
  }
  const orig = weightDims(p.rawWeights.count, d.n, d.c, d.w, d.h, p.stride.w, p.stride.h);
  const grouped = weightDims(p.rawWeights.count * numGroups, d.n, input.dims.c, d.w, d.h, p.stride.w, p.stride.h);
  p.rawWeights = padGroupWeights(orig, grouped, p.rawWeights, p.numGroups);
  aux.dims = { n: grouped.numKernels, c: grouped.numChannels, h: grouped.height, w: grouped.width };
  changes.notes.push(`${node.name}: ${p.numGroups} groups squashed into one convolution over ${input.dims.c} channels`);
  p.numGroups = 1;
}

/** the largest value of the compute precision (`std::numeric_limits<CP>::max()`) */
function computeMax(ctx: PassContext): number {
  const p = ctx.profile.computePrecision;
  return p === 'INT8' ? 127 : p === 'INT16' ? 32767 : 65504;
}

/**
 * `SDPBatchNormOpNode::factorsPerEntity` for a variance: 1 / sqrt(v + eps), and when that is
 * beyond the compute precision, its smallest n-th root that fits (n factors)
 */
function varianceFactors(v: number, eps: number, max: number): { value: number; factors: number } {
  const processed = f32(1 / f32(Math.sqrt(f32(v + eps))));
  if (!(processed > max)) return { value: processed, factors: 1 };
  let nthRoot = 2;
  let factors = 1;
  let t: number;
  do {
    t = f32(Math.pow(processed, f32(1 / nthRoot)));
    nthRoot++;
    factors++;
  } while (t > max);
  return { value: t, factors };
}

/**
 * `SDPBatchNormOpNode::preProcessAuxData`: y = (x - mean) / sqrt(var + eps) becomes
 * (x + m) * v with m = -mean and v = 1 / sqrt(var + eps), the ADD and MUL the SDP can do. A v
 * beyond the compute precision is split into factors: the first stays here, each further one
 * becomes a scale op chained after the batch-norm.
 *
 * Upstream leaves a per-layer v that needs factors uninitialised, and gives a channel that needs
 * fewer factors than the worst channel its root in every factor (so their product is wrong); here
 * each channel's own factors multiply back to its v (the remaining factors are 1).
 */
function processMeanAndVariance(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges): void {
  if (node.params.kind !== 'sdp-bn') return;
  const p = node.params;
  if (p.rawMeanData.type !== 'FLOAT' || p.rawVarianceData.type !== 'FLOAT') throw new UnsupportedError(`${node.name}: batch-norm data must be float`);
  const mode = p.sdp.x1.mode;
  if (mode !== 'PER_LAYER' && mode !== 'PER_CHANNEL') throw new UnsupportedError(`Don't support SDP mode ${mode} for ${node.name}`);
  const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  const n = mode === 'PER_LAYER' ? 1 : aux.dims.c;
  const mean = p.rawMeanData.values as Float32Array;
  const variance = p.rawVarianceData.values as Float32Array;
  const max = computeMax(ctx);
  const eps = f32(p.epsilon);
  const perEntity = Array.from({ length: n }, (_, i) => varianceFactors(variance[i]!, eps, max));
  const blobs = Math.max(1, ...perEntity.map((e) => e.factors));
  const m = new Float32Array(p.rawMeanData.count);
  for (let i = 0; i < n; i++) m[i] = f32(-mean[i]!);
  const v = Array.from({ length: blobs }, () => new Float32Array(p.rawVarianceData.count));
  perEntity.forEach((e, i) => {
    for (let b = 0; b < blobs; b++) v[b]![i] = b < e.factors ? e.value : 1;
  });
  p.rawMeanData = { type: 'FLOAT', count: m.length, values: m };
  p.rawVarianceData = { type: 'FLOAT', count: v[0]!.length, values: v[0]! };
  changes.changed.push(node.id);
  changes.notes.push(`${node.name}: mean negated, variance turned into 1/sqrt(variance + ${p.epsilon})`);
  if (blobs === 1) return;
  // adjunct scale ops for the further factors, each fed by the one before
  const outEdge = ed.edge(node.outputEdges[0]!);
  const factory = new AdjunctScaleMaker(ed);
  let prev: EngineNode = node;
  const scales: EngineNode[] = [];
  for (let b = 1; b < blobs; b++) scales.push(factory.scale(node, p.batchNormDims, v[b]!));
  ed.removeNodeFromEdge(outEdge, 'first', node);
  ed.appendNodeToEdge(outEdge, 'first', scales[scales.length - 1]!);
  for (const s of scales) {
    const t = outEdge.tensor!;
    ed.addDataEdge(prev, s, { ...t, dims: { ...t.dims }, channelScales: [...t.channelScales], type: 'IO' });
    prev = s;
  }
  for (const s of scales) changes.added.push(s.id);
  changes.notes.push(`${node.name}: variance beyond the compute precision, ${blobs - 1} scale op(s) added after it (${scales.map((s) => s.name).join(', ')})`);
}

/** `NodeFactory::newSDPScaleOpNode(NULL, graph)` + `captureCanonicalScaleData` for the adjunct scales */
class AdjunctScaleMaker {
  constructor(readonly ed: EngineGraphEditor) {}
  scale(bn: EngineNode, dims: Dims4, values: Float32Array): EngineNode {
    const sdp = sdpCommon();
    if (bn.params.kind === 'sdp-bn') sdp.x1 = defaultX1('SDP_SCALE', { mode: bn.params.sdp.x1.mode });
    const node = this.ed.addNode('sdp-scale-', 'SDP_SCALE', null, bn.origins, { kind: 'sdp-scale', sdp, scaleDims: { ...dims }, rawScaleData: { type: 'FLOAT', count: values.length, values }, unitScale: false, dlaScaleData: null });
    this.ed.addDataEdge(null, node, { name: this.ed.newAuxTensorName(), dims: { ...dims }, type: 'SCALE', dataFormat: 'NCHW', channelScales: [] });
    return node;
  }
}

const f32 = Math.fround;

/** `ConvCoreDeconvolutionOpNode::preProcessAuxData`: KCRS weights, INT8 quantisation, then one convolution per output phase (../deconvolution.ts) */
function processDeconvolution(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges): void {
  if (node.params.kind !== 'conv') return;
  const p = node.params.conv;
  const d = p.weightDims;
  if (p.rawWeights.type !== 'FLOAT') throw new UnsupportedError(`${node.name}: deconvolution weights must be float`);
  p.rawWeights = convertWtsToKCRS(p.rawWeights, d.n, d.c, d.h, d.w);
  if (ctx.profile.computePrecision === 'INT8') {
    const sdp = downstreamDataNodes(ed, node)[0];
    if (sdp?.engineOpType === 'SDP_NOP') throw new UnsupportedError(`${node.name}: Expecting node other than SDP_NOP (to handle rescaling)`);
    quantizeConvWeights(g, ed, node, ctx);
  }
  const stride = { ...p.stride };
  const added = splitDeconvolution(ed, node, ctx);
  changes.changed.push(node.id);
  for (const n of added) changes.added.push(n.id);
  changes.notes.push(`${node.name}: stride ${stride.h}x${stride.w} deconvolution as ${stride.h * stride.w} stride-1 convolutions (one per output phase), concatenated along C and interleaved by ${added[2]!.name}`);
}

export const preProcessAuxDataPass: EnginePass = {
  name: 'preProcessAuxData',
  run(input, ctx) {
    return editCopy(input, (g, changes, diagnostics) => {
      const ed = new EngineGraphEditor(g);
      for (const node of orderedElements(g).nodes) {
        if (node.engineOpType === 'CONVOLUTION_DECONV') {
          processDeconvolution(g, ed, node, ctx, changes);
          continue;
        }
        if (node.params.kind === 'sdp-bn') {
          processMeanAndVariance(g, ed, node, ctx, changes);
          continue;
        }
        // super ops are made later (fuseSubEngineOps); one here means the passes ran out of order
        if (node.engineOpType === 'SDP_SUPER') throw new UnsupportedError(`${node.name}: an SDP super op before fuseSubEngineOps: preProcessAuxData runs on the unfused graph (passes out of order)`);
        if (node.params.kind !== 'conv') continue;
        const p = node.params.conv;
        const inputTsd = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
        const isIMG = surfaceFormat(inputTsd.format).category === 'IMG';
        if (isIMG && (p.dilation.h > 1 || p.dilation.w > 1)) throw new SurfaceError('Dilation with image convolution is not supported');
        if (isIMG && quantizeConvWeights(g, ed, node, ctx)) changes.notes.push(`${node.name}: weights quantised to int8 (image convolution, before channel extension)`);
        if (p.numGroups !== 1) squashWeightGroups(g, ed, node, changes);
        if (isIMG) processWtsForIMG(g, ed, node, ctx, changes, diagnostics);
        if (!changes.changed.includes(node.id)) changes.changed.push(node.id);
      }
      refreshGraphState(g, ctx);
    });
  },
};
