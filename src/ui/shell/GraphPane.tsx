import { forwardRef, useDeferredValue, useEffect, useImperativeHandle, useRef, useState, type CSSProperties, type ReactNode } from 'react';
import { setInplace, useLayout } from './layout';
import { DocOptions } from './DocOptions';
import { useStudio, activeDoc } from '../store';
import { cancelLayout, graphBack, openGraph, preferredGraph, selectNode, showGraph, workers } from '../actions';
import { subgraphLinks, type SubgraphLink } from '../panels/subgraph-links';
import type { GraphNode } from '../../core/graph/model';
import { GraphView, type GraphViewHandle } from '../graph/GraphView';
import { warmCanvasFor } from '../graph/canvas-pool';
import { FindBar } from './FindBar';
import { AssignBar, PartitionButton, PartitionDockHost, usePartitionColouring, usePartitionLifecycle } from '../partition/PartitionHost';
import { useOriginsGraphProps } from '../origins/OriginsPanel';
import { registerMainView } from '../origins/state';
import { OptimizeMenu } from '../origins/OptimizeMenu';
import type { EdgeStyle } from '../graph/style';
import { CompileButton } from '../compile/CompileView';
import { can } from '../capabilities';

export interface GraphPaneHandle {
  view(): GraphViewHandle | null;
}

export interface GraphPaneProps {
  theme: 'light' | 'dark';
  /** fills by node (a loadable's engines); a partition's colours take precedence */
  nodeFill?: ReadonlyArray<string | null>;
  /** edge strokes by kind (a loadable's dependency events) */
  edgeStyle?: EdgeStyle;
  /** shown at the end of the toolbar (a legend) */
  legend?: ReactNode;
}

