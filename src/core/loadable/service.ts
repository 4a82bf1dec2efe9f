/**
 * The `loadable` capability of an NVDLA loadable document (`core/format.ts#LoadableService`):
 * the views' data from `view.ts`, each built on its first request and kept (the overview, the
 * memory map) or built per request (a slot, a blob: cheap, or sized by what the view shows).
 *
 * `compare` takes another document's service: the decoded loadable behind a service is kept in a
 * module-private WeakMap, so the worker compares two documents without learning their insides.
 */
import { FormatError } from '../errors';
import type { LoadableService } from '../format';
import { diffLoadables } from './diff';
import type { MemoryArea } from './memory-map';
import type { DecodedLoadable } from './tasks';
import { blobDetailOf, blobWindow, overviewOf, slotViewOf, type LoadableOverview } from './view';

const decodedOf = new WeakMap<LoadableService, DecodedLoadable>();

export function loadableService(decoded: DecodedLoadable, memoryMap: () => MemoryArea[]): LoadableService {
  let overview: LoadableOverview | null = null;
  const service: LoadableService = {
    overview: () => (overview ??= overviewOf(decoded)),
    slot: (node) => slotViewOf(decoded, node),
    memoryMap,
    blob: (index) => blobDetailOf(decoded, index),
    blobBytes: (index, offset, length) => blobWindow(decoded, index, offset, length),
    compare(other) {
      const b = decodedOf.get(other);
      if (!b) throw new FormatError({ kind: 'unsupported', file: decoded.loadable.file, message: 'the other document is not an NVDLA loadable opened by NPU Studio' });
      return diffLoadables(decoded.loadable, b.loadable, decoded, b);
    },
  };
  decodedOf.set(service, decoded);
  return service;
}
