/**
 * Fast layered (Sugiyama) layout on typed arrays.
 *
 * Phases, per connected component (components are then placed side by side):
 *  1. cycles: iterative depth-first search from the sources; back edges are reversed;
 *  2. ranks: longest path, then every node with more out-edges than in-edges (sources first of
 *     all) moves down to just above its nearest consumer, so inputs sit next to their use;
 *  3. dummy nodes on edges spanning several ranks (bounded: past a budget, the longest edges
 *     are drawn straight instead, so the work stays linear);
 *  4. crossing reduction: depth-first initial order, a few barycenter sweeps (layout-order.ts);
 *  5. coordinates across ranks: Brandes-Koepf (layout-position.ts); along ranks: rank centres;
 *  6. edge polylines: source border, dummy positions, target border.
 * Everything is computed top-to-bottom; LR swaps the axes (a node's height is its extent across
 * the ranks). Deterministic; no recursion, so 100k-node chains are fine.
 */
import type { GraphLayout, LayoutInput, LayoutOptions, LayoutProgress } from './layout-types';
import { initialOrder, reduceCrossings, type LayeredGraph } from './layout-order';
import { assignAcross } from './layout-position';

/** Width of the loop drawn for an edge from a node to itself. */
const SELF_LOOP = 12;
/** Gap between parallel edges (two tensors from one node to the next). */
export const PARALLEL_SEP = 14;
/** Components at least this big report their phases to onProgress. */
const PROGRESS_MIN_NODES = 1000;
/** Components that are plain chains up to this size skip the layered machinery. */
const CHAIN_FAST_PATH_MAX = 64;

interface ComponentResult {
  /** centres, local coordinates (across = x in TB, along = y in TB) */
  x: Float64Array;
  y: Float64Array;
  rank: Int32Array;
  /** per local edge: points[2*offsets[i] .. 2*offsets[i+1]) */
  offsets: Int32Array;
  points: Float64Array;
  reversed: Uint8Array;
  minX: number;
  maxX: number;
  maxY: number;
}

interface ComponentInput {
  n: number;
  across: Float64Array;
  along: Float64Array;
  from: Int32Array;
  to: Int32Array;
  nodesep: number;
  edgesep: number;
  ranksep: number;
  report: (phase: string, fraction: number) => void;
}

function clean(v: number): number {
  return Number.isFinite(v) && v > 0 ? v : 0;
}

/** Compressed adjacency: for node v, items idx[start[v] .. start[v+1]). Stable in edge order. */
function csr(n: number, keys: Int32Array, count: number): { start: Int32Array; idx: Int32Array } {
  const start = new Int32Array(n + 1);
  for (let e = 0; e < count; e++) if (keys[e] >= 0) start[keys[e] + 1]++;
  for (let v = 0; v < n; v++) start[v + 1] += start[v];
  const next = start.slice(0, n);
  const idx = new Int32Array(start[n]);
  for (let e = 0; e < count; e++) if (keys[e] >= 0) idx[next[keys[e]]++] = e;
  return { start, idx };
}

/**
 * Point where the segment from the centre of a box towards (px, py) leaves the box, written to
 * out[at], out[at + 1]; returns the index after it.
 */
function border(
  x: number,
  y: number,
  w: number,
  h: number,
  px: number,
  py: number,
  out: Float64Array,
  at: number,
): number {
  const dx = px - x;
  const dy = py - y;
  let hw = w / 2;
  let hh = h / 2;
  if ((dx === 0 && dy === 0) || (hw === 0 && hh === 0)) {
    out[at] = x;
    out[at + 1] = y;
    return at + 2;
  }
  if (Math.abs(dy) * hw > Math.abs(dx) * hh) {
    if (dy < 0) hh = -hh;
    out[at] = x + (hh * dx) / dy;
    out[at + 1] = y + hh;
  } else {
    if (dx < 0) hw = -hw;
    out[at] = x + hw;
    out[at + 1] = y + (hw * dy) / dx;
  }
  return at + 2;
}

/*
 * The phases of a component's layout are functions of their own, each with one loop nest where it
 * can: V8 optimises a long-running loop while it runs (on-stack replacement), and code after that
 * loop, never run yet, has no type feedback, so reaching it threw the optimised code away and
 * compiled the function again (one 300-line function did so about 20 times per 100,000-operator
 * layout, on the compiler threads that share the machine's cores with the UI thread).
 */

