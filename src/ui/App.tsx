import { useEffect, useRef, useState, type CSSProperties } from 'react';
import { useStudio, activeDoc } from './store';
import { TopBar } from './shell/TopBar';
import { StatusBar } from './shell/StatusBar';
import { Alerts } from './shell/Alerts';
import { DropOverlay } from './shell/DropOverlay';
import { GraphPane, NextPaneWarmer, type GraphPaneHandle } from './shell/GraphPane';
import { SidePanel } from './panels/SidePanel';
import { ProfilePane } from './shell/ProfilePane';
import { openFiles, toggleDirection, loadSample, reopenKept } from './actions';
import { exportCurrent } from './shell/exporting';
import { useResolvedTheme } from './shell/theme';
import { ComparePane } from './origins/ComparePane';
import { useOrigins } from './origins/state';
import { bindLayoutToHash, toggleSidePanel, useLayout } from './shell/layout';
import { Overlays } from './shell/CommandPalette';
import { openFind } from './shell/commands';
import { can, mainView } from './capabilities';
import { LoadablePane } from './loadable/LoadablePane';
import { useCaffeErrorFills } from './run-loadable/caffe-fills';
import { bindNodeDisplay } from './graph/display';
import { whenIdle } from './graph/canvas-pool';
import { CompileView } from './compile/CompileView';
import { toggleCompile, useCompile } from './compile/state';
import { starterSamples, useSamples } from './shell/samples';

bindLayoutToHash();
bindNodeDisplay();

declare const __DEFAULT_SAMPLE__: string;
let sampleOpened = false;

export function App() {
  const theme = useResolvedTheme();
  const hasDoc = useStudio((s) => s.docs.length > 0);
  const opening = useStudio((s) => s.opening);
  // the empty studio has been idle once: the next graph's canvas is made ready then (NextPaneWarmer)
  const [idleEmpty, setIdleEmpty] = useState(false);
  useEffect(() => (hasDoc || idleEmpty ? undefined : whenIdle(() => setIdleEmpty(true))), [hasDoc, idleEmpty]);
  const view = useStudio((s) => {
    const d = activeDoc(s);
    return d ? mainView(d.summary) : null;
  });
  const pane = useRef<GraphPaneHandle>(null);
  const activeId = useStudio((s) => s.activeId);
  const panelWidth = useLayout((s) => s.panel);
  const panelAt = useLayout((s) => s.side);
  const comparing = useOrigins((s) => !!(activeId && s.compare[activeId]?.open)) && view === 'graph';
  // an NVDLA loadable opens in its own views (tasks, graph, memory map, blobs, compare)
  const loadable = useStudio((s) => can(activeDoc(s)?.summary, 'loadable'));
  // a Caffe net compared with a loadable: its layers coloured by the error of the op slots computing them
  const active = useStudio(activeDoc);
  const errorFills = useCaffeErrorFills(active ?? null, theme);
  // a Caffe tab's compile view (Compile, Ctrl+Shift+B) takes the graph pane's place
  const compiling = useCompile((s) => !!(activeId && s.tabs[activeId]?.open)) && view === 'graph';

  useEffect(() => {
    document.documentElement.dataset.theme = theme;
  }, [theme]);

  // Reopen what was open before the reload; else the bundled sample named in ?sample=... (npm start opens one), unless told otherwise.
  useEffect(() => {
    const params = new URLSearchParams(location.search);
    // `npm start` names a default sample; `?sample=none` opens nothing.
    const sample = params.get('sample') ?? __DEFAULT_SAMPLE__;
    if (sampleOpened) return;
    sampleOpened = true; // StrictMode runs effects twice in development
    void (async () => {
      // what the last page had open comes back first; then a sample the URL names, unless it is
      // open already (a reload); the default sample only opens into an empty studio
      const restored = await reopenKept();
      if (!sample || sample === 'none' || !/^[\w.-]+$/.test(sample)) return;
      if (restored && (!params.has('sample') || useStudio.getState().docs.some((d) => d.title === sample))) return;
      await loadSample('samples/', [sample]);
    })();
  }, []);

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if ((mod && e.shiftKey && key === 'p') || (key === 'f1' && !mod)) {
        e.preventDefault();
        useStudio.setState((s) => ({ overlay: s.overlay === 'commands' ? null : 'commands' }));
      } else if (e.key === '?' && !mod && !e.altKey && !typingIn(e.target)) {
        e.preventDefault();
        useStudio.setState((s) => ({ overlay: s.overlay === 'help' ? null : 'help' }));
      } else if (useStudio.getState().overlay) {
        // a dialog is open: its own keys only
      } else if (mod && key === 'f') {
        e.preventDefault();
        openFind();
      } else if (mod && e.shiftKey && key === 'b') {
        e.preventDefault();
        const d = activeDoc();
        if (d && can(d.summary, 'compile')) toggleCompile(d.id);
      } else if (mod && !e.shiftKey && key === 'b') {
        e.preventDefault();
        toggleSidePanel();
      } else if (mod && key === 'k') {
        e.preventDefault();
        toggleDirection();
      } else if (mod && key === 'enter') {
        e.preventDefault();
        if (useLayout.getState().side === 'hidden') toggleSidePanel();
        useStudio.setState({ side: 'model' });
      } else if (mod && e.shiftKey && key === 'e') {
        e.preventDefault();
        void exportCurrent(pane.current, 'png');
      } else if (mod && e.altKey && key === 'e') {
        e.preventDefault();
        void exportCurrent(pane.current, 'svg');
      }
    };
    // Escape with Find open closes Find and nothing else (the graph would otherwise take it as
    // "deselect"): handled in the capture phase, before any view sees the key
    const onEscape = (e: KeyboardEvent) => {
      if (e.key !== 'Escape' || !useStudio.getState().find.open || useStudio.getState().overlay) return;
      if (document.querySelector('.body-chooser')?.contains(e.target as Node)) return;
      e.preventDefault();
      e.stopPropagation();
      useStudio.setState((s) => ({ find: { ...s.find, open: false } }));
    };
    window.addEventListener('keydown', onKey);
    window.addEventListener('keydown', onEscape, true);
    return () => {
      window.removeEventListener('keydown', onKey);
      window.removeEventListener('keydown', onEscape, true);
    };
  }, []);

  useEffect(() => {
    // Dropping files anywhere on the page opens them; the browser must never navigate to them.
    const over = (e: DragEvent) => {
      if (e.dataTransfer?.types.includes('Files')) e.preventDefault();
    };
    const drop = (e: DragEvent) => {
      if (!e.dataTransfer?.files.length) return;
      e.preventDefault();
      void openFiles(Array.from(e.dataTransfer.files));
    };
    window.addEventListener('dragover', over);
    window.addEventListener('drop', drop);
    return () => {
      window.removeEventListener('dragover', over);
      window.removeEventListener('drop', drop);
    };
  }, []);

  return (
    <div className="app">
      <TopBar pane={pane} />
      <Alerts />
      <main className={`workspace panel-${panelAt}`} style={workspaceColumns(hasDoc && view !== 'profile' ? panelAt : 'hidden', panelWidth)}>
        {(opening || (!hasDoc && idleEmpty)) && <NextPaneWarmer side={panelAt} columns={workspaceColumns(panelAt, panelWidth)} />}
        {hasDoc && view === 'profile' ? (
          <ProfilePane theme={theme} />
        ) : hasDoc ? (
          <>
            {compiling ? <CompileView theme={theme} /> : comparing ? <ComparePane theme={theme} /> : loadable ? <LoadablePane ref={pane} theme={theme} /> : <GraphPane ref={pane} theme={theme} {...(errorFills ? { nodeFill: errorFills } : {})} />}
            <SidePanel />
            {panelAt === 'hidden' && (
              <button type="button" className="panel-reveal" onClick={() => toggleSidePanel()} aria-label="Show the side panel" title="Show the side panel: node, model and origins details (Ctrl+B)">
                ⟨
              </button>
            )}
          </>
        ) : (
          <Welcome />
        )}
      </main>
      <StatusBar />
      <DropOverlay />
      <Overlays pane={pane} openPicker={openPicker} />
    </div>
  );
}

