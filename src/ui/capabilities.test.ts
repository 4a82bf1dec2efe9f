import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { grouped, plural } from './capabilities';

describe('counts', () => {
  it('grouped writes integers as toLocaleString("en-US") does', () => {
    fc.assert(fc.property(fc.integer({ min: -Number.MAX_SAFE_INTEGER, max: Number.MAX_SAFE_INTEGER }), (n) => grouped(n) === n.toLocaleString('en-US')));
    const bad = [0, 7, 999, 1000, 12345, 100000, 1234567, -1000, 2 ** 60, 1e21, -1e25, 1.5, -0.25].filter((n) => grouped(n) !== n.toLocaleString('en-US'));
    expect(bad).toEqual([]);
  });
  it('plural: singular for one, separators for thousands', () => {
    expect([plural(1, 'op'), plural(2, 'op'), plural(100000, 'node'), plural(1, 'match', 'matches')]).toEqual(['1 op', '2 ops', '100,000 nodes', '1 match']);
  });
});
