/**
 * Timeline layout of one run: the tracked threads grouped by process (app first, then driver),
 * one lane per thread, one row per nesting depth. Every row keeps its marks in flat typed arrays
 * sorted by begin time, so drawing can cull by time range with a binary search and skip whole
 * pixels of sub-pixel marks without touching them.
 *
 * Within one row of one thread marks never overlap (they are at the same depth of one call
 * stack), so both begin and end times are sorted, which the binary searches rely on.
 */
import type { TimelineMark, TimelineThread } from '../../core/systrace/model';
import { LAYER_NAMES, PHASE_NAMES } from '../../core/systrace/model';
import { formatUs } from './format';

/** Layers in legend order; the index is the colour slot drawn for a mark. */
export const LAYER_ORDER = ['LA', 'LR', 'LI', 'LD', 'LC', 'LO', 'LU', 'LX'] as const;

export function layerSlot(layer: string): number {
  const i = (LAYER_ORDER as readonly string[]).indexOf(layer);
  return i < 0 ? LAYER_ORDER.indexOf('LO') : i;
}

export const FLAG_IGNORED = 1;
export const FLAG_OPEN = 2;
export const FLAG_SUBTRACT = 4;
export const FLAG_SYNTHETIC = 8;

export interface TimelineRow {
  /** begin and end in µs relative to the run's origin */
  begin: Float64Array;
  end: Float64Array;
  /** running maximum of end (sorted, for culling) */
  maxEnd: Float64Array;
  slot: Uint8Array;
  flags: Uint8Array;
  /** index into TimelineLayout.marks */
  index: Int32Array;
  /** y of the row's top in CSS pixels, from the top of the lanes */
  y: number;
}

export interface TimelineLane {
  thread: TimelineThread;
  /** y of the lane top (its first row) */
  y: number;
  height: number;
  rows: TimelineRow[];
  /** first row holding the copies made by the tree rewrites (drawn below the call stack), or null */
  copyRow: number | null;
}

export interface TimelineGroup {
  kind: 'app' | 'driver';
  tgid: number;
  label: string;
  /** y of the group heading */
  y: number;
  lanes: TimelineLane[];
}

export interface TimelineLayout {
  /** absolute µs of time 0 */
  originUs: number;
  /** length of the run in µs (at least 1) */
  spanUs: number;
  groups: TimelineGroup[];
  lanes: TimelineLane[];
  /** every mark drawn, in lane/row order; `laneOf[i]`, `rowOf[i]`, `posOf[i]` locate it */
  marks: TimelineMark[];
  laneOf: Int32Array;
  rowOf: Int32Array;
  posOf: Int32Array;
  /** mark id -> index into marks */
  byId: Map<number, number>;
  height: number;
  markCount: number;
}

export const ROW_HEIGHT = 18;
export const ROW_GAP = 2;
export const LANE_PAD = 5;
export const GROUP_HEAD = 22;

