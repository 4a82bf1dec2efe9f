/**
 * Pass `reserveBuffers` (`Graph::reserveAllBuffers`, `Edge::reserveBuffer`): every buffer's size
 * becomes what its surfaces need after the aux-data passes changed them: the largest surface for
 * global and local tensors, the surface times the batch count for bindable (external) tensors;
 * stream tensors (conv -> SDP on the wire) get no memory.
 */
import { orderedElements, reserveBuffers } from '../graph-state';
import { editCopy, type EnginePass } from './pass';

export const reserveBuffersPass: EnginePass = {
  name: 'reserveBuffers',
  run(input) {
    return editCopy(input, (g, changes) => {
      const before = new Map(input.buffers.map((b) => [b.id, b.size]));
      reserveBuffers(g, orderedElements(g).edges);
      for (const b of g.buffers) if (before.get(b.id) !== b.size) changes.notes.push(`${b.id}: ${before.get(b.id) ?? 0} -> ${b.size} bytes`);
    });
  },
};
