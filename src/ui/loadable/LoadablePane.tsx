/**
 * The workspace of a document with the `loadable` capability (an NVDLA loadable): a row of
 * views (Tasks, Graph, Memory, Tensors & relocs, Blobs, Damage, and Compare when one is open)
 * and the view chosen. The Graph view is the studio's graph pane (find, keyboard, export and
 * layout as for any model) with the op slots coloured by engine and the dependency edges drawn
 * by kind. Every view selects op slots through the tab's graph selection, which the side panel's
 * "Op slot" tab describes. Each view asks the worker for its own data when it is first shown.
 */
import { forwardRef, useEffect, useImperativeHandle, useMemo, useRef, useState } from 'react';
import { activeDoc, updateDoc, useStudio } from '../store';
import { can } from '../capabilities';
import { GraphPane, type GraphPaneHandle } from '../shell/GraphPane';
import { dependencyEdgeStyle, engineColor, engineFills, engineOf, ENGINES } from '../graph/style';
import { useMemoryMap, useOverview } from './data';
import { TasksView } from './TasksView';
import { MemoryView } from './MemoryView';
import { BlobsView } from './BlobsView';
import { DamageList, TensorsView } from './ListsViews';
import { CompareView } from './CompareView';
import { RunLoadableView } from '../run-loadable/RunLoadableView';
import { CalibrateView } from '../run-loadable/CalibrateView';
import { useRunLoadable } from '../run-loadable/state';
import { errorColour, slotErrorFills } from '../run-loadable/model';
import { openLoadableCompare, showLoadableView, useLoadableTab, VIEW_TITLES, type LoadableViewName } from './state';
import './loadable.css';

const VIEWS: LoadableViewName[] = ['tasks', 'graph', 'memory', 'tensors', 'blobs', 'damage'];

export const LoadablePane = forwardRef<GraphPaneHandle, { theme: 'light' | 'dark' }>(function LoadablePane({ theme }, ref) {
  const doc = useStudio(activeDoc);
  const docs = useStudio((s) => s.docs);
  const tab = useLoadableTab(doc?.id);
  const graphPane = useRef<GraphPaneHandle>(null);
  useImperativeHandle(ref, () => ({ view: () => graphPane.current?.view() ?? null }), []);
  const overview = useOverview(doc?.workerDocId ?? null);
  const memory = useMemoryMap(tab.view === 'memory' && doc ? doc.workerDocId : null);
  const findOpen = useStudio((s) => s.find.open);

  // Ctrl+F finds op slots: the find bar lives in the graph view
  useEffect(() => {
    if (findOpen && doc && tab.view !== 'graph') showLoadableView(doc.id, 'graph');
  }, [findOpen]); // eslint-disable-line react-hooks/exhaustive-deps
  // an alert's "See damage"
  const reveal = doc?.reveal ?? null;
  useEffect(() => {
    if (!doc || reveal !== 'diagnostics') return;
    showLoadableView(doc.id, 'damage');
    updateDoc(doc.id, { reveal: null });
  }, [doc, reveal]);

  const graph = doc?.view?.graph ?? null;
  // after a comparison with a Caffe model, compared op slots take their error's colour
  const errorRows = useRunLoadable((s) => (doc && s.tabs[doc.id]?.colourByError ? (s.tabs[doc.id]?.comparison?.rows ?? null) : null));
  const fills = useMemo(() => {
    if (!graph) return undefined;
    const engine = engineFills(graph, theme);
    if (!errorRows) return engine;
    const errors = slotErrorFills(graph.nodes.length, errorRows, theme);
    return engine.map((f, i) => errors[i] ?? f);
  }, [graph, theme, errorRows]);
  const edgeStyle = useMemo(() => (graph ? dependencyEdgeStyle(graph, theme) : undefined), [graph, theme]);

  if (!doc) return null;
  const others = docs.filter((d) => d.id !== doc.id && can(d.summary, 'loadable'));
  const compareDoc = tab.compareWith ? (docs.find((d) => d.id === tab.compareWith) ?? null) : null;
  const runnable = can(doc.summary, 'runLoadable');
  const base: LoadableViewName[] = runnable ? [...VIEWS, 'run', 'calibrate'] : VIEWS;
  const views = tab.compareWith ? [...base, 'compare' as const] : base;
  const damage = overview.data?.damage.length ?? 0;
  const o = overview.data;

  return (
    <section className="graph-pane lv-pane" aria-label="Loadable">
      <div className="pane-toolbar lv-toolbar">
        <div role="tablist" aria-label="Loadable views" className="lv-views">
          {views.map((v) => (
            <button key={v} type="button" role="tab" aria-selected={tab.view === v} onClick={() => showLoadableView(doc.id, v)} data-view={v}>
              {VIEW_TITLES[v]}
              {v === 'damage' && damage > 0 && (
                <span className="lv-count-badge lv-count-bad" aria-label={`${damage} damaged places`}>
                  {damage}
                </span>
              )}
            </button>
          ))}
        </div>
        <CompareMenu tabId={doc.id} others={others.map((d) => ({ id: d.id, title: d.title }))} />
        <span className="muted pane-hint ellipsis">
          {o ? `${o.tasks.length} task${o.tasks.length === 1 ? '' : 's'} · ${o.tasks.reduce((n, t) => n + t.ops.length, 0)} op slots · firmware ${o.firmware ?? '—'}` : ''}
        </span>
      </div>
      <div className="lv-body">
        {overview.error && <p className="diag-error pad">{overview.error}</p>}
        {tab.view === 'graph' ? (
          <GraphPane ref={graphPane} theme={theme} {...(fills ? { nodeFill: fills } : {})} {...(edgeStyle ? { edgeStyle } : {})} legend={graph && edgeStyle ? errorRows ? <ErrorLegend theme={theme} /> : <GraphLegend types={graph.nodes.map((n) => n.type)} kinds={edgeStyle.classes.filter((_, i) => edgeStyle.edgeClass.includes(i))} theme={theme} /> : null} />
        ) : tab.view === 'run' && runnable ? (
          <RunLoadableView doc={doc} theme={theme} />
        ) : tab.view === 'calibrate' && runnable ? (
          <CalibrateView doc={doc} />
        ) : tab.view === 'compare' ? (
          <CompareView tabId={doc.id} a={doc} b={compareDoc} theme={theme} />
        ) : !o ? (
          !overview.error && <p className="muted pad">Reading {doc.title}…</p>
        ) : tab.view === 'tasks' ? (
          <TasksView tabId={doc.id} overview={o} selected={doc.selected} theme={theme} />
        ) : tab.view === 'memory' ? (
          <MemoryView tabId={doc.id} overview={o} areas={memory.data} selected={doc.selected} theme={theme} />
        ) : tab.view === 'tensors' ? (
          <TensorsView overview={o} />
        ) : tab.view === 'blobs' ? (
          <BlobsView tabId={doc.id} workerDocId={doc.workerDocId} overview={o} />
        ) : (
          <DamageList tabId={doc.id} overview={o} />
        )}
      </div>
    </section>
  );
});

