/**
 * The origin model (origins.md sections 1, 3, 4): per operator of a graph the set of origin
 * (source) ids it comes from, and the source table id -> name. One model serves the circle
 * passes, partitioning and the NVDLA compiler.
 *
 * - `originsOf(model)` decodes `ONE_source_table` / `ONE_op_table`, or synthesises origins as
 *   luci's importer does (operator index as id, output tensor name as name) when the file has
 *   none, and says which (`kind`).
 * - `attachOrigins(model, origins)` writes both tables back as luci appends them: new buffers at
 *   the end of `buffers` plus `Metadata{name, buffer}` entries, replacing older entries of the
 *   same names (and their buffers when nothing else uses them).
 */
import type { Diagnostic } from '../errors';
import type { CircleModel, CircleSubGraph } from '../circle/model';
import { referencedBuffers, removeBuffers } from './buffers';
import {
  OP_TABLE_NAME,
  SOURCE_TABLE_NAME,
  checkOpTable,
  decodeOpTable,
  decodeSourceTable,
  encodeOpTable,
  encodeSourceTable,
  type OpTable,
  type SourceTable,
} from './tables';
import { normalize, type OriginSet } from './rules';

export interface Origins {
  /** 'file': read from the model's tables; 'synthesised': made as luci's importer does */
  kind: 'file' | 'synthesised';
  /** subgraph the operator indices refer to (origin tables describe subgraph 0) */
  subgraph: number;
  /** source table: origin id -> name */
  sources: SourceTable;
  /** per operator index: its origin ids, ascending and unique (empty: no origin) */
  ops: OriginSet[];
  /** decoder findings (errors make the origins synthesised; the model still opens) */
  diagnostics: Diagnostic[];
}

/** Name luci gives an operator node: its (first) output tensor's name. */
export function operatorName(sg: CircleSubGraph, op: number): string {
  const o = sg.operators[op];
  const t = o && o.outputs.length ? sg.tensors[o.outputs[0]!] : undefined;
  return t ? t.name : `operator_${op}`;
}

function metadataBytes(model: CircleModel, name: string): { bytes: Uint8Array | null; found: boolean; buffer: number } {
  const md = model.metadata.find((m) => m.name === name);
  if (!md) return { bytes: null, found: false, buffer: -1 };
  const b = model.buffers[md.buffer];
  return { bytes: b && b.data ? b.data : null, found: true, buffer: md.buffer };
}

/** True when the model carries either origin table. */
export function hasOriginTables(model: CircleModel): boolean {
  return model.metadata.some((m) => m.name === SOURCE_TABLE_NAME || m.name === OP_TABLE_NAME);
}

/** Origins synthesised as luci's importer does: operator i -> {i}, source i -> its name. */
export function synthesiseOrigins(model: CircleModel, subgraph = 0, diagnostics: Diagnostic[] = []): Origins {
  const sg = model.subgraphs[subgraph];
  const sources: SourceTable = new Map();
  const ops: OriginSet[] = [];
  if (sg) {
    for (let i = 0; i < sg.operators.length; i++) {
      sources.set(i, operatorName(sg, i));
      ops.push([i]);
    }
  }
  return { kind: 'synthesised', subgraph, sources, ops, diagnostics };
}

/**
 * The origins of a graph's operators. Origin tables describe subgraph 0 only (origins.md 2.4),
 * so other subgraphs always get synthesised origins.
 */
