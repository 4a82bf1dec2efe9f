/**
 * What the user can do, as functions: each talks to the workers and updates the store. Components
 * call these; nothing here blocks the UI thread on model-sized work.
 */
import { describeError } from '../core/errors';
import { LayoutCancelled, LayoutWorkerClient, ModelWorkerClient } from './workers';
import { activeDoc, pushAlert, updateDoc, useStudio, type Direction, type Doc } from './store';
import type { InputFile } from '../worker/api';
import { unpackGraphSliced } from '../core/graph/pack';
import { useLayout } from './shell/layout';
import { applySceneLabels, registerPreparedScene } from './graph/prepared';
import type { GraphLayout } from '../core/graph/layout-types';
import type { SceneLabels } from '../core/graph/view/scene';
import { profileDiagnosticsAlert } from './profile/diagnostics-summary';
import { can, mainView } from './capabilities';
import { loadableDamageAlert } from './loadable/damage-alert';
import { errorAlert } from './errors';

let modelClient: ModelWorkerClient | null = null;
let layoutClient: LayoutWorkerClient | null = null;

export function workers() {
  if (!modelClient) {
    modelClient = new ModelWorkerClient();
    layoutClient = new LayoutWorkerClient();
    // a handle for the end-to-end tests and for people debugging a session from the console
    (window as unknown as { __npuStudio: object }).__npuStudio = { crashModelWorker: () => modelClient!.simulateCrash() };
    modelClient.onEvent((e) => {
      pushAlert({ severity: 'warning', message: e.message });
      useStudio.setState({ workerNote: 'worker restarted' });
      reopening = reopenAll().finally(() => {
        reopening = null;
      });
    });
  }
  return { model: modelClient, layout: layoutClient! };
}

let uiDocId = 1;

/** While a restarted model worker re-opens the documents, requests wait for it (their worker ids are about to change). */
let reopening: Promise<void> | null = null;

/** Files whose names mark them as sidecars of another file rather than models of their own. */
const SIDECAR = /\.(caffemodel|part|ini)$/i;

/** Opens dropped / picked files: each main file becomes a tab; sidecars go with the first main file. */
export async function openFiles(fileList: File[] | InputFile[]) {
  const inputs: InputFile[] = fileList.map((f) => (f instanceof File ? { name: f.name, blob: f } : f));
  if (inputs.length === 0) return;
  const mains = inputs.filter((f) => !SIDECAR.test(f.name));
  const sidecars = inputs.filter((f) => SIDECAR.test(f.name));
  const sets: InputFile[][] = mains.length ? mains.map((m, i) => (i === 0 ? [m, ...sidecars] : [m])) : [inputs];
  for (const set of sets) await openFileSet(set);
}

async function openFileSet(files: InputFile[]) {
  const { model } = workers();
  useStudio.setState({ opening: true });
  try {
    const t0 = performance.now();
    const res = await model.api.open(files);
    // request to the worker's answer (worker start on the first open included), for the benches
    performance.measure(`npu:open ${files[0]?.name ?? ''}`, { start: t0, end: performance.now() });
    if (!res.ok) {
      pushAlert({ severity: 'error', message: describeError(res.error), error: res.error });
      return;
    }
    const id = `tab${uiDocId++}`;
    const first = res.summary.graphs[0];
    const doc: Doc = {
      id,
      workerDocId: res.docId,
      title: files[0]!.name,
      files,
      summary: res.summary,
      diagnostics: res.diagnostics,
      graphId: first ? first.id : '',
      direction: 'TB',
      view: null,
      loading: null,
      selected: null,
      details: null,
    };
    useStudio.setState((s) => ({ docs: [...s.docs, doc], activeId: id, side: 'model' }));
    const view = mainView(res.summary);
    if (can(res.summary, 'loadable')) {
      // the Damage view lists every unreadable place: one alert counts them and points there
      const summary = loadableDamageAlert(doc.title, res.diagnostics);
      if (summary) pushAlert({ ...summary, action: { kind: 'show-diagnostics', label: 'See damage', docId: id } });
    } else if (view === 'profile') {
      // the Profile view lists every diagnostic with its line: one alert summarises them (none for notes alone)
      const summary = profileDiagnosticsAlert(doc.title, res.diagnostics);
      if (summary) pushAlert({ ...summary, action: { kind: 'show-diagnostics', label: 'See Diagnostics', docId: id } });
    } else {
      for (const d of res.diagnostics.slice(0, 5)) pushAlert({ severity: d.severity === 'error' ? 'error' : 'warning', message: describeError(d) });
    }
    if (first && view === 'graph') await showGraph(id, first.id);
  } catch (e) {
    pushAlert(errorAlert(e, files[0]?.name ?? 'file'));
  } finally {
    useStudio.setState({ opening: false });
  }
}

