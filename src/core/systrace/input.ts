/**
 * Systrace input (AOSP `parser/input.py`): find the ftrace text (systrace HTML or plain ftrace),
 * and parse `tracing_mark_write` lines. The two upstream regexes
 *
 *   new: ^\s*([^ ].{1,15})-(\d+)\s+\(\s*([-0-9]+)\) .* (\d+\.\d+): tracing_mark_write: ([BE].*)$
 *   old: ^\s*([^ ].{1,15})-(\d+) .* (\d+\.\d+): tracing_mark_write: ([BE].*)$
 *
 * are implemented by hand with the same backtracking result, in linear time (a regex with `.*`
 * and `\d+` backtracks quadratically on hostile 1 MB lines).
 */
import type { Diagnostic } from '../errors';
import type { TraceFormat } from './model';

export const HEADER_NEW = '#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION';
export const HEADER_OLD = '#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION';

export interface MarkLine {
  /** 1-based line number in the file (every line counts, as upstream's `lineno`) */
  line: number;
  task: string;
  /** the PID column as written: the thread id; upstream keys threads by this text */
  pid: string;
  /** the thread id as a number */
  tid: number;
  /** the process id as upstream reads it: the TGID column, or `B|tgid|` / `E|tgid`, or the thread's last one */
  tgidKey: string;
  /** the process id as a number (-1 when `tgidKey` is not a number) */
  tgid: number;
  /** the timestamp as written, seconds */
  timestamp: string;
  /** exact integer microseconds (rounded to µs when the capture has finer digits) */
  timeUs: number;
  /** the timestamp as Python's float() reads it (seconds) */
  timeS: number;
  /** `B|27005|[NN_LA_PO]...` or `E|27005`: everything after `tracing_mark_write: `, trailing blanks kept */
  mark: string;
  /** the line as read, without its line break */
  text: string;
  /** whether the line ended with a line break (upstream's `failed on line` echo prints it) */
  newline: boolean;
}

/** Where AOSP's parser stops while reading the lines, before it prints anything. */
export interface InputFailure {
  line: number;
  /** `unmatched-line`: an NN/HIDL/B/E line that fits neither layout (AssertionError); `unknown-tgid`:
   * a bare mark in the old layout on a thread never seen before (KeyError); `tgid-from-mark`: a
   * `(-----)` TGID with a mark that does not start with `B|<pid>` or `E|<pid>` (AttributeError) */
  kind: 'unmatched-line' | 'unknown-tgid' | 'tgid-from-mark';
  message: string;
}

export interface SystraceTrace {
  file: string;
  format: TraceFormat;
  /** which header was found: 'new' (with TGID), 'old', or null */
  header: 'new' | 'old' | null;
  /** 1-based line of the header, 0 if none */
  headerLine: number;
  marks: MarkLine[];
  diagnostics: Diagnostic[];
  /** the first line at which AOSP's parser stops while reading (it then prints nothing) */
  failure?: InputFailure;
}

export interface SystraceDetection {
  format: 'systrace';
  variant: 'html' | 'ftrace';
  confidence: number;
}

const WHITESPACE = /\s/;
/** Python's `\s` (str patterns): ASCII whitespace, \x1c-\x1f, and Unicode spaces. */
function isSpace(c: string | undefined): boolean {
  if (c === undefined) return false;
  const code = c.charCodeAt(0);
  if (code === 32 || (code >= 9 && code <= 13) || (code >= 0x1c && code <= 0x1f)) return true;
  return code > 127 && (code === 0x85 || WHITESPACE.test(c));
}
function isDigit(code: number): boolean {
  return code >= 48 && code <= 57;
}

const TMW = ': tracing_mark_write: ';

export interface ParsedLineGroups {
  task: string;
  pid: string;
  tgid: string | null;
  timestamp: string;
  mark: string;
}

/**
 * The tail `.* (\d+\.\d+): tracing_mark_write: ([BE].*)$` from position `from` (where the `.*`
 * starts; a space must precede the timestamp at or after `from`). Greedy `.*`: the rightmost
 * occurrence wins.
 */
