/**
 * Pass `fuseSubEngineOps` (`Graph::fuseSDPSubEngineOps`, fast-math only): two SDP operations in a
 * row, the first with its X2 unit free, can run as one SDP "super op" (the first in X1, the second
 * in X2). Which pairs upstream fuses is decided exactly as upstream decides it
 * (`isFeasibleToFuseSDPSubEngineOp`), and the super op is built as upstream builds it: the pair's
 * data edges (aux data, or an element-wise op's second input) become its X1/X2 ports, the pair's
 * already translated data goes with them, and a convolution feeding it is fused with it again.
 */
import { absorb } from '../../../origin';
import { EngineGraphEditor, downstreamDataNodes, removeNodeFromAST, repopulateEdgePorts, upstreamDataNodes } from '../graph';
import { dependsOn } from '../depends';
import { UnsupportedError } from '../errors';
import { sdpCommon } from '../factory';
import { orderedElements, refreshAfterLocalEdit, refreshGraphState } from '../graph-state';
import type { CVTParams, EngineEdge, EngineNode, SDPCommonParams, SDPSubEngineParams, SuperSubEngine } from '../model';
import { editCopy, type EnginePass, type PassChanges } from './pass';

function sdpOf(n: EngineNode): SDPCommonParams | null {
  const p = n.params;
  return 'sdp' in p ? p.sdp : null;
}

/** `isFeasibleToFuseSDPEltwiseOp` */
function eltwiseFeasible(ed: EngineGraphEditor, order: EngineNode[], current: EngineNode, eltwise: EngineNode): boolean {
  const sources = upstreamDataNodes(ed, eltwise);
  if (sources.length !== 2) return false;
  const peer = sources[0]!.id === current.id ? sources[1]! : sources[0]!;
  let distance = -1;
  for (let i = order.findIndex((n) => n.id === current.id); i >= 0 && i < order.length; i++) {
    const n = order[i]!;
    if (n.id === current.id || n.id === peer.id) distance++;
    else if (n.id === eltwise.id) {
      distance++;
      break;
    }
  }
  if (distance !== 1 && distance !== 2) return false;
  const c2p = dependsOn(ed, current, peer, ['compute', 'data'], []);
  const p2c = dependsOn(ed, peer, current, ['compute', 'data'], []);
  return c2p || (!c2p && !p2c && distance === 1);
}

/** `isFeasibleToFuseSDPSubEngineOp` */
export function canFuseSubEngineOps(ed: EngineGraphEditor, order: EngineNode[], current: EngineNode, next: EngineNode): boolean {
  const a = sdpOf(current);
  const b = sdpOf(next);
  if (!a || !b) return false;
  if (a.x2.enabled || a.y.enabled || (a.outCVT.enable && a.outCVT.scale !== 1) || (a.outCVT.enable && a.outCVT.truncate !== 0) || b.x2.enabled) return false;
  if (next.engineOpType === 'SDP_ELEMENTWISE') return eltwiseFeasible(ed, order, current, next);
  return true;
}

/** `configureSDPSuperOpSubEngine`: what the op fused into `xN` gives the super op; null for the classes that cannot (activation, NOP, super) */
function subEngineOf(node: EngineNode): { x1: SDPSubEngineParams; sub: SuperSubEngine; outCVT: CVTParams | null } | null {
  const p = node.params;
  switch (p.kind) {
    case 'sdp-bias':
      return { x1: { ...p.sdp.x1 }, sub: { from: node.engineOpType, auxType: 'BIAS', dims: { ...p.biasDims }, dlaData: p.dlaBiasData }, outCVT: null };
    case 'sdp-scale':
      return { x1: { ...p.sdp.x1 }, sub: { from: node.engineOpType, auxType: 'SCALE', dims: { ...p.scaleDims }, dlaData: p.dlaScaleData }, outCVT: null };
    case 'sdp-bn':
      return { x1: { ...p.sdp.x1 }, sub: { from: node.engineOpType, auxType: 'BATCH_NORM', dims: { ...p.batchNormDims }, dlaData: p.dlaBatchNormData }, outCVT: null };
    case 'sdp-ew':
      return { x1: { ...p.sdp.x1 }, sub: { from: node.engineOpType, auxType: 'IO', dims: null, dlaData: null }, outCVT: { ...p.sdp.outCVT } };
    default:
      return null;
  }
}

