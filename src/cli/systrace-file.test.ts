/**
 * readCaptureText: the capture from its header's line on, found in the file's bytes, must read
 * exactly as the whole file decoded does, whatever comes before the header (megabytes of viewer,
 * other scripts, non-ASCII or invalid UTF-8, a BOM, a `\r`, a header across the 64 KiB chunks the
 * bytes are read in) and after it.
 */
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateCapture } from '../../test/support/systrace-generator';
import { HEADER_NEW, HEADER_OLD } from '../core/systrace/input';
import { read } from '../core/systrace';
import { readCaptureText } from './systrace-file';

const dir = mkdtempSync(join(tmpdir(), 'npu-systrace-file-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

/** what reading the whole file as text gives */
function wholeRead(bytes: Buffer, name: string) {
  return read(new TextDecoder('utf-8').decode(bytes), name);
}

/** readCaptureText + read on `bytes` written to a file, and whether it read only part of the file */
function partRead(bytes: Buffer, name: string) {
  const path = join(dir, `${files++}-${name}`);
  writeFileSync(path, bytes);
  const counted = readCaptureText(path);
  const uncounted = readCaptureText(path, false);
  // without counting: the same text, line numbers from the header's line
  expect(uncounted.text).toBe(counted.text);
  expect(uncounted.start).toEqual(counted.start && { ...counted.start, linesBefore: 0 });
  if (counted.start) {
    // the text is the whole file's from the header's line on (up to the end of the line where an
    // HTML file's trace ends)
    const whole = new TextDecoder('utf-8').decode(bytes);
    const header = Math.min(...[HEADER_NEW, HEADER_OLD].map((h) => whole.indexOf(h)).filter((i) => i >= 0));
    const lineStart = whole.lastIndexOf('\n', header) + 1;
    expect(whole.slice(lineStart, lineStart + counted.text.length)).toBe(counted.text);
  }
  const trace = read(counted.text, name, { start: counted.start });
  // the file name in the trace is the name given, not the temporary path
  return { trace, partial: counted.start !== undefined };
}

const LINE_BYTES = [
  fc.stringMatching(/^[ -~]{0,120}$/).map((s) => Buffer.from(`${s}\n`, 'latin1')),
  fc.constantFrom('<script>var x = "é";</script>', '模型 model', 'emoji \u{1F600}', '<!DOCTYPE html>', '<script class="trace-data" type="application/text">', '# tracer: nop').map((s) => Buffer.from(`${s}\n`)),
  // invalid UTF-8: a lone continuation, a cut sequence right before the line break, 0xff
  fc.constantFrom([0x80, 0x0a], [0xe2, 0x82, 0x0a], [0xff, 0x41, 0x0a], [0xc3, 0x0a]).map((b) => Buffer.from(b)),
];
/** what may precede the header: lines of all kinds, at times a lot of them */
const prefixArb = fc.record({
  bom: fc.boolean(),
  lines: fc.array(fc.oneof(...LINE_BYTES), { maxLength: 30 }),
  // a filler so that the header lands near (or across) a 64 KiB chunk boundary
  filler: fc.option(fc.integer({ min: 65_536 - 150, max: 2 * 65_536 + 50 }), { nil: undefined }),
  carriageReturn: fc.boolean(),
});

function prefixBytes(p: { bom: boolean; lines: Buffer[]; filler: number | undefined; carriageReturn: boolean }): Buffer {
  const parts: Buffer[] = [];
  if (p.bom) parts.push(Buffer.from([0xef, 0xbb, 0xbf]));
  parts.push(...p.lines);
  if (p.carriageReturn) parts.push(Buffer.from('a line of an old Mac\rand one of Windows\r\n'));
  if (p.filler !== undefined) {
    const line = '  // viewer code\n';
    const n = Math.max(0, p.filler - parts.reduce((a, b) => a + b.length, 0));
    parts.push(Buffer.from(line.repeat(Math.floor(n / line.length)) + ' '.repeat(n % line.length) + '\n'));
  }
  return Buffer.concat(parts);
}

describe('readCaptureText', () => {
  it('reads as the whole file does, whatever precedes and follows the trace', () => {
    fc.assert(
      fc.property(prefixArb, fc.integer({ min: 1, max: 400 }), fc.constantFrom('html', 'ftrace') as fc.Arbitrary<'html' | 'ftrace'>, fc.array(fc.oneof(...LINE_BYTES), { maxLength: 5 }), (prefix, seed, form, after) => {
        const capture = generateCapture(seed, { form, size: 0 });
        const bytes = Buffer.concat([prefixBytes(prefix), Buffer.from(capture.text), ...after]);
        const { trace } = partRead(bytes, capture.name);
        expect(trace).toEqual(wholeRead(bytes, capture.name));
      }),
      { numRuns: 150 },
    );
  });

  it('reads only from the header on where it can, and the whole file where it cannot', () => {
    const capture = generateCapture(4, { form: 'html', size: 0 });
    const viewer = Buffer.from('  // viewer code\n'.repeat(20_000));
    const cases: [string, Buffer, boolean][] = [
      ['after 340 KB of viewer', Buffer.concat([viewer, Buffer.from(capture.text)]), true],
      ['a \\r before the header', Buffer.concat([Buffer.from('old\rmac\n'), viewer, Buffer.from(capture.text)]), false],
      ['no header', Buffer.concat([viewer, Buffer.from('no trace here\n')]), false],
      ['a BOM at the start of the header line (kept there, as the whole file keeps it)', Buffer.concat([viewer, Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(capture.text.slice(capture.text.indexOf(HEADER_NEW)))]), true],
      ['an empty file', Buffer.alloc(0), false],
    ];
    const bad: string[] = [];
    for (const [what, bytes, partial] of cases) {
      const r = partRead(bytes, 'c.html');
      if (r.partial !== partial) bad.push(`${what}: partial ${r.partial}`);
      if (JSON.stringify(r.trace) !== JSON.stringify(wholeRead(bytes, 'c.html'))) bad.push(`${what}: differs`);
    }
    expect(bad).toEqual([]);
  });

  it('finds a header that starts in one 64 KiB chunk and ends in the next', () => {
    const capture = generateCapture(9, { form: 'ftrace', size: 0 });
    const at = capture.text.indexOf(HEADER_NEW);
    const bad: number[] = [];
    for (let k = -3; k <= HEADER_NEW.length + 3; k++) {
      // the header starts k bytes before the end of the first chunk
      const fill = 65_536 - k - at;
      const bytes = Buffer.concat([Buffer.from(`${'x'.repeat(fill - 1)}\n`), Buffer.from(capture.text)]);
      const r = partRead(bytes, 'c.txt');
      if (!r.partial || JSON.stringify(r.trace) !== JSON.stringify(wholeRead(bytes, 'c.txt'))) bad.push(k);
    }
    expect(bad).toEqual([]);
  });
});
