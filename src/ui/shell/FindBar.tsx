import { useEffect, useRef } from 'react';
import { useStudio, activeDoc } from '../store';
import { runFind } from '../actions';

/** Ctrl+F: Netron's find tokens, results list; Enter or click centres and selects. Debounced 100 ms. */
export function FindBar({ onGo }: { onGo(index: number): void }) {
  const find = useStudio((s) => s.find);
  const doc = useStudio(activeDoc);
  const timer = useRef<ReturnType<typeof setTimeout> | null>(null);

  useEffect(() => {
    if (find.open && find.query) void runFind(find.query);
    // re-run when the graph changes
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [doc?.graphId, doc?.workerDocId]);

  if (!find.open) return null;
  const names = doc?.view?.graph.nodes;

  const go = (k: number) => {
    const r = find.results[k];
    if (!r) return;
    useStudio.setState((s) => ({ find: { ...s.find, active: k } }));
    onGo(r.node);
  };

  return (
    <div className="findbar" role="search">
      <input
        id="find-input"
        type="search"
        aria-label="Find"
        placeholder="Find: name, type, tensor, dtype, shape, /regex/, [OPCODE]"
        defaultValue={find.query}
        autoFocus
        onChange={(e) => {
          const q = e.currentTarget.value;
          if (timer.current) clearTimeout(timer.current);
          timer.current = setTimeout(() => void runFind(q), 100);
        }}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            go(find.active);
          } else if (e.key === 'ArrowDown') {
            e.preventDefault();
            useStudio.setState((s) => ({ find: { ...s.find, active: Math.min(s.find.active + 1, s.find.results.length - 1) } }));
          } else if (e.key === 'ArrowUp') {
            e.preventDefault();
            useStudio.setState((s) => ({ find: { ...s.find, active: Math.max(s.find.active - 1, 0) } }));
          }
          // Escape: App closes Find (capture phase), wherever the focus is
        }}
      />
      <span className="muted find-count" aria-live="polite">
        {find.query ? `${find.total} result${find.total === 1 ? '' : 's'}${find.total > find.results.length ? ` (first ${find.results.length})` : ''} · ${find.ms.toFixed(1)} ms` : ''}
      </span>
      {find.results.length > 0 && (
        <ul className="find-results" role="listbox" aria-label="Find results">
          {find.results.slice(0, 200).map((r, k) => {
            const n = names?.[r.node];
            return (
              <li key={`${r.node}:${k}`} role="option" aria-selected={k === find.active} className={k === find.active ? 'active' : ''} onClick={() => go(k)}>
                <span className="find-type">{n?.type ?? ''}</span> <span>{n?.name ?? `#${r.node}`}</span>
                <span className="muted"> · {r.field}: {r.text}</span>
              </li>
            );
          })}
        </ul>
      )}
    </div>
  );
}
