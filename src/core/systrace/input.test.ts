import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { detect, HEADER_NEW, HEADER_OLD, matchMarkLine, matchNewFormat, matchOldFormat, pyStrip, read, timestampToUs } from './input';
import { ftraceText } from './testing';

const FIX = 'test/fixtures/systrace';

interface InputCase {
  test: string;
  regex: 'MATCHER' | 'MATCHER_FOR_OLD';
  line: string;
  groups: string[];
}
const cases = (JSON.parse(readFileSync(`${FIX}/derived/input-lines.json`, 'utf8')) as { cases: InputCase[] }).cases;

describe('line parsing (derived/input-lines.json)', () => {
  for (const c of cases) {
    it(`${c.regex}: ${c.line.slice(0, 60)}`, () => {
      const s = pyStrip(c.line);
      if (c.regex === 'MATCHER') {
        const g = matchNewFormat(s);
        expect(g).not.toBeNull();
        expect([g!.task, g!.pid, g!.tgid, g!.timestamp, g!.mark]).toEqual(c.groups);
      } else {
        const g = matchOldFormat(s);
        expect(g).not.toBeNull();
        expect([g!.task, g!.pid, g!.timestamp, g!.mark]).toEqual(c.groups);
        // the old layout never matches the new regex
        expect(matchNewFormat(s)).toBeNull();
      }
    });
  }
  it('agrees with the upstream regexes (written for JS) on the examples', () => {
    const re = /^\s*([^ ].{1,15})-(\d+)\s+\(\s*([-0-9]+)\) .* (\d+\.\d+): tracing_mark_write: ([BE].*)$/;
    for (const c of cases.filter((x) => x.regex === 'MATCHER')) expect(re.exec(pyStrip(c.line))!.slice(1)).toEqual(c.groups);
  });
  it('skips counter, async and clock-sync marks', () => {
    expect(matchNewFormat('atrace-26769 (26769) [005] ...1 1034700.742666: tracing_mark_write: trace_event_clock_sync: parent_ts=1')).toBeNull();
    expect(matchNewFormat('a-1 (1) [005] ...1 1.000001: tracing_mark_write: C|1|counter|5')).toBeNull();
    expect(matchNewFormat('a-1 (1) [005] ...1 1.000001: tracing_mark_write: S|1|async|5')).toBeNull();
  });
  it('keeps timestamps as exact integer microseconds', () => {
    expect(timestampToUs('1034718.303435')).toBe(1034718303435);
    expect(timestampToUs('142.924145')).toBe(142924145);
    expect(timestampToUs('0.000001')).toBe(1);
    expect(timestampToUs('10000000000.000000')).toBe(1e16);
  });
  it('1 MB lines (the hand-written matcher does not backtrack quadratically)', () => {
    const big = `x-1 (1) [000] ...1 ${'1'.repeat(1 << 20)}`;
    expect(matchNewFormat(big)).toBeNull();
    expect(matchOldFormat(`xy-1 ${'1.1 '.repeat(300_000)}`)).toBeNull();
    const withMark = `xy-1 (1) [000] ...1 ${' 1.0'.repeat(200_000)}: tracing_mark_write: B|1|[NN_LR_PP]${'['.repeat(100_000)}`;
    expect(matchNewFormat(withMark)?.tgid).toBe('1');
  });
});

