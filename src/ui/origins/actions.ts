/** What the user can do with origins: load them for the graph on screen, optimize, compare, download. */
import { describeError } from '../../core/errors';
import { activeDoc, pushAlert, updateDoc, useStudio, type Doc } from '../store';
import { prepareGraphView, selectNode, workers } from '../actions';
import { mainGraphView, updateCompare, useOrigins, type ComparePaneState, type Side } from './state';

let loadSeq = 0;

/** Loads the origins of the tab's current graph (once per worker doc and graph). */
export async function loadOrigins(doc: Doc) {
  const key = `${doc.workerDocId}:${doc.graphId}`;
  if (useOrigins.getState().origins[doc.id]?.key === key) return;
  const seq = ++loadSeq;
  useOrigins.setState((s) => ({ origins: { ...s.origins, [doc.id]: { key, view: null, error: null } } }));
  try {
    const view = await workers().model.api.origins(doc.workerDocId, doc.graphId);
    if (seq !== loadSeq && useOrigins.getState().origins[doc.id]?.key !== key) return;
    useOrigins.setState((s) => ({ origins: { ...s.origins, [doc.id]: { key, view, error: null } } }));
  } catch (e) {
    useOrigins.setState((s) => ({ origins: { ...s.origins, [doc.id]: { key, view: null, error: (e as Error).message } } }));
  }
}

export async function loadPassNames(): Promise<string[]> {
  const have = useOrigins.getState().passNames;
  if (have.length) return have;
  const names = await workers().model.api.optimizePasses();
  useOrigins.setState({ passNames: names });
  return names;
}

/** Selects a node of the single view and centres on it (rows of the Origins panel). */
export function revealNode(index: number) {
  void selectNode(index);
  // selectNode switches the side panel to Node (synchronously); the Origins panel stays
  useStudio.setState({ side: 'origins' });
  mainGraphView()?.centerOn(index);
}

/** each pane gets its own layout (and prepared scene) from the layout worker, as the single view does */
async function layoutPane(workerDocId: string, graphId: string): Promise<ComparePaneState> {
  return prepareGraphView(workerDocId, graphId, 'TB');
}

/** Runs the passes in the worker and opens the compare view (original | optimized). */
export async function runOptimize(passes: string[]) {
  const doc = activeDoc();
  if (!doc) return;
  const tabId = doc.id;
  const prev = useOrigins.getState().compare[tabId];
  if (prev?.result) void workers().model.api.close(prev.result.docId);
  useOrigins.setState((s) => ({
    compare: { ...s.compare, [tabId]: { open: true, running: true, passes, result: null, left: null, right: null, selected: null, hover: null, error: null } },
  }));
  try {
    const result = await workers().model.api.optimize(doc.workerDocId, passes);
    if (!result.ok) {
      updateCompare(tabId, { running: false, error: describeError(result.error) });
      pushAlert({ severity: 'error', message: describeError(result.error), error: result.error });
      return;
    }
    updateCompare(tabId, { result });
    const left = await layoutPane(doc.workerDocId, 'sg:0');
    updateCompare(tabId, { left });
    const right = await layoutPane(result.docId, 'sg:0');
    updateCompare(tabId, { right, running: false });
  } catch (e) {
    const message = `${doc.title}: ${(e as Error).message}`;
    updateCompare(tabId, { running: false, error: message });
    pushAlert({ severity: 'error', message });
  }
}

export function closeCompare(tabId: string) {
  updateCompare(tabId, { open: false, hover: null });
}

export function reopenCompare(tabId: string) {
  updateCompare(tabId, { open: true });
}

/** Selecting a node in one pane: select it there; the other pane highlights its related nodes. */
export function selectInCompare(tabId: string, side: Side, index: number | null) {
  updateCompare(tabId, { selected: index === null ? null : { side, index } });
  // the left pane is the tab's own subgraph 0: the Node panel shows its details
  const doc = useStudio.getState().docs.find((d) => d.id === tabId);
  if (doc && side === 'left' && doc.graphId === 'sg:0') {
    const keepSide = useStudio.getState().side;
    void selectNode(index);
    useStudio.setState({ side: keepSide });
  } else if (doc && side === 'right') updateDoc(doc.id, { selected: null, details: null });
}

export function hoverInCompare(tabId: string, side: Side, index: number | null) {
  updateCompare(tabId, { hover: index === null ? null : { side, index } });
}

export function downloadOptimized(tabId: string) {
  const c = useOrigins.getState().compare[tabId];
  if (!c?.result) return;
  const blob = new Blob([c.result.bytes as Uint8Array<ArrayBuffer>], { type: 'application/octet-stream' });
  const url = URL.createObjectURL(blob);
  const a = document.createElement('a');
  a.href = url;
  a.download = c.result.name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}
