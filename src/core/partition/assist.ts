/**
 * Editor assistance for `.part` text, computed in the worker so the UI thread never parses the
 * text: completion at a position, the `[OPCODE]`/`[OPNAME]` key under the cursor, the edit that
 * click-to-assign makes, and per operator the line that decides its backend (the gutter mark of
 * the selected node). Every function is linear in the text and reads it the way `readIni` does.
 */
import type { TextEdit } from '../text-edit';
import { escapeKey, findEntry, keyProblem, quoteName, readIni, unescapeKey, type IniDocument } from './ini';
import { FormatError } from '../errors';
import { allOpcodeNames, DEFAULT_KEY, OPCODE_SECTION, OPNAME_SECTION, PARTITION_SECTION, type Comply, type ParsedPart } from './table';
import type { PreparedModel } from './prepare';

/** What a completion item is, for the editor's icon. */
export type PartCompletionKind = 'section' | 'key' | 'keyword' | 'enum' | 'backend' | 'opcode' | 'node';

export interface PartCompletionItem {
  label: string;
  insertText: string;
  kind: PartCompletionKind;
  detail?: string;
  sortText?: string;
  filterText?: string;
  /** open the completion again after inserting (a key's `=` is followed by its values) */
  retrigger?: boolean;
}

/** Items and the range of the cursor's line they replace (1-based columns, end exclusive). */
export interface PartCompletionList {
  items: PartCompletionItem[];
  startColumn: number;
  endColumn: number;
}

/** backend names circle-partitioner users write (ONE's backends) */
export const KNOWN_BACKENDS: readonly string[] = ['cpu', 'npu', 'acl_cl', 'acl_neon', 'dsp', 'trix'];

/** The lines of `text` split as `readIni` splits them (`\r\n`, `\n`, `\r`); line 1 is index 0. */
function lineAt(text: string, line: number): { lines: string[]; content: string } {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.length > 0 && lines[0]!.charCodeAt(0) === 0xfeff) lines[0] = lines[0]!.slice(1);
  return { lines, content: lines[line - 1] ?? '' };
}

/** The section a line belongs to (the nearest header above it, the line itself included), or null. */
function sectionAt(lines: readonly string[], line: number): string | null {
  for (let l = Math.min(line, lines.length); l >= 1; l--) {
    const s = lines[l - 1]!;
    if (s.charCodeAt(0) === 91 /* [ */) {
      const close = s.indexOf(']');
      return close > 0 ? s.slice(1, close) : null;
    }
  }
  return null;
}

/** `backends=` of `[partition]` as currently written (empty names dropped). */
export function writtenBackends(document: IniDocument): string[] {
  const entry = findEntry(document.sections.find((s) => s.name === PARTITION_SECTION), 'backends');
  return entry ? entry.value.split(',').filter((b) => b.length > 0) : [];
}

/** The key items of `[OPCODE]` and `[OPNAME]` depend on the model only: made once per prepared model. */
const keyItemsCache = new WeakMap<PreparedModel, { opcode: PartCompletionItem[]; opname: PartCompletionItem[] }>();

function keyItems(prepared: PreparedModel | null): { opcode: PartCompletionItem[]; opname: PartCompletionItem[] } {
  const cached = prepared && keyItemsCache.get(prepared);
  if (cached) return cached;
  const opcode: PartCompletionItem[] = [];
  const present = new Set<string>();
  if (prepared) {
    const counts = [...prepared.opsByOpcode.entries()].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    for (const [name, ops] of counts) {
      present.add(name);
      opcode.push({ label: name, kind: 'opcode', insertText: `${name}=`, detail: `${ops.length} in this model`, sortText: `0${name}`, retrigger: true });
    }
  }
  for (const o of allOpcodeNames()) if (!present.has(o)) opcode.push({ label: o, kind: 'opcode', insertText: `${o}=`, detail: 'not in this model', sortText: `1${o}` });
  const opname: PartCompletionItem[] = [];
  const seen = new Set<string>();
  for (const n of prepared?.nodeNames ?? []) {
    if (!n || seen.has(n)) continue;
    seen.add(n);
    const key = escapeKey(n);
    opname.push({ label: n, kind: 'node', insertText: `${key}=`, filterText: key, detail: key === n ? 'node' : `node (written ${key})`, retrigger: true });
  }
  const items = { opcode, opname };
  if (prepared) keyItemsCache.set(prepared, items);
  return items;
}

