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
  /** 1-based line number in the file */
  line: number;
  task: string;
  /** thread id (the ftrace PID column) */
  tid: number;
  /** process id: the TGID column, or taken from `B|tgid|` / the thread's last one */
  tgid: number;
  /** the timestamp as written, seconds */
  timestamp: string;
  /** exact integer microseconds (rounded to µs when the capture has finer digits) */
  timeUs: number;
  /** the timestamp as Python's float() reads it (seconds) */
  timeS: number;
  /** `B|27005|[NN_LA_PO]...` or `E|27005` */
  mark: string;
  /** the stripped line */
  text: string;
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

/** The new-format regex (with the TGID column) on a stripped line. */
export function matchNewFormat(s: string): ParsedLineGroups | null {
  if (s.length < 3 || s[0] === ' ' || isSpace(s[0])) return null;
  for (let len = Math.min(16, s.length - 1); len >= 2; len--) {
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
    return { task: s.slice(0, len), pid, tgid, timestamp: tail.timestamp, mark: tail.mark };
  }
  return null;
}

/** The old-format regex (no TGID column) on a stripped line. */
export function matchOldFormat(s: string): ParsedLineGroups | null {
  if (s.length < 3 || isSpace(s[0])) return null;
  for (let len = Math.min(16, s.length - 1); len >= 2; len--) {
    if (s[len] !== '-') continue;
    let p = len + 1;
    const d0 = p;
    while (p < s.length && isDigit(s.charCodeAt(p))) p++;
    if (p === d0 || s[p] !== ' ') continue;
    const tail = matchTail(s, p + 1);
    if (!tail) continue;
    return { task: s.slice(0, len), pid: s.slice(d0, p), tgid: null, timestamp: tail.timestamp, mark: tail.mark };
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

function tgidFromMark(mark: string): number | null {
  const m = /^[BE]\|(\d+)/.exec(mark);
  return m ? Number(m[1]) : null;
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

/**
 * Read a systrace capture: the lines from the first FTRACE header up to a line containing
 * `</script>` (upstream `get_trace_part`), each `tracing_mark_write: B|E` line parsed.
 */
export function read(text: string, file: string): SystraceTrace {
  const diagnostics: Diagnostic[] = [];
  const marks: MarkLine[] = [];
  let header: 'new' | 'old' | null = null;
  let headerLine = 0;
  const lastTgid = new Map<number, number>();
  const format: TraceFormat = /<html|<script class="trace-data"|<!DOCTYPE/i.test(text.slice(0, 65536)) ? 'html' : 'ftrace';
  let unmatchedReported = 0;
  let sawScriptEnd = false;

  if (text.length === 0 || /^\s*$/.test(text)) {
    diagnostics.push({ severity: 'error', file, message: 'the file is empty' });
    return { file, format: 'unknown', header, headerLine, marks, diagnostics };
  }

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
    pos = text.length + 1;
  }
  while (pos <= text.length) {
    let end = text.indexOf('\n', pos);
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
    const s = pyStrip(raw);
    const g = matchNewFormat(s) ?? matchOldFormat(s);
    if (!g) {
      if (s.includes('HIDL::IDevice') || s.includes('[NN_') || s.includes('tracing_mark_write: B') || s.includes('tracing_mark_write: E')) {
        if (unmatchedReported < 20) {
          diagnostics.push({
            severity: 'warning',
            file,
            line: n,
            message: `a trace mark line does not have the systrace layout and is skipped (upstream stops here with an AssertionError): ${s.slice(0, 200)}`,
          });
        }
        unmatchedReported++;
      }
      continue;
    }
    const tid = Number(g.pid);
    let tgid: number | null = g.tgid !== null && /^\d+$/.test(g.tgid) ? Number(g.tgid) : null;
    if (tgid === null) tgid = tgidFromMark(g.mark);
    if (tgid === null) tgid = lastTgid.get(tid) ?? tid;
    lastTgid.set(tid, tgid);
    marks.push({
      line: n,
      task: g.task,
      tid,
      tgid,
      timestamp: g.timestamp,
      timeUs: timestampToUs(g.timestamp),
      timeS: Number(g.timestamp),
      mark: g.mark,
      text: s,
    });
  }
  if (unmatchedReported > 20) {
    diagnostics.push({ severity: 'warning', file, message: `${unmatchedReported - 20} more trace mark lines without the systrace layout were skipped` });
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
  } else if (format === 'ftrace' && !/\n\s*$/.test(text.slice(-4096))) {
    // upstream reads such a file without a word; a cut-off capture explains missing end marks
    const lastLine = text.slice(text.lastIndexOf('\n') + 1);
    diagnostics.push({
      severity: 'info',
      file,
      line: n,
      message: `the file ends in the middle of a line (truncated capture?): ${lastLine.trim().slice(0, 120)}`,
    });
  }
  return { file, format: header === null ? 'unknown' : format, header, headerLine, marks, diagnostics };
}
