/**
 * Big loadables for the benches (bench/loadable.ts, bench/loadable-ui.ts): a golden with every
 * weight blob (`tb-*`) repeated until the file is about the size asked, the pool contents laid
 * out again 4 KiB aligned and the pool's address entries resized. Same tasks and descriptors as
 * the golden; only the weights grow.
 */
import type { Loadable } from '../../src/core/loadable/model';

export function scaledLoadable(base: Loadable, targetBytes: number): Loadable {
  const weights = base.blobs.filter((b) => b.name.startsWith('tb-'));
  const weightBytes = weights.reduce((n, b) => n + b.data.length, 0);
  const k = Math.max(1, Math.round((targetBytes - (base.size - weightBytes)) / weightBytes));
  const blobs = base.blobs.map((b) => {
    if (!b.name.startsWith('tb-')) return b;
    const data = new Uint8Array(b.data.length * k);
    for (let i = 0; i < k; i++) data.set(b.data, i * b.data.length);
    return { ...b, size: data.length, data };
  });
  const size = new Map(blobs.map((b) => [b.name, b.data.length]));
  const memory_list = base.memory_list.map((m) => {
    if (!m.contents.some((c) => c.startsWith('tb-'))) return m;
    let at = 0;
    const offsets = m.contents.map((c) => {
      const o = at;
      at += Math.ceil(size.get(c)! / 4096) * 4096;
      return o;
    });
    return { ...m, offsets, size: at };
  });
  const address_list = base.address_list.map((a) => ({ ...a, size: a.offset === 0 && memory_list[a.mem_id] !== base.memory_list[a.mem_id] ? memory_list[a.mem_id]!.size : a.size }));
  return { ...base, blobs, memory_list, address_list };
}
