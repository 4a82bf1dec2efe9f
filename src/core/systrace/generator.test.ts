/**
 * The seeded capture generator of the differential test (test/support/systrace-generator.ts), and
 * what our parser does with its captures, without Python: the generator is deterministic and
 * covers the cases the differential test is meant to exercise; the parser never throws on them;
 * the HTML and the plain ftrace form of one capture give the same output.
 */
import { describe, expect, it } from 'vitest';
import { HOSTILE_KINDS, generateCapture } from '../../../test/support/systrace-generator';
import { analyseText, formatJson, formatStderr, formatText } from './index';

const SEEDS = Array.from({ length: 400 }, (_, i) => i + 1);

describe('systrace capture generator', () => {
  it('is deterministic: a seed gives the same capture', () => {
    for (const seed of [1, 17, 4242]) expect(generateCapture(seed).text).toBe(generateCapture(seed).text);
    expect(generateCapture(1).text).not.toBe(generateCapture(2).text);
  });

  it('covers the cases of the contract and of issue 10 within 400 seeds', () => {
    const seen = new Set(SEEDS.flatMap((s) => generateCapture(s).features));
    const wanted = [
      'runs:1', 'runs:2', 'runs:3', 'runs:4', 'incomplete-run', 'truncated', 'warmup', 'benchmark', 'async', 'concurrent', 'sync', 'burst',
      'driver-process', 'driver', 'cpu', 'passthrough', 'old-format', 'html', 'ftrace-text', 'tgid-dashes', 'crlf', 'odd-names', 'untracked',
      'worker', 'switch', 'subtract', 'init', 'wrong-app-phase', 'random-nesting', 'no-runtime', 'no-app-marks', 'no-nnapi-marks', 'second-app',
    ];
    expect(wanted.filter((f) => !seen.has(f))).toEqual([]);
  });

  it('every hostile kind can be asked for', () => {
    for (const kind of HOSTILE_KINDS) expect(generateCapture(7, { hostile: kind }).features).toContain(`hostile:${kind}`);
  });

  it('our parser never throws on generated captures, and its result is plain data', () => {
    for (const seed of SEEDS.slice(0, 60)) {
      const c = generateCapture(seed);
      const a = analyseText(c.text, c.name, { timeline: true });
      expect(structuredClone(a)).toEqual(a);
      formatText(a);
      formatJson(a, { perExecution: true });
      formatStderr(a);
    }
    for (const kind of HOSTILE_KINDS) {
      const c = generateCapture(11, { hostile: kind });
      expect(() => formatJson(analyseText(c.text, c.name))).not.toThrow();
    }
  });

  it('the HTML and the plain ftrace form of a capture print the same tables', () => {
    const differ: number[] = [];
    for (const seed of SEEDS.slice(0, 60)) {
      const html = analyseText(generateCapture(seed, { form: 'html' }).text, 'c.html', { timeline: false });
      const text = analyseText(generateCapture(seed, { form: 'ftrace' }).text, 'c.txt', { timeline: false });
      // line numbers differ between the forms, and with them AOSP's `failed on line N` echo
      if (html.fatal || text.fatal) continue;
      for (const o of [{}, { totalTimes: true }, { perExecution: true }]) {
        if (formatText(html, o) !== formatText(text, o) || formatJson(html, o) !== formatJson(text, o)) differ.push(seed);
      }
    }
    expect(differ).toEqual([]);
  });
});
