/**
 * Canvas 2D renderer of a Scene. One call draws one frame: culled through the grids, paths batched
 * per colour (one fill and one stroke per colour, no per-node save/restore, a few font changes),
 * edges as the same curves the SVG export writes (edge-curve.ts), text only when zoomed in enough.
 * Used for the screen and for PNG export.
 */
import { queryGrid } from '../../core/graph/view/spatial-grid';
import { CHAIN_ROW_HEIGHT, EDGE_LABEL_FONT, SUBTITLE_FONT, TITLE_FONT, SUBTITLE_FONT_SIZE, TITLE_FONT_SIZE } from '../../core/graph/view/labels';
import { chainText, rowText, sceneText, type Scene } from '../../core/graph/view/scene';
import { traceEdge } from '../../core/graph/view/edge-curve';
import { BOX, ROW_BOLD_FONT, ROW_FONT } from '../../core/graph/view/node-box';
import type { SceneStyle } from './style';
import { packOf } from '../../core/graph/packed-graph';

export type Ctx2D = CanvasRenderingContext2D | OffscreenCanvasRenderingContext2D;

/** Level-of-detail thresholds on the zoom factor k (screen px per graph unit). */
export const LOD = {
  /** node titles from this zoom */
  text: 0.5,
  /** node names (second line) and the rows of a box's body from this zoom */
  subtitle: 0.75,
  /** edge labels (shape/dtype) from this zoom */
  edgeLabels: 0.95,
  /** arrows, rounded corners and node borders from this zoom */
  detail: 0.22,
  /** below this zoom, edges are drawn as straight source-to-target lines */
  simpleEdges: 0.1,
} as const;

export interface FrameState {
  /** graph -> CSS pixels: screen = graph * k + (x, y) */
  x: number;
  y: number;
  k: number;
  /** CSS size of the drawing area and the device pixel ratio */
  width: number;
  height: number;
  dpr: number;
  selected: number | null;
  focused: number | null;
  highlighted?: Uint8Array;
  /** draw the background (false leaves transparent pixels) */
  background: boolean;
}

export interface FrameScratch {
  nodes: Uint32Array;
  edges: Uint32Array;
  /** segment ids from the segment grid, and a per-edge stamp to list each edge once */
  segments: Uint32Array;
  edgeStamp: Uint32Array;
  epoch: number;
  sorted: Uint32Array;
  counts: Uint32Array;
  /** per-pixel colour marks for far-out dots */
  dots?: Uint16Array;
}

export function makeScratch(scene: Scene): FrameScratch {
  return {
    nodes: new Uint32Array(Math.max(1, scene.nodeCount)),
    edges: new Uint32Array(Math.max(1, scene.edgeCount)),
    segments: new Uint32Array(Math.max(1, scene.segmentGrid.itemCount)),
    edgeStamp: new Uint32Array(Math.max(1, scene.edgeCount)),
    epoch: 0,
    sorted: new Uint32Array(Math.max(1, scene.nodeCount)),
    counts: new Uint32Array(1),
  };
}

export interface FrameResult {
  visibleNodes: number;
  visibleEdges: number;
  /** the visible node ids are scratch.nodes[0 .. visibleNodes) */
}

const ARROW_LEN = 7;
const ARROW_HALF = 3.2;
const CORNER = 4;

