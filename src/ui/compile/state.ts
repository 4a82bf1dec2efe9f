/**
 * Compile view state (zustand), per tab, and what the user can do in it: open it, change an
 * option (a recompile in the model worker, with progress), pick a pass of the timeline, select a
 * node of any pane (the other panes highlight its origins and descendants), select a Caffe layer
 * or an op slot of the loadable, download the loadable and its origins sidecar. Graphs are laid
 * out in the layout worker like every other pane; nothing here blocks the UI thread.
 */
import * as Comlink from 'comlink';
import { create } from 'zustand';
import type { CompileForm, CompileOptionValues, CompileViewResult, Graph, GraphLayout, NodeDetails, StageTables } from '../../worker/api';
import { prepareGraphView, registerWorkerDocOwner, selectNode, workers } from '../actions';
import { useStudio } from '../store';
import { errorText } from '../errors';
import { describeError } from '../../core/errors';
import { originsFileName, type PaneName } from './model';

export type CompileOk = Extract<CompileViewResult, { ok: true }>;
export type CompileMode = 'graphs' | 'loadable' | 'memory';

export interface PaneView {
  graph: Graph;
  layout: GraphLayout;
}

export interface CompileTab {
  open: boolean;
  form: CompileForm | null;
  options: CompileOptionValues | null;
  /** a table of the file set (by name) or one the user picked */
  calibration: { file: string; blob?: Blob } | null;
  running: boolean;
  result: CompileOk | null;
  /** a compile that failed outright (a bad calibration table): the message */
  error: string | null;
  canonical: PaneView | null;
  /** engine graphs laid out so far, by graph id (`engine`, `pass:N`) */
  engines: Record<string, PaneView>;
  /** origin and edge-kind tables of the stage graphs so far, by graph id (those of the summary, then those asked for) */
  tables: Record<string, StageTables>;
  /** index into `result.summary.timeline`: the step picked */
  step: number;
  /** the engine graph on screen (laid out, its tables in): the picked step's once it is ready, the one before meanwhile */
  shownGraph: string | null;
  selected: { pane: PaneName; index: number } | null;
  details: NodeDetails | null;
  mode: CompileMode;
  /** the loadable's selected op slot (op-slot graph node index) and Caffe layer (origin id) */
  slot: number | null;
  layer: number | null;
}

const EMPTY: CompileTab = {
  open: false,
  form: null,
  options: null,
  calibration: null,
  running: false,
  result: null,
  error: null,
  canonical: null,
  engines: {},
  tables: {},
  step: 0,
  shownGraph: null,
  selected: null,
  details: null,
  mode: 'graphs',
  slot: null,
  layer: null,
};

export const useCompile = create<{ tabs: Record<string, CompileTab> }>(() => ({ tabs: {} }));

export function compileTab(tabId: string): CompileTab {
  return useCompile.getState().tabs[tabId] ?? EMPTY;
}

export function useCompileTab(tabId: string | null | undefined): CompileTab {
  return useCompile((s) => (tabId ? s.tabs[tabId] : undefined) ?? EMPTY);
}

export function updateCompileTab(tabId: string, patch: Partial<CompileTab> | ((t: CompileTab) => Partial<CompileTab>)) {
  useCompile.setState((s) => {
    const cur = s.tabs[tabId] ?? EMPTY;
    return { tabs: { ...s.tabs, [tabId]: { ...cur, ...(typeof patch === 'function' ? patch(cur) : patch) } } };
  });
}

/** where a running compile is, shown by the status line */
export interface CompileProgress {
  step: string;
  fraction: number;
}

/**
 * A compile's progress, per tab, in a store of its own: it changes at every pass, and only the
 * status line shows it. Kept in `CompileTab` it re-rendered the whole view (three graph panes,
 * the timeline, the diagnostics) 20 times per compile, each time on the UI thread.
 */
const useProgressStore = create<{ tabs: Record<string, CompileProgress | null> }>(() => ({ tabs: {} }));

