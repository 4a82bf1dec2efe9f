import { useStudio, activeDoc, docLabel } from '../store';
import { useOrigins } from '../origins/state';
import { countsText, plural } from '../capabilities';
import { forgetSession, useSession } from './session';

function megabytes(n: number): string {
  return n < 1024 * 1024 ? `${Math.max(1, Math.round(n / 1024))} KB` : `${(n / 1024 / 1024).toFixed(1)} MB`;
}

/** How much this browser keeps so a reload reopens the tabs, and a button that forgets it. */
function KeptFiles() {
  const { bytes, tabs, skipped } = useSession();
  if (!tabs && !skipped) return null;
  const what = `${megabytes(bytes)} kept for reload (${tabs} tab${tabs === 1 ? '' : 's'}${skipped ? `; ${skipped} too big to keep` : ''})`;
  return (
    <div className="status-kept">
      <span title="The open files are kept in this browser (IndexedDB) so that a reload reopens them; nothing is uploaded">{what}</span>
      <button type="button" className="link" onClick={() => void forgetSession()} title="Forget the kept files: a reload will open an empty studio">
        Forget
      </button>
    </div>
  );
}

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
  // an empty studio has nothing to count: it says so rather than `0 nodes · 0 edges`
  const counts = doc ? countsText(doc.summary, doc.graphId) : 'no document open';
  let state = 'ready';
  if (opening) state = 'opening…';
  else if (doc?.loading) state = `${doc.loading.phase}${doc.loading.fraction > 0 ? ` ${Math.round(doc.loading.fraction * 100)}%` : ''}`;
  else if (note) state = note;
  return (
    <footer className="statusbar">
      <div role="status" aria-live="polite" className="status-main">
        {parts.length > 0 && <span className="status-file">{parts.join(' · ')} · </span>}
        <span className="status-counts">{counts}</span>
        {optimized && <span className="status-optimized"> · optimized: {plural(optimized.nodes, "node")} · {plural(optimized.edges, "edge")}</span>}
      </div>
      <KeptFiles />
      <div className="status-worker" aria-label="worker state">{state}</div>
    </footer>
  );
}
