/**
 * `.part` INI reader with positions (partitioner.md section 1.2, crew `PConfigIni.cpp`).
 *
 * Upstream rules kept exactly:
 * - the text is split on `\r` and `\n` (strtok-style: CRLF works, empty lines vanish);
 * - a line whose first character is `[` is a section header, the name runs to the first `]`;
 * - a line whose first character is `#` or `;` is a comment; a mid-line `;` is not;
 * - any other line is split at the first `=`; nothing is trimmed;
 * - in keys, a `;` preceded by backslashes loses those backslashes (`\;` -> `;`); values verbatim;
 * - a repeated key keeps its first value (`items.emplace`), a key before any section is an error.
 *
 * Our additions, each a diagnostic with line and column (never an exception): a byte-order mark
 * (ignored; upstream would reject the file), a line without `=`, a header without `]`, a repeated
 * section (merged into the first), keys and values with leading/trailing blanks, NUL characters.
 *
 * Everything is linear in the text length; diagnostics are capped so junk cannot flood the UI.
 */
import type { Diagnostic } from '../errors';

/** A diagnostic with a range, for editor markers (1-based lines, 1-based UTF-16 columns). */
export interface PartDiagnostic extends Diagnostic {
  line: number;
  column: number;
  endLine: number;
  /** exclusive */
  endColumn: number;
  /** stable identifier of the rule, e.g. `duplicate-key` */
  code: string;
}

export interface IniEntry {
  /** key after `\;` unescaping */
  key: string;
  /** key text as written */
  rawKey: string;
  value: string;
  line: number;
  /** 1-based column of the key's first character */
  keyColumn: number;
  /** exclusive end column of the key (the `=`) */
  keyEndColumn: number;
  valueColumn: number;
  valueEndColumn: number;
  /** false when an earlier entry of the same section has the same key (the first value wins) */
  effective: boolean;
}

export interface IniSection {
  name: string;
  /** line and columns of the first header of this name */
  line: number;
  column: number;
  endColumn: number;
  /** every key line in text order, repeated keys included (see `IniEntry.effective`) */
  entries: IniEntry[];
}

export interface IniDocument {
  sections: IniSection[];
  diagnostics: PartDiagnostic[];
  /** diagnostics dropped past the cap */
  droppedDiagnostics: number;
  /** errors found, dropped ones included */
  errorCount: number;
}

export const MAX_DIAGNOSTICS = 200;

/** `\;` -> `;`, removing the whole run of backslashes before each `;` as crew's loop does. */
export function unescapeKey(raw: string): string {
  if (raw.indexOf('\\;') < 0) return raw;
  let out = '';
  let run = 0; // pending backslashes
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (c === '\\') {
      run++;
      continue;
    }
    if (c !== ';' && run > 0) out += '\\'.repeat(run);
    run = 0;
    out += c;
  }
  if (run > 0) out += '\\'.repeat(run);
  return out;
}

/** `;` -> `\;` (crew `insert_escape`) for writing keys. */
export function escapeKey(key: string): string {
  return key.split(';').join('\\;');
}

/**
 * Why `key` cannot be written as a `.part` key that reads back as itself (null: `escapeKey(key)`
 * does). The reader splits at the first `=`, takes a line starting with `[` for a section and one
 * starting with `#` for a comment, breaks lines at CR and LF, and drops every backslash before a
 * `;`: none of these has an escape in circle-partitioner's syntax. `;` (anywhere, first included)
 * escapes as `\;`; `]` and blanks are kept as they are (blanks draw a warning, they are part of the key).
 */
export function keyProblem(key: string, defaultKey = '_'): string | null {
  if (key.length === 0) return 'an empty name cannot be a key';
  if (/[\r\n]/.test(key)) return 'it holds a line break, and a .part key is one line';
  if (key.includes('=')) return "it holds '=', where circle-partitioner ends the key, and .part has no escape for '='";
  if (key.includes('\u0000')) return 'it holds a NUL character';
  if (key[0] === '[') return "it starts with '[', which makes the line a section header";
  if (key[0] === '#') return "it starts with '#', which makes the line a comment";
  if (/\\+;/.test(key)) return "it holds a backslash before ';', which circle-partitioner drops when it reads the key";
  if (key === defaultKey) return `'${defaultKey}' is the section's default key, not a name`;
  return null;
}

class DiagnosticSink {
  readonly list: PartDiagnostic[] = [];
  dropped = 0;
  errors = 0;
  constructor(private readonly file: string) {}
  add(severity: PartDiagnostic['severity'], code: string, message: string, line: number, column: number, endColumn: number, endLine = line) {
    if (severity === 'error') this.errors++;
    if (this.list.length >= (severity === 'error' ? 2 * MAX_DIAGNOSTICS : MAX_DIAGNOSTICS)) {
      this.dropped++;
      return;
    }
    this.list.push({ severity, code, message, file: this.file, line, column, endLine, endColumn: Math.max(endColumn, column + 1) });
  }
}

function hasOuterBlank(s: string): boolean {
  if (s.length === 0) return false;
  const a = s.charCodeAt(0);
  const b = s.charCodeAt(s.length - 1);
  return a === 32 || a === 9 || b === 32 || b === 9;
}

/** Shows at most 40 characters of a name in a message. */
export function quoteName(s: string): string {
  const short = s.length > 40 ? `${s.slice(0, 40)}…` : s;
  return `'${short}'`;
}