export function useCompileProgress(tabId: string | null | undefined): CompileProgress | null {
  return useProgressStore((s) => (tabId ? s.tabs[tabId] : null) ?? null);
}

function setProgress(tabId: string, progress: CompileProgress | null) {
  useProgressStore.setState((s) => ({ tabs: { ...s.tabs, [tabId]: progress } }));
}

const docOf = (tabId: string) => useStudio.getState().docs.find((d) => d.id === tabId) ?? null;

/** Opens the compile view of a tab (Compile button, palette, Ctrl+Shift+B) and compiles when it has no result yet. */
export async function openCompile(tabId: string) {
  const doc = docOf(tabId);
  if (!doc) return;
  updateCompileTab(tabId, { open: true });
  const t = compileTab(tabId);
  if (t.result || t.running) return;
  try {
    const form = await workers().model.api.compileForm(doc.workerDocId);
    const calibration = form.calibrationFiles[0] ? { file: form.calibrationFiles[0] } : null;
    updateCompileTab(tabId, { form, options: t.options ?? form.defaults, calibration });
  } catch (e) {
    updateCompileTab(tabId, { error: errorText(e, doc.title) });
    return;
  }
  await runCompile(tabId);
}

export function closeCompile(tabId: string) {
  updateCompileTab(tabId, { open: false });
}

export function toggleCompile(tabId: string) {
  if (compileTab(tabId).open) closeCompile(tabId);
  else void openCompile(tabId);
}

/** One option of the form changed: compile again with it. */
export function setCompileOption(tabId: string, name: keyof CompileOptionValues, value: string | number) {
  const t = compileTab(tabId);
  if (!t.options) return;
  updateCompileTab(tabId, { options: { ...t.options, [name]: value } });
  void runCompile(tabId);
}

export function setCalibration(tabId: string, calibration: CompileTab['calibration']) {
  updateCompileTab(tabId, { calibration });
  void runCompile(tabId);
}

let compileSeq = 0;

/** Resolves in a task after the next frame (its rendering done). */
function afterFrame(): Promise<void> {
  return new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
}

