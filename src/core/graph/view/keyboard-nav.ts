/**
 * Keyboard navigation between graph nodes: which node an arrow key moves to.
 * Down = first consumer, Up = first producer, Left/Right = previous/next node in the same rank
 * (ordered across the rank), Home/End = first/last node. DOM-free.
 */
import type { GraphLayout } from '../layout-types';

export interface NavIndex {
  /** consumers of node i: outTargets[outStart[i] .. outStart[i + 1]) */
  outStart: Uint32Array;
  outTargets: Uint32Array;
  inStart: Uint32Array;
  inSources: Uint32Array;
  /** nodes sorted by (rank, position across the rank) */
  order: Uint32Array;
  /** position of node i in `order` */
  orderPos: Uint32Array;
  rank: Uint32Array;
}

export type NavKey = 'ArrowUp' | 'ArrowDown' | 'ArrowLeft' | 'ArrowRight' | 'Home' | 'End';

export function buildNavIndex(
  nodeCount: number,
  edgeFrom: ArrayLike<number>,
  edgeTo: ArrayLike<number>,
  layout: Pick<GraphLayout, 'x' | 'y' | 'rank' | 'direction'>,
): NavIndex {
  const m = Math.min(edgeFrom.length, edgeTo.length);
  const outStart = new Uint32Array(nodeCount + 1);
  const inStart = new Uint32Array(nodeCount + 1);
  const valid = (a: number, b: number) => a >= 0 && a < nodeCount && b >= 0 && b < nodeCount && a !== b;
  for (let e = 0; e < m; e++) {
    const a = edgeFrom[e]!, b = edgeTo[e]!;
    if (!valid(a, b)) continue;
    outStart[a + 1]++;
    inStart[b + 1]++;
  }
  for (let i = 0; i < nodeCount; i++) {
    outStart[i + 1] += outStart[i]!;
    inStart[i + 1] += inStart[i]!;
  }
  const outTargets = new Uint32Array(outStart[nodeCount]!);
  const inSources = new Uint32Array(inStart[nodeCount]!);
  const of = outStart.slice(0, nodeCount), inf = inStart.slice(0, nodeCount);
  for (let e = 0; e < m; e++) {
    const a = edgeFrom[e]!, b = edgeTo[e]!;
    if (!valid(a, b)) continue;
    outTargets[of[a]!++] = b;
    inSources[inf[b]!++] = a;
  }
  // keep edge order, but the same neighbour only once (parallel edges); linear, even for hubs
  const seen = new Int32Array(nodeCount);
  const compact = (start: Uint32Array, arr: Uint32Array) => {
    let w = 0;
    const ns = new Uint32Array(nodeCount + 1);
    for (let i = 0; i < nodeCount; i++) {
      ns[i] = w;
      for (let k = start[i]!; k < start[i + 1]!; k++) {
        const v = arr[k]!;
        if (seen[v] === i + 1) continue;
        seen[v] = i + 1;
        arr[w++] = v;
      }
    }
    ns[nodeCount] = w;
    seen.fill(0);
    return { start: ns, arr: w === arr.length ? arr : arr.subarray(0, w) };
  };
  const o = compact(outStart, outTargets);
  const n = compact(inStart, inSources);
  // nodes by rank (counting sort, stable), then across the rank within each rank
  const across = layout.direction === 'LR' ? layout.y : layout.x;
  let ranks = 0;
  for (let i = 0; i < nodeCount; i++) if (layout.rank[i]! + 1 > ranks) ranks = layout.rank[i]! + 1;
  const rankStart = new Uint32Array(ranks + 1);
  for (let i = 0; i < nodeCount; i++) rankStart[layout.rank[i]! + 1]++;
  for (let r = 0; r < ranks; r++) rankStart[r + 1] += rankStart[r]!;
  const order = new Uint32Array(nodeCount);
  {
    const next = rankStart.slice(0, ranks);
    for (let i = 0; i < nodeCount; i++) order[next[layout.rank[i]!]!++] = i;
  }
  const cmp = (a: number, b: number) => across[a]! - across[b]! || a - b;
  for (let r = 0; r < ranks; r++) {
    const s = rankStart[r]!, e = rankStart[r + 1]!;
    if (e - s > 16) order.subarray(s, e).sort(cmp);
    else {
      // insertion sort: most ranks hold a handful of nodes, where a sort() call costs more than the sorting
      for (let q = s + 1; q < e; q++) {
        const v = order[q]!;
        let j = q;
        while (j > s && cmp(order[j - 1]!, v) > 0) {
          order[j] = order[j - 1]!;
          j--;
        }
        order[j] = v;
      }
    }
  }
  const orderPos = new Uint32Array(nodeCount);
  for (let p = 0; p < nodeCount; p++) orderPos[order[p]!] = p;
  return { outStart: o.start, outTargets: o.arr, inStart: n.start, inSources: n.arr, order, orderPos, rank: layout.rank };
}

/** The node a key moves to from `current`, or null when there is none in that direction. */
export function navTarget(nav: NavIndex, current: number, key: NavKey): number | null {
  const n = nav.order.length;
  if (n === 0) return null;
  if (key === 'Home') return nav.order[0];
  if (key === 'End') return nav.order[n - 1];
  if (current < 0 || current >= n) return nav.order[0];
  switch (key) {
    case 'ArrowDown':
      return nav.outStart[current + 1] > nav.outStart[current] ? nav.outTargets[nav.outStart[current]] : null;
    case 'ArrowUp':
      return nav.inStart[current + 1] > nav.inStart[current] ? nav.inSources[nav.inStart[current]] : null;
    case 'ArrowLeft': {
      const p = nav.orderPos[current];
      if (p === 0) return null;
      const prev = nav.order[p - 1];
      return nav.rank[prev] === nav.rank[current] ? prev : null;
    }
    case 'ArrowRight': {
      const p = nav.orderPos[current];
      if (p + 1 >= n) return null;
      const next = nav.order[p + 1];
      return nav.rank[next] === nav.rank[current] ? next : null;
    }
  }
  return null;
}

/** The node that Tab lands on first: the selection if any, else the first graph input, else the first node. */
export function initialFocus(nav: NavIndex, selected: number | null, kinds?: ReadonlyArray<string> | ((node: number) => string)): number | null {
  const n = nav.order.length;
  if (n === 0) return null;
  if (selected !== null && selected >= 0 && selected < n) return selected;
  if (kinds) {
    const kind = typeof kinds === 'function' ? kinds : (i: number) => kinds[i];
    for (let p = 0; p < n; p++) if (kind(nav.order[p]) === 'input') return nav.order[p];
  }
  return nav.order[0];
}
