/**
 * Uniform-grid spatial index over axis-aligned boxes (nodes) or polyline segments (edges).
 * Built once per graph and layout; a query returns each item overlapping a rectangle once.
 * Storage is CSR (cell start offsets + item ids) in typed arrays. DOM-free.
 */
import type { GraphLayout } from '../layout-types';
import type { FlatEdges } from './edge-curve';

export interface SpatialGrid {
  minX: number;
  minY: number;
  cell: number;
  cols: number;
  rows: number;
  /** items of cell c are items[start[c] .. start[c + 1]) */
  start: Uint32Array;
  items: Uint32Array;
  /** number of distinct items (ids are 0 .. itemCount-1) */
  itemCount: number;
  /** per-item stamp for de-duplication during a query */
  stamp: Uint32Array;
  epoch: number;
}

/** A box source: `count` items, box i = [x0[i], y0[i]] .. [x1[i], y1[i]], owned by item owner[i] (or i). */
export interface BoxSource {
  count: number;
  x0: Float64Array;
  y0: Float64Array;
  x1: Float64Array;
  y1: Float64Array;
  /** item id of each box; when absent box i belongs to item i */
  owner?: Uint32Array;
  itemCount: number;
}

const MAX_CELLS = 1 << 18;

/** Picks a cell size from the bounds and the number of boxes: about 2 boxes per cell, at most MAX_CELLS cells. */
export function chooseCellSize(width: number, height: number, count: number, minCell = 32): number {
  const area = Math.max(1, width) * Math.max(1, height);
  let cell = Math.sqrt((area * 2) / Math.max(1, count));
  cell = Math.max(minCell, cell);
  while ((Math.ceil(width / cell) + 1) * (Math.ceil(height / cell) + 1) > MAX_CELLS) cell *= 1.5;
  return cell;
}

export function buildGrid(src: BoxSource, cellSize?: number): SpatialGrid {
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  const { x0, y0, x1, y1, count } = src;
  for (let i = 0; i < count; i++) {
    if (x0[i]! < minX) minX = x0[i]!;
    if (y0[i]! < minY) minY = y0[i]!;
    if (x1[i]! > maxX) maxX = x1[i]!;
    if (y1[i]! > maxY) maxY = y1[i]!;
  }
  return fillGrid(count, (i, out) => {
    out[0] = x0[i]!; out[1] = y0[i]!; out[2] = x1[i]!; out[3] = y1[i]!;
    return true;
  }, (i) => (src.owner ? src.owner[i]! : i), src.itemCount, minX, minY, maxX, maxY, cellSize);
}

