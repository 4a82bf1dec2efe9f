/**
 * Node box sizes without a DOM (the layout runs in a worker): text widths come from a table of
 * Helvetica/Arial advance widths, which is what a sans-serif canvas font measures to within a
 * few per cent for Latin text.
 *
 * A box is one header line (the type label, bold) 28 px high, plus one row per constant input
 * when `constantRows` is on (filter, bias, ...; `name ⟨shape⟩` in the regular face), plus a
 * name line when `nameLine` is on, plus one band per chained layer (`GraphNode.chain`: Caffe's
 * in-place layers, `CHAIN_ROW_HEIGHT` high, the type in bold). Level-of-detail rendering draws
 * what fits.
 */
import type { Graph, GraphNode } from './model';
import type { LayoutInput } from './layout-types';
import { CHAIN_FONT_SIZE, CHAIN_ROW_HEIGHT } from './view/labels';

export { CHAIN_FONT_SIZE, CHAIN_ROW_HEIGHT };

/** Helvetica-Bold advance widths (1/1000 em) for ASCII 32..126. */
const BOLD = [
  278, 333, 474, 556, 556, 889, 722, 238, 333, 333, 389, 584, 278, 333, 278, 278, // ' '..'/'
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 333, 333, 584, 584, 584, 611, // '0'..'?'
  975, 722, 722, 722, 722, 667, 611, 778, 722, 278, 556, 722, 611, 833, 722, 778, // '@'..'O'
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 333, 278, 333, 584, 556, // 'P'..'_'
  333, 556, 611, 556, 611, 556, 333, 611, 611, 278, 278, 556, 278, 889, 611, 611, // '`'..'o'
  611, 611, 389, 556, 333, 611, 556, 778, 556, 556, 500, 389, 280, 389, 584, // 'p'..'~'
];
/** Helvetica (regular) advance widths (1/1000 em) for ASCII 32..126. */
const REGULAR = [
  278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278,
  556, 556, 556, 556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556,
  1015, 667, 667, 722, 722, 667, 611, 778, 722, 278, 500, 667, 556, 833, 722, 778,
  667, 778, 722, 667, 611, 722, 667, 944, 667, 667, 611, 278, 278, 278, 469, 556,
  333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500, 222, 833, 556, 556,
  556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];

/** Width in px of `text` in a sans-serif face at `fontSize` px. */
export function textWidth(text: string, fontSize: number, bold = false): number {
  const table = bold ? BOLD : REGULAR;
  let units = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 32 && c <= 126) units += table[c - 32];
    else if (c >= 0xdc00 && c <= 0xdfff) continue; // second half of a surrogate pair
    else if (c >= 0x2e80) units += 1000; // CJK and other wide scripts, emoji
    else units += bold ? 611 : 556;
  }
  return (units * fontSize) / 1000;
}

export interface NodeSizeOptions {
  /** header (type label) font size, bold; default 12 */
  fontSize?: number;
  /** header line height; default 28 */
  headerHeight?: number;
  /** one row per constant input; default true */
  constantRows?: boolean;
  /** at most this many constant rows; default 6 */
  maxRows?: number;
  /** row height and font size of the constant rows; defaults 16 and 10 */
  rowHeight?: number;
  rowFontSize?: number;
  /** add a line with the node name (for operators); default false */
  nameLine?: boolean;
  /** horizontal padding on each side; default 8 */
  padding?: number;
  /** width bounds; defaults 40 and 240 */
  minWidth?: number;
  maxWidth?: number;
}

/** The header text: the op type; graph input/output markers show their tensor name. */
export function nodeLabel(node: Pick<GraphNode, 'kind' | 'type' | 'name'>): string {
  if (node.kind === 'input' || node.kind === 'output') return node.name || node.type;
  return node.type;
}

/** Text of the constant-input rows: `filter ⟨32×3×3×3⟩`. */
export function constantRows(node: Pick<GraphNode, 'inputs'>): string[] {
  const rows: string[] = [];
  for (const p of node.inputs) {
    if (!p.constant) continue;
    const i = p.type.indexOf('[');
    const shape = i >= 0 ? p.type.slice(i + 1, p.type.lastIndexOf(']')).split(',').join('\u00d7') : '';
    rows.push(shape ? `${p.name} \u27e8${shape}\u27e9` : p.name);
  }
  return rows;
}

export function nodeSize(node: GraphNode, opts: NodeSizeOptions = {}): { w: number; h: number } {
  const fontSize = opts.fontSize ?? 12;
  const rowFont = opts.rowFontSize ?? 10;
  const rowH = opts.rowHeight ?? 16;
  const pad = opts.padding ?? 8;
  const minW = opts.minWidth ?? 40;
  const maxW = opts.maxWidth ?? 240;
  let text = textWidth(nodeLabel(node), fontSize, true);
  let h = opts.headerHeight ?? 28;
  const marker = node.kind === 'input' || node.kind === 'output';
  if (opts.nameLine && !marker && node.name) {
    text = Math.max(text, textWidth(node.name, rowFont));
    h += rowH;
  }
  if (opts.constantRows ?? true) {
    const rows = constantRows(node);
    const shown = Math.min(rows.length, opts.maxRows ?? 6);
    for (let i = 0; i < shown; i++) text = Math.max(text, textWidth(rows[i], rowFont));
    h += shown * rowH;
  }
  for (const c of node.chain ?? []) {
    text = Math.max(text, textWidth(c.type, CHAIN_FONT_SIZE, true));
    h += CHAIN_ROW_HEIGHT;
  }
  // input/output markers are pills: their rounded ends (half the height) hold no text
  const w = Math.min(maxW, Math.max(minW, Math.ceil(text + 2 * pad + (marker ? h * 0.5 : 0))));
  return { w, h };
}

/** Layout input for a graph: box sizes from nodeSize and the edges as index arrays. */
export function layoutInputFor(graph: Graph, opts?: NodeSizeOptions): LayoutInput {
  const n = graph.nodes.length;
  const widths = new Float64Array(n);
  const heights = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = nodeSize(graph.nodes[i], opts);
    widths[i] = s.w;
    heights[i] = s.h;
  }
  const m = graph.edges.length;
  const edgeFrom = new Uint32Array(m);
  const edgeTo = new Uint32Array(m);
  for (let e = 0; e < m; e++) {
    edgeFrom[e] = graph.edges[e].from;
    edgeTo[e] = graph.edges[e].to;
  }
  return { widths, heights, edgeFrom, edgeTo };
}
