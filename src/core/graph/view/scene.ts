/**
 * Everything the renderer needs that depends only on the graph, the display choice and the layout
 * (built once per graph, in the layout worker: `prepareView`), never per frame. DOM-free.
 *
 * Text is referenced, not copied: node titles, names and edge labels are indices into the pack's
 * string table (which the UI thread decoded when it unpacked the graph) with a precomputed fit;
 * row texts are indices into the boxes' own small table. So the scene crosses the worker boundary
 * as typed arrays plus a short string list, whatever the size of the graph.
 */
import type { GraphLayout, LayoutOptions, LayoutProgress } from '../layout-types';
import type { Graph } from '../model';
import { decodeStrings, packGraph, type GraphPack } from '../pack';
import { layout as layoutGraph } from '../layout';
import { buildNavIndex, type NavIndex } from './keyboard-nav';
import { placeEdgeLabels } from './edge-labels';
import { flattenEdges, type FlatEdges } from './edge-curve';
import { EDGE_LABEL_FONT, EDGE_LABEL_FONT_SIZE, FIT_ALL, FontMeasure, fittedText, SUBTITLE_FONT, TITLE_FONT } from './labels';
import { boxBuffers, DEFAULT_DISPLAY, nodeBoxes, ROW_BOLD_FONT, ROW_FONT, type BoxMeasures, type DisplayOptions, type NodeBoxes } from './node-box';
import { buildGrid, buildSegmentGrid, nodeBoxes as layoutBoxes, type SpatialGrid } from './spatial-grid';

