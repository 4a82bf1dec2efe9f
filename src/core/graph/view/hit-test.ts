/**
 * Hit testing through the node grid: which node is under a point in graph coordinates.
 * DOM-free.
 */
import type { GraphLayout } from '../layout-types';
import { queryGrid, type SpatialGrid } from './spatial-grid';
import { segmentDistance, type FlatEdges } from './edge-curve';
import { BOX, type NodeBoxes } from './node-box';

/**
 * The node whose box contains (wx, wy), or when none does, the nearest node whose box lies within
 * `tolerance` graph units of the point (so tiny nodes far out stay clickable). Null for empty space.
 * `scratch` must hold at least grid.itemCount entries.
 */
export function hitTestNode(
  grid: SpatialGrid,
  layout: GraphLayout,
  wx: number,
  wy: number,
  tolerance: number,
  scratch: Uint32Array,
): number | null {
  const t = Math.max(0, tolerance);
  const n = queryGrid(grid, wx - t, wy - t, wx + t, wy + t, scratch);
  let best: number | null = null;
  let bestDist = Infinity;
  for (let k = 0; k < n; k++) {
    const i = scratch[k];
    const hw = layout.w[i] / 2, hh = layout.h[i] / 2;
    const dx = Math.max(0, Math.abs(wx - layout.x[i]) - hw);
    const dy = Math.max(0, Math.abs(wy - layout.y[i]) - hh);
    const d = Math.hypot(dx, dy);
    if (d > t) continue;
    // inside: prefer the box whose centre is closest (overlapping boxes are rare in a layered layout)
    const score = d === 0 ? -1 / (1 + Math.hypot(wx - layout.x[i], wy - layout.y[i])) : d;
    if (score < bestDist) {
      bestDist = score;
      best = i;
    }
  }
  return best;
}

/** Writes into `out` the nodes whose boxes really intersect the rectangle; returns the count. */
export function nodesInRect(
  grid: SpatialGrid,
  layout: GraphLayout,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  out: Uint32Array,
): number {
  const n = queryGrid(grid, x0, y0, x1, y1, out);
  let m = 0;
  for (let k = 0; k < n; k++) {
    const i = out[k];
    const hw = layout.w[i] / 2, hh = layout.h[i] / 2;
    if (layout.x[i] + hw < x0 || layout.x[i] - hw > x1 || layout.y[i] + hh < y0 || layout.y[i] - hh > y1) continue;
    out[m++] = i;
  }
  return m;
}

/**
 * The edge whose curve passes within `tolerance` of (wx, wy), the nearest one; null when none.
 * `scratch` must hold at least segmentGrid.itemCount entries.
 */
export function hitTestEdge(
  scene: { segmentGrid: SpatialGrid; flat: FlatEdges; pointEdge: Uint32Array },
  wx: number,
  wy: number,
  tolerance: number,
  scratch: Uint32Array,
): number | null {
  const t = Math.max(0, tolerance);
  const n = queryGrid(scene.segmentGrid, wx - t, wy - t, wx + t, wy + t, scratch);
  const p = scene.flat.points;
  let best: number | null = null;
  let bestDist = Infinity;
  for (let k = 0; k < n; k++) {
    const s = scratch[k]!;
    const d = segmentDistance(wx, wy, p[2 * s]!, p[2 * s + 1]!, p[2 * s + 2]!, p[2 * s + 3]!);
    if (d <= t && d < bestDist) {
      bestDist = d;
      best = scene.pointEdge[s]!;
    }
  }
  return best;
}

/** The body row of node i under (wx, wy) (an index into the boxes' row arrays), or -1. */
export function hitTestRow(boxes: NodeBoxes, layout: Pick<GraphLayout, 'x' | 'y' | 'w' | 'h'>, i: number, wx: number, wy: number): number {
  const r0 = boxes.rowStart[i]!, r1 = boxes.rowStart[i + 1]!;
  if (r1 <= r0) return -1;
  const left = layout.x[i]! - layout.w[i]! / 2;
  const top = layout.y[i]! - layout.h[i]! / 2 + boxes.header[i]! + BOX.bodyPad;
  if (wx < left || wx > left + layout.w[i]!) return -1;
  const r = Math.floor((wy - top) / BOX.rowH);
  return r >= 0 && r < r1 - r0 ? r0 + r : -1;
}
