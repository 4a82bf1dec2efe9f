/**
 * Canvas drawing of the profile timeline. One pass per row collects rectangles into per-colour
 * batches (culling by time with a binary search, merging sub-pixel marks into one-pixel runs and
 * jumping over everything that falls inside a pixel already drawn), then fills every batch with
 * one fill style: fillRect per rectangle (one path of thousands of rectangles rasterises several
 * times slower in Chromium's software raster, measured with bench/profile-timeline.ts).
 * Labels are drawn only on bars wide enough to hold a few characters.
 */
import {
  FLAG_IGNORED,
  FLAG_OPEN,
  FLAG_SUBTRACT,
  LAYER_ORDER,
  lowerBound,
  ROW_HEIGHT,
  type TimelineLayout,
} from './timeline-model';
import type { TimelinePalette } from './palette';

export interface TimelineView {
  /** visible time range, µs relative to the layout origin */
  t0: number;
  t1: number;
  /** CSS pixels */
  width: number;
  height: number;
  dpr: number;
}

export interface TimelineMarksState {
  /** per layout.marks index: 1 when the mark is in the highlighted set (null: no highlight) */
  highlight: Uint8Array | null;
  selected: number | null;
  hovered: number | null;
  /** the keyboard focus, drawn with a focus ring (null while the timeline is not focused by keyboard) */
  focused: number | null;
}

export interface DrawStats {
  rects: number;
  labels: number;
}

const SLOTS = LAYER_ORDER.length;
const IGNORED_SLOT = LAYER_ORDER.indexOf('LX');
const LABEL_MIN_PX = 34;
const FONT = '11px system-ui, -apple-system, "Segoe UI", Roboto, Ubuntu, sans-serif';

/** Rectangles of one colour, as a growable flat array (x, y, w) with a shared height. */
class Batch {
  data = new Float32Array(1024);
  n = 0;
  push(x: number, y: number, w: number) {
    if (this.n + 3 > this.data.length) {
      const next = new Float32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.n++] = x;
    this.data[this.n++] = y;
    this.data[this.n++] = w;
  }
}

const widthCache = new Map<string, number>();

function measure(ctx: CanvasRenderingContext2D, text: string): number {
  let w = widthCache.get(text);
  if (w === undefined) {
    w = ctx.measureText(text).width;
    if (widthCache.size > 20000) widthCache.clear();
    widthCache.set(text, w);
  }
  return w;
}

/** The longest prefix of `text` (with an ellipsis) that fits `maxW` pixels. */
function fit(ctx: CanvasRenderingContext2D, text: string, maxW: number): string | null {
  const full = measure(ctx, text);
  if (full <= maxW) return text;
  const perChar = full / text.length;
  const n = Math.floor(maxW / perChar) - 1;
  if (n < 2) return null;
  return `${text.slice(0, n)}…`;
}

export class TimelineRenderer {
  private batches: Batch[] = Array.from({ length: SLOTS * 2 }, () => new Batch());
  private outline = new Batch();
  private hatch: Batch = new Batch();
  private hatchPattern: CanvasPattern | null = null;
  private hatchTheme = '';

