/**
 * Removing buffers from a CircleModel with every reference renumbered (tensor.buffer,
 * metadata[].buffer, metadata_buffer). Shared by `attachOrigins` (old origin tables) and the
 * optimizer's dead-buffer cleanup. buffers[0] (the empty sentinel) is never removed.
 */
import type { CircleModel } from '../circle/model';

/** Buffer indices referenced by any tensor, metadata entry or metadata_buffer item. */
export function referencedBuffers(model: CircleModel): Set<number> {
  const used = new Set<number>([0]);
  for (const sg of model.subgraphs) for (const t of sg.tensors) used.add(t.buffer);
  for (const md of model.metadata) used.add(md.buffer);
  for (const b of model.metadataBuffer) used.add(b);
  return used;
}

/** A new model without the buffers in `remove` (which nothing may still reference). */
export function removeBuffers(model: CircleModel, remove: ReadonlySet<number>): CircleModel {
  if (remove.size === 0) return model;
  const map = new Int32Array(model.buffers.length);
  const buffers: CircleModel['buffers'] = [];
  model.buffers.forEach((b, i) => {
    if (i !== 0 && remove.has(i)) {
      map[i] = -1;
      return;
    }
    map[i] = buffers.length;
    buffers.push(b);
  });
  const to = (i: number) => (i >= 0 && i < map.length && map[i]! >= 0 ? map[i]! : i);
  return {
    ...model,
    buffers,
    subgraphs: model.subgraphs.map((sg) => ({ ...sg, tensors: sg.tensors.map((t) => (t.buffer === to(t.buffer) ? t : { ...t, buffer: to(t.buffer) })) })),
    metadata: model.metadata.map((md) => ({ ...md, buffer: to(md.buffer) })),
    metadataBuffer: model.metadataBuffer.map(to),
  };
}
