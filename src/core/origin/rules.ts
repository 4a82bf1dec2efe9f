/**
 * The origin rules of luci-profile (origins.md sections 1 and 5), as pure functions over origin
 * sets. An `OriginSet` is a sorted array of unique origin ids; the empty set is luci's null
 * origin ("no origin").
 *
 * - absorb:  an existing node swallows another: `existing ∪ absorbed` (luci `add_origin`)
 * - fuse:    several nodes become one new node: union of all (luci `composite_origin`)
 * - replace: a node is replaced by a new one: a copy (luci `get_origin` of the replaced node)
 */
export type OriginSet = readonly number[];

export const NO_ORIGIN: OriginSet = Object.freeze([]) as OriginSet;

/** Sorted, duplicate-free origin set from any collection of ids. */
export function normalize(ids: Iterable<number>): OriginSet {
  const out = Array.from(ids);
  // fast path: already ascending and unique (what the decoders and the rules produce)
  for (let i = 1; i < out.length; i++) {
    if (!(out[i - 1]! < out[i]!)) return [...new Set(out)].sort((a, b) => a - b);
  }
  return out;
}

/** luci `single_origin(id, name)`: the set holding one source. */
export function singleOrigin(id: number): OriginSet {
  return [id];
}

/**
 * luci `composite_origin(list)`: union of the given origins (null / empty ones skipped). An empty
 * *list* is an error upstream (`invalid_argument`), so it throws here too.
 */
export function compositeOrigin(list: readonly (OriginSet | null | undefined)[]): OriginSet {
  if (list.length === 0) throw new RangeError('composite_origin: empty list of origins');
  const ids: number[] = [];
  for (const o of list) if (o) ids.push(...o);
  return normalize(ids);
}

/** Absorb: `existing` keeps its sources and gains `absorbed`'s (luci `add_origin`). */
export function absorb(existing: OriginSet, absorbed: OriginSet | null | undefined): OriginSet {
  if (!absorbed || absorbed.length === 0) return existing;
  return normalize([...existing, ...absorbed]);
}

/** Fuse into a new node: the union of every fused node's origin. */
export function fuse(fused: readonly (OriginSet | null | undefined)[]): OriginSet {
  return compositeOrigin(fused);
}

/** Replace with a new node: the replaced node's origin, copied. */
export function replace(replaced: OriginSet | null | undefined): OriginSet {
  return replaced ? [...replaced] : NO_ORIGIN;
}

/** Union of every operator's origin (the invariant every pass keeps). */
export function originUnion(ops: readonly OriginSet[]): OriginSet {
  const s = new Set<number>();
  for (const o of ops) for (const id of o) s.add(id);
  return [...s].sort((a, b) => a - b);
}
