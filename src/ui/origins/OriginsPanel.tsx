/**
 * The Origins tab of the side panel: where every operator of the graph on screen came from.
 * The selected operator's origins first, then every operator with its origin ids and names, then
 * the source table (sortable, searchable). Hovering an operator in the graph highlights the
 * source rows of its origins; hovering a source row highlights the operators carrying it.
 * Names come from the file: they are shown as text only.
 */
import { useEffect, useMemo, useState } from 'react';
import { describeError } from '../../core/errors';
import type { Doc } from '../store';
import type { Graph, OriginsView } from '../../worker/api';
import type { PanelSubject } from '../panels/subject';
import { loadOrigins, revealNode } from './actions';
import { useOrigins } from './state';
import { ROW_HEIGHT, VirtualRows } from './VirtualRows';
import './origins.css';
import { can, mainGraphId } from '../capabilities';

type SortKey = 'id' | 'name' | 'used';

/** Origins of the panel's model: the single view's graph, or the compare pane last used (the optimized model carries its own tables). */
export function OriginsPanel({ subject }: { subject: PanelSubject }) {
  const entry = useOrigins((s) => s.origins[subject.key]);
  const hasOrigins = can(subject.summary, 'origins');
  useEffect(() => {
    // loadOrigins returns at once when the slot already holds this model's graph
    if (hasOrigins) void loadOrigins(subject);
  }, [hasOrigins, subject]);
  if (!hasOrigins) return <p className="muted">This model carries no origins.</p>;
  if (entry?.error) return <p role="alert" className="alert alert-error">{entry.error}</p>;
  const view = entry?.view;
  if (!view || entry.key !== `${subject.workerDocId}:${subject.graphId}`) return <p className="muted">Loading origins…</p>;
  return <OriginsBody subject={subject} view={view} />;
}

function OriginsBody({ subject, view }: { subject: PanelSubject; view: OriginsView }) {
  const graph = subject.graph;
  const names = useMemo(() => new Map(view.sources.map((s) => [s.id, s.name] as const)), [view]);
  const opNodes = useMemo(() => (graph ? graph.nodes.map((n, i) => (n.kind === 'op' ? i : -1)).filter((i) => i >= 0) : []), [graph]);
  const selected = subject.selected !== null && graph?.nodes[subject.selected]?.kind === 'op' ? subject.selected : null;
  const usedIds = view.sources.reduce((n, s) => n + (s.nodes.length ? 1 : 0), 0);
  return (
    <div className="origins-panel">
      <h2>
        Origins{' '}
        {view.kind === 'synthesised' ? (
          <span className="badge badge-synth" title="The model has no ONE_source_table / ONE_op_table: origins are made as luci's importer does (operator index as id, output tensor name as name)">
            synthesised
          </span>
        ) : (
          <span className="badge badge-file" title="Read from the model's ONE_source_table and ONE_op_table">
            from origin tables
          </span>
        )}
      </h2>
      <p className="muted origins-summary">
        {opNodes.length} operators · {view.sources.length} source ids ({usedIds} in use){view.graphId !== mainGraphId(subject.summary) ? ' · origin tables describe the main graph only' : ''}
      </p>
      {view.diagnostics.length > 0 && (
        <ul className="origins-diags" aria-label="Origin table warnings">
          {view.diagnostics.map((d, i) => (
            <li key={i} role="alert" className={`alert ${d.severity === 'info' ? 'alert-info' : 'alert-warning'}`}>
              {d.source ? <b>{d.source}</b> : null} {describeError(d)}
            </li>
          ))}
        </ul>
      )}
      <h3>Selected operator</h3>
      {selected === null || !graph ? (
        <p className="muted">Select an operator in the graph to see its origins here.</p>
      ) : (
        <div className="origins-selected" aria-label="Selected operator origins">
          <div>
            <b>{graph.nodes[selected]!.type}</b> <span className="muted">{graph.nodes[selected]!.name}</span>
          </div>
          <ul>
            {(view.nodeIds[selected] ?? []).map((id) => (
              <li key={id}>
                <code>{id}</code> {names.get(id) ?? `#${id}`}
              </li>
            ))}
            {(view.nodeIds[selected] ?? []).length === 0 && <li className="muted">no origin (constant or not recorded)</li>}
          </ul>
        </div>
      )}
      <h3>Operators</h3>
      {graph ? <OperatorTable subject={subject} graph={graph} view={view} names={names} opNodes={opNodes} /> : <p className="muted">Waiting for the graph…</p>}
      <h3>Source table</h3>
      <SourceTable subject={subject} view={view} />
    </div>
  );
}

