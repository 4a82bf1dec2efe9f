/**
 * `optimize(model, passes)`: runs the named passes in the order given, each to a fixed point over
 * every subgraph, in rounds until a whole round changes nothing; then removes dead tensors, buffers and op codes and writes the origin tables
 * (`ONE_source_table` copied through, `ONE_op_table` keyed by the new operator indices).
 * Origins start from the model's tables, or are synthesised as luci's importer does.
 */
import type { CircleModel } from '../circle/model';
import { attachOrigins, detachOrigins, originsOf, type Origins } from '../origin/origins';
import { removeDeadItems, type CleanupCounts } from './cleanup';
import { GraphEditor, workModel } from './editor';
import { PASS_NAMES, passByName } from './pipeline';

export interface PassLog {
  pass: string;
  /** number of rewrites the pass made (over all rounds) */
  changed: number;
  /** one line per rewrite (prefixed with the subgraph index when not 0) */
  details: string[];
}

export interface OptimizeResult {
  model: CircleModel;
  log: PassLog[];
  /** origins of subgraph 0 of the input and of the output (same source table) */
  originsBefore: Origins;
  origins: Origins;
  removed: CleanupCounts;
}

export interface OptimizeOptions {
  /** file name for diagnostics */
  file?: string;
  /** write no origin tables (ONE's origin-less output) */
  noOrigins?: boolean;
  /** safety cap of rewrites per pass and subgraph (default 100,000) */
  maxRewrites?: number;
}

export class UnknownPassError extends Error {
  constructor(readonly unknown: string[]) {
    super(`unknown pass${unknown.length > 1 ? 'es' : ''} ${unknown.join(', ')}; known passes: ${PASS_NAMES.join(', ')}`);
    this.name = 'UnknownPassError';
  }
}

export function optimize(model: CircleModel, passes: readonly string[], options: OptimizeOptions = {}): OptimizeResult {
  const unknown = passes.filter((p) => !passByName(p));
  if (unknown.length) throw new UnknownPassError(unknown);
  const originsBefore = originsOf(model, 0, options.file);
  const work = workModel(model, originsBefore.ops);
  const cap = options.maxRewrites ?? 100_000;
  const log: PassLog[] = passes.map((pass) => ({ pass, changed: 0, details: [] }));
  // Rounds over the passes in the given order, each pass to its own fixed point, until a whole
  // round changes nothing (a later pass can open a pattern for an earlier one).
  for (let round = 0; round < cap; round++) {
    let changed = 0;
    passes.forEach((name, k) => {
      const pass = passByName(name)!;
      const entry = log[k]!;
      for (let s = 0; s < work.model.subgraphs.length; s++) {
        const g = new GraphEditor(work, s);
        for (let n = 0; n < cap; n++) {
          const line = pass.apply(g);
          if (line === null) break;
          entry.changed++;
          changed++;
          entry.details.push(s === 0 ? line : `subgraph ${s}: ${line}`);
        }
      }
    });
    if (changed === 0) break;
  }
  const { model: clean, removed } = removeDeadItems(work.model);
  const origins: Origins = { kind: originsBefore.kind, subgraph: 0, sources: originsBefore.sources, ops: work.origins[0] ?? [], diagnostics: [] };
  const out = options.noOrigins ? detachOrigins(clean) : attachOrigins(clean, origins);
  return { model: out, log, originsBefore, origins, removed };
}