export function drawFrame(ctx: Ctx2D, scene: Scene, style: SceneStyle, f: FrameState, scratch: FrameScratch): FrameResult {
  const { layout } = scene;
  const pal = style.palette;
  const k = f.k;
  ctx.setTransform(f.dpr, 0, 0, f.dpr, 0, 0);
  if (f.background) {
    ctx.fillStyle = pal.background;
    ctx.fillRect(0, 0, f.width, f.height);
  } else {
    ctx.clearRect(0, 0, f.width, f.height);
  }
  ctx.setTransform(f.dpr * k, 0, 0, f.dpr * k, f.dpr * f.x, f.dpr * f.y);

  // --- culling
  const pad = 20 / k;
  const vx0 = -f.x / k - pad, vy0 = -f.y / k - pad;
  const vx1 = (f.width - f.x) / k + pad, vy1 = (f.height - f.y) / k + pad;
  const all = vx0 <= scene.minX && vy0 <= scene.minY && vx1 >= scene.maxX && vy1 >= scene.maxY;
  const vn = scratch.nodes;
  const ve = scratch.edges;
  let nn = 0, ne = 0;
  if (all) {
    for (let i = 0; i < scene.nodeCount; i++) vn[nn++] = i;
    for (let e = 0; e < scene.edgeCount; e++) ve[ne++] = e;
  } else {
    const cand = queryGrid(scene.nodeGrid, vx0, vy0, vx1, vy1, vn);
    for (let c = 0; c < cand; c++) {
      const i = vn[c];
      const hw = layout.w[i] / 2, hh = layout.h[i] / 2;
      if (layout.x[i] + hw < vx0 || layout.x[i] - hw > vx1 || layout.y[i] + hh < vy0 || layout.y[i] - hh > vy1) continue;
      vn[nn++] = i;
    }
    const ns = queryGrid(scene.segmentGrid, vx0, vy0, vx1, vy1, scratch.segments);
    if (++scratch.epoch === 0xffffffff) {
      scratch.edgeStamp.fill(0);
      scratch.epoch = 1;
    }
    const ep = scratch.epoch, stamp = scratch.edgeStamp, seg = scratch.segments, pe = scene.pointEdge;
    for (let c = 0; c < ns; c++) {
      const e = pe[seg[c]!]!;
      if (stamp[e] !== ep) {
        stamp[e] = ep;
        ve[ne++] = e;
      }
    }
  }

  const detail = k >= LOD.detail;
  const px = 1 / k; // one CSS pixel in graph units

  // --- edges
  const pts = layout.edgePoints;
  const offs = layout.edgeOffsets;
  const simple = k < LOD.simpleEdges;
  ctx.lineJoin = 'round';
  // edge classes (dependency kinds) are stroked one path each; without them, one path for all
  const classes = style.edges?.classes;
  const edgeClass = style.edges?.edgeClass;
  // stop the line at the arrow's base so the tip stays sharp
  const back = detail ? ARROW_LEN * 0.8 : 0;
  for (let cls = 0; cls < (classes ? classes.length : 1); cls++) {
    const cs = classes?.[cls];
    ctx.lineWidth = Math.max(1, (cs?.width ?? 0.8) * px);
    ctx.strokeStyle = cs ? cs.color : pal.edge;
    ctx.setLineDash(cs && !simple ? cs.dash.map((d) => d * px) : []);
    ctx.beginPath();
    for (let c = 0; c < ne; c++) {
      const e = ve[c];
      if (edgeClass && edgeClass[e] !== cls) continue;
      const a = offs[e], b = offs[e + 1];
      if (b - a < 2) continue;
      if (simple) {
        const ex = pts[2 * b - 2], ey = pts[2 * b - 1];
        // shorter than a pixel on screen: hidden under its nodes anyway
        if (Math.abs(ex - pts[2 * a]) * k < 1 && Math.abs(ey - pts[2 * a + 1]) * k < 1) continue;
        ctx.moveTo(pts[2 * a], pts[2 * a + 1]);
        ctx.lineTo(ex, ey);
      } else {
        traceEdge(pts, a, b, ctx, back);
      }
    }
    ctx.stroke();
  }
  ctx.setLineDash([]);

  // edges touching the selection, in the selection colour
  const sel = f.selected;
  if (sel !== null && sel >= 0 && sel < scene.nodeCount) {
    ctx.strokeStyle = pal.selected;
    ctx.lineWidth = Math.max(1.6, 1.6 * px);
    ctx.beginPath();
    // only the visible edges can show: the culled list is enough. A graph read from its pack
    // (the views' own) gives its edges' ends as typed arrays: no edge object is made per frame
    const pack = packOf(scene.graph);
    const edges = scene.graph.edges;
    for (let c = 0; c < ne; c++) {
      const e = ve[c]!;
      if (pack ? pack.edgeFrom[e] !== sel && pack.edgeTo[e] !== sel : edges[e]!.from !== sel && edges[e]!.to !== sel) continue;
      const a = offs[e], b = offs[e + 1];
      if (b - a >= 2) traceEdge(pts, a, b, ctx, 0);
    }
    ctx.stroke();
  }

  // arrows
  if (detail) {
    ctx.fillStyle = pal.arrow;
    ctx.beginPath();
    for (let c = 0; c < ne; c++) {
      const e = ve[c];
      const a = offs[e], b = offs[e + 1];
      if (b - a < 2) continue;
      const ex = pts[2 * b - 2], ey = pts[2 * b - 1];
      const sx = pts[2 * b - 4], sy = pts[2 * b - 3];
      const d = Math.hypot(ex - sx, ey - sy) || 1;
      const ux = (ex - sx) / d, uy = (ey - sy) / d;
      const bx = ex - ux * ARROW_LEN, by = ey - uy * ARROW_LEN;
      ctx.moveTo(ex, ey);
      ctx.lineTo(bx - uy * ARROW_HALF, by + ux * ARROW_HALF);
      ctx.lineTo(bx + uy * ARROW_HALF, by - ux * ARROW_HALF);
      ctx.closePath();
    }
    ctx.fill();
  }

  // --- nodes, bucketed by fill colour (counting sort over the visible set)
  const nf = style.fills.length;
  if (scratch.counts.length < nf + 1) scratch.counts = new Uint32Array(nf + 1);
  const counts = scratch.counts;
  counts.fill(0);
  for (let c = 0; c < nn; c++) counts[style.nodeFill[vn[c]] + 1]++;
  for (let q = 0; q < nf; q++) counts[q + 1] += counts[q];
  const sorted = scratch.sorted;
  {
    const pos = counts.slice(0, nf);
    for (let c = 0; c < nn; c++) {
      const i = vn[c];
      sorted[pos[style.nodeFill[i]]++] = i;
    }
  }
  const X = layout.x, Y = layout.y, W = layout.w, H = layout.h;
  const marker = scene.boxes.marker;
  const shape = (i: number, grow: number) => {
    const w = W[i] + 2 * grow, h = H[i] + 2 * grow;
    const x = X[i] - w / 2, y = Y[i] - h / 2;
    if (!detail) ctx.rect(x, y, w, h);
    else ctx.roundRect(x, y, w, h, marker[i] ? h / 2 : CORNER + grow);
  };
  // Far out, nodes under two pixels become one-pixel-grid dots, one per pixel and colour.
  const pxW = Math.ceil(f.width), pxH = Math.ceil(f.height);
  let dots: Uint16Array | null = null;
  if (!detail) {
    if (!scratch.dots || scratch.dots.length < pxW * pxH) scratch.dots = new Uint16Array(pxW * pxH);
    dots = scratch.dots;
    dots.fill(0, 0, pxW * pxH);
  }
  const dot = 1.5 * px;
  for (let q = 0; q < nf; q++) {
    const s = counts[q], e = counts[q + 1];
    if (s === e) continue;
    ctx.fillStyle = style.fills[q];
    ctx.beginPath();
    for (let c = s; c < e; c++) {
      const i = sorted[c];
      if (dots && W[i] * k < 2 && H[i] * k < 2) {
        const sx = Math.floor(X[i] * k + f.x), sy = Math.floor(Y[i] * k + f.y);
        if (sx >= 0 && sy >= 0 && sx < pxW && sy < pxH) {
          const cell = sy * pxW + sx;
          if (dots[cell] === q + 1) continue;
          dots[cell] = q + 1;
        }
        ctx.rect(X[i] - dot / 2, Y[i] - dot / 2, Math.max(W[i], dot), Math.max(H[i], dot));
      } else {
        shape(i, 0);
      }
    }
    ctx.fill();
  }
  // the body of a box with rows (constant inputs, attributes): a neutral fill below its header
  const boxes = scene.boxes;
  const rowStart = boxes.rowStart, header = boxes.header;
  const hasRows = (i: number) => rowStart[i + 1]! > rowStart[i]!;
  if (k * BOX.rowH >= 1) {
    ctx.fillStyle = pal.nodeBody;
    ctx.beginPath();
    for (let c = 0; c < nn; c++) {
      const i = sorted[c];
      if (!hasRows(i)) continue;
      const bx = X[i] - W[i] / 2, by = Y[i] - H[i] / 2 + header[i]!, bh = H[i] - header[i]!;
      if (!detail) ctx.rect(bx, by, W[i], bh);
      else ctx.roundRect(bx, by, W[i], bh, [0, 0, CORNER, CORNER]);
    }
    ctx.fill();
  }
  // chained layers (Caffe's in-place layers folded into their producer): a band each at the box's foot, in its own category colour
  const chainStart = boxes.chainStart;
  if (detail && boxes.chainText.length) {
    for (let c = 0; c < nn; c++) {
      const i = sorted[c];
      const a = chainStart[i]!, bands = chainStart[i + 1]! - a;
      for (let r = 0; r < bands; r++) {
        ctx.fillStyle = style.fills[style.chainFill[a + r]!]!;
        const y = Y[i] + H[i] / 2 - (bands - r) * CHAIN_ROW_HEIGHT;
        ctx.beginPath();
        if (r === bands - 1) ctx.roundRect(X[i] - W[i] / 2, y, W[i], CHAIN_ROW_HEIGHT, [0, 0, CORNER, CORNER]);
        else ctx.rect(X[i] - W[i] / 2, y, W[i], CHAIN_ROW_HEIGHT);
        ctx.fill();
      }
    }
  }
  if (detail) {
    // borders, one path per border colour (with the line between header and body)
    ctx.lineWidth = Math.max(0.8, 0.6 * px);
    for (let bq = 0; bq < style.borders.length; bq++) {
      ctx.strokeStyle = style.borders[bq];
      ctx.beginPath();
      let any = false;
      for (let c = 0; c < nn; c++) {
        const i = sorted[c];
        if (style.nodeBorder[i] !== bq) continue;
        shape(i, 0);
        if (hasRows(i)) {
          const hy = Y[i] - H[i] / 2 + header[i]!;
          ctx.moveTo(X[i] - W[i] / 2, hy);
          ctx.lineTo(X[i] + W[i] / 2, hy);
        }
        any = true;
      }
      if (any) ctx.stroke();
    }
  }
  // group outlines
  if (style.outlines.length > 0) {
    ctx.lineWidth = Math.max(2, 2.5 * px);
    for (let oq = 0; oq < style.outlines.length; oq++) {
      ctx.strokeStyle = style.outlines[oq];
      ctx.beginPath();
      let any = false;
      for (let c = 0; c < nn; c++) {
        const i = sorted[c];
        if (style.nodeOutline[i] !== oq + 1) continue;
        shape(i, 2);
        any = true;
      }
      if (any) ctx.stroke();
    }
  }
  // related nodes
  const hl = f.highlighted;
  if (hl) {
    ctx.strokeStyle = pal.highlighted;
    ctx.lineWidth = Math.max(2.5, 2.5 * px);
    ctx.beginPath();
    let any = false;
    for (let c = 0; c < nn; c++) {
      const i = sorted[c];
      if (!hl[i]) continue;
      shape(i, 1.5);
      any = true;
    }
    if (any) ctx.stroke();
  }
  // selection: strong border, always drawn (even when tiny)
  if (sel !== null && sel >= 0 && sel < scene.nodeCount) {
    ctx.strokeStyle = pal.selected;
    ctx.lineWidth = Math.max(3, 3 * px);
    ctx.beginPath();
    shape(sel, 2);
    ctx.stroke();
  }
  const foc = f.focused;
  if (foc !== null && foc >= 0 && foc < scene.nodeCount) {
    ctx.strokeStyle = pal.focus;
    ctx.lineWidth = Math.max(2, 2 * px);
    ctx.setLineDash([4 * Math.max(1, px), 3 * Math.max(1, px)]);
    ctx.beginPath();
    shape(foc, sel === foc ? 6 : 4);
    ctx.stroke();
    ctx.setLineDash([]);
  }

  // --- text
  if (k >= LOD.text) {
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    const withSub = k >= LOD.subtitle;
    const { titleRef, titleFit, subRef, subFit } = boxes;
    ctx.font = TITLE_FONT;
    for (let q = 0; q < nf; q++) {
      const s = counts[q], e = counts[q + 1];
      if (s === e) continue;
      ctx.fillStyle = style.fillText[q];
      for (let c = s; c < e; c++) {
        const i = sorted[c];
        if (titleFit[i] === 0) continue;
        const t = sceneText(scene, titleRef[i]!, titleFit[i]!);
        const cy = Y[i] - H[i] / 2 + header[i]! / 2;
        const dy = withSub && subRef[i]! >= 0 ? -(SUBTITLE_FONT_SIZE + 1) / 2 : 0;
        ctx.fillText(t, X[i], cy + dy + 0.5);
      }
    }
    if (withSub) {
      ctx.font = SUBTITLE_FONT;
      ctx.globalAlpha = 0.85;
      for (let q = 0; q < nf; q++) {
        const s = counts[q], e = counts[q + 1];
        if (s === e) continue;
        ctx.fillStyle = style.fillText[q];
        for (let c = s; c < e; c++) {
          const i = sorted[c];
          if (subRef[i]! < 0 || subFit[i] === 0) continue;
          const cy = Y[i] - H[i] / 2 + header[i]! / 2;
          ctx.fillText(sceneText(scene, subRef[i]!, subFit[i]!), X[i], cy + (TITLE_FONT_SIZE + 1) / 2 + 0.5);
        }
      }
      ctx.globalAlpha = 1;
      // body rows: bold role names first, then the regular text after them (two font changes)
      ctx.textAlign = 'left';
      ctx.fillStyle = pal.nodeBodyText;
      const rowY = (i: number, r: number) => Y[i] - H[i] / 2 + header[i]! + BOX.bodyPad + (r - rowStart[i]! + 0.5) * BOX.rowH + 0.5;
      ctx.font = ROW_BOLD_FONT;
      for (let c = 0; c < nn; c++) {
        const i = sorted[c];
        for (let r = rowStart[i]!; r < rowStart[i + 1]!; r++) {
          if (boxes.rowBold[r]! >= 0) ctx.fillText(boxes.texts[boxes.rowBold[r]!]!, X[i] - W[i] / 2 + BOX.rowPadX, rowY(i, r));
        }
      }
      ctx.font = ROW_FONT;
      for (let c = 0; c < nn; c++) {
        const i = sorted[c];
        for (let r = rowStart[i]!; r < rowStart[i + 1]!; r++) {
          if (boxes.rowFit[r] === 0) continue;
          ctx.fillText(rowText(scene, r), X[i] - W[i] / 2 + BOX.rowPadX + boxes.rowBoldW[r]!, rowY(i, r));
        }
      }
    }
    if (boxes.chainText.length) {
      // the chained layers' types, centred in their bands
      ctx.font = ROW_BOLD_FONT;
      ctx.textAlign = 'center';
      for (let c = 0; c < nn; c++) {
        const i = sorted[c];
        const a = chainStart[i]!, bands = chainStart[i + 1]! - a;
        for (let r = 0; r < bands; r++) {
          if (boxes.chainFit[a + r] === 0) continue;
          ctx.fillStyle = style.fillText[style.chainFill[a + r]!]!;
          ctx.fillText(chainText(scene, a + r), X[i], Y[i] + H[i] / 2 - (bands - r - 0.5) * CHAIN_ROW_HEIGHT + 0.5);
        }
      }
    }
    if (k >= LOD.edgeLabels) {
      ctx.font = EDGE_LABEL_FONT;
      ctx.textAlign = 'left';
      ctx.lineWidth = 3;
      ctx.strokeStyle = pal.background;
      ctx.fillStyle = pal.edgeLabel;
      for (let c = 0; c < ne; c++) {
        const e = ve[c];
        const ref = scene.edgeLabelRef[e]!;
        if (ref < 0) continue;
        const t = sceneText(scene, ref, scene.edgeLabelFit[e]!);
        ctx.strokeText(t, scene.edgeLabelX[e]!, scene.edgeLabelY[e]!);
        ctx.fillText(t, scene.edgeLabelX[e]!, scene.edgeLabelY[e]!);
      }
    }
  }
  return { visibleNodes: nn, visibleEdges: ne };
}
