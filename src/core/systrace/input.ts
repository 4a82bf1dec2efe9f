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
  /** mark lines read but not kept in `marks` (ReadOptions.marks 'nnapi'); absent when all are kept */
  skippedMarks?: number;
}

export interface SystraceDetection {
  format: 'systrace';
  variant: 'html' | 'ftrace';
  confidence: number;
}

const WHITESPACE = /\s/;
/** Python's `\s` (str patterns) at `p` of `s` (false at or past `end`): ASCII whitespace, \x1c-\x1f, and Unicode spaces. */
function spaceAt(s: string, p: number, end: number): boolean {
  if (p >= end) return false;
  const code = s.charCodeAt(p);
  if (code === 32 || (code >= 9 && code <= 13) || (code >= 0x1c && code <= 0x1f)) return true;
  return code > 127 && (code === 0x85 || WHITESPACE.test(s[p]!));
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
 * The groups of the last successful `matchLine` / `matchLineFast`: the task, pid and tgid as
 * strings, the timestamp and the mark as offsets into the line's string (the mark runs to the end
 * of the line). One record reused for every line.
 */
/** scratch of matchLine: where the task may end */
const taskEnds = new Int32Array(16);
const found = { task: '', pid: '', tgid: null as string | null, tsStart: 0, tsEnd: 0, markStart: 0 };

/**
 * The tail `.* (\d+\.\d+): tracing_mark_write: ([BE].*)$` of the line `s[..end)` from `from`
 * (where the `.*` starts; a space must precede the timestamp at or after `from`). Greedy `.*`:
 * the rightmost occurrence wins. Sets found.tsStart/tsEnd/markStart.
 */
function matchTail(s: string, from: number, end: number): boolean {
  if (end - from < TMW.length) return false;
  let k = s.lastIndexOf(TMW, end - TMW.length);
  while (k >= from) {
    const after = k + TMW.length;
    const c = after < end ? s.charCodeAt(after) : -1;
    if (c === 66 /* B */ || c === 69 /* E */) {
      // timestamp = the [0-9.] run right before k, preceded by a space at index >= from; it
      // must be \d+\.\d+: one dot with digits on both sides
      let st = k;
      let dots = 0;
      let dot = -1;
      while (st > from) {
        const code = s.charCodeAt(st - 1);
        if (isDigit(code)) st--;
        else if (code === 46) {
          st--;
          dots++;
          dot = st;
        } else break;
      }
      const sp = st - 1;
      if (sp >= from && s.charCodeAt(sp) === 32 && dots === 1 && dot > st && dot < k - 1) {
        found.tsStart = st;
        found.tsEnd = k;
        found.markStart = after;
        return true;
      }
    }
    if (k === 0) break;
    k = s.lastIndexOf(TMW, k - 1);
  }
  return false;
}

/**
 * The upstream regex on the line `s[start..end)` (without its line break): the new format (with
 * the TGID column) or the old one. The regex's backtracking order is followed: `^\s*` leaves the
 * task its start, all leading whitespace first, then one character less, ... (a space cannot
 * start the task); the task `[^ ].{1,15}` ends after 16 .. 2 code points (Python counts code
 * points, JavaScript strings UTF-16 units), longest first; the first start and end for which the
 * rest matches wins. Sets `found`.
 */
function matchLine(s: string, start: number, end: number, newFormat: boolean): boolean {
  if (end - start < 3) return false;
  let lead = start;
  while (spaceAt(s, lead, end)) lead++;
  for (let k = lead; k >= start; k--) {
    if (k >= end || s.charCodeAt(k) === 32) continue;
    // the ends after 2..16 code points from k, longest first
    let p = k;
    let count = 0;
    for (let c = 1; c <= 16 && p < end; c++) {
      const code = s.charCodeAt(p);
      p += code >= 0xd800 && code <= 0xdbff && p + 1 < end ? 2 : 1;
      if (c >= 2) taskEnds[count++] = p;
    }
    for (let e = count - 1; e >= 0; e--) {
      const len = taskEnds[e]!;
      if (len >= end || s.charCodeAt(len) !== 45 /* - */) continue;
      let q = len + 1;
      const d0 = q;
      while (q < end && isDigit(s.charCodeAt(q))) q++;
      if (q === d0) continue;
      const pidEnd = q;
      let tgidStart = -1;
      let tgidEnd = -1;
      if (newFormat) {
        const w0 = q;
        while (spaceAt(s, q, end)) q++;
        if (q === w0 || q >= end || s.charCodeAt(q) !== 40 /* ( */) continue;
        q++;
        while (spaceAt(s, q, end)) q++;
        const t0 = q;
        while (q < end && (isDigit(s.charCodeAt(q)) || s.charCodeAt(q) === 45)) q++;
        if (q === t0 || q + 1 >= end || s.charCodeAt(q) !== 41 /* ) */ || s.charCodeAt(q + 1) !== 32) continue;
        tgidStart = t0;
        tgidEnd = q;
        q += 2;
      } else {
        if (q >= end || s.charCodeAt(q) !== 32) continue;
        q++;
      }
      if (!matchTail(s, q, end)) continue;
      found.task = s.slice(k, len);
      found.pid = s.slice(len + 1, pidEnd);
      found.tgid = tgidStart < 0 ? null : s.slice(tgidStart, tgidEnd);
      return true;
    }
  }
  return false;
}