export interface SceneData {
  nodeCount: number;
  edgeCount: number;
  display: DisplayOptions;
  boxes: NodeBoxes;
  nodeGrid: SpatialGrid;
  /** the edges' curves as polylines, and a grid over their segments (item = point index) */
  flat: FlatEdges;
  segmentGrid: SpatialGrid;
  /** edge of each flattened point */
  pointEdge: Uint32Array;
  nav: NavIndex;
  /** per node: its kind and category as the pack holds them (indices into pack KINDS / CATEGORIES), for the style */
  nodeKind: Uint8Array;
  nodeCategory: Uint8Array;
  /** the nodes with chained layers (GraphNode.chain), in order */
  chainNodes: Uint32Array;
  /** edges by source node, in edge order: the edges leaving node i are outEdges[outEdgeStart[i] .. outEdgeStart[i + 1]) */
  outEdgeStart: Uint32Array;
  outEdges: Uint32Array;
  /** edge label: pack string index (-1 none or dropped), fit, left end and vertical middle (graph units); see SceneLabels */
  edgeLabelRef: Int32Array;
  edgeLabelFit: Uint32Array;
  edgeLabelX: Float64Array;
  edgeLabelY: Float64Array;
  /** bounds of everything drawn */
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

/** A scene with what it refers to: the graph, its layout and the pack's decoded strings. */
export interface Scene extends SceneData {
  graph: Graph;
  layout: GraphLayout;
  strings: readonly string[];
  /** composed truncated texts, filled as they are first drawn */
  textCache: Map<number, string>;
}

export interface SceneMeasures extends BoxMeasures {
  edgeLabel: FontMeasure;
}

/** Edge labels are kept under this width (graph units). */
export const EDGE_LABEL_MAX = 120;

/** The edge labels of a scene: which label each edge shows (pack string and fit) and where. */
export interface SceneLabels {
  /** pack string index (-1: none, or no free place) */
  edgeLabelRef: Int32Array;
  edgeLabelFit: Uint32Array;
  /** left end and vertical middle (graph units) */
  edgeLabelX: Float64Array;
  edgeLabelY: Float64Array;
}

/** No label on any of `m` edges (a scene whose labels are being placed). */
export function noLabels(m: number): SceneLabels {
  return { edgeLabelRef: new Int32Array(m).fill(-1), edgeLabelFit: new Uint32Array(m), edgeLabelX: new Float64Array(m).fill(NaN), edgeLabelY: new Float64Array(m).fill(NaN) };
}

/**
 * The scene of a laid-out graph (the boxes must be the ones the layout was made from). With
 * `labels` false the edge labels are left out (`noLabels`): `sceneLabels` places them afterwards,
 * so a big graph can be drawn before its labels are placed (the layout worker sends them next).
 */
export function buildSceneData(p: GraphPack, strings: readonly string[], layout: GraphLayout, boxes: NodeBoxes, display: DisplayOptions, measures: SceneMeasures, labels = true): SceneData {
  const n = Math.min(p.nodeId.length, layout.x.length);
  const m = Math.min(p.edgeFrom.length, Math.max(0, layout.edgeOffsets.length - 1));
  const flat = flattenEdges(layout.edgePoints, layout.edgeOffsets, m);
  let minX = 0, minY = 0, maxX = layout.width, maxY = layout.height;
  for (let i = 0; i < n; i++) {
    const hw = layout.w[i]! / 2, hh = layout.h[i]! / 2;
    if (layout.x[i]! - hw < minX) minX = layout.x[i]! - hw;
    if (layout.x[i]! + hw > maxX) maxX = layout.x[i]! + hw;
    if (layout.y[i]! - hh < minY) minY = layout.y[i]! - hh;
    if (layout.y[i]! + hh > maxY) maxY = layout.y[i]! + hh;
  }
  const nodeGrid = buildGrid(layoutBoxes(layout));
  // the flattened points' bounds come with their grid (one pass over a million points, not two)
  const { grid: segmentGrid, pointEdge, bounds } = buildSegmentGrid(flat, m);
  if (bounds.minX < minX) minX = bounds.minX;
  if (bounds.maxX > maxX) maxX = bounds.maxX;
  if (bounds.minY < minY) minY = bounds.minY;
  if (bounds.maxY > maxY) maxY = bounds.maxY;
  return {
    nodeCount: n,
    edgeCount: m,
    display,
    boxes,
    nodeGrid,
    flat,
    segmentGrid,
    pointEdge,
    nav: buildNavIndex(n, p.edgeFrom.subarray(0, m), p.edgeTo.subarray(0, m), layout),
    ...edgesBySource(n, p.edgeFrom, m),
    nodeKind: p.kind.slice(0, n),
    nodeCategory: p.category.slice(0, n),
    chainNodes: Uint32Array.from(p.chains.map(([i]) => i)),
    ...(labels ? sceneLabels(p, strings, layout, { edgeCount: m, nodeGrid, flat, segmentGrid }, measures) : noLabels(m)),
    minX, minY, maxX, maxY,
  };
}

/**
 * The edges leaving each node, in edge order (what a node's accessible description lists), as
 * typed arrays: the view reads it for the few nodes on screen, never walking the edge objects.
 */
export function edgesBySource(n: number, edgeFrom: ArrayLike<number>, m: number): { outEdgeStart: Uint32Array; outEdges: Uint32Array } {
  const outEdgeStart = new Uint32Array(n + 1);
  for (let e = 0; e < m; e++) if (edgeFrom[e]! < n) outEdgeStart[edgeFrom[e]! + 1]++;
  for (let i = 0; i < n; i++) outEdgeStart[i + 1] += outEdgeStart[i]!;
  const fill = outEdgeStart.slice(0, n);
  const outEdges = new Uint32Array(outEdgeStart[n]!);
  for (let e = 0; e < m; e++) if (edgeFrom[e]! < n) outEdges[fill[edgeFrom[e]!]!++] = e;
  return { outEdgeStart, outEdges };
}

/** What placing the edge labels reads of a scene. */
export type LabelGround = Pick<SceneData, 'edgeCount' | 'nodeGrid' | 'flat' | 'segmentGrid'>;

/** The edge labels: texts fitted once per distinct string, placed clear of nodes, labels and edges. */
export function sceneLabels(p: GraphPack, strings: readonly string[], layout: Pick<GraphLayout, 'x' | 'y' | 'w' | 'h'>, ground: LabelGround, measures: SceneMeasures): SceneLabels {
  const m = ground.edgeCount;
  const labelW = new Map<number, number>();
  const labelFit = new Map<number, number>();
  const edgeLabelRef = new Int32Array(m).fill(-1);
  const edgeLabelFit = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    const ref = p.edgeLabel[e]!;
    const text = strings[ref]!;
    if (!text) continue;
    let fit = labelFit.get(ref);
    if (fit === undefined) {
      fit = measures.edgeLabel.fit(text, EDGE_LABEL_MAX);
      labelFit.set(ref, fit);
      labelW.set(ref, measures.edgeLabel.width(fittedText(text, fit)));
    }
    if (fit === 0) continue;
    edgeLabelRef[e] = ref;
    edgeLabelFit[e] = fit;
  }
  const placed = placeEdgeLabels({
    layout,
    edgeCount: m,
    width: (e) => (edgeLabelRef[e]! >= 0 ? labelW.get(edgeLabelRef[e]!)! : 0),
    textHeight: EDGE_LABEL_FONT_SIZE + 2,
    nodeGrid: ground.nodeGrid,
    flat: ground.flat,
    segmentGrid: ground.segmentGrid,
  });
  for (let e = 0; e < m; e++) if (Number.isNaN(placed.x[e]!)) edgeLabelRef[e] = -1;
  return { edgeLabelRef, edgeLabelFit, edgeLabelX: placed.x, edgeLabelY: placed.y };
}

