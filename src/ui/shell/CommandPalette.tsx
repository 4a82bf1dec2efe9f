/**
 * The command palette (Ctrl+Shift+P or F1) and the keyboard help (?): dialogs over the workspace.
 * The palette filters the commands of shell/commands.ts as you type (match-sorter: exact, then
 * prefix, word-start, substring and acronym matches), Up / Down move, Enter runs, Escape closes
 * and gives the focus back to where it was.
 */
import { useEffect, useMemo, useRef, useState, type RefObject } from 'react';
import { matchSorter } from 'match-sorter';
import { activeDoc, useStudio } from '../store';
import { usePartition } from '../partition/state';
import { NO_PASSES, useOrigins } from '../origins/state';
import { can } from '../capabilities';
import { loadPassNames } from '../origins/actions';
import { buildCommands, KEYBOARD_HELP, type Command } from './commands';
import { useSamples } from './samples';
import { useLayout } from './layout';
import { exportCurrent } from './exporting';
import type { GraphPaneHandle } from './GraphPane';

function close() {
  useStudio.setState({ overlay: null });
}

/** Puts the focus back where it was when a dialog opened. */
function useRestoreFocus() {
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    return () => {
      if (before && document.contains(before)) before.focus();
    };
  }, []);
}

export function Overlays({ pane, openPicker }: { pane: RefObject<GraphPaneHandle | null>; openPicker(): void }) {
  const overlay = useStudio((s) => s.overlay);
  if (overlay === 'commands') return <CommandPalette pane={pane} openPicker={openPicker} />;
  if (overlay === 'help') return <KeyboardHelp />;
  return null;
}

function CommandPalette({ pane, openPicker }: { pane: RefObject<GraphPaneHandle | null>; openPicker(): void }) {
  useRestoreFocus();
  const samples = useSamples();
  const optimizable = useStudio((s) => {
    const d = activeDoc(s);
    return d && can(d.summary, 'optimize') ? d.workerDocId : null;
  });
  const passNames = useOrigins((s) => (optimizable ? (s.passNames[optimizable] ?? NO_PASSES) : NO_PASSES));
  useEffect(() => {
    if (optimizable) void loadPassNames(optimizable).catch(() => {}); // the optimize commands name every pass
  }, [optimizable]);
  // a snapshot when the palette opens (and when samples or passes arrive): running a command closes it
  const commands = useMemo(() => {
    const s = useStudio.getState();
    const doc = activeDoc(s);
    const c = doc ? useOrigins.getState().compare[doc.id] : undefined;
    return buildCommands({
      docs: s.docs,
      doc,
      theme: s.theme,
      side: s.side,
      panelAt: useLayout.getState().side,
      dockAt: useLayout.getState().dockAt,
      inplace: useLayout.getState().inplace,
      view: c?.open ? null : (pane.current?.view() ?? null),
      partitionOpen: !!(doc && usePartition.getState().tabs[doc.id]),
      compare: c ? { open: c.open, result: !!c.result } : null,
      passNames,
      samples,
      openPicker,
      exportView: (format) => void exportCurrent(pane.current, format),
    });
  }, [samples, passNames, pane, openPicker]);
  const [query, setQuery] = useState('');
  const [active, setActive] = useState(0);
  const list = useRef<HTMLUListElement>(null);
  const shown = useMemo(
    () => (query.trim() ? matchSorter(commands, query.trim(), { keys: ['title', 'group', 'keys'], baseSort: (a, b) => a.index - b.index }) : commands),
    [commands, query],
  );
  const at = Math.min(active, Math.max(0, shown.length - 1));

  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-index="${at}"]`)?.scrollIntoView({ block: 'nearest' });
  }, [at]);

  const run = (c: Command | undefined) => {
    if (!c) return;
    close();
    c.run();
  };

  return (
    <div className="overlay-backdrop" onPointerDown={(e) => e.target === e.currentTarget && close()}>
      <div role="dialog" aria-modal="true" aria-label="Command palette" className="palette">
        <input
          autoFocus
          role="combobox"
          aria-expanded="true"
          aria-controls="palette-list"
          aria-activedescendant={shown.length ? `palette-${at}` : undefined}
          aria-label="Command"
          placeholder="Type a command (Open, Find, Optimize, Dark theme, a sample's name…)"
          value={query}
          spellCheck={false}
          onChange={(e) => {
            setQuery(e.currentTarget.value);
            setActive(0);
          }}
          onKeyDown={(e) => {
            if (e.key === 'ArrowDown') setActive(Math.min(shown.length - 1, at + 1));
            else if (e.key === 'ArrowUp') setActive(Math.max(0, at - 1));
            else if (e.key === 'PageDown') setActive(Math.min(shown.length - 1, at + 8));
            else if (e.key === 'PageUp') setActive(Math.max(0, at - 8));
            else if (e.key === 'Enter') run(shown[at]);
            else if (e.key === 'Escape') close();
            else if (e.key === 'Tab') {
              // a modal dialog keeps the focus: the list is driven from the input
            } else return;
            e.preventDefault();
            e.stopPropagation();
          }}
        />
        <ul id="palette-list" role="listbox" aria-label="Commands" ref={list} className="palette-list">
          {shown.map((c, i) => (
            <li
              key={c.id}
              id={`palette-${i}`}
              data-index={i}
              data-command={c.id}
              role="option"
              aria-selected={i === at}
              className={i === at ? 'active' : undefined}
              onPointerMove={() => i !== at && setActive(i)}
              onClick={() => run(c)}
            >
              <span className="palette-group">{c.group}</span>
              <span className="palette-title ellipsis">{c.title}</span>
              {c.keys && <kbd>{c.keys}</kbd>}
            </li>
          ))}
          {shown.length === 0 && <li className="muted palette-empty">No command matches “{query}”</li>}
        </ul>
      </div>
    </div>
  );
}

function KeyboardHelp() {
  useRestoreFocus();
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => ref.current?.focus(), []);
  const rows = KEYBOARD_HELP;
  return (
    <div className="overlay-backdrop" onPointerDown={(e) => e.target === e.currentTarget && close()}>
      <div
        ref={ref}
        tabIndex={-1}
        role="dialog"
        aria-modal="true"
        aria-label="Keyboard shortcuts"
        className="palette help"
        onKeyDown={(e) => {
          if (e.key === 'Escape' || e.key === '?') {
            e.preventDefault();
            e.stopPropagation();
            close();
          } else if (e.key === 'Tab') {
            // a modal dialog keeps the focus: its only control is Close
            e.preventDefault();
            ref.current?.querySelector<HTMLElement>('button')?.focus();
          }
        }}
      >
        <header className="help-head">
          <h2>Keyboard shortcuts</h2>
          <button type="button" onClick={close} aria-label="Close">
            ×
          </button>
        </header>
        <table className="help-keys">
          <thead>
            <tr>
              <th>where</th>
              <th>keys</th>
              <th>what</th>
            </tr>
          </thead>
          <tbody>
            {rows.map((r) => (
              <tr key={`${r.where}:${r.keys}`}>
                <td className="muted">{r.where}</td>
                <td>
                  <kbd>{r.keys}</kbd>
                </td>
                <td>{r.what}</td>
              </tr>
            ))}
          </tbody>
        </table>
        <p className="muted">Every other action (optimize, partition, samples, themes, tabs) is in the command palette: Ctrl+Shift+P or F1.</p>
      </div>
    </div>
  );
}
