/**
 * Pass `mergeActivationOperations` (`Graph::mergeActivationOperations`, starting with
 * `mergeUnitScaleOperations`): runs only when the profile can merge SDP math ops (fast-math) or
 * bust NOPs (default, performance, fast-math).
 *
 * 1. A unit-scale SDP (the INT8 rescaling proxy) right after another SDP is removed; a ReLU it
 *    carried moves to the SDP before it.
 * 2. Walking the nodes in graph order, a CONV or SDP node followed 1:1 by an SDP is offered the
 *    merge: an `sdp-nop` goes away in front of any SDP; with math-op merging, a ReLU activation
 *    folds into the SDP before it (bias, scale, batch-norm, element-wise, NOP).
 *
 * Each removal re-walks the reordered graph from the node before the one just handled, as
 * upstream does. The kept node absorbs the removed node's origins (core/origin's absorb rule).
 *
 * Under fast-math (canMergeMathOps) it also merges what combines weights, as upstream does:
 * convolution with scale or batch-norm (into the kernels and a new bias), bias with bias, bias
 * with scale (into a batch-norm), bias with batch-norm, batch-norm with scale, batch-norm with
 * bias (in place, or as scale + bias).
 */
import { absorb } from '../../../origin';
import type { Dims4 } from '../../network/model';
import { defaultX1, sdpCommon } from '../factory';
import { EngineGraphEditor, downstreamDataNodes, removeNodeFromAST, repopulateEdgePorts, upstreamDataNodes } from '../graph';
import { orderedElements, refreshAfterLocalEdit, refreshGraphState, type PassContext } from '../graph-state';
import { type EngineGraph, type EngineNode, type EngineTensor, type SDPActType, type SDPMode } from '../model';
import { combineFactors, combineKernelWeightsAndScale, invertBlob, scaleKernelWeightsLazily } from '../sdp-math';
import type { WeightBlob } from '../weights';
import { editCopy, type EnginePass, type PassChanges } from './pass';

function sdpOf(n: EngineNode) {
  return 'sdp' in n.params ? n.params.sdp : null;
}

/** the 1:1 SDP after `n`, or null */
function soleSdpSink(ed: EngineGraphEditor, n: EngineNode): EngineNode | null {
  const sinks = downstreamDataNodes(ed, n);
  if (sinks.length !== 1 || upstreamDataNodes(ed, sinks[0]!).length !== 1 || sinks[0]!.engineType !== 'SDP') return null;
  return sinks[0]!;
}

/** `SDPNode::mergeUnitScaleOp`: the unit scale goes; a ReLU on it moves to `curr` */
function mergeUnitScaleOp(curr: EngineNode, scale: EngineNode): EngineNode | null {
  const ssdp = sdpOf(scale)!;
  if (ssdp.x1.actType === 'RELU') {
    const csdp = sdpOf(curr);
    switch (curr.engineOpType) {
      case 'SDP_BIAS':
      case 'SDP_ELEMENTWISE':
      case 'SDP_SCALE':
      case 'SDP_BATCH_NORM':
        csdp!.x1.actType = 'RELU';
        break;
      case 'SDP_SUPER':
        csdp!.x2.actType = 'RELU';
        break;
      default:
        return null;
    }
  }
  return scale;
}

/** `SDPNode::tryToMergeWithActOp` */
function tryToMergeWithActOp(curr: EngineNode, act: EngineNode, canMergeMathOps: boolean): EngineNode | null {
  if (!canMergeMathOps) return null;
  if (curr.engineOpType === act.engineOpType) return null;
  if (sdpOf(act)!.x1.actType !== 'RELU') return null;
  const csdp = sdpOf(curr)!;
  switch (curr.engineOpType) {
    case 'SDP_BIAS':
    case 'SDP_ELEMENTWISE':
    case 'SDP_NOP':
    case 'SDP_SCALE':
    case 'SDP_BATCH_NORM':
      csdp.x1.actType = 'RELU';
      break;
    case 'SDP_SUPER':
      csdp.x2.actType = 'RELU';
      break;
    default:
      return null;
  }
  return act;
}

