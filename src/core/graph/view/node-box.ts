/**
 * What a node box shows and how big it is, as Netron draws it: a header in the category colour
 * with the op type (and, when names are shown, the operator's name on a second line), then a
 * light body with one row per constant input (`filter ⟨8×1×1×8⟩`, name in bold) when weights are
 * shown and one per in-node attribute (`padding = VALID`) when attributes are shown. Graph inputs
 * and outputs are pills with their tensor name.
 *
 * Computed once per graph and display choice, in the layout worker (the sizes are the layout's
 * input): widths measured with the same fonts the canvas draws with, every text's fit precomputed,
 * row texts interned. DOM-free. Format-neutral: rows come from `GraphNode.constants` and the
 * attributes marked `inNode`, whatever format filled them.
 */
import type { GraphPack } from '../pack';
import { CHAIN_ROW_HEIGHT, FIT_ALL, FONT_FAMILY, NODE_PAD_X, type FontMeasure } from './labels';
import type { ChainedLayer } from '../model';

/** The node display toggles (Netron's View menu: Show Attributes, Show Weights, Show Names). */
export interface DisplayOptions {
  /** in-node attributes (`padding = VALID`, `stride_w = 2`) */
  attributes: boolean;
  /** constant inputs (`filter ⟨8×1×1×8⟩`, `bias ⟨8⟩`) */
  weights: boolean;
  /** the operator's name (circle: its first output tensor's name) under its type */
  names: boolean;
}

export const DEFAULT_DISPLAY: DisplayOptions = { attributes: false, weights: true, names: true };

export function sameDisplay(a: DisplayOptions, b: DisplayOptions): boolean {
  return a.attributes === b.attributes && a.weights === b.weights && a.names === b.names;
}

/** Box geometry (graph units). */
export const BOX = {
  /** header: the type alone */
  titleH: 24,
  /** header: type and name */
  titleNameH: 34,
  /** input / output pills */
  markerH: 22,
  /** one body row */
  rowH: 12,
  /** body padding above the first and below the last row */
  bodyPad: 3,
  /** text inset of body rows */
  rowPadX: 6,
  minW: 56,
  maxW: 220,
  markerMinW: 60,
  markerMaxW: 180,
  /** at most this many rows; past it the last row says how many more there are */
  maxRows: 12,
  /** attribute values are cut after this many characters, as Netron does (the hover shows them whole) */
  valueChars: 14,
} as const;

export const ROW_FONT_SIZE = 9;
export const ROW_FONT = `${ROW_FONT_SIZE}px ${FONT_FAMILY}`;
export const ROW_BOLD_FONT = `bold ${ROW_FONT_SIZE}px ${FONT_FAMILY}`;

/** `NodeBoxes.rowKind` values */
export const RowKind = { Constant: 0, Attribute: 1, More: 2 } as const;

export interface BoxMeasures {
  title: FontMeasure;
  subtitle: FontMeasure;
  row: FontMeasure;
  rowBold: FontMeasure;
}

/**
 * Node boxes of a graph. Text is referenced, never copied per node: titles and names are indices
 * into the pack's string table with a fit (`FontMeasure.fit`); row texts are indices into `texts`,
 * a small table of distinct strings.
 */
