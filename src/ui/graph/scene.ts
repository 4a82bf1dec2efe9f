/**
 * Everything the renderer needs that depends only on the graph and layout (built once per graph)
 * or on the theme and colour overrides (built once per change), never per frame. DOM-free.
 */
import type { GraphLayout } from '../../core/graph/layout-types';
import type { Graph } from '../../core/graph/model';
import { buildNavIndex, type NavIndex } from './keyboard-nav';
import { placeEdgeLabels } from './edge-labels';
import {
  EDGE_LABEL_FONT_SIZE, NODE_PAD_X, nodeSubtitle, nodeTitle, truncateLabel, type MeasureText,
} from './labels';
import { nodeBorderColor, nodeFillColor, paletteFor, textColorFor, type GraphPalette, type Theme } from './palette';
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
  for (let i = 0; i < n; i++) {
    const node = graph.nodes[i];
    const isMarker = node.kind === 'input' || node.kind === 'output';
    marker[i] = isMarker ? 1 : 0;
    const avail = layout.w[i] - 2 * NODE_PAD_X - (isMarker ? layout.h[i] * 0.5 : 0);
    titles[i] = truncateLabel(nodeTitle(node), avail, measures.title);
    const sub = nodeSubtitle(node);
    subtitles[i] = sub && layout.h[i] >= 30 ? truncateLabel(sub, avail, measures.subtitle) : '';
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
    edgeLabelX: placed.x,
    edgeLabelY: placed.y,
    edgeLabels,
    minX, minY, maxX, maxY,
  };
}

/** Colours of one theme and override set, as small tables indexed per node. */
export interface SceneStyle {
  theme: Theme;
  palette: GraphPalette;
  /** distinct fills; nodeFill[i] indexes into it */
  fills: string[];
  /** text colour for each fill */
  fillText: string[];
  nodeFill: Uint16Array;
  /** distinct borders; nodeBorder[i] indexes into it */
  borders: string[];
  nodeBorder: Uint8Array;
  /** distinct outline colours (group outlines); nodeOutline[i] = index + 1, 0 = none */
  outlines: string[];
  nodeOutline: Uint16Array;
}

export function buildStyle(
  graph: Graph,
  nodeCount: number,
  theme: Theme,
  fillOverride?: ReadonlyArray<string | null | undefined>,
  outlineOverride?: ReadonlyArray<string | null | undefined>,
): SceneStyle {
  const palette = paletteFor(theme);
  const fills: string[] = [];
  const fillIndex = new Map<string, number>();
  const nodeFill = new Uint16Array(nodeCount);
  const borders: string[] = [];
  const borderIndex = new Map<string, number>();
  const nodeBorder = new Uint8Array(nodeCount);
  const outlines: string[] = [];
  const outlineIndex = new Map<string, number>();
  const nodeOutline = new Uint16Array(nodeCount);
  for (let i = 0; i < nodeCount; i++) {
    const node = graph.nodes[i];
    const f = fillOverride?.[i] || nodeFillColor(node, palette);
    let fi = fillIndex.get(f);
    if (fi === undefined) {
      fi = fills.length;
      fills.push(f);
      fillIndex.set(f, fi);
    }
    nodeFill[i] = fi;
    const b = nodeBorderColor(node, palette);
    let bi = borderIndex.get(b);
    if (bi === undefined) {
      bi = borders.length;
      borders.push(b);
      borderIndex.set(b, bi);
    }
    nodeBorder[i] = bi;
    const o = outlineOverride?.[i];
    if (o) {
      let oi = outlineIndex.get(o);
      if (oi === undefined) {
        oi = outlines.length;
        outlines.push(o);
        outlineIndex.set(o, oi);
      }
      nodeOutline[i] = oi + 1;
    }
  }
  return {
    theme,
    palette,
    fills,
    fillText: fills.map(textColorFor),
    nodeFill,
    borders,
    nodeBorder,
    outlines,
    nodeOutline,
  };
}
