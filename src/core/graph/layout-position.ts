/**
 * Coordinates across the ranks (x in TB): Brandes-Koepf, as dagre does it. Four alignments
 * (up/down x left/right) make vertical blocks that keep chains and long edges straight; each
 * block gets its place by a longest-path compaction over the block graph; the result is the
 * mean of the two median candidates per node, which keeps the separation of every candidate.
 * Linear in nodes + edges apart from sorting short neighbour lists. No recursion.
 */
import type { LayeredGraph } from './layout-order';

interface Variant {
  /** layers in the order of this variant */
  start: Int32Array;
  order: Int32Array;
  pos: Int32Array;
}

/**
 * Working arrays of the four alignments, made once and reused by each (at 100,000 operators a set
 * is about a dozen arrays of 170,000 entries: made four times over they were tens of megabytes
 * for the collector). Every one is fully written, or cleared, before it is read.
 */
interface Scratch {
  start: Int32Array;
  order: Int32Array;
  pos: Int32Array;
  root: Int32Array;
  align: Int32Array;
  ea: Int32Array;
  eb: Int32Array;
  ew: Float64Array;
  indeg: Int32Array;
  outStart: Int32Array;
  outEdge: Int32Array;
  next: Int32Array;
  topo: Int32Array;
  xs: Float64Array;
}

function makeScratch(g: LayeredGraph): Scratch {
  const { count, rankCount, layerStart } = g;
  // block graph edges: one between neighbours in each layer (the same number in every variant)
  let m = 0;
  for (let r = 0; r < rankCount; r++) m += Math.max(0, layerStart[r + 1] - layerStart[r] - 1);
  return {
    start: new Int32Array(rankCount + 1),
    order: new Int32Array(g.order.length),
    pos: new Int32Array(count),
    root: new Int32Array(count),
    align: new Int32Array(count),
    ea: new Int32Array(m),
    eb: new Int32Array(m),
    ew: new Float64Array(m),
    indeg: new Int32Array(count),
    outStart: new Int32Array(count + 1),
    outEdge: new Int32Array(m),
    next: new Int32Array(count),
    topo: new Int32Array(count),
    xs: new Float64Array(count),
  };
}

function makeVariant(g: LayeredGraph, bottomUp: boolean, rightToLeft: boolean, sc: Scratch): Variant {
  const { rankCount, layerStart, order } = g;
  const { start, order: out, pos } = sc;
  let k = 0;
  for (let li = 0; li < rankCount; li++) {
    const r = bottomUp ? rankCount - 1 - li : li;
    start[li] = k;
    const s = layerStart[r];
    const e = layerStart[r + 1];
    for (let i = 0; i < e - s; i++) {
      const v = order[rightToLeft ? e - 1 - i : s + i];
      pos[v] = i;
      out[k++] = v;
    }
  }
  start[rankCount] = k;
  return { start, order: out, pos };
}

/** Type-1 conflicts: non-inner segments crossing an inner (dummy-dummy) segment. */
function findConflicts(g: LayeredGraph): Set<number> {
  const { count, realCount, rankCount, layerStart, order, pos, upStart, up } = g;
  const conflicts = new Set<number>();
  for (let r = 1; r < rankCount; r++) {
    const prevLen = layerStart[r] - layerStart[r - 1];
    const s = layerStart[r];
    const e = layerStart[r + 1];
    let k0 = 0;
    let scan = s;
    for (let i = s; i < e; i++) {
      const v = order[i];
      let w = -1;
      if (v >= realCount) {
        for (let q = upStart[v]; q < upStart[v + 1]; q++) {
          if (up[q] >= realCount) {
            w = up[q];
            break;
          }
        }
      }
      if (w < 0 && i !== e - 1) continue;
      const k1 = w >= 0 ? pos[w] : prevLen;
      for (; scan <= i; scan++) {
        const sv = order[scan];
        for (let q = upStart[sv]; q < upStart[sv + 1]; q++) {
          const u = up[q];
          const uPos = pos[u];
          if ((uPos < k0 || k1 < uPos) && !(u >= realCount && sv >= realCount)) {
            conflicts.add(u < sv ? u * count + sv : sv * count + u);
          }
        }
      }
      k0 = k1;
    }
  }
  return conflicts;
}

