/**
 * Semantic comparison of two loadables (notes/nvdla.md section 13), section by section:
 * version; task, submit, event (without `type`), memory (contents/offsets as a name -> offset
 * map), address, tensor-desc and reloc lists element by element; blobs as a set keyed by name
 * with size, interface, sub_interface, version and byte-identical data. Not compared: the
 * FlatBuffers layout, the file size, the identifier.
 *
 * When the data of a blob that holds task descriptors differs, each differing byte range is
 * read with the layout of the descriptor placed there (from the decoded tasks of either file),
 * so the report names the task, the op slot, the descriptor and each field with both values;
 * bytes outside every descriptor (and weight blobs) are reported as byte ranges.
 *
 * A file with unreadable parts is never judged equivalent: the `readability` section lists
 * its damage.
 */
import type { FillBytes } from './checked';
import type { BlobEntry, Loadable } from './model';
import { decodeStruct, formatScalar, leaves } from './structs';
import { allDescriptors, decodeTasks, type DecodedLoadable, type DescriptorRef } from './tasks';

export type DiffSection =
  | 'readability'
  | 'version'
  | 'task_list'
  | 'submit_list'
  | 'event_list'
  | 'memory_list'
  | 'address_list'
  | 'tensor_desc_list'
  | 'reloc_list'
  | 'blobs';

export interface Difference {
  /** where, e.g. `memory_list[1].contents["tb-3"]`, `blobs["task-0-surf_list"].data[116..120]` */
  path: string;
  /** value in A and in B as text; null when absent on that side */
  a: string | null;
  b: string | null;
  /** for descriptor bytes: what they are */
  descriptor?: {
    task: number;
    /** op slot (DLA) or op (EMU); null for network descriptors and LUTs */
    slot: number | null;
    engine: string | null;
    /** struct name, e.g. `dla_conv_op_desc` */
    struct: string;
    /** `op`, `surface`, `common`, `network_desc`, `lut[0]`, `buffers` */
    role: string;
    /** field path inside the struct, e.g. `src_data.line_stride` */
    field: string;
  };
}

export interface SectionDiff {
  section: DiffSection;
  equal: boolean;
  /** all differences found (the list below may be cut) */
  count: number;
  differences: Difference[];
}

export interface LoadableDiff {
  a: string;
  b: string;
  equivalent: boolean;
  sections: SectionDiff[];
}

/** Differences listed per section; the count goes on. */
export const MAX_LISTED = 200;
/** Raw byte ranges listed per blob. */
const MAX_RANGES = 16;

class Section {
  readonly differences: Difference[] = [];
  count = 0;
  constructor(readonly name: DiffSection) {}
  add(d: Difference): void {
    this.count++;
    if (this.differences.length < MAX_LISTED) this.differences.push(d);
  }
  done(): SectionDiff {
    return { section: this.name, equal: this.count === 0, count: this.count, differences: this.differences };
  }
}

const text = (v: unknown): string => (typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v) ?? String(v));

function compareFields<T extends object>(s: Section, path: string, a: T, b: T, fields: readonly (keyof T & string)[]): void {
  for (const f of fields) {
    const x = a[f];
    const y = b[f];
    if (text(x) !== text(y)) s.add({ path: `${path}.${f}`, a: text(x), b: text(y) });
  }
}

function compareList<T extends object>(name: DiffSection, a: T[], b: T[], fields: readonly (keyof T & string)[], extra?: (s: Section, path: string, x: T, y: T) => void): SectionDiff {
  const s = new Section(name);
  if (a.length !== b.length) s.add({ path: `${name}.length`, a: String(a.length), b: String(b.length) });
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    compareFields(s, `${name}[${i}]`, a[i]!, b[i]!, fields);
    extra?.(s, `${name}[${i}]`, a[i]!, b[i]!);
  }
  for (let i = n; i < a.length; i++) s.add({ path: `${name}[${i}]`, a: 'present', b: null });
  for (let i = n; i < b.length; i++) s.add({ path: `${name}[${i}]`, a: null, b: 'present' });
  return s.done();
}

/** name -> sorted offsets (a name may be placed more than once) */
function contentMap(names: string[], offsets: number[]): Map<string, number[]> {
  const m = new Map<string, number[]>();
  names.forEach((n, i) => {
    const list = m.get(n) ?? [];
    list.push(offsets[i] ?? -1);
    m.set(n, list);
  });
  for (const v of m.values()) v.sort((x, y) => x - y);
  return m;
}