function matchTail(s: string, from: number): { timestamp: string; mark: string } | null {
  let k = s.lastIndexOf(TMW);
  while (k >= 0 && k >= from) {
    const after = k + TMW.length;
    const c = s[after];
    if (c === 'B' || c === 'E') {
      // timestamp = the [0-9.] run right before k, preceded by a space at index >= from
      let st = k;
      while (st > 0) {
        const code = s.charCodeAt(st - 1);
        if (isDigit(code) || code === 46) st--;
        else break;
      }
      const sp = st - 1;
      if (sp >= from && s[sp] === ' ') {
        const ts = s.slice(st, k);
        if (/^\d+\.\d+$/.test(ts)) return { timestamp: ts, mark: s.slice(after) };
      }
    }
    if (k === 0) break;
    k = s.lastIndexOf(TMW, k - 1);
  }
  return null;
}

/**
 * Where the task group `([^ ].{1,15})` may end when it starts at `k`: the index after 2..16 code
 * points (Python counts code points, JavaScript strings UTF-16 units), longest first.
 */
function taskEnds(s: string, k: number): number[] {
  const ends: number[] = [];
  let p = k;
  for (let c = 1; c <= 16 && p < s.length; c++) {
    const code = s.charCodeAt(p);
    p += code >= 0xd800 && code <= 0xdbff && p + 1 < s.length ? 2 : 1;
    if (c >= 2) ends.push(p);
  }
  return ends.reverse();
}

/**
 * Start positions `^\s*` leaves for `[^ ]`, in the order the regex tries them: all leading
 * whitespace first, then one character less, ...; a space cannot start the task.
 */
function taskStarts(s: string): number[] {
  let lead = 0;
  while (lead < s.length && isSpace(s[lead])) lead++;
  const out: number[] = [];
  for (let k = lead; k >= 0; k--) if (k < s.length && s[k] !== ' ') out.push(k);
  return out;
}

/** The new-format regex (with the TGID column) on a line without its line break. */
export function matchNewFormat(s: string): ParsedLineGroups | null {
  if (s.length < 3) return null;
  for (const k of taskStarts(s)) {
    for (const len of taskEnds(s, k)) {
      if (s[len] !== '-') continue;
      let p = len + 1;
      const d0 = p;
      while (p < s.length && isDigit(s.charCodeAt(p))) p++;
      if (p === d0) continue;
      const pid = s.slice(d0, p);
      const w0 = p;
      while (p < s.length && isSpace(s[p])) p++;
      if (p === w0 || s[p] !== '(') continue;
      p++;
      while (p < s.length && isSpace(s[p])) p++;
      const t0 = p;
      while (p < s.length && (isDigit(s.charCodeAt(p)) || s[p] === '-')) p++;
      if (p === t0 || s[p] !== ')' || s[p + 1] !== ' ') continue;
      const tgid = s.slice(t0, p);
      const tail = matchTail(s, p + 2);
      if (!tail) continue;
      return { task: s.slice(k, len), pid, tgid, timestamp: tail.timestamp, mark: tail.mark };
    }
  }
  return null;
}

/** The old-format regex (no TGID column) on a line without its line break. */
export function matchOldFormat(s: string): ParsedLineGroups | null {
  if (s.length < 3) return null;
  for (const k of taskStarts(s)) {
    for (const len of taskEnds(s, k)) {
      if (s[len] !== '-') continue;
      let p = len + 1;
      const d0 = p;
      while (p < s.length && isDigit(s.charCodeAt(p))) p++;
      if (p === d0 || s[p] !== ' ') continue;
      const tail = matchTail(s, p + 1);
      if (!tail) continue;
      return { task: s.slice(k, len), pid: s.slice(d0, p), tgid: null, timestamp: tail.timestamp, mark: tail.mark };
    }
  }
  return null;
}

/** Python's str.strip() for the characters that occur in practice. */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && isSpace(s[a])) a++;
  while (b > a && isSpace(s[b - 1])) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/** "1034718.303435" -> 1034718303435 µs, exactly (digits beyond µs are rounded half up). */
export function timestampToUs(ts: string): number {
  const dot = ts.indexOf('.');
  const intPart = dot < 0 ? ts : ts.slice(0, dot);
  let frac = dot < 0 ? '' : ts.slice(dot + 1);
  let roundUp = false;
  if (frac.length > 6) {
    roundUp = frac.charCodeAt(6) >= 53;
    frac = frac.slice(0, 6);
  }
  const us = Number(intPart) * 1e6 + Number(frac.padEnd(6, '0'));
  return roundUp ? us + 1 : us;
}

/** `([BE])\|(\d+)` at the start of the mark: the pid a `(-----)` line takes. */
function tgidFromMark(mark: string): string | null {
  const m = /^[BE]\|(\d+)/.exec(mark);
  return m ? m[1]! : null;
}