/**
 * Whether each real node has a real neighbour on the far side (below it for a top-down
 * alignment, above it for a bottom-up one); the same for both alignments of a direction.
 */
function realNeighbours(g: LayeredGraph, bottomUp: boolean): Uint8Array {
  const { count, realCount } = g;
  const realNb = new Uint8Array(count);
  const os = bottomUp ? g.upStart : g.downStart;
  const o = bottomUp ? g.up : g.down;
  for (let w = 0; w < realCount; w++) {
    for (let q = os[w]; q < os[w + 1]; q++) {
      if (o[q] < realCount) {
        realNb[w] = 1;
        break;
      }
    }
  }
  return realNb;
}

/**
 * Side branches of the main chain (`deadEnd`): an edge between two real nodes that the chain of
 * operators does not go on through. A real node `l` below `u` with no real node below it (a
 * ResNet block's projection, whose output goes on as a long edge to the ADD) is a dead end when
 * `u` has another real child that the chain goes on through; and a real `u` above `l` with no
 * real node above it (a second input) when `l` has another real parent that goes on upwards.
 * No alignment puts such an edge in a block: left free, the projection took the block's input
 * in the alignments that prefer the right, its chain of dummies could not take the ADD (real
 * nodes first), and every block moved the spine by half a node's breadth (47 px a block: a
 * 100,000-operator chain of bottlenecks drifted 580,000 px sideways; dagre's stays straight).
 */
interface SideBranches {
  /** real nodes with a real neighbour below / above */
  realDown: Uint8Array;
  realUp: Uint8Array;
  /** real nodes with a real child that has a real child / a real parent that has a real parent */
  childGoesOn: Uint8Array;
  parentGoesOn: Uint8Array;
}

function sideBranches(g: LayeredGraph, realDown: Uint8Array, realUp: Uint8Array): SideBranches {
  const { realCount, upStart, up, downStart, down } = g;
  const childGoesOn = new Uint8Array(realCount);
  const parentGoesOn = new Uint8Array(realCount);
  for (let v = 0; v < realCount; v++) {
    for (let q = downStart[v]; q < downStart[v + 1]; q++) {
      const w = down[q];
      if (w < realCount && realDown[w]) {
        childGoesOn[v] = 1;
        break;
      }
    }
    for (let q = upStart[v]; q < upStart[v + 1]; q++) {
      const w = up[q];
      if (w < realCount && realUp[w]) {
        parentGoesOn[v] = 1;
        break;
      }
    }
  }
  return { realDown, realUp, childGoesOn, parentGoesOn };
}

/** Whether the edge from real `u` down to real `l` is a side branch (see SideBranches). */
function deadEnd(sb: SideBranches, u: number, l: number): boolean {
  return (sb.realDown[l] === 0 && sb.childGoesOn[u] === 1) || (sb.realUp[u] === 0 && sb.parentGoesOn[l] === 1);
}

/** Every node its own block. */
function selfAligned(count: number, root: Int32Array, al: Int32Array): void {
  for (let v = 0; v < count; v++) {
    root[v] = v;
    al[v] = v;
  }
}

