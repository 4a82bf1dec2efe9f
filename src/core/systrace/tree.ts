/**
 * Per-thread call tree and its rewrites (AOSP `parser/tree.py`).
 *
 * Times are kept twice: exact integer microseconds (`startUs`/`endUs`) and the float seconds
 * Python's `float()` gives (`startS`/`endS`). A `Clock` picks which arithmetic a computation
 * uses: exact µs for the structured result, upstream floats to reproduce AOSP's output bytes.
 */
import { isExecutionSubphase, isSubphaseOf } from './model';

export interface CallNode {
  id: number;
  isRoot: boolean;
  /** dummy placeholder pushed by a `[SW]` mark (mark === null) */
  isDummy: boolean;
  startUs: number;
  startS: number;
  endUs: number | null;
  endS: number | null;
  mark: string | null;
  layer: string | null;
  /** the phase as written (PU resolved by `phaseOf`) */
  phase: string | null;
  appPhase: string | null;
  subtract: boolean;
  switched: boolean;
  line: number;
  children: CallNode[];
  parent: CallNode | null;
  copyOf?: number;
  copyReason?: 'subtract' | 'initialization' | 'app-phase';
  synthetic?: boolean;
}

export interface Clock {
  /** (end - start) in the clock's unit (upstream: ms from float seconds) */
  elapsed(n: CallNode): number | null;
  /** begin / end as upstream's `begins_and_ends_ms` holds them */
  begin(n: CallNode): number;
  end(n: CallNode): number;
}

/** Upstream float arithmetic: `(float(end) - float(start)) * 1000.0`, ms. */
export const upstreamClock: Clock = {
  elapsed: (n) => (n.endS === null ? null : (n.endS - n.startS) * 1000.0),
  begin: (n) => n.startS * 1000.0,
  end: (n) => (n.endS ?? n.startS) * 1000.0,
};

/** Exact arithmetic on integer microseconds (values in µs). */
export const exactClock: Clock = {
  elapsed: (n) => (n.endUs === null ? null : n.endUs - n.startUs),
  begin: (n) => n.startUs,
  end: (n) => n.endUs ?? n.startUs,
};

export class IdSource {
  private next = 1;
  take(): number {
    return this.next++;
  }
}

export function makeRoot(ids: IdSource): CallNode {
  return {
    id: ids.take(),
    isRoot: true,
    isDummy: false,
    startUs: 0,
    startS: 0,
    endUs: null,
    endS: null,
    mark: null,
    layer: null,
    phase: null,
    appPhase: null,
    subtract: false,
    switched: false,
    line: 0,
    children: [],
    parent: null,
  };
}

/** `phase()`: PU takes its parent's phase. */
export function phaseOf(n: CallNode): string | null {
  let cur: CallNode | null = n;
  let guard = 0;
  while (cur && cur.phase === 'PU' && guard++ < 1_000_000) cur = cur.parent;
  return cur ? cur.phase : null;
}

/** `is_added_detail`: same layer as the parent, not a subphase, not one-time init, not subtract. */
export function isAddedDetail(n: CallNode): boolean {
  if (n.isRoot) return false;
  const p = n.parent;
  if (!p || p.isRoot) return false;
  if (n.layer !== p.layer) return false;
  const ph = phaseOf(n);
  const pph = phaseOf(p);
  if (isSubphaseOf(ph, pph)) return false;
  if (ph === 'PI' && pph !== 'PI') return false;
  if (n.subtract) return false;
  return true;
}

export function subtractedTime(n: CallNode, clock: Clock): number {
  let subtract = 0.0;
  if (isAddedDetail(n)) {
    for (const c of n.children) subtract = subtract + subtractedTime(c, clock);
  } else if (n.subtract) {
    subtract = clock.elapsed(n) ?? 0.0;
  }
  return subtract;
}

export function elapsedLessSubtracted(n: CallNode, clock: Clock): number | null {
  let ret = clock.elapsed(n);
  if (ret === null) return null;
  for (const c of n.children) ret = ret - subtractedTime(c, clock);
  return ret;
}

/**
 * Deletes the nodes `drop` selects (collected in pre-order first), as upstream's `remove`: the
 * node leaves its parent's child list and its children are appended at the END of that list, so
 * the order of siblings changes (and with it the order of float sums).
 */