/** The graph of the active document: subgraph selector, find, progress and the view itself. */
export const GraphPane = forwardRef<GraphPaneHandle, GraphPaneProps>(function GraphPane({ theme, nodeFill, edgeStyle, legend }, ref) {
  const doc = useStudio(activeDoc);
  const view = useRef<GraphViewHandle>(null);
  // a node with more than one body (IF then / else, WHILE cond / body): which one to open
  const [choosing, setChoosing] = useState<{ node: number; links: SubgraphLink[] } | null>(null);
  useImperativeHandle(ref, () => ({ view: () => view.current }), []);
  usePartitionLifecycle(doc);
  const partition = usePartitionColouring(doc, theme);
  useEffect(() => registerMainView(() => view.current), []);
  const origins = useOriginsGraphProps(doc);
  const dockAt = useLayout((s) => s.dockAt);
  const dockWidth = useLayout((s) => s.dockWidth);
  const inplace = useLayout((s) => s.inplace);
  // beside the graph, the dock's width moves the find bar left of it
  const dockStyle = dockAt === 'right' ? ({ '--dock-w': `${dockWidth}px` } as CSSProperties) : undefined;

  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const target = e.target as HTMLElement | null;
      if (target && (target.tagName === 'INPUT' || target.tagName === 'TEXTAREA' || target.isContentEditable)) return;
      if (e.key === 'Backspace' && !e.shiftKey && doc?.back?.length) {
        e.preventDefault();
        graphBack(doc.id);
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [doc]);

  // the in-place toggle (command palette, toolbar, URL hash) picks which of a graph's two forms is on screen
  const wanted = doc ? preferredGraph(doc.summary, doc.graphId) : '';
  useEffect(() => {
    if (doc && wanted && wanted !== doc.graphId && !doc.loading) void showGraph(doc.id, wanted);
  }, [doc?.id, doc?.graphId, wanted, inplace]);

  // a new view mounts in a deferred render: the store's update (a synchronous render of every
  // subscriber) stays short, and the view's render, its commit and its effects (canvas sizing,
  // first placement) come after it in tasks of their own instead of one long task of the
  // 100,000-operator open
  // (another tab's view shows at once: the deferred one belongs to the document it came with)
  const deferredView = useDeferredValue(doc?.view ?? null);
  const deferredDocId = useDeferredValue(doc?.id ?? null);

  if (!doc) return null;
  // a graph shown another way (in-place layers as nodes) is not a subgraph of its own
  const graphs = doc.summary.graphs.filter((g) => !g.unfoldedOf);
  const baseId = doc.summary.graphs.find((g) => g.id === doc.graphId)?.unfoldedOf ?? doc.graphId;
  const unfoldable = doc.summary.graphs.some((g) => g.unfoldedOf === baseId);
  const current = deferredDocId === doc.id ? deferredView : doc.view;

  const openSubgraph = async (index: number) => {
    const node = current?.graph.nodes[index];
    if (!node?.subgraphs?.length) return;
    // the packed graph has no attributes: the roles (then / else, cond / body) come with the node's details
    const known = doc.details?.node.id === node.id ? doc.details.node : null;
    const full = known ?? (await workers().model.api.nodeDetails(doc.workerDocId, doc.graphId, index).then((d) => d.node, () => node));
    const links = subgraphLinks(full, doc.summary.graphs);
    if (links.length === 1) openGraph(doc.id, links[0]!.graphId);
    else setChoosing({ node: index, links });
  };

  return (
    <section className={`graph-pane dock-${dockAt}`} aria-label="Graph" style={dockStyle}>
      <div className="pane-toolbar">
        {graphs.length > 1 && (
          <label>
            <span className="muted">Subgraph </span>
            <select
              aria-label="Subgraph"
              value={baseId}
              onChange={(e) => openGraph(doc.id, preferredGraph(doc.summary, e.currentTarget.value))}
            >
              {graphs.map((g, i) => (
                <option key={g.id} value={g.id}>
                  {i}: {g.name || '(unnamed)'} ({g.stats.nodes} ops)
                </option>
              ))}
            </select>
          </label>
        )}
        {(doc.back?.length ?? 0) > 0 && (
          <button type="button" title="Back (Backspace)" onClick={() => graphBack(doc.id)}>
            ← Back
          </button>
        )}
        <DocOptions doc={doc} />
        {unfoldable && (
          <label title="Layers whose top is their bottom (ReLU, BatchNorm, Scale, Dropout, ...) are drawn inside their producer's box, as Netron does; tick to draw them as nodes of their own">
            <input type="checkbox" checked={inplace === 'nodes'} onChange={(e) => setInplace(e.currentTarget.checked ? 'nodes' : 'folded')} /> in-place layers as nodes
          </label>
        )}
        <PartitionButton doc={doc} />
        <OptimizeMenu />
        <CompileButton tabId={doc.id} can={can(doc.summary, 'compile')} />
        {legend}
        <span className="muted pane-hint">{doc.direction === 'TB' ? 'top to bottom' : 'left to right'} · Ctrl+F find · Space fit</span>
      </div>
      <FindBar onGo={(i) => {
        view.current?.centerOn(i);
        void selectNode(i);
      }} />
      <div className="graph-host">
        {current && (
          <GraphView
            key={`${doc.id}:${current.graphId}:${current.direction}`}
            ref={view}
            graph={current.graph}
            layout={current.layout}
            theme={theme}
            selected={doc.selected}
            onSelect={(i) => void selectNode(i)}
            onActivate={(i) => void openSubgraph(i)}
            highlighted={partition.highlighted ?? origins.highlighted}
            onHover={origins.onHover}
            nodeFill={partition.nodeFill ?? nodeFill}
            nodeOutline={partition.nodeOutline}
            {...(edgeStyle ? { edgeStyle } : {})}
          />
        )}
        {choosing && current?.graph.nodes[choosing.node] && (
          <BodyChooser
            node={current.graph.nodes[choosing.node]!}
            links={choosing.links}
            onPick={(graphId) => {
              setChoosing(null);
              if (graphId) openGraph(doc.id, graphId);
            }}
          />
        )}
        {partition.highlightLegend && (
          <div className="highlight-legend" role="note" aria-label="Highlight legend">
            <span className="highlight-swatch" aria-hidden="true" /> {partition.highlightLegend}
          </div>
        )}
        <AssignBar doc={doc} />
        {doc.loading && !current && <CanvasWarmer />}
        {doc.loading && <Progress startedAt={doc.loading.startedAt} phase={doc.loading.phase} fraction={doc.loading.fraction} />}
      </div>
      <PartitionDockHost doc={doc} theme={theme} />
    </section>
  );
});

/** WHILE (cond, body) and IF (then, else) have two bodies: double-click or Enter asks which to open. */
function BodyChooser({ node, links, onPick }: { node: GraphNode; links: SubgraphLink[]; onPick(graphId: string | null): void }) {
  const first = useRef<HTMLButtonElement>(null);
  useEffect(() => first.current?.focus(), []);
  return (
    <div
      className="body-chooser"
      role="dialog"
      aria-label={`Open a body of ${node.type} ${node.name}`}
      onKeyDown={(e) => {
        if (e.key === 'Escape') {
          e.stopPropagation();
          onPick(null);
        }
      }}
    >
      <div className="body-chooser-title">
        Open a body of <b>{node.type}</b> <span className="muted">{node.name}</span>
      </div>
      {links.map((l, k) => (
        <button key={l.graphId + l.role} ref={k === 0 ? first : undefined} type="button" onClick={() => onPick(l.graphId)}>
          <b>{l.role}</b> <span className="muted">{l.title}</span>
        </button>
      ))}
      <button type="button" className="body-chooser-cancel" onClick={() => onPick(null)}>
        Cancel
      </button>
    </div>
  );
}

