/**
 * Reading a systrace capture from a file for `npu-studio systrace`: only the part that
 * parse_systrace.py reads is decoded. systrace writes the Catapult viewer (megabytes of HTML and
 * JavaScript) before the trace, so the header is searched in the file's bytes, through a small
 * buffer that is read again and again (a fresh process pays for every page of memory it touches
 * first: decoding the whole 3.8 MB omr1.html cost more than parsing its trace), the lines before it
 * are counted there, and the text from the header's line on is decoded and handed to core's
 * `read` with that count (`TextStart`). The result is the same as reading the whole file as text
 * (property-tested in systrace-file.test.ts); where that cannot be had cheaply (no header, a `\r`
 * before the header, a file that changes while it is read), the whole file is decoded.
 */
import { isAscii } from 'node:buffer';
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openInput, readInput } from './input-file';
import { HEADER_NEW, HEADER_OLD, isHtmlHead, type TextStart } from '../core/systrace/input';

/** bytes read at a time while looking for the header */
const CHUNK = 1 << 16;
/** `read` decides HTML or plain ftrace on this many characters from the start */
const HEAD_CHARS = 65_536;
const NEW = Buffer.from(HEADER_NEW, 'latin1');
const OLD = Buffer.from(HEADER_OLD, 'latin1');
/** bytes of a chunk kept for the next one, where a header may start and end in the next */
const OVERLAP = Math.max(NEW.length, OLD.length) - 1;
const SCRIPT_END = Buffer.from('</script>', 'latin1');

export interface CaptureText {
  /** the whole file decoded (`start` absent), or the file from the line of its header on */
  text: string;
  start?: TextStart;
}

/**
 * UTF-8 bytes as text, as `new TextDecoder('utf-8')` decodes them (U+FFFD for bad bytes); a BOM
 * is dropped only at the start of the file (`atStart`), as decoding the whole file would.
 */
function decode(bytes: Buffer, atStart: boolean): string {
  // ASCII is its own UTF-8, and latin1 turns bytes into a one-byte string without decoding
  if (isAscii(bytes)) return bytes.toString('latin1');
  return new TextDecoder('utf-8', { ignoreBOM: !atStart }).decode(bytes);
}

/** The first HEAD_CHARS characters of the decoded file (`buf`: scratch of at least HEAD_CHARS bytes). */
function headOf(fd: number, size: number, buf: Buffer): string {
  const got = readSync(fd, buf, 0, Math.min(size, HEAD_CHARS), 0);
  const head = buf.subarray(0, got);
  if (isAscii(head)) return head.toString('latin1');
  // a character takes at most 4 bytes, and a bad byte becomes one: 4 x HEAD_CHARS bytes are plenty
  const more = Buffer.allocUnsafe(Math.min(size, 4 * HEAD_CHARS));
  const n = readSync(fd, more, 0, more.length, 0);
  return new TextDecoder('utf-8').decode(more.subarray(0, n)).slice(0, HEAD_CHARS);
}

function whole(path: string): CaptureText {
  return { text: new TextDecoder('utf-8').decode(readInput(path)) };
}

/**
 * A capture file's text for `read(text, file, { start })`. With `countLines` false the lines
 * before the header are not counted (`start.linesBefore` is 0, so line numbers count from the
 * header's line): where line numbers are not shown, that saves a pass over the bytes before the
 * header (35,000 lines in omr1.html, 15-40 ms in a fresh process here).
 */
export function readCaptureText(path: string, countLines = true): CaptureText {
  const fd = openInput(path);
  try {
    const size = fstatSync(fd).size;
    const buf = Buffer.allocUnsafeSlow(CHUNK + OVERLAP);
    /** file offset of buf[0]; buf[0..kept) are the last bytes of the previous chunk, already looked at */
    let base = 0;
    let kept = 0;
    let lines = 0;
    /** file offset just after the last \n before the header (so far) */
    let lineStart = 0;
    let header = -1;
    while (base + kept < size) {
      const got = readSync(fd, buf, kept, CHUNK, base + kept);
      if (got <= 0) break;
      const end = kept + got;
      const bytes = buf.subarray(0, end);
      const iNew = bytes.indexOf(NEW);
      const iOld = bytes.indexOf(OLD);
      const at = iNew < 0 ? iOld : iOld < 0 ? iNew : Math.min(iNew, iOld);
      const stop = at < 0 ? end : at;
      // a \r before the header changes the line count (upstream's universal newlines): read it all
      const cr = bytes.indexOf(13, kept);
      if (cr >= 0 && cr < stop) return whole(path);
      // the new bytes' lines, up to the header if it is here (a header that starts in the kept
      // tail ends in the new bytes, so the tail holds no \n after its start)
      if (countLines) {
        for (let i = bytes.indexOf(10, kept); i >= 0 && i < stop; i = bytes.indexOf(10, i + 1)) lines++;
      }
      const eol = stop > 0 ? bytes.lastIndexOf(10, stop - 1) : -1;
      if (eol >= 0) lineStart = base + eol + 1;
      if (at >= 0) {
        header = base + at;
        break;
      }
      // keep the chunk's tail: a header may start there and end in the next chunk
      const keep = Math.min(OVERLAP, end);
      buf.copy(buf, 0, end - keep, end);
      base += end - keep;
      kept = keep;
    }
    if (header < 0) return whole(path);
    const format = isHtmlHead(headOf(fd, size, buf)) ? 'html' : 'ftrace';
    const rest = Buffer.allocUnsafeSlow(size - lineStart);
    let have = 0;
    while (have < rest.length) {
      const got = readSync(fd, rest, have, rest.length - have, lineStart + have);
      if (got <= 0) break;
      have += got;
    }
    // the file changed while it was read
    if (have !== rest.length || fstatSync(fd).size !== size) return whole(path);
    let part = rest;
    if (format === 'html') {
      // `read` stops at the first line holding `</script>`: in an HTML file nothing after it counts
      const close = rest.indexOf(SCRIPT_END);
      const eol = close < 0 ? -1 : rest.indexOf(10, close);
      if (eol >= 0) part = rest.subarray(0, eol + 1);
    }
    return { text: decode(part, lineStart === 0), start: { linesBefore: lines, format } };
  } finally {
    closeSync(fd);
  }
}