/** Lays out the threads of one run. Marks still open at the end of the run reach its last time. */
export function layoutTimeline(threads: TimelineThread[]): TimelineLayout {
  let origin = Infinity;
  let last = -Infinity;
  for (const t of threads) {
    for (const m of t.marks) {
      if (m.beginUs < origin) origin = m.beginUs;
      const e = m.endUs ?? m.beginUs;
      if (e > last) last = e;
      if (m.beginUs > last) last = m.beginUs;
    }
  }
  if (!Number.isFinite(origin)) {
    origin = 0;
    last = 1;
  }
  // marks still open at the end of an incomplete run: show them running on a little past the
  // last timestamp, so that one that began last is still visible
  if (threads.some((t) => t.marks.some((m) => m.endUs === null))) last += Math.max(1000, (last - origin) * 0.04);
  const spanUs = Math.max(1, last - origin);

  // groups: app processes first, then driver processes, in order of first appearance
  const groupMap = new Map<string, { kind: 'app' | 'driver'; tgid: number; threads: TimelineThread[] }>();
  for (const kind of ['app', 'driver'] as const) {
    for (const t of threads) {
      if (t.kind !== kind) continue;
      const key = `${kind}:${t.tgid}`;
      let g = groupMap.get(key);
      if (!g) groupMap.set(key, (g = { kind, tgid: t.tgid, threads: [] }));
      g.threads.push(t);
    }
  }

  const marks: TimelineMark[] = [];
  const lanes: TimelineLane[] = [];
  const groups: TimelineGroup[] = [];
  let total = 0;
  for (const t of threads) total += t.marks.length;
  const laneOf = new Int32Array(total);
  const rowOf = new Int32Array(total);
  const posOf = new Int32Array(total);
  const byId = new Map<number, number>();

  let y = 0;
  for (const g of groupMap.values()) {
    const group: TimelineGroup = {
      kind: g.kind,
      tgid: g.tgid,
      label: `${g.kind === 'app' ? 'App' : 'Driver'} process ${g.tgid}`,
      y,
      lanes: [],
    };
    y += GROUP_HEAD;
    for (const thread of g.threads) {
      // rows: each mark at its call depth; copies made by the rewrites (and anything that would
      // overlap) packed into extra rows below, so that no two marks of a row overlap
      const sorted = thread.marks.slice().sort((a, b) => a.beginUs - b.beginUs || (b.endUs ?? last) - (a.endUs ?? last));
      const buckets: TimelineMark[][] = [];
      const rowEnd: number[] = [];
      const deferred: TimelineMark[] = [];
      for (const m of sorted) {
        const d = m.depth;
        if (m.copyOf !== undefined || (rowEnd[d] ?? -Infinity) > m.beginUs) {
          deferred.push(m);
          continue;
        }
        while (buckets.length <= d) buckets.push([]);
        buckets[d]!.push(m);
        rowEnd[d] = Math.max(m.endUs ?? last, m.beginUs);
      }
      const primaryRows = Math.max(1, buckets.length);
      while (buckets.length < primaryRows) buckets.push([]);
      for (const m of deferred) {
        let r = primaryRows;
        while ((rowEnd[r] ?? -Infinity) > m.beginUs) r++;
        while (buckets.length <= r) buckets.push([]);
        buckets[r]!.push(m);
        rowEnd[r] = Math.max(m.endUs ?? last, m.beginUs);
      }
      const laneIndex = lanes.length;
      const laneTop = y + LANE_PAD;
      const rows: TimelineRow[] = buckets.map((bucket, depth) => {
        const n = bucket.length;
        const row: TimelineRow = {
          begin: new Float64Array(n),
          end: new Float64Array(n),
          maxEnd: new Float64Array(n),
          slot: new Uint8Array(n),
          flags: new Uint8Array(n),
          index: new Int32Array(n),
          y: laneTop + depth * (ROW_HEIGHT + ROW_GAP),
        };
        for (let i = 0; i < n; i++) {
          const m = bucket[i]!;
          const mi = marks.length;
          marks.push(m);
          byId.set(m.id, mi);
          laneOf[mi] = laneIndex;
          rowOf[mi] = depth;
          posOf[mi] = i;
          row.begin[i] = m.beginUs - origin;
          row.end[i] = (m.endUs ?? last) - origin;
          row.slot[i] = m.ignored ? LAYER_ORDER.indexOf('LX') : layerSlot(m.layer);
          row.flags[i] =
            (m.ignored ? FLAG_IGNORED : 0) |
            (m.endUs === null ? FLAG_OPEN : 0) |
            (m.subtract ? FLAG_SUBTRACT : 0) |
            (m.synthetic ? FLAG_SYNTHETIC : 0);
          row.index[i] = mi;
        }
        // running maximum of the ends: binary searches stay valid even where ignored marks overlap
        let run = -Infinity;
        for (let i = 0; i < n; i++) row.maxEnd[i] = run = Math.max(run, row.end[i]!);
        return row;
      });
      const rowsHeight = Math.max(1, rows.length) * (ROW_HEIGHT + ROW_GAP) - ROW_GAP;
      const lane: TimelineLane = { thread, y: laneTop, height: rowsHeight, rows, copyRow: buckets.length > primaryRows ? primaryRows : null };
      lanes.push(lane);
      group.lanes.push(lane);
      y = laneTop + rowsHeight + LANE_PAD;
    }
    groups.push(group);
    y += 4;
  }
  return { originUs: origin, spanUs, groups, lanes, marks, laneOf, rowOf, posOf, byId, height: Math.max(y, 40), markCount: total };
}