/**
 * Documents other parts of the UI open in the model worker on their own (the optimized model of
 * the compare view) hook in here: re-open them after a worker restart, close them with their tab.
 */
export interface WorkerDocOwner {
  reopen(): Promise<void>;
  tabClosed(tabId: string): void;
}
const docOwners: WorkerDocOwner[] = [];
export function registerWorkerDocOwner(owner: WorkerDocOwner) {
  if (!docOwners.includes(owner)) docOwners.push(owner);
}

async function reopenAll() {
  const { model } = workers();
  for (const d of useStudio.getState().docs) {
    const res = await model.api.open(d.files);
    if (res.ok) updateDoc(d.id, { workerDocId: res.docId });
    else pushAlert({ severity: 'error', message: describeError(res.error), error: res.error });
  }
  for (const o of docOwners) await o.reopen();
  useStudio.setState({ workerNote: 'worker restarted; documents re-opened' });
}

let layoutSeq = 0;
/** how long after a view is shown its whole graph is built in the model worker */
const WARM_GRAPH_AFTER_MS = 1000;

/** Builds the graph in the model worker, lays it out in the layout worker, shows it. */
export async function showGraph(docId: string, graphId: string, direction?: Direction) {
  const { model, layout } = workers();
  const doc = useStudio.getState().docs.find((d) => d.id === docId);
  if (!doc) return;
  const dir = direction ?? doc.direction;
  const seq = ++layoutSeq;
  layout.cancel(); // a new request replaces a running one
  const startedAt = performance.now();
  updateDoc(docId, { graphId, direction: dir, loading: { what: 'layout', phase: 'building graph', fraction: 0, startedAt }, selected: graphId === doc.graphId ? doc.selected : null, details: graphId === doc.graphId ? doc.details : null });
  try {
    const { graph, layout: result } = await prepareGraphView(doc.workerDocId, graphId, dir, (phase, fraction) => {
      if (seq === layoutSeq) updateDoc(docId, (d) => ({ loading: d.loading && { ...d.loading, phase, fraction } }));
    });
    if (seq !== layoutSeq) return;
    updateDoc(docId, { view: { graphId, graph, layout: result, direction: dir }, loading: null });
    // the model worker builds the whole graph (node details, find) once the view is drawn and its
    // labels are in (a click before then builds it on the spot)
    setTimeout(() => void model.api.warmGraph(doc.workerDocId, graphId).catch(() => undefined), WARM_GRAPH_AFTER_MS);
  } catch (e) {
    if (e instanceof LayoutCancelled) {
      if (seq === layoutSeq) updateDoc(docId, { loading: null });
      return;
    }
    updateDoc(docId, { loading: null });
    pushAlert(errorAlert(e, doc.title));
  }
}

/**
 * Everything a GraphView needs for one graph, computed off the UI thread: the graph arrives
 * packed (typed arrays) from the model worker, the layout worker lays it out and prepares the
 * scene; the UI thread only unpacks the graph. Used by every pane that shows a graph.
 */
export async function prepareGraphView(workerDocId: string, graphId: string, direction: Direction, onProgress?: (phase: string, fraction: number) => void) {
  const { model, layout } = workers();
  const t0 = performance.now();
  const { pack, forLayout } = await model.api.packedGraphForView(workerDocId, graphId);
  const t1 = performance.now();
  const { attributes, weights, names } = useLayout.getState();
  const display = { attributes, weights, names };
  // the layout worker gets the model worker's copy (transferred on) and starts at once; this thread unpacks its own in slices meanwhile
  onProgress?.('layout', 0);
  // a big graph's edge labels come after its scene: kept until the scene is registered, then put in
  let labelsFor: GraphLayout | null = null;
  let early: SceneLabels | null = null;
  const onLabels = (labels: SceneLabels) => {
    if (labelsFor) applySceneLabels(labelsFor, labels);
    else early = labels;
  };
  const preparing = layout.prepareView(forLayout, { direction, nodesep: 20, ranksep: 30 }, display, onProgress, onLabels);
  const unpacked = unpackGraphSliced(pack, nextTask);
  const [prepared, { graph, strings }] = await Promise.all([preparing, unpacked]);
  performance.measure('npu:view:graph-request', { start: t0, end: t1 });
  performance.measure('npu:view:prepare', { start: t1, end: performance.now() });
  registerPreparedScene(prepared.layout, prepared.scene, strings);
  labelsFor = prepared.layout;
  if (early) applySceneLabels(labelsFor, early);
  // the moment a view's edge labels are in (benches read it)
  else if (!prepared.labelsLater) performance.mark('npu:view:labels');
  return { graph, layout: prepared.layout };
}

