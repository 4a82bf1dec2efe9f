/**
 * The compile view's pure helpers (no DOM, no React): which nodes of a pane relate to a selection
 * in another (through origin ids), what a pass changed as node outlines, the engine graph's edge
 * kinds as strokes, the memory plan's rectangles, and the two-way map between Caffe layers and
 * the loadable's op slots.
 */
import type { Graph } from '../../core/graph/model';
import type { CompileSummary, MemoryPlan, OriginsSidecar, PassStep, StageTables } from '../../worker/api';
import type { EdgeClassStyle, EdgeStyle } from '../graph/style';
import type { Theme } from '../graph/palette';

export type PaneName = 'caffe' | 'canonical' | 'engine';

/** Node indices of `origins` (per node) that share an id with `ids`. */
export function nodesWithOrigins(origins: readonly (readonly number[])[], ids: readonly number[]): number[] {
  if (!ids.length) return [];
  const want = new Set(ids);
  const out: number[] = [];
  origins.forEach((o, i) => {
    if (o.some((x) => want.has(x))) out.push(i);
  });
  return out;
}

/** The stage tables the view has so far, by graph id (those that came with the summary, then those asked for). */
export type StageTableSet = Readonly<Record<string, StageTables>>;

/** The origin ids of each pane's nodes, for the engine graph on screen (`engineGraphId`; empty while its tables are not in). */
export function paneOrigins(summary: Pick<CompileSummary, 'caffeOrigins'>, tables: StageTableSet, pane: PaneName, engineGraphId: string): number[][] {
  if (pane === 'caffe') return summary.caffeOrigins;
  return tables[pane === 'canonical' ? 'canonical' : engineGraphId]?.origins ?? [];
}

/** For each pane: the nodes related to the selected node of another pane (null: no selection there). */
export function relatedNodes(summary: Pick<CompileSummary, 'caffeOrigins'>, tables: StageTableSet, engineGraphId: string, selected: { pane: PaneName; index: number } | null): Record<PaneName, number[] | null> {
  const out: Record<PaneName, number[] | null> = { caffe: null, canonical: null, engine: null };
  if (!selected) return out;
  const ids = paneOrigins(summary, tables, selected.pane, engineGraphId)[selected.index] ?? [];
  for (const p of ['caffe', 'canonical', 'engine'] as const) if (p !== selected.pane) out[p] = nodesWithOrigins(paneOrigins(summary, tables, p, engineGraphId), ids);
  return out;
}

/** The Caffe layer names of origin ids. */
export function layerNames(summary: Pick<CompileSummary, 'sources'>, ids: readonly number[]): string[] {
  const names = new Map(summary.sources.map((s) => [s.id, s.name]));
  return ids.map((id) => names.get(id) ?? `layer ${id}`);
}

export interface StepColours {
  added: string;
  changed: string;
  unioned: string;
}

export function stepColours(theme: Theme): StepColours {
  return theme === 'dark' ? { added: '#2fb58c', changed: '#e8b02f', unioned: '#cc79a7' } : { added: '#007a5a', changed: '#b37400', unioned: '#8f2f73' };
}

/** Outlines of the engine graph after a step: inserted nodes, changed ones, fused ones (origins unioned). */
export function stepOutlines(graph: Graph, step: PassStep | null, colours: StepColours): (string | null)[] | undefined {
  if (!step || step.name === 'generateGraph') return undefined;
  const added = new Set(step.added.map((x) => x.id));
  const changed = new Set(step.changed.map((x) => x.id));
  const unioned = new Set(step.unioned.map((x) => x.id));
  if (!added.size && !changed.size && !unioned.size) return undefined;
  return graph.nodes.map((n) => (unioned.has(n.id) ? colours.unioned : added.has(n.id) ? colours.added : changed.has(n.id) ? colours.changed : null));
}