export interface NodeBoxes {
  count: number;
  widths: Float64Array;
  heights: Float64Array;
  /** 1 for input/output pills */
  marker: Uint8Array;
  /** header height (the body, if any, is below it) */
  header: Float32Array;
  /** title: pack string index and fit */
  titleRef: Uint32Array;
  titleFit: Uint32Array;
  /** name line: pack string index, -1 for none, and fit */
  subRef: Int32Array;
  subFit: Uint32Array;
  /** rows of node i: rowStart[i] .. rowStart[i + 1] */
  rowStart: Uint32Array;
  rowKind: Uint8Array;
  /** bold part (constants: the role; attributes: none, -1) and the regular part, as `texts` indices */
  rowBold: Int32Array;
  rowText: Uint32Array;
  /** fit of the regular part after the bold part */
  rowFit: Uint32Array;
  /** width of the bold part */
  rowBoldW: Float32Array;
  /** what hovering the row shows (constants: `filter: float32[8,1,1,8]`; attributes: the whole value) */
  rowTip: Uint32Array;
  /**
   * chained layers (GraphNode.chain: Caffe's in-place layers) of node i: chainStart[i] ..
   * chainStart[i + 1], one band of CHAIN_ROW_HEIGHT each at the foot of the box, in the order of
   * the chain; the band's type label as a `texts` index and its fit (bold, the rows' size)
   */
  chainStart: Uint32Array;
  chainText: Uint32Array;
  chainFit: Uint32Array;
  texts: string[];
}

class Interner {
  readonly list: string[] = [];
  private readonly ids = new Map<string, number>();
  add(s: string): number {
    let id = this.ids.get(s);
    if (id === undefined) {
      id = this.list.length;
      this.list.push(s);
      this.ids.set(s, id);
    }
    return id;
  }
}

/** `float32[8,1,1,8]` from a dtype and the pack's shape text `8×1×1×8`. */
function typeText(dtype: string, shape: string): string {
  return shape ? `${dtype}[${shape.split('\u00d7').join(',')}]` : dtype;
}

/**
 * The boxes of every node of a pack. `fixed` gives box sizes made elsewhere (a layout computed
 * without these boxes): then only the text is fitted to them.
 */