/** Lines near the systrace layout, piece by piece, with the characters where Python's and JavaScript's regexes differ. */
const pick = (xs: string[], max: number) => fc.array(fc.constantFrom(...xs), { maxLength: max }).map((a) => a.join(''));
const lineArb = fc
  .tuple(
    pick([' ', ' ', '\t', '\x0b', '\u2003', '\x1c'], 4),
    pick(['a', 'Z', '-', '1', ' ', '(', ')', '.', ':', '<', '>', '@', 'é', '\u{1F600}', '\t', '\u2003', '-12', '-3 (4) ', ' (', '-7 ', 'abcdefgh'], 8),
    fc.constantFrom('-', '-', '', '--'),
    pick(['1', '2', '9', '0', '\u0663'], 6),
    fc.constantFrom(' (  591) ', ' (591) ', '  (-----) ', ' (1-2) ', ' ( 5 ) ', '\u2003(5) ', ' ', '  ', '(5) ', ' (5)', ''),
    pick(['[005] ...1 ', ' ', 'x', '(', ')', '1.5 '], 3),
    fc.array(
      fc.tuple(
        fc.constantFrom(' ', '', 'x', ' 1 '),
        fc.constantFrom('1034700.742666', '1.5', '12', '1.2.3', '.5', '5.', '\u0663.5', '1.000001234'),
        fc.constantFrom(': tracing_mark_write: ', ': tracing_mark_write:', ' tracing_mark_write: '),
        fc.constantFrom('B|591|[NN_LR_PE]x', 'E|591', 'E', 'C|1|c|5', 'S|1', '', 'B'),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([lead, task, dash, pid, tgid, mid, tails]) => lead + task + dash + pid + tgid + mid + tails.map((t) => t.join('')).join(''));

describe('matchMarkLine (native fast path)', () => {
  it('agrees with the exact matcher on random lines near the layout', () => {
    fc.assert(
      fc.property(lineArb, (line) => {
        expect(matchMarkLine(line)).toEqual(matchNewFormat(line) ?? matchOldFormat(line));
      }),
      { numRuns: 20_000 },
    );
  });
  it('the exact matcher agrees with the upstream regexes (written for JS) on random printable-ASCII lines', () => {
    const reNew = /^\s*([^ ].{1,15})-(\d+)\s+\(\s*([-0-9]+)\) .* (\d+\.\d+): tracing_mark_write: ([BE].*)$/;
    const reOld = /^\s*([^ ].{1,15})-(\d+) .* (\d+\.\d+): tracing_mark_write: ([BE].*)$/;
    fc.assert(
      fc.property(
        lineArb.filter((l) => /^[ -~]*$/.test(l)),
        (line) => {
          const n = reNew.exec(line);
          const o = n ? null : reOld.exec(line);
          const expected = n ? { task: n[1], pid: n[2], tgid: n[3], timestamp: n[4], mark: n[5] } : o ? { task: o[1], pid: o[2], tgid: null, timestamp: o[3], mark: o[4] } : null;
          expect(matchMarkLine(line)).toEqual(expected);
        },
      ),
      { numRuns: 5_000 },
    );
  });
  it('matches the ordinary lines of omr1 on the fast path as the exact matcher does', () => {
    const lines = readFileSync(`${FIX}/upstream/inputs/omr1.trace.txt`, 'utf8').split('\n');
    const bad = lines.filter((l) => JSON.stringify(matchMarkLine(l)) !== JSON.stringify(matchNewFormat(l) ?? matchOldFormat(l)));
    expect(bad).toEqual([]);
  });
});

/** read's marks computed the slow way: every line through the exact matcher (upstream's loop). */
function referenceMarks(input: string): string[] {
  const text = input.replace(/\r\n?/g, '\n');
  const lines = text.split('\n');
  if (text.endsWith('\n')) lines.pop();
  const first = lines.findIndex((l) => l.includes(HEADER_NEW) || l.includes(HEADER_OLD));
  const out: string[] = [];
  if (first < 0) return out;
  for (let i = first; i < lines.length; i++) {
    const l = lines[i]!;
    if (l.includes('</script>')) break;
    const g = matchNewFormat(l) ?? matchOldFormat(l);
    if (g) out.push(JSON.stringify([i + 1, g.task, g.pid, g.timestamp, g.mark, l, i < lines.length - 1 || text.endsWith('\n')]));
  }
  return out;
}
const omr1Lines = readFileSync(`${FIX}/upstream/inputs/omr1.trace.txt`, 'utf8').split('\n').slice(12, 400);
const textLineArb = fc.oneof(
  { weight: 4, arbitrary: lineArb },
  { weight: 4, arbitrary: fc.constantFrom(...omr1Lines) },
  { weight: 1, arbitrary: fc.constantFrom('', '# comment', '</script>', 'x</script>y', '  a-1 (1) [000] ...1 1.5: tracing_mark_write: B|1|[NN_LA_PO]</script>', 'junk [NN_LA_PE] here', 'HIDL::IDevice::x::server', HEADER_OLD, HEADER_NEW, '\u2028', 'a\u2028  b-1 (1) [000] ...1 1.5: tracing_mark_write: B|1|x') },
);
const captureArb = fc
  .tuple(fc.array(textLineArb, { maxLength: 4 }), fc.constantFrom(HEADER_NEW, HEADER_OLD, `x${HEADER_NEW}`), fc.array(textLineArb, { maxLength: 40 }), fc.constantFrom('\n', '\r\n', '\r', ''), fc.boolean())
  .map(([before, header, after, eol, finalEol]) => [...before, header, ...after].join(eol) + (finalEol ? eol : ''));

describe('read: the mark lines', () => {
  it('are the lines the exact matcher matches, with their line numbers, on random captures', () => {
    fc.assert(
      fc.property(captureArb, (text) => {
        const got = read(text, 'r.txt').marks.map((m) => JSON.stringify([m.line, m.task, m.pid, m.timestamp, m.mark, m.text, m.newline]));
        expect(got).toEqual(referenceMarks(text));
      }),
      { numRuns: 3_000 },
    );
  });
  it('1 MB printable lines go through the whole-line regex without quadratic backtracking', () => {
    const hostile = [
      `xy-1 (1) [000] ...1 ${' 1.1'.repeat(250_000)}: tracing_mark_write: C`,
      `xy-1 (1) [000] ...1 ${' 1'.repeat(500_000)}.5: tracing_mark_write: B|1|x`,
      `xy-1 ${'1.1 '.repeat(250_000)}`,
      `${'-1 ('.repeat(250_000)}`,
      `xy-1 (1) [000] ...1 1.5: tracing_mark_write: B|1|${': tracing_mark_write: B'.repeat(40_000)}`,
    ];
    const t = read([HEADER_NEW, ...hostile].join('\n'), 'big.txt');
    expect(t.marks.map((m) => m.line)).toEqual([3, 6]);
  });
});

describe('read', () => {
  it('finds the trace part in HTML and stops at </script>', () => {
    const body = ftraceText([{ tid: 5, tgid: 5, time: '1.000000', mark: 'B|5|[NN_LR_PP]f' }, { tid: 5, tgid: 5, time: '2.000000', mark: 'E|5' }]);
    const html = `<!DOCTYPE html><html><script class="trace-data" type="application/text">\n${body}</script>\n<script>tracing_mark_write: B|1|[NN_LR_PP]x</script>`;
    const t = read(html, 'x.html');
    expect(t.format).toBe('html');
    expect(t.marks.map((m) => m.mark)).toEqual(['B|5|[NN_LR_PP]f', 'E|5']);
    expect(t.marks[0]!.line).toBe(6);
    expect(detect(html, 'x.html')?.variant).toBe('html');
    expect(detect(new TextEncoder().encode(body), 'x.txt')?.variant).toBe('ftrace');
  });
  it('detects an HTML capture whose trace data comes after megabytes of viewer code', () => {
    const body = ftraceText([{ tid: 5, tgid: 5, time: '1.000000', mark: 'B|5|[NN_LR_PP]f' }, { tid: 5, tgid: 5, time: '2.000000', mark: 'E|5' }]);
    const viewer = `<!DOCTYPE html>\n<html>\n<head>\n<script>\n${'  // viewer code\n'.repeat(200_000)}</script>\n</head>\n<body>\n`;
    const html = `${viewer}<script class="trace-data" type="application/text">\n${body}</script>\n</body>\n</html>\n`;
    expect(html.length).toBeGreaterThan(3 << 20);
    expect(detect(html, 'capture.html')).toMatchObject({ format: 'systrace', variant: 'html', confidence: 1 });
    expect(detect(new TextEncoder().encode(html), 'capture.html')).toMatchObject({ format: 'systrace', variant: 'html', confidence: 1 });
    // a large HTML page without a trace is still not a capture; a large non-HTML file is only read in its head
    expect(detect(new TextEncoder().encode(viewer), 'page.html')).toBeNull();
    expect(detect(new TextEncoder().encode(`${'x'.repeat(2 << 20)}\n${body}`), 'blob.bin')).toBeNull();
  });
  it('a binary file (a NUL byte in its first 4 KiB) is not a capture, even with the header in it, unless it is named as one', () => {
    const body = new TextEncoder().encode(ftraceText([{ tid: 5, tgid: 5, time: '1.000000', mark: 'B|5|[NN_LR_PP]f' }]));
    const binary = new Uint8Array(body.length + 16);
    binary.set([0x1c, 0, 0, 0, 0x4e, 0x56, 0x44, 0x41], 0); // a loadable's first bytes
    binary.set(body, 16);
    expect(detect(binary.subarray(16), 'capture.txt')).toMatchObject({ format: 'systrace', confidence: 1 });
    expect(detect(binary, 'lenet.nvdla')).toBeNull();
    // the name still routes it to the systrace reader, which refuses it saying why
    expect(detect(binary, 'capture.trace.txt')).toMatchObject({ format: 'systrace', variant: 'ftrace', confidence: 0.3 });
    // the NUL only counts in the first 4 KiB
    const late = new Uint8Array(4096 + body.length);
    late.fill(0x20);
    late.set(body, 0);
    late[4096 + 5] = 0;
    expect(detect(late, 'capture.txt')).toMatchObject({ format: 'systrace', confidence: 1 });
  });
  it('old format: tgid from B|n| and, for a bare E, from the thread', () => {
    const text = [
      '#           TASK-PID   CPU#  ||||    TIMESTAMP  FUNCTION',
      '<...>-4840  [005] .... 407457.494359: tracing_mark_write: B|4828|[NN_LR_PE]x',
      '<...>-4840  [005] .... 407457.494360: tracing_mark_write: E',
    ].join('\n');
    const t = read(text, 'old.txt');
    expect(t.header).toBe('old');
    expect(t.marks.map((m) => m.tgid)).toEqual([4828, 4828]);
  });
  it('binary junk, empty and truncated input give diagnostics, never a throw', () => {
    const junk = String.fromCharCode(...Array.from({ length: 5000 }, (_, i) => (i * 7919) % 256));
    expect(read(junk, 'j').diagnostics[0]!.severity).toBe('error');
    expect(read('', 'e').diagnostics[0]!.message).toMatch(/empty/);
    const omr1 = readFileSync(`${FIX}/upstream/inputs/omr1.trace.txt`, 'utf8');
    const cut = read(`<html>${omr1.slice(0, 600_000)}`, 'cut.html');
    expect(cut.marks.length).toBeGreaterThan(100);
    expect(cut.diagnostics.some((d) => /truncated/.test(d.message))).toBe(true);
  });
  it('a text capture cut mid-line gets a note naming the last line; a whole one does not', () => {
    const whole = ftraceText([
      { tid: 7, tgid: 7, time: '1.000000', mark: 'B|7|[NN_LA_PO]net' },
      { tid: 7, tgid: 7, time: '1.000100', mark: 'E|7' },
    ]);
    expect(read(whole, 'whole.txt').diagnostics).toEqual([]);
    const text = whole.slice(0, whole.length - 12);
    const cut = read(text, 'cut.txt');
    const note = cut.diagnostics.find((d) => /middle of a line/.test(d.message));
    expect(note?.severity).toBe('info');
    expect(note?.line).toBe(text.split('\n').length);
    expect(note?.message).toContain('thread7-7');
  });
  it('a mark-like line in the wrong layout is a warning with its line number', () => {
    const t = read(`${ftraceText([])}garbage tracing_mark_write: B|1|[NN_LR_PP]x\n`, 'w.txt');
    expect(t.diagnostics).toHaveLength(1);
    expect(t.diagnostics[0]!.line).toBe(5);
  });
});