const hasActivation = (n: EngineNode) => {
  const a = sdpOf(n)?.x1.actType;
  return a !== undefined && a !== 'UNKNOWN' && a !== 'NONE';
};

const sameDims = (a: Dims4, b: Dims4) => a.n === b.n && a.c === b.c && a.h === b.h && a.w === b.w;

/** what a merge did: the node to take out of the graph, and the node that now does its work */
interface Merged {
  removed: EngineNode;
  absorber: EngineNode;
}

/** the merges of one pass; they make nodes (substitutes) and edit weights */
class Merger {
  constructor(
    readonly ed: EngineGraphEditor,
    readonly ctx: PassContext,
    readonly changes: PassChanges,
    /** kernel weights this pass made (in no earlier graph): a later merge may multiply them in place */
    readonly ownWeights: WeakSet<WeightBlob>,
  ) {}

  /** kernel weights times a scale, in place when this pass made them */
  private scaledKernels(mode: SDPMode, cp: { weightDims: Dims4; rawWeights: WeightBlob }, s: WeightBlob): WeightBlob | null {
    const perKernel = cp.rawWeights.count / cp.weightDims.n;
    const lazy = scaleKernelWeightsLazily(mode, cp.weightDims.n, perKernel, cp.rawWeights, s);
    if (lazy) return lazy;
    const w = combineKernelWeightsAndScale(mode, cp.weightDims.n, perKernel, cp.rawWeights, s, this.ownWeights.has(cp.rawWeights));
    if (w) this.ownWeights.add(w);
    return w;
  }

  get canMergeMathOps(): boolean {
    return this.ctx.profile.canSDPMergeMathOps;
  }

  /** `captureCanonical*Data` of a node made in engine land: its aux data edge */
  private captureAux(node: EngineNode, dims: Dims4, type: EngineTensor['type']): void {
    this.ed.addDataEdge(null, node, { name: this.ed.newAuxTensorName(), dims: { ...dims }, type, dataFormat: 'NCHW', channelScales: [] });
  }

  /** `Graph::substituteNodeInAST(orig, [sub])`: the substitute takes over every data and compute edge but the aux one */
  private substitute(orig: EngineNode, sub: EngineNode): void {
    const ed = this.ed;
    for (const id of [...orig.upstream]) {
      const e = ed.edge(id);
      if (e.aux) continue;
      ed.removeNodeFromEdge(e, 'second', orig);
      ed.appendNodeToEdge(e, 'second', sub);
    }
    for (const id of [...orig.downstream]) {
      const e = ed.edge(id);
      ed.removeNodeFromEdge(e, 'first', orig);
      ed.appendNodeToEdge(e, 'first', sub);
    }
    repopulateEdgePorts(ed, sub);
    this.changes.added.push(sub.id);
    this.changes.notes.push(`${orig.name} replaced by ${sub.name}`);
  }

  /** `NodeFactory::newSDPBiasOpNode(NULL)` with the fields upstream sets on it */
  private newBias(from: EngineNode, mode: SDPMode, act: SDPActType, dims: Dims4, raw: WeightBlob): EngineNode {
    const sdp = sdpCommon();
    sdp.x1 = defaultX1('SDP_BIAS', { mode, actType: act });
    const node = this.ed.addNode('bias-', 'SDP_BIAS', null, from.origins, { kind: 'sdp-bias', sdp, biasDims: { ...dims }, rawBiasData: raw, hasBiasReduction: false, rescaleData: null, dlaBiasData: null });
    this.captureAux(node, dims, 'BIAS');
    return node;
  }

  private newScale(from: EngineNode, mode: SDPMode, dims: Dims4, raw: WeightBlob): EngineNode {
    const sdp = sdpCommon();
    sdp.x1 = defaultX1('SDP_SCALE', { mode });
    const node = this.ed.addNode('sdp-scale-', 'SDP_SCALE', null, from.origins, { kind: 'sdp-scale', sdp, scaleDims: { ...dims }, rawScaleData: raw, unitScale: false, dlaScaleData: null });
    this.captureAux(node, dims, 'SCALE');
    return node;
  }

