/** "Optimize" with a pass picker (every pass on by default); runs in the worker, opens the compare view. */
import { useEffect, useRef, useState } from 'react';
import { activeDoc, useStudio } from '../store';
import { loadPassNames, reopenCompare, runOptimize } from './actions';
import { NO_PASSES, useOrigins } from './state';
import './origins.css';
import { can } from '../capabilities';

export function OptimizeMenu() {
  const doc = useStudio(activeDoc);
  const optimizable = !!doc && can(doc.summary, 'optimize');
  const workerDocId = doc?.workerDocId ?? '';
  const names = useOrigins((s) => s.passNames[workerDocId] ?? NO_PASSES);
  const compare = useOrigins((s) => (doc ? s.compare[doc.id] : undefined));
  const [open, setOpen] = useState(false);
  const [chosen, setChosen] = useState<Set<string> | null>(null);
  const root = useRef<HTMLDivElement>(null);

  useEffect(() => {
    if (!open) return;
    if (optimizable) void loadPassNames(workerDocId).catch(() => {});
    const away = (e: PointerEvent) => {
      if (root.current && !root.current.contains(e.target as Node)) setOpen(false);
    };
    const esc = (e: KeyboardEvent) => {
      if (e.key === 'Escape') setOpen(false);
    };
    window.addEventListener('pointerdown', away);
    window.addEventListener('keydown', esc);
    return () => {
      window.removeEventListener('pointerdown', away);
      window.removeEventListener('keydown', esc);
    };
  }, [open, optimizable, workerDocId]);

  if (!doc || !optimizable) return null;
  const picked = chosen ?? new Set(compare?.passes ?? names);
  const toggle = (name: string) => {
    const next = new Set(picked);
    if (next.has(name)) next.delete(name);
    else next.add(name);
    setChosen(next);
  };
  const run = () => {
    setOpen(false);
    void runOptimize(names.filter((n) => picked.has(n)));
  };
  return (
    <div className="opt-menu" ref={root}>
      <button type="button" aria-haspopup="dialog" aria-expanded={open} onClick={() => setOpen((o) => !o)} title="Run origin-preserving passes in the worker and compare">
        Optimize…
      </button>
      {compare && !compare.open && (
        <button type="button" onClick={() => reopenCompare(doc.id)} title="Back to the original | optimized view" style={{ marginLeft: 6 }}>
          Compare
        </button>
      )}
      {open && (
        <div className="opt-popover" role="dialog" aria-label="Optimize passes">
          <h4>Passes (in pipeline order)</h4>
          {names.length === 0 && <span className="muted">Loading…</span>}
          {names.map((n) => (
            <label key={n}>
              <input type="checkbox" checked={picked.has(n)} onChange={() => toggle(n)} />
              {n}
            </label>
          ))}
          <div className="row">
            <span>
              <button type="button" onClick={() => setChosen(new Set(names))}>
                All
              </button>{' '}
              <button type="button" onClick={() => setChosen(new Set())}>
                None
              </button>
            </span>
            <button type="button" className="primary" disabled={picked.size === 0 || names.length === 0} onClick={run}>
              Run {picked.size} pass{picked.size === 1 ? '' : 'es'}
            </button>
          </div>
        </div>
      )}
    </div>
  );
}