  draw(
    ctx: CanvasRenderingContext2D,
    layout: TimelineLayout,
    view: TimelineView,
    palette: TimelinePalette,
    state: TimelineMarksState,
    ticks: number[],
  ): DrawStats {
    const { width, height, dpr, t0, t1 } = view;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    ctx.fillStyle = palette.background;
    ctx.fillRect(0, 0, width, height);
    const k = width / Math.max(1e-9, t1 - t0);

    // lane backgrounds (alternating), group bands
    layout.lanes.forEach((lane, i) => {
      if (i % 2 === 1) {
        ctx.fillStyle = palette.laneAlt;
        ctx.fillRect(0, lane.y - 5, width, lane.height + 10);
      }
    });
    for (const g of layout.groups) {
      ctx.fillStyle = palette.groupBg;
      ctx.fillRect(0, g.y, width, 20);
    }
    // separator above the rows of copies made by the rewrites
    ctx.strokeStyle = palette.muted;
    ctx.globalAlpha = 0.45;
    ctx.lineWidth = 1;
    ctx.setLineDash([3, 3]);
    ctx.beginPath();
    for (const lane of layout.lanes) {
      if (lane.copyRow === null) continue;
      const y = Math.round(lane.rows[lane.copyRow]!.y - 1) + 0.5;
      ctx.moveTo(0, y);
      ctx.lineTo(width, y);
    }
    ctx.stroke();
    ctx.setLineDash([]);
    ctx.globalAlpha = 1;
    // grid
    ctx.fillStyle = palette.grid;
    for (const t of ticks) {
      const x = Math.round((t - t0) * k);
      if (x >= 0 && x <= width) ctx.fillRect(x, 0, 1, height);
    }

    for (const b of this.batches) b.n = 0;
    this.outline.n = 0;
    this.hatch.n = 0;
    const labels: { x: number; y: number; w: number; mark: number; slot: number; dim: boolean; open: boolean }[] = [];
    const hl = state.highlight;
    let rects = 0;
    const pxUs = 1 / k;

    for (const lane of layout.lanes) {
      for (const row of lane.rows) {
        const n = row.begin.length;
        if (n === 0) continue;
        const y = row.y;
        let i = lowerBound(row.maxEnd, t0);
        let lastSlot = -1;
        let lastBatch: Batch | null = null;
        let lastEnd = -Infinity;
        while (i < n) {
          const b = row.begin[i]!;
          if (b > t1) break;
          const e = row.end[i]!;
          const flags = row.flags[i]!;
          const mi = row.index[i]!;
          const dim = hl !== null && hl[mi] === 0;
          const slot = row.slot[i]! + (dim ? SLOTS : 0);
          let x0 = (b - t0) * k;
          let x1 = (e - t0) * k;
          if (x1 - x0 < 1) {
            // sub-pixel: one pixel column stands for every mark that ends inside it
            const px = Math.floor(x0);
            if (lastBatch !== null && lastSlot === slot && lastEnd >= px) {
              const wIdx = lastBatch.n - 1;
              lastBatch.data[wIdx] = Math.max(lastBatch.data[wIdx]!, px + 1 - lastBatch.data[wIdx - 2]!);
            } else {
              const batch = this.batches[slot]!;
              batch.push(px, y, 1);
              lastBatch = batch;
              lastSlot = slot;
              rects++;
            }
            lastEnd = px + 1;
            if (hl !== null && !dim) this.outline.push(px, y, 1);
            // jump to the first mark that reaches into the next pixel
            const next = lowerBound(row.maxEnd, t0 + (px + 1) * pxUs, i + 1);
            i = next > i ? next : i + 1;
            continue;
          }
          if (x0 < -2) x0 = -2;
          if (x1 > width + 2) x1 = width + 2;
          const w = x1 - x0;
          const batch = this.batches[slot]!;
          batch.push(x0, y, w > 2.5 ? w - 0.5 : w);
          lastBatch = null;
          lastSlot = -1;
          lastEnd = x1;
          rects++;
          if (hl !== null && !dim) this.outline.push(x0, y, w);
          if (flags & FLAG_SUBTRACT && w > 4) this.hatch.push(x0, y, w);
          if (w >= LABEL_MIN_PX && !(flags & FLAG_IGNORED)) labels.push({ x: x0, y, w, mark: mi, slot: row.slot[i]!, dim, open: (flags & FLAG_OPEN) !== 0 });
          i++;
        }
      }
    }

    // fills, one path per colour; ignored marks faint
    for (let s = 0; s < SLOTS * 2; s++) {
      const batch = this.batches[s]!;
      if (batch.n === 0) continue;
      const base = s % SLOTS;
      ctx.fillStyle = s < SLOTS ? palette.layer[base]! : palette.layerDim[base]!;
      ctx.globalAlpha = base === IGNORED_SLOT ? 0.55 : 1;
      const d = batch.data;
      for (let j = 0; j < batch.n; j += 3) ctx.fillRect(d[j]!, d[j + 1]!, d[j + 2]!, ROW_HEIGHT);
    }
    ctx.globalAlpha = 1;

    // subtracted marks: hatched
    if (this.hatch.n > 0) {
      ctx.fillStyle = this.pattern(ctx, palette);
      const d = this.hatch.data;
      for (let j = 0; j < this.hatch.n; j += 3) ctx.fillRect(d[j]!, d[j + 1]!, d[j + 2]!, ROW_HEIGHT);
    }

    // highlighted marks: outlined
    if (this.outline.n > 0) {
      ctx.strokeStyle = palette.highlight;
      ctx.lineWidth = 1.5;
      const d = this.outline.data;
      for (let j = 0; j < this.outline.n; j += 3) ctx.strokeRect(d[j]! + 0.75, d[j + 1]! + 0.75, Math.max(0.5, d[j + 2]! - 1.5), ROW_HEIGHT - 1.5);
    }

    // labels
    ctx.font = FONT;
    ctx.textBaseline = 'middle';
    for (const l of labels) {
      const m = layout.marks[l.mark]!;
      const left = Math.max(l.x, 0);
      const right = Math.min(l.x + l.w, width);
      const text = fit(ctx, l.open ? `${m.name} (open: no end mark)` : m.name, right - left - 8);
      if (text === null) continue;
      ctx.fillStyle = l.dim ? palette.muted : palette.layerText[l.slot]!;
      ctx.fillText(text, left + 4, l.y + ROW_HEIGHT / 2 + 0.5);
    }

    this.strokeMark(ctx, layout, view, state.hovered, palette.selected, 1);
    this.strokeMark(ctx, layout, view, state.selected, palette.selected, 2.5);
    this.focusRing(ctx, layout, view, state.focused, palette);
    return { rects, labels: labels.length };
  }

