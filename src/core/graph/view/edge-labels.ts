/**
 * Placement of edge labels (dtype and shape), once per graph: beside the edge's curve (right or
 * left of it where the curve runs along y, above or below where it runs along x, then the other
 * two sides), at its
 * middle or, when that place is taken, at a third, two thirds, a fifth or four fifths of its
 * length; never over a node box, another label or any edge (its own included), so a label never
 * sits on a crossing edge and two parallel edges each keep their own. A label with no free place
 * is dropped: hovering the edge shows it. DOM-free.
 */
import type { GraphLayout } from '../layout-types';
import { segmentHitsRect, type FlatEdges } from './edge-curve';
import { queryGrid, type SpatialGrid } from './spatial-grid';

export interface EdgeLabelPlacement {
  /** left end and vertical middle of each label's text; NaN when the label is dropped */
  x: Float64Array;
  y: Float64Array;
  /** text width per label (graph units) */
  width: Float64Array;
}

export const EDGE_LABEL_GAP = 4;

/** Where along an edge a label may go, in order of preference (fractions of its length). */
const ALONG = [0.5, 0.35, 0.65, 0.2, 0.8];

export interface EdgeLabelInput {
  layout: Pick<GraphLayout, 'x' | 'y' | 'w' | 'h'>;
  edgeCount: number;
  /** text width of edge e's label, 0 for none */
  width: (e: number) => number;
  textHeight: number;
  nodeGrid: SpatialGrid;
  flat: FlatEdges;
  /** segments of `flat` (see buildSegmentGrid) */
  segmentGrid: SpatialGrid;
}

