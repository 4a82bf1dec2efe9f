/**
 * Colours of the scene: per theme and per colour override, built once per change, never per frame.
 * DOM-free.
 */
import type { Graph, GraphNode, NodeCategory, NodeKind } from '../../core/graph/model';
import { CATEGORIES, KINDS } from '../../core/graph/pack';
import { nodeBorderColor, nodeFillColor, paletteFor, textColorFor, type GraphPalette, type Theme } from './palette';

/** Colours of one theme and override set, as small tables indexed per node. */
export interface SceneStyle {
  theme: Theme;
  palette: GraphPalette;
  /** distinct fills; nodeFill[i] indexes into it */
  fills: string[];
  /** text colour for each fill */
  fillText: string[];
  nodeFill: Uint16Array;
  /** fill of each chained layer's band (Scene.chainTitles order: nodes in order, their chain in order), into `fills` */
  chainFill: Uint16Array;
  /** distinct borders; nodeBorder[i] indexes into it */
  borders: string[];
  nodeBorder: Uint8Array;
  /** distinct outline colours (group outlines); nodeOutline[i] = index + 1, 0 = none */
  outlines: string[];
  nodeOutline: Uint16Array;
  /** edge styles by kind (e.g. a loadable's dependency events); absent: every edge in the palette's edge colour */
  edges?: EdgeStyle;
}

/** How edges of different kinds are drawn: a small table of strokes and a class per edge. */
export interface EdgeStyle {
  classes: EdgeClassStyle[];
  /** per edge: index into `classes` */
  edgeClass: Uint8Array;
}

export interface EdgeClassStyle {
  /** the kind it draws (legends show it) */
  name: string;
  color: string;
  /** canvas / SVG dash pattern in CSS pixels; empty for a solid line */
  dash: number[];
  /** line width in CSS pixels (default 1) */
  width?: number;
}

/** A scene's kinds and categories as typed arrays (SceneData's), read instead of the node objects. */
export interface NodeClasses {
  nodeKind: Uint8Array;
  nodeCategory: Uint8Array;
  chainNodes: Uint32Array;
}

export function buildStyle(
  graph: Graph,
  nodeCount: number,
  theme: Theme,
  fillOverride?: ReadonlyArray<string | null | undefined>,
  outlineOverride?: ReadonlyArray<string | null | undefined>,
  edges?: EdgeStyle,
  classes?: NodeClasses,
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
  const fillOf = (f: string) => {
    let fi = fillIndex.get(f);
    if (fi === undefined) {
      fi = fills.length;
      fills.push(f);
      fillIndex.set(f, fi);
    }
    return fi;
  };
  const chainFill: number[] = [];
  // a node's fill depends only on its kind and category, its border on its kind: looked up once
  // per pair (100,000 nodes have a handful of pairs). With the scene's typed kinds and categories
  // the node objects are not read at all (only those with chained layers): the loop is a few
  // milliseconds where reading 100,000 objects cost tens on the UI thread.
  const fillByKind = new Map<string, Map<string, number>>();
  const borderByKind = new Map<string, number>();
  const fillOfClass = (kind: NodeKind, category: NodeCategory): number => {
    let byCategory = fillByKind.get(kind);
    if (!byCategory) fillByKind.set(kind, (byCategory = new Map()));
    let fi = byCategory.get(category);
    if (fi === undefined) byCategory.set(category, (fi = fillOf(nodeFillColor({ kind, category }, palette))));
    return fi;
  };
  const borderOfKind = (kind: NodeKind): number => {
    let bi = borderByKind.get(kind);
    if (bi === undefined) {
      const b = nodeBorderColor({ kind }, palette);
      bi = borderIndex.get(b);
      if (bi === undefined) {
        bi = borders.length;
        borders.push(b);
        borderIndex.set(b, bi);
      }
      borderByKind.set(kind, bi);
    }
    return bi;
  };
  const typed = classes && classes.nodeKind.length >= nodeCount && classes.nodeCategory.length >= nodeCount ? classes : null;
  /** per (kind, category) index pair: fill index + 1 (0: not looked up yet); per kind: border index + 1 */
  const fillByIndex = new Int32Array(KINDS.length * CATEGORIES.length);
  const borderByIndex = new Int32Array(KINDS.length);
  let nextChain = 0;
  for (let i = 0; i < nodeCount; i++) {
    const override = fillOverride?.[i];
    let chain: GraphNode['chain'];
    if (typed) {
      const k = typed.nodeKind[i]!, c = typed.nodeCategory[i]!;
      const pair = k * CATEGORIES.length + c;
      if (override) nodeFill[i] = fillOf(override);
      else {
        if (fillByIndex[pair] === 0) fillByIndex[pair] = fillOfClass(KINDS[k] ?? 'op', CATEGORIES[c] ?? 'Other') + 1;
        nodeFill[i] = fillByIndex[pair]! - 1;
      }
      while (nextChain < typed.chainNodes.length && typed.chainNodes[nextChain]! < i) nextChain++;
      if (nextChain < typed.chainNodes.length && typed.chainNodes[nextChain] === i) chain = graph.nodes[i]?.chain;
      if (borderByIndex[k] === 0) borderByIndex[k] = borderOfKind(KINDS[k] ?? 'op') + 1;
      nodeBorder[i] = borderByIndex[k]! - 1;
    } else {
      const node = graph.nodes[i];
      nodeFill[i] = override ? fillOf(override) : fillOfClass(node.kind, node.category);
      chain = node.chain;
      nodeBorder[i] = borderOfKind(node.kind);
    }
    // a chained layer's band keeps its own category colour (a colour override paints the whole box)
    if (chain) for (const c of chain) chainFill.push(override ? nodeFill[i]! : fillOf(nodeFillColor({ kind: 'op', category: c.category }, palette)));
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
    chainFill: Uint16Array.from(chainFill),
    borders,
    nodeBorder,
    outlines,
    nodeOutline,
    ...(edges ? { edges } : {}),
  };
}

