/**
 * Edges as smooth curves through the layout's bend points, the way Netron draws them: a uniform
 * cubic B-spline (d3's curveBasis) over the polyline, which starts and ends exactly at the
 * polyline's ends, leaves each end along its first/last segment and rounds every bend instead of
 * a sharp detour. One definition serves the canvas (a CanvasRenderingContext2D is a CurveSink),
 * the SVG export (a path string), and everything that needs the curve as segments: culling,
 * edge-label placement and hit testing (`flattenEdges`). DOM-free.
 */

/** Anything that takes path commands: a canvas 2D context, a Path2D, an SVG path builder. */
export interface CurveSink {
  moveTo(x: number, y: number): void;
  lineTo(x: number, y: number): void;
  bezierCurveTo(c1x: number, c1y: number, c2x: number, c2y: number, x: number, y: number): void;
}

/**
 * Traces the curve through points[2a .. 2b) (x, y pairs; b - a points). `endBack` shortens the
 * final straight piece by that much (room for an arrow head), never past its start.
 */
export function traceEdge(p: ArrayLike<number>, a: number, b: number, sink: CurveSink, endBack = 0): void {
  const n = b - a;
  if (n < 2) return;
  const x0 = p[2 * a]!, y0 = p[2 * a + 1]!;
  sink.moveTo(x0, y0);
  if (n === 2) {
    const x1 = p[2 * a + 2]!, y1 = p[2 * a + 3]!;
    const [ex, ey] = shorten(x0, y0, x1, y1, endBack);
    sink.lineTo(ex, ey);
    return;
  }
  sink.lineTo((5 * x0 + p[2 * a + 2]!) / 6, (5 * y0 + p[2 * a + 3]!) / 6);
  for (let i = a + 2; i < b; i++) {
    const ax = p[2 * i - 4]!, ay = p[2 * i - 3]!;
    const bx = p[2 * i - 2]!, by = p[2 * i - 1]!;
    const cx = p[2 * i]!, cy = p[2 * i + 1]!;
    sink.bezierCurveTo((2 * ax + bx) / 3, (2 * ay + by) / 3, (ax + 2 * bx) / 3, (ay + 2 * by) / 3, (ax + 4 * bx + cx) / 6, (ay + 4 * by + cy) / 6);
  }
  const ax = p[2 * b - 4]!, ay = p[2 * b - 3]!;
  const bx = p[2 * b - 2]!, by = p[2 * b - 1]!;
  const qx = (ax + 5 * bx) / 6, qy = (ay + 5 * by) / 6;
  sink.bezierCurveTo((2 * ax + bx) / 3, (2 * ay + by) / 3, (ax + 2 * bx) / 3, (ay + 2 * by) / 3, qx, qy);
  const [ex, ey] = shorten(qx, qy, bx, by, endBack);
  if (ex !== qx || ey !== qy) sink.lineTo(ex, ey);
}

/** (x1, y1) moved back towards (x0, y0) by `back`, at most to (x0, y0). */
function shorten(x0: number, y0: number, x1: number, y1: number, back: number): [number, number] {
  if (back <= 0) return [x1, y1];
  const d = Math.hypot(x1 - x0, y1 - y0);
  if (d === 0) return [x1, y1];
  const t = Math.min(1, back / d);
  return [x1 - (x1 - x0) * t, y1 - (y1 - y0) * t];
}

/** The SVG path data of the curve (coordinates rounded to 0.01). */
export function edgePathData(p: ArrayLike<number>, a: number, b: number, endBack = 0): string {
  let d = '';
  const r = (v: number) => {
    const x = Math.round(v * 100) / 100;
    return Object.is(x, -0) ? '0' : String(x);
  };
  traceEdge(p, a, b, {
    moveTo: (x, y) => void (d += `M${r(x)},${r(y)}`),
    lineTo: (x, y) => void (d += `L${r(x)},${r(y)}`),
    bezierCurveTo: (c1x, c1y, c2x, c2y, x, y) => void (d += `C${r(c1x)},${r(c1y)},${r(c2x)},${r(c2y)},${r(x)},${r(y)}`),
  }, endBack);
  return d;
}

/** Straight pieces per cubic when flattening: enough for placing labels and hit testing within a pixel or two at readable zoom. */
export const FLATTEN_STEPS = 4;

/** Every edge's curve as a polyline: points[2 * offsets[e] .. 2 * offsets[e + 1]). */
export interface FlatEdges {
  offsets: Uint32Array;
  points: Float32Array;
}

/** Number of flattened points of an edge with `n` layout points. */
function flatCount(n: number): number {
  if (n < 2) return 0;
  if (n === 2) return 2;
  // moveTo, lineTo, (n - 1) cubics of FLATTEN_STEPS points each, final lineTo
  return 2 + (n - 1) * FLATTEN_STEPS + 1;
}

