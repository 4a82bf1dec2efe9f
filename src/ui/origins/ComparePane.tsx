/**
 * The compare view of a tab after Optimize: the original graph (subgraph 0) and the optimized one
 * side by side, each with its own layout, and the pass log. Navigation is synchronised like Model
 * Explorer's sync mapping, fed by origins (many-to-many): selecting a node selects it and
 * highlights (pink) and centres its related nodes in the other pane; hovering highlights the
 * related nodes of the other pane, both directions.
 */
import { useEffect, useMemo, useRef } from 'react';
import { activeDoc, useStudio } from '../store';
import { GraphView, type GraphViewHandle } from '../graph/GraphView';
import { centerRelated, closeCompare, downloadOptimized, hoverInCompare, selectInCompare } from './actions';
import { OptimizeMenu } from './OptimizeMenu';
import { maskOf, registerCompareView, useOrigins, type CompareState, type ComparePaneState, type Side } from './state';
import { SIDE_TITLE } from '../panels/subject';
import './origins.css';

function opCount(p: ComparePaneState | null): number {
  return p ? p.graph.nodes.reduce((n, x) => n + (x.kind === 'op' ? 1 : 0), 0) : 0;
}

/** nodes of `side` related to the other side's hovered (else selected) node */
function relatedIn(c: CompareState, side: Side): number[] | null {
  const r = c.result;
  if (!r) return null;
  const from = c.hover && c.hover.side !== side ? c.hover : c.selected && c.selected.side !== side ? c.selected : null;
  if (!from) return null;
  const map = from.side === 'left' ? r.sourceToOptimized : r.optimizedToSource;
  return map[from.index] ?? [];
}

export function ComparePane({ theme }: { theme: 'light' | 'dark' }) {
  const doc = useStudio(activeDoc);
  const c = useOrigins((s) => (doc ? s.compare[doc.id] : undefined));
  const leftRef = useRef<GraphViewHandle>(null);
  const rightRef = useRef<GraphViewHandle>(null);
  useEffect(() => {
    const offLeft = registerCompareView('left', () => leftRef.current);
    const offRight = registerCompareView('right', () => rightRef.current);
    return () => {
      offLeft();
      offRight();
    };
  }, []);
  if (!doc || !c) return null;
  const tabId = doc.id;

  const select = (side: Side, index: number | null) => {
    selectInCompare(tabId, side, index);
    if (index !== null) centerRelated(tabId, side, index);
  };

  const passes = c.passes.join(', ');
  const changed = c.result ? c.result.log.reduce((n, l) => n + l.changed, 0) : 0;
  return (
    <section className="compare" aria-label="Compare original and optimized">
      <div className="pane-toolbar">
        <button type="button" onClick={() => closeCompare(tabId)} title="Back to the single graph view">
          ← Single view
        </button>
        <OptimizeMenu />
        <button type="button" disabled={!c.result} onClick={() => downloadOptimized(tabId)} title="The optimized model with ONE_source_table and ONE_op_table">
          Download .circle
        </button>
        <span className="muted pane-hint ellipsis" title={passes}>
          {c.running ? 'optimizing in the worker…' : c.result ? `${changed} rewrite${changed === 1 ? '' : 's'} · ${c.result.ms.toFixed(0)} ms · select or hover a node to see its related nodes` : c.error ?? ''}
        </span>
      </div>
      <div className="compare-panes">
        <Pane
          ref_={leftRef}
          tabId={tabId}
          side="left"
          title={SIDE_TITLE.left}
          subtitle={doc.title}
          state={c}
          pane={c.left}
          theme={theme}
          onSelect={(i) => select('left', i)}
          onHover={(i) => hoverInCompare(tabId, 'left', i)}
        />
        <Pane
          ref_={rightRef}
          tabId={tabId}
          side="right"
          title={SIDE_TITLE.right}
          subtitle={c.result?.name ?? ''}
          state={c}
          pane={c.right}
          theme={theme}
          onSelect={(i) => select('right', i)}
          onHover={(i) => hoverInCompare(tabId, 'right', i)}
        />
      </div>
      <PassLog c={c} />
    </section>
  );
}

interface PaneProps {
  ref_: React.RefObject<GraphViewHandle | null>;
  tabId: string;
  side: Side;
  title: string;
  subtitle: string;
  state: CompareState;
  pane: ComparePaneState | null;
  theme: 'light' | 'dark';
  onSelect(index: number | null): void;
  onHover(index: number | null): void;
}

function Pane({ ref_, tabId, side, title, subtitle, state, pane, theme, onSelect, onHover }: PaneProps) {
  const related = relatedIn(state, side);
  const count = pane?.graph.nodes.length ?? 0;
  // the side panel describes the pane last used (see panels/subject.ts)
  const focused = state.focus === side && (side === 'left' || !!state.result);
  // a source row hovered in the Origins tab lights up its operators in the pane the tab describes
  const sourceNodes = useOrigins((s) => {
    if (!focused || s.hoverSource === null) return null;
    const view = s.origins[side === 'left' ? tabId : `${tabId}:optimized`]?.view;
    return view && view.graphId === state.result?.graphId ? (view.sources.find((x) => x.id === s.hoverSource)?.nodes ?? null) : null;
  });
  const highlighted = useMemo(() => maskOf(count, sourceNodes ? [...(related ?? []), ...sourceNodes] : related), [count, related, sourceNodes]);
  const selected = state.selected?.side === side ? state.selected.index : null;
  const ops = opCount(pane);
  const n = related?.length ?? 0;
  return (
    <section className={`compare-pane${focused ? ' focused' : ''}`} aria-label={`${title} graph`} data-related-count={n} data-highlighted-count={highlighted ? highlighted.reduce((a, v) => a + v, 0) : 0} data-operators={ops} data-focused={focused}>
      <div className="compare-head" title={focused ? 'The side panel shows this model' : undefined}>
        <span className="title">{title}</span>
        <span className="muted ellipsis" title={subtitle}>
          {subtitle}
        </span>
        {pane && <span className="muted">{ops} ops</span>}
        {related && (
          <span className="related" aria-live="polite">
            {n} related node{n === 1 ? '' : 's'}
          </span>
        )}
      </div>
      <div className="compare-host">
        {pane ? (
          <GraphView
            ref={ref_}
            graph={pane.graph}
            layout={pane.layout}
            theme={theme}
            selected={selected}
            highlighted={highlighted}
            onSelect={onSelect}
            onHover={onHover}
            label={`${title} graph`}
          />
        ) : (
          <div className="compare-empty">{state.error ? state.error : state.running ? 'Working…' : ''}</div>
        )}
      </div>
    </section>
  );
}

function PassLog({ c }: { c: CompareState }) {
  const r = c.result;
  if (!r) return null;
  const removed = r.removed;
  return (
    <details className="compare-log" open>
      <summary>
        Pass log · {r.log.length} pass{r.log.length === 1 ? '' : 'es'} · removed {removed.tensors} tensors, {removed.buffers} buffers, {removed.opcodes} op codes
      </summary>
      <ol aria-label="Pass log">
        {r.log.map((l) => (
          <li key={l.pass} className={l.changed ? '' : 'zero'}>
            <span className="pass">{l.pass}</span>: {l.changed} change{l.changed === 1 ? '' : 's'}
            {l.details.length > 0 && (
              <ul className="details">
                {l.details.slice(0, 50).map((d, i) => (
                  <li key={i}>{d}</li>
                ))}
                {l.details.length > 50 && <li>… {l.details.length - 50} more</li>}
              </ul>
            )}
          </li>
        ))}
      </ol>
    </details>
  );
}
