/**
 * Pass `fuseOnTheFlyNodes` (`Graph::fuseOnTheFlyNodes`): the CONV engine has no write-out of its
 * own, so every convolution is fused with the SDP that follows it (data passes on the wire, the
 * stream tensor); the pair is programmed together. SDP vertical fusion and SDP->PDP on-the-fly
 * are off in every profile.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import { editCopy, type EnginePass } from './pass';

export const fuseOnTheFlyNodesPass: EnginePass = {
  name: 'fuseOnTheFlyNodes',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      const ed = new EngineGraphEditor(g);
      for (const node of orderedElements(g).nodes) {
        if (node.engineType !== 'CONVOLUTION') continue;
        for (const e of node.downstream) {
          for (const c of ed.edge(e).targets) {
            const consumer = ed.node(c);
            if (consumer.engineType !== 'SDP') continue;
            node.fusedOutput = consumer.id;
            consumer.fusedInput = node.id;
          }
        }
        if (!node.fusedOutput) throw new Error(`${node.name}: Conv node didn't find a fusable downstream SDP node`);
        changes.changed.push(node.id);
        changes.notes.push(`${node.name} fused with ${ed.node(node.fusedOutput).name}`);
      }
      refreshGraphState(g, ctx);
    });
  },
};
