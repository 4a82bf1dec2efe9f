import { useStudio, activeDoc, docLabel } from '../store';
import { useOrigins } from '../origins/state';
import { countsText } from '../capabilities';

/** `file · N nodes · M edges · worker state` (a capture: marks and runs); role="status" for assistive technology and tests. */
export function StatusBar() {
  const doc = useStudio(activeDoc);
  const note = useStudio((s) => s.workerNote);
  const opening = useStudio((s) => s.opening);
  // the compare view shows two graphs: the optimized one's counts follow the tab's
  const compare = useOrigins((s) => (doc ? s.compare[doc.id] : undefined));
  const optimized = compare?.open ? compare.result?.summary.graphs[0]?.stats : undefined;
  const parts: string[] = [];
  if (doc) parts.push(docLabel(doc));
  if (doc && doc.summary.graphs.length > 1) parts.push(doc.summary.graphs.find((g) => g.id === doc.graphId)?.name || doc.graphId);
  const counts = doc ? countsText(doc.summary, doc.graphId) : '0 nodes · 0 edges';
  let state = 'ready';
  if (opening) state = 'opening…';
  else if (doc?.loading) state = `${doc.loading.phase}${doc.loading.fraction > 0 ? ` ${Math.round(doc.loading.fraction * 100)}%` : ''}`;
  else if (note) state = note;
  return (
    <footer className="statusbar">
      <div role="status" aria-live="polite" className="status-main">
        {parts.length > 0 && <span className="status-file">{parts.join(' · ')} · </span>}
        <span className="status-counts">{counts}</span>
        {optimized && <span className="status-optimized"> · optimized: {optimized.nodes} nodes · {optimized.edges} edges</span>}
      </div>
      <div className="status-worker" aria-label="worker state">{state}</div>
    </footer>
  );
}
