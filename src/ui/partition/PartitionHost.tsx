/**
 * The partition editor's eager face inside the graph pane (small; the editor itself is a lazy
 * chunk): the toolbar button, graph colouring, the lazy dock, and the click-to-assign picker.
 */
import { lazy, Suspense, useEffect, useMemo } from 'react';
import type { Doc } from '../store';
import { backendStyles, colourNodes } from './colors';
import { assign, openPartition, run, usePartition } from './state';
import './host.css';
import { can, mainGraphId } from '../capabilities';

const PartitionDock = lazy(() => import('./PartitionDock'));

const PART_FILE = /\.part$/i;

/** Opens the editor when a `.part` came with the model; re-partitions after a worker restart. */
export function usePartitionLifecycle(doc: Doc | null) {
  const open = usePartition((s) => (doc ? !!s.tabs[doc.id] : false));
  const hasSidecar = !!doc && can(doc.summary, 'partition') && doc.files.slice(1).some((f) => PART_FILE.test(f.name));
  const id = doc?.id;
  useEffect(() => {
    if (id && hasSidecar && !open) void openPartition(id);
    // only on first sight of the tab: closing the dock must stick
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [id, hasSidecar]);
  const workerDocId = doc?.workerDocId;
  useEffect(() => {
    if (id && open) void run(id);
    // a restarted worker has new document ids: partition again with the text we kept
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [workerDocId]);
}

declare global {
  interface Window {
    __npuPartitionColours?: { fill: (string | null)[]; outline: (string | null)[] };
  }
}

export interface PartitionColouring {
  nodeFill?: (string | null)[];
  nodeOutline?: (string | null)[];
  highlighted?: Uint8Array;
  /** what the highlight outlines (for its legend), when there is one */
  highlightLegend?: string;
}

/** Fills per backend, outlines per part, highlights for the selected part or the key at the cursor. */
export function usePartitionColouring(doc: Doc | null, theme: 'light' | 'dark'): PartitionColouring {
  // narrow selectors: typing changes the tab's text, which must not re-render the graph
  const plan = usePartition((s) => (doc ? (s.tabs[doc.id]?.plan ?? null) : null));
  const selectedPart = usePartition((s) => (doc ? (s.tabs[doc.id]?.selectedPart ?? null) : null));
  const cursorKey = usePartition((s) => (doc ? (s.tabs[doc.id]?.cursorKey ?? null) : null));
  const vocab = usePartition((s) => (doc ? s.vocab[doc.workerDocId] : undefined));
  const graph = doc?.view && doc.view.graphId === mainGraphId(doc.summary) ? doc.view.graph : null;
  const colouring = useMemo(() => {
    if (!plan || !graph) return null;
    const c = colourNodes(graph.nodes, plan.operatorBackend, plan.operatorPart, backendStyles(plan.backends, theme), theme);
    // for tests and benches: the fills the graph is drawn with
    window.__npuPartitionColours = { fill: c.fill, outline: c.outline };
    return c;
  }, [plan, graph, theme]);
  const highlighted = useMemo(() => {
    if (!graph || !colouring) return undefined;
    const n = graph.nodes.length;
    if (selectedPart !== null) {
      const h = new Uint8Array(n);
      for (let i = 0; i < n; i++) if (colouring.part[i] === selectedPart) h[i] = 1;
      return h;
    }
    if (cursorKey && cursorKey.key !== '_') {
      const h = new Uint8Array(n);
      let any = false;
      for (let i = 0; i < n; i++) {
        const node = graph.nodes[i]!;
        if (node.kind !== 'op') continue;
        const hit = cursorKey.section === 'OPNAME' ? node.name === cursorKey.key : vocab?.operatorOpcodes[node.index] === cursorKey.key;
        if (hit) (h[i] = 1), (any = true);
      }
      return any ? h : undefined;
    }
    return undefined;
  }, [graph, colouring, selectedPart, cursorKey, vocab]);
  if (!colouring) return {};
  let count = 0;
  if (highlighted) for (let i = 0; i < highlighted.length; i++) count += highlighted[i]!;
  const ops = `${count} operator${count === 1 ? '' : 's'}`;
  const highlightLegend = !highlighted
    ? undefined
    : selectedPart !== null
      ? `${ops} of the selected part`
      : cursorKey
        ? `${ops} captured by the current line ([${cursorKey.section}] ${cursorKey.key})`
        : undefined;
  return { nodeFill: colouring.fill, nodeOutline: colouring.outline, ...(highlighted ? { highlighted } : {}), ...(highlightLegend ? { highlightLegend } : {}) };
}

export function PartitionButton({ doc }: { doc: Doc }) {
  const open = usePartition((s) => !!s.tabs[doc.id]);
  if (!can(doc.summary, 'partition')) return null;
  if (open) return null;
  return (
    <button type="button" onClick={() => void openPartition(doc.id)} title="Edit a .part file: colour the graph by backend and see the parts circle-partitioner would write">
      New partition
    </button>
  );
}

export function PartitionDockHost({ doc, theme }: { doc: Doc; theme: 'light' | 'dark' }) {
  const open = usePartition((s) => !!s.tabs[doc.id]);
  if (!open) return null;
  return (
    <Suspense fallback={<div className="part-dock part-dock-loading" aria-busy="true">Loading the editor…</div>}>
      <PartitionDock doc={doc} theme={theme} />
    </Suspense>
  );
}

/** With a node selected: which backend and part it lands in, and buttons to move it. */
export function AssignBar({ doc }: { doc: Doc }) {
  const plan = usePartition((s) => s.tabs[doc.id]?.plan ?? null);
  const vocab = usePartition((s) => s.vocab[doc.workerDocId]);
  const graph = doc.view && doc.view.graphId === mainGraphId(doc.summary) ? doc.view.graph : null;
  const node = doc.selected !== null ? graph?.nodes[doc.selected] : undefined;
  if (!plan || !node || node.kind !== 'op') return null;
  const backend = plan.backends[plan.operatorBackend[node.index] ?? -1];
  const part = plan.fileNames[plan.operatorPart[node.index] ?? -1];
  const opcode = vocab?.operatorOpcodes[node.index];
  const opcodeCount = opcode ? (vocab?.opcodes.find((o) => o.name === opcode)?.count ?? 0) : 0;
  const byName = plan.comply === 'opname';
  return (
    <div className="assign-bar" role="group" aria-label="Assign the selected node">
      <div className="assign-what">
        <b>{node.type}</b> <span className="mono">{node.name}</span>
        <span className="muted"> → {backend ?? '?'}{part ? ` · ${part}` : ''}</span>
      </div>
      <div className="assign-row">
        <span className="muted assign-label" title={byName ? '' : '[OPNAME] lines take effect with comply=opname'}>
          this node{byName ? '' : ' *'}
        </span>
        {plan.backends.map((b) => (
          <button key={b} type="button" aria-pressed={b === backend} onClick={() => void assign(doc.id, 'OPNAME', node.name, b)}>
            {b}
          </button>
        ))}
      </div>
      {opcode && (
        <div className="assign-row">
          <span className="muted assign-label">all {opcodeCount} {opcode}</span>
          {plan.backends.map((b) => (
            <button key={b} type="button" onClick={() => void assign(doc.id, 'OPCODE', opcode, b)} title={`[OPCODE] ${opcode}=${b}`}>
              {b}
            </button>
          ))}
        </div>
      )}
      {!byName && (
        <div className="assign-note muted">
          * comply=opcode: [OPNAME] lines wait for{' '}
          <button type="button" className="link" onClick={() => void assign(doc.id, 'partition', 'comply', 'opname')}>comply=opname</button>
        </div>
      )}
    </div>
  );
}