  private newBatchNorm(from: EngineNode, mode: SDPMode, act: SDPActType, dims: Dims4, mean: WeightBlob, variance: WeightBlob): EngineNode {
    const sdp = sdpCommon();
    sdp.x1 = defaultX1('SDP_BATCH_NORM', { mode, actType: act });
    const node = this.ed.addNode('sdp-bn-', 'SDP_BATCH_NORM', null, from.origins, {
      kind: 'sdp-bn',
      sdp,
      epsilon: 0,
      meanDims: { ...dims },
      varianceDims: { ...dims },
      batchNormDims: { ...dims },
      rawMeanData: mean,
      rawVarianceData: variance,
      dlaBatchNormData: null,
    });
    this.captureAux(node, dims, 'BATCH_NORM');
    return node;
  }

  /** `Node::mergeWithSDPOp` as each node class defines it */
  mergeWithSDPOp(curr: EngineNode, next: EngineNode): Merged | null {
    const p = curr.params;
    if (p.kind === 'conv') {
      if (next.engineOpType === 'SDP_SCALE') return this.convWithScale(curr, next);
      if (next.engineOpType === 'SDP_BATCH_NORM') return this.convWithBatchNorm(curr, next);
      return null;
    }
    switch (curr.engineOpType) {
      case 'SDP_BIAS': {
        if (hasActivation(curr)) return null;
        let r: Merged | null = null;
        if (next.engineOpType === 'SDP_BIAS') r = this.biasWithBias(curr, next);
        if (next.engineOpType === 'SDP_SCALE') r = this.biasWithScale(curr, next);
        else if (next.engineOpType === 'SDP_BATCH_NORM') r = this.biasWithBatchNorm(curr, next);
        else if (next.engineOpType === 'SDP_ACTIVATION') r = this.withReLU(curr, next);
        return r;
      }
      case 'SDP_BATCH_NORM': {
        if (hasActivation(curr)) return null;
        if (next.engineOpType === 'SDP_SCALE') return this.batchNormWithScale(curr, next);
        if (next.engineOpType === 'SDP_BIAS') return this.batchNormWithBiasInplace(curr, next) ?? this.batchNormWithBias(curr, next);
        if (next.engineOpType === 'SDP_ACTIVATION' && sdpOf(next)!.x1.actType === 'RELU') return this.withReLU(curr, next);
        return null;
      }
      case 'SDP_SCALE':
        if (hasActivation(curr)) return null;
        if (next.engineOpType === 'SDP_ACTIVATION') return this.withReLU(curr, next);
        return null;
      case 'SDP_ELEMENTWISE':
        if (hasActivation(curr)) return null;
        if (next.engineOpType === 'SDP_ACTIVATION') return this.withReLU(curr, next);
        return null;
      default:
        // SDPNode::mergeWithSDPOp: an SDP NOP always goes; otherwise a following ReLU folds in
        if (curr.engineOpType === 'SDP_NOP') return { removed: curr, absorber: next };
        if (next.engineOpType === 'SDP_ACTIVATION' && sdpOf(next)!.x1.actType === 'RELU') return this.withReLU(curr, next);
        return null;
    }
  }

  private withReLU(curr: EngineNode, act: EngineNode): Merged | null {
    const removed = tryToMergeWithActOp(curr, act, this.canMergeMathOps);
    return removed ? { removed, absorber: curr } : null;
  }

