/**
 * The compile view of a Caffe tab (issues 13 and 14): nvdla_compiler's options in a form (a change
 * recompiles in the model worker, with progress), what the compiler said (refusals naming the
 * layer as nvdla_compiler words them, and where NPU Studio does better), and three modes:
 *
 * - Graphs: the Caffe graph, the canonical graph and the engine graph side by side, each a full
 *   graph view (pan, zoom, keyboard, find, SVG export); selecting a node highlights the nodes of
 *   the other panes that share its origins; under the engine pane the pass timeline, each step
 *   showing the engine graph after it with what it inserted, changed or fused outlined;
 * - Loadable: the compiled bytes in the loadable inspector's Tasks and Memory views, every op slot
 *   with its Caffe layers, a layer list that marks its slots and regions (and the reverse);
 * - Memory plan: each pool as offset against op slot, every buffer from first to last use.
 */
import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react';
import { activeDoc, useStudio } from '../store';
import { GraphView, type GraphViewHandle } from '../graph/GraphView';
import { workers } from '../actions';
import { grouped } from '../capabilities';
import { warmCanvasFor } from '../graph/canvas-pool';
import { maskOf } from '../origins/state';
import { TasksView } from '../loadable/TasksView';
import { MemoryView } from '../loadable/MemoryView';
import { useMemoryMap, useOverview } from '../loadable/data';
import { SlotContext, type SlotContextValue } from '../loadable/slot-context';
import type { CompileOptionSpec, CompileOptionValues, NvdlaDiagnostic, PassStep } from '../../worker/api';
import {
  closeCompile,
  openCompile,
  downloadLoadable,
  downloadOrigins,
  pickStep,
  selectInPane,
  selectLayer,
  selectSlot,
  setCalibration,
  setCompileMode,
  setCompileOption,
  useCompileProgress,
  useCompileTab,
  type CompileTab,
  type PaneView,
} from './state';
import { engineEdgeStyle, layerNames, optionText, originsFileName, paneOrigins, relatedNodes, slotLayers, stepColours, stepOutlines, type PaneName } from './model';
import { MemoryPlanView } from './MemoryPlanView';
import '../origins/origins.css';
import '../loadable/loadable.css';
import './compile.css';

export function CompileView({ theme }: { theme: 'light' | 'dark' }) {
  const doc = useStudio(activeDoc);
  const t = useCompileTab(doc?.id);
  if (!doc) return null;
  const tabId = doc.id;
  const r = t.result;
  const s = r?.summary;
  return (
    <section className="compile" aria-label="Compile for NVDLA" data-testid="compile-view">
      <div className="pane-toolbar compile-toolbar">
        <button type="button" onClick={() => closeCompile(tabId)} title="Back to the Caffe graph">
          ← Graph
        </button>
        <OptionsForm tabId={tabId} t={t} />
        <div role="tablist" aria-label="Compile views" className="lv-views compile-modes">
          {(['graphs', 'loadable', 'memory'] as const).map((m) => (
            <button key={m} type="button" role="tab" aria-selected={t.mode === m} disabled={m !== 'graphs' && !r?.loadableDocId} onClick={() => setCompileMode(tabId, m)} data-mode={m}>
              {m === 'graphs' ? 'Graphs' : m === 'loadable' ? 'Loadable' : 'Memory plan'}
            </button>
          ))}
        </div>
        <span className="spacer" />
        <button type="button" disabled={!r?.loadableDocId} onClick={() => void downloadLoadable(tabId)} title="The loadable nvdla_compiler would write, named as it names it" data-testid="download-loadable">
          ↓ {s?.loadableName ?? 'loadable'}
        </button>
        <button type="button" disabled={!r?.originsText} onClick={() => downloadOrigins(tabId)} title="Task and op slot -> Caffe layers" data-testid="download-origins">
          ↓ {s ? originsFileName(s.loadableName) : 'origins.json'}
        </button>
      </div>
      <StatusLine tabId={tabId} t={t} />
      {/* one line high whatever the compiler said (the list opens over the panes): a strip that came
          and went with the warnings of each compile resized the three graph panes, and each resize
          made their canvases anew on the UI thread */}
      <div className="compile-diags-bar">{s && <Diagnostics key={t.result?.graphDocId ?? ''} list={s.diagnostics} />}</div>
      <div className="compile-body">
        {/* the panes come once the form is in (the toolbar has its height): mounted before, the three
            graph views were resized at once, their canvases made anew */}
        {!t.form && !t.error ? null : t.mode === 'graphs' || !r?.loadableDocId ? (
          <GraphsMode tabId={tabId} t={t} theme={theme} caffe={doc.view ? { graph: doc.view.graph, layout: doc.view.layout } : null} caffeTitle={doc.title} caffeDocId={doc.workerDocId} caffeGraphId={doc.view?.graphId ?? doc.graphId} />
        ) : t.mode === 'loadable' ? (
          <LoadableMode tabId={tabId} t={t} theme={theme} />
        ) : (
          <MemoryPlanView t={t} theme={theme} onLayer={(id) => selectLayer(tabId, id)} />
        )}
      </div>
    </section>
  );
}

