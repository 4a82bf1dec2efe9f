/**
 * The origin tables as partitioning uses them: the codecs are core/origin's (one origin model
 * for the whole core); this only adapts their shapes. Partitioning reuses a source model's own
 * tables only when they decode without an error (any doubt -> null, and origins are synthesised
 * from the source operators, as luci's importer does).
 */
import { decodeOpTableAscending, decodeSourceTable as decodeSources, encodeOpTable as encodeOps, encodeSourceTable } from '../origin/tables';

export type SourceTable = Map<number, string>;
/** operator index -> source ids */
export type OpTable = Map<number, number[]>;

export { encodeSourceTable };

/** Entries sorted by op id, source ids ascending and unique inside an entry. */
export function encodeOpTable(table: OpTable): Uint8Array {
  return encodeOps(table);
}

/** Strict decode: null when the table has any error. */
export function decodeSourceTable(bytes: Uint8Array): SourceTable | null {
  const d = decodeSources(bytes);
  return d.table && !d.diagnostics.some((x) => x.severity === 'error') ? d.table : null;
}

/** Strict decode: null when the table has any error; source ids ascending. */
export function decodeOpTable(bytes: Uint8Array): OpTable | null {
  return decodeOpTableAscending(bytes);
}
