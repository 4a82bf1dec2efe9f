/**
 * The pane layout the user chose (side panel width, side and visibility; partition dock height),
 * remembered in the URL hash as DESIGN.md asks: `#panel=420&dock=300&side=left` (`side=hidden`
 * hides the panel; `dockat=right&dockw=560` puts the partition editor beside the graph; `inplace=nodes`
 * draws Caffe's in-place layers as nodes of their own), and the node display toggles (`attrs=1`,
 * `weights=0`, `names=0`). View state only: a reload or a shared link
 * keeps the layout, never a model's bytes. Other keys in the hash are left as they are, and a
 * hand-edited or hostile hash is read leniently (unknown keys kept, bad numbers ignored, sizes
 * clamped).
 */
import { create } from 'zustand';

export interface LayoutState {
  /** side panel width in CSS pixels; null = the default (28% of the window, at least 280 px) */
  panel: number | null;
  /** partition dock height in CSS pixels */
  dock: number;
  /** where the side panel is: right of the graph (default), left of it, or hidden */
  side: 'right' | 'left' | 'hidden';
  /** where the partition editor is: below the graph (default) or beside it */
  dockAt: 'bottom' | 'right';
  /** its width beside the graph, in CSS pixels */
  dockWidth: number;
  /** node display toggles (graph/display.ts): attributes, constant inputs and names in the node boxes */
  attributes: boolean;
  weights: boolean;
  names: boolean;
  /**
   * in-place layers (Caffe: top == bottom, e.g. ReLU after a convolution) drawn inside their
   * producer's box as Netron does ('folded', the default) or as nodes of their own: which of a
   * document's two graphs (`GraphInfo.unfoldedOf`) is shown
   */
  inplace: 'folded' | 'nodes';
}

export const PANEL_MIN = 240;
export const DOCK_MIN = 120;
export const DOCK_DEFAULT = 300;
export const DOCK_WIDTH_MIN = 320;
export const DOCK_WIDTH_DEFAULT = 560;
/** the largest size any pane may be given through the hash; the window limits it further when drawn */
const HASH_MAX = 4000;

const DEFAULT: LayoutState = { panel: null, dock: DOCK_DEFAULT, side: 'right', dockAt: 'bottom', dockWidth: DOCK_WIDTH_DEFAULT, inplace: 'folded', attributes: false, weights: true, names: true };

/** the display toggles and their hash keys: `#attrs=1&weights=0&names=0` (defaults left out) */
const TOGGLES: [keyof Pick<LayoutState, 'attributes' | 'weights' | 'names'>, string][] = [['attributes', 'attrs'], ['weights', 'weights'], ['names', 'names']];

export const useLayout = create<LayoutState>(() => ({ ...DEFAULT }));

export function setPanelWidth(px: number | null) {
  useLayout.setState({ panel: px === null ? null : Math.round(px) });
}

export function setDockHeight(px: number) {
  useLayout.setState({ dock: Math.round(px) });
}

export function setDockWidth(px: number) {
  useLayout.setState({ dockWidth: Math.round(px) });
}

export function setDockAt(dockAt: LayoutState['dockAt']) {
  useLayout.setState({ dockAt });
}

export function setInplace(inplace: LayoutState['inplace']) {
  useLayout.setState({ inplace });
}

export function setPanelSide(side: LayoutState['side']) {
  useLayout.setState({ side });
}

/** Ctrl+D / Ctrl+I / Ctrl+U: attributes, weights (constant inputs) or names in the node boxes on or off */
export function toggleNodeDisplay(what: 'attributes' | 'weights' | 'names') {
  useLayout.setState((s) => ({ [what]: !s[what] }));
}

/** Ctrl+B: hides the side panel, or shows it where it was */
let shownAt: 'right' | 'left' = 'right';
export function toggleSidePanel() {
  const { side } = useLayout.getState();
  if (side === 'hidden') useLayout.setState({ side: shownAt });
  else {
    shownAt = side;
    useLayout.setState({ side: 'hidden' });
  }
}

function sizeParam(p: URLSearchParams, key: string, min: number): number | undefined {
  const raw = p.get(key);
  if (raw === null || !/^\d{1,5}$/.test(raw)) return undefined;
  return Math.min(HASH_MAX, Math.max(min, Number(raw)));
}

/** The layout a hash asks for: only the keys it sets, valid and clamped. */
export function parseLayoutHash(hash: string): Partial<LayoutState> {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  const out: Partial<LayoutState> = {};
  const panel = sizeParam(p, 'panel', PANEL_MIN);
  if (panel !== undefined) out.panel = panel;
  const dock = sizeParam(p, 'dock', DOCK_MIN);
  if (dock !== undefined) out.dock = dock;
  const side = p.get('side');
  if (side === 'left' || side === 'right' || side === 'hidden') out.side = side;
  const dockAt = p.get('dockat');
  if (dockAt === 'bottom' || dockAt === 'right') out.dockAt = dockAt;
  const dockWidth = sizeParam(p, 'dockw', DOCK_WIDTH_MIN);
  if (dockWidth !== undefined) out.dockWidth = dockWidth;
  for (const [field, key] of TOGGLES) {
    const v = p.get(key);
    if (v === '1' || v === '0') out[field] = v === '1';
  }
  const inplace = p.get('inplace');
  if (inplace === 'folded' || inplace === 'nodes') out.inplace = inplace;
  return out;
}

/** `hash` with the layout's keys set (defaults left out) and every other key kept in order. */
export function formatLayoutHash(hash: string, layout: LayoutState): string {
  const p = new URLSearchParams(hash.replace(/^#/, ''));
  if (layout.panel === null) p.delete('panel');
  else p.set('panel', String(Math.round(layout.panel)));
  if (layout.dock === DOCK_DEFAULT) p.delete('dock');
  else p.set('dock', String(Math.round(layout.dock)));
  if (layout.side === DEFAULT.side) p.delete('side');
  else p.set('side', layout.side);
  if (layout.dockAt === DEFAULT.dockAt) p.delete('dockat');
  else p.set('dockat', layout.dockAt);
  if (layout.dockWidth === DEFAULT.dockWidth) p.delete('dockw');
  else p.set('dockw', String(Math.round(layout.dockWidth)));
  for (const [field, key] of TOGGLES) {
    if (layout[field] === DEFAULT[field]) p.delete(key);
    else p.set(key, layout[field] ? '1' : '0');
  }
  if (layout.inplace === DEFAULT.inplace) p.delete('inplace');
  else p.set('inplace', layout.inplace);
  const s = p.toString();
  return s ? `#${s}` : '';
}

let bound = false;

/** Reads the layout from the page's hash, then keeps the two in step (replaceState: no history entries). */
export function bindLayoutToHash() {
  if (bound || typeof window === 'undefined') return;
  bound = true;
  const apply = () => useLayout.setState({ ...DEFAULT, ...parseLayoutHash(location.hash) });
  apply();
  window.addEventListener('hashchange', apply);
  let timer: ReturnType<typeof setTimeout> | null = null;
  useLayout.subscribe(() => {
    if (timer) clearTimeout(timer);
    timer = setTimeout(() => {
      timer = null;
      const next = formatLayoutHash(location.hash, useLayout.getState());
      if (next !== location.hash && !(next === '' && location.hash === '#')) {
        history.replaceState(history.state, '', `${location.pathname}${location.search}${next}`);
      }
    }, 150);
  });
}