  /** `ConvCoreNode::tryToMergeWithScaleOp`: the scale goes into the kernel weights */
  private convWithScale(conv: EngineNode, scale: EngineNode): Merged | null {
    if (!this.canMergeMathOps || conv.params.kind !== 'conv' || scale.params.kind !== 'sdp-scale') return null;
    const cp = conv.params.conv;
    const sinks = downstreamDataNodes(this.ed, scale);
    // the convolution still needs an SDP to write its output
    if (!sinks.some((n) => n.engineType === 'SDP')) return null;
    // INT8: the scale is the rescaling proxy before a ReLU or an element-wise op
    if (this.ctx.profile.computePrecision === 'INT8' && sinks.length && (sinks[0]!.engineOpType === 'SDP_ACTIVATION' || sinks[0]!.engineOpType === 'SDP_ELEMENTWISE')) return null;
    if (cp.dlaWeights) return null;
    const w = this.scaledKernels(scale.params.sdp.x1.mode, cp, scale.params.rawScaleData);
    if (!w) return null;
    cp.rawWeights = w;
    this.changes.notes.push(`${scale.name}'s factors multiplied into ${conv.name}'s weights`);
    return { removed: scale, absorber: conv };
  }

  /** `ConvCoreNode::tryToMergeWithBatchNormOp`: w * v into the kernels, m * v into a new bias that replaces the batch-norm */
  private convWithBatchNorm(conv: EngineNode, bn: EngineNode): Merged | null {
    if (!this.canMergeMathOps || conv.params.kind !== 'conv' || bn.params.kind !== 'sdp-bn') return null;
    const cp = conv.params.conv;
    const b = bn.params;
    if (cp.dlaWeights) return null;
    const mode = b.sdp.x1.mode;
    // the bias first: once the kernels are scaled (maybe in place) the merge must go through
    const mv = combineFactors('mul', mode, b.batchNormDims.c, b.rawMeanData, b.rawVarianceData);
    if (!mv) return null;
    const w = this.scaledKernels(mode, cp, b.rawVarianceData);
    if (!w) return null;
    const bias = this.newBias(bn, mode, b.sdp.x1.actType, b.batchNormDims, mv);
    cp.rawWeights = w;
    this.substitute(bn, bias);
    if (bias.params.kind === 'sdp-bias') {
      bias.params.sdp.convMode = b.sdp.convMode;
    }
    this.changes.notes.push(`${bn.name}'s variance multiplied into ${conv.name}'s weights`);
    return { removed: bn, absorber: bias };
  }

  /** `SDPBiasOpNode::tryToMergeWithBiasOp` */
  private biasWithBias(curr: EngineNode, next: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bias' || next.params.kind !== 'sdp-bias') return null;
    const a = curr.params;
    const b = next.params;
    if (a.sdp.x1.mode !== b.sdp.x1.mode || !sameDims(a.biasDims, b.biasDims)) return null;
    const sum = combineFactors('add', a.sdp.x1.mode, a.biasDims.c, a.rawBiasData, b.rawBiasData);
    if (!sum) return null;
    a.rawBiasData = sum;
    return { removed: next, absorber: curr };
  }

  /** `SDPBiasOpNode::tryToMergeWithScaleOp`: (x + b) * s is a batch-norm with mean b and variance s */
  private biasWithScale(curr: EngineNode, scale: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bias' || scale.params.kind !== 'sdp-scale') return null;
    const a = curr.params;
    const s = scale.params;
    if (a.sdp.x1.mode !== s.sdp.x1.mode || !sameDims(a.biasDims, s.scaleDims) || a.sdp.x1.mode === 'PER_ELEMENT') return null;
    const bn = this.newBatchNorm(curr, a.sdp.x1.mode, s.sdp.x1.actType, s.scaleDims, a.rawBiasData, s.rawScaleData);
    this.substitute(curr, bn);
    bn.origins = absorb(bn.origins, scale.origins);
    removeNodeFromAST(this.ed, scale, 'input');
    this.changes.removed.push(scale.id);
    this.changes.notes.push(`${scale.name} merged into ${bn.name}`);
    if (bn.params.kind === 'sdp-bn') bn.params.sdp.convMode = a.sdp.convMode;
    return { removed: curr, absorber: bn };
  }