/** True when both views hold the same bytes (4 bytes at a time through DataViews). */
export function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  const va = new DataView(a.buffer, a.byteOffset, a.byteLength);
  const vb = new DataView(b.buffer, b.byteOffset, b.byteLength);
  const n = a.length - (a.length % 4);
  for (let i = 0; i < n; i += 4) if (va.getUint32(i, true) !== vb.getUint32(i, true)) return false;
  for (let i = n; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Runs of differing bytes kept per blob (the byte count goes on). */
const MAX_KEPT_RANGES = 10_000;

/**
 * Maximal runs of differing bytes over the common length: [start, end), sorted. `segments`
 * ([lo, hi) pairs, sorted, disjoint, not touching) limits the search to where bytes may differ:
 * every byte outside them is known to be equal on both sides.
 */
function differingRanges(a: Uint8Array, b: Uint8Array, segments?: [number, number][]): { ranges: [number, number][]; bytes: number; more: number } {
  const ranges: [number, number][] = [];
  const va = new DataView(a.buffer, a.byteOffset, a.byteLength);
  const vb = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let bytes = 0;
  let more = 0;
  for (const [lo, n] of segments ?? [[0, Math.min(a.length, b.length)]]) {
    let i = lo;
    while (i < n) {
      // skip equal stretches 4 bytes at a time
      while (i + 4 <= n && va.getUint32(i, true) === vb.getUint32(i, true)) i += 4;
      if (i >= n) break;
      if (a[i] === b[i]) {
        i++;
        continue;
      }
      const start = i;
      while (i < n && a[i] !== b[i]) i++;
      if (ranges.length < MAX_KEPT_RANGES) ranges.push([start, i]);
      else more++;
      bytes += i - start;
    }
  }
  return { ranges, bytes, more };
}

/**
 * Bytes compared at a time through `DiffOptions.sameBytes`; a window that differs is filled and
 * searched byte by byte.
 */
const WINDOW = 256 * 1024;

/**
 * Where the data of two blobs may differ, asking `sameBytes` window by window over the common
 * length: the differing windows, adjacent ones merged (a run of differing bytes never spans an
 * equal window: its first byte is equal). Empty when every window is the same.
 */
function differingWindows(x: Uint8Array, y: Uint8Array, sameBytes: (x: Uint8Array, y: Uint8Array) => boolean): [number, number][] {
  const n = Math.min(x.length, y.length);
  const out: [number, number][] = [];
  for (let lo = 0; lo < n; lo += WINDOW) {
    const hi = Math.min(n, lo + WINDOW);
    if (sameBytes(x.subarray(lo, hi), y.subarray(lo, hi))) continue;
    const last = out[out.length - 1];
    if (last && last[1] === lo) last[1] = hi;
    else out.push([lo, hi]);
  }
  return out;
}

/** Index of the first range ending after `lo` (ranges sorted and disjoint). */
function firstRangeAfter(ranges: [number, number][], lo: number): number {
  let a = 0;
  let b = ranges.length;
  while (a < b) {
    const m = (a + b) >> 1;
    if (ranges[m]![1] <= lo) a = m + 1;
    else b = m;
  }
  return a;
}

const hex = (bytes: Uint8Array, max = 16): string =>
  Array.from(bytes.subarray(0, max), (x) => x.toString(16).padStart(2, '0')).join(' ') + (bytes.length > max ? ` ... (${bytes.length} bytes)` : '');

/** Descriptors by the blob that holds them, from both files' decodes. */
function descriptorsByBlob(da: DecodedLoadable, db: DecodedLoadable): Map<string, DescriptorRef[]> {
  const m = new Map<string, DescriptorRef[]>();
  const seen = new Set<string>();
  for (const d of [...allDescriptors(da), ...allDescriptors(db)]) {
    if (!d.struct.blob) continue;
    const key = `${d.struct.blob}@${d.struct.offset}:${d.struct.spec.name}:${d.struct.spec.size}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const list = m.get(d.struct.blob) ?? [];
    list.push(d);
    m.set(d.struct.blob, list);
  }
  for (const list of m.values()) list.sort((x, y) => x.struct.offset - y.struct.offset);
  return m;
}

function compareBlobData(s: Section, x: BlobEntry, y: BlobEntry, descriptors: DescriptorRef[], options: DiffOptions): void {
  const path = `blobs[${JSON.stringify(x.name)}]`;
  const { sameBytes, fillA, fillB } = options;
  let segments: [number, number][] | undefined;
  if (sameBytes) {
    segments = differingWindows(x.data, y.data, sameBytes);
    if (!segments.length && x.data.length === y.data.length) return;
    for (const [lo, hi] of segments) {
      fillA?.(x.data.byteOffset + lo, x.data.byteOffset + hi);
      fillB?.(y.data.byteOffset + lo, y.data.byteOffset + hi);
    }
  } else if (bytesEqual(x.data, y.data)) return;
  if (x.data.length !== y.data.length) s.add({ path: `${path}.data.length`, a: String(x.data.length), b: String(y.data.length) });
  const { ranges, bytes, more } = differingRanges(x.data, y.data, segments);
  const covered = new Array<boolean>(ranges.length).fill(false);
  // descriptor fields in the differing ranges, read with the same layout on both sides
  for (const d of descriptors) {
    const lo = d.struct.offset;
    const hi = lo + d.struct.size;
    const hits: number[] = [];
    for (let i = firstRangeAfter(ranges, lo); i < ranges.length && ranges[i]![0] < hi; i++) hits.push(i);
    if (!hits.length) continue;
    fillA?.(x.data.byteOffset + lo, x.data.byteOffset + Math.min(hi, x.data.length));
    fillB?.(y.data.byteOffset + lo, y.data.byteOffset + Math.min(hi, y.data.length));
    const fa = leaves(decodeStruct(d.struct.spec, x.data, lo, x.name).fields);
    const fb = leaves(decodeStruct(d.struct.spec, y.data, lo, y.name).fields);
    for (let k = 0; k < fa.length; k++) {
      const la = fa[k]!;
      const lb = fb[k]!;
      const va = formatScalar(la.field);
      const vb = formatScalar(lb.field);
      if (va === vb) continue;
      s.add({
        path: `${d.path}.${la.path}`,
        a: va,
        b: vb,
        descriptor: { task: d.task, slot: d.slot, engine: d.engine, struct: d.struct.struct, role: d.role, field: la.path },
      });
    }
    // a range is explained when it lies inside descriptors entirely
    for (const i of hits) if (ranges[i]![0] >= lo && ranges[i]![1] <= hi) covered[i] = true;
  }
  const raw = ranges.filter((_, i) => !covered[i]);
  raw.slice(0, MAX_RANGES).forEach(([a, b]) => {
    s.add({ path: `${path}.data[${a}..${b}]`, a: hex(x.data.subarray(a, b)), b: hex(y.data.subarray(a, b)) });
  });
  if (raw.length + more > MAX_RANGES) {
    s.add({ path: `${path}.data`, a: `${raw.length + more - MAX_RANGES} more differing ranges`, b: `${bytes} differing bytes in all` });
  }
}

/** For loadables whose bytes are not all in memory (the command line's, read with `fill`). */
export interface DiffOptions {
  /** the `fill` each loadable was read with: blob bytes are filled before they are read here */
  fillA?: FillBytes;
  fillB?: FillBytes;
  /**
   * Whether two equally long views, of A's and of B's blob data, hold the same bytes, answered
   * without reading them through the views (the command line compares the files' bytes in small
   * pieces): blob data are then compared window by window and only the differing windows are
   * filled and searched. Absent: the bytes in memory are compared.
   */
  sameBytes?: (x: Uint8Array, y: Uint8Array) => boolean;
}

/**
 * Compares two loadables. `decodedA` / `decodedB` may be passed when the caller already
 * decoded them (with the same `fill`s as in `options`).
 */
export function diffLoadables(a: Loadable, b: Loadable, decodedA?: DecodedLoadable, decodedB?: DecodedLoadable, options: DiffOptions = {}): LoadableDiff {
  const da = decodedA ?? decodeTasks(a, options.fillA);
  const db = decodedB ?? decodeTasks(b, options.fillB);
  const sections: SectionDiff[] = [];

  const damage = new Section('readability');
  for (const [side, d] of [['A', da], ['B', db]] as const) {
    for (const x of d.damage) damage.add({ path: `${side}: ${x.path || '(file)'}`, a: side === 'A' ? `${x.kind}: ${x.message}` : null, b: side === 'B' ? `${x.kind}: ${x.message}` : null });
  }
  sections.push(damage.done());

  const version = new Section('version');
  compareFields(version, 'version', a.version, b.version, ['major', 'minor', 'sub_minor']);
  sections.push(version.done());

  sections.push(compareList('task_list', a.task_list, b.task_list, ['id', 'interface', 'instance', 'address_list', 'pre_actions', 'post_actions']));
  sections.push(compareList('submit_list', a.submit_list, b.submit_list, ['id', 'task_id']));
  sections.push(compareList('event_list', a.event_list, b.event_list, ['id', 'op', 'target', 'val']));
  sections.push(
    compareList('memory_list', a.memory_list, b.memory_list, ['id', 'domain', 'flags', 'size', 'alignment', 'bind_id', 'tensor_desc_id'], (s, path, x, y) => {
      const mx = contentMap(x.contents, x.offsets);
      const my = contentMap(y.contents, y.offsets);
      for (const [name, offs] of mx) {
        const o = my.get(name);
        if (!o) s.add({ path: `${path}.contents[${JSON.stringify(name)}]`, a: `at ${offs.join(', ')}`, b: null });
        else if (o.join() !== offs.join()) s.add({ path: `${path}.contents[${JSON.stringify(name)}]`, a: `at ${offs.join(', ')}`, b: `at ${o.join(', ')}` });
      }
      for (const [name, offs] of my) if (!mx.has(name)) s.add({ path: `${path}.contents[${JSON.stringify(name)}]`, a: null, b: `at ${offs.join(', ')}` });
    }),
  );
  sections.push(compareList('address_list', a.address_list, b.address_list, ['id', 'mem_id', 'offset', 'size']));
  sections.push(
    compareList('tensor_desc_list', a.tensor_desc_list, b.tensor_desc_list, [
      'name', 'id', 'mem_id', 'size', 'offset', 'data_format', 'data_type', 'data_category', 'pixel_format', 'pixel_mapping',
      'n', 'c', 'h', 'w', 'stride_0', 'stride_1', 'stride_2', 'stride_3', 'stride_4', 'stride_5', 'stride_6', 'stride_7',
    ]),
  );
  sections.push(compareList('reloc_list', a.reloc_list, b.reloc_list, ['address_id', 'write_id', 'offset', 'interface', 'sub_interface', 'reloc_type']));

  const blobs = new Section('blobs');
  const byName = (l: Loadable) => new Map(l.blobs.map((x) => [x.name, x]));
  const ba = byName(a);
  const bb = byName(b);
  if (ba.size !== a.blobs.length || bb.size !== b.blobs.length) {
    blobs.add({ path: 'blobs', a: `${a.blobs.length} blobs, ${ba.size} names`, b: `${b.blobs.length} blobs, ${bb.size} names` });
  }
  const descriptors = descriptorsByBlob(da, db);
  for (const [name, x] of ba) {
    const y = bb.get(name);
    const path = `blobs[${JSON.stringify(name)}]`;
    if (!y) {
      blobs.add({ path, a: `${x.data.length} bytes`, b: null });
      continue;
    }
    compareFields(blobs, path, x, y, ['size', 'interface', 'sub_interface']);
    compareFields(blobs, `${path}.version`, x.version, y.version, ['major', 'minor', 'sub_minor']);
    compareBlobData(blobs, x, y, descriptors.get(name) ?? [], options);
  }
  for (const [name, y] of bb) if (!ba.has(name)) blobs.add({ path: `blobs[${JSON.stringify(name)}]`, a: null, b: `${y.data.length} bytes` });
  sections.push(blobs.done());

  return { a: a.file, b: b.file, equivalent: sections.every((s) => s.equal), sections };
}

/** The report as text: one line per section, then its differences. */
export function diffText(d: LoadableDiff): string {
  const out: string[] = [`${d.a} vs ${d.b}: ${d.equivalent ? 'equivalent' : 'DIFFERENT'}`];
  for (const s of d.sections) {
    out.push(`${s.section}: ${s.equal ? 'equal' : `${s.count} difference${s.count === 1 ? '' : 's'}`}`);
    for (const x of s.differences) {
      const what = x.descriptor
        ? ` [task ${x.descriptor.task}${x.descriptor.slot !== null ? ` slot ${x.descriptor.slot} ${x.descriptor.engine}` : ''} ${x.descriptor.struct} ${x.descriptor.field}]`
        : '';
      out.push(`  ${x.path}${what}: ${x.a ?? '(absent)'} -> ${x.b ?? '(absent)'}`);
    }
    if (s.count > s.differences.length) out.push(`  ... ${s.count - s.differences.length} more`);
  }
  return out.join('\n') + '\n';
}