/** Edges reversed to break cycles: the back edges of a depth-first search from the sources, then from any node left. */
function backEdges(n: number, from: Int32Array, to: Int32Array): Uint8Array {
  const m = from.length;
  const srcKey = new Int32Array(m);
  for (let e = 0; e < m; e++) srcKey[e] = from[e] === to[e] ? -1 : from[e];
  const out0 = csr(n, srcKey, m);
  const indeg0 = inDegrees(n, from, to);
  const reversed = new Uint8Array(m);
  const state = new Uint8Array(n);
  const stack = new Int32Array(n);
  const cursor = new Int32Array(n);
  const visit = (s: number): void => {
    let sp = 0;
    stack[sp] = s;
    cursor[sp] = out0.start[s];
    state[s] = 1;
    sp++;
    while (sp > 0) {
      const v = stack[sp - 1];
      const cur = cursor[sp - 1];
      if (cur < out0.start[v + 1]) {
        cursor[sp - 1] = cur + 1;
        const e = out0.idx[cur];
        const w = to[e];
        if (state[w] === 1) reversed[e] = 1;
        else if (state[w] === 0) {
          state[w] = 1;
          stack[sp] = w;
          cursor[sp] = out0.start[w];
          sp++;
        }
      } else {
        state[v] = 2;
        sp--;
      }
    }
  };
  visitSources(n, indeg0, state, visit);
  return reversed;
}

function inDegrees(n: number, from: Int32Array, to: Int32Array): Int32Array {
  const indeg = new Int32Array(n);
  for (let e = 0; e < from.length; e++) if (from[e] !== to[e]) indeg[to[e]]++;
  return indeg;
}

function visitSources(n: number, indeg: Int32Array, state: Uint8Array, visit: (v: number) => void): void {
  for (let v = 0; v < n; v++) if (indeg[v] === 0 && state[v] === 0) visit(v);
  for (let v = 0; v < n; v++) if (state[v] === 0) visit(v);
}

/** The edges with cycles broken: reversed edges turned round, self loops as -1 at both ends. */
function orientEdges(from: Int32Array, to: Int32Array, reversed: Uint8Array): { dagFrom: Int32Array; dagTo: Int32Array } {
  const m = from.length;
  const dagFrom = new Int32Array(m);
  const dagTo = new Int32Array(m);
  for (let e = 0; e < m; e++) {
    if (from[e] === to[e]) {
      dagFrom[e] = -1;
      dagTo[e] = -1;
    } else if (reversed[e]) {
      dagFrom[e] = to[e];
      dagTo[e] = from[e];
    } else {
      dagFrom[e] = from[e];
      dagTo[e] = to[e];
    }
  }
  return { dagFrom, dagTo };
}

type Csr = { start: Int32Array; idx: Int32Array };

/** Longest-path ranks in topological order (`topo` filled; returned as the order). */
function longestPathRanks(n: number, dagTo: Int32Array, dOut: Csr, dIn: Csr, rank: Int32Array, topo: Int32Array): void {
  const indeg = new Int32Array(n);
  for (let v = 0; v < n; v++) indeg[v] = dIn.start[v + 1] - dIn.start[v];
  let tail = 0;
  for (let v = 0; v < n; v++) if (indeg[v] === 0) topo[tail++] = v;
  kahnRanks(dagTo, dOut, indeg, rank, topo, tail);
}

function kahnRanks(dagTo: Int32Array, dOut: Csr, indeg: Int32Array, rank: Int32Array, topo: Int32Array, tail: number): void {
  let head = 0;
  while (head < tail) {
    const v = topo[head++];
    const rv = rank[v] + 1;
    for (let q = dOut.start[v]; q < dOut.start[v + 1]; q++) {
      const w = dagTo[dOut.idx[q]];
      if (rank[w] < rv) rank[w] = rv;
      if (--indeg[w] === 0) topo[tail++] = w;
    }
  }
}

/** Pulls nodes with more consumers than producers down to just above their nearest consumer. */
function pullDown(n: number, dagTo: Int32Array, dOut: Csr, dIn: Csr, rank: Int32Array, topo: Int32Array): void {
  for (let t = n - 1; t >= 0; t--) {
    const v = topo[t];
    const outd = dOut.start[v + 1] - dOut.start[v];
    const ind = dIn.start[v + 1] - dIn.start[v];
    if (outd === 0 || outd <= ind) continue;
    let min = Infinity;
    for (let q = dOut.start[v]; q < dOut.start[v + 1]; q++) {
      const r = rank[dagTo[dOut.idx[q]]];
      if (r < min) min = r;
    }
    if (min - 1 > rank[v]) rank[v] = min - 1;
  }
}

