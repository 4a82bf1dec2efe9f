/** What the user can do with origins: load them for the graph on screen, optimize, compare, download. */
import { describeError } from '../../core/errors';
import { activeDoc, pushAlert, updateDoc, useStudio } from '../store';
import { prepareGraphView, registerWorkerDocOwner, selectNode, workers } from '../actions';
import { compareGraphView, mainGraphView, updateCompare, useOrigins, type ComparePaneState, type Side } from './state';
import { SIDE_TITLE, type PanelSubject } from '../panels/subject';
import { errorAlert, errorText } from '../errors';
import { mainGraphId } from '../capabilities';

let loadSeq = 0;

/** Loads the origins of the panel's model and graph (once per worker doc and graph, kept under `subject.key`). */
export async function loadOrigins(subject: PanelSubject) {
  const slot = subject.key;
  const key = `${subject.workerDocId}:${subject.graphId}`;
  if (useOrigins.getState().origins[slot]?.key === key) return;
  const seq = ++loadSeq;
  useOrigins.setState((s) => ({ origins: { ...s.origins, [slot]: { key, view: null, error: null } } }));
  try {
    const view = await workers().model.api.origins(subject.workerDocId, subject.graphId);
    if (seq !== loadSeq && useOrigins.getState().origins[slot]?.key !== key) return;
    useOrigins.setState((s) => ({ origins: { ...s.origins, [slot]: { key, view, error: null } } }));
  } catch (e) {
    useOrigins.setState((s) => ({ origins: { ...s.origins, [slot]: { key, view: null, error: errorText(e, subject.title) } } }));
  }
}

/** The passes of a document with the `optimize` capability (asked once per worker document). */
export async function loadPassNames(workerDocId: string): Promise<string[]> {
  const have = useOrigins.getState().passNames[workerDocId];
  if (have) return have;
  const names = await workers().model.api.optimizePasses(workerDocId);
  useOrigins.setState((s) => ({ passNames: { ...s.passNames, [workerDocId]: names } }));
  return names;
}

/**
 * Selects a node of the panel's graph and centres on it (rows of the Origins panel): in the
 * single view, or in the compare pane the panel follows (whose related nodes centre in the other).
 */
export function revealNode(subject: PanelSubject, index: number) {
  if (subject.side) {
    selectInCompare(subject.tabId, subject.side, index);
    compareGraphView(subject.side)?.centerOn(index);
    centerRelated(subject.tabId, subject.side, index);
    return;
  }
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
    compare: { ...s.compare, [tabId]: { open: true, running: true, passes, result: null, left: null, right: null, selected: null, details: null, focus: 'left', hover: null, error: null } },
  }));
  try {
    const result = await workers().model.api.optimize(doc.workerDocId, passes);
    if (!result.ok) {
      updateCompare(tabId, { running: false, error: describeError(result.error) });
      pushAlert({ severity: 'error', message: describeError(result.error), error: result.error });
      return;
    }
    updateCompare(tabId, { result });
    const left = await layoutPane(doc.workerDocId, result.graphId);
    updateCompare(tabId, { left });
    const right = await layoutPane(result.docId, result.graphId);
    updateCompare(tabId, { right, running: false });
  } catch (e) {
    const alert = errorAlert(e, doc.title);
    updateCompare(tabId, { running: false, error: alert.message });
    pushAlert(alert);
  }
}

/**
 * The optimized models live in the model worker as documents of their own: after a worker
 * restart they are re-opened from the bytes the optimize call returned (the ids change), and
 * closing a tab closes its optimized model too.
 */
