/**
 * Pass `registerBuffers` (Compiler.cpp; `Graph::registerAllSurfaces` then `registerAllBuffers`):
 * every data edge gets a tensor surface `tsd-N` (format, dims, strides, size, offset) and a
 * buffer `tb-N`, numbered in the graph's element order.
 */
import { determineSurfaces, orderedElements, registerBuffers } from '../graph-state';
import { editCopy, type EnginePass } from './pass';

export const registerBuffersPass: EnginePass = {
  name: 'registerBuffers',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      const { edges } = orderedElements(g);
      determineSurfaces(g, ctx, edges);
      registerBuffers(g, edges);
      changes.notes.push(`${g.surfaces.length} surfaces, ${g.buffers.length} buffers registered`);
    });
  },
};
