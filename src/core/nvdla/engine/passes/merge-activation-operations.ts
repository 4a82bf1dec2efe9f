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
 * Merges that combine weights (convolution with scale or batch-norm, bias with bias, bias with
 * scale into batch-norm, bias with batch-norm) are not implemented yet: those nodes stay
 * separate, which changes the op list of nets that have them (ResNet, MobileNet) under fast-math.
 */
import { absorb } from '../../../origin';
import { EngineGraphEditor, downstreamDataNodes, removeNodeFromAST, upstreamDataNodes } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import type { EngineGraph, EngineNode } from '../model';
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

/** `Node::mergeWithSDPOp` as each node class defines it (the merges implemented here) */
function mergeWithSDPOp(curr: EngineNode, next: EngineNode, canMergeMathOps: boolean): EngineNode | null {
  if (curr.engineType === 'CONVOLUTION') return null; // conv + scale / batch-norm: weight merges not implemented
  switch (curr.engineOpType) {
    case 'SDP_BIAS':
      if (hasActivation(curr)) return null;
      if (next.engineOpType === 'SDP_ACTIVATION') return tryToMergeWithActOp(curr, next, canMergeMathOps);
      return null; // bias + bias / scale / batch-norm: weight merges not implemented
    case 'SDP_SCALE':
      if (hasActivation(curr)) return null;
      if (next.engineOpType === 'SDP_ACTIVATION') return tryToMergeWithActOp(curr, next, canMergeMathOps);
      return null;
    case 'SDP_BATCH_NORM':
      if (hasActivation(curr)) return null;
      if (next.engineOpType === 'SDP_ACTIVATION') return tryToMergeWithActOp(curr, next, canMergeMathOps);
      return null;
    case 'SDP_ELEMENTWISE':
      if (next.engineOpType === 'SDP_ACTIVATION' && sdpOf(next)!.x1.actType === 'RELU') return tryToMergeWithActOp(curr, next, canMergeMathOps);
      return null;
    default:
      // SDPNode::mergeWithSDPOp: an SDP NOP always goes; otherwise a following ReLU folds in
      if (curr.engineOpType === 'SDP_NOP') return curr;
      if (next.engineOpType === 'SDP_ACTIVATION' && sdpOf(next)!.x1.actType === 'RELU') return tryToMergeWithActOp(curr, next, canMergeMathOps);
      return null;
  }
}

type Merger = (ed: EngineGraphEditor, nodes: EngineNode[], i: number) => { removed: EngineNode; kept: EngineNode; iod: 'input' | 'output' } | null;

/** the upstream do/while: walk, merge one pair, re-walk from the node before it */
function mergeLoop(g: EngineGraph, ctx: Parameters<EnginePass['run']>[1], changes: PassChanges, merger: Merger): void {
  let nodes = orderedElements(g).nodes;
  let start = 0;
  for (;;) {
    const ed = new EngineGraphEditor(g);
    let merged = false;
    for (let i = start; i < nodes.length; i++) {
      const prev = i > 0 ? nodes[i - 1]! : nodes[i]!;
      const r = merger(ed, nodes, i);
      if (!r) continue;
      r.kept.origins = absorb(r.kept.origins, r.removed.origins);
      removeNodeFromAST(ed, r.removed, r.iod);
      changes.removed.push(r.removed.id);
      if (!changes.changed.includes(r.kept.id)) changes.changed.push(r.kept.id);
      changes.notes.push(`${r.removed.name} merged into ${r.kept.name}`);
      nodes = orderedElements(g).nodes;
      const at = nodes.findIndex((n) => n.id === prev.id);
      start = at >= 0 ? at : 0;
      refreshGraphState(g, ctx);
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
      mergeLoop(g, ctx, changes, (ed, nodes, i) => {
        const curr = nodes[i]!;
        if (curr.engineType !== 'SDP' && curr.engineType !== 'CONVOLUTION') return null;
        const next = soleSdpSink(ed, curr);
        if (!next) return null;
        const removed = mergeWithSDPOp(curr, next, ctx.profile.canSDPMergeMathOps);
        if (!removed) return null;
        if (removed.id === curr.id) {
          // delegate the operation mode to the next op before removing this one
          const rs = sdpOf(curr)!;
          const ns = sdpOf(next)!;
          ns.convMode = rs.convMode;
          ns.numGroups = rs.numGroups;
        } else {
          const sinkSdp = downstreamDataNodes(ed, next).find((n) => n.engineType === 'SDP');
          if (sinkSdp) {
            const rs = sdpOf(next)!;
            const ss = sdpOf(sinkSdp)!;
            ss.convMode = rs.convMode;
            ss.numGroups = rs.numGroups;
          }
        }
        const iod = curr.engineType === 'CONVOLUTION' ? 'output' : removed.id === curr.id ? 'output' : 'input';
        return { removed, kept: removed.id === curr.id ? next : curr, iod };
      });
    });
  },
};