/** Completion at a 1-based line and column of `text` (the model gives opcodes and node names). */
export function completionsAt(prepared: PreparedModel | null, text: string, document: IniDocument, line: number, column: number): PartCompletionList {
  const { lines, content } = lineAt(text, line);
  const before = content.slice(0, column - 1);
  const eq = before.indexOf('=');
  const items: PartCompletionItem[] = [];
  if (before.startsWith('[') && eq < 0) {
    const close = content.indexOf(']');
    for (const s of [PARTITION_SECTION, OPCODE_SECTION, OPNAME_SECTION]) items.push({ label: `[${s}]`, filterText: s, kind: 'section', insertText: s });
    return { items, startColumn: 2, endColumn: Math.max(column, close >= 0 ? close + 1 : column) };
  }
  const section = sectionAt(lines, line);
  if (eq >= 0) {
    // a value: after the last comma for backends, the whole value otherwise
    const key = before.slice(0, eq);
    const start = section === PARTITION_SECTION && key === 'backends' ? before.lastIndexOf(',') + 2 : eq + 2;
    const range = { startColumn: Math.max(start, eq + 2), endColumn: column };
    if (section === PARTITION_SECTION && key === 'comply') {
      for (const c of ['opcode', 'opname']) items.push({ label: c, kind: 'enum', insertText: c });
    } else if (section === PARTITION_SECTION && key === 'backends') {
      for (const b of KNOWN_BACKENDS) items.push({ label: b, kind: 'backend', insertText: b, detail: 'backend name' });
    } else {
      for (const b of writtenBackends(document)) items.push({ label: b, kind: 'backend', insertText: b, detail: 'backend' });
    }
    return { items, ...range };
  }
  const range = { startColumn: 1, endColumn: Math.max(column, 1) };
  if (section === PARTITION_SECTION) {
    for (const k of ['backends', 'default', 'comply']) items.push({ label: k, kind: 'key', insertText: `${k}=`, retrigger: true });
    return { items, ...range };
  }
  if (section === OPCODE_SECTION || section === OPNAME_SECTION) {
    const keys = keyItems(prepared);
    const defaultItem: PartCompletionItem = { label: DEFAULT_KEY, kind: 'keyword', insertText: `${DEFAULT_KEY}=`, detail: 'default backend for this section', retrigger: true };
    return { items: [defaultItem, ...(section === OPCODE_SECTION ? keys.opcode : keys.opname)], ...range };
  }
  return { items, ...range };
}

/** The `[OPCODE]`/`[OPNAME]` key written on a line (unescaped), or null. */
export function keyAt(text: string, line: number): { section: string; key: string } | null {
  const { lines, content } = lineAt(text, line);
  if (!content || content[0] === '[' || content[0] === '#' || content[0] === ';') return null;
  const eq = content.indexOf('=');
  if (eq < 0) return null;
  const section = sectionAt(lines, line);
  if (section !== OPCODE_SECTION && section !== OPNAME_SECTION) return null;
  return { section, key: unescapeKey(content.slice(0, eq)) };
}

/**
 * The edit that makes `section`'s `key` (unescaped) map to `value`, adding the key after the
 * section's last key or the section at the end; null when it already does. `rawKey` is how the
 * key is written (`escapeKey(key)` by default: `;` -> `\;`, as circle-partitioner reads keys).
 */
export function assignEdit(text: string, section: string, key: string, value: string, rawKey = escapeKey(key)): TextEdit | null {
  // a name the syntax cannot carry is refused with the reason, never written half-escaped
  const problem = section === OPCODE_SECTION || section === OPNAME_SECTION ? keyProblem(key, DEFAULT_KEY) : null;
  if (problem) {
    const hint = section === OPNAME_SECTION ? '; assign its opcode instead, or rename the operator' : '';
    throw new FormatError({ kind: 'semantic', file: '.part', message: `${section === OPNAME_SECTION ? 'operator name' : 'opcode'} ${quoteName(key)} cannot be a [${section}] key: ${problem}${hint}` });
  }
  const doc = readIni(text);
  const lens = text.split(/\r\n|\r|\n/).map((l) => l.length);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const sec = doc.sections.find((s) => s.name === section);
  if (sec) {
    const entry = findEntry(sec, key);
    if (entry) {
      if (entry.value === value) return null;
      return { line: entry.line, column: entry.valueColumn, endLine: entry.line, endColumn: entry.valueEndColumn, text: value };
    }
    const after = sec.entries.reduce((m, e) => Math.max(m, e.line), sec.line);
    const col = (lens[after - 1] ?? 0) + 1;
    return { line: after, column: col, endLine: after, endColumn: col, text: `${eol}${rawKey}=${value}` };
  }
  // a new section at the end, after a blank line
  const last = lens.length;
  const col = (lens[last - 1] ?? 0) + 1;
  const lastEmpty = (lens[last - 1] ?? 0) === 0;
  const prevEmpty = last < 2 || (lens[last - 2] ?? 0) === 0;
  const lead = text.length === 0 ? '' : lastEmpty ? (prevEmpty ? '' : eol) : `${eol}${eol}`;
  return { line: last, column: col, endLine: last, endColumn: col, text: `${lead}[${section}]${eol}${rawKey}=${value}${eol}` };
}

/** The comply the text selects: the valid table's, else a well-formed `comply=` value, else opcode. */
export function complyOf(parsed: ParsedPart): Comply {
  if (parsed.table) return parsed.table.comply;
  const value = findEntry(parsed.document.sections.find((s) => s.name === PARTITION_SECTION), 'comply')?.value;
  return value === 'opname' ? 'opname' : 'opcode';
}

/**
 * Per source operator, the line that decides its backend: its key in the section `comply`
 * selects, else that section's `_`, else `[partition] default` (0: no such line).
 */
export function decidingLines(prepared: PreparedModel, document: IniDocument, comply: Comply): Int32Array {
  const section = document.sections.find((s) => s.name === (comply === 'opname' ? OPNAME_SECTION : OPCODE_SECTION));
  const lineOf = new Map<string, number>();
  let fallback = 0;
  for (const e of section?.entries ?? []) {
    if (!e.effective) continue;
    if (e.key === DEFAULT_KEY) fallback = e.line;
    else lineOf.set(e.key, e.line);
  }
  if (fallback === 0) fallback = findEntry(document.sections.find((s) => s.name === PARTITION_SECTION), 'default')?.line ?? 0;
  const names = comply === 'opname' ? prepared.nodeNames : prepared.opcodeNames;
  const out = new Int32Array(prepared.opCount);
  for (let i = 0; i < out.length; i++) out[i] = lineOf.get(names[i]!) ?? fallback;
  return out;
}
