import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { analyseText } from '../../core/systrace/index';
import { extentOf, hitTest, layoutTimeline, lowerBound, ROW_GAP, ROW_HEIGHT } from './timeline-model';

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