  /** `SDPBiasOpNode::tryToMergeWithBatchNormOp`: the bias joins the mean */
  private biasWithBatchNorm(curr: EngineNode, bnNode: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bias' || bnNode.params.kind !== 'sdp-bn') return null;
    const a = curr.params;
    const bn = bnNode.params;
    if (a.sdp.x1.mode !== bn.sdp.x1.mode || !sameDims(a.biasDims, bn.meanDims)) return null;
    const sum = combineFactors('add', a.sdp.x1.mode, a.biasDims.c, a.rawBiasData, bn.rawMeanData);
    if (!sum) return null;
    bn.rawMeanData = sum;
    return { removed: curr, absorber: bnNode };
  }

  /** `SDPBatchNormOpNode::tryToMergeWithScaleOp`: the scale joins the variance */
  private batchNormWithScale(curr: EngineNode, scale: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bn' || scale.params.kind !== 'sdp-scale') return null;
    const bn = curr.params;
    const s = scale.params;
    if (bn.sdp.x1.mode !== s.sdp.x1.mode || !sameDims(bn.varianceDims, s.scaleDims)) return null;
    const v = combineFactors('mul', bn.sdp.x1.mode, bn.varianceDims.c, bn.rawVarianceData, s.rawScaleData);
    if (!v) return null;
    bn.rawVarianceData = v;
    bn.sdp.x1.actType = s.sdp.x1.actType;
    return { removed: scale, absorber: curr };
  }

  /** `SDPBatchNormOpNode::tryToMergeWithBiasOpInplace`: (x + m) * v + b = (x + m + b / v) * v */
  private batchNormWithBiasInplace(curr: EngineNode, biasNode: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bn' || biasNode.params.kind !== 'sdp-bias') return null;
    const bn = curr.params;
    const b = biasNode.params;
    const mode = bn.sdp.x1.mode;
    if (mode !== b.sdp.x1.mode || !sameDims(bn.batchNormDims, b.biasDims)) return null;
    const c = bn.batchNormDims.c;
    const inv = invertBlob(mode, c, bn.rawVarianceData);
    if (!inv) return null;
    const bv = combineFactors('mul', mode, c, b.rawBiasData, inv);
    if (!bv) return null;
    const m = combineFactors('add', mode, c, bv, bn.rawMeanData);
    if (!m) return null;
    bn.rawMeanData = m;
    bn.sdp.x1.actType = b.sdp.x1.actType;
    return { removed: biasNode, absorber: curr };
  }

  /** `SDPBatchNormOpNode::tryToMergeWithBiasOp`: the batch-norm becomes a scale by v, the bias takes m * v + b */
  private batchNormWithBias(curr: EngineNode, biasNode: EngineNode): Merged | null {
    if (!this.canMergeMathOps || curr.params.kind !== 'sdp-bn' || biasNode.params.kind !== 'sdp-bias') return null;
    const bn = curr.params;
    const b = biasNode.params;
    const mode = bn.sdp.x1.mode;
    if (mode !== b.sdp.x1.mode || !sameDims(bn.batchNormDims, b.biasDims)) return null;
    const mv = combineFactors('mul', mode, bn.batchNormDims.c, bn.rawMeanData, bn.rawVarianceData);
    if (!mv) return null;
    const mvb = combineFactors('add', mode, bn.batchNormDims.c, mv, b.rawBiasData);
    if (!mvb) return null;
    const scale = this.newScale(curr, mode, bn.batchNormDims, bn.rawVarianceData);
    b.rawBiasData = mvb;
    this.substitute(curr, scale);
    if (scale.params.kind === 'sdp-scale') scale.params.sdp.convMode = bn.sdp.convMode;
    return { removed: curr, absorber: scale };
  }
}

type MergeStep = (ed: EngineGraphEditor, nodes: EngineNode[], i: number) => { removed: EngineNode; kept: EngineNode; iod: 'input' | 'output' } | null;

/**
 * For tests: `verify` recomputes the full order after every cheap update and throws if they
 * differ; `cheapUpdates` / `fullRecomputes` count which way the order was found.
 */
export const mergeOrderCheck = { verify: false, cheapUpdates: 0, fullRecomputes: 0 };