export function nodeBoxes(p: GraphPack, strings: readonly string[], display: DisplayOptions, m: BoxMeasures, fixed?: { widths: ArrayLike<number>; heights: ArrayLike<number> }): NodeBoxes {
  const n = p.nodeId.length;
  const widths = new Float64Array(n);
  const heights = new Float64Array(n);
  const marker = new Uint8Array(n);
  const header = new Float32Array(n);
  const titleRef = new Uint32Array(n);
  const titleFit = new Uint32Array(n);
  const subRef = new Int32Array(n).fill(-1);
  const subFit = new Uint32Array(n);
  const rowStart = new Uint32Array(n + 1);
  // rows: count first
  let rows = 0;
  for (let i = 0; i < n; i++) {
    const k = p.kind[i]!;
    if (k === 1 || k === 2) continue;
    let r = 0;
    if (display.weights) r += p.constStart[i + 1]! - p.constStart[i]!;
    if (display.attributes) r += p.attrStart[i + 1]! - p.attrStart[i]!;
    rows += Math.min(r, BOX.maxRows);
  }
  const chainOf = new Map<number, ChainedLayer[]>(p.chains);
  let bands = 0;
  for (const [i, layers] of p.chains) if (p.kind[i] !== 1 && p.kind[i] !== 2) bands += layers.length;
  const chainStart = new Uint32Array(n + 1);
  const chainText = new Uint32Array(bands);
  const chainFit = new Uint32Array(bands);
  let band = 0;
  const rowKind = new Uint8Array(rows);
  const rowBold = new Int32Array(rows).fill(-1);
  const rowText = new Uint32Array(rows);
  const rowFit = new Uint32Array(rows);
  const rowBoldW = new Float32Array(rows);
  const rowTip = new Uint32Array(rows);
  const texts = new Interner();
  // widths of interned texts, so each distinct row text is measured once
  const regularW: number[] = [];
  const boldW: number[] = [];
  const widthOf = (id: number, bold: boolean): number => {
    const cache = bold ? boldW : regularW;
    let w = cache[id];
    if (w === undefined) {
      w = (bold ? m.rowBold : m.row).width(texts.list[id]!);
      cache[id] = w;
    }
    return w;
  };
  const titleW = new Map<number, number>();
  // a constant's row from its four pack strings, made once per distinct four (a model has few:
  // every `filter ⟨8×1×1×8⟩` of a network is the same row)
  // keyed by two numbers of two string ids each (ids are below 2^26, so a pair is exact in a double)
  type ConstRow = { kind: number; bold: number; text: number; tip: number };
  const constRows = new Map<number, Map<number, ConstRow>>();
  const ids = Math.max(1, p.strings.offsets.length);
  const constantRow = (nameRef: number, shapeRef: number, dtypeRef: number, valueRef: number) => {
    const k1 = nameRef * ids + shapeRef;
    let inner = constRows.get(k1);
    if (!inner) constRows.set(k1, (inner = new Map()));
    const k2 = dtypeRef * ids + valueRef;
    let row = inner.get(k2);
    if (!row) {
      const name = strings[nameRef]!, shape = strings[shapeRef]!, value = strings[valueRef]!;
      const tip = texts.add(`${name}: ${typeText(strings[dtypeRef]!, shape)}${value ? ` = ${value}` : ''}`);
      row = value
        ? // a scalar: `axis = 0`, name not bold (Netron's separator rule)
          { kind: RowKind.Attribute, bold: -1, text: texts.add(`${name} = ${value.length > BOX.valueChars ? `${value.slice(0, BOX.valueChars)}\u2026` : value}`), tip }
        : { kind: RowKind.Constant, bold: texts.add(name), text: texts.add(shape ? ` \u27e8${shape}\u27e9` : ''), tip };
      inner.set(k2, row);
    }
    return row;
  };
  const attrRows = new Map<number, { text: number; tip: number }>();
  let r = 0;
  for (let i = 0; i < n; i++) {
    const k = p.kind[i]!;
    const isMarker = k === 1 || k === 2;
    marker[i] = isMarker ? 1 : 0;
    const tRef = isMarker && strings[p.nodeName[i]!] ? p.nodeName[i]! : p.type[i]!;
    titleRef[i] = tRef;
    let tw = titleW.get(tRef);
    if (tw === undefined) {
      tw = m.title.width(strings[tRef]!);
      titleW.set(tRef, tw);
    }
    if (isMarker) {
      const h = fixed ? fixed.heights[i]! : BOX.markerH;
      const w = fixed ? fixed.widths[i]! : Math.min(BOX.markerMaxW, Math.max(BOX.markerMinW, Math.ceil(tw + 2 * NODE_PAD_X + h / 2)));
      widths[i] = w;
      heights[i] = h;
      header[i] = h;
      titleFit[i] = m.title.fit(strings[tRef]!, w - 2 * NODE_PAD_X - h / 2);
      rowStart[i + 1] = r;
      chainStart[i + 1] = band;
      continue;
    }
    const chain = chainOf.get(i);
    const chainH = (chain?.length ?? 0) * CHAIN_ROW_HEIGHT;
    let content = tw;
    const nameRef = p.nodeName[i]!;
    const withName = display.names && strings[nameRef]!.length > 0 && (!fixed || fixed.heights[i]! - chainH >= BOX.titleNameH - 4);
    let sw = 0;
    if (withName) {
      sw = m.subtitle.width(strings[nameRef]!);
      content = Math.max(content, sw);
    }
    // rows
    const r0 = r;
    let wanted = 0;
    if (display.weights) wanted += p.constStart[i + 1]! - p.constStart[i]!;
    if (display.attributes) wanted += p.attrStart[i + 1]! - p.attrStart[i]!;
    const shown = wanted > BOX.maxRows ? BOX.maxRows - 1 : wanted;
    let taken = 0;
    if (display.weights) {
      for (let c = p.constStart[i]!; c < p.constStart[i + 1]! && taken < shown; c++, taken++) {
        const row = constantRow(p.constName[c]!, p.constShape[c]!, p.constDtype[c]!, p.constValue[c]!);
        rowKind[r] = row.kind;
        rowBold[r] = row.bold;
        rowText[r] = row.text;
        rowTip[r] = row.tip;
        r++;
      }
    }
    if (display.attributes) {
      for (let a = p.attrStart[i]!; a < p.attrStart[i + 1]! && taken < shown; a++, taken++) {
        const key = p.attrName[a]! * ids + p.attrValue[a]!;
        let row = attrRows.get(key);
        if (!row) {
          const name = strings[p.attrName[a]!]!;
          const value = strings[p.attrValue[a]!]!;
          const cut = value.length > BOX.valueChars ? `${value.slice(0, BOX.valueChars)}\u2026` : value;
          row = { text: texts.add(`${name} = ${cut}`), tip: texts.add(`${name} = ${value}`) };
          attrRows.set(key, row);
        }
        rowKind[r] = RowKind.Attribute;
        rowText[r] = row.text;
        rowTip[r] = row.tip;
        r++;
      }
    }
    if (wanted > shown) {
      rowKind[r] = RowKind.More;
      rowText[r] = texts.add(`\u2026 ${wanted - shown} more`);
      rowTip[r] = rowText[r]!;
      r++;
    }
    for (let q = r0; q < r; q++) {
      const bw = rowBold[q]! >= 0 ? widthOf(rowBold[q]!, true) : 0;
      rowBoldW[q] = bw;
      content = Math.max(content, bw + widthOf(rowText[q]!, false) + 2 * (BOX.rowPadX - NODE_PAD_X));
    }
    // chained layers: a band each, the type in bold
    const b0 = band;
    for (const c of chain ?? []) {
      chainText[band++] = texts.add(c.type);
      content = Math.max(content, m.rowBold.width(c.type));
    }
    let hh: number = withName ? BOX.titleNameH : BOX.titleH;
    let w = Math.min(BOX.maxW, Math.max(BOX.minW, Math.ceil(content + 2 * NODE_PAD_X)));
    let h = (r > r0 ? hh + 2 * BOX.bodyPad + (r - r0) * BOX.rowH : hh) + chainH;
    if (fixed) {
      w = fixed.widths[i]!;
      h = fixed.heights[i]!;
      if (h - chainH < hh + (r > r0 ? 2 * BOX.bodyPad + BOX.rowH : 0)) r = r0; // no room for rows
      hh = Math.max(0, Math.min(hh, h - chainH));
    }
    for (let q = b0; q < band; q++) chainFit[q] = m.rowBold.fit(texts.list[chainText[q]!]!, w - 2 * NODE_PAD_X);
    chainStart[i + 1] = band;
    rowStart[i + 1] = r;
    widths[i] = w;
    header[i] = hh;
    heights[i] = h;
    const avail = w - 2 * NODE_PAD_X;
    titleFit[i] = tw <= avail ? FIT_ALL : m.title.fit(strings[tRef]!, avail);
    if (withName) {
      subRef[i] = nameRef;
      subFit[i] = sw <= avail ? FIT_ALL : m.subtitle.fit(strings[nameRef]!, avail);
    }
    for (let q = r0; q < r; q++) {
      const rest = w - 2 * BOX.rowPadX - rowBoldW[q]!;
      rowFit[q] = widthOf(rowText[q]!, false) <= rest ? FIT_ALL : m.row.fit(texts.list[rowText[q]!]!, rest);
    }
  }
  return { count: n, widths, heights, marker, header, titleRef, titleFit, subRef, subFit, rowStart, rowKind, rowBold, rowText, rowFit, rowBoldW, rowTip, chainStart, chainText, chainFit, texts: texts.list };
}

/** Typed arrays of the boxes (for a transfer list). */
export function boxBuffers(b: NodeBoxes): ArrayBufferView[] {
  return [b.widths, b.heights, b.marker, b.header, b.titleRef, b.titleFit, b.subRef, b.subFit, b.rowStart, b.rowKind, b.rowBold, b.rowText, b.rowFit, b.rowBoldW, b.rowTip, b.chainStart, b.chainText, b.chainFit];
}
