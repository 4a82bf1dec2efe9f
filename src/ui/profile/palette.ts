/**
 * Layer colours of the profile timeline: Okabe–Ito (colour-blind safe), with lighter variants
 * for the dark theme, and the text colour that reads best on each fill. DOM-free.
 */
import { LAYER_ORDER } from './timeline-model';

export type Theme = 'light' | 'dark';

export interface TimelinePalette {
  background: string;
  laneAlt: string;
  grid: string;
  text: string;
  muted: string;
  groupBg: string;
  /** one fill per LAYER_ORDER slot */
  layer: string[];
  /** text drawn on a bar of each slot */
  layerText: string[];
  /** the fills mixed into the background: marks outside the highlighted set */
  layerDim: string[];
  selected: string;
  /** the keyboard focus ring (the app's accent, as in the CSS focus outlines) */
  focus: string;
  highlight: string;
  /** veil over the marks that are not highlighted */
  dim: string;
}

const LIGHT_LAYERS: Record<(typeof LAYER_ORDER)[number], string> = {
  LA: '#0072B2', // blue
  LR: '#E69F00', // orange
  LI: '#CC79A7', // reddish purple
  LD: '#009E73', // bluish green
  LC: '#D55E00', // vermillion
  LO: '#8C8C8C',
  LU: '#56B4E9', // sky blue
  LX: '#B8BEC6',
};

const DARK_LAYERS: Record<(typeof LAYER_ORDER)[number], string> = {
  LA: '#4BA3E3',
  LR: '#F0B43C',
  LI: '#E39BC6',
  LD: '#2FC79A',
  LC: '#F07F3C',
  LO: '#9DA3AB',
  LU: '#8FD0F5',
  LX: '#59616D',
};

function luminance(hex: string): number {
  const v = parseInt(hex.slice(1), 16);
  const ch = [(v >> 16) & 255, (v >> 8) & 255, v & 255].map((c) => {
    const s = c / 255;
    return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * ch[0]! + 0.7152 * ch[1]! + 0.0722 * ch[2]!;
}

/** Black or white, whichever contrasts more with the fill. */
export function textOn(fill: string): string {
  const l = luminance(fill);
  return (l + 0.05) / 0.05 >= 1.05 / (l + 0.05) ? '#111418' : '#ffffff';
}

function mix(a: string, b: string, t: number): string {
  const va = parseInt(a.slice(1), 16);
  const vb = parseInt(b.slice(1), 16);
  const c = [16, 8, 0].map((s) => Math.round(((va >> s) & 255) * (1 - t) + ((vb >> s) & 255) * t));
  return `#${c.map((x) => x.toString(16).padStart(2, '0')).join('')}`;
}

function make(theme: Theme): TimelinePalette {
  const layers = theme === 'dark' ? DARK_LAYERS : LIGHT_LAYERS;
  const layer = LAYER_ORDER.map((l) => layers[l]);
  const bg = theme === 'dark' ? '#15181d' : '#ffffff';
  const layerDim = layer.map((c) => mix(c, bg, 0.72));
  return theme === 'dark'
    ? {
        background: '#15181d',
        laneAlt: '#1a1e24',
        grid: 'rgba(255,255,255,0.07)',
        text: '#e3e7ed',
        muted: '#9aa4b1',
        groupBg: '#20252d',
        layer,
        layerText: layer.map(textOn),
        layerDim,
        selected: '#ffffff',
        focus: '#4c8dff',
        highlight: '#ffd54a',
        dim: 'rgba(21,24,29,0.72)',
      }
    : {
        background: '#ffffff',
        laneAlt: '#f7f8fa',
        grid: 'rgba(0,0,0,0.07)',
        text: '#1b1f24',
        muted: '#646c76',
        groupBg: '#eef0f3',
        layer,
        layerText: layer.map(textOn),
        layerDim,
        selected: '#111418',
        focus: '#1f6feb',
        highlight: '#b8860b',
        dim: 'rgba(255,255,255,0.72)',
      };
}

const CACHE: Partial<Record<Theme, TimelinePalette>> = {};
export function timelinePalette(theme: Theme): TimelinePalette {
  return (CACHE[theme] ??= make(theme));
}