/**
 * Flattens the curves of edges 0 .. edgeCount-1 of a layout (polyline offsets in points): the
 * points `traceEdge` would give a sink, each cubic cut into FLATTEN_STEPS straight pieces. Written
 * out rather than through a CurveSink (same arithmetic, in the same order, so the same points):
 * at 100,000 operators the sink's calls and `shorten`'s pairs were most of its cost.
 */
export function flattenEdges(points: ArrayLike<number>, offsets: ArrayLike<number>, edgeCount: number): FlatEdges {
  const out = new Uint32Array(edgeCount + 1);
  for (let e = 0; e < edgeCount; e++) out[e + 1] = out[e]! + flatCount(offsets[e + 1]! - offsets[e]!);
  const flat = new Float32Array(2 * out[edgeCount]!);
  const p = points;
  let k = 0;
  for (let e = 0; e < edgeCount; e++) {
    const a = offsets[e]!, b = offsets[e + 1]!;
    const n = b - a;
    if (n >= 2) {
      const x0 = p[2 * a]!, y0 = p[2 * a + 1]!;
      flat[k++] = x0;
      flat[k++] = y0;
      if (n === 2) {
        flat[k++] = p[2 * a + 2]!;
        flat[k++] = p[2 * a + 3]!;
      } else {
        let cx = (5 * x0 + p[2 * a + 2]!) / 6, cy = (5 * y0 + p[2 * a + 3]!) / 6;
        flat[k++] = cx;
        flat[k++] = cy;
        for (let i = a + 2; i <= b; i++) {
          // the cubic from the previous end through the B-spline's control points (traceEdge's)
          const ax = p[2 * i - 4]!, ay = p[2 * i - 3]!;
          const bx = p[2 * i - 2]!, by = p[2 * i - 1]!;
          const c1x = (2 * ax + bx) / 3, c1y = (2 * ay + by) / 3, c2x = (ax + 2 * bx) / 3, c2y = (ay + 2 * by) / 3;
          let x: number, y: number;
          if (i < b) {
            const qx = p[2 * i]!, qy = p[2 * i + 1]!;
            x = (ax + 4 * bx + qx) / 6;
            y = (ay + 4 * by + qy) / 6;
          } else {
            x = (ax + 5 * bx) / 6;
            y = (ay + 5 * by) / 6;
          }
          for (let s = 1; s <= FLATTEN_STEPS; s++) {
            const t = s / FLATTEN_STEPS, u = 1 - t;
            const w0 = u * u * u, w1 = 3 * u * u * t, w2 = 3 * u * t * t, w3 = t * t * t;
            flat[k++] = w0 * cx + w1 * c1x + w2 * c2x + w3 * x;
            flat[k++] = w0 * cy + w1 * c1y + w2 * c2y + w3 * y;
          }
          cx = x;
          cy = y;
        }
        // traceEdge's final lineTo to the last point, left out when it has zero length
        const lx = p[2 * b - 2]!, ly = p[2 * b - 1]!;
        if (lx !== cx || ly !== cy) {
          flat[k++] = lx;
          flat[k++] = ly;
        }
      }
    }
    // keep the count exact (a skipped final lineTo repeats the last point)
    while (k < 2 * out[e + 1]!) {
      flat[k] = flat[k - 2]!;
      flat[k + 1] = flat[k - 1]!;
      k += 2;
    }
  }
  return { offsets: out, points: flat };
}

/** Distance from (px, py) to the segment (ax, ay)-(bx, by). */
export function segmentDistance(px: number, py: number, ax: number, ay: number, bx: number, by: number): number {
  const dx = bx - ax, dy = by - ay;
  const len2 = dx * dx + dy * dy;
  let t = len2 > 0 ? ((px - ax) * dx + (py - ay) * dy) / len2 : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  return Math.hypot(px - (ax + t * dx), py - (ay + t * dy));
}

/** Whether the segment (ax, ay)-(bx, by) touches the rectangle [x0, x1] x [y0, y1] (Liang-Barsky clipping). */
export function segmentHitsRect(ax: number, ay: number, bx: number, by: number, x0: number, y0: number, x1: number, y1: number): boolean {
  const dx = bx - ax, dy = by - ay;
  let t0 = 0, t1 = 1;
  const clip = (p: number, q: number): boolean => {
    if (p === 0) return q >= 0;
    const r = q / p;
    if (p < 0) {
      if (r > t1) return false;
      if (r > t0) t0 = r;
    } else {
      if (r < t0) return false;
      if (r < t1) t1 = r;
    }
    return true;
  };
  return clip(-dx, ax - x0) && clip(dx, x1 - ax) && clip(-dy, ay - y0) && clip(dy, y1 - ay) && t0 <= t1;
}
