/**
 * Indexes over origins for the UI: operator -> origin ids, origin id -> operators, and the
 * many-to-many mapping between two models' operators through shared origin ids (the sync
 * navigation of side-by-side panes). Linear in the table sizes.
 */
import type { Origins } from './origins';
import type { OriginSet } from './rules';

export interface OriginIndex {
  /** per operator index, its origin ids (same arrays as `Origins.ops`) */
  opIds: readonly OriginSet[];
  /** origin id -> operator indices using it, ascending */
  idOps: Map<number, number[]>;
}

export function originIndex(origins: Pick<Origins, 'ops'>): OriginIndex {
  const idOps = new Map<number, number[]>();
  const ops = origins.ops;
  for (let i = 0; i < ops.length; i++) {
    for (const id of ops[i]!) {
      const list = idOps.get(id);
      if (list) list.push(i);
      else idOps.set(id, [i]);
    }
  }
  return { opIds: ops, idOps };
}

export interface RelatedOps {
  /** per operator of A: the operators of B sharing at least one origin id, ascending */
  aToB: number[][];
  /** per operator of B: the operators of A sharing at least one origin id, ascending */
  bToA: number[][];
}

function relate(from: readonly OriginSet[], to: OriginIndex): number[][] {
  const out: number[][] = [];
  const seen = new Int32Array(to.opIds.length).fill(-1);
  for (let i = 0; i < from.length; i++) {
    const list: number[] = [];
    for (const id of from[i]!) {
      const ops = to.idOps.get(id);
      if (!ops) continue;
      for (const j of ops) {
        if (seen[j] !== i) {
          seen[j] = i;
          list.push(j);
        }
      }
    }
    list.sort((a, b) => a - b);
    out.push(list);
  }
  return out;
}

/** Many-to-many mapping between two models' operators through shared origin ids. */
export function relatedOps(a: Pick<Origins, 'ops'>, b: Pick<Origins, 'ops'>): RelatedOps {
  const ia = originIndex(a);
  const ib = originIndex(b);
  return { aToB: relate(a.ops, ib), bToA: relate(b.ops, ia) };
}

/** The operators of B related to one operator of A (hover highlight), from a prebuilt index of B. */
export function relatedTo(ids: OriginSet, index: OriginIndex): number[] {
  const set = new Set<number>();
  for (const id of ids) for (const j of index.idOps.get(id) ?? []) set.add(j);
  return [...set].sort((x, y) => x - y);
}