function align(
  g: LayeredGraph,
  vt: Variant,
  bottomUp: boolean,
  conflicts: Set<number>,
  sb: SideBranches,
  ws: Int32Array,
  sc: Scratch,
): { root: Int32Array; align: Int32Array } {
  // every property is read before the first loop: V8 optimises a running loop on the spot, and a
  // property read after it, never run yet, would throw that code away (see layout.ts)
  const { count, rankCount, realCount } = g;
  const nbStart = bottomUp ? g.downStart : g.upStart;
  const nb = bottomUp ? g.down : g.up;
  const root = sc.root;
  const al = sc.align;
  const { start, order, pos } = vt;
  const realNb = bottomUp ? sb.realUp : sb.realDown;
  const checkConflicts = conflicts.size > 0;
  selfAligned(count, root, al);
  // Real nodes before long edges: a real node lines up with a real neighbour when it has one,
  // and a long edge only takes a real node that has no real neighbour on that side. So the
  // main chain of operators stays straight in all four alignments and long edges bend instead.
  // (`realNb`: which real nodes have a real neighbour on that side.) An edge off the chain to a
  // side branch is never a candidate (`deadEnd`). The candidates of a node
  // go into `ws` (scratch as long as the longest neighbour list), sorted by position: positions
  // in a layer are distinct, so any sort gives the one order.
  for (let li = 0; li < rankCount; li++) {
    let prevIdx = -1;
    for (let i = start[li]; i < start[li + 1]; i++) {
      const v = order[i];
      const a = nbStart[v];
      const b = nbStart[v + 1];
      if (a === b) continue;
      // a real node's real candidates, side branches left out; its long edges only without them
      let len = 0;
      if (v < realCount) {
        for (let q = a; q < b; q++) {
          const w = nb[q];
          if (w < realCount && !(bottomUp ? deadEnd(sb, v, w) : deadEnd(sb, w, v))) ws[len++] = w;
        }
      }
      if (len === 0) {
        for (let q = a; q < b; q++) {
          const w = nb[q];
          // a real one here is a side branch of a real v, or a real node a dummy must not take
          if (w < realCount && (v < realCount || realNb[w] === 1)) continue;
          ws[len++] = w;
        }
      }
      if (len === 0) continue;
      if (len > 16) {
        const sorted = Array.from(ws.subarray(0, len)).sort((x, y) => pos[x] - pos[y]);
        for (let k = 0; k < len; k++) ws[k] = sorted[k];
      } else {
        for (let k = 1; k < len; k++) {
          const w = ws[k];
          let j = k;
          while (j > 0 && pos[ws[j - 1]] > pos[w]) {
            ws[j] = ws[j - 1];
            j--;
          }
          ws[j] = w;
        }
      }
      const mp = (len - 1) / 2;
      for (let m = Math.floor(mp), hi = Math.ceil(mp); m <= hi; m++) {
        const w = ws[m];
        if (al[v] === v && prevIdx < pos[w] && !(checkConflicts && conflicts.has(v < w ? v * count + w : w * count + v))) {
          al[w] = v;
          al[v] = root[v] = root[w];
          prevIdx = pos[w];
        }
      }
    }
  }
  return { root, align: al };
}

/** The block graph: an edge root(left) -> root(right) between neighbours in each layer, weighted by their separation, as adjacency by source (`outStart`, `outEdge`). */
function blockGraph(g: LayeredGraph, vt: Variant, root: Int32Array, nodesep: number, edgesep: number, sc: Scratch): number {
  const { count, realCount, across, rankCount } = g;
  const { start, order } = vt;
  const { ea, eb, ew, indeg, outStart: outCount, outEdge, next } = sc;
  indeg.fill(0);
  outCount.fill(0);
  let k = 0;
  for (let li = 0; li < rankCount; li++) {
    for (let i = start[li] + 1; i < start[li + 1]; i++) {
      const u = order[i - 1];
      const v = order[i];
      const gap = ((u < realCount ? nodesep : edgesep) + (v < realCount ? nodesep : edgesep)) / 2;
      ea[k] = root[u];
      eb[k] = root[v];
      ew[k] = (across[u] + across[v]) / 2 + gap;
      indeg[root[v]]++;
      outCount[root[u] + 1]++;
      k++;
    }
  }
  prefixSums(count, outCount);
  next.set(outCount.subarray(0, count));
  bySource(k, ea, next, outEdge);
  return k;
}

function prefixSums(count: number, a: Int32Array): void {
  for (let v = 0; v < count; v++) a[v + 1] += a[v];
}

function bySource(m: number, ea: Int32Array, next: Int32Array, outEdge: Int32Array): void {
  for (let e = 0; e < m; e++) outEdge[next[ea[e]]++] = e;
}

/** Longest path from the left over the block graph, in topological order of the roots (Kahn); returns how many roots are in `topo`. */
function pushRight(count: number, root: Int32Array, sc: Scratch): number {
  const { eb, ew, indeg, outStart, outEdge, topo, xs } = sc;
  let head = 0;
  let tail = 0;
  for (let v = 0; v < count; v++) if (root[v] === v && indeg[v] === 0) topo[tail++] = v;
  xs.fill(0);
  while (head < tail) {
    const v = topo[head++];
    for (let q = outStart[v]; q < outStart[v + 1]; q++) {
      const e = outEdge[q];
      const w = eb[e];
      const x = xs[v] + ew[e];
      if (x > xs[w]) xs[w] = x;
      if (--indeg[w] === 0) topo[tail++] = w;
    }
  }
  return tail;
}

