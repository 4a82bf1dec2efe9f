import { useCallback, useEffect, useRef, useState, type RefObject } from 'react';
import { useStudio, activeDoc, docLabel, type Doc } from '../store';
import { showsGraph } from '../capabilities';
import { activate, closeDoc, loadSample, openFiles, setTheme, toggleDirection } from '../actions';
import { exportCurrent } from './exporting';
import type { GraphPaneHandle } from './GraphPane';
import { SAMPLE_GROUPS, useSamples } from './samples';

/**
 * the active tab scrolls into the strip's view when it changes (many tabs open), at the next
 * frame: scrolling forces a layout of the page, which in the commit that adds a tab made one long
 * task of its render and that layout
 */
function revealTab(el: HTMLDivElement | null) {
  if (el) requestAnimationFrame(() => el.isConnected && el.scrollIntoView({ block: 'nearest', inline: 'nearest' }));
}

export function TopBar({ pane }: { pane: RefObject<GraphPaneHandle | null> }) {
  const docs = useStudio((s) => s.docs);
  const activeId = useStudio((s) => s.activeId);
  const theme = useStudio((s) => s.theme);
  // export and layout direction apply to a graph on screen, not to a capture's tables
  const graphShown = useStudio((s) => showsGraph(activeDoc(s)?.summary));
  const input = useRef<HTMLInputElement>(null);
  const samples = useSamples();
  const [menu, setMenu] = useState(false);

  return (
    <header className="topbar">
      <div className="brand" aria-hidden="true">
        NPU&nbsp;Studio
      </div>
      <button type="button" onClick={() => input.current?.click()} title="Open model files (or drop them anywhere)">
        Open
      </button>
      <input
        ref={input}
        type="file"
        multiple
        hidden
        data-testid="file-input"
        onChange={(e) => {
          const files = Array.from(e.currentTarget.files ?? []);
          e.currentTarget.value = '';
          void openFiles(files);
        }}
      />
      <div className="menu-anchor">
        <button type="button" aria-haspopup="menu" aria-expanded={menu} onClick={() => setMenu(!menu)}>
          Samples ▾
        </button>
        {menu && (
          <ul
            role="menu"
            className="menu samples-menu"
            aria-label="Samples"
            onMouseLeave={() => setMenu(false)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') setMenu(false);
            }}
          >
            {samples.length === 0 && <li className="muted">no samples bundled</li>}
            {SAMPLE_GROUPS.map((g) => {
              const entries = samples.filter((s) => (s.group ?? 'models') === g.id);
              if (!entries.length) return null;
              return (
                <li key={g.id} role="none">
                  <div className="menu-heading" id={`samples-${g.id}`}>
                    {g.label}
                  </div>
                  <ul role="group" aria-labelledby={`samples-${g.id}`}>
                    {entries.map((s) => (
                      <li key={`${g.id}:${s.title}`} role="none">
                        <button
                          type="button"
                          role="menuitem"
                          title={s.files ? s.files.join(' + ') : s.file}
                          onClick={() => {
                            setMenu(false);
                            void loadSample('samples/', s.files ?? [s.file]);
                          }}
                        >
                          <span>{s.title}</span>
                          {s.operators !== undefined && <span className="muted">{s.operators} ops</span>}
                        </button>
                      </li>
                    ))}
                  </ul>
                </li>
              );
            })}
          </ul>
        )}
      </div>
      <TabStrip docs={docs} activeId={activeId} />
      <div className="spacer" />
      <button type="button" onClick={() => toggleDirection()} title="Layout direction (Ctrl+K)" disabled={!graphShown}>
        TB/LR
      </button>
      <button type="button" onClick={() => void exportCurrent(pane.current, 'png')} title="Export PNG (Ctrl+Shift+E)" disabled={!graphShown}>
        PNG
      </button>
      <button type="button" onClick={() => void exportCurrent(pane.current, 'svg')} title="Export SVG (Ctrl+Alt+E)" disabled={!graphShown}>
        SVG
      </button>
      <button type="button" onClick={() => useStudio.setState({ overlay: 'commands' })} title="Every action by name (Ctrl+Shift+P or F1)">
        Commands
      </button>
      <label className="theme-select">
        <span className="sr-only">Theme</span>
        <select aria-label="Theme" value={theme} onChange={(e) => setTheme(e.currentTarget.value as 'light' | 'dark' | 'system')}>
          <option value="system">System theme</option>
          <option value="light">Light</option>
          <option value="dark">Dark</option>
        </select>
      </label>
      <button type="button" className="help-button" onClick={() => useStudio.setState({ overlay: 'help' })} aria-label="Keyboard shortcuts" title="Keyboard shortcuts (?)">
        ?
      </button>
    </header>
  );
}

