/**
 * `ONE_source_table` / `ONE_op_table` codecs, as small as partitioning needs (origins.md section 2:
 * u32 little-endian streams; source names carry a terminating NUL counted in `length`).
 *
 * TODO: move to src/core/origin when that folder exists (its owner writes the full codecs with
 * every decoder check of origins.md section 2.4); this copy only encodes, and decodes strictly
 * enough to reuse a source model's own tables (any doubt -> null, and origins are synthesised).
 */

export type SourceTable = Map<number, string>;
/** operator index -> source ids */
export type OpTable = Map<number, number[]>;

const utf8 = new TextEncoder();
const utf8d = new TextDecoder('utf-8', { fatal: false });

/** Entries sorted by id (upstream uses ordered maps). */
export function encodeSourceTable(table: SourceTable): Uint8Array {
  const entries = [...table.entries()].sort((a, b) => a[0] - b[0]);
  const names = entries.map(([, name]) => utf8.encode(name));
  let size = 4;
  for (const b of names) size += 8 + b.length + 1;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, entries.length, true);
  let o = 4;
  entries.forEach(([id], i) => {
    const b = names[i]!;
    dv.setUint32(o, id, true);
    dv.setUint32(o + 4, b.length + 1, true);
    out.set(b, o + 8);
    out[o + 8 + b.length] = 0;
    o += 8 + b.length + 1;
  });
  return out;
}

/** Entries sorted by op id, source ids ascending and unique inside an entry. */
export function encodeOpTable(table: OpTable): Uint8Array {
  const entries = [...table.entries()].sort((a, b) => a[0] - b[0]).map(([op, ids]) => [op, [...new Set(ids)].sort((a, b) => a - b)] as const);
  let size = 4;
  for (const [, ids] of entries) size += 8 + 4 * ids.length;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, entries.length, true);
  let o = 4;
  for (const [op, ids] of entries) {
    dv.setUint32(o, op, true);
    dv.setUint32(o + 4, ids.length, true);
    o += 8;
    for (const id of ids) {
      dv.setUint32(o, id, true);
      o += 4;
    }
  }
  return out;
}

function view(bytes: Uint8Array): DataView {
  return new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Strict decode; null on any inconsistency. */
export function decodeSourceTable(bytes: Uint8Array): SourceTable | null {
  if (bytes.length < 4) return null;
  const dv = view(bytes);
  const count = dv.getUint32(0, true);
  const out: SourceTable = new Map();
  let o = 4;
  for (let i = 0; i < count; i++) {
    if (o + 8 > bytes.length) return null;
    const id = dv.getUint32(o, true);
    const len = dv.getUint32(o + 4, true);
    o += 8;
    if (len < 1 || o + len > bytes.length || bytes[o + len - 1] !== 0 || out.has(id)) return null;
    out.set(id, utf8d.decode(bytes.subarray(o, o + len - 1)));
    o += len;
  }
  return o === bytes.length ? out : null;
}

export function decodeOpTable(bytes: Uint8Array): OpTable | null {
  if (bytes.length < 4) return null;
  const dv = view(bytes);
  const count = dv.getUint32(0, true);
  const out: OpTable = new Map();
  let o = 4;
  for (let i = 0; i < count; i++) {
    if (o + 8 > bytes.length) return null;
    const op = dv.getUint32(o, true);
    const num = dv.getUint32(o + 4, true);
    o += 8;
    if (num > (bytes.length - o) / 4 || out.has(op)) return null;
    const ids: number[] = [];
    for (let k = 0; k < num; k++, o += 4) ids.push(dv.getUint32(o, true));
    out.set(op, ids);
  }
  return o === bytes.length ? out : null;
}