/** Shifts the ranks so the lowest is 0; returns the number of ranks. */
function normaliseRanks(n: number, rank: Int32Array): number {
  let lo = Infinity;
  for (let v = 0; v < n; v++) if (rank[v] < lo) lo = rank[v];
  if (lo > 0) for (let v = 0; v < n; v++) rank[v] -= lo;
  let rankCount = 0;
  for (let v = 0; v < n; v++) if (rank[v] + 1 > rankCount) rankCount = rank[v] + 1;
  return rankCount;
}

/**
 * Which edges get dummy nodes (one per rank they cross): all of them, unless that is over
 * `budget` dummies, then the shortest first up to it. Returns the number of dummies.
 */
function chooseDummies(dagFrom: Int32Array, dagTo: Int32Array, rank: Int32Array, budget: number, withDummies: Uint8Array): number {
  const m = dagFrom.length;
  let dummyTotal = 0;
  for (let e = 0; e < m; e++) {
    if (dagFrom[e] < 0) continue;
    dummyTotal += rank[dagTo[e]] - rank[dagFrom[e]] - 1;
  }
  if (dummyTotal <= budget) {
    for (let e = 0; e < m; e++) if (dagFrom[e] >= 0) withDummies[e] = 1;
    return dummyTotal;
  }
  const ids: number[] = [];
  for (let e = 0; e < m; e++) if (dagFrom[e] >= 0) ids.push(e);
  const span = (e: number): number => rank[dagTo[e]] - rank[dagFrom[e]];
  ids.sort((a, b) => span(a) - span(b) || a - b);
  let used = 0;
  for (const e of ids) {
    const need = span(e) - 1;
    if (used + need > budget) break;
    used += need;
    withDummies[e] = 1;
  }
  return used;
}

/** Numbers the dummies of each edge from `n` on (`dummyFirst`), ranks them (`lrank`); returns the number of segments. */
function placeDummies(n: number, dagFrom: Int32Array, dagTo: Int32Array, rank: Int32Array, withDummies: Uint8Array, dummyFirst: Int32Array, lrank: Int32Array): number {
  const m = dagFrom.length;
  let segCount = 0;
  let next = n;
  for (let e = 0; e < m; e++) {
    if (!withDummies[e]) continue;
    const a = dagFrom[e];
    const k = rank[dagTo[e]] - rank[a] - 1;
    dummyFirst[e] = next;
    for (let i = 0; i < k; i++) lrank[next + i] = rank[a] + 1 + i;
    next += k;
    segCount += k + 1;
  }
  return segCount;
}

/** The segments of the edges that have dummies: each from one rank to the next. */
function segments(dagFrom: Int32Array, dagTo: Int32Array, rank: Int32Array, withDummies: Uint8Array, dummyFirst: Int32Array, segFrom: Int32Array, segTo: Int32Array): void {
  const m = dagFrom.length;
  let s = 0;
  for (let e = 0; e < m; e++) {
    if (!withDummies[e]) continue;
    const a = dagFrom[e];
    const b = dagTo[e];
    const k = rank[b] - rank[a] - 1;
    let prev = a;
    for (let i = 0; i < k; i++) {
      segFrom[s] = prev;
      segTo[s] = dummyFirst[e] + i;
      prev = dummyFirst[e] + i;
      s++;
    }
    segFrom[s] = prev;
    segTo[s] = b;
    s++;
  }
}

/** The layered graph of the segments: neighbours below and above every node, layers by rank. */
function layered(n: number, count: number, rankCount: number, lrank: Int32Array, lacross: Float64Array, segFrom: Int32Array, segTo: Int32Array): LayeredGraph {
  const segCount = segFrom.length;
  const downC = csr(count, segFrom, segCount);
  const upC = csr(count, segTo, segCount);
  const down = new Int32Array(segCount);
  const up = new Int32Array(segCount);
  neighbourLists(segFrom, segTo, downC.idx, upC.idx, down, up);
  const layerStart = new Int32Array(rankCount + 1);
  countLayers(count, rankCount, lrank, layerStart);
  return {
    count,
    realCount: n,
    rankCount,
    rank: lrank,
    across: lacross,
    upStart: upC.start,
    up,
    downStart: downC.start,
    down,
    layerStart,
    order: new Int32Array(count),
    pos: new Int32Array(count),
  };
}

