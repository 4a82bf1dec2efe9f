import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { edgePathData, flattenEdges, segmentDistance, segmentHitsRect, traceEdge, FLATTEN_STEPS, type CurveSink } from './edge-curve';

/** The commands a curve emits, as [kind, ...numbers]. */
function commands(p: number[]): (string | number)[][] {
  const out: (string | number)[][] = [];
  const sink: CurveSink = {
    moveTo: (x, y) => void out.push(['M', x, y]),
    lineTo: (x, y) => void out.push(['L', x, y]),
    bezierCurveTo: (a, b, c, d, x, y) => void out.push(['C', a, b, c, d, x, y]),
  };
  traceEdge(p, 0, p.length / 2, sink);
  return out;
}

const coord = fc.integer({ min: -1000, max: 1000 });
const polyline = fc.array(fc.tuple(coord, coord), { minLength: 2, maxLength: 8 }).map((ps) => ps.flat());

describe('edge curves', () => {
  it('a two-point edge is a straight line; a bent one is cubic pieces from end to end', () => {
    expect(commands([0, 0, 0, 50])).toEqual([['M', 0, 0], ['L', 0, 50]]);
    const c = commands([0, 0, 0, 30, 40, 60, 40, 90]);
    expect(c[0]).toEqual(['M', 0, 0]);
    expect(c.filter((x) => x[0] === 'C').length).toBe(3);
    // it ends exactly at the last point, coming in along the last segment (straight down here)
    const last = c.at(-1)!;
    expect([last[0], ...last.slice(-2)]).toEqual(['L', 40, 90]);
    const beforeLast = c.at(-2)!;
    expect(beforeLast[0]).toBe('C');
    expect(beforeLast.at(-2)).toBeCloseTo(40);
    expect(edgePathData([0, 0, 0, 30, 40, 60, 40, 90], 0, 4)).toMatch(/^M0,0L0,5C.*L40,90$/);
  });

  it('stays inside the bounding box of its bend points and starts and ends at the edge ends (property)', () => {
    fc.assert(
      fc.property(polyline, (p) => {
        const n = p.length / 2;
        const flat = flattenEdges(p, [0, n], 1);
        const q = flat.points;
        const k = flat.offsets[1]!;
        expect(k).toBe(n === 2 ? 2 : 2 + (n - 1) * FLATTEN_STEPS + 1);
        expect([q[0], q[1]]).toEqual([p[0], p[1]]);
        expect(q[2 * k - 2]).toBeCloseTo(p[2 * n - 2]!, 3);
        expect(q[2 * k - 1]).toBeCloseTo(p[2 * n - 1]!, 3);
        const xs = p.filter((_, i) => i % 2 === 0), ys = p.filter((_, i) => i % 2 === 1);
        const bad: number[] = [];
        for (let i = 0; i < k; i++) {
          if (q[2 * i]! < Math.min(...xs) - 0.01 || q[2 * i]! > Math.max(...xs) + 0.01 || q[2 * i + 1]! < Math.min(...ys) - 0.01 || q[2 * i + 1]! > Math.max(...ys) + 0.01) bad.push(i);
        }
        expect(bad).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('flattens to exactly the points of the curve the canvas traces, for several edges in one buffer (property)', () => {
    /** the curve as traceEdge gives it to a sink, each cubic cut into FLATTEN_STEPS pieces */
    const traced = (p: number[]): number[] => {
      const out: number[] = [];
      let cx = 0, cy = 0;
      traceEdge(p, 0, p.length / 2, {
        moveTo: (x, y) => void (out.push(x, y), (cx = x), (cy = y)),
        lineTo: (x, y) => void (out.push(x, y), (cx = x), (cy = y)),
        bezierCurveTo(c1x, c1y, c2x, c2y, x, y) {
          for (let s = 1; s <= FLATTEN_STEPS; s++) {
            const t = s / FLATTEN_STEPS, u = 1 - t;
            const a = u * u * u, b = 3 * u * u * t, c = 3 * u * t * t, d = t * t * t;
            out.push(a * cx + b * c1x + c * c2x + d * x, a * cy + b * c1y + c * c2y + d * y);
          }
          cx = x;
          cy = y;
        },
      });
      return out;
    };
    fc.assert(
      fc.property(fc.array(polyline, { minLength: 1, maxLength: 4 }), (lines) => {
        const points = lines.flat();
        const offsets = [0];
        for (const l of lines) offsets.push(offsets.at(-1)! + l.length / 2);
        const flat = flattenEdges(points, offsets, lines.length);
        lines.forEach((l, e) => {
          const want = Array.from(Float32Array.from(traced(l)));
          const got = Array.from(flat.points.subarray(2 * flat.offsets[e]!, 2 * flat.offsets[e + 1]!));
          // a final piece of zero length is not traced: the flattened edge repeats its last point instead
          while (want.length < got.length) {
            const x = want.at(-2)!, y = want.at(-1)!;
            want.push(x, y);
          }
          expect(got).toEqual(want);
        });
      }),
      { numRuns: 200 },
    );
  });

  it('shortens the last piece for the arrow head, never past its start', () => {
    const c = commands([0, 0, 0, 100]);
    expect(c).toEqual([['M', 0, 0], ['L', 0, 100]]);
    const out: number[][] = [];
    traceEdge([0, 0, 0, 100], 0, 2, { moveTo: () => {}, lineTo: (x, y) => void out.push([x, y]), bezierCurveTo: () => {} }, 8);
    expect(out).toEqual([[0, 92]]);
    out.length = 0;
    traceEdge([0, 0, 0, 5], 0, 2, { moveTo: () => {}, lineTo: (x, y) => void out.push([x, y]), bezierCurveTo: () => {} }, 8);
    expect(out).toEqual([[0, 0]]);
  });

  it('segment distance and rectangle hits', () => {
    expect(segmentDistance(5, 5, 0, 0, 10, 0)).toBe(5);
    expect(segmentDistance(-3, 4, 0, 0, 10, 0)).toBe(5);
    expect(segmentHitsRect(0, 0, 10, 10, 4, 4, 6, 6)).toBe(true);
    expect(segmentHitsRect(0, 0, 10, 0, 4, 1, 6, 6)).toBe(false);
    expect(segmentHitsRect(0, 10, 10, 0, 0, 0, 4, 4)).toBe(false);
  });
});
