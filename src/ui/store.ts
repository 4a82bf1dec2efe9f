/**
 * UI state (zustand). Plain view state only: model bytes stay in the Blobs the user gave us and
 * parsed models stay in the worker.
 */
import { create } from 'zustand';
import type { Diagnostic, DocumentSummary, ErrorInfo, FindResult, Graph, GraphLayout, InputFile, NodeDetails, OpenOptions } from '../worker/api';

export type ThemeChoice = 'light' | 'dark' | 'system';
export type Direction = 'TB' | 'LR';

export interface GraphViewState {
  graphId: string;
  graph: Graph;
  layout: GraphLayout;
  direction: Direction;
}

export interface LoadingState {
  what: string;
  phase: string;
  fraction: number;
  startedAt: number;
}

export interface Doc {
  /** stable UI id of the tab */
  id: string;
  /** id in the model worker (changes when the worker is restarted) */
  workerDocId: string;
  title: string;
  /** the title told apart from the other open tabs' (`model.circle (2)`, `v2/model.circle`); tabs, status bar and palette show it */
  label?: string;
  /** hash of the main file's bytes: partition drafts are kept under it (a renamed file keeps its draft, two files of one name do not share one) */
  contentHash?: string;
  files: InputFile[];
  /** the document options the files were opened with (`summary.options` lists the choices); re-opened with them after a worker restart */
  options?: OpenOptions;
  /** what the document is and can do: `summary.capabilities` picks its views (ui/capabilities.ts) */
  summary: DocumentSummary;
  diagnostics: Diagnostic[];
  graphId: string;
  direction: Direction;
  view: GraphViewState | null;
  loading: LoadingState | null;
  selected: number | null;
  details: NodeDetails | null;
  /** the graphs this tab came from (opening a body pushes, Back and Backspace pop) */
  back?: string[];
  /** a request to scroll a part of the document's view into sight (the Profile view's Diagnostics), cleared once done */
  reveal?: 'diagnostics' | null;
}

export interface Alert {
  id: number;
  /** the tab it belongs to (shown only while that tab is active); null: the whole studio (a file that did not open, a worker restart) */
  docId: string | null;
  severity: 'error' | 'warning' | 'info';
  message: string;
  error?: ErrorInfo;
  /** a button in the alert: `show-diagnostics` brings the document's Diagnostics panel into view */
  action?: { kind: 'show-diagnostics'; label: string; docId: string };
}

export interface FindState {
  open: boolean;
  query: string;
  results: FindResult[];
  total: number;
  ms: number;
  active: number;
}

export type SidePanel = 'node' | 'model' | 'origins' | 'run';

export interface StudioState {
  docs: Doc[];
  activeId: string | null;
  theme: ThemeChoice;
  alerts: Alert[];
  workerNote: string | null;
  find: FindState;
  side: SidePanel;
  opening: boolean;
  /** a dialog over the workspace: the command palette (Ctrl+Shift+P) or the keyboard help (?) */
  overlay: 'commands' | 'help' | null;
}

export const useStudio = create<StudioState>(() => ({
  docs: [],
  activeId: null,
  theme: (typeof localStorage !== 'undefined' && (localStorage.getItem('npu-studio.theme') as ThemeChoice)) || 'system',
  alerts: [],
  workerNote: null,
  find: { open: false, query: '', results: [], total: 0, ms: 0, active: 0 },
  side: 'model',
  opening: false,
  overlay: null,
}));

/** What a tab is called on screen. */
export function docLabel(d: Pick<Doc, 'title' | 'label'>): string {
  return d.label ?? d.title;
}

export function activeDoc(s: StudioState = useStudio.getState()): Doc | null {
  return s.docs.find((d) => d.id === s.activeId) ?? null;
}

export function updateDoc(id: string, patch: Partial<Doc> | ((d: Doc) => Partial<Doc>)) {
  useStudio.setState((s) => ({
    docs: s.docs.map((d) => (d.id === id ? { ...d, ...(typeof patch === 'function' ? patch(d) : patch) } : d)),
  }));
}

let alertId = 1;
/** how long an info alert (a download done, a layout cancelled) stays before it goes by itself */
export const INFO_ALERT_MS = 6000;
/** alerts kept per tab (older ones drop off) */
const KEPT_PER_DOC = 20;

/**
 * Shows an alert on a tab: `docId` names it; left out, the active tab's (the alert answers what
 * the user just did there); `null` for the whole studio. Info alerts dismiss themselves.
 */
export function pushAlert(a: Omit<Alert, 'id' | 'docId'> & { docId?: string | null }) {
  const id = alertId++;
  useStudio.setState((s) => {
    const docId = a.docId === undefined ? s.activeId : a.docId;
    const same = s.alerts.filter((x) => x.docId === docId);
    const drop = same.length >= KEPT_PER_DOC ? same[0]!.id : -1;
    return { alerts: [...s.alerts.filter((x) => x.id !== drop), { ...a, docId, id }] };
  });
  if (a.severity === 'info' && typeof setTimeout !== 'undefined') setTimeout(() => dismissAlert(id), INFO_ALERT_MS);
  return id;
}

/** The alerts to show with `activeId` active: the studio's and that tab's, oldest first. */
export function alertsFor(alerts: readonly Alert[], activeId: string | null): Alert[] {
  return alerts.filter((a) => a.docId === null || a.docId === activeId);
}
export function dismissAlert(id: number) {
  useStudio.setState((s) => ({ alerts: s.alerts.filter((a) => a.id !== id) }));
}
