/**
 * `.part` text -> `PartitionTable` with validation diagnostics (partitioner.md sections 1.3-1.5).
 *
 * Errors (the table is unusable, `table` is null): key before any section, a broken section
 * header, missing `[partition]`, `backends` or `default`, `default` or an assigned value not
 * among the backends, an unsupported `comply`, NUL characters (binary junk).
 * Warnings (circle-partitioner accepts the file and ignores the cause, and so do we): unknown
 * sections, the section `comply` does not select, a missing `comply` (means `opcode`), repeated
 * keys and sections, lines without `=`, blanks around keys and values, empty or repeated backend
 * names, an `[OPCODE]` key that is no circle operator name, and, given a model, keys that match
 * no operator of it.
 */
import { builtinOperatorName } from '../circle/names';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { readIni, quoteName, type IniDocument, type IniEntry, type IniSection, type PartDiagnostic, MAX_DIAGNOSTICS } from './ini';
import type { PreparedModel } from './prepare';

export type Comply = 'opcode' | 'opname';

export interface PartitionTable {
  /** backend (group) names, case-sensitive, in `backends` order */
  backends: string[];
  defaultBackend: string;
  comply: Comply;
  /** opcode name -> backend (`[OPCODE]`, first value of a repeated key) */
  byOpcode: Map<string, string>;
  /** node name -> backend (`[OPNAME]`) */
  byOpname: Map<string, string>;
}

export interface PartOverrides {
  /** `--backends a,b` */
  backends?: string;
  /** `--default x` */
  default?: string;
}

export interface ParsedPart {
  /** null when there is an error: the UI keeps the last good partition */
  table: PartitionTable | null;
  document: IniDocument;
  /** reader and validation diagnostics, in line order */
  diagnostics: PartDiagnostic[];
}

const OPCODE_NAMES: Set<string> = (() => {
  const s = new Set<string>();
  for (const v of Object.values(BuiltinOperator)) if (typeof v === 'number') s.add(builtinOperatorName(v));
  return s;
})();

/** True when `name` is a circle BuiltinOperator enum name (`ADD`, `INSTANCE_NORM`, ...). */
export function isOpcodeName(name: string): boolean {
  return OPCODE_NAMES.has(name);
}

/** Every circle BuiltinOperator name, sorted (for completion). */
export function allOpcodeNames(): string[] {
  return [...OPCODE_NAMES].sort();
}

export const PARTITION_SECTION = 'partition';
export const OPCODE_SECTION = 'OPCODE';
export const OPNAME_SECTION = 'OPNAME';
/** the key that replaces the default backend inside `[OPCODE]` / `[OPNAME]` */
export const DEFAULT_KEY = '_';

function splitCsv(s: string): string[] {
  return s.split(',');
}