/** First index i with arr[i] >= value (arr sorted ascending). */
export function lowerBound(arr: Float64Array, value: number, lo = 0, hi = arr.length): number {
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (arr[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The mark under a point: row by y, then the mark covering time `t` (µs), or else the nearest
 * within `slackUs` (so that sub-pixel marks can be hovered). Returns an index into layout.marks.
 */
export function hitTest(layout: TimelineLayout, y: number, t: number, slackUs: number): number | null {
  for (const lane of layout.lanes) {
    if (y < lane.y - 1 || y > lane.y + lane.height + 1) continue;
    const depth = Math.floor((y - lane.y) / (ROW_HEIGHT + ROW_GAP));
    const row = lane.rows[Math.min(lane.rows.length - 1, Math.max(0, depth))];
    if (!row || row.begin.length === 0) return null;
    // marks whose end >= t - slack, the first candidate
    let i = lowerBound(row.maxEnd, t - slackUs);
    let best: number | null = null;
    let bestDist = Infinity;
    for (; i < row.begin.length && row.begin[i]! <= t + slackUs; i++) {
      const b = row.begin[i]!;
      const e = row.end[i]!;
      const d = t < b ? b - t : t > e ? t - e : 0;
      // prefer counted marks over ignored ones drawn at the same place
      const score = d + (row.flags[i]! & FLAG_IGNORED ? 0.5 : 0);
      if (score < bestDist) {
        bestDist = score;
        best = row.index[i]!;
      }
      if (d === 0 && !(row.flags[i]! & FLAG_IGNORED)) break;
    }
    return best;
  }
  return null;
}

/** Time range covering the given marks (relative µs), or null when none is in the layout. */
export function extentOf(layout: TimelineLayout, ids: Iterable<number>): [number, number] | null {
  let lo = Infinity;
  let hi = -Infinity;
  for (const id of ids) {
    const i = layout.byId.get(id);
    if (i === undefined) continue;
    const lane = layout.lanes[layout.laneOf[i]!]!;
    const row = lane.rows[layout.rowOf[i]!]!;
    const p = layout.posOf[i]!;
    if (row.begin[p]! < lo) lo = row.begin[p]!;
    if (row.end[p]! > hi) hi = row.end[p]!;
  }
  return Number.isFinite(lo) ? [lo, Math.max(hi, lo + 1)] : null;
}

/**
 * Keyboard steps over the drawn marks: `prev` / `next` along the same row of one thread by time,
 * `home` / `end` to the row's first and last mark, `up` to the parent (when it is drawn in the
 * row above) or else to the mark of the row above nearest in time, `down` to the first child (in
 * the row below) or else to the nearest mark of the row below. Rows continue across threads:
 * above the first row of a thread is the last row of the thread above it, and below its last
 * row the first row of the next one (empty rows are skipped).
 */
export type TimelineStep = 'prev' | 'next' | 'home' | 'end' | 'up' | 'down';

/** The row of one lane that holds a mark; null for an index outside the layout. */
function rowAt(layout: TimelineLayout, index: number): TimelineRow | null {
  if (index < 0 || index >= layout.marks.length) return null;
  return layout.lanes[layout.laneOf[index]!]?.rows[layout.rowOf[index]!] ?? null;
}

/** The next non-empty row above (dir -1) or below (dir +1) a lane's row, crossing lanes; null at the edge. */
function adjacentRow(layout: TimelineLayout, lane: number, row: number, dir: -1 | 1): TimelineRow | null {
  let l = lane;
  let r = row + dir;
  while (l >= 0 && l < layout.lanes.length) {
    const rows = layout.lanes[l]!.rows;
    while (r >= 0 && r < rows.length) {
      if (rows[r]!.begin.length > 0) return rows[r]!;
      r += dir;
    }
    l += dir;
    if (l >= 0 && l < layout.lanes.length) r = dir > 0 ? 0 : layout.lanes[l]!.rows.length - 1;
  }
  return null;
}

/**
 * Position in `row` of the mark nearest to time `t`: one covering it, else the one with the
 * smallest gap; counted marks before ignored ones drawn at the same place, then the earliest.
 */
export function nearestInRow(row: TimelineRow, t: number): number {
  const n = row.begin.length;
  let best = -1;
  let bestScore = Infinity;
  const consider = (i: number) => {
    const b = row.begin[i]!;
    const e = row.end[i]!;
    const d = t < b ? b - t : t > e ? t - e : 0;
    const score = d * 2 + (row.flags[i]! & FLAG_IGNORED ? 1 : 0);
    if (score < bestScore) {
      bestScore = score;
      best = i;
    }
  };
  // every mark before `first` ends before t; the last of them is the nearest on that side
  const first = lowerBound(row.maxEnd, t);
  if (first > 0) consider(first - 1);
  let i = first;
  for (; i < n && row.begin[i]! <= t; i++) consider(i);
  if (i < n) consider(i);
  return best < 0 ? 0 : best;
}

/** Where a keyboard step from mark `from` (an index into layout.marks) goes; `from` itself when it cannot move. */
export function stepMark(layout: TimelineLayout, from: number, step: TimelineStep): number {
  const row = rowAt(layout, from);
  if (!row) return from;
  const lane = layout.laneOf[from]!;
  const r = layout.rowOf[from]!;
  const p = layout.posOf[from]!;
  const n = row.begin.length;
  switch (step) {
    case 'prev':
      return p > 0 ? row.index[p - 1]! : from;
    case 'next':
      return p + 1 < n ? row.index[p + 1]! : from;
    case 'home':
      return row.index[0]!;
    case 'end':
      return row.index[n - 1]!;
    case 'up': {
      const parentId = layout.marks[from]!.parent;
      const parent = parentId === null ? undefined : layout.byId.get(parentId);
      if (parent !== undefined && layout.laneOf[parent] === lane && layout.rowOf[parent] === r - 1) return parent;
      const above = adjacentRow(layout, lane, r, -1);
      return above ? above.index[nearestInRow(above, (row.begin[p]! + row.end[p]!) / 2)]! : from;
    }
    case 'down': {
      const below = adjacentRow(layout, lane, r, 1);
      if (!below) return from;
      const b = row.begin[p]!;
      const e = row.end[p]!;
      const id = layout.marks[from]!.id;
      if (below === layout.lanes[lane]!.rows[r + 1]) {
        // the first child: the earliest mark of the row below whose parent this is
        for (let i = lowerBound(below.maxEnd, b); i < below.begin.length && below.begin[i]! <= e; i++) {
          if (layout.marks[below.index[i]!]!.parent === id) return below.index[i]!;
        }
      }
      return below.index[nearestInRow(below, (b + e) / 2)]!;
    }
  }
}

/**
 * The mark focused when the keyboard enters the timeline with nothing focused or selected: the
 * first mark of the topmost row that shows something of the visible range [t0, t1], else the
 * first mark drawn. Null for an empty layout.
 */
export function firstVisibleMark(layout: TimelineLayout, t0: number, t1: number): number | null {
  let first: number | null = null;
  for (const lane of layout.lanes) {
    for (const row of lane.rows) {
      const n = row.begin.length;
      if (n === 0) continue;
      if (first === null) first = row.index[0]!;
      for (let i = lowerBound(row.maxEnd, t0); i < n && row.begin[i]! <= t1; i++) {
        if (row.end[i]! >= t0) return row.index[i]!;
      }
    }
  }
  return first;
}

/**
 * The visible range after bringing [b, e] into [t0, t1] with the least panning (the zoom is
 * kept): unchanged when the mark is inside, or when it is wider than the view and fills at least
 * a quarter of it; otherwise moved so that the mark (or its start, when wider than the view)
 * sits a little inside the edge it came from. Kept within [0, spanUs].
 */
export function panToShow(t0: number, t1: number, b: number, e: number, spanUs: number): [number, number] {
  const len = t1 - t0;
  const w = e - b;
  if (b >= t0 && e <= t1) return [t0, t1];
  let a: number;
  if (w >= len) {
    const shown = Math.min(e, t1) - Math.max(b, t0);
    if (shown >= len * 0.25) return [t0, t1];
    a = b - len * 0.1;
  } else {
    const margin = Math.min(len * 0.1, (len - w) / 2);
    a = b < t0 ? b - margin : e + margin - len;
  }
  a = Math.max(0, Math.min(a, spanUs - len));
  return [a, a + len];
}

/** What a screen reader hears for a focused mark: `<name>, <layer> <phase>, <elapsed> ms` (plain text). */
export function markAnnouncement(m: TimelineMark): string {
  const layer = LAYER_NAMES[m.layer] ?? m.layer;
  const phase = PHASE_NAMES[m.effectivePhase] ?? m.effectivePhase;
  return `${m.name || m.mark}, ${layer} ${phase}, ${formatUs(m.elapsedUs)}${m.ignored ? ', ignored' : ''}`;
}
