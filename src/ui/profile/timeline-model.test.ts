import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseText } from '../../core/systrace/index';
import {
  extentOf,
  firstVisibleMark,
  hitTest,
  layoutTimeline,
  lowerBound,
  markAnnouncement,
  nearestInRow,
  panToShow,
  ROW_GAP,
  ROW_HEIGHT,
  stepMark,
  type TimelineLayout,
  type TimelineStep,
} from './timeline-model';

const FIXTURE = join(__dirname, '..', '..', '..', 'test', 'fixtures', 'systrace', 'upstream', 'inputs');

function analysis(name: string) {
  return analyseText(readFileSync(join(FIXTURE, name), 'utf8'), name);
}

describe('timeline layout', () => {
  const a = analysis('omr1.trace.txt');

  it('places every mark of every run once, no two marks of a row overlapping', () => {
    for (const run of a.runs) {
      const lay = layoutTimeline(run.threads);
      const total = run.threads.reduce((s, t) => s + t.marks.length, 0);
      expect(lay.marks.length).toBe(total);
      expect(new Set(lay.marks.map((m) => m.id)).size).toBe(total);
      for (const lane of lay.lanes) {
        for (const row of lane.rows) {
          for (let i = 1; i < row.begin.length; i++) {
            expect(row.begin[i]!).toBeGreaterThanOrEqual(row.end[i - 1]!);
            expect(row.maxEnd[i]!).toBeGreaterThanOrEqual(row.maxEnd[i - 1]!);
          }
        }
      }
    }
  });

  it('groups app threads before driver threads and puts copies below the call stack', () => {
    const lay = layoutTimeline(a.runs[0]!.threads);
    expect(lay.groups.map((g) => g.kind)).toEqual(['app', 'driver']);
    const app = lay.lanes[0]!;
    expect(app.copyRow).not.toBeNull();
    for (let r = 0; r < app.copyRow!; r++) {
      for (let i = 0; i < app.rows[r]!.index.length; i++) expect(lay.marks[app.rows[r]!.index[i]!]!.copyOf).toBeUndefined();
    }
  });

  it('every table cell refers to marks drawn in its run, and the extent covers them', () => {
    for (const run of a.runs) {
      const lay = layoutTimeline(run.threads);
      for (const row of run.tables!.self.rows) {
        for (const cell of row.cells) {
          for (const id of cell.marks) expect(lay.byId.has(id)).toBe(true);
          if (cell.marks.length) expect(extentOf(lay, cell.marks)).not.toBeNull();
        }
      }
    }
  });

  it('hit-tests the top-level application mark in the middle of the run', () => {
    const lay = layoutTimeline(a.runs[0]!.threads);
    const lane = lay.lanes[0]!;
    const hit = hitTest(lay, lane.y + ROW_HEIGHT / 2, lay.spanUs / 2, 10);
    expect(hit).not.toBeNull();
    expect(lay.marks[hit!]!.name).toBe('mobilenet_quantized');
    const second = hitTest(lay, lane.y + ROW_HEIGHT + ROW_GAP + 2, lay.spanUs / 2, 10);
    expect(lay.marks[second!]!.name).toBe('BenchmarkModel::benchmark');
    expect(hitTest(lay, -50, 0, 10)).toBeNull();
  });

  it('incomplete runs: open marks reach past the last timestamp', () => {
    const b = analysis('omr1_incomplete.trace.txt');
    const run = b.runs[b.runs.length - 1]!;
    expect(run.status).toBe('incomplete');
    const lay = layoutTimeline(run.threads);
    const open = lay.lanes[0]!.rows[1]!;
    expect(open.end[0]! - open.begin[0]!).toBeGreaterThan(0);
  });

  it('lowerBound', () => {
    const arr = new Float64Array([1, 3, 3, 7]);
    expect([0, 1, 2, 3, 4, 7, 8].map((v) => lowerBound(arr, v))).toEqual([0, 0, 1, 1, 3, 3, 4]);
  });
});