/**
 * The open tabs: a strip that scrolls sideways, with a shadow on the side where more tabs hide
 * and, once they do not all fit, a menu listing every tab.
 */
function TabStrip({ docs, activeId }: { docs: Doc[]; activeId: string | null }) {
  const strip = useRef<HTMLElement>(null);
  const [cues, setCues] = useState({ left: false, right: false });
  const [menu, setMenu] = useState(false);
  const measure = useCallback(() => {
    const el = strip.current;
    if (!el) return;
    const left = el.scrollLeft > 1;
    const right = el.scrollLeft + el.clientWidth < el.scrollWidth - 1;
    setCues((c) => (c.left === left && c.right === right ? c : { left, right }));
  }, []);
  useEffect(() => {
    const el = strip.current;
    if (!el) return;
    const ro = new ResizeObserver(measure);
    ro.observe(el);
    el.addEventListener('scroll', measure, { passive: true });
    return () => {
      ro.disconnect();
      el.removeEventListener('scroll', measure);
    };
  }, [measure]);
  // at the next frame: reading the strip's widths forces a layout of the page, which in the commit
  // that adds a tab (its effects run in that task) made one long task of the render and the layout
  useEffect(() => {
    const frame = requestAnimationFrame(measure);
    return () => cancelAnimationFrame(frame);
  }, [docs.length, activeId, measure]);
  const overflowing = cues.left || cues.right;
  return (
    <>
      <div className={`tabs-wrap${cues.left ? ' more-left' : ''}${cues.right ? ' more-right' : ''}`}>
        <nav ref={strip} role="tablist" aria-label="Open models" className="tabs">
          {docs.map((d) => (
            <div key={d.id} className={`tab ${d.id === activeId ? 'active' : ''}`} ref={d.id === activeId ? revealTab : undefined}>
              <button type="button" role="tab" aria-selected={d.id === activeId} onClick={() => activate(d.id)} title={docLabel(d)}>
                {docLabel(d)}
              </button>
              <button type="button" className="tab-close" aria-label={`Close ${docLabel(d)}`} onClick={() => closeDoc(d.id)}>
                ×
              </button>
            </div>
          ))}
        </nav>
      </div>
      {overflowing && (
        <div className="menu-anchor">
          <button type="button" className="tabs-all" aria-haspopup="menu" aria-expanded={menu} onClick={() => setMenu(!menu)} title="Every open tab">
            {docs.length} tabs ▾
          </button>
          {menu && (
            <ul
              role="menu"
              className="menu tabs-menu"
              aria-label="Every open tab"
              onMouseLeave={() => setMenu(false)}
              onKeyDown={(e) => {
                if (e.key === 'Escape') setMenu(false);
              }}
            >
              {docs.map((d) => (
                <li key={d.id} role="none">
                  <button
                    type="button"
                    role="menuitem"
                    aria-current={d.id === activeId || undefined}
                    onClick={() => {
                      setMenu(false);
                      activate(d.id);
                    }}
                  >
                    {docLabel(d)}
                  </button>
                </li>
              ))}
            </ul>
          )}
        </div>
      )}
    </>
  );
}