/** The smallest and largest coordinates of a set of points (Infinity / -Infinity when there are none). */
export interface PointBounds {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/**
 * A grid over the segments of flattened edges (and the bounds of their points, which it needs). Item ids are point indices: item k is the segment
 * from point k to point k + 1 of its edge (the last point of an edge starts no segment); the edge
 * of a segment is `pointEdge[k]`.
 */
export function buildSegmentGrid(flat: FlatEdges, edgeCount: number, cellSize?: number): { grid: SpatialGrid; pointEdge: Uint32Array; bounds: PointBounds } {
  const pts = flat.points;
  const npts = pts.length / 2;
  const pointEdge = new Uint32Array(npts);
  const starts = new Uint8Array(npts);
  for (let e = 0; e < edgeCount; e++) {
    const a = flat.offsets[e]!, b = flat.offsets[e + 1]!;
    for (let k = a; k < b; k++) {
      pointEdge[k] = e;
      starts[k] = 1;
    }
    // the last point of an edge starts no segment
    if (b > a) starts[b - 1] = 0;
  }
  let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity;
  for (let k = 0; k < npts; k++) {
    const x = pts[2 * k]!, y = pts[2 * k + 1]!;
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
  }
  const bounds: PointBounds = { minX, minY, maxX, maxY };
  if (npts === 0 || !Number.isFinite(minX) || !Number.isFinite(minY) || !Number.isFinite(maxX) || !Number.isFinite(maxY)) {
    const grid = fillGrid(npts, (k, out) => {
      if (!starts[k]) return false;
      const ax = pts[2 * k]!, ay = pts[2 * k + 1]!, bx = pts[2 * k + 2]!, by = pts[2 * k + 3]!;
      out[0] = ax < bx ? ax : bx; out[1] = ay < by ? ay : by; out[2] = ax < bx ? bx : ax; out[3] = ay < by ? by : ay;
      return true;
    }, (k) => k, npts, minX, minY, maxX, maxY, cellSize);
    return { grid, pointEdge, bounds };
  }
  // fillGrid's two passes, written out for segments: the cell range of a segment is computed once
  // (the first pass keeps it) and a segment, almost always inside one cell, is one store. At
  // 100,000 operators there are about a million segments.
  const cell = cellSize ?? chooseCellSize(maxX - minX, maxY - minY, npts);
  const cols = Math.max(1, Math.floor((maxX - minX) / cell) + 1);
  const rows = Math.max(1, Math.floor((maxY - minY) / cell) + 1);
  const cells = cols * rows;
  /** per point: the cell of the segment it starts when that is one cell, -1 none, -2 several */
  const cellOf = new Int32Array(npts);
  const counts = new Uint32Array(cells + 1);
  const col = (x: number) => {
    const c = Math.floor((x - minX) / cell);
    return c < 0 ? 0 : c >= cols ? cols - 1 : c;
  };
  const row = (y: number) => {
    const r = Math.floor((y - minY) / cell);
    return r < 0 ? 0 : r >= rows ? rows - 1 : r;
  };
  for (let k = 0; k < npts; k++) {
    if (!starts[k]) {
      cellOf[k] = -1;
      continue;
    }
    const ax = pts[2 * k]!, ay = pts[2 * k + 1]!, bx = pts[2 * k + 2]!, by = pts[2 * k + 3]!;
    const cx0 = col(ax < bx ? ax : bx), cx1 = col(ax < bx ? bx : ax);
    const cy0 = row(ay < by ? ay : by), cy1 = row(ay < by ? by : ay);
    if (cx0 === cx1 && cy0 === cy1) {
      const c = cy0 * cols + cx0;
      cellOf[k] = c;
      counts[c + 1]++;
    } else {
      cellOf[k] = -2;
      for (let cy = cy0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) counts[cy * cols + cx + 1]++;
    }
  }
  const start = new Uint32Array(cells + 1);
  for (let c = 0; c < cells; c++) start[c + 1] = start[c]! + counts[c + 1]!;
  const fill = start.slice(0, cells);
  const items = new Uint32Array(start[cells]!);
  for (let k = 0; k < npts; k++) {
    const c = cellOf[k]!;
    if (c >= 0) {
      items[fill[c]!++] = k;
    } else if (c === -2) {
      const ax = pts[2 * k]!, ay = pts[2 * k + 1]!, bx = pts[2 * k + 2]!, by = pts[2 * k + 3]!;
      const cx0 = col(ax < bx ? ax : bx), cx1 = col(ax < bx ? bx : ax);
      const cy0 = row(ay < by ? ay : by), cy1 = row(ay < by ? by : ay);
      for (let cy = cy0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) items[fill[cy * cols + cx]!++] = k;
    }
  }
  // item ids are distinct (one per segment): no cell holds one twice, so nothing to compact
  const grid: SpatialGrid = { minX, minY, cell, cols, rows, start, items, itemCount: npts, stamp: new Uint32Array(npts), epoch: 0 };
  return { grid, pointEdge, bounds };
}

/** The grid of `count` boxes given by `box(i, out)` (false: no box), owned by `owner(i)`. */
function fillGrid(
  count: number,
  box: (i: number, out: Float64Array) => boolean,
  owner: (i: number) => number,
  itemCount: number,
  minX: number, minY: number, maxX: number, maxY: number,
  cellSize?: number,
): SpatialGrid {
  if (count === 0 || !Number.isFinite(minX) || !Number.isFinite(minY) || !Number.isFinite(maxX) || !Number.isFinite(maxY)) {
    minX = 0; minY = 0; maxX = 1; maxY = 1;
  }
  const cell = cellSize ?? chooseCellSize(maxX - minX, maxY - minY, count);
  const cols = Math.max(1, Math.floor((maxX - minX) / cell) + 1);
  const rows = Math.max(1, Math.floor((maxY - minY) / cell) + 1);
  const cells = cols * rows;
  const b = new Float64Array(4);
  const clampC = (v: number) => (v < 0 ? 0 : v >= cols ? cols - 1 : v);
  const clampR = (v: number) => (v < 0 ? 0 : v >= rows ? rows - 1 : v);
  const counts = new Uint32Array(cells + 1);
  for (let i = 0; i < count; i++) {
    if (!box(i, b)) continue;
    const cx0 = clampC(Math.floor((b[0]! - minX) / cell)), cy0 = clampR(Math.floor((b[1]! - minY) / cell));
    const cx1 = clampC(Math.floor((b[2]! - minX) / cell)), cy1 = clampR(Math.floor((b[3]! - minY) / cell));
    for (let cy = cy0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) counts[cy * cols + cx + 1]++;
  }
  const start = new Uint32Array(cells + 1);
  for (let c = 0; c < cells; c++) start[c + 1] = start[c]! + counts[c + 1]!;
  const fill = start.slice(0, cells);
  const items = new Uint32Array(start[cells]!);
  for (let i = 0; i < count; i++) {
    if (!box(i, b)) continue;
    const cx0 = clampC(Math.floor((b[0]! - minX) / cell)), cy0 = clampR(Math.floor((b[1]! - minY) / cell));
    const cx1 = clampC(Math.floor((b[2]! - minX) / cell)), cy1 = clampR(Math.floor((b[3]! - minY) / cell));
    const id = owner(i);
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const c = cy * cols + cx;
        // the same owner may already be in this cell (adjacent segments of one edge)
        const e = fill[c]!;
        if (e > start[c]! && items[e - 1] === id) continue;
        items[fill[c]!++] = id;
      }
    }
  }
  // compact cells that skipped duplicates
  let w = 0;
  const compactStart = new Uint32Array(cells + 1);
  for (let c = 0; c < cells; c++) {
    compactStart[c] = w;
    for (let k = start[c]!; k < fill[c]!; k++) items[w++] = items[k]!;
  }
  compactStart[cells] = w;
  return {
    minX, minY, cell, cols, rows,
    start: compactStart,
    items: w === items.length ? items : items.slice(0, w),
    itemCount,
    stamp: new Uint32Array(itemCount),
    epoch: 0,
  };
}

