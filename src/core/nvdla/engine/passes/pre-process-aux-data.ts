/**
 * Pass `preProcessAuxData` (`Graph::preProcessAuxData`, `ConvCoreNode::preProcessAuxData`):
 * convolution weights are prepared before anything else touches them.
 *
 * - An image-input convolution (its input surface is an IMG format) cannot dilate; in INT8 its
 *   weights are quantised now (the channel extensions below need the final int8 values), then
 *   zero-padded to the image's channels and pre-extended (kernel width folded into channels),
 *   and, where the CONV atom allows, post-extended by 2 or 4 rows (the weights are then already
 *   in the engine's layout).
 * - A grouped convolution becomes one convolution whose kernels see every input channel (zeros
 *   outside their group).
 *
 * Not implemented yet: strided deconvolution's rewrite into split + per-phase deconvolutions +
 * concat + rubik (`ConvCoreDeconvolutionOpNode::preProcessAuxData`), and the batch-norm and
 * SDP-super variants; graphs with those nodes are refused with a message saying so.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState, type PassContext } from '../graph-state';
import type { EngineGraph, EngineNode } from '../model';
import { SurfaceError, surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { computeBlobType, padGroupWeights, postChnlExtWtsForIMG, preChnlExtWtsForIMG, quantizeWeights, weightDims, zeroPadWtsForIMG } from '../weights';
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
  const C = p.weightDims.c / G;
  const RS = p.weightDims.h * p.weightDims.w;
  const q = quantizeWeights(p.rawWeights, G, K, C, RS, ctx.profile.quantizationMode === 'PER_FILTER');
  p.rawWeights = q.blob;
  p.filterScales = q.filterScales;
  return true;
}

function processWtsForIMG(g: EngineGraph, ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges): void {
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
  );
  if (!post) return; // upstream warns and goes on without post-extension
  p.dlaWeights = post;
  p.postExtension = factor;
  changes.notes.push(`${node.name}: image weights post-extended by ${factor}`);
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

export const preProcessAuxDataPass: EnginePass = {
  name: 'preProcessAuxData',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      const ed = new EngineGraphEditor(g);
      for (const node of orderedElements(g).nodes) {
        if (node.engineOpType === 'CONVOLUTION_DECONV') {
          throw new UnsupportedError(`${node.name}: deconvolution weight pre-processing (the strided-deconvolution rewrite) is not implemented yet`);
        }
        if (node.engineOpType === 'SDP_BATCH_NORM') throw new UnsupportedError(`${node.name}: batch-norm pre-processing (mean and variance into SDP add/multiply factors) is not implemented yet`);
        if (node.engineOpType === 'SDP_SUPER') throw new UnsupportedError(`${node.name}: SDP super-op pre-processing is not implemented yet`);
        if (node.params.kind !== 'conv') continue;
        const p = node.params.conv;
        const inputTsd = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
        const isIMG = surfaceFormat(inputTsd.format).category === 'IMG';
        if (isIMG && (p.dilation.h > 1 || p.dilation.w > 1)) throw new SurfaceError('Dilation with image convolution is not supported');
        if (isIMG && quantizeConvWeights(g, ed, node, ctx)) changes.notes.push(`${node.name}: weights quantised to int8 (image convolution, before channel extension)`);
        if (p.numGroups !== 1) squashWeightGroups(g, ed, node, changes);
        if (isIMG) processWtsForIMG(g, ed, node, ctx, changes);
        if (!changes.changed.includes(node.id)) changes.changed.push(node.id);
      }
      refreshGraphState(g, ctx);
    });
  },
};
