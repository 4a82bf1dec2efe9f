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

/** `1 op`, `2 ops`, `1,024 ops`: a count with its noun, singular for one. */
export function plural(n: number, noun: string, nouns = `${noun}s`): string {
  return `${grouped(n)} ${n === 1 ? noun : nouns}`;
}

/**
 * An integer with thousands separators, as toLocaleString('en-US') writes it. By hand because
 * the status bar calls this on every render while a big model opens, and the Intl path showed
 * 0.2 s of UI-thread self time in a 100,000-operator profile; and because the page's first Intl
 * call loads ICU, a UI-thread task of about 100 ms (it was the longest task of the first compile
 * result and of the first loadable opened, whose views format sizes and offsets).
 */
export function grouped(n: number): string {
  if (!Number.isSafeInteger(n)) return n.toLocaleString('en-US');
  const s = String(Math.abs(n));
  let out = '';
  for (let i = 0; i < s.length; i++) out += (i > 0 && (s.length - i) % 3 === 0 ? ',' : '') + s[i];
  return n < 0 ? `-${out}` : out;
}

/** `12 nodes · 14 edges` for the graph on screen, `3,402 marks · 2 runs` for a capture. */
export function countsText(summary: DocumentSummary, graphId: string): string {
  const c = summary.counts;
  if (c.kind === 'profile') return `${plural(c.marks, 'mark')} · ${plural(c.runs, 'run')}`;
  const stats = summary.graphs.find((g) => g.id === graphId)?.stats;
  return stats ? `${plural(stats.nodes, 'node')} · ${plural(stats.edges, 'edge')}` : `${plural(c.nodes, 'node')} · ${plural(c.edges, 'edge')}`;
}

/** The active document shows a graph (export and layout direction apply): not a capture, not a document without graphs. */
export function showsGraph(summary: Pick<DocumentSummary, 'capabilities'> | null | undefined): boolean {
  return !!summary && mainView(summary) === 'graph';
}

/** The document's main graph (what partitions, origins and the compare view are about), or ''. */
export function mainGraphId(summary: Pick<DocumentSummary, 'graphs'>): string {
  return summary.graphs[0]?.id ?? '';
}
