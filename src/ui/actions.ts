/**
 * What the user can do, as functions: each talks to the workers and updates the store. Components
 * call these; nothing here blocks the UI thread on model-sized work.
 */
import { describeError } from '../core/errors';
import { LayoutCancelled, LayoutWorkerClient, ModelWorkerClient } from './workers';
import { activeDoc, docLabel, pushAlert, updateDoc, useStudio, type Direction, type Doc } from './store';
import type { DocumentSummary, InputFile, OpenOptions } from '../worker/api';
import { readPackedGraphSliced } from '../core/graph/packed-graph';
import { useLayout } from './shell/layout';
import { applySceneLabels, registerPreparedScene } from './graph/prepared';
import type { GraphLayout } from '../core/graph/layout-types';
import type { SceneLabels } from '../core/graph/view/scene';
import { profileDiagnosticsAlert } from './profile/diagnostics-summary';
import { can, mainView, showsGraph } from './capabilities';
import { loadableDamageAlert } from './loadable/damage-alert';
import { errorAlert } from './errors';
import { distinctLabel, groupFiles, isPartName } from './file-sets';
import { keepSession, keptTabs } from './shell/session';

let modelClient: ModelWorkerClient | null = null;
let layoutClient: LayoutWorkerClient | null = null;

export function workers() {
  if (!modelClient) {
    modelClient = new ModelWorkerClient();
    layoutClient = new LayoutWorkerClient();
    // a handle for the end-to-end tests and for people debugging a session from the console
    (window as unknown as { __npuStudio: object }).__npuStudio = { crashModelWorker: () => modelClient!.simulateCrash() };
    modelClient.onEvent((e) => {
      pushAlert({ severity: 'warning', message: e.message, docId: null });
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

/** What takes run inputs (images, `.npy`) for a tab: the run panel's state registers itself. */
type RunInputHandler = (tabId: string, files: InputFile[]) => Promise<void>;
let runInputs: RunInputHandler | null = null;
export function registerRunInputs(handler: RunInputHandler) {
  runInputs = handler;
}

/**
 * Opens dropped / picked files: each file set (ui/file-sets.ts: a model with its sidecars, a
 * Caffe net with its weights) becomes a tab. Images and `.npy` arrays are run inputs: of the net
 * dropped with them, or of the open tab when it can run.
 */
export async function openFiles(fileList: File[] | InputFile[]) {
  const inputs: InputFile[] = fileList.map((f) => (f instanceof File ? { name: f.name, blob: f } : f));
  if (inputs.length === 0) return;
  const { sets, runInputs: given } = groupFiles(inputs);
  let opened: string | null = null;
  for (const set of sets) {
    // a .part dropped without its model partitions a model already open
    if (set.every((f) => isPartName(f.name))) await applyPartFiles(set);
    else opened = (await openFileSet(set)) ?? opened;
  }
  if (!given.length) return;
  const target = [opened, useStudio.getState().activeId].map((id) => useStudio.getState().docs.find((d) => d.id === id)).find((d) => d && can(d.summary, 'run'));
  if (!target || !runInputs) {
    pushAlert({ severity: 'warning', message: `${given.map((f) => f.name).join(', ')}: an image or .npy array is the input of a run; open a net that can run (a Caffe .prototxt with its .caffemodel) first, or drop them together`, docId: null });
    return;
  }
  await runInputs(target.id, given);
}

/** What opens a `.part` in a tab's partition editor: the partition state registers itself. */
type PartFileHandler = (tabId: string, file: InputFile) => Promise<void>;
let partFiles: PartFileHandler | null = null;
export function registerPartFiles(handler: PartFileHandler) {
  partFiles = handler;
}

/**
 * `.part` files dropped alone: each goes to the open model it names (same stem: `net.part` ->
 * `net.circle`), else to the active tab when it can be partitioned; with neither, an alert says
 * to drop it with its model.
 */
async function applyPartFiles(files: InputFile[]) {
  for (const f of files) {
    const s = useStudio.getState();
    const target = partTarget(f.name, s.docs, s.activeId);
    if (!target || !partFiles) {
      pushAlert({ severity: 'warning', docId: null, message: `${f.name}: a .part file partitions a model; no open model can take it. Drop it together with its model (for example ${f.name.replace(/\.[^.]*$/, '')}.circle), or open the model first.` });
      continue;
    }
    activate(target.id);
    await partFiles(target.id, f);
  }
}

/** The tab a lone `.part` goes to: the partitionable model of the same stem, else the active tab if partitionable. */
export function partTarget(partName: string, docs: readonly Pick<Doc, 'id' | 'title' | 'summary'>[], activeId: string | null) {
  const stem = partName.replace(/\.[^.]*$/, '').toLowerCase();
  const able = docs.filter((d) => can(d.summary, 'partition'));
  return able.find((d) => d.title.replace(/\.[^.]*$/, '').toLowerCase() === stem) ?? able.find((d) => d.id === activeId) ?? null;
}

/** The graph a document opens on: its first, or the same shown another way when the view asks for it (in-place layers as nodes). */
export function preferredGraph(summary: Pick<DocumentSummary, 'graphs'>, graphId?: string): string {
  const first = graphId && summary.graphs.some((g) => g.id === graphId) ? graphId : (summary.graphs[0]?.id ?? '');
  const base = summary.graphs.find((g) => g.id === first)?.unfoldedOf ?? first;
  if (useLayout.getState().inplace !== 'nodes') return base;
  return summary.graphs.find((g) => g.unfoldedOf === base)?.id ?? base;
}

async function openFileSet(files: InputFile[], options?: OpenOptions): Promise<string | null> {
  const { model } = workers();
  useStudio.setState({ opening: true });
  try {
    const t0 = performance.now();
    const res = await model.api.open(files, options);
    // request to the worker's answer (worker start on the first open included), for the benches
    performance.measure(`npu:open ${files[0]?.name ?? ''}`, { start: t0, end: performance.now() });
    if (!res.ok) {
      pushAlert({ severity: 'error', message: describeError(res.error), error: res.error, docId: null });
      return null;
    }
    const id = `tab${uiDocId++}`;
    const firstId = preferredGraph(res.summary);
    const first = res.summary.graphs.find((g) => g.id === firstId);
    const main = files[0]!;
    const folder = main.blob instanceof File ? main.blob.webkitRelativePath.split('/').slice(0, -1).join('/') : '';
    const doc: Doc = {
      id,
      workerDocId: res.docId,
      title: main.name,
      label: distinctLabel(main.name, folder, useStudio.getState().docs.map(docLabel)),
      files,
      summary: res.summary,
      diagnostics: res.diagnostics,
      ...(options ? { options } : {}),
      graphId: first ? first.id : '',
      direction: 'TB',
      view: null,
      loading: null,
      selected: null,
      details: null,
    };
    useStudio.setState((s) => ({ docs: [...s.docs, doc], activeId: id, side: 'model' }));
    keepOpenTabs();
    const view = mainView(res.summary);
    if (can(res.summary, 'loadable')) {
      // the Damage view lists every unreadable place: one alert counts them and points there
      const summary = loadableDamageAlert(doc.title, res.diagnostics);
      if (summary) pushAlert({ ...summary, docId: id, action: { kind: 'show-diagnostics', label: 'See damage', docId: id } });
    } else if (view === 'profile') {
      // the Profile view lists every diagnostic with its line: one alert summarises them (none for notes alone)
      const summary = profileDiagnosticsAlert(doc.title, res.diagnostics);
      if (summary) pushAlert({ ...summary, docId: id, action: { kind: 'show-diagnostics', label: 'See Diagnostics', docId: id } });
    } else {
      // the notes (the Caffe upgrades that ran) make one info alert; the Model panel lists every diagnostic
      const notes = res.diagnostics.filter((d) => d.severity === 'info');
      if (notes.length) pushAlert({ docId: id, severity: 'info', message: `${notes[0]!.file}: ${notes.map((d) => describeError({ ...d, file: '' }).replace(/^: /, '')).join('; ')}` });
      for (const d of res.diagnostics.filter((x) => x.severity !== 'info').slice(0, 5)) pushAlert({ docId: id, severity: d.severity, message: describeError(d) });
    }
    if (first && view === 'graph') await showGraph(id, first.id);
    return id;
  } catch (e) {
    pushAlert({ ...errorAlert(e, files[0]?.name ?? 'file'), docId: null });
    return null;
  } finally {
    useStudio.setState({ opening: false });
  }
}

/**
 * A document option changed (Caffe's phase or batch): the worker opens the same files with the
 * new values; the tab keeps its place and shows the new document's graph. A value the format
 * refuses is an alert, and the document on screen stays as it was.
 */
export async function setDocOption(tabId: string, name: string, value: string | number) {
  const d = useStudio.getState().docs.find((x) => x.id === tabId);
  if (!d) return;
  const options: OpenOptions = { ...(d.options ?? {}), [name]: value };
  if (reopening) await reopening;
  const { model } = workers();
  const res = await model.api.open(d.files, options);
  if (!res.ok) {
    pushAlert({ severity: 'error', message: describeError(res.error), error: res.error, docId: tabId });
    return;
  }
  const old = useStudio.getState().docs.find((x) => x.id === tabId);
  if (!old) {
    void model.api.close(res.docId);
    return;
  }
  void model.api.close(old.workerDocId);
  const graphId = preferredGraph(res.summary, old.graphId);
  updateDoc(tabId, { workerDocId: res.docId, summary: res.summary, diagnostics: res.diagnostics, options, selected: null, details: null });
  keepOpenTabs();
  for (const x of res.diagnostics.filter((x) => x.severity !== 'info').slice(0, 3)) pushAlert({ docId: tabId, severity: x.severity, message: describeError(x) });
  if (graphId) await showGraph(tabId, graphId);
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
    const res = await model.api.open(d.files, d.options);
    if (res.ok) updateDoc(d.id, { workerDocId: res.docId });
    else pushAlert({ severity: 'error', message: describeError(res.error), error: res.error, docId: d.id });
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
    pushAlert({ ...errorAlert(e, doc.title), docId });
  }
}

/**
 * Everything a GraphView needs for one graph, computed off the UI thread: the graph arrives
 * packed (typed arrays) from the model worker, the layout worker lays it out and prepares the
 * scene; the UI thread only decodes the pack's text (nodes and edges are read from the pack on
 * demand). Used by every pane that shows a graph.
 */
export async function prepareGraphView(workerDocId: string, graphId: string, direction: Direction, onProgress?: (phase: string, fraction: number) => void) {
  const { model, layout } = workers();
  const t0 = performance.now();
  const { pack, forLayout } = await model.api.packedGraphForView(workerDocId, graphId);
  const t1 = performance.now();
  const { attributes, weights, names } = useLayout.getState();
  const display = { attributes, weights, names };
  // the layout worker gets the model worker's copy (transferred on) and starts at once; this
  // thread decodes its copy's text in slices meanwhile, and reads nodes and edges from the pack
  // when they are asked for (core/graph/packed-graph.ts: no 100,000 objects for the collector)
  onProgress?.('layout', 0);
  // a big graph's scene comes without its edge labels: they are asked for once a view has drawn it
  const preparing = layout.prepareView(forLayout, { direction, nodesep: 20, ranksep: 30 }, display, onProgress, true);
  const unpacked = readPackedGraphSliced(pack, nextTask);
  const [prepared, { graph, strings }] = await Promise.all([preparing, unpacked]);
  performance.measure('npu:view:graph-request', { start: t0, end: t1 });
  performance.measure('npu:view:prepare', { start: t1, end: performance.now() });
  const job = prepared.labelsJob;
  const requestLabels =
    job === undefined
      ? undefined
      : () => {
          layout.placeEdgeLabels(job).then(
            (labels) => {
              if (labels) applySceneLabels(prepared.layout, labels);
            },
            (e: unknown) => console.warn('edge labels not placed', e),
          );
        };
  registerPreparedScene(prepared.layout, prepared.scene, strings, requestLabels);
  // the moment a view's edge labels are in (benches read it)
  if (job === undefined) performance.mark('npu:view:labels');
  return { graph, layout: prepared.layout };
}

/** A zero-delay yield to the event loop (a macrotask, so input and rendering get their turn). */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/** Opens another graph of the tab (an IF or WHILE body, the subgraph selector), remembering where it came from. */
export function openGraph(tabId: string, graphId: string) {
  const d = useStudio.getState().docs.find((x) => x.id === tabId);
  if (!d || !graphId || graphId === d.graphId) return;
  updateDoc(tabId, { back: [...(d.back ?? []), d.graphId] });
  void showGraph(tabId, graphId);
}

/** Back to the graph the tab showed before (Backspace, the Back button). */
export function graphBack(tabId: string) {
  const d = useStudio.getState().docs.find((x) => x.id === tabId);
  const back = d?.back ?? [];
  if (!d || !back.length) return;
  updateDoc(tabId, { back: back.slice(0, -1) });
  void showGraph(tabId, back[back.length - 1]!);
}

export function cancelLayout() {
  const d = activeDoc();
  workers().layout.cancel();
  if (d) updateDoc(d.id, { loading: null });
  pushAlert({ severity: 'info', message: 'Layout cancelled.' });
}

export function toggleDirection() {
  const d = activeDoc();
  if (!d || !showsGraph(d.summary)) return;
  void showGraph(d.id, d.graphId, d.direction === 'TB' ? 'LR' : 'TB');
}

export async function selectNode(index: number | null) {
  const d = activeDoc();
  if (!d) return;
  updateDoc(d.id, { selected: index, details: index === null ? null : d.details });
  if (index === null) return;
  // the Node tab shows the selection; a user reading Origins or Run stays there (they follow the selection too)
  if (useStudio.getState().side === 'model') useStudio.setState({ side: 'node' });
  if (useLayout.getState().side === 'hidden') noteHiddenPanel();
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
      pushAlert({ ...errorAlert(e, d.title), docId: d.id });
      return;
    }
  }
}

/** Clicking a node with the side panel hidden: say once where its details went (and how to get them back). */
let hiddenNoted = false;
useLayout.subscribe((s) => {
  if (s.side !== 'hidden') hiddenNoted = false; // hidden again later: say it again
});
function noteHiddenPanel() {
  if (hiddenNoted) return;
  hiddenNoted = true;
  pushAlert({ severity: 'info', message: 'The node\'s details are in the side panel, which is hidden: press Ctrl+B or the ⟨ button at the right edge to show it.' });
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
    alerts: s.alerts.filter((a) => a.action?.docId !== id && a.docId !== id),
  });
  keepOpenTabs();
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

/** Keeps the open tabs' files for the next load (ui/shell/session.ts). */
function keepOpenTabs() {
  void keepSession(useStudio.getState().docs);
}

/** Reopens the tabs the last page had open, in order; false when nothing was kept. */
export async function reopenKept(): Promise<boolean> {
  const kept = await keptTabs();
  for (const t of kept) await openFileSet(t.files, t.options);
  return kept.length > 0;
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
    pushAlert({ severity: 'error', message: `Samples: ${(e as Error).message}`, docId: null });
  }
}

export function setTheme(theme: 'light' | 'dark' | 'system') {
  localStorage.setItem('npu-studio.theme', theme);
  useStudio.setState({ theme });
}
