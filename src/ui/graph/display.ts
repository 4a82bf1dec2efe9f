/**
 * The node display toggles in the UI: what the node boxes show (attributes, constant inputs,
 * names; Netron's Ctrl+D, Ctrl+I, Ctrl+U). The choice lives with the pane layout in the URL hash
 * (shell/layout.ts), so a reload or a shared link keeps it. Box sizes depend on it, so a change
 * lays the graph on screen out again (in the layout worker; the view keeps its place); a tab
 * whose graph was laid out for another choice is laid out again when it is shown.
 */
import { DEFAULT_DISPLAY, sameDisplay, type DisplayOptions } from '../../core/graph/view/node-box';
import { showGraph } from '../actions';
import { activeDoc, useStudio } from '../store';
import { toggleNodeDisplay, useLayout, type LayoutState } from '../shell/layout';
import { preparedSceneFor } from './prepared';

export function displayOf(s: Pick<LayoutState, 'attributes' | 'weights' | 'names'>): DisplayOptions {
  return { attributes: s.attributes ?? DEFAULT_DISPLAY.attributes, weights: s.weights ?? DEFAULT_DISPLAY.weights, names: s.names ?? DEFAULT_DISPLAY.names };
}

/** The toggles as the keyboard help and the command palette show them. */
export const DISPLAY_TOGGLES: { what: keyof DisplayOptions; keys: string; key: string; label: string }[] = [
  { what: 'attributes', keys: 'Ctrl+D', key: 'd', label: 'attributes' },
  { what: 'weights', keys: 'Ctrl+I', key: 'i', label: 'weights (constant inputs)' },
  { what: 'names', keys: 'Ctrl+U', key: 'u', label: 'names' },
];

function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.tagName === 'INPUT' || el.tagName === 'TEXTAREA' || el.isContentEditable || !!el.closest?.('.monaco-editor'));
}

/** Lays the active tab's graph out again when it was made for another display choice. */
function refreshActive() {
  const doc = activeDoc();
  if (!doc) return;
  // a layout under way may have started with the old choice: start it again
  if (doc.loading?.what === 'layout') {
    void showGraph(doc.id, doc.graphId);
    return;
  }
  if (!doc.view) return;
  const prepared = preparedSceneFor(doc.view.layout);
  if (prepared && !sameDisplay(prepared.scene.display, displayOf(useLayout.getState()))) void showGraph(doc.id, doc.graphId);
}

let bound = false;

/** Keys Ctrl+D / Ctrl+I / Ctrl+U, and re-layout on a change of the choice or of the tab shown. Call once. */
export function bindNodeDisplay() {
  if (bound || typeof window === 'undefined') return;
  bound = true;
  window.addEventListener('keydown', (e) => {
    if (!(e.ctrlKey || e.metaKey) || e.shiftKey || e.altKey || typingIn(e.target) || useStudio.getState().overlay) return;
    const t = DISPLAY_TOGGLES.find((x) => x.key === e.key.toLowerCase());
    if (!t || !activeDoc()?.view) return;
    e.preventDefault();
    toggleNodeDisplay(t.what);
  });
  let last = displayOf(useLayout.getState());
  useLayout.subscribe((s) => {
    const now = displayOf(s);
    if (sameDisplay(now, last)) return;
    last = now;
    refreshActive();
  });
  let lastActive = useStudio.getState().activeId;
  useStudio.subscribe((s) => {
    if (s.activeId === lastActive) return;
    lastActive = s.activeId;
    refreshActive();
  });
}
