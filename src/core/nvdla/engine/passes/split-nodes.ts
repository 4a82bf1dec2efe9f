/**
 * Pass `splitNodes` (`Graph::splitNodes`; `ConvCoreNode::splitNodes`, `PDPNode::splitNodes`).
 *
 * Convolutions: how many convolution-buffer (CBUF) banks the input data and the weights need, and
 * which of the hardware's modes fits: full input + full weights, full input + weights in
 * ping-pong (two kernel groups), full input + one kernel group. When none fits and the input is
 * what is too big, the input is split into partial-height convolutions (`splitData`, see
 * ../split-data.ts); weights too big for the profile's banks are refused as upstream refuses
 * them.
 *
 * Pooling: PDP reads its input from memory (on-the-fly pooling after SDP is off in every
 * profile); when the output is wider than its line buffer holds, the hardware splits the width
 * into stripes (`pdpHWSplitWidth`); the bottom/right padding is recomputed to what the last
 * window really overhangs (`adjustBRPadding`).
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshAfterLocalEdit, refreshGraphState, type PassContext } from '../graph-state';
import type { EngineGraph, EngineNode, PdpSplitWidth } from '../model';
import { bufferById, surfaceById, type TensorSurfaceDesc } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { UnsupportedError } from '../errors';
import { determineSplitDataRatios, splitData } from '../split-data';
import { planWeightAndDataSplit, planWeightSplit, splitWeights } from '../split-weights';
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

/**
 * Splits `node` by input channel (`splitWeights`, as `plan` says) and sizes the first chunk's
 * weights anew (their tensor is smaller now: surface and buffer sizes are recomputed later).
 * Returns the nodes the split added.
 */
function splitWeightsByInputChannel(ed: EngineGraphEditor, node: EngineNode, plan: Parameters<typeof splitWeights>[2], ctx: PassContext, changes: PassChanges): EngineNode[] {
  const g = ed.graph;
  const added = splitWeights(ed, node, plan, ctx);
  const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
  aux.dims = { ...ed.edge(node.auxEdges[0]!).tensor!.dims };
  aux.size = 0;
  aux.lineStride = 0;
  aux.surfaceStride = 0;
  const tb = aux.buffer ? bufferById(g, aux.buffer) : undefined;
  if (tb) tb.size = 0;
  changes.changed.push(node.id);
  for (const n of added) changes.added.push(n.id);
  return added;
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
    // nvdla_compiler stops here ("Not enough banks to hold weight data. No software split supported")
    const plan = planWeightSplit(src.dims.c, wt.dims.h, wt.dims.w, surfaceFormat(wt.format).bytesPerElement, (c) => totalBanksForData(node, { ...src, dims: { ...src.dims, c } }, ctx), ctx);
    if (!plan) throw new UnsupportedError(`${node.name}: Not enough banks to hold weight data, even for ${ctx.target.atomicCSize} input channels at a time`);
    const added = splitWeightsByInputChannel(ed, node, plan, ctx, changes);
    changes.notes.push(
      `${node.name}: one kernel group of its weights needs ${minWt} CBUF banks beside ${data} for the input, more than the ${banks} there are (nvdla_compiler: "Not enough banks to hold weight data. No software split supported"); split by input channel into ${plan.channels.length} convolutions of ${plan.channels.join(' + ')} channels whose partial sums are added on the SDP`,
    );
    return;
  }
  // partial-height input bands (splitData) beside full weights, ping-pong or one kernel group
  let wtBanks: number;
  let mode: string;
  if (totalWt + compressed <= ctx.profile.convWeightBanksAllotted) [wtBanks, mode] = [totalWt, 'full weights'];
  else if (2 * minWt + compressed <= ctx.profile.convWeightBanksAllotted) [wtBanks, mode] = [2 * minWt, 'weights in ping-pong'];
  else if (minWt + compressed <= ctx.profile.convWeightBanksAllotted) [wtBanks, mode] = [minWt, 'one kernel group of weights'];
  else if (minWt < ctx.profile.convWeightBanksAllotted) return; // upstream's empty branch: nothing is allotted
  else {
    // splitWeightsAndData (a stub upstream, "not yet supported"): chunks of input channels whose
    // kernel group fits the weight banks, each chunk's convolution then split by height
    const plan = planWeightAndDataSplit(src.dims.c, wt.dims.h, wt.dims.w, surfaceFormat(wt.format).bytesPerElement, ctx);
    if (!plan) throw new UnsupportedError(`${node.name}: splitWeightsAndData: even ${ctx.target.atomicCSize} input channels of one kernel group need more than the profile's ${ctx.profile.convWeightBanksAllotted} weight banks`);
    const added = splitWeightsByInputChannel(ed, node, plan, ctx, changes);
    changes.notes.push(
      `${node.name}: input of ${data} banks and one kernel group of weights of ${minWt} banks exceed the profile's ${ctx.profile.convDataBanksAllotted} + ${ctx.profile.convWeightBanksAllotted} (nvdla_compiler: "splitWeightsAndData is not yet supported"); split by input channel into ${plan.channels.length} convolutions of ${plan.channels.join(' + ')} channels whose partial sums are added on the SDP, each split by height as its input needs`,
    );
    refreshGraphState(g, ctx);
    for (const conv of [node, ...added.filter((n) => n.params.kind === 'conv')]) {
      splitConv(new EngineGraphEditor(g), conv, ctx, changes);
      refreshAfterLocalEdit(g, ctx);
    }
    return;
  }
  p.allottedWeightBanks = wtBanks;
  const spare = banks - wtBanks - compressed;
  const chunks = determineSplitDataRatios(ed, node, spare, ctx, entriesPerSlice(node, src, ctx));
  const added = splitData(ed, node, chunks, totalWt);
  changes.changed.push(node.id);
  for (const n of added) changes.added.push(n.id);
  changes.notes.push(`${node.name}: input of ${data} banks split into ${chunks.length} partial-height convolutions of ${spare} data banks each beside ${mode} (${wtBanks} banks)`);
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