/** Pass 2: pulls every block right towards its right neighbours. */
function pullRight(tail: number, sc: Scratch): void {
  const { eb, ew, outStart, outEdge, topo, xs } = sc;
  for (let t = tail - 1; t >= 0; t--) {
    const v = topo[t];
    let min = Infinity;
    for (let q = outStart[v]; q < outStart[v + 1]; q++) {
      const e = outEdge[q];
      const x = xs[eb[e]] - ew[e];
      if (x < min) min = x;
    }
    if (min !== Infinity && min > xs[v]) xs[v] = min;
  }
}

function blockPlaces(count: number, root: Int32Array, xs: Float64Array): Float64Array {
  const x = new Float64Array(count);
  for (let v = 0; v < count; v++) x[v] = xs[root[v]];
  return x;
}

/** Places every block by a longest-path compaction over the block graph (each phase a function: see `align`). */
function compact(
  g: LayeredGraph,
  vt: Variant,
  root: Int32Array,
  nodesep: number,
  edgesep: number,
  sc: Scratch,
): Float64Array {
  blockGraph(g, vt, root, nodesep, edgesep, sc);
  const tail = pushRight(g.count, root, sc);
  pullRight(tail, sc);
  return blockPlaces(g.count, root, sc.xs);
}

/** Centre coordinate across the ranks for every node of the layered graph. */
export function assignAcross(g: LayeredGraph, nodesep: number, edgesep: number): Float64Array {
  const { count, across } = g;
  if (count === 0) return new Float64Array(0);
  const conflicts = findConflicts(g);
  const xss: Float64Array[] = [];
  const isRight: boolean[] = [];
  let degree = 0;
  for (let v = 0; v < count; v++) degree = Math.max(degree, g.upStart[v + 1] - g.upStart[v], g.downStart[v + 1] - g.downStart[v]);
  const ws = new Int32Array(degree);
  const sc = makeScratch(g);
  const sb = sideBranches(g, realNeighbours(g, false), realNeighbours(g, true));
  for (const bottomUp of [false, true]) {
    for (const rightToLeft of [false, true]) {
      const vt = makeVariant(g, bottomUp, rightToLeft, sc);
      const { root } = align(g, vt, bottomUp, conflicts, sb, ws, sc);
      const xs = compact(g, vt, root, nodesep, edgesep, sc);
      if (rightToLeft) for (let v = 0; v < count; v++) xs[v] = -xs[v];
      xss.push(xs);
      isRight.push(rightToLeft);
    }
  }
  // align every candidate to the narrowest one, then take the mean of the two medians
  const mins: number[] = [];
  const maxs: number[] = [];
  let best = 0;
  for (let a = 0; a < 4; a++) {
    let lo = Infinity;
    let hi = -Infinity;
    const xs = xss[a];
    for (let v = 0; v < count; v++) {
      const h = across[v] / 2;
      if (xs[v] - h < lo) lo = xs[v] - h;
      if (xs[v] + h > hi) hi = xs[v] + h;
    }
    mins.push(lo);
    maxs.push(hi);
    if (hi - lo < maxs[best] - mins[best]) best = a;
  }
  for (let a = 0; a < 4; a++) {
    const delta = isRight[a] ? maxs[best] - maxs[a] : mins[best] - mins[a];
    if (delta !== 0) {
      const xs = xss[a];
      for (let v = 0; v < count; v++) xs[v] += delta;
    }
  }
  const out = new Float64Array(count);
  const [x0, x1, x2, x3] = xss;
  for (let v = 0; v < count; v++) {
    let a = x0[v];
    let b = x1[v];
    let c = x2[v];
    let d = x3[v];
    let t: number;
    if (a > b) { t = a; a = b; b = t; }
    if (c > d) { t = c; c = d; d = t; }
    if (a > c) { t = a; a = c; c = t; }
    if (b > d) { t = b; b = d; d = t; }
    if (b > c) { t = b; b = c; c = t; }
    out[v] = (b + c) / 2;
  }
  return out;
}
