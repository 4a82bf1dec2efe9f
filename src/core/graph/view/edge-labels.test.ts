import { describe, expect, it } from 'vitest';
import { placeEdgeLabels } from './edge-labels';
import { buildGrid, nodeBoxes } from './spatial-grid';
import { diamond } from './fixtures.test-util';

const measure = (s: string) => s.length * 5;

describe('edge label placement', () => {
  it('places labels beside their edge, clear of nodes and of each other', () => {
    const { graph, layout } = diamond();
    const grid = buildGrid(nodeBoxes(layout));
    const labels = graph.edges.map((e) => e.label);
    const pl = placeEdgeLabels(layout, graph.edges.length, labels, measure, grid, 10);
    const boxes: [number, number, number, number][] = [];
    for (let e = 0; e < graph.edges.length; e++) {
      if (!labels[e]) {
        expect(Number.isNaN(pl.x[e])).toBe(true);
        continue;
      }
      if (Number.isNaN(pl.x[e])) continue;
      const b: [number, number, number, number] = [pl.x[e], pl.y[e] - 5, pl.x[e] + pl.width[e], pl.y[e] + 5];
      for (let i = 0; i < graph.nodes.length; i++) {
        const overlap = b[2] > layout.x[i] - layout.w[i] / 2 && b[0] < layout.x[i] + layout.w[i] / 2
          && b[3] > layout.y[i] - layout.h[i] / 2 && b[1] < layout.y[i] + layout.h[i] / 2;
        expect(overlap, `label ${e} over node ${i}`).toBe(false);
      }
      for (const o of boxes) expect(b[2] > o[0] && b[0] < o[2] && b[3] > o[1] && b[1] < o[3]).toBe(false);
      boxes.push(b);
    }
    // the first edge (input -> add) has room on its right
    expect(pl.x[0]).toBeCloseTo(104);
    expect(boxes.length).toBeGreaterThanOrEqual(3);
  });

  it('drops a label that has no free place', () => {
    const { graph, layout } = diamond();
    const grid = buildGrid(nodeBoxes(layout));
    // two labels on the same edge geometry: the second must take the other side or be dropped
    const labels = ['x'.repeat(10), 'x'.repeat(10), '', '', ''];
    const l2 = { ...layout, edgePoints: Float64Array.from([100, 31, 100, 63, 100, 31, 100, 63, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]) };
    const pl = placeEdgeLabels(l2, 5, labels, measure, grid, 10);
    expect(pl.x[0]).toBeCloseTo(104);
    expect(pl.x[1]).toBeCloseTo(100 - 4 - 50);
  });
});