/** what the cheap order update needs to know of a pair before the merge edits it */
interface PairShape {
  u: EngineNode;
  d: EngineNode;
  /** u's input edges (not aux) list u last: a substitute appended to them takes u's place */
  uLast: boolean;
  /** d has one output edge */
  dOneOut: boolean;
}

/**
 * The pair (u, d) at `i` when d is next in the order and u's one edge goes to d alone, being d's
 * one data input; else null. In the traversal (ordering.ts) d then finishes right after u: nothing
 * else becomes finishable when u finishes. Upstream's order sorts nodes by finish time, unique per
 * node, so the node order is the finish sequence.
 */
function pairShape(ed: EngineGraphEditor, nodes: EngineNode[], i: number): PairShape | null {
  const u = nodes[i]!;
  const d = nodes[i + 1];
  if (!d || u.downstream.length !== 1) return null;
  const e = ed.edge(u.downstream[0]!);
  if (e.aux || e.kind !== 'data' || e.targets.length !== 1 || e.targets[0] !== d.id) return null;
  let dIn = 0;
  for (const id of d.upstream) {
    const x = ed.edge(id);
    if (x.aux) continue;
    if (x.id !== e.id) return null;
    dIn++;
  }
  if (dIn !== 1) return null;
  let uLast = true;
  for (const id of u.upstream) {
    const x = ed.edge(id);
    if (!x.aux && x.targets[x.targets.length - 1] !== u.id) uLast = false;
  }
  return { u, d, uLast, dOneOut: d.downstream.length === 1 };
}

/**
 * The order after a merge of the pair without re-running the traversal, or null when it cannot
 * be told so. Every merge of this pass contracts the link u -> d (removing u or d) and/or puts
 * a new node (`kept`) in the place of `removed`; the traversal then makes the same choices on the
 * new graph as long as the lists it walks keep their order:
 * - d removed, 'input': d's output edges go to u, which had only the edge to d;
 * - d removed, 'output' (after a convolution): the edge u -> d takes d's sinks, the traversal's
 *   own walk when d has one output edge;
 * - u removed ('output'): u's input edges drop u and append d, in u's place when u was last;
 * - a substitute takes over the removed node's edges, appended to its input edges (in its place
 *   when it was last there: for d always, u's edge going to d alone) and in the same order on its
 *   output edges; when it replaced u, d may also go ('input', as above).
 */
function orderAfterMerge(g: EngineGraph, nodes: EngineNode[], shape: PairShape | null, removed: EngineNode, kept: EngineNode, iod: 'input' | 'output', firstNew: number): EngineNode[] | null {
  if (!shape) return null;
  const { u, d } = shape;
  const added = g.nodes.filter((n) => Number(n.id.slice(2)) >= firstNew);
  if (added.length === 0) {
    if (g.nodes.length !== nodes.length - 1) return null;
    if (removed === u) return iod === 'output' && shape.uLast ? nodes.filter((n) => n !== u) : null;
    if (removed === d) return iod === 'input' || shape.dOneOut ? nodes.filter((n) => n !== d) : null;
    return null;
  }
  if (added.length !== 1 || added[0] !== kept || (removed !== u && removed !== d)) return null;
  if (removed === u && !shape.uLast) return null;
  const live = new Set(g.nodes);
  // the other node of the pair may have gone only as d after a substitute for u (bias with scale)
  const other = removed === u ? d : u;
  if (!live.has(other) && other !== d) return null;
  const out: EngineNode[] = [];
  for (const n of nodes) {
    if (n === removed) out.push(kept);
    else if (live.has(n)) out.push(n);
    else if (n !== other) return null;
  }
  return out;
}