export function parsePart(text: string, file = 'partition.part', options: { overrides?: PartOverrides; model?: PreparedModel } = {}): ParsedPart {
  const document = readIni(text, file);
  const diags: PartDiagnostic[] = document.diagnostics.slice();
  let dropped = document.droppedDiagnostics;
  let errors = document.errorCount;
  const add = (severity: PartDiagnostic['severity'], code: string, message: string, line: number, column: number, endColumn: number) => {
    if (severity === 'error') errors++;
    if (diags.length >= (severity === 'error' ? 2 * MAX_DIAGNOSTICS : MAX_DIAGNOSTICS)) {
      dropped++;
      return;
    }
    diags.push({ severity, code, message, file, line, column, endLine: line, endColumn: Math.max(endColumn, column + 1) });
  };
  const at = (e: IniEntry, part: 'key' | 'value' | 'line') =>
    part === 'key' ? ([e.line, e.keyColumn, e.keyEndColumn] as const) : part === 'value' ? ([e.line, e.valueColumn, e.valueEndColumn] as const) : ([e.line, e.keyColumn, e.valueEndColumn] as const);

  const sections = new Map<string, IniSection>();
  for (const s of document.sections) sections.set(s.name, s);
  for (const s of document.sections) {
    if (s.name !== PARTITION_SECTION && s.name !== OPCODE_SECTION && s.name !== OPNAME_SECTION) {
      add('warning', 'unknown-section', `unknown section [${s.name}]: circle-partitioner ignores it`, s.line, s.column, s.endColumn);
    }
  }

  const part = sections.get(PARTITION_SECTION);
  const entryOf = (sec: IniSection | undefined, key: string): IniEntry | undefined => {
    if (!sec) return undefined;
    for (const e of sec.entries) if (e.effective && e.key === key) return e;
    return undefined;
  };
  const backendsEntry = entryOf(part, 'backends');
  const defaultEntry = entryOf(part, 'default');
  const complyEntry = entryOf(part, 'comply');
  if (!part) add('error', 'missing-partition', "missing [partition] section ('backends' is required)", 1, 1, 2);
  else {
    if (!backendsEntry && options.overrides?.backends === undefined) add('error', 'missing-backends', "'backends' is required in [partition]", part.line, part.column, part.endColumn);
    if (!defaultEntry && options.overrides?.default === undefined) add('error', 'missing-default', "'default' is required in [partition]", part.line, part.column, part.endColumn);
    for (const e of part.entries) {
      if (e.effective && e.key !== 'backends' && e.key !== 'default' && e.key !== 'comply') {
        add('warning', 'unknown-key', `unknown key ${quoteName(e.key)} in [partition] (known: backends, default, comply)`, ...at(e, 'key'));
      }
    }
  }

  // backends
  const backendsText = options.overrides?.backends ?? backendsEntry?.value;
  const split = backendsText === undefined ? [] : splitCsv(backendsText);
  const noBackends = backendsText !== undefined && split.every((b) => b.length === 0);
  const backends = noBackends ? [] : split;
  const backendSet = new Set(backends);
  if (backendsEntry && options.overrides?.backends === undefined) {
    let col = backendsEntry.valueColumn;
    const seen = new Set<string>();
    for (const b of backends) {
      if (b.length === 0) add('warning', 'empty-backend', 'empty backend name in backends', backendsEntry.line, col, col + 1);
      else if (seen.has(b)) add('warning', 'repeated-backend', `backend ${quoteName(b)} listed twice`, backendsEntry.line, col, col + b.length);
      else if (b.trim() !== b) add('warning', 'blank-backend', `backend ${quoteName(b)} has blanks, which are part of its name`, backendsEntry.line, col, col + b.length);
      seen.add(b);
      col += b.length + 1;
    }
  }
  if (noBackends) {
    const [l, c, ec] = backendsEntry ? at(backendsEntry, 'value') : [part?.line ?? 1, 1, 2];
    add('error', 'no-backends', "There is no 'backends' information", l, c, ec);
  }

  // default
  let defaultBackend = options.overrides?.default ?? defaultEntry?.value;
  const defaultWhere = (): readonly [number, number, number] =>
    options.overrides?.default !== undefined || !defaultEntry ? ([part?.line ?? 1, part?.column ?? 1, part?.endColumn ?? 2] as const) : at(defaultEntry, 'value');
  const checkBackend = (value: string, where: readonly [number, number, number], what: string) => {
    if (backendSet.has(value)) return;
    const hint = backendSet.has(value.trim()) ? ' (mind the blanks)' : backends.find((b) => b.toLowerCase() === value.toLowerCase()) ? ' (names are case-sensitive)' : '';
    add('error', 'unknown-backend', `${what} ${quoteName(value)} is not one of 'backends' (${backends.join(',')})${hint}`, ...where);
  };
  if (defaultBackend !== undefined) {
    if (defaultBackend.length === 0) add('error', 'empty-default', "'default' is empty", ...defaultWhere());
    else if (backends.length > 0) checkBackend(defaultBackend, defaultWhere(), options.overrides?.default !== undefined ? "--default" : "'default' backend");
  }

  // comply
  let comply: Comply = 'opcode';
  if (!complyEntry) {
    if (part) add('warning', 'missing-comply', "no 'comply' in [partition]: opcode is used", part.line, part.column, part.endColumn);
  } else if (complyEntry.value === 'opcode' || complyEntry.value === 'opname') {
    comply = complyEntry.value;
  } else {
    add('error', 'unsupported-comply', `Unsupported partition.comply ${quoteName(complyEntry.value)}: use opcode or opname`, ...at(complyEntry, 'value'));
  }

  // [OPCODE] / [OPNAME]
  const byOpcode = new Map<string, string>();
  const byOpname = new Map<string, string>();
  const model = options.model;
  for (const [secName, map] of [
    [OPCODE_SECTION, byOpcode],
    [OPNAME_SECTION, byOpname],
  ] as const) {
    const sec = sections.get(secName);
    if (!sec) continue;
    const active = (comply === 'opcode') === (secName === OPCODE_SECTION);
    if (!active && sec.entries.length > 0) {
      add('warning', 'inactive-section', `[${secName}] is not used: comply=${comply} selects [${comply === 'opcode' ? OPCODE_SECTION : OPNAME_SECTION}]`, sec.line, sec.column, sec.endColumn);
    }
    for (const e of sec.entries) {
      if (!e.effective) continue;
      if (backends.length > 0) checkBackend(e.value, at(e, 'value'), 'backend');
      if (e.key === DEFAULT_KEY) {
        if (active) defaultBackend = e.value;
        continue;
      }
      map.set(e.key, e.value);
      if (secName === OPCODE_SECTION) {
        if (!isOpcodeName(e.key)) {
          const upper = e.key.trim().toUpperCase();
          const hint = isOpcodeName(upper) ? ` (did you mean ${upper}?)` : '';
          add('warning', 'unknown-opcode', `${quoteName(e.key)} is no circle operator name${hint}: it matches nothing`, ...at(e, 'key'));
        } else if (model && !model.opsByOpcode.has(e.key)) {
          add('warning', 'unmatched-key', `no ${e.key} operator in this model: the key matches nothing`, ...at(e, 'key'));
        }
      } else if (model && !model.opsByName.has(e.key)) {
        add('warning', 'unknown-opname', `no node named ${quoteName(e.key)} in this model: the key matches nothing`, ...at(e, 'key'));
      }
    }
  }

  if (dropped > 0) diags.push({ severity: 'info', code: 'more', message: `${dropped} more diagnostics not shown`, file, line: 1, column: 1, endLine: 1, endColumn: 2 });
  diags.sort((a, b) => a.line - b.line || a.column - b.column);
  const hasError = errors > 0;
  const table: PartitionTable | null =
    hasError || defaultBackend === undefined ? null : { backends, defaultBackend, comply, byOpcode, byOpname };
  return { table, document, diagnostics: diags };
}