/** `SDPElementWiseOpNode::getPeerSource` */
function peerSource(ed: EngineGraphEditor, eltwise: EngineNode, current: EngineNode): EngineNode {
  const sources = upstreamDataNodes(ed, eltwise);
  if (sources.length !== 2) throw new UnsupportedError(`${eltwise.name} doesn't have 2 source nodes`);
  return sources[0]!.id === current.id ? sources[1]! : sources[0]!;
}

/**
 * `SDPNode::fuseSDPSubEngineOp`: `curr` runs in X1 and `next` in X2 of a new super op that takes
 * `curr`'s place; `next` leaves the graph here and `curr` is returned for the caller to remove.
 */
function fuseSubEngineOp(ed: EngineGraphEditor, curr: EngineNode, next: EngineNode, changes: PassChanges): EngineNode | null {
  if (!canFuseSubEngineOps(ed, orderedElements(ed.graph).nodes, curr, next)) return null;
  const g = ed.graph;
  const x1 = curr.engineOpType === 'SDP_ELEMENTWISE' ? null : subEngineOf(curr);
  const x2 = x1 ? subEngineOf(next) : null;
  if (!x1 || !x2) {
    // upstream has made the super op before it finds out, and leaves it in the graph with no edges
    g.counters.node++;
    ed.nextName('sdp-super-');
    changes.notes.push(`${curr.name} + ${next.name}: not fusable into an SDP super op (an SDP super op number is used up, as upstream does)`);
    return null;
  }
  const edgeX1 = curr.auxEdges.length ? ed.edge(curr.auxEdges[0]!) : null;
  if (!edgeX1) throw new UnsupportedError(`${curr.name} has no aux edge`);
  let eltPeer: EngineNode | null = null;
  let edgeX2: EngineEdge | null;
  if (next.engineOpType === 'SDP_ELEMENTWISE') {
    eltPeer = peerSource(ed, next, curr);
    edgeX2 = next.upstream.map((id) => ed.edge(id)).find((e) => e.kind === 'data' && e.sources.includes(eltPeer!.id)) ?? null;
  } else edgeX2 = next.auxEdges.length ? ed.edge(next.auxEdges[0]!) : null;
  if (!edgeX2) throw new UnsupportedError(`${next.name}: no edge for the super op's X2`);
  const sourceNodes = upstreamDataNodes(ed, curr);
  // the fusion would order the other branch before this one's producer with a compute edge;
  // when that producer already feeds the other branch, upstream builds a cycle here and then
  // fails ("Can't resolve a non-acyclic graph"): NPU Studio leaves such a pair unfused
  if (eltPeer && sourceNodes.length && curr.fusedInput === sourceNodes[0]!.id && dependsOn(ed, eltPeer, sourceNodes[0]!, [], [])) {
    changes.notes.push(`${curr.name} + ${next.name} not fused: ${sourceNodes[0]!.name} feeds ${eltPeer.name} already, so ordering ${eltPeer.name} before it would make a cycle (nvdla_compiler fuses them and then fails: "Can't resolve a non-acyclic graph")`);
    return null;
  }
  const sdp = sdpCommon();
  sdp.x1 = x1.x1;
  sdp.convMode = sdpOf(curr)!.convMode;
  sdp.x2 = x2.x1;
  if (x2.outCVT) sdp.outCVT = x2.outCVT;
  const superOp = ed.addNode('sdp-super-', 'SDP_SUPER', null, absorb(curr.origins, next.origins), {
    kind: 'sdp-super',
    sdp,
    auxEdgeOf: { x1: null, x2: null, y: null },
    inputEdge: null,
    sub: { x1: x1.sub, x2: x2.sub, y: null },
  });
  if (superOp.params.kind !== 'sdp-super') throw new Error('unreachable');
  const sp = superOp.params;
  // substituteNodeInAST(curr, [super])
  for (const id of [...curr.upstream]) {
    const e = ed.edge(id);
    if (e.aux) continue;
    ed.removeNodeFromEdge(e, 'second', curr);
    ed.appendNodeToEdge(e, 'second', superOp);
  }
  for (const id of [...curr.downstream]) {
    const e = ed.edge(id);
    ed.removeNodeFromEdge(e, 'first', curr);
    ed.appendNodeToEdge(e, 'first', superOp);
  }
  repopulateEdgePorts(ed, superOp);
  sp.auxEdgeOf.x1 = edgeX1.id;
  ed.removeNodeFromEdge(edgeX1, 'second', curr);
  ed.appendNodeToEdge(edgeX1, 'second', superOp);
  sp.auxEdgeOf.x2 = edgeX2.id;
  ed.removeNodeFromEdge(edgeX2, 'second', next);
  ed.appendNodeToEdge(edgeX2, 'second', superOp);
  removeNodeFromAST(ed, next, 'input');
  changes.added.push(superOp.id);
  changes.removed.push(next.id);
  changes.notes.push(`${curr.name} (X1) and ${next.name} (X2) fused into ${superOp.name}`);
  if (sourceNodes.length) {
    const src = sourceNodes[0]!;
    // ConvCoreNode::fuseOnTheFlyNodes again: the convolution now feeds the super op
    if (src.engineType === 'CONVOLUTION') {
      for (const id of src.downstream)
        for (const t of ed.edge(id).targets) {
          const c = ed.node(t);
          if (c.engineType !== 'SDP') continue;
          src.fusedOutput = c.id;
          c.fusedInput = src.id;
        }
    }
    if (eltPeer && curr.fusedInput === src.id) {
      const ce = ed.addComputeEdge(eltPeer, src);
      changes.notes.push(`compute edge ${ce.id}: ${eltPeer.name} -> ${src.name} (the super op's fused parent goes last)`);
    }
  }
  return curr;
}