// ---- options ---------------------------------------------------------------------------------

function OptionsForm({ tabId, t }: { tabId: string; t: CompileTab }) {
  const picker = useRef<HTMLInputElement>(null);
  if (!t.form || !t.options) return <span className="muted">{t.error ?? 'Reading the options…'}</span>;
  const opts = t.options;
  const calib = t.calibration;
  const tables = t.form.calibrationFiles;
  return (
    <form className="compile-form" aria-label="Compile options" onSubmit={(e) => e.preventDefault()}>
      {t.form.specs.map((spec) => (
        <OptionField key={spec.name} spec={spec} value={opts[spec.name]} onChange={(v) => setCompileOption(tabId, spec.name, v)} />
      ))}
      <label title="--calibtable: INT8 tensor scales (JSON, as nvdla_compiler reads it); drop one with the net or pick one">
        <span className="muted">calibration</span>
        <select
          aria-label="calibtable"
          value={calib ? calib.file : ''}
          onChange={(e) => {
            const v = e.currentTarget.value;
            if (v === '__pick') picker.current?.click();
            else setCalibration(tabId, v ? { file: v } : null);
          }}
        >
          <option value="">none (constant scales)</option>
          {tables.map((f) => (
            <option key={f} value={f}>
              {f}
            </option>
          ))}
          {calib?.blob && <option value={calib.file}>{calib.file}</option>}
          <option value="__pick">Choose a file…</option>
        </select>
        <input
          ref={picker}
          type="file"
          accept=".json,application/json"
          hidden
          data-testid="calibration-input"
          onChange={(e) => {
            const f = e.currentTarget.files?.[0];
            if (f) setCalibration(tabId, { file: f.name, blob: f });
            e.currentTarget.value = '';
          }}
        />
      </label>
    </form>
  );
}

function OptionField({ spec, value, onChange }: { spec: CompileOptionSpec; value: CompileOptionValues[keyof CompileOptionValues]; onChange(v: string | number): void }) {
  if (spec.kind === 'int') {
    return (
      <label title={spec.help}>
        <span className="muted">{spec.label}</span>
        <input
          type="number"
          min={0}
          max={4096}
          aria-label={spec.name}
          className="compile-batch"
          defaultValue={Number(value)}
          key={String(value)}
          onKeyDown={(e) => e.key === 'Enter' && onChange(Number(e.currentTarget.value) | 0)}
          onBlur={(e) => Number(e.currentTarget.value) !== Number(value) && onChange(Number(e.currentTarget.value) | 0)}
        />
      </label>
    );
  }
  return (
    <label title={spec.help}>
      <span className="muted">{spec.label}</span>
      <select aria-label={spec.name} value={String(value)} onChange={(e) => onChange(e.currentTarget.value)}>
        {spec.choices.map((c) => (
          <option key={c} value={c}>
            {optionText(spec.name, c)}
            {c === spec.default && c !== '' ? ' (default)' : ''}
          </option>
        ))}
      </select>
    </label>
  );
}