export function placeEdgeLabels(input: EdgeLabelInput): EdgeLabelPlacement {
  const { layout, edgeCount, textHeight, nodeGrid, flat, segmentGrid } = input;
  const x = new Float64Array(edgeCount).fill(NaN);
  const y = new Float64Array(edgeCount).fill(NaN);
  const width = new Float64Array(edgeCount);
  const nodeScratch = new Uint32Array(Math.max(1, nodeGrid.itemCount));
  const segScratch = new Uint32Array(Math.max(1, segmentGrid.itemCount));
  const pts = flat.points;
  const hitsNode = (x0: number, y0: number, x1: number, y1: number): boolean => {
    const n = queryGrid(nodeGrid, x0, y0, x1, y1, nodeScratch);
    for (let k = 0; k < n; k++) {
      const i = nodeScratch[k]!;
      const hw = layout.w[i]! / 2 + 1, hh = layout.h[i]! / 2 + 1;
      if (layout.x[i]! + hw > x0 && layout.x[i]! - hw < x1 && layout.y[i]! + hh > y0 && layout.y[i]! - hh < y1) return true;
    }
    return false;
  };
  // placed labels in a uniform grid over the drawing: per cell a linked list in typed arrays
  // (no object per label or per cell; grown by doubling)
  let gx0 = Infinity, gy0 = Infinity, gx1 = -Infinity, gy1 = -Infinity;
  for (let k = 0; k < pts.length; k += 2) {
    if (pts[k]! < gx0) gx0 = pts[k]!;
    if (pts[k]! > gx1) gx1 = pts[k]!;
    if (pts[k + 1]! < gy0) gy0 = pts[k + 1]!;
    if (pts[k + 1]! > gy1) gy1 = pts[k + 1]!;
  }
  if (!(gx1 >= gx0)) gx0 = gy0 = gx1 = gy1 = 0;
  let cell = 64;
  while (((gx1 - gx0) / cell + 3) * ((gy1 - gy0) / cell + 3) > 4_000_000) cell *= 2;
  const cols = Math.floor((gx1 - gx0) / cell) + 3, rows = Math.floor((gy1 - gy0) / cell) + 3;
  // labels may reach a little past the edges' bounds: one spare cell each side, clamped beyond
  const cx = (v: number) => Math.max(0, Math.min(cols - 1, Math.floor((v - gx0) / cell) + 1));
  const cy = (v: number) => Math.max(0, Math.min(rows - 1, Math.floor((v - gy0) / cell) + 1));
  const head = new Int32Array(cols * rows).fill(-1);
  let next = new Int32Array(1024);
  let label = new Int32Array(1024);
  let used = 0;
  const hitsLabel = (x0: number, y0: number, x1: number, y1: number): boolean => {
    for (let r = cy(y0); r <= cy(y1); r++) {
      for (let c = cx(x0); c <= cx(x1); c++) {
        for (let k = head[r * cols + c]!; k >= 0; k = next[k]!) {
          const j = label[k]!;
          const jx0 = x[j]! - 1, jx1 = x[j]! + width[j]! + 1, jy0 = y[j]! - textHeight / 2 - 1, jy1 = y[j]! + textHeight / 2 + 1;
          if (jx1 > x0 && jx0 < x1 && jy1 > y0 && jy0 < y1) return true;
        }
      }
    }
    return false;
  };
  const remember = (e: number, x0: number, y0: number, x1: number, y1: number) => {
    for (let r = cy(y0); r <= cy(y1); r++) {
      for (let c = cx(x0); c <= cx(x1); c++) {
        if (used === next.length) {
          const n2 = new Int32Array(2 * used), l2 = new Int32Array(2 * used);
          n2.set(next);
          l2.set(label);
          next = n2;
          label = l2;
        }
        label[used] = e;
        next[used] = head[r * cols + c]!;
        head[r * cols + c] = used++;
      }
    }
  };
  const hitsEdge = (x0: number, y0: number, x1: number, y1: number): boolean => {
    const n = queryGrid(segmentGrid, x0, y0, x1, y1, segScratch);
    for (let k = 0; k < n; k++) {
      const s = segScratch[k]!;
      if (segmentHitsRect(pts[2 * s]!, pts[2 * s + 1]!, pts[2 * s + 2]!, pts[2 * s + 3]!, x0, y0, x1, y1)) return true;
    }
    return false;
  };
  const free = (x0: number, y0: number, x1: number, y1: number) => !hitsNode(x0, y0, x1, y1) && !hitsLabel(x0, y0, x1, y1) && !hitsEdge(x0, y0, x1, y1);
  const th = textHeight;
  for (let e = 0; e < edgeCount; e++) {
    const tw = input.width(e);
    if (!(tw > 0)) continue;
    const a = flat.offsets[e]!, b = flat.offsets[e + 1]!;
    if (b - a < 2) continue;
    width[e] = tw;
    let total = 0;
    for (let k = a; k + 1 < b; k++) total += Math.hypot(pts[2 * k + 2]! - pts[2 * k]!, pts[2 * k + 3]! - pts[2 * k + 1]!);
    if (!(total > 0)) continue;
    let done = false;
    for (let f = 0; f < ALONG.length && !done; f++) {
      // the point at this fraction of the length, and the direction of the curve there
      let want = ALONG[f]! * total;
      let k = a;
      let seg = 0;
      for (; k + 1 < b; k++) {
        seg = Math.hypot(pts[2 * k + 2]! - pts[2 * k]!, pts[2 * k + 3]! - pts[2 * k + 1]!);
        if (want <= seg || k + 2 >= b) break;
        want -= seg;
      }
      const t = seg > 0 ? Math.min(1, want / seg) : 0;
      const dx = pts[2 * k + 2]! - pts[2 * k]!, dy = pts[2 * k + 3]! - pts[2 * k + 1]!;
      const px = pts[2 * k]! + t * dx, py = pts[2 * k + 1]! + t * dy;
      // beside a curve that runs along y: right, then left; beside one that runs along x: above, then below
      const alongY = Math.abs(dy) >= Math.abs(dx);
      for (let side = 0; side < 4 && !done; side++) {
        let lx: number, my: number;
        if ((side < 2) === alongY) {
          lx = side % 2 === 0 ? px + EDGE_LABEL_GAP : px - EDGE_LABEL_GAP - tw;
          my = py;
        } else {
          lx = px - tw / 2;
          my = side % 2 === 0 ? py - EDGE_LABEL_GAP - th / 2 : py + EDGE_LABEL_GAP + th / 2;
        }
        const x0 = lx, x1 = lx + tw, y0 = my - th / 2, y1 = my + th / 2;
        if (!free(x0, y0, x1, y1)) continue;
        x[e] = lx;
        y[e] = my;
        remember(e, x0, y0, x1, y1);
        done = true;
      }
    }
  }
  return { x, y, width };
}
