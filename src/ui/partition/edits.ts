/**
 * Text edits that click-to-assign makes in the `.part` editor (applied through Monaco so undo
 * works): set a key's value in a section, adding the key or the section when missing. Keys of
 * `[OPNAME]` are node names, escaped (`;` -> `\;`) as circle-partitioner reads them.
 */
import { escapeKey, readIni } from '../../core/partition/ini';

/** A replacement of a range (1-based lines and columns, end exclusive) by `text`. */
export interface TextEdit {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  text: string;
}

function lineLengths(text: string): number[] {
  return text.split(/\r\n|\r|\n/).map((l) => l.length);
}

function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/**
 * The edit that makes `section`'s `key` (unescaped) map to `value`; null when it already does.
 * `rawKey` is how the key is written (defaults to `escapeKey(key)`).
 */
export function setKeyEdit(text: string, section: string, key: string, value: string, rawKey = escapeKey(key)): TextEdit | null {
  const doc = readIni(text);
  const lens = lineLengths(text);
  const eol = eolOf(text);
  const sec = doc.sections.find((s) => s.name === section);
  if (sec) {
    const entry = sec.entries.find((e) => e.effective && e.key === key);
    if (entry) {
      if (entry.value === value) return null;
      return { line: entry.line, column: entry.valueColumn, endLine: entry.line, endColumn: entry.valueEndColumn, text: value };
    }
    const after = sec.entries.reduce((m, e) => Math.max(m, e.line), sec.line);
    const col = (lens[after - 1] ?? 0) + 1;
    return { line: after, column: col, endLine: after, endColumn: col, text: `${eol}${rawKey}=${value}` };
  }
  // new section at the end, separated by a blank line
  const last = lens.length;
  const col = (lens[last - 1] ?? 0) + 1;
  const lastEmpty = (lens[last - 1] ?? 0) === 0;
  const prevEmpty = last < 2 || (lens[last - 2] ?? 0) === 0;
  const lead = text.length === 0 ? '' : lastEmpty ? (prevEmpty ? '' : eol) : `${eol}${eol}`;
  return { line: last, column: col, endLine: last, endColumn: col, text: `${lead}[${section}]${eol}${rawKey}=${value}${eol}` };
}

/** Applies an edit to a string (for tests and for when no editor is mounted). */
export function applyEdit(text: string, edit: TextEdit): string {
  const offsets: number[] = [0];
  const re = /\r\n|\r|\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) offsets.push(m.index + m[0].length);
  const at = (line: number, column: number) => (offsets[line - 1] ?? text.length) + column - 1;
  return text.slice(0, at(edit.line, edit.column)) + edit.text + text.slice(at(edit.endLine, edit.endColumn));
}

export const NEW_PARTITION = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n';
