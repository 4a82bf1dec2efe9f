import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { float32Text, printedCount, tensorText } from './tensor-text';

describe('float32Text', () => {
  it('prints the shortest text that reads back as the same float32', () => {
    expect(float32Text(Math.fround(0.001))).toBe('0.001');
    expect(float32Text(0.0010000000474974513)).toBe('0.001');
    expect(float32Text(Math.fround(1 / 3))).toBe('0.33333334');
    expect(float32Text(Math.fround(1e-8))).toBe('1e-8');
    expect(float32Text(Math.fround(3.4028234663852886e38))).toBe('3.4028235e+38');
    expect(float32Text(-0)).toBe('-0');
    expect(float32Text(NaN)).toBe('nan');
    expect(float32Text(-Infinity)).toBe('-inf');
  });

  it('property: the text reads back as the same float32, and one digit fewer does not', () => {
    fc.assert(
      fc.property(fc.float({ noNaN: true, noDefaultInfinity: true }), (x) => {
        const t = float32Text(x);
        expect(Object.is(Math.fround(Number(t)), Math.fround(x)) || (x === 0 && Number(t) === 0)).toBe(true);
        const digits = t.replace(/^-/, '').replace(/e.*$/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '').length;
        if (digits > 1 && x !== 0) expect(Math.fround(Number(Math.fround(x).toPrecision(digits - 1)))).not.toBe(Math.fround(x));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('tensorText', () => {
  it('nests brackets along the shape, aligned like NumPy', () => {
    const v = [1, 2.5, -3, 4, 5, 6];
    expect(tensorText([2, 3], 6, (i) => Math.fround(v[i]!), 'float32')).toBe('[[  1, 2.5,  -3],\n [  4,   5,   6]]');
    expect(tensorText([2, 1, 2], 4, (i) => i, 'integer')).toBe('[[[0, 1]],\n\n [[2, 3]]]');
    expect(tensorText([], 1, () => 7, 'integer')).toBe('7');
    expect(tensorText([0], 0, () => 0, 'integer')).toBe('[]');
    expect(tensorText([2], 2, (i) => i === 0, 'bool')).toBe('[ true, false]');
  });

  it('elides the middle of every axis of a big tensor, reading only what it prints', () => {
    const read: number[] = [];
    const text = tensorText([100, 100], 10000, (i) => (read.push(i), i), 'integer');
    expect(text.split('\n')).toEqual([
      '[[   0,    1,    2, ...,   97,   98,   99],',
      ' [ 100,  101,  102, ...,  197,  198,  199],',
      ' [ 200,  201,  202, ...,  297,  298,  299],',
      ' ...,',
      ' [9700, 9701, 9702, ..., 9797, 9798, 9799],',
      ' [9800, 9801, 9802, ..., 9897, 9898, 9899],',
      ' [9900, 9901, 9902, ..., 9997, 9998, 9999]]',
    ]);
    expect(read.length).toBe(36);
    expect(printedCount([100, 100], 10000)).toBe(36);
  });

  it('a buffer that disagrees with the shape prints as one row', () => {
    expect(tensorText([2, 2], 3, (i) => i, 'integer')).toBe('[0, 1, 2]');
  });

  it('property: rows wrap between numbers, every printed number is whole, in row-major order', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 7 }), { minLength: 1, maxLength: 4 }),
        fc.array(fc.float({ noNaN: true }), { minLength: 1, maxLength: 64 }),
        fc.integer({ min: 20, max: 80 }),
        (shape, pool, width) => {
          const count = shape.reduce((a, d) => a * d, 1);
          const get = (i: number) => Math.fround(pool[i % pool.length]!);
          const text = tensorText(shape, count, get, 'float32', { width, threshold: 1e9 });
          const tokens = text.split(/[\s,[\]]+/).filter((t) => t.length > 0);
          const want = Array.from({ length: count }, (_, i) => float32Text(get(i)));
          expect(tokens).toEqual(want);
          // brackets balance and close at the end
          let depth = 0;
          let lowest = 0;
          for (const c of text) {
            if (c === '[') depth++;
            else if (c === ']') lowest = Math.min(lowest, --depth);
          }
          expect([depth, lowest]).toEqual([0, 0]);
          // a line is only longer than the width when one number alone overflows it
          const cell = Math.max(0, ...want.map((t) => t.length));
          const over = text.split('\n').filter((line) => line.length > width && line.trim().replace(/[[\],]/g, '').trim().length > cell);
          expect(over).toEqual([]);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('property: an elided tensor shows each axis ends and marks every cut', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 12 }), { minLength: 1, maxLength: 3 }), (shape) => {
        const count = shape.reduce((a, d) => a * d, 1);
        const text = tensorText(shape, count, (i) => i, 'integer', { threshold: 10, edge: 2 });
        const tokens = text.split(/[\s,[\]]+/).filter((t) => t.length > 0 && t !== '...');
        expect(tokens.length).toBe(printedCount(shape, count, { threshold: 10, edge: 2 }));
        expect(tokens[0]).toBe('0');
        expect(tokens[tokens.length - 1]).toBe(String(count - 1));
        expect(text.includes('...')).toBe(count > 10 && shape.some((d) => d > 4));
      }),
      { numRuns: 300 },
    );
  });
});