/** A copy of what `sceneLabels` reads (the originals can then be transferred away). */
export function copyLabelGround(g: LabelGround, layout: Pick<GraphLayout, 'x' | 'y' | 'w' | 'h'>): { ground: LabelGround; layout: Pick<GraphLayout, 'x' | 'y' | 'w' | 'h'> } {
  // a grid not queried yet (epoch 0) has nothing in its stamps: a fresh zeroed array, not a copy
  const grid = (s: SpatialGrid): SpatialGrid => ({ ...s, start: s.start.slice(), items: s.items.slice(), stamp: s.epoch === 0 ? new Uint32Array(s.stamp.length) : s.stamp.slice() });
  return {
    ground: { edgeCount: g.edgeCount, nodeGrid: grid(g.nodeGrid), flat: { offsets: g.flat.offsets.slice(), points: g.flat.points.slice() }, segmentGrid: grid(g.segmentGrid) },
    layout: { x: layout.x.slice(), y: layout.y.slice(), w: layout.w.slice(), h: layout.h.slice() },
  };
}

/** Buffers of the labels (for a transfer list). */
export function labelBuffers(l: SceneLabels): ArrayBuffer[] {
  return [l.edgeLabelRef, l.edgeLabelFit, l.edgeLabelX, l.edgeLabelY].map((a) => a.buffer as ArrayBuffer);
}

export interface PreparedScene {
  layout: GraphLayout;
  scene: SceneData;
}

/**
 * The whole view of a packed graph: node boxes for the display choice (their sizes are the
 * layout's input), the layout, the scene. What the layout worker runs.
 */
export function prepareView(
  p: GraphPack,
  display: DisplayOptions,
  options: LayoutOptions,
  measures: SceneMeasures,
  onProgress?: LayoutProgress,
  given?: readonly string[],
  labels = true,
): PreparedScene {
  // progress reports name the phase that just ended (as the layout's do)
  const strings = given ?? decodeStrings(p.strings);
  onProgress?.('strings', 0);
  const boxes = nodeBoxes(p, strings, display, measures);
  onProgress?.('boxes', 0);
  const layout = layoutGraph({ widths: boxes.widths, heights: boxes.heights, edgeFrom: p.edgeFrom, edgeTo: p.edgeTo }, options, onProgress);
  onProgress?.('scene', 0.95);
  const scene = buildSceneData(p, strings, layout, boxes, display, measures, labels);
  onProgress?.('ready', 1);
  return { layout, scene };
}