describe('keyboard navigation over the timeline', () => {
  const a = analysis('omr1.trace.txt');
  const lay = layoutTimeline(a.runs[0]!.threads);
  const idx = (name: string, lane = 0) => lay.marks.findIndex((m, i) => (m.name === name) && lay.laneOf[i] === lane);
  const name = (i: number) => lay.marks[i]!.name;
  const walk = (from: number, ...steps: TimelineStep[]) => steps.reduce((i, s) => stepMark(lay, i, s), from);

  it('left and right go along one row of one thread in time order, stopping at its ends', () => {
    const row = lay.lanes[0]!.rows[3]!;
    const first = row.index[0]!;
    const seen = [first];
    for (let i = first, next = stepMark(lay, i, 'next'); next !== i; i = next, next = stepMark(lay, i, 'next')) seen.push(next);
    expect(seen).toEqual(Array.from(row.index));
    for (let k = 1; k < seen.length; k++) expect(lay.marks[seen[k]!]!.beginUs).toBeGreaterThanOrEqual(lay.marks[seen[k - 1]!]!.beginUs);
    expect(stepMark(lay, first, 'prev')).toBe(first);
    expect(stepMark(lay, seen.at(-1)!, 'next')).toBe(seen.at(-1));
    expect(stepMark(lay, seen[3]!, 'prev')).toBe(seen[2]);
    expect(stepMark(lay, seen[3]!, 'home')).toBe(first);
    expect(stepMark(lay, first, 'end')).toBe(seen.at(-1));
  });

  it('down goes to the first child, up back to the parent', () => {
    const top = idx('mobilenet_quantized');
    expect(lay.rowOf[top]).toBe(0);
    const bench = walk(top, 'down');
    expect(name(bench)).toBe('BenchmarkModel::benchmark');
    expect(lay.marks[bench]!.parent).toBe(lay.marks[top]!.id);
    const child = walk(bench, 'down');
    expect(name(child)).toBe('HIDL::IServiceManager::listByInterface::client'); // the earliest of three children
    expect(walk(child, 'up')).toBe(bench);
    expect(walk(child, 'up', 'up')).toBe(top);
    // from the third child, up is still its parent, and down from the parent is the first child again
    const third = walk(child, 'next', 'next');
    expect(name(third)).toBe('HIDL::IDevice::prepareModel::client');
    expect(walk(third, 'up', 'down')).toBe(child);
  });

  it('up from any mark whose parent is drawn in the row above is that parent', () => {
    for (const run of a.runs) {
      const l = layoutTimeline(run.threads);
      let checked = 0;
      l.marks.forEach((m, i) => {
        const p = m.parent === null ? undefined : l.byId.get(m.parent);
        if (p === undefined || l.laneOf[p] !== l.laneOf[i] || l.rowOf[p] !== l.rowOf[i]! - 1) return;
        expect(stepMark(l, i, 'up')).toBe(p);
        checked++;
      });
      expect(checked).toBeGreaterThan(0);
    }
  });

  it('rows continue across threads: below the copies of the app thread is the first driver row, and back', () => {
    const app = lay.lanes[0]!;
    const copies = app.rows[app.copyRow!]!;
    const lastCopy = copies.index[copies.index.length - 1]!;
    const down = stepMark(lay, lastCopy, 'down');
    expect(lay.laneOf[down]).toBe(1);
    expect(lay.rowOf[down]).toBe(0);
    // the driver mark nearest in time to the middle of the copy
    const row0 = lay.lanes[1]!.rows[0]!;
    const mid = (copies.begin[copies.index.length - 1]! + copies.end[copies.index.length - 1]!) / 2;
    expect(down).toBe(row0.index[nearestInRow(row0, mid)]);
    const back = stepMark(lay, down, 'up');
    expect(lay.laneOf[back]).toBe(0);
    expect(lay.rowOf[back]).toBe(app.copyRow);
    // a leaf with nothing below in its own thread: down reaches the copies row under it
    const leaf = app.rows[3]!.index[0]!;
    expect(lay.rowOf[stepMark(lay, leaf, 'down')]).toBe(4);
  });

  it('stops at the edges: up from the first row, down from the last', () => {
    const top = idx('mobilenet_quantized');
    expect(stepMark(lay, top, 'up')).toBe(top);
    const lastLane = lay.lanes[lay.lanes.length - 1]!;
    const lastRow = lastLane.rows[lastLane.rows.length - 1]!;
    const bottom = lastRow.index[0]!;
    expect(stepMark(lay, bottom, 'down')).toBe(bottom);
    expect(stepMark(lay, -1, 'next')).toBe(-1);
  });

  it('every mark of every run can be reached from the first one', () => {
    const reachAll = (l: TimelineLayout) => {
      const start = firstVisibleMark(l, 0, l.spanUs)!;
      const seen = new Uint8Array(l.marks.length);
      const queue = [start];
      seen[start] = 1;
      while (queue.length) {
        const i = queue.pop()!;
        for (const s of ['prev', 'next', 'up', 'down', 'home', 'end'] as const) {
          const j = stepMark(l, i, s);
          if (!seen[j]) {
            seen[j] = 1;
            queue.push(j);
          }
        }
      }
      // the marks no step reaches
      return [...seen.entries()].filter(([, v]) => v !== 1).map(([i]) => i);
    };
    for (const run of [...a.runs, ...analysis('omr1_incomplete.trace.txt').runs]) expect(reachAll(layoutTimeline(run.threads))).toEqual([]);
  });

  it('first visible mark: the topmost row showing something of the range', () => {
    expect(name(firstVisibleMark(lay, 0, lay.spanUs)!)).toBe('mobilenet_quantized');
    // a window inside the driver's getCapabilities call: the app's top mark still covers it
    expect(name(firstVisibleMark(lay, 100000, 100100)!)).toBe('mobilenet_quantized');
    // past the end of everything: the first mark drawn
    expect(name(firstVisibleMark(lay, lay.spanUs + 10, lay.spanUs + 20)!)).toBe('mobilenet_quantized');
    expect(firstVisibleMark(layoutTimeline([]), 0, 1)).toBeNull();
  });

  it('nearest in a row: the covering mark, else the smallest gap', () => {
    const row = lay.lanes[0]!.rows[2]!; // [67209-147310] [147774-149290] [150063-694948]
    expect(nearestInRow(row, 100000)).toBe(0);
    expect(nearestInRow(row, 147500)).toBe(0); // 190 after the first, 274 before the second
    expect(nearestInRow(row, 147600)).toBe(1);
    expect(nearestInRow(row, 0)).toBe(0);
    expect(nearestInRow(row, 1e9)).toBe(2);
  });

  it('pans the least to show a mark, keeping the zoom and the run bounds', () => {
    expect(panToShow(100, 200, 120, 150, 1000)).toEqual([100, 200]); // inside: unchanged
    expect(panToShow(100, 200, 250, 260, 1000)).toEqual([170, 270]); // right of the view: 10% margin
    expect(panToShow(100, 200, 40, 60, 1000)).toEqual([30, 130]); // left of the view
    expect(panToShow(100, 200, 0, 5, 1000)).toEqual([0, 100]); // clamped at the run start
    expect(panToShow(100, 200, 990, 1000, 1000)).toEqual([900, 1000]); // and at its end
    expect(panToShow(100, 200, 50, 500, 1000)).toEqual([100, 200]); // wider than the view and filling it
    expect(panToShow(100, 200, 190, 600, 1000)).toEqual([180, 280]); // wider, a sliver shown: its start brought in
    expect(panToShow(100, 200, 100, 195, 1000)).toEqual([100, 200]);
    expect(panToShow(100, 200, 95, 190, 1000)).toEqual([92.5, 192.5]); // nearly as wide as the view: centred margin
  });

  it('announces name, layer and phase, elapsed time as text', () => {
    expect(markAnnouncement(lay.marks[idx('mobilenet_quantized')]!)).toBe('mobilenet_quantized, Application Overall, 737.796 ms');
    const b = analysis('omr1_incomplete.trace.txt');
    const run = b.runs[b.runs.length - 1]!;
    const open = run.threads.flatMap((t) => t.marks).find((m) => m.endUs === null)!;
    expect(markAnnouncement(open)).toMatch(/, open \(no end mark\)$/);
  });
});
