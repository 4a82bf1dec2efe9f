/**
 * Pass `updateScalingFactors` (`Graph::updateScalingFactors`, INT8 only): an element-wise SDP
 * adds two tensors, so both must be on one scale. When their scales differ, the input whose
 * producer feeds nothing else takes the other input's scales (upstream's cases 1 and 2); when
 * both producers also feed other nodes, upstream gives up, and so does this pass.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import type { EngineEdge } from '../model';
import { editCopy, unchanged, type EnginePass } from './pass';

export const updateScalingFactorsPass: EnginePass = {
  name: 'updateScalingFactors',
  run(input, ctx) {
    if (ctx.profile.computePrecision !== 'INT8') return unchanged(input, 'nothing to do: not INT8');
    return editCopy(input, (g, changes) => {
      const ed = new EngineGraphEditor(g);
      const siblings = (e: EngineEdge) => e.sources.flatMap((s) => ed.downstreamDataEdges(ed.node(s)).filter((x) => x.id !== e.id));
      for (const node of orderedElements(g).nodes) {
        if (node.engineOpType !== 'SDP_ELEMENTWISE') continue;
        const ins = ed.upstreamDataEdges(node);
        if (ins.length !== 2) throw new Error(`Elt wise op has input edges (${ins.length}) != 2`);
        const [a, b] = ins as [EngineEdge, EngineEdge];
        const sa = a.tensor!.channelScales;
        const sb = b.tensor!.channelScales;
        if (sa[0] === sb[0]) continue;
        let update: EngineEdge;
        let scales: number[];
        if (siblings(a).length === 0) {
          update = a;
          scales = sb;
        } else if (siblings(b).length === 0) {
          update = b;
          scales = sa;
        } else {
          throw new Error(`${node.name}: both inputs' producers have other consumers, so neither input can be rescaled (not supported upstream either)`);
        }
        update.tensor!.channelScales = [...scales];
        changes.changed.push(node.id);
        changes.notes.push(`${node.name}: input ${update.id} takes the scale ${scales[0]} of the other input`);
      }
      refreshGraphState(g, ctx);
    });
  },
};
