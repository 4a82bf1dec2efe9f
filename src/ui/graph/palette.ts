/**
 * Node and edge colours for the graph view, one palette per theme.
 * Category colours follow Netron's grapher.css (Layer blue, Activation dark red, Pool green,
 * Normalization dark green, Shape/Tensor brown, ...), with a dark-theme variant of each.
 * Text colour is picked per fill for contrast (WCAG ratio >= 4.5 where the fill allows it).
 * DOM-free: used by the canvas renderer, the SVG export and the tests.
 */
import type { GraphNode, NodeCategory } from '../../core/graph/model';

export type Theme = 'light' | 'dark';

export interface GraphPalette {
  background: string;
  /** fill of operators without a category colour */
  nodeDefault: string;
  nodeBorder: string;
  edge: string;
  edgeLabel: string;
  arrow: string;
  /** border of the selected node */
  selected: string;
  /** border of related (highlighted) nodes: Model Explorer's pink */
  highlighted: string;
  /** focus ring of the keyboard-focused node */
  focus: string;
  inputFill: string;
  inputBorder: string;
  outputFill: string;
  outputBorder: string;
  constantFill: string;
  /** body of a box below its header (constant inputs, attributes) and its text */
  nodeBody: string;
  nodeBodyText: string;
  /** background of the hover tooltip and its text */
  tooltip: string;
  tooltipText: string;
  category: Record<NodeCategory, string>;
}

const LIGHT: GraphPalette = {
  background: '#ffffff',
  nodeDefault: '#e6e6e6',
  nodeBorder: '#333333',
  edge: '#6b6b6b',
  edgeLabel: '#3c3c3c',
  arrow: '#4a4a4a',
  selected: '#0a64e6',
  highlighted: '#ff00be',
  focus: '#f5a700',
  inputFill: '#e9f3e4',
  inputBorder: '#3d7a2a',
  outputFill: '#f7e8e0',
  outputBorder: '#a3481a',
  constantFill: '#d6d6d6',
  nodeBody: '#ffffff',
  nodeBodyText: '#1a1a1a',
  tooltip: '#2b2b2b',
  tooltipText: '#ffffff',
  category: {
    Layer: '#335588',
    Activation: '#702921',
    Pool: '#335533',
    Normalization: '#335544',
    Dropout: '#454770',
    Shape: '#6c4f47',
    Tensor: '#59423b',
    Transform: '#3c5a5a',
    Data: '#555555',
    Quantization: '#502800',
    Custom: '#808080',
    Control: '#5b3b8c',
    Input: '#e9f3e4',
    Output: '#f7e8e0',
    Constant: '#d6d6d6',
    Other: '#e6e6e6',
  },
};

const DARK: GraphPalette = {
  background: '#1e1e1e',
  nodeDefault: '#3c3c3c',
  nodeBorder: '#8a8a8a',
  edge: '#8c8c8c',
  edgeLabel: '#c4c4c4',
  arrow: '#a8a8a8',
  selected: '#4da3ff',
  highlighted: '#ff00be',
  focus: '#ffc233',
  inputFill: '#21381b',
  inputBorder: '#79c05f',
  outputFill: '#45261a',
  outputBorder: '#e8895a',
  constantFill: '#4a4a4a',
  nodeBody: '#2b2b2b',
  nodeBodyText: '#e4e4e4',
  tooltip: '#f0f0f0',
  tooltipText: '#111111',
  category: {
    Layer: '#3d6bb3',
    Activation: '#a8392c',
    Pool: '#3f7a3f',
    Normalization: '#2f6b52',
    Dropout: '#5c5f9e',
    Shape: '#8a6357',
    Tensor: '#6e5a52',
    Transform: '#3f7373',
    Data: '#666666',
    Quantization: '#8a5a1f',
    Custom: '#737373',
    Control: '#7d58b8',
    Input: '#21381b',
    Output: '#45261a',
    Constant: '#4a4a4a',
    Other: '#3c3c3c',
  },
};

export function paletteFor(theme: Theme): GraphPalette {
  return theme === 'dark' ? DARK : LIGHT;
}

/** Fill of a node before any override. */
export function nodeFillColor(node: Pick<GraphNode, 'kind' | 'category'>, palette: GraphPalette): string {
  if (node.kind === 'input') return palette.inputFill;
  if (node.kind === 'output') return palette.outputFill;
  if (node.kind === 'const') return palette.constantFill;
  const c = palette.category[node.category];
  return c ?? palette.nodeDefault;
}

/** Border of a node before selection/highlight. */
export function nodeBorderColor(node: Pick<GraphNode, 'kind'>, palette: GraphPalette): string {
  if (node.kind === 'input') return palette.inputBorder;
  if (node.kind === 'output') return palette.outputBorder;
  return palette.nodeBorder;
}

/** Parses `#rgb`, `#rrggbb`, `rgb(r, g, b)`; returns null when it cannot. */
export function parseColor(color: string): [number, number, number] | null {
  const s = color.trim().toLowerCase();
  let m = /^#([0-9a-f]{3})$/.exec(s);
  if (m) {
    const h = m[1];
    return [parseInt(h[0] + h[0], 16), parseInt(h[1] + h[1], 16), parseInt(h[2] + h[2], 16)];
  }
  m = /^#([0-9a-f]{6})(?:[0-9a-f]{2})?$/.exec(s);
  if (m) {
    const h = m[1];
    return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
  }
  m = /^rgba?\(\s*(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)[\s,]+(\d+(?:\.\d+)?)/.exec(s);
  if (m) return [Number(m[1]), Number(m[2]), Number(m[3])].map((v) => Math.max(0, Math.min(255, v))) as [number, number, number];
  return null;
}

function channel(v: number): number {
  const c = v / 255;
  return c <= 0.03928 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** WCAG relative luminance, 0..1. */
export function relativeLuminance(rgb: [number, number, number]): number {
  return 0.2126 * channel(rgb[0]) + 0.7152 * channel(rgb[1]) + 0.0722 * channel(rgb[2]);
}

/** WCAG contrast ratio of two colours, 1..21. */
export function contrastRatio(a: string, b: string): number {
  const ca = parseColor(a);
  const cb = parseColor(b);
  if (!ca || !cb) return 1;
  const la = relativeLuminance(ca);
  const lb = relativeLuminance(cb);
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

export const TEXT_LIGHT = '#ffffff';
export const TEXT_DARK = '#111111';

/** The text colour (near-white or near-black) with the higher contrast on `fill`. */
export function textColorFor(fill: string): string {
  return contrastRatio(fill, TEXT_LIGHT) >= contrastRatio(fill, TEXT_DARK) ? TEXT_LIGHT : TEXT_DARK;
}