/** the PDP's largest pooling window side (its kernel width/height fields hold 1..8) */
const PDP_MAX_WINDOW = 8;

/** the split of a window side n = a * b with a, b <= 8 (a as large as possible), or null */
function twoFactors(n: number): [number, number] | null {
  for (let a = PDP_MAX_WINDOW; a >= 1; a--) if (n % a === 0 && n / a <= PDP_MAX_WINDOW) return [a, n / a];
  return null;
}

/**
 * A pooling window wider or taller than the PDP's 8 (a global pooling of a 14x14 map, say):
 * nvdla_compiler reads past the end of its overlap-lines table here (undefined behaviour; its -O2
 * build loops forever) and would program a window the hardware cannot hold. A window that covers
 * the whole input without padding is pooled in two steps instead, each within the hardware's
 * limits: windows of a x a' with the same stride (one pooled cell per window), then b x b' over
 * those; average of equal-sized averages and maximum of maxima give the same result. Returns the
 * second PDP node, or null when the window is within limits. Other oversized windows are refused.
 */
function decomposeLargeWindow(ed: EngineGraphEditor, node: EngineNode, changes: PassChanges): EngineNode | null {
  const p = node.params;
  if (p.kind !== 'pdp') return null;
  const win = p.poolingWindow;
  if (win.h <= PDP_MAX_WINDOW && win.w <= PDP_MAX_WINDOW) return null;
  const g = ed.graph;
  const inEdge = ed.edge(node.inputEdges[0]!);
  const outEdge = ed.edge(node.outputEdges[0]!);
  const src = surfaceById(g, inEdge.surface!);
  const dst = surfaceById(g, outEdge.surface!);
  const pads = p.topLeftPadding.h + p.topLeftPadding.w + p.bottomRightPadding.h + p.bottomRightPadding.w;
  const fh = twoFactors(win.h);
  const fw = twoFactors(win.w);
  const whole = win.h === src.dims.h && win.w === src.dims.w && dst.dims.h === 1 && dst.dims.w === 1 && pads === 0;
  if (!whole || !fh || !fw) {
    throw new UnsupportedError(
      `${node.name}: a ${win.h}x${win.w} pooling window is larger than the PDP's ${PDP_MAX_WINDOW}x${PDP_MAX_WINDOW}; NPU Studio splits only a window over the whole input whose sides are products of two numbers up to ${PDP_MAX_WINDOW} (nvdla_compiler reads out of bounds here and loops or emits a window the hardware cannot hold)`,
    );
  }
  const mid = { n: 1, c: src.dims.c, h: fh[1], w: fw[1] };
  p.poolingWindow = { h: fh[0], w: fw[0] };
  p.stride = { h: fh[0], w: fw[0] };
  const second = ed.addNode('pdp-', 'PDP_POOL', node.canonicalNode, node.origins, {
    kind: 'pdp',
    poolingType: p.poolingType,
    topLeftPadding: { h: 0, w: 0 },
    bottomRightPadding: { h: 0, w: 0 },
    paddingValue: p.paddingValue,
    stride: { h: fh[1], w: fw[1] },
    poolingWindow: { h: fh[1], w: fw[1] },
    splitWidth: null,
  });
  ed.removeNodeFromEdge(outEdge, 'first', node);
  ed.appendNodeToEdge(outEdge, 'first', second);
  const t = inEdge.tensor!;
  ed.addDataEdge(node, second, { ...t, name: `${t.name}-${node.name}-partial`, dims: mid, channelScales: [...t.channelScales], type: 'IO' });
  changes.added.push(second.id);
  changes.changed.push(node.id);
  changes.notes.push(
    `${node.name}: its ${win.h}x${win.w} window is beyond the PDP's ${PDP_MAX_WINDOW}x${PDP_MAX_WINDOW}: pooled as ${fh[0]}x${fw[0]} (stride ${fh[0]}) then ${fh[1]}x${fw[1]} in ${second.name} (nvdla_compiler reads out of bounds here)`,
  );
  return second;
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

/**
 * What a refresh after a node's split reads of the graph's structure: its node and edge lists and
 * how many of each were ever made. A split adds nodes and edges (new ids, lists replaced or
 * grown); a node the pass left alone, or only re-parameterised, keeps all four.
 */
export interface GraphShape {
  nodes: readonly EngineNode[];
  edges: readonly unknown[];
  nodeCount: number;
  edgeCount: number;
  madeNodes: number;
  madeEdges: number;
}

export function graphShape(g: EngineGraph): GraphShape {
  return { nodes: g.nodes, edges: g.edges, nodeCount: g.nodes.length, edgeCount: g.edges.length, madeNodes: g.counters.node, madeEdges: g.counters.edge };
}

export function sameShape(a: GraphShape, g: EngineGraph): boolean {
  return a.nodes === g.nodes && a.edges === g.edges && a.nodeCount === g.nodes.length && a.edgeCount === g.edges.length && a.madeNodes === g.counters.node && a.madeEdges === g.counters.edge;
}

export const splitNodesPass: EnginePass = {
  name: 'splitNodes',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      let ed = new EngineGraphEditor(g);
      // upstream refreshes after every node: the first refresh settles the graph as it came in;
      // after that a node that was not split (its graph's nodes and edges are the ones before) left
      // nothing for a refresh to change, so the refresh and a fresh editor wait for a split
      let settled: GraphShape | null = null;
      for (const node of orderedElements(g).nodes) {
        if (settled && !sameShape(settled, g)) ed = new EngineGraphEditor(g);
        if (node.engineType === 'CONVOLUTION') splitConv(ed, node, ctx, changes);
        else if (node.engineType === 'PDP') {
          const second = decomposeLargeWindow(ed, node, changes);
          if (second) {
            refreshGraphState(g, ctx);
            splitPdp(new EngineGraphEditor(g), node, ctx, changes);
            refreshAfterLocalEdit(g, ctx);
            splitPdp(new EngineGraphEditor(g), second, ctx, changes);
          } else splitPdp(ed, node, ctx, changes);
        }
        if (settled && sameShape(settled, g)) continue;
        refreshAfterLocalEdit(g, ctx);
        settled = graphShape(g);
      }
      refreshGraphState(g, ctx);
    });
  },
};
