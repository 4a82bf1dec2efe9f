import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { placeEdgeLabels } from './edge-labels';
import { buildGrid, buildSegmentGrid, nodeBoxes } from './spatial-grid';
import { flattenEdges, segmentHitsRect } from './edge-curve';
import { diamond } from './fixtures.test-util';
import type { GraphLayout } from '../layout-types';

const measure = (s: string) => s.length * 5;

function place(layout: GraphLayout, labels: string[]) {
  const m = labels.length;
  const flat = flattenEdges(layout.edgePoints, layout.edgeOffsets, m);
  const { grid: segmentGrid } = buildSegmentGrid(flat, m);
  const nodeGrid = buildGrid(nodeBoxes(layout));
  const pl = placeEdgeLabels({ layout, edgeCount: m, width: (e) => measure(labels[e]!), textHeight: 10, nodeGrid, flat, segmentGrid });
  return { pl, flat };
}

/** Every placed label clear of nodes, other labels and every edge segment; returns how many were placed. */
function checkClear(layout: GraphLayout, labels: string[]): number {
  const { pl, flat } = place(layout, labels);
  const boxes: [number, number, number, number][] = [];
  for (let e = 0; e < labels.length; e++) {
    if (!labels[e]) {
      expect(Number.isNaN(pl.x[e]!)).toBe(true);
      continue;
    }
    if (Number.isNaN(pl.x[e]!)) continue;
    const b: [number, number, number, number] = [pl.x[e]!, pl.y[e]! - 5, pl.x[e]! + pl.width[e]!, pl.y[e]! + 5];
    for (let i = 0; i < layout.x.length; i++) {
      const overlap = b[2] > layout.x[i]! - layout.w[i]! / 2 && b[0] < layout.x[i]! + layout.w[i]! / 2
        && b[3] > layout.y[i]! - layout.h[i]! / 2 && b[1] < layout.y[i]! + layout.h[i]! / 2;
      expect(overlap, `label ${e} over node ${i}`).toBe(false);
    }
    for (const o of boxes) expect(b[2] > o[0] && b[0] < o[2] && b[3] > o[1] && b[1] < o[3]).toBe(false);
    const p = flat.points;
    for (let k = 0; k + 1 < p.length / 2; k++) {
      // only segments inside an edge (not from one edge's last point to the next edge's first)
      let inside = false;
      for (let f = 0; f < labels.length; f++) if (k >= flat.offsets[f]! && k + 1 < flat.offsets[f + 1]!) inside = true;
      if (!inside) continue;
      expect(segmentHitsRect(p[2 * k]!, p[2 * k + 1]!, p[2 * k + 2]!, p[2 * k + 3]!, b[0], b[1], b[2], b[3]), `label ${e} on an edge`).toBe(false);
    }
    boxes.push(b);
  }
  return boxes.length;
}

describe('edge label placement', () => {
  it('places labels beside their edge, clear of nodes, of each other and of every edge', () => {
    const { graph, layout } = diamond();
    const labels = graph.edges.map((e) => e.label);
    // the diagonal edges of this cramped diamond may find no place off every edge; the straight one does
    expect(checkClear(layout, labels)).toBeGreaterThanOrEqual(1);
    // the first edge (input -> add) has room on its right
    expect(place(layout, labels).pl.x[0]).toBeCloseTo(104);
  });

  it('two parallel edges each get their own label, on their outer sides', () => {
    const { layout } = diamond();
    // two vertical edges 14 apart between the same nodes
    const l2: GraphLayout = { ...layout, edgeOffsets: Uint32Array.from([0, 2, 4]), edgePoints: Float64Array.from([93, 31, 93, 63, 107, 31, 107, 63]) };
    const { pl } = place(l2, ['x'.repeat(10), 'x'.repeat(10)]);
    expect(pl.x[0]! + pl.width[0]!).toBeLessThanOrEqual(93); // left of the left edge
    expect(pl.x[1]!).toBeGreaterThanOrEqual(107); // right of the right edge
    expect(checkClear(l2, ['x'.repeat(10), 'x'.repeat(10)])).toBe(2);
  });

  it('drops a label that has no free place', () => {
    const { layout } = diamond();
    // three edges on the same short line: the third label finds no side left
    const l3: GraphLayout = { ...layout, edgeOffsets: Uint32Array.from([0, 2, 4, 6]), edgePoints: Float64Array.from([100, 31, 100, 63, 100, 31, 100, 63, 100, 31, 100, 63]) };
    const { pl } = place(l3, ['x'.repeat(10), 'x'.repeat(10), 'x'.repeat(10)]);
    // the edges themselves occupy x = 100: each label is beside them, never across
    for (let e = 0; e < 3; e++) if (!Number.isNaN(pl.x[e]!)) expect(pl.x[e]! >= 100 || pl.x[e]! + pl.width[e]! <= 100).toBe(true);
    expect([0, 1, 2].filter((e) => Number.isNaN(pl.x[e]!)).length).toBeGreaterThanOrEqual(1);
  });

  it('never puts a label on a node, a label or an edge (random crossings)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 300 })), { minLength: 1, maxLength: 12 }),
        fc.array(fc.string({ minLength: 0, maxLength: 14 }), { minLength: 12, maxLength: 12 }),
        (segs, texts) => {
          const m = segs.length;
          const pts = segs.flatMap(([a, b, c, d]) => [a, b, c, d]);
          const layout: GraphLayout = {
            direction: 'TB', width: 300, height: 300,
            x: Float64Array.from([150]), y: Float64Array.from([150]), w: Float64Array.from([30]), h: Float64Array.from([20]),
            rank: Uint32Array.from([0]),
            edgeOffsets: Uint32Array.from({ length: m + 1 }, (_, i) => 2 * i),
            edgePoints: Float64Array.from(pts),
          };
          checkClear(layout, texts.slice(0, m));
        },
      ),
      { numRuns: 60 },
    );
  });
});
