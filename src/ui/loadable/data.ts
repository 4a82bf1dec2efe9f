/**
 * The loadable's view data, fetched from the model worker when a view first asks for it. The
 * overview and the memory map are kept per worker document (every view of a tab shares one
 * request); a slot, a blob's detail and its bytes are asked for as they are shown. A worker
 * restart gives the documents new ids, so nothing stale is ever read from the cache.
 */
import { useEffect, useState } from 'react';
import { workers } from '../actions';
import { registerWorkerDocOwner } from '../actions';
import type { BlobDetail, LoadableDiff, LoadableOverview, MemoryArea, SlotView } from '../../worker/api';
import { forgetLoadableTab } from './state';
import { grouped } from '../capabilities';

registerWorkerDocOwner({ reopen: async () => {}, tabClosed: forgetLoadableTab });

const kept = new Map<string, Promise<unknown>>();

function keep<T>(key: string, make: () => Promise<T>): Promise<T> {
  let p = kept.get(key) as Promise<T> | undefined;
  if (!p) {
    p = make();
    kept.set(key, p);
    // a failed request is asked again next time
    p.catch(() => kept.delete(key));
  }
  return p;
}

export const overviewOf = (workerDocId: string) =>
  keep(`overview:${workerDocId}`, async () => {
    const t0 = performance.now();
    const o = await workers().model.api.loadableOverview(workerDocId);
    // request to the overview received (structured clone included), for bench/loadable-ui.ts
    performance.measure(`npu:loadable:overview ${o.file}`, { start: t0, end: performance.now() });
    return o;
  });
export const memoryMapOf = (workerDocId: string) => keep(`memory:${workerDocId}`, () => workers().model.api.loadableMemoryMap(workerDocId));
export const compareOf = (a: string, b: string) => keep(`compare:${a}:${b}`, () => workers().model.api.loadableCompare(a, b));
export const slotOf = (workerDocId: string, node: number) => workers().model.api.loadableSlot(workerDocId, node);
export const blobOf = (workerDocId: string, blob: number) => workers().model.api.loadableBlob(workerDocId, blob);
export const blobBytesOf = (workerDocId: string, blob: number, offset: number, length: number) => workers().model.api.loadableBlobBytes(workerDocId, blob, offset, length);

export interface Fetched<T> {
  data: T | null;
  error: string | null;
}

/** The value `fetch` gives for `key` (null while it comes, or without a key). */
export function useFetched<T>(key: string | null, fetch: () => Promise<T>): Fetched<T> {
  const [state, setState] = useState<{ key: string | null } & Fetched<T>>({ key: null, data: null, error: null });
  useEffect(() => {
    if (key === null) return;
    let live = true;
    fetch()
      .then((data) => live && setState({ key, data, error: null }))
      .catch((e: unknown) => live && setState({ key, data: null, error: e instanceof Error ? e.message : String(e) }));
    return () => {
      live = false;
    };
  }, [key]); // eslint-disable-line react-hooks/exhaustive-deps
  return state.key === key ? { data: state.data, error: state.error } : { data: null, error: null };
}

export const useOverview = (workerDocId: string | null) => useFetched<LoadableOverview>(workerDocId && `overview:${workerDocId}`, () => overviewOf(workerDocId!));
export const useMemoryMap = (workerDocId: string | null) => useFetched<MemoryArea[]>(workerDocId && `memory:${workerDocId}`, () => memoryMapOf(workerDocId!));
export const useSlot = (workerDocId: string | null, node: number | null) =>
  useFetched<SlotView | null>(workerDocId && node !== null ? `slot:${workerDocId}:${node}` : null, () => slotOf(workerDocId!, node!));
export const useBlobDetail = (workerDocId: string | null, blob: number | null) =>
  useFetched<BlobDetail | null>(workerDocId && blob !== null ? `blob:${workerDocId}:${blob}` : null, () => blobOf(workerDocId!, blob!));
export const useCompare = (a: string | null, b: string | null) => useFetched<LoadableDiff>(a && b ? `compare:${a}:${b}` : null, () => compareOf(a!, b!));

/** `1,234 B`, `12.3 KiB`, `1.2 MiB` */
export function formatBytes(n: number): string {
  if (n < 1024) return `${grouped(n)} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MiB`;
  return `${(n / 1024 ** 3).toFixed(2)} GiB`;
}

export const hex = (n: number, width = 0) => `0x${n.toString(16).padStart(width, '0')}`;
