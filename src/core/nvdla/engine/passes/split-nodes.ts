/**
 * Pass `splitNodes` (`Graph::splitNodes`; `ConvCoreNode::splitNodes`, `PDPNode::splitNodes`).
 *
 * Convolutions: how many convolution-buffer (CBUF) banks the input data and the weights need, and
 * which of the hardware's modes fits: full input + full weights, full input + weights in
 * ping-pong (two kernel groups), full input + one kernel group. When none fits, upstream splits
 * the input into partial-height convolutions (`splitData`); that rewrite is not done here yet and
 * is reported as unsupported, as upstream reports its own missing split-K mode.
 *
 * Pooling: PDP reads its input from memory (on-the-fly pooling after SDP is off in every
 * profile); when the output is wider than its line buffer holds, the hardware splits the width
 * into stripes (`pdpHWSplitWidth`); the bottom/right padding is recomputed to what the last
 * window really overhangs (`adjustBRPadding`).
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState, type PassContext } from '../graph-state';
import type { EngineNode, PdpSplitWidth } from '../model';
import { surfaceById, type TensorSurfaceDesc } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { UnsupportedError } from '../errors';
import { editCopy, type EnginePass, type PassChanges } from './pass';

const f32 = Math.fround;

function roundUpAndAlign(n: number, a: number): number {
  return n % a ? n + a - (n % a) : n;
}

/** `ConvCoreNode::calculateEPS` (direct convolution): CBUF entries per input slice (one row) */
export function entriesPerSlice(node: EngineNode, tsd: TensorSurfaceDesc, ctx: PassContext): number {
  if (node.params.kind !== 'conv') throw new Error(`${node.name} is not a convolution`);
  const p = node.params.conv;
  const sf = surfaceFormat(tsd.format);
  const t = ctx.target;
  const bankWidth = t.numConvBufEntryWidth;
  const atom = t.memoryAtomicSize;
  if (p.convMode !== 'DIRECT') throw new UnsupportedError(`${node.name}: entries per slice for ${p.convMode} convolution`);
  if (sf.category === 'IMG') {
    const widthExt = p.topLeftPadding.w + p.bottomRightPadding.w + tsd.dims.w;
    return Math.ceil(f32((widthExt * sf.channelsPerAtom * sf.bytesPerElement) / bankWidth)) << 16 >> 16;
  }
  if (sf.category === 'FEATURE_DATA') {
    const atomsPerEntry = Math.trunc(bankWidth / atom) & 0xffff;
    const totalCAtomics = Math.ceil(f32((tsd.dims.c * sf.bytesPerElement) / atom)) & 0xffff;
    const lastCAtomics = totalCAtomics % atomsPerEntry;
    const intCEntries = (Math.trunc(totalCAtomics / atomsPerEntry) * tsd.dims.w) & 0xffff;
    const fracCEntries = lastCAtomics === 3 ? tsd.dims.w : Math.ceil(f32((lastCAtomics * tsd.dims.w) / f32(bankWidth / atom))) & 0xffff;
    return ((intCEntries + fracCEntries) << 16) >> 16;
  }
  throw new Error(`EPS cannot be calculated for: ${sf.category} surface category`);
}

/** `calculateTotalBanksForData` */
export function totalBanksForData(node: EngineNode, tsd: TensorSurfaceDesc, ctx: PassContext): number {
  return Math.ceil(f32((entriesPerSlice(node, tsd, ctx) * tsd.dims.h) / ctx.target.numConvBufEntriesPerBank)) & 0xffff;
}

/** `calculateMinBanksForWeight`: banks for one kernel group */
export function minBanksForWeight(wt: TensorSurfaceDesc, ctx: PassContext): number {
  const bpe = surfaceFormat(wt.format).bytesPerElement;
  const t = ctx.target;
  const kpg = bpe === 1 ? t.atomicKSize : t.atomicKSize / 2;
  const bytes = roundUpAndAlign(wt.dims.c * wt.dims.h * wt.dims.w * kpg * bpe, t.numConvBufEntryWidth);
  return Math.ceil(f32(Math.trunc(bytes / t.numConvBufEntryWidth) / t.numConvBufEntriesPerBank)) & 0xffff;
}

