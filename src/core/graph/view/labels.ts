/**
 * Node label text and truncation, computed once per graph (never per frame).
 * DOM-free: the width measure is injected (canvas measureText in the browser, a fixed
 * per-character width in tests).
 */
import type { GraphNode } from '../model';

export type MeasureText = (text: string) => number;

export const ELLIPSIS = '\u2026';

/**
 * The longest prefix of `text` that fits in `maxWidth` followed by an ellipsis; `text` itself
 * when it fits. Binary search over the prefix length, so O(log n) measures.
 */
export function truncateLabel(text: string, maxWidth: number, measure: MeasureText): string {
  if (maxWidth <= 0) return '';
  if (measure(text) <= maxWidth) return text;
  const ell = measure(ELLIPSIS);
  if (ell > maxWidth) return '';
  const chars = Array.from(text); // whole code points, never half a surrogate pair
  let lo = 0, hi = chars.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (measure(chars.slice(0, mid).join('')) + ell <= maxWidth) lo = mid;
    else hi = mid - 1;
  }
  return chars.slice(0, lo).join('').trimEnd() + ELLIPSIS;
}

/** Character-width cache around a real measure: sums per-code-point widths (no kerning). */
export function cachedCharMeasure(measureChar: MeasureText): MeasureText {
  const cache = new Map<string, number>();
  return (text: string) => {
    let w = 0;
    for (const ch of text) {
      let cw = cache.get(ch);
      if (cw === undefined) {
        cw = measureChar(ch);
        cache.set(ch, cw);
      }
      w += cw;
    }
    return w;
  };
}

/** What the box shows in its title line: the op type; input/output markers show the tensor name. */
export function nodeTitle(node: Pick<GraphNode, 'kind' | 'type' | 'name'>): string {
  if (node.kind === 'input' || node.kind === 'output') return node.name || node.type;
  return node.type;
}

/** Second line (smaller): the node name for operators; nothing for markers. */
export function nodeSubtitle(node: Pick<GraphNode, 'kind' | 'type' | 'name'>): string {
  if (node.kind === 'input' || node.kind === 'output') return '';
  return node.name;
}

/** Accessible name: `<op type> <node name>`, e.g. `ADD ofm`, `Input ifm1`, `Output ofm`. */
export function accessibleName(node: Pick<GraphNode, 'kind' | 'type' | 'name'>): string {
  const type = node.kind === 'input' ? 'Input' : node.kind === 'output' ? 'Output' : node.type;
  return node.name ? `${type} ${node.name}` : type;
}

/** Height of the band of one chained layer (GraphNode.chain) at the foot of its host's box. */
export const CHAIN_ROW_HEIGHT = 16;
/** Font size of a chained layer's type in its band (bold). */
export const CHAIN_FONT_SIZE = 9;

/** Fonts shared by the canvas and the SVG export. */
export const FONT_FAMILY = '-apple-system, "Segoe UI", "Helvetica Neue", Helvetica, Arial, sans-serif';
export const TITLE_FONT_SIZE = 11;
export const SUBTITLE_FONT_SIZE = 9;
export const EDGE_LABEL_FONT_SIZE = 8;
export const TITLE_FONT = `bold ${TITLE_FONT_SIZE}px ${FONT_FAMILY}`;
export const SUBTITLE_FONT = `${SUBTITLE_FONT_SIZE}px ${FONT_FAMILY}`;
export const EDGE_LABEL_FONT = `${EDGE_LABEL_FONT_SIZE}px ${FONT_FAMILY}`;
/** Horizontal padding inside a node box. */
export const NODE_PAD_X = 8;

/**
 * Box size for a node (the layout's input): wide enough for its title and name up to a cap,
 * taller when it has a name line. Markers are pills.
 */
export function nodeBoxSize(node: Pick<GraphNode, 'kind' | 'type' | 'name'>, measureTitle: MeasureText, measureSub: MeasureText): [number, number] {
  const title = nodeTitle(node);
  const sub = nodeSubtitle(node);
  const marker = node.kind === 'input' || node.kind === 'output';
  const tw = measureTitle(title);
  const sw = sub ? measureSub(sub) : 0;
  const w = Math.min(marker ? 180 : 160, Math.max(marker ? 60 : 56, Math.ceil(Math.max(tw, sw)) + 2 * NODE_PAD_X + (marker ? 8 : 0)));
  const h = marker ? 22 : sub ? 34 : 24;
  return [w, h];
}

/** Approximate width measures (no canvas): for sizing in a worker or in tests. */
export const approxTitleMeasure: MeasureText = (s) => Array.from(s).length * 6.6;
export const approxSubtitleMeasure: MeasureText = (s) => Array.from(s).length * 5.0;