/** Whether `pattern` (ASCII) occurs in `input` at or after `from` (minus an overlap of the pattern's length). */
function includesAfter(input: Uint8Array | string, pattern: string, from: number): boolean {
  const start = Math.max(0, from - pattern.length);
  if (typeof input === 'string') return input.indexOf(pattern, start) >= 0;
  const first = pattern.charCodeAt(0);
  for (let i = input.indexOf(first, start); i >= 0 && i + pattern.length <= input.length; i = input.indexOf(first, i + 1)) {
    let k = 1;
    while (k < pattern.length && input[i + k] === pattern.charCodeAt(k)) k++;
    if (k === pattern.length) return true;
  }
  return false;
}

/** Whether the text looks like a systrace capture. */
export function detect(input: Uint8Array | string, name = ''): SystraceDetection | null {
  let head: string;
  if (typeof input === 'string') head = input.slice(0, 1 << 20);
  else {
    const n = Math.min(input.length, 1 << 20);
    let s = '';
    for (let i = 0; i < n; i += 8192) s += String.fromCharCode(...input.subarray(i, Math.min(n, i + 8192)));
    head = s;
  }
  const html = /<script class="trace-data"/.test(head) || /<!DOCTYPE html>/i.test(head.slice(0, 1024));
  // systrace writes the Catapult viewer (megabytes of JavaScript) before the trace data, so an
  // HTML file is searched to its end for the header; other files only in their first megabyte
  const hasHeader =
    head.includes(HEADER_NEW) ||
    head.includes(HEADER_OLD) ||
    (html && input.length > head.length && (includesAfter(input, HEADER_NEW, head.length) || includesAfter(input, HEADER_OLD, head.length)));
  if (hasHeader) return { format: 'systrace', variant: html ? 'html' : 'ftrace', confidence: 1 };
  if (html && head.includes('tracing_mark_write')) return { format: 'systrace', variant: 'html', confidence: 0.8 };
  if (/\.(trace|systrace|ftrace)(\.txt)?$/i.test(name) || /systrace.*\.html?$/i.test(name)) {
    return { format: 'systrace', variant: name.toLowerCase().endsWith('html') ? 'html' : 'ftrace', confidence: 0.3 };
  }
  return null;
}

/** Python's universal newlines: `\r\n` and a lone `\r` end a line like `\n`. */
function universalNewlines(text: string): string {
  return text.includes('\r') ? text.replace(/\r\n?/g, '\n') : text;
}

function numericId(text: string): number {
  return /^\d+$/.test(text) ? Number(text) : -1;
}

/**
 * Read a systrace capture: the lines from the first FTRACE header up to a line containing
 * `</script>` (upstream `get_trace_part`), each `tracing_mark_write: B|E` line parsed as
 * `parse_trace_part` does. Lines are those of Python's text mode (universal newlines). Where
 * upstream stops while reading (see InputFailure) the first such line is kept in `failure` and
 * reading goes on as well as it can, for the Profile view.
 */
