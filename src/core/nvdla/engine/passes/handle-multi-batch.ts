/**
 * Pass `handleMultiBatch` (`Graph::handleMultiBatch`): every operation runs once per batch.
 * A convolution whose weights fit the CBUF whole keeps them there for the next batch (weight
 * reuse; only the last batch releases them). A bindable tensor holds all batches one after
 * another in one buffer (batch n at n x surface size); every other tensor is one image per batch
 * at the same offset in per-batch copies of its buffer (placed later by the memory resolver);
 * aux data is shared by all batches. A non-bindable tensor with N > 1 is refused, as upstream
 * refuses it.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements } from '../graph-state';
import type { EngineEdge, EngineGraph } from '../model';
import { surfaceById } from '../surfaces';
import { UnsupportedError } from '../errors';
import { totalBanksForWeight } from './split-nodes';
import { editCopy, type EnginePass } from './pass';

function edgeBatches(g: EngineGraph, e: EngineEdge, batches: number): void {
  if (e.kind !== 'data') return;
  if (!e.surface) throw new Error(`TSD not yet registered for edge ${e.id}`);
  const tsd = surfaceById(g, e.surface);
  if (tsd.bind) {
    if (tsd.dims.n !== batches) throw new Error(`Nw edge ${e.id} doesn't represent a multi batch bindable tensor`);
    tsd.batchOffsets = Array.from({ length: batches }, (_, n) => n * tsd.size);
    tsd.bufferOffset = 0;
    return;
  }
  if (!e.aux && tsd.dims.n !== 1) throw new UnsupportedError(`Contiguous multi-batch non-bindable tensor at ${e.id}/${tsd.id} is not yet supported`);
  const tb = g.buffers.find((b) => b.id === tsd.buffer)!;
  const bound = tb.surfaces.map((id) => surfaceById(g, id)).find((s) => s.bind) ?? null;
  tsd.batchOffsets = Array.from({ length: batches }, (_, n) => (bound ? (bound.batchOffsets[n] ?? 0) : 0) + tsd.bufferOffset);
}

export const handleMultiBatchPass: EnginePass = {
  name: 'handleMultiBatch',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      const batches = g.batchSize;
      const ed = new EngineGraphEditor(g);
      const { nodes, edges } = orderedElements(g);
      for (const node of nodes) {
        if (node.params.kind !== 'conv') continue;
        const p = node.params.conv;
        p.batches = Array.from({ length: batches }, () => ({ reuseWeights: p.reuseWeights, releaseWeights: p.releaseWeights }));
        const wt = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
        if (p.allottedWeightBanks === totalBanksForWeight(wt, ctx)) {
          const lastRelease = p.releaseWeights;
          for (let n = 0; n + 1 < batches; n++) {
            p.batches[n + 1]!.reuseWeights = true;
            p.batches[n]!.releaseWeights = false;
          }
          p.batches[batches - 1]!.releaseWeights = lastRelease;
          if (batches > 1) {
            changes.changed.push(node.id);
            changes.notes.push(`${node.name}: weights stay in the CBUF across the ${batches} batches`);
          }
        }
      }
      const byId = (id: string) => ed.edge(id);
      for (const id of g.inputEdges) edgeBatches(g, byId(id), batches);
      for (const id of g.outputEdges) edgeBatches(g, byId(id), batches);
      for (const e of edges) edgeBatches(g, e, batches);
      if (batches > 1) changes.notes.push(`${batches} batches: bindable tensors hold every batch in one buffer`);
    });
  },
};