/** Compiles in the model worker with the tab's options, then lays out the canonical and engine graphs. */
export async function runCompile(tabId: string) {
  const doc = docOf(tabId);
  const t = compileTab(tabId);
  if (!doc || !t.options) return;
  const seq = ++compileSeq;
  const live = () => seq === compileSeq;
  const progress = (step: string, fraction: number) => live() && setProgress(tabId, { step, fraction });
  const finish = (patch: Partial<CompileTab>) => {
    setProgress(tabId, null);
    updateCompileTab(tabId, { running: false, ...patch });
  };
  updateCompileTab(tabId, { running: true, error: null });
  setProgress(tabId, { step: 'starting the compile', fraction: 0 });
  const caffeGraphId = doc.view?.graphId ?? doc.graphId;
  try {
    const prev = compileTab(tabId);
    // keep the pass the user looked at when it still exists: the worker builds that engine graph
    // with the result (the others when picked)
    const stepName = prev.result?.summary.timeline[prev.step]?.name;
    const r = await workers().model.api.compile(
      doc.workerDocId,
      { options: t.options, calibration: t.calibration, caffeGraphId, ...(stepName ? { shown: stepName } : {}) },
      Comlink.proxy((p: { step: string; done: number; total: number }) => progress(p.step, (0.7 * p.done) / p.total)),
    );
    if (!live()) return;
    if (!r.ok) {
      finish({ error: describeError(r.error) });
      return;
    }
    const step = Math.max(0, stepName ? r.summary.timeline.findIndex((s) => s.name === stepName) : 0);
    // The new result is shown in one go, with its canonical graph and the engine graph of that
    // pass laid out: the panes keep their graph views (and canvases) and only change graphs. Shown
    // result by result, the panes were emptied and mounted again, each time on the UI thread.
    let canonical: PaneView | null = null;
    const engines: Record<string, PaneView> = {};
    const tables: Record<string, StageTables> = { ...r.summary.stages };
    let layoutError: string | null = null;
    const engineId = r.summary.timeline[step]?.graphId ?? null;
    try {
      // both graphs at once: the model worker packs one while the layout worker lays out the other
      const docId = r.graphDocId;
      progress('laying out the canonical and engine graphs', 0.8);
      const [can, eng] = await Promise.all([
        docId && r.summary.graphs.some((g) => g.id === 'canonical') ? prepareGraphView(docId, 'canonical', 'TB') : null,
        docId && engineId ? Promise.all([prepareGraphView(docId, engineId, 'TB'), tables[engineId] ?? workers().model.api.compiledStage(docId, engineId)]) : null,
      ]);
      if (!live()) return;
      canonical = can;
      if (eng && engineId) {
        engines[engineId] = eng[0];
        tables[engineId] = eng[1];
      }
    } catch (e) {
      if (!live()) return;
      layoutError = errorText(e, doc.title);
    }
    const shownGraph = engineId && engines[engineId] ? engineId : null;
    const cur = compileTab(tabId);
    if (!cur.canonical && !cur.shownGraph && canonical && shownGraph) {
      // the first result of the tab mounts two graph views (each lays out the page to size its
      // canvas, then draws its graph for the first time): one per frame, not both in one task
      updateCompileTab(tabId, { result: r, canonical, engines: {}, tables, step, shownGraph: null, selected: null, details: null, slot: null, layer: null });
      await afterFrame();
      if (!live()) return;
      updateCompileTab(tabId, { engines, shownGraph });
    } else {
      updateCompileTab(tabId, { result: r, canonical, engines, tables, step, shownGraph, selected: null, details: null, slot: null, layer: null });
    }
    finish(layoutError ? { error: layoutError } : {});
  } catch (e) {
    if (live()) finish({ error: errorText(e, doc.title) });
  }
}

/**
 * Shows the engine graph after timeline step `i`: laid out and its tables fetched once (kept per
 * graph id), the graph before stays on screen meanwhile; a selection in the engine pane is dropped
 * (its nodes change).
 */
export async function pickStep(tabId: string, i: number) {
  const t = compileTab(tabId);
  const step = t.result?.summary.timeline[i];
  const docId = t.result?.graphDocId;
  if (!step || !docId) return;
  const graphId = step.graphId;
  const ready = (c: CompileTab) => c.engines[graphId] !== undefined && c.tables[graphId] !== undefined;
  const dropSelection = (c: CompileTab) => (c.selected?.pane === 'engine' ? { selected: null, details: null } : {});
  updateCompileTab(tabId, (cur) => ({ step: i, ...(ready(cur) ? { shownGraph: graphId, ...dropSelection(cur) } : {}) }));
  if (ready(compileTab(tabId))) return;
  try {
    const [view, stage] = await Promise.all([t.engines[graphId] ?? prepareGraphView(docId, graphId, 'TB'), t.tables[graphId] ?? workers().model.api.compiledStage(docId, graphId)]);
    const cur = compileTab(tabId);
    if (cur.result?.graphDocId !== docId) return;
    // a later pick shows its own graph: this one is kept for when it is picked again
    const current = cur.result.summary.timeline[cur.step]?.graphId === graphId;
    updateCompileTab(tabId, (c) => ({
      engines: { ...c.engines, [graphId]: view },
      tables: { ...c.tables, [graphId]: stage },
      ...(current ? { shownGraph: graphId, ...dropSelection(c) } : {}),
    }));
  } catch (e) {
    if (compileTab(tabId).result?.graphDocId === docId) updateCompileTab(tabId, { error: errorText(e, docOf(tabId)?.title ?? '') });
  }
}

let detailSeq = 0;