export function originsOf(model: CircleModel, subgraph = 0, file = 'model'): Origins {
  const sg = model.subgraphs[subgraph];
  if (!sg || subgraph !== 0 || !hasOriginTables(model)) return synthesiseOrigins(model, subgraph);
  const diagnostics: Diagnostic[] = [];
  const src = metadataBytes(model, SOURCE_TABLE_NAME);
  const opt = metadataBytes(model, OP_TABLE_NAME);
  let sources: SourceTable | null = null;
  let opTable: OpTable | null = null;
  let failed = false;
  for (const [t, name] of [
    [src, SOURCE_TABLE_NAME],
    [opt, OP_TABLE_NAME],
  ] as const) {
    if (t.found && !t.bytes) {
      diagnostics.push({ severity: 'warning', file, source: name, path: `buffers[${t.buffer}]`, message: `${name}: its buffer holds no inline data; origins synthesised` });
      failed = true;
    }
  }
  if (src.bytes) {
    const d = decodeSourceTable(src.bytes, file);
    diagnostics.push(...d.diagnostics.map((x) => ({ ...x, path: `buffers[${src.buffer}]` })));
    sources = d.table;
    if (!d.table) failed = true;
  }
  if (opt.bytes) {
    const d = decodeOpTable(opt.bytes, file);
    diagnostics.push(...d.diagnostics.map((x) => ({ ...x, path: `buffers[${opt.buffer}]` })));
    opTable = d.table;
    if (!d.table) failed = true;
    else diagnostics.push(...checkOpTable(d.table, d.offsets, sources, sg.operators.length, file).map((x) => ({ ...x, path: `buffers[${opt.buffer}]` })));
  }
  if (failed) return synthesiseOrigins(model, subgraph, diagnostics);
  // luci import rule 6: without a source table, the module's table is { op index -> name }.
  if (!sources) {
    sources = new Map();
    for (let i = 0; i < sg.operators.length; i++) sources.set(i, operatorName(sg, i));
  }
  const ops: OriginSet[] = [];
  const missing: number[] = [];
  for (let i = 0; i < sg.operators.length; i++) {
    const ids = opTable?.get(i);
    if (ids) ops.push(normalize(ids));
    else {
      // luci import rule 3: an operator without an entry gets single_origin(i, name).
      ops.push([i]);
      missing.push(i);
    }
  }
  if (opTable && missing.length) {
    const list = missing.length > 8 ? `${missing.slice(0, 8).join(', ')}, ...` : missing.join(', ');
    diagnostics.push({ severity: 'info', file, source: OP_TABLE_NAME, message: `${OP_TABLE_NAME}: ${missing.length} operator(s) without an entry (${list}) get their own index as origin, as luci's importer does` });
  }
  return { kind: 'file', subgraph, sources, ops, diagnostics };
}

/** Name of an origin id: the source table's, or `#<id>` when the table lacks it. */
export function sourceName(origins: Origins, id: number): string {
  return origins.sources.get(id) ?? `#${id}`;
}

/**
 * The model with `origins` written as `ONE_source_table` + `ONE_op_table` (subgraph 0): old
 * entries of these names are removed (their buffers too when nothing else uses them), and two
 * new buffers plus metadata entries are appended, source table first, as luci's exporter does.
 * Operators with no origin get no op table entry.
 */
export function attachOrigins(model: CircleModel, origins: Origins): CircleModel {
  const oldBuffers = new Set(model.metadata.filter((m) => m.name === SOURCE_TABLE_NAME || m.name === OP_TABLE_NAME).map((m) => m.buffer));
  let m: CircleModel = { ...model, metadata: model.metadata.filter((md) => md.name !== SOURCE_TABLE_NAME && md.name !== OP_TABLE_NAME) };
  const stillUsed = referencedBuffers(m);
  m = removeBuffers(m, new Set([...oldBuffers].filter((b) => b !== 0 && !stillUsed.has(b))));
  const opTable = new Map<number, OriginSet>();
  origins.ops.forEach((ids, i) => {
    if (ids.length) opTable.set(i, ids);
  });
  const at = m.buffers.length;
  return {
    ...m,
    buffers: [...m.buffers, { data: encodeSourceTable(origins.sources), offset: 0, size: 0 }, { data: encodeOpTable(opTable), offset: 0, size: 0 }],
    metadata: [...m.metadata, { name: SOURCE_TABLE_NAME, buffer: at }, { name: OP_TABLE_NAME, buffer: at + 1 }],
  };
}

/** The model without origin tables (ONE's origin-less output; `--no-origins`). */
export function detachOrigins(model: CircleModel): CircleModel {
  const oldBuffers = new Set(model.metadata.filter((m) => m.name === SOURCE_TABLE_NAME || m.name === OP_TABLE_NAME).map((m) => m.buffer));
  if (!oldBuffers.size) return model;
  const m: CircleModel = { ...model, metadata: model.metadata.filter((md) => md.name !== SOURCE_TABLE_NAME && md.name !== OP_TABLE_NAME) };
  const stillUsed = referencedBuffers(m);
  return removeBuffers(m, new Set([...oldBuffers].filter((b) => b !== 0 && !stillUsed.has(b))));
}

export interface OriginsJson {
  synthesised: boolean;
  sources: Record<string, string>;
  ops: Record<string, number[]>;
}

/** `inspect --json --origins`: `{"synthesised", "sources": {"<id>": name}, "ops": {"<op>": [ids]}}` of subgraph 0. */
export function originsJson(model: CircleModel, file = 'model'): OriginsJson {
  const o = originsOf(model, 0, file);
  const sources: Record<string, string> = {};
  for (const id of [...o.sources.keys()].sort((a, b) => a - b)) sources[String(id)] = o.sources.get(id)!;
  const ops: Record<string, number[]> = {};
  o.ops.forEach((ids, i) => {
    if (ids.length) ops[String(i)] = [...ids];
  });
  return { synthesised: o.kind === 'synthesised', sources, ops };
}
