/**
 * Everything the renderer needs that depends only on the graph and layout (built once per graph)
 * or on the theme and colour overrides (built once per change), never per frame. DOM-free.
 */
import type { GraphLayout } from '../layout-types';
import type { Graph } from '../model';
import { buildNavIndex, type NavIndex } from './keyboard-nav';
import { placeEdgeLabels } from './edge-labels';
import {
  CHAIN_ROW_HEIGHT, cachedCharMeasure, EDGE_LABEL_FONT, EDGE_LABEL_FONT_SIZE, NODE_PAD_X, nodeSubtitle, nodeTitle, SUBTITLE_FONT, TITLE_FONT, truncateLabel, type MeasureText,
} from './labels';
import { buildGrid, edgeSegmentBoxes, nodeBoxes, type SpatialGrid } from './spatial-grid';

export interface Scene {
  graph: Graph;
  layout: GraphLayout;
  nodeCount: number;
  edgeCount: number;
  nodeGrid: SpatialGrid;
  edgeGrid: SpatialGrid;
  nav: NavIndex;
  /** 1 for input/output markers (drawn as pills) */
  marker: Uint8Array;
  /** truncated title and subtitle per node ('' when none) */
  titles: string[];
  subtitles: string[];
  /** chained layers (GraphNode.chain) of node i: chainStart[i] .. chainStart[i + 1], their type labels truncated to the box */
  chainStart: Int32Array;
  chainTitles: string[];
  /** edge label: left end and vertical middle of its text (graph units), and the text ('' when none or dropped) */
  edgeLabelX: Float64Array;
  edgeLabelY: Float64Array;
  edgeLabels: string[];
  /** bounds of everything drawn */
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export interface SceneMeasures {
  title: MeasureText;
  subtitle: MeasureText;
  edgeLabel: MeasureText;
}

/** Edge label is kept under this width (graph units). */
export const EDGE_LABEL_MAX = 120;

export function buildScene(graph: Graph, layout: GraphLayout, measures: SceneMeasures): Scene {
  const n = Math.min(graph.nodes.length, layout.x.length);
  const m = Math.min(graph.edges.length, Math.max(0, layout.edgeOffsets.length - 1));
  const marker = new Uint8Array(n);
  const titles: string[] = new Array<string>(n);
  const subtitles: string[] = new Array<string>(n);
  const chainStart = new Int32Array(n + 1);
  const chainTitles: string[] = [];
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i];
    const isMarker = node.kind === 'input' || node.kind === 'output';
    marker[i] = isMarker ? 1 : 0;
    const avail = layout.w[i] - 2 * NODE_PAD_X - (isMarker ? layout.h[i] * 0.5 : 0);
    titles[i] = truncateLabel(nodeTitle(node), avail, measures.title);
    const sub = nodeSubtitle(node);
    subtitles[i] = sub && layout.h[i] - CHAIN_ROW_HEIGHT * (node.chain?.length ?? 0) >= 30 ? truncateLabel(sub, avail, measures.subtitle) : '';
    for (const c of node.chain ?? []) chainTitles.push(truncateLabel(c.type, avail, measures.subtitle));
    chainStart[i + 1] = chainTitles.length;
  }
  const edgeLabels: string[] = new Array<string>(m);
  for (let e = 0; e < m; e++) {
    edgeLabels[e] = graph.edges[e].label ? truncateLabel(graph.edges[e].label, EDGE_LABEL_MAX, measures.edgeLabel) : '';
  }
  const p = layout.edgePoints;
  let minX = 0, minY = 0, maxX = layout.width, maxY = layout.height;
  for (let i = 0; i < n; i++) {
    minX = Math.min(minX, layout.x[i] - layout.w[i] / 2);
    maxX = Math.max(maxX, layout.x[i] + layout.w[i] / 2);
    minY = Math.min(minY, layout.y[i] - layout.h[i] / 2);
    maxY = Math.max(maxY, layout.y[i] + layout.h[i] / 2);
  }
  for (let k = 0; k < p.length; k += 2) {
    if (p[k] < minX) minX = p[k];
    if (p[k] > maxX) maxX = p[k];
    if (p[k + 1] < minY) minY = p[k + 1];
    if (p[k + 1] > maxY) maxY = p[k + 1];
  }
  const edgesOnly = { ...layout, edgeOffsets: layout.edgeOffsets.subarray(0, m + 1) };
  const nodeGrid = buildGrid(nodeBoxes(layout));
  const placed = placeEdgeLabels(layout, m, edgeLabels, measures.edgeLabel, nodeGrid, EDGE_LABEL_FONT_SIZE + 2);
  for (let e = 0; e < m; e++) if (Number.isNaN(placed.x[e])) edgeLabels[e] = '';
  return {
    graph,
    layout,
    nodeCount: n,
    edgeCount: m,
    nodeGrid,
    edgeGrid: buildGrid(edgeSegmentBoxes(edgesOnly)),
    nav: buildNavIndex(n, graph.edges.slice(0, m), layout),
    marker,
    titles,
    subtitles,
    chainStart,
    chainTitles,
    edgeLabelX: placed.x,
    edgeLabelY: placed.y,
    edgeLabels,
    minX, minY, maxX, maxY,
  };
}


/** The scene without its graph and layout: what a worker computes and sends to the view. */
export type SceneData = Omit<Scene, 'graph' | 'layout'>;

export function sceneData(scene: Scene): SceneData {
  const { graph: _graph, layout: _layout, ...data } = scene;
  return data;
}

export function withGraph(data: SceneData, graph: Graph, layout: GraphLayout): Scene {
  return { ...data, graph, layout };
}

/** Buffers a transfer list can move (distinct). */
export function sceneBuffers(d: SceneData): ArrayBuffer[] {
  const arrays = [
    d.marker, d.chainStart, d.edgeLabelX, d.edgeLabelY,
    d.nodeGrid.start, d.nodeGrid.items, d.nodeGrid.stamp,
    d.edgeGrid.start, d.edgeGrid.items, d.edgeGrid.stamp,
    d.nav.outStart, d.nav.outTargets, d.nav.inStart, d.nav.inSources, d.nav.order, d.nav.orderPos, d.nav.rank,
  ];
  return [...new Set(arrays.map((a) => a.buffer as ArrayBuffer))];
}

/** Text measures from any 2D context that has `measureText` (a canvas, or an OffscreenCanvas in a worker). */
export interface TextMeasurer {
  font: string;
  measureText(text: string): { width: number };
}

export function sceneMeasuresFrom(ctx: TextMeasurer | null): SceneMeasures {
  const by = (font: string) =>
    cachedCharMeasure((ch) => {
      if (!ctx) return ch.length * 6.5;
      ctx.font = font;
      return ctx.measureText(ch).width;
    });
  return { title: by(TITLE_FONT), subtitle: by(SUBTITLE_FONT), edgeLabel: by(EDGE_LABEL_FONT) };
}