export const fuseSubEngineOpsPass: EnginePass = {
  name: 'fuseSubEngineOps',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      if (!ctx.profile.canSDPFuseSubEngineOps) {
        changes.notes.push('off in this profile');
        return;
      }
      let nodes = orderedElements(g).nodes;
      let start = 0;
      let fused = 0;
      for (;;) {
        const ed = new EngineGraphEditor(g);
        let done = true;
        for (let i = start; i < nodes.length; i++) {
          const node = nodes[i]!;
          if (node.engineType !== 'SDP' || !ed.hasNode(node.id)) continue;
          const sinks = downstreamDataNodes(ed, node);
          if (sinks.length !== 1 || upstreamDataNodes(ed, sinks[0]!).length > 2 || sinks[0]!.engineType !== 'SDP') continue;
          const prev = i > 0 ? nodes[i - 1]! : node;
          const next = sinks[0]!;
          const removed = fuseSubEngineOp(ed, node, next, changes);
          if (!removed) continue;
          if (removed.id === node.id && ed.hasNode(next.id)) {
            const ns = sdpOf(next)!;
            ns.convMode = sdpOf(node)!.convMode;
            ns.numGroups = sdpOf(node)!.numGroups;
          }
          removeNodeFromAST(ed, removed, removed.id === node.id ? 'output' : 'input');
          changes.removed.push(removed.id);
          fused++;
          nodes = orderedElements(g).nodes;
          const at = nodes.findIndex((n) => n.id === prev.id);
          start = at >= 0 ? at : 0;
          refreshAfterLocalEdit(g, ctx);
          done = false;
          break;
        }
        if (done) break;
      }
      refreshGraphState(g, ctx);
      if (!fused) changes.notes.push('no SDP pair to fuse');
    });
  },
};