/** Backend of one operator under a table (luci `group_from_partition`). */
export function backendOfOperator(prepared: PreparedModel, table: PartitionTable, op: number): string {
  const hit = table.comply === 'opcode' ? table.byOpcode.get(prepared.opcodeNames[op]!) : table.byOpname.get(prepared.nodeNames[op]!);
  return hit ?? table.defaultBackend;
}

export interface KeyCapture {
  /** operators the key captures (source operator indices, ascending) */
  operators: number[];
  count: number;
  /** false when the key's section is not the one `comply` selects (the key then has no effect) */
  active: boolean;
  /** for repeated keys: false on the later lines, whose values are ignored */
  effective: boolean;
}

/**
 * How many operators a key of `[OPCODE]` or `[OPNAME]` captures (for hover). For `_`, the
 * operators no other key of the section captures, i.e. those on the default backend.
 */
export function keyCapture(prepared: PreparedModel, section: string, key: string, table?: PartitionTable | null): KeyCapture {
  const active = table ? (table.comply === 'opcode') === (section === OPCODE_SECTION) : true;
  let operators: number[] = [];
  if (key === DEFAULT_KEY) {
    const map = section === OPCODE_SECTION ? table?.byOpcode : table?.byOpname;
    const names = section === OPCODE_SECTION ? prepared.opcodeNames : prepared.nodeNames;
    for (let i = 0; i < prepared.opCount; i++) if (!map || !map.has(names[i]!)) operators.push(i);
  } else if (section === OPCODE_SECTION) {
    operators = (prepared.opsByOpcode.get(key) ?? []).slice();
  } else if (section === OPNAME_SECTION) {
    operators = (prepared.opsByName.get(key) ?? []).slice();
  }
  return { operators, count: operators.length, active, effective: true };
}

/** The entry under a 1-based line/column (for hover), with its section. */
export function entryAt(document: IniDocument, line: number, column: number): { section: IniSection; entry: IniEntry; on: 'key' | 'value' } | null {
  for (const section of document.sections) {
    for (const entry of section.entries) {
      if (entry.line !== line) continue;
      if (column >= entry.keyColumn && column < entry.keyEndColumn) return { section, entry, on: 'key' };
      if (column >= entry.keyEndColumn && column <= entry.valueEndColumn) return { section, entry, on: 'value' };
    }
  }
  return null;
}

/** Hover text for a key: `ADD: 3 operators → acl_cl` (with notes for inactive or repeated keys). */
export function hoverText(prepared: PreparedModel, parsed: ParsedPart, line: number, column: number): string | null {
  const hit = entryAt(parsed.document, line, column);
  if (!hit) return null;
  const { section, entry } = hit;
  if (section.name === PARTITION_SECTION) {
    if (entry.key === 'backends') return `backends: ${entry.value.split(',').map((b) => `'${b}'`).join(', ')}`;
    if (entry.key === 'default') return `default backend: operators no key captures go to '${entry.value}'`;
    if (entry.key === 'comply') return `comply=${entry.value}: keys of [${entry.value === 'opname' ? OPNAME_SECTION : OPCODE_SECTION}] are used`;
    return null;
  }
  if (section.name !== OPCODE_SECTION && section.name !== OPNAME_SECTION) return `section [${section.name}] is ignored by circle-partitioner`;
  const cap = keyCapture(prepared, section.name, entry.key, parsed.table);
  const what = entry.key === DEFAULT_KEY ? `default backend '${entry.value}'` : `${quoteName(entry.key)}`;
  let text = `${what}: ${cap.count} operator${cap.count === 1 ? '' : 's'} → ${entry.value}`;
  if (!entry.effective) text += ' (repeated key: ignored, the first value wins)';
  else if (!cap.active) text += ` (inactive: comply=${parsed.table?.comply ?? 'opcode'})`;
  return text;
}

export interface PartCompletions {
  backends: string[];
  /** opcode names present in the model, with their operator counts, sorted by name */
  opcodes: { name: string; count: number }[];
  /** node names (first output tensor names) in operator order, without repeats */
  nodeNames: string[];
}

export function partCompletions(prepared: PreparedModel, table: PartitionTable | null): PartCompletions {
  const opcodes = [...prepared.opsByOpcode.entries()].map(([name, ops]) => ({ name, count: ops.length })).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const seen = new Set<string>();
  const nodeNames: string[] = [];
  for (const n of prepared.nodeNames) if (n && !seen.has(n)) (seen.add(n), nodeNames.push(n));
  return { backends: table?.backends.slice() ?? [], opcodes, nodeNames };
}