function groupsOf(s: string, end: number): ParsedLineGroups {
  return {
    task: found.task,
    pid: found.pid,
    tgid: found.tgid,
    timestamp: s.slice(found.tsStart, found.tsEnd),
    mark: s.slice(found.markStart, end),
  };
}

/** printable ASCII, the only characters `matchLineFast` reads a line's head in */
const PRINTABLE = /^[ -~]*$/;
/**
 * The two regexes' heads up to where `.*` starts, for heads in printable ASCII: there Python's
 * `\s` is the space, `.` any character, `[^ ]` any but the space, `\d` [0-9] (and a character is
 * one code point), so these are upstream's heads written for JavaScript, and they backtrack in the
 * same order as Python's. Each runs in linear time (no two neighbouring quantifiers can take the
 * same character). HEAD_NEW checks that the head is printable ASCII first.
 */
const HEAD_NEW = /^(?=[ -~]*$) *([!-~][ -~]{1,15})-([0-9]+) +\( *([-0-9]+)\) /;
const HEAD_OLD = /^ *([!-~][ -~]{1,15})-([0-9]+) /;
const TIMESTAMP = /^[0-9]+\.[0-9]+$/;

/**
 * `matchLine` (new format, then old) for the lines of an ordinary capture, in a few native
 * searches instead of a character loop (a fresh process would interpret that loop for most of a
 * capture's lines before the JIT compiles it). `first` is the first occurrence of TMW in the line
 * `s[start..end)`. The tail is found first, independently of where the head ends: of the
 * occurrences of ` (\d+\.\d+): tracing_mark_write: [BE]`, the rightmost (the greedy `.*`). A
 * later occurrence also has its space further right (the timestamp between cannot hold a space or
 * a colon), so a head ending at `from` matches together with this tail exactly when its space is
 * at or after `from`, that is when the head fits in the line's text before that space; the first
 * head in the regex's order that fits there is upstream's. Returns 1 (matched: `found` set), 0
 * (neither regex matches the line), or -1 (the head is not printable ASCII: ask `matchLine`).
 * Sets `nextFull` to the first occurrence of TMW after the line (or -1).
 */
function matchLineFast(s: string, start: number, end: number, first: number): number {
  let last = first;
  for (;;) {
    const k = s.indexOf(TMW, last + 1);
    if (k < 0 || k >= end) {
      nextFull = k;
      break;
    }
    last = k;
  }
  let k = last;
  let sp = -1;
  while (k >= first) {
    const c = k + TMW.length < end ? s.charCodeAt(k + TMW.length) : -1;
    if (c === 66 /* B */ || c === 69 /* E */) {
      sp = s.lastIndexOf(' ', k - 1);
      if (sp >= start && TIMESTAMP.test(s.slice(sp + 1, k))) break;
      sp = -1;
    }
    if (k === first) break;
    k = s.lastIndexOf(TMW, k - 1);
  }
  if (sp < 0) return 0;
  const head = s.slice(start, sp);
  let m = HEAD_NEW.exec(head);
  const isNew = m !== null;
  if (!m) {
    if (!PRINTABLE.test(head)) return -1;
    m = HEAD_OLD.exec(head);
    if (!m) return 0;
  }
  found.task = m[1]!;
  found.pid = m[2]!;
  found.tgid = isNew ? m[3]! : null;
  found.tsStart = sp + 1;
  found.tsEnd = k;
  found.markStart = k + TMW.length;
  return 1;
}
/** first occurrence of TMW at or after the line `matchLineFast` looked at last */
let nextFull = -1;