/** A zero-delay yield to the event loop (a macrotask, so input and rendering get their turn). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

export function cancelLayout() {
  const d = activeDoc();
  workers().layout.cancel();
  if (d) updateDoc(d.id, { loading: null });
  pushAlert({ severity: 'info', message: 'Layout cancelled.' });
}

export function toggleDirection() {
  const d = activeDoc();
  if (!d) return;
  void showGraph(d.id, d.graphId, d.direction === 'TB' ? 'LR' : 'TB');
}

export async function selectNode(index: number | null) {
  const d = activeDoc();
  if (!d) return;
  updateDoc(d.id, { selected: index, details: index === null ? null : d.details });
  if (index === null) return;
  useStudio.setState({ side: 'node' });
  // a click during a worker restart asks the new worker, under the document's new id; a request
  // the dying worker took with it is asked again once
  for (let attempt = 0; attempt < 2; attempt++) {
    if (reopening) await reopening;
    const workerDocId = useStudio.getState().docs.find((x) => x.id === d.id)?.workerDocId;
    if (!workerDocId) return;
    try {
      const details = await workers().model.api.nodeDetails(workerDocId, d.graphId, index);
      const now = activeDoc();
      if (now?.id === d.id && now.selected === index) updateDoc(d.id, { details });
      return;
    } catch (e) {
      const restarted = reopening !== null || useStudio.getState().docs.find((x) => x.id === d.id)?.workerDocId !== workerDocId;
      if (attempt === 0 && restarted) continue;
      pushAlert(errorAlert(e, d.title));
      return;
    }
  }
}

export function activate(id: string) {
  useStudio.setState({ activeId: id });
}

/** An alert's "See Diagnostics": shows the document and asks its Profile view to scroll its Diagnostics panel into sight. */
export function showDiagnostics(docId: string) {
  if (!useStudio.getState().docs.some((d) => d.id === docId)) return;
  updateDoc(docId, { reveal: 'diagnostics' });
  activate(docId);
}

export function closeDoc(id: string) {
  const s = useStudio.getState();
  const d = s.docs.find((x) => x.id === id);
  if (!d) return;
  void workers().model.api.close(d.workerDocId);
  for (const o of docOwners) o.tabClosed(id);
  const docs = s.docs.filter((x) => x.id !== id);
  const idx = s.docs.indexOf(d);
  useStudio.setState({
    docs,
    activeId: s.activeId === id ? (docs[Math.min(idx, docs.length - 1)]?.id ?? null) : s.activeId,
    // an alert that points into the closed document has nothing left to show
    alerts: s.alerts.filter((a) => a.action?.docId !== id),
  });
}

let findSeq = 0;
export async function runFind(query: string) {
  const d = activeDoc();
  useStudio.setState((s) => ({ find: { ...s.find, query } }));
  if (!d || !query.trim()) {
    useStudio.setState((s) => ({ find: { ...s.find, results: [], total: 0, active: 0 } }));
    return;
  }
  const seq = ++findSeq;
  const r = await workers().model.api.find(d.workerDocId, d.graphId, query);
  if (seq !== findSeq) return;
  useStudio.setState((s) => ({ find: { ...s.find, results: r.results, total: r.total, ms: r.ms, active: 0 } }));
}

/** Opens bundled samples: `names` are fetched from `base` and opened together (a model and its .part). */
export async function loadSample(base: string, names: string[]) {
  try {
    const files: InputFile[] = [];
    for (const name of names) {
      const res = await fetch(base + encodeURIComponent(name));
      if (!res.ok) throw new Error(`${name}: could not load sample (HTTP ${res.status})`);
      files.push({ name, blob: await res.blob() });
    }
    await openFiles(files);
  } catch (e) {
    pushAlert({ severity: 'error', message: `Samples: ${(e as Error).message}` });
  }
}

export function setTheme(theme: 'light' | 'dark' | 'system') {
  localStorage.setItem('npu-studio.theme', theme);
  useStudio.setState({ theme });
}
