import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { formatUs, groupThousands, tickLabel } from './format';

describe('profile format', () => {
  it('groups thousands with commas', () => {
    expect(groupThousands(0)).toBe('0');
    expect(groupThousands(999)).toBe('999');
    expect(groupThousands(1000)).toBe('1,000');
    expect(groupThousands(1234567)).toBe('1,234,567');
    expect(groupThousands(100000)).toBe('100,000');
  });

  it('groups like en-US toLocaleString for every safe non-negative integer', () => {
    fc.assert(fc.property(fc.nat({ max: Number.MAX_SAFE_INTEGER }), (n) => groupThousands(n) === n.toLocaleString('en-US')));
  });

  it('shows integer microseconds as exact milliseconds', () => {
    expect(formatUs(1234567)).toBe('1,234.567 ms');
    expect(formatUs(5)).toBe('0.005 ms');
    expect(formatUs(-2500)).toBe('-2.500 ms');
    expect(formatUs(null)).toBe('open (no end mark)');
  });

  it('picks tick decimals from the step', () => {
    expect(tickLabel(12000, 1000)).toBe('12 ms');
    expect(tickLabel(1250, 100)).toBe('1.3 ms');
    expect(tickLabel(5, 1)).toBe('0.005 ms');
  });
});