/** `calculateTotalBanksForWeight`: banks for all the weights */
export function totalBanksForWeight(wt: TensorSurfaceDesc, ctx: PassContext): number {
  const bpe = surfaceFormat(wt.format).bytesPerElement;
  const t = ctx.target;
  const bytes = roundUpAndAlign(wt.dims.n * wt.dims.c * wt.dims.h * wt.dims.w * bpe, t.numConvBufEntryWidth);
  return Math.ceil(f32(Math.trunc(bytes / t.numConvBufEntryWidth) / t.numConvBufEntriesPerBank)) & 0xffff;
}

function splitConv(ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges): void {
  if (node.params.kind !== 'conv') return;
  const p = node.params.conv;
  if (p.convMode !== 'DIRECT') throw new UnsupportedError(`${node.name}: ${p.convMode} convolution splits`);
  const g = ed.graph;
  const src = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
  const wt = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  const compressed = ctx.profile.canCompressWeights && ctx.target.isCompressWeightsCapable ? 1 : 0;
  const banks = ctx.target.numConvBufBankAllotted;
  const data = totalBanksForData(node, src, ctx);
  const totalWt = totalBanksForWeight(wt, ctx);
  const minWt = minBanksForWeight(wt, ctx);
  const set = (d: number, w: number, mode: string) => {
    p.allottedDataBanks = d;
    p.allottedWeightBanks = w;
    changes.changed.push(node.id);
    changes.notes.push(`${node.name}: ${mode} (data ${d} banks, weights ${w} of ${banks})`);
  };
  if (totalWt + data + compressed <= banks) return set(data, totalWt, 'full input + full weights');
  if (2 * minWt + data + compressed <= banks) return set(data, 2 * minWt, 'full input + weights in ping-pong');
  if (minWt + data + compressed <= banks) return set(data, minWt, 'full input + one kernel group of weights');
  // software splits, governed by the profile's bank allotment
  if (data < ctx.profile.convDataBanksAllotted) {
    if (2 * minWt + compressed < ctx.profile.convWeightBanksAllotted) return set(data, 2 * minWt, 'full input + hardware split-K (ping-pong)');
    if (minWt + compressed < ctx.profile.convWeightBanksAllotted) return set(data, minWt, 'full input + hardware split-K (one kernel group)');
    throw new UnsupportedError('Not enough banks to hold weight data. No software split supported');
  }
  throw new UnsupportedError(
    `${node.name}: its input needs ${data} CBUF banks and its weights ${minWt}..${totalWt} of ${banks}; nvdla_compiler would split the input into partial-height convolutions (splitData), which this compiler does not do yet`,
  );
}

/** `PDPNode::calculateMaxWidth`: the widest output the PDP line buffer holds for this window */
export function pdpMaxFlyingWidth(precision: string, kernelH: number, strideY: number, atomicKSize: number): number {
  const PDP_BUF_SIZE = 7 * 1024;
  const rtlOverlapLines = [1, 1, 2, 4, 4, 8, 8, 8, 8];
  const logicalOverlapLines = Math.ceil(f32(f32(kernelH) / f32(strideY))) & 0xffff;
  const int8 = precision === 'INT8';
  const kernelPerGroup = int8 ? atomicKSize : atomicKSize / 2;
  const bitsPerElement = int8 ? 14 : 28;
  const lines = rtlOverlapLines[logicalOverlapLines];
  if (lines === undefined) throw new UnsupportedError(`pooling window height ${kernelH} with stride ${strideY} overlaps more lines than PDP supports`);
  return Math.trunc((PDP_BUF_SIZE * 8) / (lines * kernelPerGroup * bitsPerElement)) & 0xffff;
}

