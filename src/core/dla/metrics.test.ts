import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { errorMetrics, topK } from './metrics';

describe('errorMetrics', () => {
  it('hand-computed figures', () => {
    // a - b = (0.1, -0.1, 0, 0); ||b||^2 = 1 + 4 + 9 + 16 = 30; ||a - b||^2 = 0.02
    const m = errorMetrics([1.1, 1.9, 3, 4], [1, 2, 3, 4]);
    expect(m.maxAbs).toBeCloseTo(0.1, 12);
    expect(m.meanAbs).toBeCloseTo(0.05, 12);
    expect(m.relative).toBeCloseTo(Math.sqrt(0.02 / 30), 12);
    expect(m.snrDb).toBeCloseTo(10 * Math.log10(30 / 0.02), 9);
    expect(m.cosine).toBeCloseTo((1.1 + 3.8 + 9 + 16) / Math.sqrt(30 * (1.21 + 3.61 + 9 + 16)), 12);
  });
  it('identical tensors: infinite SNR, cosine 1; zeros against zeros too', () => {
    expect(errorMetrics([1, -2], [1, -2])).toMatchObject({ maxAbs: 0, relative: 0, snrDb: Infinity, cosine: 1 });
    expect(errorMetrics([0, 0], [0, 0])).toMatchObject({ snrDb: Infinity, cosine: 1 });
    expect(errorMetrics([1, 0], [0, 0])).toMatchObject({ snrDb: -Infinity, cosine: 0, relative: Infinity });
  });
  it('counts non-finite values apart', () => {
    expect(errorMetrics([NaN, 1, Infinity], [1, 1, 1])).toMatchObject({ count: 1, nonFinite: 2, maxAbs: 0 });
  });
  it('refuses tensors of different sizes', () => {
    expect(() => errorMetrics([1], [1, 2])).toThrow(RangeError);
  });
  it('properties: SNR falls as the error grows, cosine stays in [-1, 1]', () => {
    fc.assert(
      fc.property(fc.array(fc.float({ min: -100, max: 100, noNaN: true }), { minLength: 2, maxLength: 50 }), fc.float({ min: Math.fround(0.01), max: 1, noNaN: true }), (b, e) => {
        if (b.every((v) => v === 0)) return;
        const small = errorMetrics(b.map((v, i) => v + (i % 2 ? e : -e)), b);
        const big = errorMetrics(b.map((v, i) => v + (i % 2 ? 2 * e : -2 * e)), b);
        expect(big.snrDb).toBeLessThan(small.snrDb);
        expect(Math.abs(small.cosine)).toBeLessThanOrEqual(1 + 1e-12);
      }),
    );
  });
});

describe('topK', () => {
  it('largest first, ties by index', () => {
    expect(topK([0.1, 0.5, 0.2, 0.5, NaN], 3)).toEqual([
      { index: 1, score: 0.5 },
      { index: 3, score: 0.5 },
      { index: 2, score: 0.2 },
    ]);
  });
});
