/**
 * `read`'s options, which the command line uses to read less: `start` (the text from the
 * header's line on, with the lines before it counted) gives the same trace as the whole text, and
 * `marks: 'nnapi'` (only the marks upstream's output depends on) gives an analysis that prints the
 * same as the whole one's, on every generated capture (hostile ones included) and on omr1.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { generateCapture, HOSTILE_KINDS } from '../../../test/support/systrace-generator';
import { omr1Html } from '../../../test/support/systrace-capture';
import { analyse, formatJson, formatStderr, formatText, read } from './index';
import { HEADER_NEW, HEADER_OLD, isHtmlHead } from './input';

const OPTION_SETS = [{}, { totalTimes: true }, { perExecution: true }, { perExecution: true, totalTimes: true }, { printDetail: true }];

/** generated captures of every kind: seeds at random, each hostile kind, both forms */
function captures(): { name: string; text: string }[] {
  const out: { name: string; text: string }[] = [];
  for (let seed = 1; seed <= 120; seed++) out.push(generateCapture(seed));
  for (const hostile of HOSTILE_KINDS) for (const seed of [3, 8]) out.push(generateCapture(seed, { hostile }));
  for (const form of ['html', 'ftrace'] as const) for (const seed of [21, 22, 23]) out.push(generateCapture(seed, { form }));
  const dir = 'test/fixtures/systrace/differential/captures';
  for (const f of readdirSync(dir).sort()) out.push({ name: f, text: readFileSync(join(dir, f), 'utf8') });
  out.push({ name: 'omr1.html', text: omr1Html() });
  return out;
}

const CAPTURES = captures();

/** what the command line prints from an analysis, and where it says upstream stops */
function printed(text: string, name: string, marks: 'all' | 'nnapi'): string[] {
  const trace = read(text, name, { marks });
  const a = analyse(trace, { timeline: false, tables: false, detail: true });
  return [
    ...OPTION_SETS.flatMap((o) => [formatText(a, o), formatJson(a, o)]),
    formatStderr(a),
    JSON.stringify(a.fatal ?? null),
    String(a.markCount),
    JSON.stringify(a.threads),
  ];
}

describe("read(text, file, { marks: 'nnapi' })", () => {
  it('prints what the whole trace prints, on every generated capture and on omr1', () => {
    const bad: string[] = [];
    let kept = 0;
    let all = 0;
    for (const c of CAPTURES) {
      const whole = printed(c.text, c.name, 'all');
      const lean = printed(c.text, c.name, 'nnapi');
      const differ = whole.map((w, i) => (w === lean[i] ? -1 : i)).filter((i) => i >= 0);
      if (differ.length) bad.push(`${c.name}: outputs ${differ.join(', ')} differ`);
      const t = read(c.text, c.name, { marks: 'nnapi' });
      kept += t.marks.length;
      all += t.marks.length + t.skippedMarks!;
    }
    expect(bad).toEqual([]);
    // it does leave marks out
    expect(kept).toBeLessThan(all);
  }, 300_000);

  it("keeps 125 of omr1's 12,200 mark lines: its first and those of its 4 tracked threads", () => {
    const t = read(omr1Html(), 'omr1.html', { marks: 'nnapi' });
    expect([t.marks.length, t.skippedMarks]).toEqual([125, 12_200 - 125]);
    expect(new Set(t.marks.slice(1).map((m) => m.pid))).toEqual(new Set(['27051', '23196', '27059', '756']));
  });

  it('keeps the first mark line, where the first run starts: a run that fails names it', () => {
    // a run whose startCompute has no wait fails (upstream: IndexError) at the run's first line
    const c = generateCapture(5, { hostile: 'start-without-wait' });
    const first = read(c.text, c.name).marks[0]!;
    const lines = c.text.split('\n');
    lines.splice(first.line - 1, 0, `  surfaceflinger-591   (  591) [001] ...1 ${first.timestamp}: tracing_mark_write: B|591|composition`);
    const text = lines.join('\n');
    const fatal = (marks: 'all' | 'nnapi') => analyse(read(text, c.name, { marks }), { timeline: false, tables: false }).fatal;
    expect(fatal('all')).toMatchObject({ stage: 'run', line: first.line });
    expect(fatal('nnapi')).toEqual(fatal('all'));
  });

  it('still stops where upstream stops, on any thread (an unmatched mark line of an untracked thread)', () => {
    const text = ['# tracer: nop', HEADER_NEW, '  th-1  (    1) [000] ...1 1.000000: tracing_mark_write: B|1|[NN_LA_PO]m', '  other-2 (2) tracing_mark_write: B|2|x', '  th-1  (    1) [000] ...1 1.000001: tracing_mark_write: E|1', ''].join('\n');
    const t = read(text, 'x.txt', { marks: 'nnapi' });
    expect(t.failure).toMatchObject({ line: 4, kind: 'unmatched-line' });
  });
});

describe('read(text, file, { start })', () => {
  it('gives the same trace as the whole text, from the line of the first header on', () => {
    const bad: string[] = [];
    for (const c of CAPTURES) {
      const iNew = c.text.indexOf(HEADER_NEW);
      const iOld = c.text.indexOf(HEADER_OLD);
      const at = iNew < 0 ? iOld : iOld < 0 ? iNew : Math.min(iNew, iOld);
      if (at < 0) continue;
      // the line start: after the last line break (\n, or a lone \r) before the header
      const lineStart = Math.max(c.text.lastIndexOf('\n', at), c.text.lastIndexOf('\r', at)) + 1;
      const before = c.text.slice(0, lineStart);
      const linesBefore = (before.match(/\r\n|\r|\n/g) ?? []).length;
      const format = isHtmlHead(c.text.slice(0, 65536)) ? 'html' : 'ftrace';
      const part = read(c.text.slice(lineStart), c.name, { start: { linesBefore, format } });
      const whole = read(c.text, c.name);
      if (JSON.stringify(part) !== JSON.stringify(whole)) bad.push(c.name);
    }
    expect(bad).toEqual([]);
  }, 120_000);
});
