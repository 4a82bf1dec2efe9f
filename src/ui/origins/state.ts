/**
 * Origins UI state (zustand), per tab: the origins of the graph on screen, what is hovered (an
 * operator in the graph or a source row), and the compare view after Optimize. Kept apart from
 * the app store so the Origins panel and the compare view stay one folder.
 */
import { create } from 'zustand';
import type { Graph, GraphLayout, NodeDetails, OptimizeView, OriginsView } from '../../worker/api';
import type { GraphViewHandle } from '../graph/GraphView';

export type OptimizeOk = Extract<OptimizeView, { ok: true }>;

export interface OriginsEntry {
  /** worker doc id + graph id the view belongs to */
  key: string;
  view: OriginsView | null;
  error: string | null;
}

export interface ComparePaneState {
  graph: Graph;
  layout: GraphLayout;
}

export type Side = 'left' | 'right';

export interface CompareState {
  /** the compare view is on screen (false: back to the single view, result kept) */
  open: boolean;
  running: boolean;
  passes: string[];
  result: OptimizeOk | null;
  left: ComparePaneState | null;
  right: ComparePaneState | null;
  selected: { side: Side; index: number } | null;
  /** node details of `selected`, from the worker document of its side (null while loading) */
  details: NodeDetails | null;
  /** the pane last used (selected in): the side panel describes its model */
  focus: Side;
  hover: { side: Side; index: number } | null;
  error: string | null;
}

export interface OriginsState {
  /** per tab id */
  origins: Record<string, OriginsEntry>;
  /** hovered graph node (main view) and hovered source id (Origins panel) */
  hoverNode: number | null;
  hoverSource: number | null;
  compare: Record<string, CompareState>;
  /** per worker document with the `optimize` capability: its passes in pipeline order */
  passNames: Record<string, string[]>;
}

export const useOrigins = create<OriginsState>(() => ({ origins: {}, hoverNode: null, hoverSource: null, compare: {}, passNames: {} }));

/** stable empty list for selectors */
export const NO_PASSES: readonly string[] = [];

export function updateCompare(tabId: string, patch: Partial<CompareState> | ((c: CompareState) => Partial<CompareState>)) {
  useOrigins.setState((s) => {
    const cur = s.compare[tabId];
    if (!cur) return {};
    return { compare: { ...s.compare, [tabId]: { ...cur, ...(typeof patch === 'function' ? patch(cur) : patch) } } };
  });
}

/** The main graph view of the single view (registered by GraphPane) so rows can centre on nodes. */
let mainView: (() => GraphViewHandle | null) | null = null;
export function registerMainView(get: () => GraphViewHandle | null) {
  mainView = get;
  return () => {
    if (mainView === get) mainView = null;
  };
}
export function mainGraphView(): GraphViewHandle | null {
  return mainView ? mainView() : null;
}

/** The two graph views of the compare view (registered by ComparePane) so panel rows can centre on nodes. */
const compareViews: Record<Side, (() => GraphViewHandle | null) | null> = { left: null, right: null };
export function registerCompareView(side: Side, get: () => GraphViewHandle | null) {
  compareViews[side] = get;
  return () => {
    if (compareViews[side] === get) compareViews[side] = null;
  };
}
export function compareGraphView(side: Side): GraphViewHandle | null {
  const get = compareViews[side];
  return get ? get() : null;
}

/** Uint8Array mask over `count` nodes with the listed indices set (GraphView `highlighted`). */
export function maskOf(count: number, nodes: readonly number[] | null | undefined): Uint8Array | undefined {
  if (!nodes || nodes.length === 0) return undefined;
  const m = new Uint8Array(count);
  for (const n of nodes) if (n >= 0 && n < count) m[n] = 1;
  return m;
}
