import { describe, expect, it } from 'vitest';
import { pyFixed2, pyFloatRepr, PyInt, pyJsonDumps } from './pyformat';

describe('Python-compatible formatting', () => {
  it('repr(float)', () => {
    expect(pyFloatRepr(0)).toBe('0.0');
    expect(pyFloatRepr(-0)).toBe('-0.0');
    expect(pyFloatRepr(1)).toBe('1.0');
    expect(pyFloatRepr(100)).toBe('100.0');
    expect(pyFloatRepr(544.9690000386909)).toBe('544.9690000386909');
    expect(pyFloatRepr(1e-5)).toBe('1e-05');
    expect(pyFloatRepr(0.0001)).toBe('0.0001');
    expect(pyFloatRepr(1.5e-7)).toBe('1.5e-07');
    expect(pyFloatRepr(1e16)).toBe('1e+16');
    expect(pyFloatRepr(1234567890123456)).toBe('1234567890123456.0');
    expect(pyFloatRepr(12345678901234568)).toBe('1.2345678901234568e+16');
    expect(pyFloatRepr(9999999999000)).toBe('9999999999000.0');
    expect(pyFloatRepr(-11.042000173591077)).toBe('-11.042000173591077');
    expect(pyFloatRepr(NaN)).toBe('nan');
  });
  it('{:.2f} rounds exact ties to even, like Python', () => {
    expect(pyFixed2(0.125)).toBe('0.12');
    expect(pyFixed2(0.375)).toBe('0.38');
    expect(pyFixed2(2.5)).toBe('2.50');
    expect(pyFixed2(-0.125)).toBe('-0.12');
    expect(pyFixed2(1.005)).toBe('1.00'); // 1.005 is below the tie in binary
    expect(pyFixed2(-0.001)).toBe('-0.00');
    expect(pyFixed2(737.7959999721497)).toBe('737.80');
    expect(pyFixed2(NaN)).toBe('nan');
    expect(pyFixed2(1e22)).toBe('10000000000000000000000.00');
  });
  it('json.dumps(indent=2, sort_keys=True)', () => {
    expect(pyJsonDumps({ b: 1.5, a: [new PyInt(1), null], c: {}, d: 'é"\n' })).toBe(
      '{\n  "a": [\n    1,\n    null\n  ],\n  "b": 1.5,\n  "c": {},\n  "d": "\\u00e9\\"\\n"\n}',
    );
  });
});