function neighbourLists(segFrom: Int32Array, segTo: Int32Array, downIdx: Int32Array, upIdx: Int32Array, down: Int32Array, up: Int32Array): void {
  for (let i = 0; i < segFrom.length; i++) {
    down[i] = segTo[downIdx[i]];
    up[i] = segFrom[upIdx[i]];
  }
}

function countLayers(count: number, rankCount: number, lrank: Int32Array, layerStart: Int32Array): void {
  for (let v = 0; v < count; v++) layerStart[lrank[v] + 1]++;
  for (let r = 0; r < rankCount; r++) layerStart[r + 1] += layerStart[r];
}

/** Centre of each rank along the ranks; returns the total length. */
function rankCentres(n: number, rankCount: number, rank: Int32Array, along: Float64Array, ranksep: number, rankY: Float64Array): number {
  const rankSize = new Float64Array(rankCount);
  for (let v = 0; v < n; v++) if (along[v] > rankSize[rank[v]]) rankSize[rank[v]] = along[v];
  let yAt = 0;
  for (let r = 0; r < rankCount; r++) {
    rankY[r] = yAt + rankSize[r] / 2;
    yAt += rankSize[r] + (r + 1 < rankCount ? ranksep : 0);
  }
  return yAt;
}

/** The extent across of the layered nodes (real and dummy) at centres `lx`. */
function acrossBounds(count: number, lx: Float64Array, lacross: Float64Array): { minX: number; maxX: number } {
  let minX = Infinity;
  let maxX = -Infinity;
  for (let v = 0; v < count; v++) {
    const h = lacross[v] / 2;
    if (lx[v] - h < minX) minX = lx[v] - h;
    if (lx[v] + h > maxX) maxX = lx[v] + h;
  }
  return { minX, maxX };
}

function rankYs(n: number, rank: Int32Array, rankY: Float64Array): Float64Array {
  const y = new Float64Array(n);
  for (let v = 0; v < n; v++) y[v] = rankY[rank[v]];
  return y;
}

/**
 * Edges between the same two nodes without bend points (two tensors from one op to the next)
 * would share one line: each gets its index among them (`parIndex`) and their number
 * (`parCount`), to be spread across, PARALLEL_SEP apart, each a line of its own.
 */
function parallelEdges(n: number, dagFrom: Int32Array, dagTo: Int32Array, rank: Int32Array, withDummies: Uint8Array, dOut: Csr): { parIndex: Int32Array; parCount: Int32Array } {
  const m = dagFrom.length;
  const parIndex = new Int32Array(m);
  const parCount = new Int32Array(m).fill(1);
  const seenFrom = new Int32Array(n).fill(-1);
  const countAt = new Int32Array(n);
  const straight = (e: number) => !withDummies[e] || rank[dagTo[e]] - rank[dagFrom[e]] <= 1;
  for (let v = 0; v < n; v++) {
    const q0 = dOut.start[v], q1 = dOut.start[v + 1];
    if (q1 - q0 < 2) continue;
    for (let q = q0; q < q1; q++) {
      const e = dOut.idx[q];
      if (!straight(e)) continue;
      const w = dagTo[e];
      if (seenFrom[w] !== v) {
        seenFrom[w] = v;
        countAt[w] = 0;
      }
      parIndex[e] = countAt[w]++;
    }
    for (let q = q0; q < q1; q++) {
      const e = dOut.idx[q];
      if (straight(e)) parCount[e] = countAt[dagTo[e]];
    }
  }
  return { parIndex, parCount };
}

/** Where each edge's points start: a self loop has 4, an edge with k dummies k + 2. */
function pointOffsets(dagFrom: Int32Array, dagTo: Int32Array, rank: Int32Array, withDummies: Uint8Array): Int32Array {
  const m = dagFrom.length;
  const offsets = new Int32Array(m + 1);
  for (let e = 0; e < m; e++) {
    const k = dagFrom[e] < 0 ? 2 : withDummies[e] ? rank[dagTo[e]] - rank[dagFrom[e]] - 1 : 0;
    offsets[e + 1] = offsets[e] + k + 2;
  }
  return offsets;
}

/** What the edge polylines are written from. */
interface EdgeGround {
  from: Int32Array;
  dagFrom: Int32Array;
  dagTo: Int32Array;
  reversed: Uint8Array;
  withDummies: Uint8Array;
  dummyFirst: Int32Array;
  rank: Int32Array;
  lrank: Int32Array;
  lx: Float64Array;
  rankY: Float64Array;
  x: Float64Array;
  y: Float64Array;
  across: Float64Array;
  along: Float64Array;
  parIndex: Int32Array;
  parCount: Int32Array;
}