function GraphLegend({ types, kinds, theme }: { types: string[]; kinds: { name: string; color: string; dash: number[]; width?: number }[]; theme: 'light' | 'dark' }) {
  const present = new Set(types.map(engineOf));
  return (
    <ul className="lv-legend lv-graph-legend" aria-label="Engine colours and dependency kinds">
      {ENGINES.filter((e) => present.has(e)).map((e) => (
        <li key={e}>
          <span className="lv-swatch" style={{ background: engineColor(e, theme) }} />
          {e}
        </li>
      ))}
      {kinds.map((k) => (
        <li key={k.name} title={`edges: ${k.name}`}>
          <svg width="26" height="8" aria-hidden="true">
            <line x1="1" y1="4" x2="25" y2="4" stroke={k.color} strokeWidth={k.width ?? 1.2} strokeDasharray={k.dash.join(' ')} />
          </svg>
          {k.name === 'event' ? 'task event' : k.name.toLowerCase().replace(/^op_/, '').replace(/_/g, ' ')}
        </li>
      ))}
    </ul>
  );
}

/** The op-slot graph after a comparison: the colours are the error against the Caffe float pass. */
function ErrorLegend({ theme }: { theme: 'light' | 'dark' }) {
  return (
    <ul className="lv-legend lv-graph-legend" aria-label="Error colours">
      <li>op slots by SNR against the Caffe model:</li>
      <li>
        <span className="lv-swatch" style={{ background: errorColour(0, theme) }} />≥ 40 dB
      </li>
      <li>
        <span className="lv-swatch" style={{ background: errorColour(0.5, theme) }} />25 dB
      </li>
      <li>
        <span className="lv-swatch" style={{ background: errorColour(1, theme) }} />≤ 10 dB
      </li>
      <li className="muted">others (CONV accumulators) in their engine colour</li>
    </ul>
  );
}

/** "Compare with…": the other open loadables; the comparison opens as this tab's Compare view. */
function CompareMenu({ tabId, others }: { tabId: string; others: { id: string; title: string }[] }) {
  const [open, setOpen] = useState(false);
  return (
    <div className="menu-anchor">
      <button
        type="button"
        aria-haspopup="menu"
        aria-expanded={open}
        disabled={others.length === 0}
        title={others.length ? 'Compare this loadable with another open one (notes section 13)' : 'Open a second loadable to compare'}
        onClick={() => setOpen(!open)}
      >
        Compare with… ▾
      </button>
      {open && (
        <ul role="menu" className="menu" aria-label="Compare with" onMouseLeave={() => setOpen(false)} onKeyDown={(e) => e.key === 'Escape' && setOpen(false)}>
          {others.map((d) => (
            <li key={d.id} role="none">
              <button
                type="button"
                role="menuitem"
                onClick={() => {
                  setOpen(false);
                  openLoadableCompare(tabId, d.id);
                }}
              >
                {d.title}
              </button>
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
