/**
 * Uniform-grid spatial index over axis-aligned boxes (nodes) or polyline segments (edges).
 * Built once per graph and layout; a query returns each item overlapping a rectangle once.
 * Storage is CSR (cell start offsets + item ids) in typed arrays. DOM-free.
 */
import type { GraphLayout } from '../layout-types';

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
  for (let i = 0; i < src.count; i++) {
    if (src.x0[i] < minX) minX = src.x0[i];
    if (src.y0[i] < minY) minY = src.y0[i];
    if (src.x1[i] > maxX) maxX = src.x1[i];
    if (src.y1[i] > maxY) maxY = src.y1[i];
  }
  if (src.count === 0 || !Number.isFinite(minX)) {
    minX = 0; minY = 0; maxX = 1; maxY = 1;
  }
  const cell = cellSize ?? chooseCellSize(maxX - minX, maxY - minY, src.count);
  const cols = Math.max(1, Math.floor((maxX - minX) / cell) + 1);
  const rows = Math.max(1, Math.floor((maxY - minY) / cell) + 1);
  const counts = new Uint32Array(cols * rows + 1);
  const range = (i: number): [number, number, number, number] => {
    const cx0 = Math.min(cols - 1, Math.max(0, Math.floor((src.x0[i] - minX) / cell)));
    const cy0 = Math.min(rows - 1, Math.max(0, Math.floor((src.y0[i] - minY) / cell)));
    const cx1 = Math.min(cols - 1, Math.max(0, Math.floor((src.x1[i] - minX) / cell)));
    const cy1 = Math.min(rows - 1, Math.max(0, Math.floor((src.y1[i] - minY) / cell)));
    return [cx0, cy0, cx1, cy1];
  };
  for (let i = 0; i < src.count; i++) {
    const [cx0, cy0, cx1, cy1] = range(i);
    for (let cy = cy0; cy <= cy1; cy++) for (let cx = cx0; cx <= cx1; cx++) counts[cy * cols + cx + 1]++;
  }
  const start = new Uint32Array(cols * rows + 1);
  for (let c = 0; c < cols * rows; c++) start[c + 1] = start[c] + counts[c + 1];
  const fill = start.slice(0, cols * rows);
  const items = new Uint32Array(start[cols * rows]);
  for (let i = 0; i < src.count; i++) {
    const [cx0, cy0, cx1, cy1] = range(i);
    const id = src.owner ? src.owner[i] : i;
    for (let cy = cy0; cy <= cy1; cy++) {
      for (let cx = cx0; cx <= cx1; cx++) {
        const c = cy * cols + cx;
        // the same owner may already be in this cell (adjacent segments of one edge)
        const s = start[c];
        const e = fill[c];
        if (e > s && items[e - 1] === id) continue;
        items[fill[c]++] = id;
      }
    }
  }
  // compact cells that skipped duplicates
  let w = 0;
  const compactStart = new Uint32Array(cols * rows + 1);
  for (let c = 0; c < cols * rows; c++) {
    compactStart[c] = w;
    for (let k = start[c]; k < fill[c]; k++) items[w++] = items[k];
  }
  compactStart[cols * rows] = w;
  return {
    minX, minY, cell, cols, rows,
    start: compactStart,
    items: items.subarray(0, w),
    itemCount: src.itemCount,
    stamp: new Uint32Array(src.itemCount),
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
