/**
 * Codecs of luci-profile's two metadata tables (origins.md section 2):
 *
 *   ONE_source_table: [u32 n] { [u32 id][u32 length][length bytes: name + NUL] } * n
 *   ONE_op_table:     [u32 n] { [u32 op_id][u32 node_num][u32 source_id * node_num] } * n
 *
 * All integers little-endian. Decoders never throw: every check of luci's
 * `CircleImportMetadata.cpp` (short buffer, truncated entry, name without NUL, duplicate id,
 * trailing bytes, entry-count mismatch) becomes an error `Diagnostic` naming the table and the
 * byte offset *within the table buffer*, and the table is then `null` (the model still opens,
 * without these origins). Encoders write entries sorted by id and source ids ascending, as
 * luci's ordered maps do.
 */
import type { Diagnostic } from '../errors';

export const SOURCE_TABLE_NAME = 'ONE_source_table';
export const OP_TABLE_NAME = 'ONE_op_table';

/** origin id -> origin name (without the trailing NUL) */
export type SourceTable = Map<number, string>;
/** operator index -> set of origin ids */
export type OpTable = Map<number, Set<number>>;

export interface Decoded<T> {
  /** null when an error diagnostic was reported */
  table: T | null;
  diagnostics: Diagnostic[];
  /** byte offset of each entry within the table buffer, by id */
  offsets: Map<number, number>;
}

/** Diagnostics name the table and the byte offset within the table's buffer. */
function diag(file: string, source: string, offset: number, message: string, severity: Diagnostic['severity'] = 'error'): Diagnostic {
  return { severity, file, source, offset, message: `${source} byte ${offset}: ${message}` };
}

function u32(bytes: Uint8Array, at: number): number {
  return (bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16) | (bytes[at + 3]! << 24)) >>> 0;
}

const utf8 = new TextDecoder('utf-8');

/**
 * A single-byte decoder: every byte becomes exactly one UTF-16 unit, so a string decoded from the
 * whole table has the same indices as the bytes, and each ASCII name is a cheap substring of it
 * (one decoder call per table instead of one per name). Null where the runtime lacks it.
 */
const singleByte: TextDecoder | null = (() => {
  try {
    return new TextDecoder('latin1');
  } catch {
    return null;
  }
})();

/** UTF-8 name from bytes[from, to); `whole` is the table decoded byte-per-unit, when available. */
function decodeName(bytes: Uint8Array, from: number, to: number, whole: string | null): string {
  for (let i = from; i < to; i++) if (bytes[i]! >= 0x80) return utf8.decode(bytes.subarray(from, to));
  if (whole !== null) return whole.substring(from, to);
  return utf8.decode(bytes.subarray(from, to));
}

export function decodeSourceTable(bytes: Uint8Array, file = 'model'): Decoded<SourceTable> {
  const T = SOURCE_TABLE_NAME;
  const fail = (offset: number, message: string): Decoded<SourceTable> => ({ table: null, diagnostics: [diag(file, T, offset, message)], offsets: new Map() });
  const size = bytes.length;
  if (size < 4) return fail(0, `buffer of ${size} bytes is too short for the entry count (4 bytes)`);
  const count = u32(bytes, 0);
  const table: SourceTable = new Map();
  const offsets = new Map<number, number>();
  const whole = singleByte ? singleByte.decode(bytes) : null;
  let idx = 4;
  let read = 0;
  while (idx < size && read < count) {
    const entry = idx;
    if (idx + 8 > size) return fail(entry, `entry ${read} is truncated: its header (id, length) needs 8 bytes, ${size - idx} left`);
    const id = u32(bytes, idx);
    const length = u32(bytes, idx + 4);
    idx += 8;
    if (length > size - idx) return fail(entry, `entry ${read} (id ${id}) is truncated: name of ${length} bytes, ${size - idx} left`);
    if (length === 0 || bytes[idx + length - 1] !== 0) return fail(idx, `entry ${read} (id ${id}): name not NUL-terminated`);
    if (table.has(id)) return fail(entry, `duplicate id ${id} (entry ${read})`);
    table.set(id, decodeName(bytes, idx, idx + length - 1, whole));
    offsets.set(id, entry);
    idx += length;
    read++;
  }
  if (idx !== size) return fail(idx, `${size - idx} trailing bytes after ${read} entries`);
  if (read !== count) return fail(idx, `entry count mismatch: header says ${count}, ${read} read`);
  return { table, diagnostics: [], offsets };
}

export function decodeOpTable(bytes: Uint8Array, file = 'model'): Decoded<OpTable> {
  const T = OP_TABLE_NAME;
  const fail = (offset: number, message: string): Decoded<OpTable> => ({ table: null, diagnostics: [diag(file, T, offset, message)], offsets: new Map() });
  const size = bytes.length;
  if (size < 4) return fail(0, `buffer of ${size} bytes is too short for the entry count (4 bytes)`);
  const count = u32(bytes, 0);
  const table: OpTable = new Map();
  const offsets = new Map<number, number>();
  const warnings: Diagnostic[] = [];
  let idx = 4;
  let read = 0;
  while (idx < size && read < count) {
    const entry = idx;
    if (idx + 8 > size) return fail(entry, `entry ${read} is truncated: its header (op_id, node_num) needs 8 bytes, ${size - idx} left`);
    const opId = u32(bytes, idx);
    const n = u32(bytes, idx + 4);
    idx += 8;
    if (n > (size - idx) / 4) return fail(entry, `entry ${read} (op ${opId}) is truncated: ${n} source ids need ${n * 4} bytes, ${size - idx} left`);
    if (table.has(opId)) return fail(entry, `duplicate op_id ${opId} (entry ${read})`);
    if (n === 0) warnings.push(diag(file, T, entry, `entry ${read} (op ${opId}) has no source ids`, 'warning'));
    const ids = new Set<number>();
    for (let k = 0; k < n; k++) ids.add(u32(bytes, idx + 4 * k));
    idx += 4 * n;
    table.set(opId, ids);
    offsets.set(opId, entry);
    read++;
  }
  if (idx !== size) return fail(idx, `${size - idx} trailing bytes after ${read} entries`);
  if (read !== count) return fail(idx, `entry count mismatch: header says ${count}, ${read} read`);
  return { table, diagnostics: warnings, offsets };
}