/** The workspace grid: the graph pane and the side panel in the order and width the user chose. */
function workspaceColumns(at: 'left' | 'right' | 'hidden', width: number | null): CSSProperties | undefined {
  if (at === 'hidden') return { gridTemplateColumns: 'minmax(0, 1fr)', gridTemplateAreas: '"main"' };
  if (width === null) return undefined; // the stylesheet's default share
  const panel = `min(${width}px, calc(100% - 240px))`;
  return { gridTemplateColumns: at === 'left' ? `${panel} minmax(0, 1fr)` : `minmax(0, 1fr) ${panel}` };
}

/** keys typed into a field are text, not shortcuts */
function typingIn(target: EventTarget | null): boolean {
  const el = target as HTMLElement | null;
  return !!el && (el.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) || !!el.closest?.('.monaco-editor'));
}

function openPicker() {
  document.querySelector<HTMLInputElement>('[data-testid="file-input"]')?.click();
}

/** The empty studio: what it opens, one sample of each, and where the files stay. */
function Welcome() {
  const opening = useStudio((s) => s.opening);
  const samples = useSamples();
  const starters = starterSamples(samples);
  return (
    <section className="welcome" aria-label="Welcome">
      <h1>NPU Studio</h1>
      <p>
        Drop files anywhere on this page, press <b>Open</b>, or try a sample below.
      </p>
      <table className="opens" aria-label="What NPU Studio opens">
        <tbody>
          {starters.map(({ kind, sample }) => (
            <tr key={kind.group}>
              <th scope="row">{kind.what}</th>
              <td className="muted">{kind.files}</td>
              <td>
                {sample ? (
                  <button type="button" title={(sample.files ?? [sample.file]).join(' + ')} onClick={() => void loadSample('samples/', sample.files ?? [sample.file])}>
                    Open {sample.title}
                  </button>
                ) : (
                  <span className="muted">no sample bundled</span>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <p className="muted">Everything runs in this tab: nothing is uploaded. Open files are kept in this browser so that a reload reopens them (the status bar shows how much, and forgets it).</p>
      {opening && <p aria-live="polite">Opening…</p>}
    </section>
  );
}

export { activeDoc };
