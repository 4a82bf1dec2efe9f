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

/** Replace nodes matching `drop` by their children, in place (remove_ignored / remove_dummies). */
function spliceOut(root: CallNode, drop: (n: CallNode) => boolean, removed?: (n: CallNode, into: CallNode) => void): void {
  const visit = (node: CallNode): void => {
    let changed = false;
    const out: CallNode[] = [];
    for (const c of node.children) {
      visit(c);
      if (drop(c)) {
        changed = true;
        removed?.(c, node);
        for (const g of c.children) {
          g.parent = node;
          out.push(g);
        }
      } else out.push(c);
    }
    if (changed) node.children = out;
  };
  visit(root);
}

/** Deletes LX nodes (children go to the parent); `removed` hears of each with its new parent. */
export function removeIgnored(root: CallNode, removed?: (n: CallNode, into: CallNode) => void): void {
  spliceOut(root, (n) => !n.isDummy && !n.isRoot && n.layer === 'LX', removed);
}

export function removeDummies(root: CallNode): void {
  spliceOut(root, (n) => n.isDummy);
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

/** `copy_subtracted_init_and_wrong_la` */
export function copySubtractedInitAndWrongLa(root: CallNode, ids: IdSource): void {
  const moves: { node: CallNode; target: CallNode; reason: 'subtract' | 'initialization' | 'app-phase'; suffix: string }[] = [];
  for (const n of preorder(root)) {
    if (n.isRoot) continue;
    const p = n.parent!;
    const ph = phaseOf(n);
    if (n.subtract) {
      let a: CallNode | null = p;
      while (a && !a.isRoot && !(a.layer === n.layer && !isAddedDetail(a))) a = a.parent;
      moves.push({ node: n, target: a ?? root, reason: 'subtract', suffix: '(copied from [SUB])' });
    } else if (ph === 'PI' && phaseOf(p) !== 'PI') {
      moves.push({ node: n, target: root, reason: 'initialization', suffix: '(copied from phase PI)' });
    } else if (
      (n.layer === 'LR' || n.layer === 'LI') &&
      !p.isRoot &&
      p.layer === 'LA' &&
      phaseOf(p) !== 'PO' &&
      phaseOf(p) !== ph &&
      ph !== 'PE' &&
      !isExecutionSubphase(ph)
    ) {
      moves.push({ node: n, target: p.parent ?? root, reason: 'app-phase', suffix: `(copied for LA_${ph})` });
    }
  }
  for (const m of moves) {
    let dest = m.target;
    if (!dest.isRoot) dest = dest.parent ?? root;
    const n = m.node;
    const copy: CallNode = {
      ...n,
      id: ids.take(),
      mark: `${n.mark ?? ''}${m.suffix}`,
      subtract: false,
      children: [],
      parent: dest,
      copyOf: n.id,
      copyReason: m.reason,
    };
    dest.children.push(copy);
    n.subtract = true;
  }
}

/** `add_missing_la_nodes`: an LR/LI node under an LA node of another phase gets an LA node of its own phase. */
export function addMissingLaNodes(root: CallNode, ids: IdSource): void {
  for (const n of preorder(root)) {
    if (n.isRoot || n.subtract || n.copyOf !== undefined) continue;
    const p = n.parent!;
    if (p.isRoot || p.layer !== 'LA' || !(n.layer === 'LR' || n.layer === 'LI')) continue;
    const ph = phaseOf(n);
    const pph = phaseOf(p);
    if (pph === 'PO' || pph === ph || isSubphaseOf(ph, pph) || pph === 'PWU' || pph === 'PBM') continue;
    const la: CallNode = {
      id: ids.take(),
      isRoot: false,
      isDummy: false,
      startUs: n.startUs,
      startS: n.startS,
      endUs: n.endUs,
      endS: n.endS,
      mark: `[NN_LA_${ph}](added for ${n.mark ?? ''})`,
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
    p.children[p.children.indexOf(n)] = la;
    n.parent = la;
  }
}

const LAYER_NESTING: Readonly<Record<string, readonly string[]>> = {
  LA: ['LR'],
  LR: ['LI', 'LC'],
  LI: ['LD'],
};

/** Whether `child` may nest in `parent` (section 1 of the notes); null when it may. */
export function nestingProblem(parent: CallNode, child: CallNode): string | null {
  if (parent.isRoot || child.subtract || child.synthetic) return null;
  const pl = parent.layer ?? '';
  const cl = child.layer ?? '';
  const layerOk = cl === pl || cl === 'LU' || (LAYER_NESTING[pl]?.includes(cl) ?? false);
  if (!layerOk) return `layer ${cl} may not be nested in layer ${pl}`;
  const pp = phaseOf(parent);
  const cp = phaseOf(child);
  const phaseOk =
    cp === pp ||
    child.phase === 'PU' ||
    cp === 'PI' ||
    isSubphaseOf(cp, pp) ||
    (isExecutionSubphase(cp) && pp !== null && isSubphaseOf('PE', pp));
  if (!phaseOk) return `phase ${cp} may not be nested in phase ${pp}`;
  return null;
}

export interface NestingError {
  node: CallNode;
  parent: CallNode;
  problem: string;
  path: string;
}

/** `validate_nesting`: every problem found (upstream asserts on the first). */
export function validateNesting(root: CallNode): NestingError[] {
  const errors: NestingError[] = [];
  for (const n of preorder(root)) {
    for (const c of n.children) {
      const problem = nestingProblem(n, c);
      if (problem) {
        const path: string[] = [];
        let a: CallNode | null = c;
        while (a && !a.isRoot) {
          path.unshift(a.mark ?? '(switch)');
          a = a.parent;
        }
        errors.push({ node: c, parent: n, problem, path: path.join(' > ') });
      }
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
