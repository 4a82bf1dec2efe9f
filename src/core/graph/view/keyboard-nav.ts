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
  edges: ReadonlyArray<{ from: number; to: number }>,
  layout: Pick<GraphLayout, 'x' | 'y' | 'rank' | 'direction'>,
): NavIndex {
  const outStart = new Uint32Array(nodeCount + 1);
  const inStart = new Uint32Array(nodeCount + 1);
  const valid = (e: { from: number; to: number }) =>
    e.from >= 0 && e.from < nodeCount && e.to >= 0 && e.to < nodeCount && e.from !== e.to;
  for (const e of edges) {
    if (!valid(e)) continue;
    outStart[e.from + 1]++;
    inStart[e.to + 1]++;
  }
  for (let i = 0; i < nodeCount; i++) {
    outStart[i + 1] += outStart[i];
    inStart[i + 1] += inStart[i];
  }
  const outTargets = new Uint32Array(outStart[nodeCount]);
  const inSources = new Uint32Array(inStart[nodeCount]);
  const of = outStart.slice(0, nodeCount), inf = inStart.slice(0, nodeCount);
  for (const e of edges) {
    if (!valid(e)) continue;
    // keep edge order, but the same neighbour only once
    let dup = false;
    for (let k = outStart[e.from]; k < of[e.from]; k++) if (outTargets[k] === e.to) { dup = true; break; }
    if (!dup) outTargets[of[e.from]++] = e.to;
    dup = false;
    for (let k = inStart[e.to]; k < inf[e.to]; k++) if (inSources[k] === e.from) { dup = true; break; }
    if (!dup) inSources[inf[e.to]++] = e.from;
  }
  // close gaps left by duplicates: store end positions by shifting
  const compact = (start: Uint32Array, fill: Uint32Array, arr: Uint32Array) => {
    let w = 0;
    const ns = new Uint32Array(nodeCount + 1);
    for (let i = 0; i < nodeCount; i++) {
      ns[i] = w;
      for (let k = start[i]; k < fill[i]; k++) arr[w++] = arr[k];
    }
    ns[nodeCount] = w;
    return { start: ns, arr: arr.subarray(0, w) };
  };
  const o = compact(outStart, of, outTargets);
  const n = compact(inStart, inf, inSources);
  const across = layout.direction === 'LR' ? layout.y : layout.x;
  const idx = Array.from({ length: nodeCount }, (_, i) => i);
  idx.sort((a, b) => layout.rank[a] - layout.rank[b] || across[a] - across[b] || a - b);
  const order = Uint32Array.from(idx);
  const orderPos = new Uint32Array(nodeCount);
  for (let p = 0; p < nodeCount; p++) orderPos[order[p]] = p;
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
export function initialFocus(nav: NavIndex, selected: number | null, kinds?: ReadonlyArray<string>): number | null {
  const n = nav.order.length;
  if (n === 0) return null;
  if (selected !== null && selected >= 0 && selected < n) return selected;
  if (kinds) {
    for (let p = 0; p < n; p++) if (kinds[nav.order[p]] === 'input') return nav.order[p];
  }
  return nav.order[0];
}