export function readIni(text: string, file = 'partition.part'): IniDocument {
  const sink = new DiagnosticSink(file);
  const sections: IniSection[] = [];
  const byName = new Map<string, IniSection>();
  const seen = new Map<IniSection, Map<string, IniEntry>>();
  let current: IniSection | null = null;
  let badHeader = false;
  let keyBeforeSection = false;

  let start = 0;
  if (text.charCodeAt(0) === 0xfeff) {
    sink.add('warning', 'bom', 'byte-order mark ignored (circle-partitioner would reject this file)', 1, 1, 2);
    start = 1;
  }
  const nul = text.indexOf('\u0000');
  if (nul >= 0) {
    // position of the first NUL
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < nul; i++) {
      const c = text.charCodeAt(i);
      if (c === 10 || (c === 13 && text.charCodeAt(i + 1) !== 10)) {
        line++;
        lineStart = i + 1;
      }
    }
    sink.add('error', 'binary', 'the text contains NUL characters: is this a binary file?', line, nul - lineStart + 1, nul - lineStart + 2);
  }

  let line = 1;
  let i = start;
  const n = text.length;
  // Columns count from the start of the physical line; the BOM does not occupy a column.
  let lineStart = start;
  while (i <= n) {
    // find the end of this line
    let end = i;
    while (end < n) {
      const c = text.charCodeAt(end);
      if (c === 10 || c === 13) break;
      end++;
    }
    if (end > i) processLine(text.slice(i, end), line, i - lineStart + 1);
    if (end >= n) break;
    // line break: \r\n, \n or \r
    if (text.charCodeAt(end) === 13 && text.charCodeAt(end + 1) === 10) end++;
    line++;
    i = end + 1;
    lineStart = i;
  }

  function processLine(s: string, ln: number, col0: number) {
    const first = s.charCodeAt(0);
    if (first === 91 /* [ */) {
      const close = s.indexOf(']');
      if (close < 0) {
        sink.add('error', 'unclosed-section', 'section header without a closing ]', ln, col0, col0 + s.length);
        current = null;
        badHeader = true;
        return;
      }
      badHeader = false;
      const name = s.slice(1, close);
      if (name.length === 0) {
        sink.add('error', 'empty-section', 'empty section name', ln, col0, col0 + close + 1);
        current = null;
        badHeader = true;
        return;
      }
      if (close + 1 < s.length && s.slice(close + 1).trim().length > 0) {
        sink.add('warning', 'section-trailing', 'text after ] is ignored', ln, col0 + close + 1, col0 + s.length);
      }
      const existing = byName.get(name);
      if (existing) {
        sink.add('warning', 'duplicate-section', `section [${name}] repeated: its keys join the first [${name}] (line ${existing.line}), whose values win`, ln, col0, col0 + close + 1);
        current = existing;
        return;
      }
      const section: IniSection = { name, line: ln, column: col0, endColumn: col0 + close + 1, entries: [] };
      sections.push(section);
      byName.set(name, section);
      seen.set(section, new Map());
      current = section;
      return;
    }
    if (first === 35 /* # */ || first === 59 /* ; */) return;
    if (current === null) {
      if (badHeader || keyBeforeSection) return; // reported once (circle-partitioner stops at the first)
      keyBeforeSection = true;
      sink.add('error', 'key-before-section', 'key before any section (circle-partitioner: Invalid INI file)', ln, col0, col0 + s.length);
      return;
    }
    const eq = s.indexOf('=');
    if (eq < 0) {
      sink.add('warning', 'no-equals', 'line without = is ignored', ln, col0, col0 + s.length);
      return;
    }
    const rawKey = s.slice(0, eq);
    const value = s.slice(eq + 1);
    const key = unescapeKey(rawKey);
    const sec: IniSection = current;
    const keys = seen.get(sec)!;
    const firstEntry = keys.get(key);
    const effective = firstEntry === undefined;
    const entry: IniEntry = {
      key,
      rawKey,
      value,
      line: ln,
      keyColumn: col0,
      keyEndColumn: col0 + eq,
      valueColumn: col0 + eq + 1,
      valueEndColumn: col0 + s.length,
      effective,
    };
    sec.entries.push(entry);
    if (firstEntry) {
      sink.add('warning', 'duplicate-key', `repeated key ${quoteName(key)}: the first value (line ${firstEntry.line}) is used, as circle-partitioner does`, ln, col0, col0 + eq);
    } else {
      keys.set(key, entry);
    }
    if (hasOuterBlank(rawKey)) sink.add('warning', 'blank-key', `key ${quoteName(rawKey)} has leading or trailing blanks, which are part of the key`, ln, col0, col0 + Math.max(eq, 1));
    if (hasOuterBlank(value)) sink.add('warning', 'blank-value', `value ${quoteName(value)} has leading or trailing blanks, which are part of the value`, ln, col0 + eq + 1, col0 + s.length);
  }

  return { sections, diagnostics: sink.list, droppedDiagnostics: sink.dropped, errorCount: sink.errors };
}

/** The first (effective) entry of a key in a section, or undefined. */
export function findEntry(section: IniSection | undefined, key: string): IniEntry | undefined {
  if (!section) return undefined;
  for (const e of section.entries) if (e.effective && e.key === key) return e;
  return undefined;
}
