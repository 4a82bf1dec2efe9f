/**
 * Partition colours (viewers.md section 5): backends take Compiler Explorer's colour-blind-safe
 * schemes in `backends` order: `green-blue` (ColorBrewer Paired 1-4) for up to 4 backends,
 * `earth` (ColorBrewer BrBG, 9 classes) for up to 9, each colour with its own dark-theme value.
 * Past the palette size colours repeat with a variant per cycle (shifted lightness on the graph,
 * a hatch in the legend), so any number of backends stays drawable.
 * Parts (the output models) get an outline from the Okabe-Ito palette, cycled by part index.
 * DOM-free.
 */
import type { Theme } from '../graph/palette';

export interface SchemeColour {
  light: string;
  dark: string;
}

export const GREEN_BLUE: readonly SchemeColour[] = [
  { light: '#a6cee3', dark: '#5292b3' },
  { light: '#1f78b4', dark: '#2d6a93' },
  { light: '#b2df8a', dark: '#7ab247' },
  { light: '#33a02c', dark: '#3b8736' },
];

export const EARTH: readonly SchemeColour[] = [
  { light: '#8c510a', dark: '#8c5a1e' },
  { light: '#bf812d', dark: '#946c36' },
  { light: '#dfc27d', dark: '#b29143' },
  { light: '#f6e8c3', dark: '#cca94c' },
  { light: '#f5f5f5', dark: '#959595' },
  { light: '#c7eae5', dark: '#63b2a7' },
  { light: '#80cdc1', dark: '#509e92' },
  { light: '#35978f', dark: '#3d817b' },
  { light: '#01665e', dark: '#14837b' },
];

/** Okabe-Ito, ordered so the first outlines stand apart from blue/green and brown/teal fills. */
const PART_OUTLINES_LIGHT = ['#d55e00', '#cc79a7', '#e69f00', '#000000', '#009e73', '#0072b2', '#56b4e9', '#f0e442'];
const PART_OUTLINES_DARK = ['#ff8a3d', '#e8a0c8', '#f0b429', '#ffffff', '#2fc49a', '#4aa3e0', '#8fd0f5', '#f5ec70'];

export function schemeFor(backendCount: number): { name: 'green-blue' | 'earth'; colours: readonly SchemeColour[] } {
  return backendCount <= GREEN_BLUE.length ? { name: 'green-blue', colours: GREEN_BLUE } : { name: 'earth', colours: EARTH };
}

export interface BackendStyle {
  backend: string;
  /** fill on the graph */
  fill: string;
  /** 0 for the first pass through the palette; n > 0 for repeats (legend shows a hatch) */
  cycle: number;
  /** palette slot `<scheme>-<ordinal>` */
  slot: string;
}

function parseHex(c: string): [number, number, number] {
  const n = parseInt(c.slice(1), 16);
  return [(n >> 16) & 255, (n >> 8) & 255, n & 255];
}

function toHex([r, g, b]: [number, number, number]): string {
  return `#${[r, g, b].map((v) => Math.max(0, Math.min(255, Math.round(v))).toString(16).padStart(2, '0')).join('')}`;
}

/** mixes `c` toward `to` by `t` (0..1) */
export function mix(c: string, to: string, t: number): string {
  const a = parseHex(c), b = parseHex(to);
  return toHex([a[0] + (b[0] - a[0]) * t, a[1] + (b[1] - a[1]) * t, a[2] + (b[2] - a[2]) * t]);
}

/** Colours of every backend, in `backends` order. */
export function backendStyles(backends: readonly string[], theme: Theme): BackendStyle[] {
  const { name, colours } = schemeFor(backends.length);
  return backends.map((backend, i) => {
    const slot = i % colours.length;
    const cycle = Math.floor(i / colours.length);
    const base = colours[slot]![theme];
    // repeats: alternately darker and lighter, further each time round
    const shift = Math.min(0.6, 0.22 * Math.ceil(cycle / 2));
    const fill = cycle === 0 ? base : mix(base, cycle % 2 === 1 ? '#000000' : '#ffffff', shift);
    return { backend, fill, cycle, slot: `${name}-${slot}` };
  });
}

export function partOutline(partIndex: number, theme: Theme): string {
  const list = theme === 'dark' ? PART_OUTLINES_DARK : PART_OUTLINES_LIGHT;
  return list[partIndex % list.length]!;
}

export interface NodeColouring {
  fill: (string | null)[];
  outline: (string | null)[];
  /** per graph node: part index or -1 */
  part: Int32Array;
}

/**
 * Per graph node (index-aligned with graph.nodes): operators of subgraph 0 take their backend's
 * fill and their part's outline; markers and other nodes keep their own colours.
 */
export function colourNodes(
  nodes: ReadonlyArray<{ kind: string; index: number }>,
  operatorBackend: Int32Array,
  operatorPart: Int32Array,
  styles: readonly BackendStyle[],
  theme: Theme,
  outlineParts = true,
): NodeColouring {
  const n = nodes.length;
  const fill = new Array<string | null>(n).fill(null);
  const outline = new Array<string | null>(n).fill(null);
  const part = new Int32Array(n).fill(-1);
  const outlines: string[] = [];
  for (let i = 0; i < n; i++) {
    const node = nodes[i]!;
    if (node.kind !== 'op' || node.index < 0 || node.index >= operatorBackend.length) continue;
    const b = operatorBackend[node.index]!;
    const p = operatorPart[node.index]!;
    fill[i] = styles[b]?.fill ?? null;
    part[i] = p;
    if (outlineParts && p >= 0) {
      let o = outlines[p];
      if (o === undefined) o = outlines[p] = partOutline(p, theme);
      outline[i] = o;
    }
  }
  return { fill, outline, part };
}
