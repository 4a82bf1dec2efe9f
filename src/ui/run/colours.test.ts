import { describe, expect, it } from 'vitest';
import { colourIndex, VIRIDIS } from './colours';

describe('heatmap colours', () => {
  it('viridis from dark purple to yellow', () => {
    expect(Array.from(VIRIDIS.subarray(0, 3))).toEqual([68, 1, 84]);
    expect(Array.from(VIRIDIS.subarray(255 * 3, 256 * 3))).toEqual([253, 231, 37]);
    // no entry left black (the table is filled)
    const black = [];
    for (let i = 0; i < 256; i++) if (VIRIDIS[i * 3] === 0 && VIRIDIS[i * 3 + 1] === 0 && VIRIDIS[i * 3 + 2] === 0) black.push(i);
    expect(black).toEqual([]);
  });

  it('maps [min, max] onto 0..255; flat planes mid-scale; NaN and infinities apart', () => {
    expect(colourIndex(0, 0, 1)).toBe(0);
    expect(colourIndex(1, 0, 1)).toBe(255);
    expect(colourIndex(0.5, 0, 1)).toBe(128);
    expect(colourIndex(-3, -2, 2)).toBe(0);
    expect(colourIndex(3, 3, 3)).toBe(128);
    expect(colourIndex(NaN, 0, 1)).toBe(-1);
    expect(colourIndex(Infinity, 0, 1)).toBe(-1);
  });
});