/**
 * While the first graph of a pane is laid out: the canvas it will be drawn on is made and its
 * pixels allocated now (graph/canvas-pool.ts), in a task of its own, not in the first frame's,
 * then shown blank in this element for two frames (its compositor buffers). Covers the graph
 * host exactly, as the GraphView will.
 */
function CanvasWarmer() {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const t = setTimeout(() => {
      if (ref.current) warmCanvasFor(ref.current);
    }, 0);
    return () => clearTimeout(t);
  }, []);
  return <div ref={ref} aria-hidden="true" style={WARMER_STYLE} />;
}
// not `visibility: hidden`: the warmed canvas is shown in it (blank) so that its compositor buffers are made (canvas-pool.ts)
const WARMER_STYLE: CSSProperties = { position: 'absolute', left: 0, top: 0, width: '100%', height: '100%', pointerEvents: 'none' };

/**
 * Where the graph of the next file opened will be drawn, before its tab exists: the graph pane's
 * shape (its grid cell, its toolbar line, its graph host) laid out transparent over the
 * workspace, with a CanvasWarmer in the host. App shows it at the empty studio's first idle
 * moment and while a file is opened. The canvas's allocation and its two blank presents
 * (graph/canvas-pool.ts) then run while nothing else does, each a task of its own: inside an
 * open (seconds at 100,000 operators) the model and layout workers and V8's compilers hold both
 * cores of a small machine, and there these 15-30 ms of work took 50-90 ms of wall time.
 * `columns`: the workspace grid the opened document will have (App's workspaceColumns). The
 * view that mounts next takes the canvas when its size matches; if the file shows no graph, or
 * its pane has another size (the window changed, a toolbar on two lines), the canvas waits as a
 * spare and the pane warms its own as before. Costs the canvas's pixels and two compositor
 * buffers of its size while the studio is empty (about 10 MB at 1000x800).
 */
export function NextPaneWarmer({ side, columns }: { side: 'left' | 'right' | 'hidden'; columns: CSSProperties | undefined }) {
  return (
    <div className={`workspace panel-${side} next-pane-warmer`} aria-hidden="true" style={{ ...columns, ...GHOST_STYLE }}>
      <section className="graph-pane" style={GHOST_PANE_STYLE}>
        <div className="pane-toolbar" style={GHOST_TOOLBAR_STYLE}>
          <button type="button" tabIndex={-1}>
            &nbsp;
          </button>
        </div>
        <div className="graph-host">
          <CanvasWarmer />
        </div>
      </section>
    </div>
  );
}
// laid out as the workspace (same grid) but over it, transparent and never in the way of the pointer
const GHOST_STYLE: CSSProperties = { position: 'absolute', inset: 0, pointerEvents: 'none', background: 'transparent' };
const GHOST_PANE_STYLE: CSSProperties = { borderColor: 'transparent', background: 'transparent' };
// `visibility: hidden` only on the toolbar: the host and its canvas must be shown for the compositor to make the canvas's buffers
const GHOST_TOOLBAR_STYLE: CSSProperties = { visibility: 'hidden' };

/** Shown only after 0.5 s of work, with a Cancel that stops the layout at once. */
function Progress({ startedAt, phase, fraction }: { startedAt: number; phase: string; fraction: number }) {
  const [visible, setVisible] = useState(performance.now() - startedAt > 500);
  useEffect(() => {
    if (visible) return;
    const t = setTimeout(() => setVisible(true), Math.max(0, 500 - (performance.now() - startedAt)));
    return () => clearTimeout(t);
  }, [startedAt, visible]);
  if (!visible) return null;
  return (
    <div className="progress" role="progressbar" aria-label={`Working: ${phase}`} aria-valuemin={0} aria-valuemax={100} aria-valuenow={Math.round(fraction * 100)}>
      <div>{phase}…</div>
      <div className="progress-track">
        <div className="progress-fill" style={{ width: `${Math.round(fraction * 100)}%` }} />
      </div>
      <button type="button" onClick={() => cancelLayout()}>
        Cancel
      </button>
    </div>
  );
}