function StatusLine({ tabId, t }: { tabId: string; t: CompileTab }) {
  const s = t.result?.summary;
  const progress = useCompileProgress(tabId);
  if (t.running && progress) {
    return (
      <div className="compile-status" role="progressbar" aria-label={`Compiling: ${progress.step}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(progress.fraction * 100)} data-testid="compile-progress">
        <span>{progress.step}…</span>
        <div className="progress-track">
          {/* scaled, not sized: a compositor-only change, no layout or paint of the page at every step */}
          <div className="progress-fill" style={{ transform: `scaleX(${progress.fraction.toFixed(3)})` }} />
        </div>
      </div>
    );
  }
  if (t.error) return <div className="compile-status diag-error" role="alert">{t.error}</div>;
  if (!s) return null;
  const res = s.resolved;
  const done = s.reached === 'emit';
  const slots = s.origins ? s.origins.tasks.reduce((n, x) => n + x.ops.length, 0) : 0;
  return (
    <div className={`compile-status ${done ? 'ok' : 'stopped'}`} data-testid="compile-status" data-reached={s.reached ?? 'none'}>
      {res && (
        <span>
          <b>{res.profile}</b> · {res.target} · {res.precision} · batch {res.batch || 'from the prototxt'} · input {res.inputFormat}
          {s.calibration ? ` · calibration ${s.calibration}` : ''}
        </span>
      )}
      <span className="muted">
        {done
          ? `${s.graphs.find((g) => g.id === 'canonical')?.stats.nodes ?? 0} canonical nodes → ${s.timeline.at(-1)?.nodes ?? 0} engine nodes after ${s.timeline.length - 1} passes → ${s.origins?.tasks.length ?? 0} tasks, ${slots} op slots, ${grouped(s.loadableSize ?? 0)} bytes · compiled in ${s.ms.toFixed(0)} ms`
          : `NVDLA did not compile this network: stopped after ${s.reached === 'options' ? 'reading the options' : `the ${s.reached ?? 'option'} stage`}, no loadable (the reason is below)`}
      </span>
    </div>
  );
}

/** Errors and warnings as nvdla_compiler words them, and what NPU Studio does where it does better. */
function Diagnostics({ list }: { list: NvdlaDiagnostic[] }) {
  const shown = list.filter((d) => d.severity !== 'info');
  const errors = shown.filter((d) => d.severity === 'error').length;
  // a refusal opens the list (there is no graph to cover); warnings wait for a click
  const [open, setOpen] = useState(errors > 0);
  if (!shown.length) return null;
  const first = shown.find((d) => d.severity === 'error') ?? shown[0]!;
  return (
    <details className="compile-diags" open={open} onToggle={(e) => setOpen(e.currentTarget.open)} data-testid="compile-diagnostics">
      <summary title={open ? 'Hide the messages' : 'Show every message'}>
        {errors ? <span className="diag-badge error">{errors} error{errors === 1 ? '' : 's'}</span> : null}
        {shown.length - errors ? <span className="diag-badge warning">{shown.length - errors} warning{shown.length - errors === 1 ? '' : 's'}</span> : null}
        <span className="muted compile-diags-first">
          {open ? " what the compiler said, with nvdla_compiler's own words" : ` ${first.layer !== undefined ? `layer '${first.layer}': ` : ''}${first.message}`}
        </span>
      </summary>
      <ul>
        {shown.map((d, i) => (
          <li key={i} className={`compile-diag ${d.severity}`} role={d.severity === 'error' ? 'alert' : undefined}>
            <div>
              <span className={`diag-badge ${d.severity}`}>{d.severity}</span> <span className="muted">[{d.stage}]</span>
              {d.layer !== undefined && (
                <>
                  {' '}
                  layer <b>'{d.layer}'</b>
                  {d.line !== undefined && <span className="muted"> (line {d.line})</span>}:
                </>
              )}{' '}
              {d.message}
            </div>
            {d.upstream && (
              <div className="compile-upstream">
                <span className="muted">nvdla_compiler says:</span> <code>{d.upstream}</code>
              </div>
            )}
            {d.studio && (
              <div className="compile-better">
                <b>NPU Studio does better:</b> {d.studio}
                {d.upstreamBehaviour === 'crashes' ? ' (nvdla_compiler crashes here)' : d.upstreamBehaviour === 'wrong-result' ? ' (nvdla_compiler silently writes a wrong result here)' : ''}
              </div>
            )}
          </li>
        ))}
      </ul>
    </details>
  );
}

// ---- graphs ----------------------------------------------------------------------------------

interface GraphsProps {
  tabId: string;
  t: CompileTab;
  theme: 'light' | 'dark';
  caffe: PaneView | null;
  caffeTitle: string;
  caffeDocId: string;
  caffeGraphId: string;
}

function GraphsMode({ tabId, t, theme, caffe, caffeTitle, caffeDocId, caffeGraphId }: GraphsProps) {
  const s = t.result?.summary ?? null;
  const picked = s?.timeline[t.step] ?? null;
  // the engine graph on screen: the picked step's once laid out, the one before meanwhile
  const engineId = t.shownGraph ?? 'engine';
  const shownStep = s?.timeline.find((x) => x.graphId === t.shownGraph) ?? null;
  const engine = t.shownGraph ? (t.engines[t.shownGraph] ?? null) : null;
  const related = useMemo(() => (s ? relatedNodes(s, t.tables, engineId, t.selected) : { caffe: null, canonical: null, engine: null }), [s, t.tables, engineId, t.selected]);
  const kinds = t.tables[engineId]?.edgeKinds;
  const edgeStyle = useMemo(() => (kinds ? engineEdgeStyle(kinds, theme) : undefined), [kinds, theme]);
  // the legend's edge kinds (the same whatever the graph): drawn before the first result too, so
  // that the engine pane's graph area has its size from the start (a canvas warmed while compiling fits it)
  const legendClasses = useMemo(() => engineEdgeStyle([], theme).classes, [theme]);
  const colours = stepColours(theme);
  const outlines = useMemo(() => (engine ? stepOutlines(engine.graph, shownStep, colours) : undefined), [engine, shownStep, theme]); // eslint-disable-line react-hooks/exhaustive-deps
  const sel = (pane: PaneName) => (t.selected?.pane === pane ? t.selected.index : null);
  const graphDocId = t.result?.graphDocId ?? null;
  const selectedIds = s && t.selected ? (paneOrigins(s, t.tables, t.selected.pane, engineId)[t.selected.index] ?? []) : [];
  const pending = picked && picked.graphId !== t.shownGraph ? picked : null;
  const stepTitle = (x: PassStep) => (x.name === 'generateGraph' ? 'engine_ast after generateGraph' : `after ${x.name}`);
  return (
    <div className="compile-graphs">
      <div className="compile-panes">
        <CompilePane
          pane="caffe"
          title="Caffe"
          subtitle={caffeTitle}
          view={caffe}
          theme={theme}
          selected={sel('caffe')}
          related={related.caffe}
          onSelect={(i) => void selectInPane(tabId, 'caffe', i)}
          find={{ docId: caffeDocId, graphId: caffeGraphId }}
          empty="Opening the Caffe graph…"
        />
        <CompilePane
          pane="canonical"
          title="Canonical"
          subtitle={s ? `${s.graphs.find((g) => g.id === 'canonical')?.stats.nodes ?? 0} nodes (canonical_ast)` : ''}
          view={t.canonical}
          theme={theme}
          selected={sel('canonical')}
          related={related.canonical}
          onSelect={(i) => void selectInPane(tabId, 'canonical', i)}
          find={graphDocId ? { docId: graphDocId, graphId: 'canonical' } : null}
          empty={t.running ? 'Compiling…' : s && !s.graphs.length ? 'No canonical graph: NVDLA refused the network (see above)' : ''}
          warm={t.running}
        />
        <CompilePane
          pane="engine"
          title="Engine"
          subtitle={shownStep ? stepTitle(shownStep) + (pending ? ` · laying out the graph ${stepTitle(pending)}…` : '') : ''}
          view={engine}
          theme={theme}
          selected={sel('engine')}
          related={related.engine}
          onSelect={(i) => void selectInPane(tabId, 'engine', i)}
          find={graphDocId && shownStep ? { docId: graphDocId, graphId: engineId } : null}
          edgeStyle={edgeStyle}
          nodeOutline={outlines}
          legend={<EdgeLegend classes={legendClasses} colours={colours} outlines={shownStep !== null && shownStep.name !== 'generateGraph'} />}
          empty={t.running ? 'Compiling…' : s && !s.timeline.length ? 'No engine graph: the compile stopped before it (see above)' : ''}
          footer={<Timeline tabId={tabId} steps={s?.timeline ?? []} current={t.step} />}
          warm={t.running}
        />
      </div>
      <NodeStrip t={t} ids={selectedIds} />
    </div>
  );
}

interface PaneProps {
  pane: PaneName;
  title: string;
  subtitle: string;
  view: PaneView | null;
  theme: 'light' | 'dark';
  selected: number | null;
  related: number[] | null;
  onSelect(i: number | null): void;
  find: { docId: string; graphId: string } | null;
  edgeStyle?: ReturnType<typeof engineEdgeStyle> | undefined;
  nodeOutline?: (string | null)[] | undefined;
  legend?: ReactNode;
  footer?: ReactNode;
  empty: string;
  /** a compile is running and the pane has no graph yet: its canvas is made ready meanwhile */
  warm?: boolean;
}

function CompilePane({ pane, title, subtitle, view, theme, selected, related, onSelect, find, edgeStyle, nodeOutline, legend, footer, empty, warm }: PaneProps) {
  const ref = useRef<GraphViewHandle>(null);
  const host = useRef<HTMLDivElement>(null);
  // the first result mounts the pane's graph view: the first drawing on a new canvas allocates its
  // pixels (tens of ms on the UI thread); a canvas of the pane's size is made ready while the
  // worker compiles, and the view takes it (graph/canvas-pool.ts)
  const hasView = view !== null;
  useEffect(() => {
    if (!warm || hasView || !host.current) return;
    const el = host.current;
    const id = setTimeout(() => warmCanvasFor(el), 0);
    return () => clearTimeout(id);
  }, [warm, hasView]);
  const count = view?.graph.nodes.length ?? 0;
  const highlighted = useMemo(() => maskOf(count, related), [count, related]);
  // related nodes come into sight in the panes that did not take the click
  useEffect(() => {
    if (related && related.length && ref.current) ref.current.centerOn(related[0]!);
  }, [related]);
  const n = related?.length ?? 0;
  // what is highlighted, by node id and name (tests and people debugging read it; the canvas draws it)
  const marked = view && related ? related.map((i) => view.graph.nodes[i]).filter((x) => x !== undefined) : [];
  return (
    <section
      className="compile-pane"
      aria-label={`${title} graph`}
      data-pane={pane}
      data-highlighted-count={highlighted ? highlighted.reduce((a, v) => a + v, 0) : 0}
      data-highlighted-ids={marked.map((x) => x.id).join(' ')}
      data-highlighted-names={marked.map((x) => x.name).join(' ')}
    >
      <div className="compile-head">
        <span className="title">{title}</span>
        <span className="muted ellipsis" title={subtitle}>
          {subtitle}
        </span>
        {related && (
          <span className="related" aria-live="polite">
            {n} related
          </span>
        )}
        <span className="spacer" />
        {find && view && <PaneFind find={find} onGo={(i) => {
          ref.current?.centerOn(i);
          onSelect(i);
        }} />}
        <button type="button" className="icon" disabled={!view} title={`Fit the ${title} graph (Space in the graph)`} onClick={() => ref.current?.fit()}>
          ⤢
        </button>
        <button type="button" className="icon" disabled={!view} title={`Export the ${title} graph as SVG`} onClick={() => view && exportSvg(ref.current, `${title.toLowerCase()}-graph.svg`)}>
          SVG
        </button>
      </div>
      {legend}
      <div className="compile-host" ref={host}>
        {view ? (
          <GraphView
            ref={ref}
            graph={view.graph}
            layout={view.layout}
            theme={theme}
            selected={selected}
            highlighted={highlighted}
            onSelect={onSelect}
            label={`${title} graph`}
            firstView="names"
            {...(edgeStyle ? { edgeStyle } : {})}
            {...(nodeOutline ? { nodeOutline } : {})}
          />
        ) : (
          <div className="compile-empty">{empty}</div>
        )}
      </div>
      {footer}
    </section>
  );
}

function exportSvg(view: GraphViewHandle | null, name: string) {
  if (!view) return;
  const url = URL.createObjectURL(new Blob([view.exportSVG()], { type: 'image/svg+xml' }));
  const a = document.createElement('a');
  a.href = url;
  a.download = name;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** Find in one pane (the worker's find over that graph): Enter goes to the next match. */
function PaneFind({ find, onGo }: { find: { docId: string; graphId: string }; onGo(i: number): void }) {
  const [q, setQ] = useState('');
  const [hits, setHits] = useState<{ q: string; nodes: number[]; at: number } | null>(null);
  const go = async () => {
    if (!q.trim()) return;
    let h = hits;
    if (!h || h.q !== q) {
      const r = await workers().model.api.find(find.docId, find.graphId, q);
      h = { q, nodes: r.results.map((x) => x.node), at: -1 };
    }
    if (!h.nodes.length) {
      setHits({ ...h, at: -1 });
      return;
    }
    const at = (h.at + 1) % h.nodes.length;
    setHits({ ...h, at });
    onGo(h.nodes[at]!);
  };
  useEffect(() => setHits(null), [find.docId, find.graphId]);
  return (
    <span className="compile-find">
      <input
        type="search"
        placeholder="find"
        aria-label="Find in this graph"
        value={q}
        onChange={(e) => setQ(e.currentTarget.value)}
        onKeyDown={(e) => {
          if (e.key === 'Enter') {
            e.preventDefault();
            void go();
          }
        }}
      />
      {hits && hits.q === q && <span className="muted">{hits.nodes.length ? `${hits.at + 1}/${hits.nodes.length}` : '0'}</span>}
    </span>
  );
}

/** Edge kinds, and the outlines of what a pass changed (kept in place, hidden, for generateGraph: the legend keeps its height). */
function EdgeLegend({ classes, colours, outlines }: { classes: { name: string; color: string; dash: number[]; width?: number }[]; colours: ReturnType<typeof stepColours>; outlines: boolean }) {
  return (
    <ul className="lv-legend compile-legend" aria-label="Edge kinds">
      {classes.map((k) => (
        <li key={k.name}>
          <svg width="24" height="8" aria-hidden="true">
            <line x1="1" y1="4" x2="23" y2="4" stroke={k.color} strokeWidth={k.width ?? 1.2} strokeDasharray={k.dash.join(' ')} />
          </svg>
          {k.name}
        </li>
      ))}
      {(
        [
          [colours.added, 'inserted'],
          [colours.changed, 'changed'],
          [colours.unioned, 'fused (origins unioned)'],
        ] as const
      ).map(([colour, text]) => (
        <li key={text} className={outlines ? '' : 'compile-legend-off'} aria-hidden={!outlines}>
          <span className="compile-outline-key" style={{ borderColor: colour }} /> {text}
        </li>
      ))}
    </ul>
  );
}

/** The pass timeline: generateGraph then every pass in nvdla_compiler's order; a slider scrubs it. */
function Timeline({ tabId, steps, current }: { tabId: string; steps: PassStep[]; current: number }) {
  const step = steps[current];
  const list = useRef<HTMLOListElement>(null);
  useEffect(() => {
    list.current?.querySelector<HTMLElement>(`[data-step="${current}"]`)?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [current]);
  const changed = (x: PassStep) => x.added.length + x.removed.length + x.changed.length;
  // no steps (compiling, or the compile stopped before the engine graph): the timeline keeps its
  // place, so the engine pane's graph area does not change size when a result comes
  if (!steps.length) return <div className="compile-timeline compile-timeline-empty" aria-hidden="true" />;
  return (
    <div className="compile-timeline" aria-label="Pass timeline" data-testid="pass-timeline">
      <div className="compile-timeline-bar">
        <input
          type="range"
          min={0}
          max={steps.length - 1}
          value={current}
          aria-label="Pass"
          aria-valuetext={step?.name}
          onChange={(e) => void pickStep(tabId, Number(e.currentTarget.value))}
        />
        <span className="compile-step-name">
          {current}. {step?.name}
        </span>
      </div>
      <ol ref={list} className="compile-steps" role="listbox" aria-label="Passes">
        {steps.map((x, i) => (
          <li key={x.name + i} data-step={i} role="option" aria-selected={i === current} className={`${i === current ? 'current' : ''}${changed(x) ? '' : ' idle'}`}>
            <button type="button" onClick={() => void pickStep(tabId, i)} title={x.notes.join('\n') || 'no change'}>
              {x.name}
              {changed(x) > 0 && <span className="compile-step-count">{changed(x)}</span>}
            </button>
          </li>
        ))}
      </ol>
      {step && <StepDetail step={step} />}
    </div>
  );
}

function StepDetail({ step }: { step: PassStep }) {
  const chips = (label: string, cls: string, items: string[]) =>
    items.length > 0 && (
      <span className={`compile-chips ${cls}`}>
        <span className="muted">{label}</span> {items.join(', ')}
      </span>
    );
  return (
    <div className="compile-step-detail" data-testid="step-detail">
      <div>
        {step.name === 'generateGraph' ? (
          <span className="muted">{step.notes.join('; ')}</span>
        ) : (
          <>
            {chips('inserted', 'added', step.added.map((x) => x.name))}
            {chips('removed', 'removed', step.removed.map((x) => (x.into ? `${x.name} → ${x.into}` : x.name)))}
            {chips('fused', 'unioned', step.unioned.map((x) => `${x.name} = ${x.layers.join(' + ')}`))}
            {chips('changed', 'changed', step.changed.map((x) => x.name))}
            {!step.added.length && !step.removed.length && !step.changed.length && <span className="muted">no node changed · </span>}
            <span className="muted">{step.nodes} nodes</span>
          </>
        )}
      </div>
      {step.name !== 'generateGraph' && step.notes.length > 0 && (
        <ul className="compile-notes">
          {step.notes.slice(0, 6).map((n, i) => (
            <li key={i}>{n}</li>
          ))}
          {step.notes.length > 6 && <li className="muted">and {step.notes.length - 6} more</li>}
        </ul>
      )}
    </div>
  );
}

/** The selected node: its attributes and, for engine nodes, surfaces and buffers with format, dims and strides. */
function NodeStrip({ t, ids }: { t: CompileTab; ids: number[] }) {
  const d = t.details;
  const s = t.result?.summary;
  if (!t.selected) return <div className="compile-node muted">Select a node in any pane: the other two highlight what it came from and what came from it.</div>;
  if (!d) return <div className="compile-node muted">Reading the node…</div>;
  const attrs = d.node.attributes.filter((a) => !['engine', 'id'].includes(a.name)).slice(0, 24);
  return (
    <div className="compile-node" aria-label="Selected node" data-testid="compile-node">
      <div className="compile-node-title">
        <b>{d.node.name}</b> <span className="muted">{d.node.type}</span>
        {s && ids.length > 0 && <span className="compile-layer-chip">Caffe: {layerNames(s, ids).join(', ')}</span>}
      </div>
      <dl className="compile-node-rows">
        {d.extra
          .filter((x) => x.name !== 'Caffe layers')
          .map((x, i) => (
            <div key={`e${i}`} className={/^tsd-|^tb-/.test(x.name) ? 'surface' : ''}>
              <dt>{x.name}</dt>
              <dd>{x.value}</dd>
            </div>
          ))}
        {attrs.map((a, i) => (
          <div key={`a${i}`}>
            <dt>{a.name}</dt>
            <dd>{a.value}</dd>
          </div>
        ))}
      </dl>
    </div>
  );
}

// ---- loadable --------------------------------------------------------------------------------

function LoadableMode({ tabId, t, theme }: { tabId: string; t: CompileTab; theme: 'light' | 'dark' }) {
  const r = t.result!;
  const s = r.summary;
  const [view, setView] = useState<'tasks' | 'memory'>('tasks');
  const overview = useOverview(r.loadableDocId);
  const memory = useMemoryMap(view === 'memory' ? r.loadableDocId : null);
  const links = useMemo(() => slotLayers(s.origins), [s.origins]);
  const o = overview.data;
  // op-slot graph node <-> task:slot
  const nodeOf = useMemo(() => {
    const m = new Map<string, number>();
    for (const task of o?.tasks ?? []) for (const row of task.ops) m.set(`${row.task}:${row.slot}`, row.node);
    return m;
  }, [o]);
  const keyOf = useMemo(() => new Map([...nodeOf].map(([k, v]) => [v, k])), [nodeOf]);
  const marked = useMemo(() => {
    if (t.layer === null) return undefined;
    return new Set((links.byLayer.get(t.layer) ?? []).map((k) => nodeOf.get(k)).filter((x): x is number => x !== undefined));
  }, [t.layer, links, nodeOf]);
  const slotIds = t.slot !== null ? (links.bySlot.get(keyOf.get(t.slot) ?? '') ?? []) : [];
  const ctx: SlotContextValue = useMemo(
    () => ({
      select: (node: number) => selectSlot(tabId, node),
      layers: (task: number, slot: number) => layerNames(s, links.bySlot.get(`${task}:${slot}`) ?? []),
      ...(marked ? { marked } : {}),
    }),
    [tabId, s, links, marked],
  );
  return (
    <div className="compile-loadable">
      <aside className="compile-layers" aria-label="Caffe layers">
        <h3>Caffe layers</h3>
        <p className="muted">Pick a layer: its op slots and memory regions are marked. Pick a slot: its layers are marked here.</p>
        <ul>
          {s.sources.map((src) => {
            const slots = links.byLayer.get(src.id)?.length ?? 0;
            const on = t.layer === src.id || slotIds.includes(src.id);
            return (
              <li key={src.id}>
                <button type="button" className={on ? 'on' : ''} aria-pressed={t.layer === src.id} onClick={() => selectLayer(tabId, t.layer === src.id ? null : src.id)} disabled={!slots}>
                  <span>{src.name}</span> <span className="muted">{slots ? `${slots} slot${slots === 1 ? '' : 's'}` : 'no slot'}</span>
                </button>
              </li>
            );
          })}
        </ul>
      </aside>
      <div className="compile-loadable-main">
        <div className="pane-toolbar">
          <div role="tablist" aria-label="Loadable views" className="lv-views">
            <button type="button" role="tab" aria-selected={view === 'tasks'} onClick={() => setView('tasks')}>
              Tasks
            </button>
            <button type="button" role="tab" aria-selected={view === 'memory'} onClick={() => setView('memory')}>
              Memory
            </button>
          </div>
          <span className="muted pane-hint">
            {s.loadableName} in the loadable inspector's views{t.layer !== null ? ` · marked: ${layerNames(s, [t.layer])[0]}` : ''}
          </span>
        </div>
        <SlotContext.Provider value={ctx}>
          {overview.error && <p className="diag-error pad">{overview.error}</p>}
          {!o ? (
            <p className="muted pad">Reading {s.loadableName}…</p>
          ) : view === 'tasks' ? (
            <TasksView tabId={tabId} overview={o} selected={t.slot} theme={theme} />
          ) : (
            <MemoryView tabId={tabId} overview={o} areas={memory.data} selected={t.slot} theme={theme} />
          )}
        </SlotContext.Provider>
      </div>
    </div>
  );
}

export function CompileButton({ tabId, can: able }: { tabId: string; can: boolean }) {
  const t = useCompileTab(tabId);
  if (!able) return null;
  return (
    <button type="button" onClick={() => (t.open ? closeCompile(tabId) : void openCompile(tabId))} title="Compile for NVDLA: canonical and engine graphs, passes, memory, the loadable (Ctrl+Shift+B)" data-testid="compile-button">
      {t.open ? 'Close compile' : 'Compile ▸ NVDLA'}
    </button>
  );
}
