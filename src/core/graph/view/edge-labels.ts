/**
 * Placement of edge labels (shape/dtype), once per graph: beside the middle of one of the edge's
 * longest segments, right or left of it, never over a node box or another label; a label with no
 * free place is dropped (shown on hover in the panels instead). DOM-free.
 */
import type { GraphLayout } from '../layout-types';
import { queryGrid, type SpatialGrid } from './spatial-grid';

export interface EdgeLabelPlacement {
  /** left end and vertical middle of each label's text; NaN when the label is dropped */
  x: Float64Array;
  y: Float64Array;
  /** text width per label (graph units) */
  width: Float64Array;
}

export const EDGE_LABEL_GAP = 4;

export function placeEdgeLabels(
  layout: GraphLayout,
  edgeCount: number,
  labels: ReadonlyArray<string>,
  measure: (s: string) => number,
  nodeGrid: SpatialGrid,
  textHeight: number,
): EdgeLabelPlacement {
  const x = new Float64Array(edgeCount).fill(NaN);
  const y = new Float64Array(edgeCount).fill(NaN);
  const width = new Float64Array(edgeCount);
  const p = layout.edgePoints;
  const scratch = new Uint32Array(Math.max(1, nodeGrid.itemCount));
  // placed labels in a hash grid
  const CELL = 64;
  const placed = new Map<number, number[]>();
  const key = (cx: number, cy: number) => cx * 1_000_003 + cy;
  const hitsNode = (x0: number, y0: number, x1: number, y1: number): boolean => {
    const n = queryGrid(nodeGrid, x0, y0, x1, y1, scratch);
    for (let k = 0; k < n; k++) {
      const i = scratch[k];
      const hw = layout.w[i] / 2 + 1, hh = layout.h[i] / 2 + 1;
      if (layout.x[i] + hw > x0 && layout.x[i] - hw < x1 && layout.y[i] + hh > y0 && layout.y[i] - hh < y1) return true;
    }
    return false;
  };
  const hitsLabel = (x0: number, y0: number, x1: number, y1: number): boolean => {
    for (let cy = Math.floor(y0 / CELL); cy <= Math.floor(y1 / CELL); cy++) {
      for (let cx = Math.floor(x0 / CELL); cx <= Math.floor(x1 / CELL); cx++) {
        const list = placed.get(key(cx, cy));
        if (!list) continue;
        for (const j of list) {
          const jx0 = x[j] - 1, jx1 = x[j] + width[j] + 1, jy0 = y[j] - textHeight / 2 - 1, jy1 = y[j] + textHeight / 2 + 1;
          if (jx1 > x0 && jx0 < x1 && jy1 > y0 && jy0 < y1) return true;
        }
      }
    }
    return false;
  };
  const segs: number[] = [];
  for (let e = 0; e < edgeCount; e++) {
    const text = labels[e];
    if (!text) continue;
    const a = layout.edgeOffsets[e], b = layout.edgeOffsets[e + 1];
    if (b - a < 2) continue;
    const tw = measure(text);
    width[e] = tw;
    segs.length = 0;
    for (let q = a; q + 1 < b; q++) segs.push(q);
    const len = (q: number) => Math.hypot(p[2 * q + 2] - p[2 * q], p[2 * q + 3] - p[2 * q + 1]);
    segs.sort((s1, s2) => len(s2) - len(s1));
    let done = false;
    for (let si = 0; si < Math.min(3, segs.length) && !done; si++) {
      const q = segs[si];
      const mx = (p[2 * q] + p[2 * q + 2]) / 2, my = (p[2 * q + 1] + p[2 * q + 3]) / 2;
      for (const side of [1, -1]) {
        const lx = side > 0 ? mx + EDGE_LABEL_GAP : mx - EDGE_LABEL_GAP - tw;
        const x0 = lx, x1 = lx + tw, y0 = my - textHeight / 2, y1 = my + textHeight / 2;
        if (hitsNode(x0, y0, x1, y1) || hitsLabel(x0, y0, x1, y1)) continue;
        x[e] = lx;
        y[e] = my;
        for (let cy = Math.floor(y0 / CELL); cy <= Math.floor(y1 / CELL); cy++) {
          for (let cx = Math.floor(x0 / CELL); cx <= Math.floor(x1 / CELL); cx++) {
            const k = key(cx, cy);
            const list = placed.get(k);
            if (list) list.push(e);
            else placed.set(k, [e]);
          }
        }
        done = true;
        break;
      }
    }
  }
  return { x, y, width };
}
