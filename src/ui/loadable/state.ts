/**
 * Loadable UI state (zustand), per tab: which view of the loadable is on screen, the blob shown
 * in the Blobs view (and an offset to scroll its hex view to), and the tab it is compared with.
 * The selected op slot is the tab's graph selection (`Doc.selected`, a node index of the op-slot
 * graph), so the tables, the graph, the memory map and the side panel always agree.
 */
import { create } from 'zustand';

export type LoadableViewName = 'tasks' | 'graph' | 'memory' | 'tensors' | 'blobs' | 'damage' | 'run' | 'calibrate' | 'compare';

export const VIEW_TITLES: Record<LoadableViewName, string> = {
  tasks: 'Tasks',
  graph: 'Graph',
  memory: 'Memory',
  tensors: 'Tensors & relocs',
  blobs: 'Blobs',
  damage: 'Damage',
  run: 'Run',
  calibrate: 'Calibrate',
  compare: 'Compare',
};

export interface LoadableTabState {
  view: LoadableViewName;
  blob: number | null;
  /** a byte to bring into the hex view (set by links to a descriptor's place) */
  blobOffset: number | null;
  /** the other loadable tab of the comparison (this tab is A) */
  compareWith: string | null;
}

const DEFAULT: LoadableTabState = { view: 'tasks', blob: null, blobOffset: null, compareWith: null };

export const useLoadable = create<{ tabs: Record<string, LoadableTabState> }>(() => ({ tabs: {} }));

export function loadableTab(tabId: string): LoadableTabState {
  return useLoadable.getState().tabs[tabId] ?? DEFAULT;
}

export function useLoadableTab(tabId: string | null | undefined): LoadableTabState {
  return useLoadable((s) => (tabId ? s.tabs[tabId] : undefined) ?? DEFAULT);
}

export function updateLoadableTab(tabId: string, patch: Partial<LoadableTabState>) {
  useLoadable.setState((s) => ({ tabs: { ...s.tabs, [tabId]: { ...(s.tabs[tabId] ?? DEFAULT), ...patch } } }));
}

export function showLoadableView(tabId: string, view: LoadableViewName) {
  updateLoadableTab(tabId, { view });
}

/** The Blobs view with blob `index`, its hex view scrolled to `offset` when given. */
export function showBlob(tabId: string, index: number, offset: number | null = null) {
  updateLoadableTab(tabId, { view: 'blobs', blob: index, blobOffset: offset });
}

export function openLoadableCompare(tabId: string, otherTabId: string) {
  updateLoadableTab(tabId, { view: 'compare', compareWith: otherTabId });
}

export function closeLoadableCompare(tabId: string) {
  updateLoadableTab(tabId, { view: 'tasks', compareWith: null });
}

/** A closed tab leaves no state behind, and no comparison pointing at it. */
export function forgetLoadableTab(tabId: string) {
  useLoadable.setState((s) => {
    const tabs: Record<string, LoadableTabState> = {};
    for (const [id, t] of Object.entries(s.tabs)) {
      if (id === tabId) continue;
      tabs[id] = t.compareWith === tabId ? { ...t, compareWith: null, view: t.view === 'compare' ? 'tasks' : t.view } : t;
    }
    return { tabs };
  });
}