/**
 * `decodeOpTable` for readers that want each entry's source ids as an ascending array without
 * duplicates rather than a Set (partitioning, over every operator of a model: 10,000 Sets were
 * most of its cost). The same checks; warnings are not kept; null on any error.
 */
export function decodeOpTableAscending(bytes: Uint8Array): Map<number, number[]> | null {
  const size = bytes.length;
  if (size < 4) return null;
  const count = u32(bytes, 0);
  const table = new Map<number, number[]>();
  let idx = 4;
  let read = 0;
  while (idx < size && read < count) {
    if (idx + 8 > size) return null;
    const opId = u32(bytes, idx);
    const n = u32(bytes, idx + 4);
    idx += 8;
    if (n > (size - idx) / 4) return null;
    if (table.has(opId)) return null;
    let ids: number[] = new Array<number>(n);
    let ascending = true;
    for (let k = 0; k < n; k++) {
      const id = u32(bytes, idx + 4 * k);
      if (k > 0 && id <= ids[k - 1]!) ascending = false;
      ids[k] = id;
    }
    if (!ascending) ids = [...new Set(ids)].sort((a, b) => a - b);
    idx += 4 * n;
    table.set(opId, ids);
    read++;
  }
  if (idx !== size || read !== count) return null;
  return table;
}

const utf8e = new TextEncoder();

/**
 * The keys of a table ascending. Tables are usually filled in ascending order (then no sort), and
 * a loop rather than a spread of the key iterator: partitioning encodes two small tables for each
 * of thousands of parts, mostly before the code is optimised.
 */
function ascendingKeys(table: ReadonlyMap<number, unknown>): number[] {
  const ids = new Array<number>(table.size);
  let i = 0;
  let sorted = true;
  table.forEach((_, id) => {
    if (i > 0 && id < ids[i - 1]!) sorted = false;
    ids[i++] = id;
  });
  return sorted ? ids : ids.sort((x, y) => x - y);
}

export function encodeSourceTable(table: ReadonlyMap<number, string>): Uint8Array {
  const ids = ascendingKeys(table);
  // ASCII names (the usual case) are copied byte by byte; only others go through TextEncoder:
  // one encoder call per name made a many-part partition spend most of its time here
  const names: (string | Uint8Array)[] = new Array(ids.length);
  let size = 4;
  ids.forEach((id, i) => {
    const name = table.get(id)!;
    const n = isAscii(name) ? name : utf8e.encode(name);
    names[i] = n;
    size += 9 + n.length;
  });
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, ids.length, true);
  let at = 4;
  ids.forEach((id, i) => {
    const name = names[i]!;
    dv.setUint32(at, id, true);
    dv.setUint32(at + 4, name.length + 1, true);
    at += 8;
    if (typeof name === 'string') for (let k = 0; k < name.length; k++) out[at + k] = name.charCodeAt(k);
    else out.set(name, at);
    at += name.length + 1; // NUL already 0
  });
  return out;
}

function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

export function encodeOpTable(table: ReadonlyMap<number, ReadonlySet<number> | readonly number[]>): Uint8Array {
  const ops = ascendingKeys(table);
  const sets = ops.map((op) => ascendingUnique(table.get(op)!));
  const size = 4 + sets.reduce((a, s) => a + 8 + 4 * s.length, 0);
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, ops.length, true);
  let at = 4;
  ops.forEach((op, i) => {
    const ids = sets[i]!;
    dv.setUint32(at, op, true);
    dv.setUint32(at + 4, ids.length, true);
    at += 8;
    for (const id of ids) {
      dv.setUint32(at, id, true);
      at += 4;
    }
  });
  return out;
}

/** The ids ascending and unique; an array that already is (the usual case) is returned as is. */
function ascendingUnique(ids: ReadonlySet<number> | readonly number[]): readonly number[] {
  if (Array.isArray(ids)) {
    let sorted = true;
    for (let i = 1; i < ids.length && sorted; i++) sorted = ids[i - 1]! < ids[i]!;
    if (sorted) return ids as readonly number[];
  }
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * NPU Studio's extra checks of an op table against its source table and graph (origins.md 2.4):
 * warnings only. `opCount` is the operator count of subgraph 0; `offsets` from `decodeOpTable`.
 */
export function checkOpTable(ops: OpTable, offsets: ReadonlyMap<number, number>, sources: SourceTable | null, opCount: number, file = 'model'): Diagnostic[] {
  const out: Diagnostic[] = [];
  for (const [op, ids] of ops) {
    const at = offsets.get(op) ?? 0;
    if (op >= opCount) out.push(diag(file, OP_TABLE_NAME, at, `op_id ${op} is beyond the ${opCount} operators of subgraph 0`, 'warning'));
    if (!sources) continue;
    for (const id of ids) {
      if (!sources.has(id)) out.push(diag(file, OP_TABLE_NAME, at, `op ${op} names origin id ${id}, which ${SOURCE_TABLE_NAME} does not have (shown as #${id})`, 'warning'));
    }
  }
  return out;
}
