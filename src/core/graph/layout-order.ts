/**
 * Crossing reduction for the layered layout: an initial order by depth-first search, then
 * bounded barycenter sweeps that keep the best order seen (crossings counted exactly with an
 * accumulator tree, Barth-Juenger-Mutzel). Everything on typed arrays; no recursion.
 */

/** A proper layered graph: every edge joins two adjacent ranks. Nodes 0..realCount-1 are real. */
export interface LayeredGraph {
  /** real + dummy nodes */
  count: number;
  realCount: number;
  rankCount: number;
  rank: Int32Array;
  /** size across the ranks (x in TB); 0 for dummies */
  across: Float64Array;
  /** neighbours in rank - 1: up[upStart[v] .. upStart[v + 1]) */
  upStart: Int32Array;
  up: Int32Array;
  /** neighbours in rank + 1 */
  downStart: Int32Array;
  down: Int32Array;
  /** nodes of rank r in order: order[layerStart[r] .. layerStart[r + 1]) */
  layerStart: Int32Array;
  order: Int32Array;
  /** index of each node inside its rank */
  pos: Int32Array;
}

/** Fills g.order / g.pos with a depth-first order: chains stay together from the start. */
export function initialOrder(g: LayeredGraph): void {
  const { count, rankCount, rank, layerStart, order, pos, downStart, down } = g;
  // nodes sorted by rank, then index (counting sort, stable)
  const fill = new Int32Array(rankCount);
  for (let r = 0; r < rankCount; r++) fill[r] = layerStart[r];
  const byRank = new Int32Array(count);
  {
    const next = Int32Array.from(fill);
    for (let v = 0; v < count; v++) byRank[next[rank[v]]++] = v;
  }
  const visited = new Uint8Array(count);
  const stack = new Int32Array(count + down.length + 1);
  for (let k = 0; k < count; k++) {
    const s = byRank[k];
    if (visited[s]) continue;
    let sp = 0;
    stack[sp++] = s;
    while (sp > 0) {
      const v = stack[--sp];
      if (visited[v]) continue;
      visited[v] = 1;
      const r = rank[v];
      pos[v] = fill[r] - layerStart[r];
      order[fill[r]++] = v;
      for (let i = downStart[v + 1] - 1; i >= downStart[v]; i--) {
        const w = down[i];
        if (!visited[w]) stack[sp++] = w;
      }
    }
  }
}

/** Exact number of edge crossings of the current order. */
export function countCrossings(g: LayeredGraph): number {
  const { rankCount, layerStart, order, pos, downStart, down } = g;
  let maxLayer = 0;
  for (let r = 0; r < rankCount; r++) maxLayer = Math.max(maxLayer, layerStart[r + 1] - layerStart[r]);
  const tree = new Int32Array(maxLayer + 1);
  const tmp: number[] = [];
  let total = 0;
  for (let r = 0; r + 1 < rankCount; r++) {
    const size = layerStart[r + 2] - layerStart[r + 1];
    tree.fill(0, 0, size + 1);
    let inserted = 0;
    for (let i = layerStart[r]; i < layerStart[r + 1]; i++) {
      const v = order[i];
      const a = downStart[v];
      const b = downStart[v + 1];
      if (a === b) continue;
      tmp.length = 0;
      if (b - a > 16) {
        // a hub: sort properly (insertion sort would be quadratic)
        for (let k = a; k < b; k++) tmp.push(pos[down[k]]);
        tmp.sort((x, y) => x - y);
      } else {
        for (let k = a; k < b; k++) {
          // insertion sort: neighbour lists are short
          const p = pos[down[k]];
          let j = tmp.length;
          tmp.push(p);
          while (j > 0 && tmp[j - 1] > p) {
            tmp[j] = tmp[j - 1];
            j--;
          }
          tmp[j] = p;
        }
      }
      for (let k = 0; k < tmp.length; k++) {
        const p = tmp[k] + 1; // Fenwick is 1-based
        let le = 0;
        for (let q = p; q > 0; q -= q & -q) le += tree[q];
        total += inserted - le;
        for (let q = p; q <= size; q += q & -q) tree[q]++;
        inserted++;
      }
    }
  }
  return total;
}

/**
 * Barycenter sweeps, alternating down and up, with alternating tie bias (as dagre does);
 * stops after `patience` sweeps without improvement, after `maxSweeps`, or at zero crossings.
 */
export function reduceCrossings(g: LayeredGraph, maxSweeps = 16, patience = 4): number {
  const { count, rankCount, layerStart, order, pos } = g;
  let best = countCrossings(g);
  if (best === 0 || rankCount < 2) return best;
  const bestOrder = Int32Array.from(order);
  const bary = new Float64Array(count);
  const scratch = new Int32Array(order.length);
  const sortable: number[] = [];
  let sinceBest = 0;
  for (let sweep = 0; sweep < maxSweeps && sinceBest < patience; sweep++) {
    const downward = sweep % 2 === 0;
    const biasRight = sweep % 4 >= 2;
    const nbStart = downward ? g.upStart : g.downStart;
    const nb = downward ? g.up : g.down;
    const cmp = biasRight
      ? (a: number, b: number): number => bary[a] - bary[b] || pos[b] - pos[a]
      : (a: number, b: number): number => bary[a] - bary[b] || pos[a] - pos[b];
    for (let k = 1; k < rankCount; k++) {
      const r = downward ? k : rankCount - 1 - k;
      const s = layerStart[r];
      const e = layerStart[r + 1];
      if (e - s < 2) continue;
      sortable.length = 0;
      for (let i = s; i < e; i++) {
        const v = order[i];
        scratch[i] = v;
        const a = nbStart[v];
        const b = nbStart[v + 1];
        if (a === b) continue;
        let sum = 0;
        for (let q = a; q < b; q++) sum += pos[nb[q]];
        bary[v] = sum / (b - a);
        sortable.push(v);
      }
      if (sortable.length === 0) continue;
      if (sortable.length > 16) sortable.sort(cmp);
      else {
        // insertion sort: most layers hold a handful of nodes, where a sort() call costs more than the sorting
        for (let q = 1; q < sortable.length; q++) {
          const v = sortable[q]!;
          let j = q;
          while (j > 0 && cmp(sortable[j - 1]!, v) > 0) {
            sortable[j] = sortable[j - 1]!;
            j--;
          }
          sortable[j] = v;
        }
      }
      // nodes without neighbours keep their slot; the others fill the remaining slots in order
      let j = 0;
      for (let i = s; i < e; i++) {
        const v = scratch[i];
        const fixed = nbStart[v] === nbStart[v + 1];
        order[i] = fixed ? v : sortable[j++];
      }
      for (let i = s; i < e; i++) pos[order[i]] = i - s;
    }
    const c = countCrossings(g);
    if (c < best) {
      best = c;
      bestOrder.set(order);
      sinceBest = 0;
      if (best === 0) break;
    } else {
      sinceBest++;
    }
  }
  order.set(bestOrder);
  for (let r = 0; r < rankCount; r++) {
    for (let i = layerStart[r]; i < layerStart[r + 1]; i++) pos[order[i]] = i - layerStart[r];
  }
  return best;
}
