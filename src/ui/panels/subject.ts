/**
 * What the side panel describes. In the single view that is the tab's document (the graph on
 * screen and its selection). In the compare view it is the model of the pane last used: the
 * original (the tab's document, subgraph 0) or the optimized one (its own worker document), with
 * that pane's selection. The Node, Model and Origins tabs all read this one value, so they never
 * disagree about which model they show.
 */
import type { Diagnostic, DocumentSummary, Graph, NodeDetails } from '../../worker/api';
import { mainGraphId, mainView } from '../capabilities';
import { docLabel, type Doc } from '../store';
import type { CompareState, Side } from '../origins/state';

export interface PanelSubject {
  /** the tab the panel belongs to */
  tabId: string;
  /** key of the subject's per-model UI caches (origins): the tab id, or `<tab id>:optimized` */
  key: string;
  /** null: the single view; else the compare pane the panel follows */
  side: Side | null;
  /** document in the model worker (nodeDetails, tensorDetails, origins are asked of it) */
  workerDocId: string;
  /** file name shown to the user */
  title: string;
  summary: DocumentSummary;
  diagnostics: Diagnostic[];
  graphId: string;
  /** the graph on screen for this subject (null while it is laid out) */
  graph: Graph | null;
  selected: number | null;
  details: NodeDetails | null;
}

/** The compare pane titles, as the panes and the side panel header say them. */
export const SIDE_TITLE: Record<Side, string> = { left: 'Original', right: 'Optimized' };

export function panelSubject(doc: Doc, compare: CompareState | null | undefined): PanelSubject {
  if (!compare?.open || mainView(doc.summary) !== 'graph') {
    return {
      tabId: doc.id,
      key: doc.id,
      side: null,
      workerDocId: doc.workerDocId,
      title: docLabel(doc),
      summary: doc.summary,
      diagnostics: doc.diagnostics,
      graphId: doc.graphId,
      graph: doc.view && doc.view.graphId === doc.graphId ? doc.view.graph : null,
      selected: doc.selected,
      details: doc.details,
    };
  }
  // the right pane needs the optimized document; until there is one the panel follows the left
  const side: Side = compare.focus === 'right' && compare.result ? 'right' : 'left';
  const selected = compare.selected?.side === side ? compare.selected.index : null;
  const details = selected === null ? null : compare.details;
  const common = { tabId: doc.id, side, graphId: compare.result?.graphId ?? mainGraphId(doc.summary), selected, details };
  if (side === 'right') {
    const r = compare.result!;
    return {
      ...common,
      key: `${doc.id}:optimized`,
      workerDocId: r.docId,
      title: r.name,
      summary: r.summary,
      diagnostics: r.diagnostics,
      graph: compare.right?.graph ?? null,
    };
  }
  return {
    ...common,
    key: doc.id,
    workerDocId: doc.workerDocId,
    title: docLabel(doc),
    summary: doc.summary,
    diagnostics: doc.diagnostics,
    graph: compare.left?.graph ?? null,
  };
}