/** Writes every edge's polyline into `points` (at `offsets`); returns the right end of the drawing (self loops reach past the nodes). */
function edgePolylines(g: EdgeGround, offsets: Int32Array, points: Float64Array, maxX: number): number {
  const { from, dagFrom, dagTo, reversed, withDummies, dummyFirst, rank, lrank, lx, rankY, x, y, across, along, parIndex, parCount } = g;
  const m = from.length;
  for (let e = 0; e < m; e++) {
    const a = from[e];
    const at0 = 2 * offsets[e];
    let at = at0;
    if (dagFrom[e] < 0) {
      // self loop: a small loop on the far side of the node
      const xr = x[a] + across[a] / 2;
      const q = along[a] / 4;
      points[at] = xr;
      points[at + 1] = y[a] - q;
      points[at + 2] = xr + SELF_LOOP;
      points[at + 3] = y[a] - q;
      points[at + 4] = xr + SELF_LOOP;
      points[at + 5] = y[a] + q;
      points[at + 6] = xr;
      points[at + 7] = y[a] + q;
      if (xr + SELF_LOOP > maxX) maxX = xr + SELF_LOOP;
      continue;
    }
    const u = dagFrom[e];
    const w = dagTo[e];
    // written from the upper end down, then turned round for a reversed edge
    const k = withDummies[e] ? rank[w] - rank[u] - 1 : 0;
    if (k === 0 && parCount[e] > 1) {
      const room = Math.max(0, Math.min(across[u], across[w]) / 2 - 2);
      const o = Math.max(-room, Math.min(room, (parIndex[e] - (parCount[e] - 1) / 2) * PARALLEL_SEP));
      points[at++] = x[u] + o;
      points[at++] = y[u] + along[u] / 2;
      points[at++] = x[w] + o;
      points[at++] = y[w] - along[w] / 2;
    } else {
      const d0 = dummyFirst[e];
      const nx = k > 0 ? lx[d0] : x[w];
      const ny = k > 0 ? rankY[lrank[d0]] : y[w];
      at = border(x[u], y[u], across[u], along[u], nx, ny, points, at);
      for (let i = 0; i < k; i++) {
        points[at++] = lx[d0 + i];
        points[at++] = rankY[lrank[d0 + i]];
      }
      const px = k > 0 ? lx[d0 + k - 1] : x[u];
      const py = k > 0 ? rankY[lrank[d0 + k - 1]] : y[u];
      at = border(x[w], y[w], across[w], along[w], px, py, points, at);
    }
    if (reversed[e]) reversePairs(points, at0, at - 2);
  }
  return maxX;
}

/** Reverses the (x, y) pairs of points[lo .. hi + 1] in place. */
function reversePairs(points: Float64Array, lo: number, hi: number): void {
  for (; lo < hi; lo += 2, hi -= 2) {
    const tx = points[lo], ty = points[lo + 1];
    points[lo] = points[hi];
    points[lo + 1] = points[hi + 1];
    points[hi] = tx;
    points[hi + 1] = ty;
  }
}