/** The new-format regex (with the TGID column) on a line without its line break. */
export function matchNewFormat(s: string): ParsedLineGroups | null {
  return matchLine(s, 0, s.length, true) ? groupsOf(s, s.length) : null;
}

/** The old-format regex (no TGID column) on a line without its line break. */
export function matchOldFormat(s: string): ParsedLineGroups | null {
  return matchLine(s, 0, s.length, false) ? groupsOf(s, s.length) : null;
}

/**
 * Either regex on a line without its line break, the way `read` matches every line (the native
 * fast path, and `matchLine` where that cannot decide): new format first, then old.
 */
export function matchMarkLine(s: string): ParsedLineGroups | null {
  nextFull = -2;
  const first = s.indexOf(TMW);
  if (first < 0) return null;
  const fast = matchLineFast(s, 0, s.length, first);
  if (fast === 1) return groupsOf(s, s.length);
  if (fast === 0) return null;
  return matchNewFormat(s) ?? matchOldFormat(s);
}

/** Python's str.strip() for the characters that occur in practice. */
export function pyStrip(s: string): string {
  let a = 0;
  let b = s.length;
  while (a < b && spaceAt(s, a, b)) a++;
  while (b > a && spaceAt(s, b - 1, b)) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * "1034718.303435" -> 1034718303435 µs, exactly (digits beyond µs are rounded half up). For a
 * timestamp with six decimals and at most 16 characters (under 10^9 s), Math.round(Number(ts) *
 * 1e6) is the same integer, cheaper: the double nearest to ts, times 1e6, is off the exact count
 * of µs by at most 2^-52 of it (< 0.25 below 10^15 µs), so rounding lands on it.
 */
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
  // every file dropped on the studio is asked here before the formats after systrace (loadables,
  // Caffe): a capture is text, so a NUL byte in the first 4 KiB settles a binary file without
  // decoding its first megabyte (that decode was ~100 ms per loadable opened after a compile)
  if (typeof input !== 'string' && input.subarray(0, 4096).includes(0)) return byName(name);
  const head = typeof input === 'string' ? input.slice(0, 1 << 20) : latin1(input.subarray(0, 1 << 20));
  const html = /<script class="trace-data"/.test(head) || /<!DOCTYPE html>/i.test(head.slice(0, 1024));
  // systrace writes the Catapult viewer (megabytes of JavaScript) before the trace data, so an
  // HTML file is searched to its end for the header; other files only in their first megabyte
  const hasHeader =
    head.includes(HEADER_NEW) ||
    head.includes(HEADER_OLD) ||
    (html && input.length > head.length && (includesAfter(input, HEADER_NEW, head.length) || includesAfter(input, HEADER_OLD, head.length)));
  if (hasHeader) return { format: 'systrace', variant: html ? 'html' : 'ftrace', confidence: 1 };
  if (html && head.includes('tracing_mark_write')) return { format: 'systrace', variant: 'html', confidence: 0.8 };
  return byName(name);
}

/** A file named as a capture is one at low confidence (its reader then says what is wrong with it). */
function byName(name: string): SystraceDetection | null {
  if (/\.(trace|systrace|ftrace)(\.txt)?$/i.test(name) || /systrace.*\.html?$/i.test(name)) {
    return { format: 'systrace', variant: name.toLowerCase().endsWith('html') ? 'html' : 'ftrace', confidence: 0.3 };
  }
  return null;
}

/** one UTF-16 unit per byte (WHATWG's latin1 is windows-1252: the ASCII the headers are made of stays ASCII) */
const singleByte = new TextDecoder('latin1');
const latin1 = (bytes: Uint8Array): string => singleByte.decode(bytes);

/**
 * A whole line that upstream's regexes match, for lines in printable ASCII (where Python's `\s`
 * is the space, `.` any character, `[^ ]` any but the space, `\d` [0-9], a character one code
 * point): the new regex's body (groups 1-5), else the old one's (groups 6-9), each upstream's
 * written for JavaScript, which backtracks in the same order as Python. The line starts after a
 * line break or at the start and ends before one or at the end (not at JavaScript's other line
 * terminators, which upstream's file lines do not split at). Linear time on a line: a head ends
 * after at most 16 characters, and at each space the tail's `\d+\.\d+:` needs the characters
 * up to the next space at most. Printable-ASCII lines it does not match, upstream's regexes do
 * not match either; other lines are left to `matchLine`.
 */
