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
  /** a request to scroll a part of the document's view into sight (the Profile view's Diagnostics), cleared once done */
  reveal?: 'diagnostics' | null;
}

export interface Alert {
  id: number;
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

export function activeDoc(s: StudioState = useStudio.getState()): Doc | null {
  return s.docs.find((d) => d.id === s.activeId) ?? null;
}

export function updateDoc(id: string, patch: Partial<Doc> | ((d: Doc) => Partial<Doc>)) {
  useStudio.setState((s) => ({
    docs: s.docs.map((d) => (d.id === id ? { ...d, ...(typeof patch === 'function' ? patch(d) : patch) } : d)),
  }));
}

let alertId = 1;
export function pushAlert(a: Omit<Alert, 'id'>) {
  const id = alertId++;
  useStudio.setState((s) => ({ alerts: [...s.alerts.slice(-4), { ...a, id }] }));
  return id;
}
export function dismissAlert(id: number) {
  useStudio.setState((s) => ({ alerts: s.alerts.filter((a) => a.id !== id) }));
}
