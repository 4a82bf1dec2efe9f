import { describe, expect, it } from 'vitest';
import { buildGrid, buildSegmentGrid, edgeSegmentBoxes, nodeBoxes, queryGrid } from './spatial-grid';
import { hitTestNode, nodesInRect } from './hit-test';
import { diamond } from './fixtures.test-util';
import { seededRandom } from '../../random';


describe('spatial grid', () => {
  it('returns every box that overlaps a rectangle, each once (random boxes, brute force check)', () => {
    const rnd = seededRandom(7);
    const n = 2000;
    const x0 = new Float64Array(n), y0 = new Float64Array(n), x1 = new Float64Array(n), y1 = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      x0[i] = rnd() * 5000; y0[i] = rnd() * 3000;
      x1[i] = x0[i] + 20 + rnd() * (i % 50 === 0 ? 2000 : 150);
      y1[i] = y0[i] + 20 + rnd() * 60;
    }
    const g = buildGrid({ count: n, x0, y0, x1, y1, itemCount: n });
    const out = new Uint32Array(n);
    for (let q = 0; q < 50; q++) {
      const qx = rnd() * 5500 - 250, qy = rnd() * 3300 - 150, qw = rnd() * 1500, qh = rnd() * 900;
      const m = queryGrid(g, qx, qy, qx + qw, qy + qh, out);
      const got = new Set(Array.from(out.subarray(0, m)));
      expect(got.size).toBe(m);
      for (let i = 0; i < n; i++) {
        const overlaps = !(x1[i] < qx || x0[i] > qx + qw || y1[i] < qy || y0[i] > qy + qh);
        if (overlaps) expect(got.has(i)).toBe(true);
      }
    }
  });

  it('indexes edge segments by edge id, de-duplicated', () => {
    const { layout } = diamond();
    const src = edgeSegmentBoxes(layout);
    expect(src.count).toBe(5);
    const g = buildGrid(src, 16);
    const out = new Uint32Array(5);
    const m = queryGrid(g, -1000, -1000, 1000, 1000, out);
    expect(Array.from(out.subarray(0, m)).sort()).toEqual([0, 1, 2, 3, 4]);
    // only the edge 3 -> 4 (x 150 -> 100, y 157 -> 189) near (140, 165)
    const m2 = queryGrid(g, 138, 163, 142, 167, out);
    expect(Array.from(out.subarray(0, m2))).toContain(4);
  });

  it('the segment grid holds each segment in exactly the cells its box overlaps (the generic box grid, cell for cell)', () => {
    const rnd = seededRandom(11);
    // polylines of 2 to 6 points, mostly short steps, some long jumps across many cells
    const offsets = [0];
    const pts: number[] = [];
    for (let e = 0; e < 400; e++) {
      const count = 2 + Math.floor(rnd() * 5);
      let x = rnd() * 4000, y = rnd() * 3000;
      for (let k = 0; k < count; k++) {
        pts.push(x, y);
        const far = rnd() < 0.1 ? 900 : 30;
        x += (rnd() - 0.5) * far;
        y += rnd() * far;
      }
      offsets.push(offsets[offsets.length - 1]! + count);
    }
    const flat = { offsets: Uint32Array.from(offsets), points: Float32Array.from(pts) };
    const edges = offsets.length - 1;
    const npts = pts.length / 2;
    for (const cell of [undefined, 40, 300]) {
      const { grid, pointEdge } = buildSegmentGrid(flat, edges, cell);
      const x0: number[] = [], y0: number[] = [], x1: number[] = [], y1: number[] = [], owner: number[] = [];
      for (let e = 0; e < edges; e++) {
        for (let k = offsets[e]!; k < offsets[e + 1]!; k++) {
          expect(pointEdge[k]).toBe(e);
          if (k + 1 === offsets[e + 1]) continue;
          const ax = flat.points[2 * k]!, ay = flat.points[2 * k + 1]!, bx = flat.points[2 * k + 2]!, by = flat.points[2 * k + 3]!;
          x0.push(Math.min(ax, bx)); y0.push(Math.min(ay, by)); x1.push(Math.max(ax, bx)); y1.push(Math.max(ay, by)); owner.push(k);
        }
      }
      const boxes = { count: owner.length, x0: Float64Array.from(x0), y0: Float64Array.from(y0), x1: Float64Array.from(x1), y1: Float64Array.from(y1), owner: Uint32Array.from(owner), itemCount: npts };
      const reference = buildGrid(boxes, grid.cell);
      expect({ ...grid, stamp: null }).toEqual({ ...reference, stamp: null });
    }
  });

  it('an empty layout gives an empty grid', () => {
    const g = buildGrid({ count: 0, x0: new Float64Array(0), y0: new Float64Array(0), x1: new Float64Array(0), y1: new Float64Array(0), itemCount: 0 });
    expect(queryGrid(g, -10, -10, 10, 10, new Uint32Array(1))).toBe(0);
  });
});

describe('hit testing', () => {
  const { layout } = diamond();
  const grid = buildGrid(nodeBoxes(layout), 32);
  const scratch = new Uint32Array(5);

  it('finds the node under a point', () => {
    expect(hitTestNode(grid, layout, 100, 80, 0, scratch)).toBe(1);
    expect(hitTestNode(grid, layout, 55, 150, 0, scratch)).toBe(2);
    expect(hitTestNode(grid, layout, 150, 140, 0, scratch)).toBe(3);
  });

  it('gives null on empty space and honours the tolerance', () => {
    expect(hitTestNode(grid, layout, 100, 110, 0, scratch)).toBeNull();
    expect(hitTestNode(grid, layout, 100, 100, 4, scratch)).toBe(1); // box bottom at 97
    expect(hitTestNode(grid, layout, 400, 400, 5, scratch)).toBeNull();
  });

  it('lists exactly the nodes in a rectangle', () => {
    const out = new Uint32Array(5);
    const m = nodesInRect(grid, layout, 0, 120, 200, 160, out);
    expect(Array.from(out.subarray(0, m)).sort()).toEqual([2, 3]);
  });
});