const MARK_LINE = new RegExp(
  '(?<![^\\n])(?:' +
    ' *([!-~][ -~]{1,15})-([0-9]+) +\\( *([-0-9]+)\\) [ -~]* ([0-9]+\\.[0-9]+): tracing_mark_write: ([BE][ -~]*)(?![^\\n])' +
    '|' +
    ' *([!-~][ -~]{1,15})-([0-9]+) [ -~]* ([0-9]+\\.[0-9]+): tracing_mark_write: ([BE][ -~]*)(?![^\\n])' +
    ')',
  'g',
);

/** Whether a capture is a systrace HTML file, from its first 65,536 characters. */
export function isHtmlHead(head: string): boolean {
  return /<html|<script class="trace-data"|<!DOCTYPE/i.test(head);
}

/**
 * Where the text given to `read` starts in its capture when it is not the whole file: a reader
 * that finds the header in the file's bytes (the command line) hands over only the text from the
 * header's line on, with the number of lines before it (counted as upstream counts them: a line
 * ends at `\n`, `\r\n` or a lone `\r`) and the file's form (`isHtmlHead` of its beginning).
 */
export interface TextStart {
  linesBefore: number;
  format: 'html' | 'ftrace';
}

export interface ReadOptions {
  /** `textIn` is the capture from the line of its first header on (see TextStart) */
  start?: TextStart;
  /**
   * Which mark lines `marks` keeps. 'all' (the default): every one, for the Profile view.
   * 'nnapi': those parse_systrace.py's output depends on: every mark of the threads it tracks
   * (a thread with a mark holding `[NN`, or an `HIDL::IDevice` `::server` mark), the marks holding
   * `[NN` or `HIDL::IDevice` on any thread (upstream stops at those of an untracked thread), and
   * the first mark line (where the first run starts); the others are only counted
   * (`skippedMarks`). Every line is still read, with every failure upstream would stop at. An
   * analysis of such a trace prints the same as the whole one's (formatText, formatJson,
   * formatStderr, `fatal`); what differs is what the Profile view shows beyond that: its runs'
   * `lastLine`, the timeline's last time, and the marks of untracked threads (droppedMarks). In
   * omr1, 125 of the 12,200 mark lines are kept.
   */
  marks?: 'all' | 'nnapi';
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
 * reading goes on as well as it can, for the Profile view. With `options.start`, `textIn` is
 * the capture from the line of its first header on (see TextStart); the result is the same as the
 * whole file's.
 */
export function read(textIn: string, file: string, options: ReadOptions = {}): SystraceTrace {
  const start = options.start;
  const diagnostics: Diagnostic[] = [];
  const marks: MarkLine[] = [];
  let header: 'new' | 'old' | null = null;
  let headerLine = 0;
  /** upstream's `pid_to_tgid`: the last TGID text seen on each thread */
  const pidToTgid = new Map<string, string>();
  const format: TraceFormat = start ? start.format : isHtmlHead(textIn.slice(0, 65536)) ? 'html' : 'ftrace';
  let unmatchedReported = 0;
  let sawScriptEnd = false;
  let failure: InputFailure | undefined;
  const fail = (f: InputFailure): void => {
    diagnostics.push({ severity: 'error', file, line: f.line, message: f.message, source: f.kind });
    if (!failure) failure = f;
  };

  if (!start && (textIn.length === 0 || /^\s*$/.test(textIn))) {
    diagnostics.push({ severity: 'error', file, message: 'the file is empty' });
    return { file, format: 'unknown', header, headerLine, marks, diagnostics };
  }
  const text = universalNewlines(textIn);

  let pos = 0;
  let n = start ? start.linesBefore : 0;
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

  /** with marks: 'nnapi', the threads upstream tracks (see trackedThreads), whose marks are all kept */
  const tracked = options.marks === 'nnapi' && iHdr >= 0 ? trackedThreads(text, pos) : null;
  let skipped = 0;
  let firstMarkLine = -1;
  /** a mark line, with its groups: appended to `marks` (or a failure recorded) */
  const addMark = (line: number, task: string, pid: string, tgidColumn: string | null, timestamp: string, mark: string, lineText: string, newline: boolean): void => {
    if (firstMarkLine < 0) firstMarkLine = line;
    let tgidKey: string;
    if (tgidColumn !== null) tgidKey = tgidColumn;
    else if (mark.includes('|')) tgidKey = mark.split('|')[1]!;
    else {
      const known = pidToTgid.get(pid);
      if (known === undefined) {
        fail({
          line,
          kind: 'unknown-tgid',
          message: `the mark "${mark.slice(0, 40)}" names no process and thread ${pid} has written none before (a capture without the TGID column needs B|<pid>|...)`,
        });
        tgidKey = pid;
      } else tgidKey = known;
    }
    if (pidToTgid.get(pid) !== tgidKey) pidToTgid.set(pid, tgidKey);
    if (tgidKey === '-----') {
      const fromMark = tgidFromMark(mark);
      if (fromMark === null) {
        fail({
          line,
          kind: 'tgid-from-mark',
          message: `the TGID column is "-----" and the mark "${mark.slice(0, 40)}" does not start with B|<pid> or E|<pid>, so the line names no process`,
        });
        tgidKey = pid;
      } else tgidKey = fromMark;
    }
    if (tracked !== null && line !== firstMarkLine && !tracked.has(pid) && !mark.includes('[NN') && !mark.includes('HIDL::IDevice')) {
      skipped++;
      return;
    }
    const timeS = Number(timestamp);
    marks.push({
      line,
      task,
      pid,
      tid: Number(pid),
      tgidKey,
      tgid: numericId(tgidKey),
      timestamp,
      timeUs: timestamp.length <= 16 && timestamp.charCodeAt(timestamp.length - 7) === 46 ? Math.round(timeS * 1e6) : timestampToUs(timestamp),
      timeS,
      mark,
      text: lineText,
      newline,
    });
  };

  // Lines that are not cut out one by one: each line's tests find the next occurrence of their
  // pattern in the whole text once and keep it until the line start passes it, so the text is
  // searched (natively) about once per pattern.
  let nextTmw = -2;
  nextFull = -2;
  let nextNn = -2;
  let nextIDevice = -2;
  let nextScriptEnd = -2;
  /** One line, `text[start..end)`, the `n`th: false at the `</script>` that ends the trace. */
  const readLine = (start: number, end: number, newline: boolean): boolean => {
    if (nextScriptEnd !== -1 && nextScriptEnd < start) nextScriptEnd = text.indexOf('</script>', start);
    if (nextScriptEnd >= 0 && nextScriptEnd + 9 <= end) {
      sawScriptEnd = true;
      return false;
    }
    if (nextFull !== -1 && nextFull < start) nextFull = text.indexOf(TMW, start);
    const first = nextFull >= 0 && nextFull < end ? nextFull : -1;
    if (first < 0 && nextTmw !== -1 && nextTmw < start) nextTmw = text.indexOf('tracing_mark_write', start);
    const hasTmw = first >= 0 || (nextTmw >= 0 && nextTmw + 18 <= end);
    if (!hasTmw) {
      if (nextNn !== -1 && nextNn < start) nextNn = text.indexOf('[NN_', start);
      if (nextIDevice !== -1 && nextIDevice < start) nextIDevice = text.indexOf('HIDL::IDevice', start);
      if (!(nextNn >= 0 && nextNn + 4 <= end) && !(nextIDevice >= 0 && nextIDevice + 13 <= end)) return true;
    }
    // (a line without TMW can still contain `tracing_mark_write: B`, and be an unmatched line)
    const fast = first >= 0 ? matchLineFast(text, start, end, first) : 0;
    if (fast === 0 || (fast < 0 && !matchLine(text, start, end, true) && !matchLine(text, start, end, false))) {
      const raw = text.slice(start, end);
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
      return true;
    }
    addMark(n, found.task, found.pid, found.tgid, text.slice(found.tsStart, found.tsEnd), text.slice(found.markStart, end), text.slice(start, end), newline);
    return true;
  };
  /** Whether a line in `text[from..to)` may be anything but a line MARK_LINE skips for good reason. */
  const gapMatters = (from: number, to: number): boolean => {
    if (nextScriptEnd !== -1 && nextScriptEnd < from) nextScriptEnd = text.indexOf('</script>', from);
    if (nextTmw !== -1 && nextTmw < from) nextTmw = text.indexOf('tracing_mark_write', from);
    if (nextNn !== -1 && nextNn < from) nextNn = text.indexOf('[NN_', from);
    if (nextIDevice !== -1 && nextIDevice < from) nextIDevice = text.indexOf('HIDL::IDevice', from);
    return (nextScriptEnd >= 0 && nextScriptEnd < to) || (nextTmw >= 0 && nextTmw < to) || (nextNn >= 0 && nextNn < to) || (nextIDevice >= 0 && nextIDevice < to);
  };

  if (iHdr >= 0) {
    // the header line
    let end = text.indexOf('\n', pos);
    const newline = end >= 0;
    if (end < 0) end = text.length;
    const raw = text.slice(pos, end);
    n++;
    header = raw.includes(HEADER_NEW) ? 'new' : 'old';
    headerLine = n;
    const goOn = readLine(pos, end, newline);
    pos = goOn ? end + 1 : text.length;
  }
  // The mark lines of an ordinary capture are found by MARK_LINE, one native search each; the
  // lines between two of them (none, in most captures) are read one by one where they hold
  // anything that matters.
  MARK_LINE.lastIndex = pos;
  while (pos < text.length) {
    const m = MARK_LINE.exec(text);
    const limit = m ? m.index : text.length;
    if (limit > pos) {
      if (!gapMatters(pos, limit)) {
        for (let i = text.indexOf('\n', pos); i >= 0 && i < limit; i = text.indexOf('\n', i + 1)) n++;
        if (limit === text.length && text.charCodeAt(limit - 1) !== 10) n++;
      } else {
        let stop = false;
        while (pos < limit) {
          let end = text.indexOf('\n', pos);
          const newline = end >= 0;
          if (end < 0) end = text.length;
          n++;
          const start = pos;
          pos = end + 1;
          if (!readLine(start, end, newline)) {
            stop = true;
            break;
          }
        }
        if (stop) break;
      }
      pos = limit;
    }
    if (!m) break;
    const end = limit + m[0].length;
    if (nextScriptEnd !== -1 && nextScriptEnd < limit) nextScriptEnd = text.indexOf('</script>', limit);
    n++;
    if (nextScriptEnd >= 0 && nextScriptEnd + 9 <= end) {
      sawScriptEnd = true;
      break;
    }
    const newline = end < text.length;
    if (m[1] !== undefined) addMark(n, m[1], m[2]!, m[3]!, m[4]!, m[5]!, m[0], newline);
    else addMark(n, m[6]!, m[7]!, null, m[8]!, m[9]!, m[0], newline);
    pos = end + 1;
    MARK_LINE.lastIndex = pos;
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
  return {
    file,
    format: header === null ? 'unknown' : format,
    header,
    headerLine,
    marks,
    diagnostics,
    ...(failure ? { failure } : {}),
    ...(tracked !== null ? { skippedMarks: skipped } : {}),
  };
}

/**
 * The threads (PID column) that upstream's parse_trace_part tracks, found without reading every
 * line: the lines of `text` from `pos` (a line start) up to the first line holding `</script>`
 * that hold `[NN` or `HIDL::IDevice` (a native search; in a capture a few hundred) are matched
 * as `read` matches them, and a thread is tracked when the mark of such a line holds `[NN`, or
 * `HIDL::IDevice` and `::server`.
 */
function trackedThreads(text: string, pos: number): Set<string> {
  const tracked = new Set<string>();
  const close = text.indexOf('</script>', pos);
  const limit = close < 0 ? text.length : text.lastIndexOf('\n', close) + 1;
  const lookAt = (needle: string): void => {
    let lineEnd = -1;
    for (let i = text.indexOf(needle, pos); i >= 0 && i < limit; i = text.indexOf(needle, i + 1)) {
      if (i < lineEnd) continue;
      const lineStart = text.lastIndexOf('\n', i) + 1;
      lineEnd = text.indexOf('\n', i);
      if (lineEnd < 0) lineEnd = text.length;
      const g = matchMarkLine(text.slice(lineStart, lineEnd));
      if (g && (g.mark.includes('[NN') || (g.mark.includes('HIDL::IDevice') && g.mark.includes('::server')))) tracked.add(g.pid);
    }
  };
  lookAt('[NN');
  lookAt('HIDL::IDevice');
  return tracked;
}
