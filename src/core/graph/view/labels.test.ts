import { describe, expect, it } from 'vitest';
import { accessibleName, cachedCharMeasure, ELLIPSIS, nodeBoxSize, nodeSubtitle, nodeTitle, truncateLabel, approxTitleMeasure, approxSubtitleMeasure } from './labels';

const mono = (s: string) => Array.from(s).length * 10;

describe('labels', () => {
  it('keeps text that fits', () => {
    expect(truncateLabel('CONV_2D', 70, mono)).toBe('CONV_2D');
  });

  it('truncates with an ellipsis to the widest prefix that fits', () => {
    const t = truncateLabel('model/block_12/conv', 100, mono);
    expect(t.endsWith(ELLIPSIS)).toBe(true);
    expect(mono(t)).toBeLessThanOrEqual(100);
    expect(t).toBe('model/blo' + ELLIPSIS);
  });

  it('never splits a surrogate pair', () => {
    const t = truncateLabel('😀😀😀😀😀😀', 35, mono);
    expect(t).toBe('😀😀' + ELLIPSIS);
  });

  it('gives empty text when not even an ellipsis fits', () => {
    expect(truncateLabel('abc', 5, mono)).toBe('');
    expect(truncateLabel('abc', 0, mono)).toBe('');
  });

  it('caches character widths', () => {
    let calls = 0;
    const m = cachedCharMeasure((ch) => { calls++; return ch === 'W' ? 12 : 5; });
    expect(m('WWaa')).toBe(34);
    expect(m('aWa')).toBe(22);
    expect(calls).toBe(2);
  });

  it('names nodes as <type> <name>', () => {
    expect(accessibleName({ kind: 'op', type: 'ADD', name: 'ofm' })).toBe('ADD ofm');
    expect(accessibleName({ kind: 'input', type: 'Input', name: 'ifm1' })).toBe('Input ifm1');
    expect(accessibleName({ kind: 'output', type: 'whatever', name: 'ofm' })).toBe('Output ofm');
    expect(accessibleName({ kind: 'op', type: 'RELU', name: '' })).toBe('RELU');
  });

  it('titles: op type for operators, tensor name for markers', () => {
    expect(nodeTitle({ kind: 'op', type: 'ADD', name: 'ofm' })).toBe('ADD');
    expect(nodeSubtitle({ kind: 'op', type: 'ADD', name: 'ofm' })).toBe('ofm');
    expect(nodeTitle({ kind: 'input', type: 'Input', name: 'ifm1' })).toBe('ifm1');
    expect(nodeSubtitle({ kind: 'input', type: 'Input', name: 'ifm1' })).toBe('');
  });

  it('sizes boxes within bounds', () => {
    const [w, h] = nodeBoxSize({ kind: 'op', type: 'ADD', name: 'x'.repeat(300) }, approxTitleMeasure, approxSubtitleMeasure);
    expect(w).toBeLessThanOrEqual(160);
    expect(h).toBe(34);
    const [w2, h2] = nodeBoxSize({ kind: 'input', type: 'Input', name: 'a' }, approxTitleMeasure, approxSubtitleMeasure);
    expect(w2).toBeGreaterThanOrEqual(60);
    expect(h2).toBe(22);
  });
});
