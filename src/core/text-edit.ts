/**
 * A text edit as editors speak it (1-based lines and UTF-16 columns, end exclusive), and applying
 * one to a string. Plain data: the worker computes edits (`.part` click-to-assign), the UI applies
 * them through Monaco (undo works) or, with no editor mounted, with `applyEdit`.
 */
export interface TextEdit {
  line: number;
  column: number;
  endLine: number;
  endColumn: number;
  text: string;
}

/** `text` with `edit` applied. Line breaks are `\r\n`, `\n` or `\r`. */
export function applyEdit(text: string, edit: TextEdit): string {
  const offsets: number[] = [0];
  const re = /\r\n|\r|\n/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) offsets.push(m.index + m[0].length);
  const at = (line: number, column: number) => (offsets[line - 1] ?? text.length) + column - 1;
  return text.slice(0, at(edit.line, edit.column)) + edit.text + text.slice(at(edit.endLine, edit.endColumn));
}