function splitPdp(ed: EngineGraphEditor, node: EngineNode, ctx: PassContext, changes: PassChanges): void {
  const p = node.params;
  if (p.kind !== 'pdp') return;
  const g = ed.graph;
  const src = surfaceById(g, ed.edge(node.inputEdges[0]!).surface!);
  const dst = surfaceById(g, ed.edge(node.outputEdges[0]!).surface!);
  const maxWidth = pdpMaxFlyingWidth(surfaceFormat(src.format).precision, p.poolingWindow.h, p.stride.h, ctx.target.atomicKSize);
  const adjustBRPadding = () => {
    p.bottomRightPadding = {
      w: (dst.dims.w - 1) * p.stride.w + p.poolingWindow.w - (src.dims.w + p.topLeftPadding.w),
      h: (dst.dims.h - 1) * p.stride.h + p.poolingWindow.h - (src.dims.h + p.topLeftPadding.h),
    };
  };
  if (maxWidth >= dst.dims.w) {
    const before = { ...p.bottomRightPadding };
    adjustBRPadding();
    if (before.w !== p.bottomRightPadding.w || before.h !== p.bottomRightPadding.h) {
      changes.changed.push(node.id);
      changes.notes.push(`${node.name}: bottom/right padding ${before.h}/${before.w} -> ${p.bottomRightPadding.h}/${p.bottomRightPadding.w}`);
    }
    return;
  }
  // pdpHWSplitWidth
  const kernelW = p.poolingWindow.w;
  const strideX = p.stride.w;
  const left = p.topLeftPadding.w;
  const outW = dst.dims.w;
  const s: PdpSplitWidth = { numSplits: 0, firstInWidth: 0, midInWidth: 0, lastInWidth: 0, firstOutWidth: 0, midOutWidth: 0, lastOutWidth: 0, numOverlapStripes: 0, rightPadding: 0, bottomPadding: 0 };
  for (let remaining = outW; remaining > 0; remaining -= maxWidth) s.numSplits++;
  s.firstOutWidth = Math.min(maxWidth, outW);
  if (s.numSplits === 2) s.lastOutWidth = outW - s.firstOutWidth;
  else {
    s.midOutWidth = maxWidth;
    s.lastOutWidth = outW - maxWidth * (s.numSplits - 1);
  }
  s.numOverlapStripes = Math.max(0, kernelW - strideX);
  s.firstInWidth = Math.max(0, (s.firstOutWidth - 1) * strideX + kernelW - left);
  adjustBRPadding();
  s.rightPadding = p.bottomRightPadding.w;
  s.bottomPadding = p.bottomRightPadding.h;
  if (s.numSplits > 1) {
    s.lastInWidth = (s.lastOutWidth - 1) * strideX + kernelW - s.rightPadding - s.numOverlapStripes;
    if (s.lastInWidth <= 0) {
      const firstLastTotalOut = s.firstOutWidth + s.lastOutWidth;
      let lastInWidth = 1;
      while ((lastInWidth + s.numOverlapStripes + s.rightPadding - kernelW) % strideX !== 0) lastInWidth++;
      s.lastInWidth = lastInWidth;
      s.lastOutWidth = Math.trunc((lastInWidth + s.numOverlapStripes + s.rightPadding - kernelW) / strideX) + 1;
      s.firstOutWidth = firstLastTotalOut - s.lastOutWidth;
      s.firstInWidth = (s.firstOutWidth - 1) * strideX + kernelW - left;
    }
  }
  if (s.numSplits > 2) s.midInWidth = Math.max(0, (s.midOutWidth - 1) * strideX + kernelW - s.numOverlapStripes);
  if (s.numSplits > 64) throw new UnsupportedError(`(${node.name}) PDP software split data is not supported yet`);
  p.splitWidth = s;
  changes.changed.push(node.id);
  changes.notes.push(`${node.name}: output width ${outW} > ${maxWidth}: hardware width split into ${s.numSplits} stripes`);
}

export const splitNodesPass: EnginePass = {
  name: 'splitNodes',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      for (const node of orderedElements(g).nodes) {
        const ed = new EngineGraphEditor(g);
        if (node.engineType === 'CONVOLUTION') splitConv(ed, node, ctx, changes);
        else if (node.engineType === 'PDP') splitPdp(ed, node, ctx, changes);
        refreshGraphState(g, ctx);
      }
    });
  },
};