/**
 * The scene of a graph whose layout was made elsewhere (harnesses, tests, the fallback of a view
 * that got no prepared scene): boxes are taken as the layout made them, their text fitted to them.
 */
export function buildScene(graph: Graph, layout: GraphLayout, measures: SceneMeasures, display: DisplayOptions = DEFAULT_DISPLAY): Scene {
  const p = packGraph(graph);
  const strings = decodeStrings(p.strings);
  const boxes = nodeBoxes(p, strings, display, measures, { widths: layout.w, heights: layout.h });
  return withGraph(buildSceneData(p, strings, layout, boxes, display, measures), graph, layout, strings);
}

export function withGraph(data: SceneData, graph: Graph, layout: GraphLayout, strings: readonly string[]): Scene {
  return { ...data, graph, layout, strings, textCache: new Map() };
}

/** The text of a (pack string, fit) pair, composed once per distinct pair. */
export function sceneText(scene: Scene, ref: number, fit: number): string {
  const text = scene.strings[ref] ?? '';
  if (fit === FIT_ALL) return text;
  const key = ref * 4294967296 + fit;
  let t = scene.textCache.get(key);
  if (t === undefined) {
    t = fittedText(text, fit);
    scene.textCache.set(key, t);
  }
  return t;
}

/** A row's regular text (the part after the bold role name), fitted. */
export function rowText(scene: Pick<Scene, 'boxes' | 'textCache'>, r: number): string {
  const b = scene.boxes;
  const text = b.texts[b.rowText[r]!]!;
  const fit = b.rowFit[r]!;
  if (fit === FIT_ALL) return text;
  const key = -1 - r;
  let t = scene.textCache.get(key);
  if (t === undefined) {
    t = fittedText(text, fit);
    scene.textCache.set(key, t);
  }
  return t;
}

/** A chained layer's band label (its type), fitted. */
export function chainText(scene: Pick<Scene, 'boxes' | 'textCache'>, q: number): string {
  const b = scene.boxes;
  const text = b.texts[b.chainText[q]!]!;
  const fit = b.chainFit[q]!;
  if (fit === FIT_ALL) return text;
  // cache keys: rows are -1 - r; bands below every row
  const key = -1 - b.rowKind.length - q;
  let t = scene.textCache.get(key);
  if (t === undefined) {
    t = fittedText(text, fit);
    scene.textCache.set(key, t);
  }
  return t;
}

/** Buffers a transfer list can move (distinct). */
export function sceneBuffers(d: SceneData): ArrayBuffer[] {
  const arrays: ArrayBufferView[] = [
    ...boxBuffers(d.boxes),
    d.nodeGrid.start, d.nodeGrid.items, d.nodeGrid.stamp,
    d.segmentGrid.start, d.segmentGrid.items, d.segmentGrid.stamp,
    d.flat.offsets, d.flat.points, d.pointEdge,
    d.nav.outStart, d.nav.outTargets, d.nav.inStart, d.nav.inSources, d.nav.order, d.nav.orderPos, d.nav.rank,
    d.outEdgeStart, d.outEdges, d.nodeKind, d.nodeCategory, d.chainNodes,
    d.edgeLabelRef, d.edgeLabelFit, d.edgeLabelX, d.edgeLabelY,
  ];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** Text measures from any 2D context that has `measureText` (a canvas, or an OffscreenCanvas in a worker). */
export interface TextMeasurer {
  font: string;
  measureText(text: string): { width: number };
}

export function sceneMeasuresFrom(ctx: TextMeasurer | null): SceneMeasures {
  const by = (font: string, fallback: number) =>
    new FontMeasure((ch) => {
      if (!ctx) return ch.length * fallback;
      ctx.font = font;
      return ctx.measureText(ch).width;
    });
  return { title: by(TITLE_FONT, 6.6), subtitle: by(SUBTITLE_FONT, 5), row: by(ROW_FONT, 5), rowBold: by(ROW_BOLD_FONT, 5.5), edgeLabel: by(EDGE_LABEL_FONT, 4.5) };
}
