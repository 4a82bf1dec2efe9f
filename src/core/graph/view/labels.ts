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

/**
 * Widths of one font, one code point at a time (cached: a Float32Array for the BMP, a Map above
 * it), summed without kerning. Fitting text is then linear in its length, with no string built.
 */
export class FontMeasure {
  private readonly bmp = new Float32Array(0x10000).fill(-1);
  private readonly astral = new Map<number, number>();
  constructor(private readonly measureChar: (ch: string) => number) {}

  /** a measure where every code point is `w` wide (tests, or no canvas) */
  static fixed(w: number): FontMeasure {
    return new FontMeasure(() => w);
  }

  codePoint(cp: number): number {
    if (cp < 0x10000) {
      let w = this.bmp[cp]!;
      if (w < 0) {
        w = this.measureChar(String.fromCharCode(cp));
        this.bmp[cp] = w;
      }
      return w;
    }
    let w = this.astral.get(cp);
    if (w === undefined) {
      w = this.measureChar(String.fromCodePoint(cp));
      this.astral.set(cp, w);
    }
    return w;
  }

  width(text: string): number {
    let w = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          w += this.codePoint(((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000);
          i++;
          continue;
        }
      }
      w += this.codePoint(c);
    }
    return w;
  }

  /** `(text) => width`, for code that takes a MeasureText */
  get measure(): MeasureText {
    return (text) => this.width(text);
  }

  /**
   * How much of `text` to show in `maxWidth`: FIT_ALL when all of it fits, otherwise the number of
   * UTF-16 code units of the longest prefix (whole code points, trailing blanks dropped) that fits
   * with an ellipsis after it; 0 when not even the ellipsis fits (show nothing).
   */
  fit(text: string, maxWidth: number): number {
    if (maxWidth <= 0) return 0;
    const ell = this.codePoint(0x2026);
    let w = 0;
    let lastFit = 0; // code units whose width + ellipsis fits
    let i = 0;
    while (i < text.length) {
      const c = text.charCodeAt(i);
      let cp = c;
      let len = 1;
      if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        const d = text.charCodeAt(i + 1);
        if (d >= 0xdc00 && d <= 0xdfff) {
          cp = ((c - 0xd800) << 10) + (d - 0xdc00) + 0x10000;
          len = 2;
        }
      }
      w += this.codePoint(cp);
      i += len;
      if (w + ell <= maxWidth) lastFit = i;
      else if (w > maxWidth) break;
    }
    if (i >= text.length && w <= maxWidth) return FIT_ALL;
    if (ell > maxWidth) return 0;
    while (lastFit > 0 && text.charCodeAt(lastFit - 1) <= 0x20) lastFit--;
    return lastFit === 0 ? FIT_ELLIPSIS_ONLY : lastFit;
  }
}

/** `FontMeasure.fit`: the whole text fits. */
export const FIT_ALL = 0xffffffff;
/** `FontMeasure.fit`: only the ellipsis fits. */
export const FIT_ELLIPSIS_ONLY = 0xfffffffe;

/** The text `fit` describes: all of it, a prefix and an ellipsis, or nothing. */
export function fittedText(text: string, fit: number): string {
  if (fit === FIT_ALL) return text;
  if (fit === 0) return '';
  if (fit === FIT_ELLIPSIS_ONLY) return ELLIPSIS;
  return text.slice(0, fit) + ELLIPSIS;
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
