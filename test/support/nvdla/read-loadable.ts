/**
 * Test helper: a loadable file read back into the plain `NvdlaLoadable` shape through the
 * flatc-made object API, so emitted and golden loadables compare field by field. (The loadable
 * reader of src/core/loadable is the product's; this stays a test aid.)
 */
import { ByteBuffer } from 'flatbuffers';
import { Loadable } from '../../../src/core/loadable/generated/nvdla/loadable/loadable';
import type { NvdlaLoadable } from '../../../src/core/nvdla/emit/loadable';

const num = (v: bigint | number) => Number(v);
const str = (v: string | Uint8Array | null) => (typeof v === 'string' ? v : v ? new TextDecoder().decode(v) : '');

export function readLoadable(bytes: Uint8Array): NvdlaLoadable {
  const t = Loadable.getRootAsLoadable(new ByteBuffer(bytes)).unpack();
  const v = t.version!;
  return {
    version: { major: v.major, minor: v.minor, subMinor: v.subMinor },
    tasks: t.taskList.map((x) => ({ id: x.id, interface: x.interface_, instance: x.instance, addressList: [...x.addressList], preActions: [...x.preActions], postActions: [...x.postActions] })),
    memory: t.memoryList.map((m) => ({
      id: m.id,
      domain: m.domain,
      flags: m.flags,
      size: num(m.size),
      alignment: m.alignment,
      contents: m.contents.map(str),
      offsets: m.offsets.map(num),
      bindId: m.bindId,
      tensorDescId: m.tensorDescId,
    })),
    addresses: t.addressList.map((a) => ({ id: a.id, memId: a.memId, offset: num(a.offset), size: num(a.size) })),
    events: t.eventList.map((e) => ({ id: e.id, type: e.type, target: e.target, val: e.val, op: e.op })),
    blobs: t.blobs.map((b) => ({
      name: str(b.name),
      size: num(b.size),
      interface: b.interface_,
      subInterface: b.subInterface,
      version: { major: b.version!.major, minor: b.version!.minor, subMinor: b.version!.subMinor },
      data: Uint8Array.from(b.data),
    })),
    tensorDescs: t.tensorDescList.map((d) => ({
      name: str(d.name),
      id: d.id,
      memId: d.memId,
      size: num(d.size),
      offset: num(d.offset),
      dataFormat: d.dataFormat,
      dataType: d.dataType,
      dataCategory: d.dataCategory,
      pixelFormat: d.pixelFormat,
      pixelMapping: d.pixelMapping,
      n: d.n,
      c: d.c,
      h: d.h,
      w: d.w,
      strides: [d.stride0, d.stride1, d.stride2, d.stride3, d.stride4, d.stride5, d.stride6, d.stride7],
    })),
    relocs: t.relocList.map((r) => ({ addressId: r.addressId, writeId: r.writeId, offset: num(r.offset), interface: r.interface_, subInterface: r.subInterface, relocType: r.relocType })),
    submits: t.submitList.map((s) => ({ id: s.id, taskIds: [...s.taskId] })),
  };
}

/**
 * Semantic equivalence of two loadables (nvdla.md section 13): every list equal element by
 * element, memory contents compared as name -> offset maps, event `type` ignored, blobs as a set
 * keyed by name with byte-identical data. Returns the differences (empty when equivalent), each
 * with a path, the first few per list.
 */
export function loadableDifferences(a: NvdlaLoadable, b: NvdlaLoadable): string[] {
  const out: string[] = [];
  const cmp = (path: string, x: unknown, y: unknown) => {
    const sx = JSON.stringify(x);
    const sy = JSON.stringify(y);
    if (sx !== sy) out.push(`${path}: ${sx.slice(0, 300)} != ${sy.slice(0, 300)}`);
  };
  cmp('version', a.version, b.version);
  const list = <T>(name: string, xs: T[], ys: T[], norm: (v: T) => unknown) => {
    if (xs.length !== ys.length) out.push(`${name}: ${xs.length} entries != ${ys.length}`);
    let n = 0;
    for (let i = 0; i < Math.min(xs.length, ys.length) && n < 5; i++) {
      const before = out.length;
      cmp(`${name}[${i}]`, norm(xs[i]!), norm(ys[i]!));
      if (out.length > before) n++;
    }
  };
  list('task_list', a.tasks, b.tasks, (t) => t);
  list('submit_list', a.submits, b.submits, (s) => s);
  list('event_list', a.events, b.events, (e) => ({ ...e, type: 0 }));
  list('memory_list', a.memory, b.memory, (m) => ({ ...m, contents: undefined, offsets: undefined, map: Object.fromEntries(m.contents.map((c, i) => [c, m.offsets[i]]).sort()) }));
  list('address_list', a.addresses, b.addresses, (x) => x);
  list('tensor_desc_list', a.tensorDescs, b.tensorDescs, (x) => x);
  list('reloc_list', a.relocs, b.relocs, (x) => x);
  const byName = (l: NvdlaLoadable) => new Map(l.blobs.map((x) => [x.name, x]));
  const ba = byName(a);
  const bb = byName(b);
  for (const name of new Set([...ba.keys(), ...bb.keys()])) {
    const x = ba.get(name);
    const y = bb.get(name);
    if (!x || !y) {
      out.push(`blobs["${name}"]: only in ${x ? 'the first' : 'the second'}`);
      continue;
    }
    cmp(`blobs["${name}"]`, { ...x, data: undefined }, { ...y, data: undefined });
    if (x.data.length !== y.data.length) out.push(`blobs["${name}"].data: ${x.data.length} bytes != ${y.data.length}`);
    else {
      const first = x.data.findIndex((v, i) => v !== y.data[i]);
      if (first >= 0) {
        let last = first;
        for (let i = x.data.length - 1; i > first; i--) if (x.data[i] !== y.data[i]) { last = i; break; }
        out.push(`blobs["${name}"].data[${first}..${last}] differ (first: ${x.data[first]} != ${y.data[first]})`);
      }
    }
  }
  return out;
}