registerWorkerDocOwner({
  async reopen() {
    for (const [tabId, c] of Object.entries(useOrigins.getState().compare)) {
      if (!c.result) continue;
      const res = await workers().model.api.open([{ name: c.result.name, blob: new Blob([c.result.bytes as Uint8Array<ArrayBuffer>]) }]);
      if (res.ok) {
        updateCompare(tabId, (cur) => (cur.result ? { result: { ...cur.result, docId: res.docId } } : {}));
        // node details of the selection are fetched again from the re-opened documents
        const sel = useOrigins.getState().compare[tabId]?.selected;
        if (sel) selectInCompare(tabId, sel.side, sel.index);
      } else {
        updateCompare(tabId, { open: false, result: null, right: null, selected: null, details: null, focus: 'left' });
        pushAlert({ severity: 'error', message: describeError(res.error), error: res.error });
      }
    }
  },
  tabClosed(tabId) {
    const c = useOrigins.getState().compare[tabId];
    if (c?.result) void workers().model.api.close(c.result.docId);
    useOrigins.setState((s) => {
      const { [tabId]: _gone, ...compare } = s.compare;
      return { compare };
    });
  },
});

export function closeCompare(tabId: string) {
  updateCompare(tabId, { open: false, hover: null });
}

export function reopenCompare(tabId: string) {
  updateCompare(tabId, { open: true });
}

/**
 * Selecting a node in one pane: select it there (the other pane highlights its related nodes) and
 * make that pane the one the side panel describes: its node details come from the pane's own
 * worker document (the tab's model on the left, the optimized model on the right).
 */
export function selectInCompare(tabId: string, side: Side, index: number | null) {
  const selected = index === null ? null : { side, index };
  updateCompare(tabId, { selected, details: null, focus: side });
  syncHoverNode(tabId);
  const doc = useStudio.getState().docs.find((d) => d.id === tabId);
  const c = useOrigins.getState().compare[tabId];
  if (!doc || !c) return;
  // the left pane is the tab's own main graph: the single view keeps the same selection
  if (side === 'left' && doc.graphId === mainGraphId(doc.summary)) {
    const keepSide = useStudio.getState().side;
    void selectNode(index);
    useStudio.setState({ side: keepSide });
  } else if (side === 'right') updateDoc(doc.id, { selected: null, details: null });
  if (index === null) return;
  const workerDocId = side === 'left' ? doc.workerDocId : c.result?.docId;
  if (!workerDocId) return;
  void loadCompareDetails(tabId, side, index, workerDocId, mainGraphId(doc.summary));
}

async function loadCompareDetails(tabId: string, side: Side, index: number, workerDocId: string, graphId: string) {
  try {
    const details = await workers().model.api.nodeDetails(workerDocId, graphId, index);
    // a later selection (or a new Optimize) wins
    updateCompare(tabId, (c) => (c.selected?.side === side && c.selected.index === index && (side === 'left' || c.result?.docId === workerDocId) ? { details } : {}));
  } catch (e) {
    pushAlert(errorAlert(e, `${SIDE_TITLE[side]} model`));
  }
}

/** Centres the other pane on the middle one of `index`'s related nodes. */
export function centerRelated(tabId: string, side: Side, index: number) {
  const r = useOrigins.getState().compare[tabId]?.result;
  if (!r) return;
  const related = (side === 'left' ? r.sourceToOptimized : r.optimizedToSource)[index] ?? [];
  if (related.length) compareGraphView(side === 'left' ? 'right' : 'left')?.centerOn(related[Math.floor((related.length - 1) / 2)]!);
}

export function hoverInCompare(tabId: string, side: Side, index: number | null) {
  updateCompare(tabId, { hover: index === null ? null : { side, index } });
  syncHoverNode(tabId);
}

/**
 * The Origins tab describes the pane the panel follows: its rows light up for a node hovered in
 * that pane. Called on hover and on focus change (a click moves the focus under a still pointer).
 */
function syncHoverNode(tabId: string) {
  const c = useOrigins.getState().compare[tabId];
  const hoverNode = c?.hover && c.hover.side === c.focus ? c.hover.index : null;
  if (useOrigins.getState().hoverNode !== hoverNode) useOrigins.setState({ hoverNode });
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
