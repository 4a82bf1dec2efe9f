import type { GraphEditor } from './editor';

/**
 * One optimizer pass: `apply` finds one place where its pattern occurs in the graph, rewrites it
 * (keeping origins by the rule it states) and returns a line saying what it did, or null when
 * the pattern no longer occurs. The pipeline calls it until it returns null (a fixed point).
 */
export interface Pass {
  name: string;
  /** which origin rule the rewrite applies (origins.md section 5) */
  originRule: 'absorb' | 'fuse' | 'absorb into neighbours';
  description: string;
  apply(graph: GraphEditor): string | null;
}