/** the upstream do/while: walk, merge one pair, re-walk from the node before it */
function mergeLoop(g: EngineGraph, ctx: Parameters<EnginePass['run']>[1], changes: PassChanges, merger: MergeStep): void {
  let nodes = orderedElements(g).nodes;
  let start = 0;
  // one editor for the whole loop: every merge edits the graph through it, so its maps stay current
  const ed = new EngineGraphEditor(g);
  for (;;) {
    let merged = false;
    for (let i = start; i < nodes.length; i++) {
      const prev = i > 0 ? nodes[i - 1]! : nodes[i]!;
      const firstNew = g.counters.node;
      const shape = pairShape(ed, nodes, i);
      const r = merger(ed, nodes, i);
      if (!r) continue;
      r.kept.origins = absorb(r.kept.origins, r.removed.origins);
      removeNodeFromAST(ed, r.removed, r.iod);
      changes.removed.push(r.removed.id);
      if (!changes.changed.includes(r.kept.id)) changes.changed.push(r.kept.id);
      changes.notes.push(`${r.removed.name} merged into ${r.kept.name}`);
      const cheap = orderAfterMerge(g, nodes, shape, r.removed, r.kept, r.iod, firstNew);
      if (cheap) {
        nodes = cheap;
        mergeOrderCheck.cheapUpdates++;
        if (mergeOrderCheck.verify) {
          const full = orderedElements(g).nodes.map((n) => n.id).join(' ');
          const got = nodes.map((n) => n.id).join(' ');
          if (full !== got) throw new Error(`merge of ${r.removed.name} into ${r.kept.name}: incremental order differs from the full one`);
        }
      } else {
        nodes = orderedElements(g).nodes;
        mergeOrderCheck.fullRecomputes++;
      }
      const at = nodes.findIndex((n) => n.id === prev.id);
      start = at >= 0 ? at : 0;
      refreshAfterLocalEdit(g, ctx, ed);
      merged = true;
      break;
    }
    if (!merged) break;
  }
  refreshGraphState(g, ctx);
}


export const mergeActivationOperationsPass: EnginePass = {
  name: 'mergeActivationOperations',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      if (!ctx.profile.canSDPMergeMathOps && !ctx.profile.canSDPBustNOPs) {
        changes.notes.push('nothing to do: the profile neither merges SDP math ops nor busts NOPs');
        return;
      }
      // mergeUnitScaleOperations
      mergeLoop(g, ctx, changes, (ed, nodes, i) => {
        const curr = nodes[i]!;
        if (curr.engineType !== 'SDP') return null;
        const next = soleSdpSink(ed, curr);
        if (!next || next.engineOpType !== 'SDP_SCALE' || next.params.kind !== 'sdp-scale' || !next.params.unitScale) return null;
        const removed = mergeUnitScaleOp(curr, next);
        return removed ? { removed, kept: curr, iod: 'input' } : null;
      });
      // mergeActivationOperations proper
      const ownWeights = new WeakSet<WeightBlob>();
      mergeLoop(g, ctx, changes, (ed, nodes, i) => {
        const curr = nodes[i]!;
        if (curr.engineType !== 'SDP' && curr.engineType !== 'CONVOLUTION') return null;
        const next = soleSdpSink(ed, curr);
        if (!next) return null;
        const r = new Merger(ed, ctx, changes, ownWeights).mergeWithSDPOp(curr, next);
        if (!r) return null;
        const removed = r.removed;
        if (removed.id === curr.id) {
          // delegate the operation mode to the next op before removing this one, if it is still there
          if (ed.hasNode(next.id)) {
            const rs = sdpOf(curr)!;
            const ns = sdpOf(next)!;
            ns.convMode = rs.convMode;
            ns.numGroups = rs.numGroups;
          }
        } else if (removed.id === next.id) {
          const sinkSdp = downstreamDataNodes(ed, next).find((n) => n.engineType === 'SDP');
          if (sinkSdp) {
            const rs = sdpOf(next)!;
            const ss = sdpOf(sinkSdp)!;
            ss.convMode = rs.convMode;
            ss.numGroups = rs.numGroups;
          }
        }
        const iod = curr.engineType === 'CONVOLUTION' ? 'output' : removed.id === curr.id ? 'output' : 'input';
        return { removed, kept: r.absorber, iod };
      });
    });
  },
};