/** Engine edges by kind: data solid, auxiliary (weights, bias, LUT data) dashed, compute dotted, hazard dash-dot. */
export function engineEdgeStyle(kinds: readonly string[], theme: Theme): EdgeStyle {
  const dark = theme === 'dark';
  const classes: EdgeClassStyle[] = [
    { name: 'data', color: dark ? '#9aa4b1' : '#5b6470', dash: [], width: 1.3 },
    { name: 'aux', color: dark ? '#cc79a7' : '#8f2f73', dash: [5, 3] },
    { name: 'compute', color: dark ? '#e8852f' : '#b34700', dash: [2, 3], width: 1.5 },
    { name: 'hazard', color: dark ? '#d4b12a' : '#8a6d00', dash: [8, 3, 2, 3] },
  ];
  const index = new Map(classes.map((c, i) => [c.name, i]));
  const edgeClass = new Uint8Array(kinds.length);
  kinds.forEach((k, i) => {
    edgeClass[i] = index.get(k) ?? 0;
  });
  return { classes, edgeClass };
}

// ---- memory plan ------------------------------------------------------------------------------

export interface PlanRect {
  buffer: string;
  x: number;
  y: number;
  w: number;
  h: number;
  content: boolean;
  layers: string[];
  users: string[];
  first: number;
  last: number;
  offset: number;
  size: number;
}

/**
 * One pool's buffers as rectangles in a `width` x `height` box: x is the op slot (first to last
 * use, inclusive), y the offset in the pool (0 at the top) up to the pool's high-water mark.
 */
export function planRects(plan: MemoryPlan, pool: string, width: number, height: number): PlanRect[] {
  const p = plan.pools.find((x) => x.name === pool);
  if (!p) return [];
  const ops = Math.max(1, plan.ops.length);
  const top = Math.max(1, p.used, ...p.buffers.map((b) => b.offset + b.size));
  return p.buffers.map((b) => ({
    buffer: b.buffer,
    x: (b.first / ops) * width,
    w: Math.max(1, ((b.last - b.first + 1) / ops) * width),
    y: (b.offset / top) * height,
    h: Math.max(1, (b.size / top) * height),
    content: b.content,
    layers: b.layers,
    users: b.users,
    first: b.first,
    last: b.last,
    offset: b.offset,
    size: b.size,
  }));
}

// ---- loadable slots <-> Caffe layers ----------------------------------------------------------

export interface SlotLayers {
  /** `task:slot` -> origin ids */
  bySlot: Map<string, number[]>;
  /** origin id -> `task:slot` keys */
  byLayer: Map<number, string[]>;
}

export function slotLayers(o: OriginsSidecar | null): SlotLayers {
  const bySlot = new Map<string, number[]>();
  const byLayer = new Map<number, string[]>();
  for (const t of o?.tasks ?? []) {
    for (const op of t.ops) {
      const key = `${t.id}:${op.slot}`;
      const had = bySlot.get(key) ?? [];
      bySlot.set(key, [...new Set([...had, ...op.origins])]);
      for (const id of op.origins) {
        const list = byLayer.get(id) ?? [];
        if (!list.includes(key)) list.push(key);
        byLayer.set(id, list);
      }
    }
  }
  return { bySlot, byLayer };
}

/** Human text of an option value for the reference's quirks (`''` quantization is nvdla_compiler's none). */
export function optionText(name: string, value: string | number): string {
  if (name === 'quantizationMode' && value === '') return 'none (per-kernel)';
  if (name === 'batch' && value === 0) return '0 (from the prototxt)';
  if (name === 'postExtWeights' && value === 'csc') return 'csc (as the hardware reads them)';
  if (name === 'postExtWeights' && value === 'nvdla_compiler') return "nvdla_compiler (its bytes, wrong rows)";
  return String(value);
}

/** `<profile>.origins.json` name beside `<profile>.nvdla`. */
export function originsFileName(loadableName: string): string {
  return loadableName.replace(/\.nvdla$/i, '') + '.origins.json';
}
