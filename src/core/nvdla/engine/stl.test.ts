import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RbTreeOrder, stdSort } from './stl';

/** the LCG the C++ oracle program used */
function lcg(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s;
  };
}

describe('libstdc++ behaviour', () => {
  it('std::sort places ties exactly as libstdc++ does (output of g++ 12 on the same input)', () => {
    const next = lcg(12345);
    const v = Array.from({ length: 60 }, (_, tag) => ({ key: (next() >>> 16) % 7, tag }));
    stdSort(v, (a, b) => a.key < b.key);
    const oracle =
      '0:1 0:22 0:21 0:18 0:15 0:12 0:52 0:0 0:57 0:55 1:23 1:19 1:26 1:33 1:39 1:5 1:43 1:46 1:51 2:30 2:47 2:25 2:48 2:59 2:20 2:24 2:6 2:4 2:17 3:58 3:29 3:27 3:54 3:14 3:8 3:13 3:40 4:56 4:49 4:10 4:45 4:11 4:42 4:36 5:44 5:2 5:3 5:16 5:32 5:53 5:9 5:38 5:41 6:50 6:7 6:34 6:35 6:31 6:37 6:28';
    expect(v.map((p) => `${p.key}:${p.tag}`).join(' ')).toBe(oracle);
  });

  it('std::map order under a comparator where both kinds are "less" than each other (g++ 12 oracle)', () => {
    const next = lcg(99);
    const t = new RbTreeOrder<{ kind: number; id: number }>((a, b) => (a.kind === b.kind ? a.id < b.id : true));
    for (let i = 0; i < 40; i++) t.insertUnique({ kind: (next() >>> 16) & 1, id: i });
    const oracle = '1.1 1.4 1.5 1.7 1.9 1.15 1.16 1.17 1.20 1.21 1.23 1.25 1.29 1.30 1.31 1.32 1.33 1.34 1.36 1.38 0.0 0.2 0.3 0.6 0.8 0.10 0.11 0.12 0.13 0.14 0.18 0.19 0.22 0.24 0.26 0.27 0.28 0.35 0.37 0.39';
    expect(t.keys().map((k) => `${k.kind}.${k.id}`).join(' ')).toBe(oracle);
  });

  it('sorts any array (and the tree keeps a consistent order sorted, duplicates out)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: -50, max: 50 }), { maxLength: 300 }), (xs) => {
        expect(stdSort([...xs], (a, b) => a < b)).toEqual([...xs].sort((a, b) => a - b));
        const t = new RbTreeOrder<number>((a, b) => a < b);
        for (const x of xs) t.insertUnique(x);
        expect(t.keys()).toEqual([...new Set(xs)].sort((a, b) => a - b));
      }),
    );
  });
});
