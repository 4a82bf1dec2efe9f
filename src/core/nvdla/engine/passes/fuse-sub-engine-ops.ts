/**
 * Pass `fuseSubEngineOps` (`Graph::fuseSDPSubEngineOps`, fast-math only): two SDP operations in a
 * row, the first with its X2 unit free, can run as one SDP "super op" (the first in X1, the second
 * in X2). Which pairs upstream fuses is decided here exactly as upstream decides it
 * (`isFeasibleToFuseSDPSubEngineOp`); building the super op is not implemented yet, so a network
 * with such a pair is reported as unsupported rather than compiled differently from
 * nvdla_compiler. LeNet and cifar10_quick have no such pair.
 */
import { EngineGraphEditor, downstreamDataNodes, upstreamDataNodes } from '../graph';
import { dependsOn } from '../depends';
import { UnsupportedError } from '../errors';
import { orderedElements } from '../graph-state';
import type { EngineNode, SDPCommonParams } from '../model';
import { editCopy, type EnginePass } from './pass';

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

export const fuseSubEngineOpsPass: EnginePass = {
  name: 'fuseSubEngineOps',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      if (!ctx.profile.canSDPFuseSubEngineOps) {
        changes.notes.push('off in this profile');
        return;
      }
      const ed = new EngineGraphEditor(g);
      const order = orderedElements(g).nodes;
      for (const node of order) {
        if (node.engineType !== 'SDP') continue;
        const sinks = downstreamDataNodes(ed, node);
        if (sinks.length !== 1 || upstreamDataNodes(ed, sinks[0]!).length > 2 || sinks[0]!.engineType !== 'SDP') continue;
        // an element-wise op cannot sit in X1 (upstream gives up on it before anything else)
        if (node.engineOpType === 'SDP_ELEMENTWISE') continue;
        if (canFuseSubEngineOps(ed, order, node, sinks[0]!)) {
          throw new UnsupportedError(`${node.name} and ${sinks[0]!.name}: nvdla_compiler fuses them into one SDP super op (X1 + X2); SDP super ops are not implemented yet`);
        }
      }
      changes.notes.push('no SDP pair to fuse');
    });
  },
};