function removeNodes(root: CallNode, drop: (n: CallNode) => boolean, removed?: (n: CallNode, into: CallNode) => void): void {
  const doomed = preorder(root).filter((n) => !n.isRoot && drop(n));
  if (!doomed.length) return;
  // one pass with lazy deletion: removing a node keeps the order of the others, and children
  // are appended in the order upstream appends them (pre-order: a parent goes before its children)
  const deleted = new Set<CallNode>();
  const touched = new Set<CallNode>();
  for (const n of doomed) {
    const p = n.parent!;
    deleted.add(n);
    touched.add(p);
    for (const c of n.children) {
      p.children.push(c);
      c.parent = p;
    }
    removed?.(n, p);
    n.parent = null;
  }
  for (const p of touched) p.children = p.children.filter((c) => !deleted.has(c));
}

/** `remove_ignored`: deletes LX nodes; `removed` hears of each with the node that took its children. */
export function removeIgnored(root: CallNode, removed?: (n: CallNode, into: CallNode) => void): void {
  removeNodes(root, (n) => !n.isDummy && n.layer === 'LX', removed);
}

/** `remove_dummies`: deletes the `[SW]` placeholders. */
export function removeDummies(root: CallNode): void {
  removeNodes(root, (n) => n.isDummy);
}

function preorder(root: CallNode): CallNode[] {
  const out: CallNode[] = [];
  const stack: CallNode[] = [root];
  while (stack.length) {
    const n = stack.pop()!;
    out.push(n);
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return out;
}

function addChild(parent: CallNode, node: CallNode): CallNode {
  node.parent = parent;
  parent.children.push(node);
  return node;
}

/**
 * `copy_subtracted_init_and_wrong_la`. Collects, in pre-order, (a) `[SUB]` nodes, (b) PI nodes
 * under a non-PI parent, (c) LR/LI nodes under an LA node of another phase that is not PO, PE or
 * a PE subphase; then, one after the other (each move sees the earlier ones), adds a copy of each
 * at its destination (phase resolved at that moment) and flags the original `subtract`.
 */
export function copySubtractedInitAndWrongLa(root: CallNode, ids: IdSource): void {
  const moves: { node: CallNode; reason: 'subtract' | 'initialization' | 'app-phase' }[] = [];
  for (const n of preorder(root)) {
    if (n.isRoot) continue;
    const p = n.parent!;
    const ph = phaseOf(n);
    if (n.subtract) moves.push({ node: n, reason: 'subtract' });
    else if (ph === 'PI' && phaseOf(p) !== 'PI') moves.push({ node: n, reason: 'initialization' });
    else if (
      p.layer === 'LA' &&
      (n.layer === 'LR' || n.layer === 'LI') &&
      phaseOf(p) !== ph &&
      phaseOf(p) !== 'PO' &&
      ph !== 'PE' &&
      !isExecutionSubphase(ph)
    ) {
      moves.push({ node: n, reason: 'app-phase' });
    }
  }
  for (const { node: n, reason } of moves) {
    let dest = n.parent!;
    let suffix: string;
    if (reason === 'subtract') {
      suffix = '(copied from [SUB])';
      while ((dest.layer !== n.layer || isAddedDetail(dest)) && !dest.isRoot) dest = dest.parent!;
    } else if (reason === 'initialization') {
      suffix = '(copied from phase PI)';
      while (!dest.isRoot) dest = dest.parent!;
    } else {
      suffix = `(copied for LA_${phaseOf(n)})`;
      dest = dest.parent!;
    }
    if (!dest.isRoot) dest = dest.parent!;
    addChild(dest, {
      id: ids.take(),
      isRoot: false,
      isDummy: false,
      startUs: n.startUs,
      startS: n.startS,
      endUs: n.endUs,
      endS: n.endS,
      mark: `${n.mark ?? ''}${suffix}`,
      layer: n.layer,
      phase: phaseOf(n),
      appPhase: n.appPhase,
      subtract: false,
      switched: false,
      line: n.line,
      children: [],
      parent: null,
      copyOf: n.id,
      copyReason: reason,
    });
    n.subtract = true;
  }
}

/**
 * `add_missing_la_nodes`: an LR/LI node (not detail, not subtract) under an LA node of another
 * phase (not PO; the node's phase not PE or a PE subphase) gets an LA node of its own phase in
 * between. The new node starts with the child and lasts the child's counted time
 * (elapsed less subtracted), as upstream computes its end.
 */
export function addMissingLaNodes(root: CallNode, ids: IdSource): void {
  const found: CallNode[] = [];
  for (const n of preorder(root)) {
    if (n.isRoot || isAddedDetail(n) || n.subtract) continue;
    const p = n.parent!;
    const ph = phaseOf(n);
    if ((n.layer === 'LR' || n.layer === 'LI') && p.layer === 'LA' && phaseOf(p) !== 'PO' && phaseOf(p) !== ph && ph !== 'PE' && !isExecutionSubphase(ph)) {
      found.push(n);
    }
  }
  // where each child sits in its parent's list (replacing a child in place keeps the others' places)
  const places = new Map<CallNode, Map<CallNode, number>>();
  const placeOf = (p: CallNode, n: CallNode): number => {
    let m = places.get(p);
    if (!m) {
      m = new Map(p.children.map((c, i) => [c, i]));
      places.set(p, m);
    }
    return m.get(n) ?? -1;
  };
  for (const n of found) {
    const ph = phaseOf(n);
    const p = n.parent!;
    const up = elapsedLessSubtracted(n, upstreamClock) ?? 0;
    const ex = elapsedLessSubtracted(n, exactClock) ?? 0;
    const la: CallNode = {
      id: ids.take(),
      isRoot: false,
      isDummy: false,
      startUs: n.startUs,
      startS: n.startS,
      endUs: n.startUs + ex,
      endS: n.startS + up / 1000.0,
      mark: `${n.mark ?? ''} ( added intermediate LA ${ph} )`,
      layer: 'LA',
      phase: ph,
      appPhase: n.appPhase,
      subtract: false,
      switched: false,
      line: n.line,
      children: [n],
      parent: p,
      synthetic: true,
    };
    const i = placeOf(p, n);
    if (i >= 0) {
      p.children[i] = la;
      places.get(p)!.set(la, i);
    }
    n.parent = la;
  }
}

const LAYER_NESTING: Readonly<Record<string, readonly string[]>> = {
  LA: ['LR'],
  LR: ['LI', 'LC'],
  LI: ['LD'],
};

/**
 * Whether `child` may nest in `parent` (upstream `validate_nesting`); null when it may. Under the
 * root, or under a parent whose phase resolves to nothing (a PU chain up to the root), anything
 * goes; `subtract` nodes are exempt.
 */
export function nestingProblem(parent: CallNode, child: CallNode): string | null {
  if (child.subtract) return null;
  const pp = phaseOf(parent);
  const cp = phaseOf(child);
  const phaseOk =
    pp === null ||
    cp === pp ||
    cp === 'PU' ||
    cp === 'PI' ||
    isSubphaseOf(cp, pp) ||
    (isExecutionSubphase(cp) && isSubphaseOf('PE', pp));
  if (!phaseOk) return `phase ${cp} may not be nested in phase ${pp}`;
  const pl = parent.layer;
  const cl = child.layer ?? '';
  const layerOk = pl === null || cl === 'LU' || cl === pl || (Object.hasOwn(LAYER_NESTING, pl) && LAYER_NESTING[pl]!.includes(cl));
  if (!layerOk) return `layer ${cl} may not be nested in layer ${pl}`;
  return null;
}

export interface NestingError {
  node: CallNode;
  parent: CallNode;
  problem: string;
  path: string;
}

/** Paths are written out for this many problems (a hostile capture can have a million). */
const NESTING_PATHS = 50;

/** `validate_nesting`: every problem, in pre-order (upstream stops at the first). */
export function validateNesting(root: CallNode): NestingError[] {
  const errors: NestingError[] = [];
  for (const c of preorder(root)) {
    if (c.isRoot) continue;
    const n = c.parent!;
    const problem = nestingProblem(n, c);
    if (problem) {
      const path: string[] = [];
      for (let a: CallNode | null = c; errors.length < NESTING_PATHS && a && !a.isRoot; a = a.parent) path.push(a.mark ?? '(switch)');
      errors.push({ node: c, parent: n, problem, path: path.reverse().join(' > ') });
    }
  }
  return errors;
}

export function maxDepth(root: CallNode): number {
  let max = 0;
  const stack: [CallNode, number][] = [[root, 0]];
  while (stack.length) {
    const [n, d] = stack.pop()!;
    if (d > max) max = d;
    for (const c of n.children) stack.push([c, d + 1]);
  }
  return max;
}

export { preorder };