/**
 * Writes the ids of items in cells overlapping [x0,y0]..[x1,y1] into `out` (each once) and returns
 * how many. Items are candidates: their cell overlaps, their box may not (callers that need exact
 * answers test the box). `out` must hold itemCount entries.
 */
export function queryGrid(g: SpatialGrid, x0: number, y0: number, x1: number, y1: number, out: Uint32Array): number {
  const cx0 = Math.max(0, Math.floor((x0 - g.minX) / g.cell));
  const cy0 = Math.max(0, Math.floor((y0 - g.minY) / g.cell));
  const cx1 = Math.min(g.cols - 1, Math.floor((x1 - g.minX) / g.cell));
  const cy1 = Math.min(g.rows - 1, Math.floor((y1 - g.minY) / g.cell));
  if (cx1 < cx0 || cy1 < cy0) return 0;
  g.epoch++;
  if (g.epoch === 0xffffffff) {
    g.stamp.fill(0);
    g.epoch = 1;
  }
  const ep = g.epoch;
  const stamp = g.stamp;
  const items = g.items;
  const start = g.start;
  let n = 0;
  for (let cy = cy0; cy <= cy1; cy++) {
    const row = cy * g.cols;
    for (let cx = cx0; cx <= cx1; cx++) {
      const c = row + cx;
      for (let k = start[c], e = start[c + 1]; k < e; k++) {
        const id = items[k];
        if (stamp[id] !== ep) {
          stamp[id] = ep;
          out[n++] = id;
        }
      }
    }
  }
  return n;
}

/** Node boxes of a layout as a BoxSource. */
export function nodeBoxes(layout: GraphLayout): BoxSource {
  const n = layout.x.length;
  const x0 = new Float64Array(n), y0 = new Float64Array(n), x1 = new Float64Array(n), y1 = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const hw = layout.w[i] / 2, hh = layout.h[i] / 2;
    x0[i] = layout.x[i] - hw; x1[i] = layout.x[i] + hw;
    y0[i] = layout.y[i] - hh; y1[i] = layout.y[i] + hh;
  }
  return { count: n, x0, y0, x1, y1, itemCount: n };
}

/** Edge polyline segments of a layout as a BoxSource owned by edge index. */
export function edgeSegmentBoxes(layout: GraphLayout): BoxSource {
  const edges = Math.max(0, layout.edgeOffsets.length - 1);
  let segs = 0;
  for (let e = 0; e < edges; e++) segs += Math.max(0, layout.edgeOffsets[e + 1] - layout.edgeOffsets[e] - 1);
  const x0 = new Float64Array(segs), y0 = new Float64Array(segs), x1 = new Float64Array(segs), y1 = new Float64Array(segs);
  const owner = new Uint32Array(segs);
  const p = layout.edgePoints;
  let s = 0;
  for (let e = 0; e < edges; e++) {
    for (let k = layout.edgeOffsets[e]; k + 1 < layout.edgeOffsets[e + 1]; k++) {
      const ax = p[2 * k], ay = p[2 * k + 1], bx = p[2 * k + 2], by = p[2 * k + 3];
      x0[s] = Math.min(ax, bx); x1[s] = Math.max(ax, bx);
      y0[s] = Math.min(ay, by); y1[s] = Math.max(ay, by);
      owner[s] = e;
      s++;
    }
  }
  return { count: segs, x0, y0, x1, y1, owner, itemCount: edges };
}