// ---- NVDLA engines ----------------------------------------------------------------------------
// The op-slot graph and the memory map colour by engine. The category colours (Netron's) give
// BDMA and EMU two near greys and CONV / CDP two dark blue-greens, so the engines get their own
// palette: Okabe-Ito hues (told apart with the common colour-vision deficiencies), darker in the
// light theme for white text, lighter in the dark theme.

export const ENGINES = ['CONV', 'SDP', 'PDP', 'CDP', 'RUBIK', 'BDMA', 'EMU'] as const;
export type EngineName = (typeof ENGINES)[number];

const ENGINE_FILL: Record<Theme, Record<EngineName, string>> = {
  light: { CONV: '#0062a3', SDP: '#b34700', PDP: '#007a5a', CDP: '#8f2f73', RUBIK: '#8a6d00', BDMA: '#3d6f99', EMU: '#5a5a5a' },
  dark: { CONV: '#3f9ee0', SDP: '#e8852f', PDP: '#2fb58c', CDP: '#cc79a7', RUBIK: '#d4b12a', BDMA: '#7fb5e0', EMU: '#9a9a9a' },
};

/** The engine an op-slot node runs on, from its type (`CONV`, `EMU SOFTMAX`); null for others. */
export function engineOf(type: string): EngineName | null {
  const e = type.split(' ')[0] as EngineName;
  return (ENGINES as readonly string[]).includes(e) ? e : null;
}

export function engineColor(engine: string, theme: Theme): string {
  const e = engineOf(engine);
  return e ? ENGINE_FILL[theme][e] : paletteFor(theme).nodeDefault;
}

/** Node fills of an op-slot graph by engine (the graph view's `nodeFill`). */
export function engineFills(graph: Graph, theme: Theme): (string | null)[] {
  return graph.nodes.map((n) => (engineOf(n.type) ? engineColor(n.type, theme) : null));
}

/**
 * Dependency edges of an op-slot graph by kind (the edge `name`): completion solid, programmed
 * dashed, enabled dotted, the CDMA events dash-dot, fused parents thick, task events long dashes.
 */
export function dependencyEdgeStyle(graph: Graph, theme: Theme): EdgeStyle {
  const pal = paletteFor(theme);
  const dark = theme === 'dark';
  const classes: EdgeClassStyle[] = [
    { name: 'OP_COMPLETED', color: pal.edge, dash: [] },
    { name: 'OP_PROGRAMMED', color: dark ? '#7fb5e0' : '#3d6f99', dash: [6, 4] },
    { name: 'OP_ENABLED', color: dark ? '#e8852f' : '#b34700', dash: [2, 3] },
    { name: 'CDMA_WT_DONE', color: dark ? '#cc79a7' : '#8f2f73', dash: [8, 3, 2, 3] },
    { name: 'CDMA_DT_DONE', color: dark ? '#2fb58c' : '#007a5a', dash: [8, 3, 2, 3] },
    { name: 'fused', color: dark ? '#d4b12a' : '#8a6d00', dash: [], width: 2.5 },
    { name: 'event', color: dark ? '#c9a0ff' : '#6a3fb5', dash: [12, 5], width: 1.5 },
  ];
  const index = new Map(classes.map((c, i) => [c.name, i]));
  const other = classes.length;
  classes.push({ name: 'other', color: pal.edge, dash: [1, 2] });
  const edgeClass = new Uint8Array(graph.edges.length);
  graph.edges.forEach((e, i) => {
    edgeClass[i] = index.get(e.name) ?? other;
  });
  return { classes, edgeClass };
}