/** Selects a node of a pane: the others highlight what shares its origins; the details come from the worker. */
export async function selectInPane(tabId: string, pane: PaneName, index: number | null) {
  const t = compileTab(tabId);
  const doc = docOf(tabId);
  if (!doc || !t.result) return;
  if (index === null) {
    updateCompileTab(tabId, { selected: null, details: null });
    return;
  }
  updateCompileTab(tabId, { selected: { pane, index }, details: null });
  const seq = ++detailSeq;
  try {
    let details: NodeDetails;
    if (pane === 'caffe') {
      // the side panel's Node tab describes the Caffe node too
      void selectNode(index);
      details = await workers().model.api.nodeDetails(doc.workerDocId, doc.view?.graphId ?? doc.graphId, index);
    } else {
      const graphId = pane === 'canonical' ? 'canonical' : (t.shownGraph ?? 'engine');
      details = await workers().model.api.nodeDetails(t.result.graphDocId!, graphId, index);
    }
    if (seq === detailSeq) updateCompileTab(tabId, { details });
  } catch (e) {
    if (seq === detailSeq) updateCompileTab(tabId, { details: { node: { id: '', kind: 'op', type: 'error', name: errorText(e, doc.title), category: 'Other', index: -1, inputs: [], outputs: [], attributes: [] }, extra: [] } });
  }
}

export function setCompileMode(tabId: string, mode: CompileMode) {
  updateCompileTab(tabId, { mode });
}

/** Selects a Caffe layer (origin id) in the loadable and memory views; its op slots and buffers light up. */
export function selectLayer(tabId: string, layer: number | null) {
  updateCompileTab(tabId, { layer, slot: null });
}

/** Selects an op slot of the compiled loadable (op-slot graph node index); its Caffe layers light up. */
export function selectSlot(tabId: string, slot: number | null) {
  updateCompileTab(tabId, { slot, layer: null });
}

function download(bytes: BlobPart, name: string, type: string) {
  const url = URL.createObjectURL(new Blob([bytes], { type }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** `<profile>.nvdla`, as nvdla_compiler names it: the bytes the worker keeps, fetched for the download. */
export async function downloadLoadable(tabId: string) {
  const r = compileTab(tabId).result;
  const doc = docOf(tabId);
  if (!r?.loadableDocId || !doc) return;
  try {
    const bytes = await workers().model.api.compiledLoadable(doc.workerDocId);
    if (bytes) download(bytes as Uint8Array<ArrayBuffer>, r.summary.loadableName, 'application/octet-stream');
  } catch (e) {
    updateCompileTab(tabId, { error: errorText(e, doc.title) });
  }
}

/** `<profile>.origins.json`: task and op slot -> Caffe layers. */
export function downloadOrigins(tabId: string) {
  const r = compileTab(tabId).result;
  if (r?.originsText) download(r.originsText, originsFileName(r.summary.loadableName), 'application/json');
}

/**
 * The compile's documents live in the model worker: after a restart the tab compiles again with
 * the same options (the worker lost them); a closed tab forgets its compile.
 */
registerWorkerDocOwner({
  async reopen() {
    for (const [tabId, t] of Object.entries(useCompile.getState().tabs)) {
      if (!t.result && !t.running) continue;
      updateCompileTab(tabId, { result: null, canonical: null, engines: {}, tables: {}, shownGraph: null, running: false });
      await runCompile(tabId);
    }
  },
  tabClosed(tabId) {
    useCompile.setState((s) => {
      const { [tabId]: _gone, ...tabs } = s.tabs;
      return { tabs };
    });
    useProgressStore.setState((s) => {
      const { [tabId]: _gone, ...tabs } = s.tabs;
      return { tabs };
    });
  },
});

export function compileAlertText(summary: CompileOk['summary']): string | null {
  const errors = summary.diagnostics.filter((d) => d.severity === 'error');
  if (!errors.length) return null;
  return errors.map((d) => `${d.layer ? `layer '${d.layer}': ` : ''}${d.message}`).join('; ');
}

export { describeError };