export function read(textIn: string, file: string): SystraceTrace {
  const diagnostics: Diagnostic[] = [];
  const marks: MarkLine[] = [];
  let header: 'new' | 'old' | null = null;
  let headerLine = 0;
  /** upstream's `pid_to_tgid`: the last TGID text seen on each thread */
  const pidToTgid = new Map<string, string>();
  const format: TraceFormat = /<html|<script class="trace-data"|<!DOCTYPE/i.test(textIn.slice(0, 65536)) ? 'html' : 'ftrace';
  let unmatchedReported = 0;
  let sawScriptEnd = false;
  let failure: InputFailure | undefined;
  const fail = (f: InputFailure): void => {
    diagnostics.push({ severity: 'error', file, line: f.line, message: f.message, source: f.kind });
    if (!failure) failure = f;
  };

  if (textIn.length === 0 || /^\s*$/.test(textIn)) {
    diagnostics.push({ severity: 'error', file, message: 'the file is empty' });
    return { file, format: 'unknown', header, headerLine, marks, diagnostics };
  }
  const text = universalNewlines(textIn);

  let pos = 0;
  let n = 0;
  // jump to the line holding the header (the viewer code before it can be megabytes)
  const iNew = text.indexOf(HEADER_NEW);
  const iOld = text.indexOf(HEADER_OLD);
  const iHdr = iNew < 0 ? iOld : iOld < 0 ? iNew : Math.min(iNew, iOld);
  if (iHdr > 0) {
    pos = text.lastIndexOf('\n', iHdr) + 1;
    for (let i = text.indexOf('\n'); i >= 0 && i < pos; i = text.indexOf('\n', i + 1)) n++;
  } else if (iHdr < 0) {
    pos = text.length;
  }
  while (pos < text.length) {
    let end = text.indexOf('\n', pos);
    const newline = end >= 0;
    if (end < 0) end = text.length;
    const raw = text.slice(pos, end);
    n++;
    pos = end + 1;
    if (header === null) {
      if (raw.includes(HEADER_NEW)) {
        header = 'new';
        headerLine = n;
      } else if (raw.includes(HEADER_OLD)) {
        header = 'old';
        headerLine = n;
      }
      if (header === null) continue;
    }
    if (raw.includes('</script>')) {
      sawScriptEnd = true;
      break;
    }
    if (!raw.includes('tracing_mark_write') && !raw.includes('[NN_') && !raw.includes('HIDL::IDevice')) continue;
    const g = matchNewFormat(raw) ?? matchOldFormat(raw);
    if (!g) {
      if (raw.includes('HIDL::IDevice') || raw.includes('[NN_') || raw.includes('tracing_mark_write: B') || raw.includes('tracing_mark_write: E')) {
        if (unmatchedReported < 20) {
          fail({
            line: n,
            kind: 'unmatched-line',
            message: `a trace mark line does not have the systrace layout (TASK-PID (TGID) [CPU] FLAGS TIMESTAMP: tracing_mark_write: ...; the task name has 2 to 16 characters): ${pyStrip(raw).slice(0, 200)}`,
          });
        }
        unmatchedReported++;
      }
      continue;
    }
    let tgidKey: string;
    if (g.tgid !== null) tgidKey = g.tgid;
    else if (g.mark.includes('|')) tgidKey = g.mark.split('|')[1]!;
    else {
      const known = pidToTgid.get(g.pid);
      if (known === undefined) {
        fail({
          line: n,
          kind: 'unknown-tgid',
          message: `the mark "${g.mark.slice(0, 40)}" names no process and thread ${g.pid} has written none before (a capture without the TGID column needs B|<pid>|...)`,
        });
        tgidKey = g.pid;
      } else tgidKey = known;
    }
    pidToTgid.set(g.pid, tgidKey);
    if (tgidKey === '-----') {
      const fromMark = tgidFromMark(g.mark);
      if (fromMark === null) {
        fail({
          line: n,
          kind: 'tgid-from-mark',
          message: `the TGID column is "-----" and the mark "${g.mark.slice(0, 40)}" does not start with B|<pid> or E|<pid>, so the line names no process`,
        });
        tgidKey = g.pid;
      } else tgidKey = fromMark;
    }
    marks.push({
      line: n,
      task: g.task,
      pid: g.pid,
      tid: Number(g.pid),
      tgidKey,
      tgid: numericId(tgidKey),
      timestamp: g.timestamp,
      timeUs: timestampToUs(g.timestamp),
      timeS: Number(g.timestamp),
      mark: g.mark,
      text: raw,
      newline,
    });
  }
  if (unmatchedReported > 20) {
    diagnostics.push({ severity: 'error', file, message: `${unmatchedReported - 20} more trace mark lines without the systrace layout` });
  }
  if (header === null) {
    diagnostics.push({
      severity: 'error',
      file,
      line: 1,
      message: 'no ftrace text found: the file has no "TASK-PID ... TIMESTAMP  FUNCTION" header (is it a systrace capture?)',
    });
  } else if (format === 'html' && !sawScriptEnd) {
    diagnostics.push({ severity: 'warning', file, message: 'the trace-data block is not closed by </script> (truncated HTML?); read to the end of the file' });
  } else if (format === 'ftrace' && !text.endsWith('\n')) {
    // upstream reads such a file without a word; a cut-off capture explains missing end marks
    const lastLine = text.slice(text.lastIndexOf('\n') + 1);
    diagnostics.push({
      severity: 'info',
      file,
      line: n,
      message: `the file ends in the middle of a line (truncated capture?): ${lastLine.trim().slice(0, 120)}`,
    });
  }
  return { file, format: header === null ? 'unknown' : format, header, headerLine, marks, diagnostics, ...(failure ? { failure } : {}) };
}