function layoutComponent(c: ComponentInput): ComponentResult {
  const { n, across, along, from, to, nodesep, edgesep, ranksep, report } = c;
  const m = from.length;

  // --- 1. cycles: DFS back edges are reversed --------------------------------------------
  const reversed = backEdges(n, from, to);
  report('acyclic', 0.1);

  // --- 2. ranks ------------------------------------------------------------------------------
  const { dagFrom, dagTo } = orientEdges(from, to, reversed);
  const dOut = csr(n, dagFrom, m);
  const dIn = csr(n, dagTo, m);
  const rank = new Int32Array(n);
  const topo = new Int32Array(n);
  longestPathRanks(n, dagTo, dOut, dIn, rank, topo);
  pullDown(n, dagTo, dOut, dIn, rank, topo);
  const rankCount = normaliseRanks(n, rank);
  report('rank', 0.2);

  // --- 3. dummy nodes ---------------------------------------------------------------------
  const withDummies = new Uint8Array(m);
  const dummyTotal = chooseDummies(dagFrom, dagTo, rank, 3 * (n + m) + 10000, withDummies);
  const count = n + dummyTotal;
  const dummyFirst = new Int32Array(m);
  const lrank = new Int32Array(count);
  lrank.set(rank);
  const lacross = new Float64Array(count);
  lacross.set(across);
  const segCount = placeDummies(n, dagFrom, dagTo, rank, withDummies, dummyFirst, lrank);
  const segFrom = new Int32Array(segCount);
  const segTo = new Int32Array(segCount);
  segments(dagFrom, dagTo, rank, withDummies, dummyFirst, segFrom, segTo);
  const g = layered(n, count, rankCount, lrank, lacross, segFrom, segTo);
  report('dummies', 0.3);

  // --- 4. crossing reduction --------------------------------------------------------------
  initialOrder(g);
  const sweeps = count > 200_000 ? 4 : count > 50_000 ? 8 : 16;
  reduceCrossings(g, sweeps, 4);
  report('order', 0.6);

  // --- 5. coordinates -----------------------------------------------------------------------
  const lx = assignAcross(g, nodesep, edgesep);
  const rankY = new Float64Array(rankCount);
  const yAt = rankCentres(n, rankCount, rank, along, ranksep, rankY);
  const { minX, maxX: maxLayered } = acrossBounds(count, lx, lacross);
  const x = lx.slice(0, n);
  const y = rankYs(n, rank, rankY);
  report('position', 0.85);

  // --- 6. edge polylines ----------------------------------------------------------------------
  const { parIndex, parCount } = parallelEdges(n, dagFrom, dagTo, rank, withDummies, dOut);
  const offsets = pointOffsets(dagFrom, dagTo, rank, withDummies);
  const points = new Float64Array(2 * offsets[m]);
  const maxX = edgePolylines(
    { from, dagFrom, dagTo, reversed, withDummies, dummyFirst, rank, lrank, lx, rankY, x, y, across, along, parIndex, parCount },
    offsets,
    points,
    maxLayered,
  );
  report('edges', 1);
  return { x, y, rank, offsets, points, reversed, minX, maxX, maxY: yAt };
}

/**
 * Places components side by side, top-aligned, in order. Only when that strip would be far
 * wider than the drawing is tall (thousands of small pieces) it wraps into rows, each row as
 * wide as the widest or tallest component or twice the square root of the total area.
 */
function packComponents(
  w: Float64Array,
  h: Float64Array,
  nodesep: number,
  ranksep: number,
): { dx: Float64Array; dy: Float64Array; width: number; height: number } {
  const count = w.length;
  const dx = new Float64Array(count);
  const dy = new Float64Array(count);
  let area = 0;
  let limit = 0;
  for (let c = 0; c < count; c++) {
    area += (w[c] + nodesep) * (h[c] + ranksep);
    limit = Math.max(limit, w[c], h[c]);
  }
  limit = Math.max(limit, 2 * Math.sqrt(area));
  let x = 0;
  let y = 0;
  let rowH = 0;
  let width = 0;
  for (let c = 0; c < count; c++) {
    if (x > 0 && x + w[c] > limit) {
      y += rowH + 2 * ranksep;
      x = 0;
      rowH = 0;
    }
    dx[c] = x;
    dy[c] = y;
    width = Math.max(width, x + w[c]);
    rowH = Math.max(rowH, h[c]);
    x += w[c] + nodesep;
  }
  return { dx, dy, width, height: count > 0 ? y + rowH : 0 };
}

/**
 * Lays out a graph. Edges whose ends are out of range get no points; an edge from a node to
 * itself gets a small loop. Result coordinates are node centres, origin at (0, 0).
 */
