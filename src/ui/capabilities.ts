/**
 * Which views a document gets, from what it can do (`summary.capabilities`, derived in core from
 * the services its format offers). Views ask these, never the format's name, so a new format
 * lights up every view whose capability it has.
 */
import type { Capability, DocumentSummary } from '../worker/api';

export function can(summary: Pick<DocumentSummary, 'capabilities'> | null | undefined, capability: Capability): boolean {
  return !!summary && summary.capabilities.includes(capability);
}

/** The workspace a document opens in: a capture's tables and timeline, or its graphs. */
export function mainView(summary: Pick<DocumentSummary, 'capabilities'>): 'profile' | 'graph' | 'none' {
  if (can(summary, 'profile')) return 'profile';
  if (can(summary, 'graph')) return 'graph';
  return 'none';
}

/** `12 nodes · 14 edges` for the graph on screen, `3,402 marks · 2 runs` for a capture. */
export function countsText(summary: DocumentSummary, graphId: string): string {
  const c = summary.counts;
  if (c.kind === 'profile') return `${c.marks} marks · ${c.runs} runs`;
  const stats = summary.graphs.find((g) => g.id === graphId)?.stats;
  return stats ? `${stats.nodes} nodes · ${stats.edges} edges` : `${c.nodes} nodes · ${c.edges} edges`;
}

/** The document's main graph (what partitions, origins and the compare view are about), or ''. */
export function mainGraphId(summary: Pick<DocumentSummary, 'graphs'>): string {
  return summary.graphs[0]?.id ?? '';
}