  /**
   * The keyboard focus: a ring in the focus colour a few pixels outside the bar, separated from
   * it by a line of the background, so it reads on every fill and next to the selection outline;
   * at least 9 px wide, so that a sub-pixel mark shows where it is.
   */
  private focusRing(ctx: CanvasRenderingContext2D, layout: TimelineLayout, view: TimelineView, mark: number | null, palette: TimelinePalette) {
    if (mark === null) return;
    const lane = layout.lanes[layout.laneOf[mark]!];
    if (!lane) return;
    const row = lane.rows[layout.rowOf[mark]!]!;
    const p = layout.posOf[mark]!;
    const k = view.width / (view.t1 - view.t0);
    let x0 = (row.begin[p]! - view.t0) * k;
    let x1 = (row.end[p]! - view.t0) * k;
    if (x1 - x0 < 1) {
      const c = (x0 + x1) / 2;
      x0 = c - 0.5;
      x1 = c + 0.5;
    }
    x0 = Math.max(-8, x0);
    x1 = Math.min(view.width + 8, x1);
    if (x1 < -6 || x0 > view.width + 6) return;
    ctx.strokeStyle = palette.background;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - 2, row.y - 2, x1 - x0 + 4, ROW_HEIGHT + 4);
    ctx.strokeStyle = palette.focus;
    ctx.lineWidth = 2;
    ctx.strokeRect(x0 - 4, row.y - 4, x1 - x0 + 8, ROW_HEIGHT + 8);
  }

  private strokeMark(ctx: CanvasRenderingContext2D, layout: TimelineLayout, view: TimelineView, mark: number | null, colour: string, lw: number) {
    if (mark === null) return;
    const lane = layout.lanes[layout.laneOf[mark]!];
    if (!lane) return;
    const row = lane.rows[layout.rowOf[mark]!]!;
    const p = layout.posOf[mark]!;
    const k = view.width / (view.t1 - view.t0);
    const x0 = Math.max(-4, (row.begin[p]! - view.t0) * k);
    const x1 = Math.min(view.width + 4, (row.end[p]! - view.t0) * k);
    ctx.strokeStyle = colour;
    ctx.lineWidth = lw;
    ctx.strokeRect(x0 - lw / 2, row.y - lw / 2, Math.max(1, x1 - x0) + lw, ROW_HEIGHT + lw);
  }

  private pattern(ctx: CanvasRenderingContext2D, palette: TimelinePalette): CanvasPattern | string {
    if (this.hatchPattern && this.hatchTheme === palette.background) return this.hatchPattern;
    const c = document.createElement('canvas');
    c.width = c.height = 6;
    const p = c.getContext('2d');
    if (!p) return 'transparent';
    p.strokeStyle = palette.background === '#ffffff' ? 'rgba(255,255,255,0.45)' : 'rgba(0,0,0,0.4)';
    p.lineWidth = 1.5;
    p.beginPath();
    p.moveTo(-1, 7);
    p.lineTo(7, -1);
    p.moveTo(5, 7);
    p.lineTo(7, 5);
    p.moveTo(-1, 1);
    p.lineTo(1, -1);
    p.stroke();
    this.hatchPattern = ctx.createPattern(c, 'repeat');
    this.hatchTheme = palette.background;
    return this.hatchPattern ?? 'transparent';
  }
}