export function layout(input: LayoutInput, options: LayoutOptions, onProgress?: LayoutProgress): GraphLayout {
  const n = Math.min(input.widths.length, input.heights.length);
  const m = Math.min(input.edgeFrom.length, input.edgeTo.length);
  const nodesep = options.nodesep ?? 20;
  const ranksep = options.ranksep ?? 20;
  const edgesep = options.edgesep ?? nodesep / 2;
  const lr = options.direction === 'LR';
  const across = new Float64Array(n);
  const along = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    const w = clean(input.widths[v]);
    const h = clean(input.heights[v]);
    across[v] = lr ? h : w;
    along[v] = lr ? w : h;
  }
  onProgress?.('components', 0);

  // connected components (union-find), numbered by their smallest node
  const parent = new Int32Array(n);
  for (let v = 0; v < n; v++) parent[v] = v;
  const find = (v: number): number => {
    let r = v;
    while (parent[r] !== r) r = parent[r];
    while (parent[v] !== r) {
      const p = parent[v];
      parent[v] = r;
      v = p;
    }
    return r;
  };
  const valid = new Uint8Array(m);
  for (let e = 0; e < m; e++) {
    const a = input.edgeFrom[e];
    const b = input.edgeTo[e];
    if (a >= n || b >= n) continue;
    valid[e] = 1;
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) {
      if (ra < rb) parent[rb] = ra;
      else parent[ra] = rb;
    }
  }
  const compOf = new Int32Array(n);
  const compIdOfRoot = new Int32Array(n).fill(-1);
  let compCount = 0;
  for (let v = 0; v < n; v++) {
    const r = find(v);
    if (compIdOfRoot[r] < 0) compIdOfRoot[r] = compCount++;
    compOf[v] = compIdOfRoot[r];
  }
  const nodesBy = csr(compCount, compOf, n);
  const edgeComp = new Int32Array(m);
  for (let e = 0; e < m; e++) edgeComp[e] = valid[e] ? compOf[input.edgeFrom[e]] : -1;
  const edgesBy = csr(compCount, edgeComp, m);
  const local = new Int32Array(n);
  for (let c = 0; c < compCount; c++) {
    for (let i = nodesBy.start[c]; i < nodesBy.start[c + 1]; i++) local[nodesBy.idx[i]] = i - nodesBy.start[c];
  }

  // degrees for the chain fast path (self loops excluded: they disqualify a chain anyway,
  // since they count in the component's edges)
  const inDeg = new Int32Array(n);
  const outDeg = new Int32Array(n);
  const nextEdge = new Int32Array(n);
  for (let e = 0; e < m; e++) {
    if (!valid[e]) continue;
    const a = input.edgeFrom[e];
    const b = input.edgeTo[e];
    if (a === b) continue;
    outDeg[a]++;
    inDeg[b]++;
    nextEdge[a] = e;
  }

  const X = new Float64Array(n);
  const Y = new Float64Array(n);
  const rankOut = new Uint32Array(n);
  const reversed = new Uint8Array(m);
  const edgeCount = new Int32Array(m + 1);
  const edgePts: (Float64Array | null)[] = new Array<Float64Array | null>(compCount).fill(null);
  const edgeLocalOffsets: (Int32Array | null)[] = new Array<Int32Array | null>(compCount).fill(null);
  // each component is laid out at its own origin first, then packed (see packComponents)
  const compW = new Float64Array(compCount);
  const compH = new Float64Array(compCount);
  let done = 0;

  for (let c = 0; c < compCount; c++) {
    const ns = nodesBy.start[c];
    const size = nodesBy.start[c + 1] - ns;
    const es = edgesBy.start[c];
    const ec = edgesBy.start[c + 1] - es;
    if (size === 1 && ec === 0) {
      // a lone node: no layout to speak of (graphs can have thousands of these)
      const v = nodesBy.idx[ns];
      X[v] = across[v] / 2;
      Y[v] = along[v] / 2;
      compW[c] = across[v];
      compH[c] = along[v];
      done++;
      continue;
    }
    if (ec === size - 1 && size <= CHAIN_FAST_PATH_MAX) {
      // a simple chain (a -> b -> c ...): straight down, no layering needed
      let head = -1;
      let ok = true;
      for (let i = 0; i < size && ok; i++) {
        const v = nodesBy.idx[ns + i];
        if (inDeg[v] > 1 || outDeg[v] > 1) ok = false;
        else if (inDeg[v] === 0) head = head < 0 ? v : -2;
      }
      if (ok && head >= 0) {
        let wMax = 0;
        for (let i = 0; i < size; i++) wMax = Math.max(wMax, across[nodesBy.idx[ns + i]]);
        const cx = wMax / 2;
        let yAt = 0;
        let v = head;
        for (let r = 0; r < size; r++) {
          X[v] = cx;
          Y[v] = yAt + along[v] / 2;
          rankOut[v] = r;
          yAt += along[v] + (r + 1 < size ? ranksep : 0);
          if (r + 1 < size) v = input.edgeTo[nextEdge[v]];
        }
        const pts = new Float64Array(4 * ec);
        const offs = new Int32Array(ec + 1);
        for (let i = 0; i < ec; i++) {
          const e = edgesBy.idx[es + i];
          const a = input.edgeFrom[e];
          const b = input.edgeTo[e];
          pts.set([cx, Y[a] + along[a] / 2, cx, Y[b] - along[b] / 2], 4 * i);
          offs[i + 1] = 2 * (i + 1);
          edgeCount[e + 1] = 2;
        }
        edgePts[c] = pts;
        edgeLocalOffsets[c] = offs;
        compW[c] = wMax;
        compH[c] = yAt;
        done += size;
        continue;
      }
    }
    const big = size >= PROGRESS_MIN_NODES && onProgress !== undefined;
    const base = done;
    const report = big
      ? (phase: string, f: number): void => onProgress((phase), Math.min(1, (base + f * size) / n))
      : (): void => undefined;
    const cAcross = new Float64Array(size);
    const cAlong = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      const v = nodesBy.idx[ns + i];
      cAcross[i] = across[v];
      cAlong[i] = along[v];
    }
    const cFrom = new Int32Array(ec);
    const cTo = new Int32Array(ec);
    for (let i = 0; i < ec; i++) {
      const e = edgesBy.idx[es + i];
      cFrom[i] = local[input.edgeFrom[e]];
      cTo[i] = local[input.edgeTo[e]];
    }
    const res = layoutComponent({
      n: size,
      across: cAcross,
      along: cAlong,
      from: cFrom,
      to: cTo,
      nodesep,
      edgesep,
      ranksep,
      report,
    });
    const shift = -res.minX;
    for (let i = 0; i < size; i++) {
      const v = nodesBy.idx[ns + i];
      X[v] = res.x[i] + shift;
      Y[v] = res.y[i];
      rankOut[v] = res.rank[i];
    }
    const pts = res.points;
    for (let i = 0; i < pts.length; i += 2) pts[i] += shift;
    edgePts[c] = pts;
    edgeLocalOffsets[c] = res.offsets;
    for (let i = 0; i < ec; i++) {
      const e = edgesBy.idx[es + i];
      edgeCount[e + 1] = res.offsets[i + 1] - res.offsets[i];
      reversed[e] = res.reversed[i];
    }
    compW[c] = res.maxX - res.minX;
    compH[c] = res.maxY;
    done += size;
  }
  const { dx, dy, width, height } = packComponents(compW, compH, nodesep, ranksep);
  for (let v = 0; v < n; v++) {
    X[v] += dx[compOf[v]];
    Y[v] += dy[compOf[v]];
  }
  for (let c = 0; c < compCount; c++) {
    const pts = edgePts[c];
    if (!pts) continue;
    for (let i = 0; i < pts.length; i += 2) {
      pts[i] += dx[c];
      pts[i + 1] += dy[c];
    }
  }

  onProgress?.('assemble', 0.99);
  for (let e = 0; e < m; e++) edgeCount[e + 1] += edgeCount[e];
  const edgeOffsets = new Uint32Array(edgeCount);
  const edgePoints = new Float64Array(2 * edgeCount[m]);
  for (let c = 0; c < compCount; c++) {
    const pts = edgePts[c];
    const offs = edgeLocalOffsets[c];
    if (!pts || !offs) continue;
    const es = edgesBy.start[c];
    const ec = edgesBy.start[c + 1] - es;
    // a component whose edges are consecutive in the input (one big graph) is one copy
    let consecutive = ec > 0;
    for (let i = 1; i < ec && consecutive; i++) if (edgesBy.idx[es + i] !== edgesBy.idx[es] + i) consecutive = false;
    if (consecutive) {
      edgePoints.set(pts.subarray(2 * offs[0], 2 * offs[ec]), 2 * edgeOffsets[edgesBy.idx[es]]);
      continue;
    }
    for (let i = 0; i < ec; i++) {
      const e = edgesBy.idx[es + i];
      let to = 2 * edgeOffsets[e];
      for (let q = 2 * offs[i]; q < 2 * offs[i + 1]; q++) edgePoints[to++] = pts[q];
    }
  }
  const w = new Float64Array(n);
  const h = new Float64Array(n);
  for (let v = 0; v < n; v++) {
    w[v] = clean(input.widths[v]);
    h[v] = clean(input.heights[v]);
  }
  let result: GraphLayout;
  if (lr) {
    for (let i = 0; i < edgePoints.length; i += 2) {
      const t = edgePoints[i];
      edgePoints[i] = edgePoints[i + 1];
      edgePoints[i + 1] = t;
    }
    result = { direction: 'LR', width: height, height: width, x: Y, y: X, w, h, rank: rankOut, edgeOffsets, edgePoints, reversed };
  } else {
    result = { direction: 'TB', width, height, x: X, y: Y, w, h, rank: rankOut, edgeOffsets, edgePoints, reversed };
  }
  onProgress?.('done', 1);
  return result;
}