function originsText(ids: readonly number[], names: Map<number, string>): string {
  if (!ids.length) return '—';
  const shown = ids.slice(0, 6).map((id) => `${id} ${names.get(id) ?? `#${id}`}`);
  return ids.length > 6 ? `${shown.join(', ')}, … +${ids.length - 6}` : shown.join(', ');
}

function OperatorTable({ subject, graph, view, names, opNodes }: { subject: PanelSubject; graph: Graph; view: OriginsView; names: Map<number, string>; opNodes: number[] }) {
  const hoverNode = useOrigins((s) => s.hoverNode);
  const hoverSource = useOrigins((s) => s.hoverSource);
  const rowOf = useMemo(() => {
    const m = new Map<number, number>();
    opNodes.forEach((n, r) => m.set(n, r));
    return m;
  }, [opNodes]);
  const focusNode = hoverNode ?? subject.selected;
  const reveal = focusNode !== null ? (rowOf.get(focusNode) ?? null) : null;
  return (
    <VirtualRows
      label="Operator origins"
      count={opNodes.length}
      height={ROW_HEIGHT * 8}
      reveal={reveal}
      header={
        <div role="row" className="vt-row ops-row">
          <span role="columnheader">#</span>
          <span role="columnheader">operator</span>
          <span role="columnheader">origins</span>
        </div>
      }
      row={(r) => {
        const n = opNodes[r]!;
        const node = graph.nodes[n]!;
        const ids = view.nodeIds[n] ?? [];
        const hot = n === hoverNode || (hoverSource !== null && ids.includes(hoverSource));
        return (
          <div
            key={n}
            role="row"
            className={`vt-row ops-row${n === subject.selected ? ' sel' : ''}${hot ? ' hl' : ''}`}
            onClick={() => revealNode(subject, n)}
            onMouseEnter={() => useOrigins.setState({ hoverNode: n })}
            onMouseLeave={() => useOrigins.setState({ hoverNode: null })}
          >
            <span role="cell" className="num">{node.index}</span>
            <span role="cell" className="ellipsis" title={`${node.type} ${node.name}`}>
              <b>{node.type}</b> {node.name}
            </span>
            <span role="cell" className="ellipsis" title={originsText(ids, names)}>
              {originsText(ids, names)}
            </span>
          </div>
        );
      }}
    />
  );
}

function SourceTable({ subject, view }: { subject: PanelSubject; view: OriginsView }) {
  const [query, setQuery] = useState('');
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'id', desc: false });
  const hoverNode = useOrigins((s) => s.hoverNode);
  const hoverSource = useOrigins((s) => s.hoverSource);
  const rows = useMemo(() => {
    const q = query.trim().toLowerCase();
    const list = q ? view.sources.filter((s) => String(s.id) === q || s.name.toLowerCase().includes(q)) : view.sources.slice();
    const dir = sort.desc ? -1 : 1;
    if (sort.key === 'name') list.sort((a, b) => dir * (a.name < b.name ? -1 : a.name > b.name ? 1 : a.id - b.id));
    else if (sort.key === 'used') list.sort((a, b) => dir * (a.nodes.length - b.nodes.length || a.id - b.id));
    else if (sort.desc) list.reverse();
    return list;
  }, [view, query, sort]);
  const rowOfId = useMemo(() => new Map(rows.map((s, r) => [s.id, r] as const)), [rows]);
  // ids of the hovered operator: their rows light up, the first is scrolled into view
  const hotIds = useMemo(() => new Set(hoverNode !== null ? (view.nodeIds[hoverNode] ?? []) : []), [hoverNode, view]);
  let reveal: number | null = null;
  for (const id of hotIds) {
    const r = rowOfId.get(id);
    if (r !== undefined && (reveal === null || r < reveal)) reveal = r;
  }
  const header = (key: SortKey, text: string) => (
    <button
      type="button"
      role="columnheader"
      aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : 'none'}
      className="sort"
      onClick={() => setSort((s) => ({ key, desc: s.key === key ? !s.desc : false }))}
    >
      {text}
      {sort.key === key ? (sort.desc ? ' ▾' : ' ▴') : ''}
    </button>
  );
  return (
    <div className="source-table">
      <input
        type="search"
        aria-label="Search source table"
        placeholder="Search id or name"
        value={query}
        onChange={(e) => setQuery(e.currentTarget.value)}
      />
      <span className="muted source-count" aria-live="polite">
        {rows.length === view.sources.length ? `${rows.length} sources` : `${rows.length} of ${view.sources.length} sources`}
        {hotIds.size > 0 ? ` · ${hotIds.size} origin${hotIds.size === 1 ? '' : 's'} of the hovered operator` : ''}
      </span>
      <VirtualRows
        label="Source table"
        count={rows.length}
        height={ROW_HEIGHT * 12}
        reveal={reveal}
        header={
          <div role="row" className="vt-row src-row">
            {header('id', 'id')}
            {header('name', 'name')}
            {header('used', 'used by')}
          </div>
        }
        row={(r) => {
          const s = rows[r]!;
          const hot = hotIds.has(s.id) || s.id === hoverSource;
          return (
            <div
              key={s.id}
              role="row"
              data-source-id={s.id}
              className={`vt-row src-row${hot ? ' hl' : ''}${s.nodes.length === 0 ? ' unused' : ''}`}
              onMouseEnter={() => useOrigins.setState({ hoverSource: s.id })}
              onMouseLeave={() => useOrigins.setState({ hoverSource: null })}
              onClick={() => s.nodes[0] !== undefined && revealNode(subject, s.nodes[0])}
              title={s.nodes.length ? `click: select the first of ${s.nodes.length} operator(s)` : 'no operator of this graph carries this id'}
            >
              <span role="cell" className="num">{s.id}</span>
              <span role="cell" className="ellipsis">{s.name}</span>
              <span role="cell" className="num">{s.nodes.length === 1 ? '1 op' : `${s.nodes.length} ops`}</span>
            </div>
          );
        }}
      />
    </div>
  );
}

/** GraphPane glue: the highlight of the hovered source row, and operator hover reporting. */
export function useOriginsGraphProps(doc: Doc | null): { highlighted: Uint8Array | undefined; onHover(index: number | null): void } {
  const hoverSource = useOrigins((s) => s.hoverSource);
  const entry = useOrigins((s) => (doc ? s.origins[doc.id] : undefined));
  const count = doc?.view?.graph.nodes.length ?? 0;
  const highlighted = useMemo(() => {
    const view = entry?.view;
    if (hoverSource === null || !view || !doc || view.graphId !== doc.graphId) return undefined;
    const src = view.sources.find((s) => s.id === hoverSource);
    if (!src || src.nodes.length === 0) return undefined;
    const m = new Uint8Array(count);
    for (const n of src.nodes) if (n < count) m[n] = 1;
    return m;
  }, [hoverSource, entry, doc, count]);
  return { highlighted, onHover: onGraphHover };
}

function onGraphHover(index: number | null) {
  if (useOrigins.getState().hoverNode !== index) useOrigins.setState({ hoverNode: index });
}
