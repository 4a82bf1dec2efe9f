/**
 * Timeline of one run: every tracked thread's marks as nested bars on a canvas, coloured by
 * layer, app and driver processes in labelled groups. d3 scales and d3-zoom drive the time axis
 * (wheel zooms, drag pans, double-click fits); the axis, the lane labels and the tooltip are DOM.
 * Drawing happens at most once per animation frame; `window.__npuTimelineStats` counts frames.
 *
 * Keyboard: the canvas is one tab stop holding a roving focus over the marks (`stepMark` in
 * timeline-model.ts): arrows move it, Enter selects, Escape clears the selection, + / − zoom,
 * Shift+arrows pan, 0 fits. The focused mark gets a focus ring, is panned and scrolled into
 * view, and is announced as text through an aria-live line under the canvas.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { scaleLinear, select, zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type Selection, type ZoomBehavior, type ZoomTransform } from 'd3';
import type { TimelineMark, TimelineThread } from '../../core/systrace/model';
import { LAYER_NAMES, PHASE_NAMES } from '../../core/systrace/model';
import { formatUs, tickLabel } from './format';
import { timelinePalette, type Theme } from './palette';
import {
  extentOf,
  firstVisibleMark,
  GROUP_HEAD,
  hitTest,
  layoutTimeline,
  markAnnouncement,
  panToShow,
  ROW_HEIGHT,
  stepMark,
  type TimelineLayout,
  type TimelineStep,
} from './timeline-model';
import { TimelineRenderer } from './timeline-render';

declare global {
  interface Window {
    __npuTimelineStats?: { framesDrawn: number; lastFrameMs: number; rects: number; labels: number; marks: number };
  }
}

export interface TimelineProps {
  threads: TimelineThread[];
  theme: Theme;
  /** ids of the marks to highlight (a table cell's contributors); null for none */
  highlight: readonly number[] | null;
  selectedId: number | null;
  onSelect: (mark: TimelineMark | null) => void;
  /** accessible description of the run shown */
  label: string;
}

const GUTTER = 188;
const AXIS_H = 26;
const MIN_VISIBLE_US = 5;

/** Arrow keys (without modifiers) and Home / End move the keyboard focus between marks. */
const STEP_KEYS: Record<string, TimelineStep> = {
  ArrowLeft: 'prev',
  ArrowRight: 'next',
  ArrowUp: 'up',
  ArrowDown: 'down',
  Home: 'home',
  End: 'end',
};

/** The keyboard focus: a mark index, and whether to name its thread (it is on another thread than before). */
interface KeyFocus {
  index: number;
  newThread: boolean;
}

export function layerPhaseText(m: TimelineMark): string {
  const layer = LAYER_NAMES[m.layer] ?? m.layer;
  const phase = PHASE_NAMES[m.effectivePhase] ?? m.effectivePhase;
  const written = m.phase !== m.effectivePhase ? ` (written ${PHASE_NAMES[m.phase] ?? m.phase})` : '';
  return `${layer} · ${phase}${written}`;
}

export function Timeline({ threads, theme, highlight, selectedId, onSelect, label }: TimelineProps) {
  const layout: TimelineLayout = useMemo(() => layoutTimeline(threads), [threads]);
  const hostRef = useRef<HTMLDivElement>(null);
  const canvasRef = useRef<HTMLCanvasElement>(null);
  const axisRef = useRef<SVGSVGElement>(null);
  const renderer = useRef(new TimelineRenderer());
  const transform = useRef<ZoomTransform>(zoomIdentity);
  const zoomRef = useRef<ZoomBehavior<HTMLCanvasElement, unknown> | null>(null);
  const [width, setWidth] = useState(800);
  const [hover, setHover] = useState<{ mark: number; x: number; y: number } | null>(null);
  const [focus, setFocus] = useState<KeyFocus | null>(null);
  /** the canvas has the focus and the last input was the keyboard: draw the ring, announce */
  const [focusShown, setFocusShown] = useState(false);
  const focusProxy = useRef<HTMLDivElement>(null);
  const visible = useRef<[number, number]>([0, layout.spanUs]);
  /** the range an animated zoom is heading for, while it runs */
  const goal = useRef<[number, number] | null>(null);
  const visibleLabel = useRef<HTMLDivElement>(null);
  const frame = useRef(0);
  const palette = timelinePalette(theme);

  const highlightFlags = useMemo(() => {
    if (!highlight) return null;
    const f = new Uint8Array(layout.marks.length);
    for (const id of highlight) {
      const i = layout.byId.get(id);
      if (i !== undefined) f[i] = 1;
    }
    return f;
  }, [highlight, layout]);
  const selectedIndex = selectedId === null ? null : (layout.byId.get(selectedId) ?? null);

  // everything the draw needs, read through a ref so that draws never wait for React
  const focusIndex = focus !== null && focus.index < layout.marks.length ? focus.index : null;
  const focusedForDraw = focusShown ? focusIndex : null;
  const live = useRef({ layout, width, palette, highlightFlags, selectedIndex, hovered: null as number | null, focused: null as number | null });
  live.current = { layout, width, palette, highlightFlags, selectedIndex, hovered: hover?.mark ?? null, focused: focusedForDraw };

  const baseScale = useCallback(() => scaleLinear().domain([0, live.current.layout.spanUs]).range([0, live.current.width]), []);

  const drawNow = useCallback(() => {
    frame.current = 0;
    const canvas = canvasRef.current;
    const ctx = canvas?.getContext('2d', { alpha: false });
    if (!canvas || !ctx) return;
    const start = performance.now();
    const { layout: lay, width: w, palette: pal } = live.current;
    const x = transform.current.rescaleX(baseScale());
    const [t0, t1] = x.domain() as [number, number];
    const ticks = x.ticks(Math.max(2, Math.floor(w / 110)));
    const dpr = window.devicePixelRatio || 1;
    const h = lay.height;
    if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
      canvas.width = Math.round(w * dpr);
      canvas.height = Math.round(h * dpr);
      canvas.style.width = `${w}px`;
      canvas.style.height = `${h}px`;
    }
    const stats = renderer.current.draw(ctx, lay, { t0, t1, width: w, height: h, dpr }, pal, {
      highlight: live.current.highlightFlags,
      selected: live.current.selectedIndex,
      hovered: live.current.hovered,
      focused: live.current.focused,
    }, ticks);
    // axis (DOM): ticks relative to the run start
    const axis = axisRef.current;
    if (axis) {
      const step = ticks.length > 1 ? ticks[1]! - ticks[0]! : t1 - t0;
      const g = select(axis).selectAll<SVGGElement, number>('g.tick').data(ticks, (d) => d);
      g.exit().remove();
      const enter = g.enter().append('g').attr('class', 'tick');
      enter.append('line').attr('y1', AXIS_H - 6).attr('y2', AXIS_H);
      enter.append('text').attr('y', AXIS_H - 10).attr('x', 3);
      const all = enter.merge(g);
      all.attr('transform', (d) => `translate(${Math.round(x(d)) + 0.5},0)`);
      all.select('text').text((d) => tickLabel(d, step)).attr('text-anchor', (d) => (x(d) > w - 56 ? 'end' : 'start')).attr('x', (d) => (x(d) > w - 56 ? -3 : 3));
    }
    const ms = performance.now() - start;
    const s = (window.__npuTimelineStats ??= { framesDrawn: 0, lastFrameMs: 0, rects: 0, labels: 0, marks: 0 });
    s.framesDrawn++;
    s.lastFrameMs = ms;
    s.rects = stats.rects;
    s.labels = stats.labels;
    s.marks = lay.markCount;
  }, [baseScale]);

  const requestDraw = useCallback(() => {
    if (!frame.current) frame.current = requestAnimationFrame(drawNow);
  }, [drawNow]);

  // size
  useEffect(() => {
    const host = hostRef.current;
    if (!host) return;
    const ro = new ResizeObserver(() => setWidth(Math.max(200, host.clientWidth - GUTTER)));
    ro.observe(host);
    return () => ro.disconnect();
  }, []);

  // zoom behaviour (wheel zooms time, drag pans, no y movement)
  useEffect(() => {
    const canvas = canvasRef.current;
    if (!canvas) return;
    const sel: Selection<HTMLCanvasElement, unknown, null, undefined> = select(canvas);
    const z = d3zoom<HTMLCanvasElement, unknown>()
      .clickDistance(4)
      .filter((event: Event) => {
        const e = event as MouseEvent;
        return (!e.ctrlKey || e.type === 'wheel') && !e.button;
      })
      .on('zoom', (event: D3ZoomEvent<HTMLCanvasElement, unknown>) => {
        transform.current = event.transform;
        const d = event.transform.rescaleX(baseScale()).domain() as [number, number];
        visible.current = d;
        if (visibleLabel.current) visibleLabel.current.textContent = `${formatUs(d[1] - d[0])} visible`;
        requestDraw();
      });
    zoomRef.current = z;
    sel.call(z).on('dblclick.zoom', null);
    return () => {
      sel.on('.zoom', null);
      zoomRef.current = null;
    };
  }, [baseScale, requestDraw]);

  // constrain to the run whenever the size or the run changes, keeping the visible range
  const setRange = useCallback(
    (a: number, b: number, animate: boolean) => {
      const z = zoomRef.current;
      const canvas = canvasRef.current;
      if (!z || !canvas) return;
      const w = live.current.width;
      const span = live.current.layout.spanUs;
      z.extent([
        [0, 0],
        [w, 1],
      ])
        .translateExtent([
          [0, 0],
          [w, 1],
        ])
        .scaleExtent([1, Math.max(1, span / MIN_VISIBLE_US)]);
      const lo = Math.max(0, a);
      const hi = Math.min(span, Math.max(b, lo + MIN_VISIBLE_US));
      const k = span / (hi - lo);
      const t = zoomIdentity.translate((-lo * w * k) / span, 0).scale(k);
      const sel = select(canvas);
      if (animate) {
        // keyboard steps during the transition start from where it is going, not from where it is
        goal.current = [lo, hi];
        sel
          .transition()
          .duration(280)
          .call(z.transform, t)
          .on('end.goal interrupt.goal', () => {
            goal.current = null;
          });
      } else sel.call(z.transform, t);
    },
    [],
  );

  const fitAll = useCallback((animate: boolean) => setRange(0, live.current.layout.spanUs, animate), [setRange]);

  // a new run: fit it
  useEffect(() => {
    fitAll(false);
    setHover(null);
    setFocus(null);
  }, [layout, fitAll]);

  // a resize: keep the visible range
  const prevWidth = useRef(width);
  useEffect(() => {
    if (prevWidth.current !== width) {
      prevWidth.current = width;
      const [a, b] = visible.current;
      setRange(a, b, false);
    }
    requestDraw();
  }, [width]); // eslint-disable-line react-hooks/exhaustive-deps

  // a highlighted set: zoom to fit it
  useEffect(() => {
    if (!highlight || highlight.length === 0) return;
    const ext = extentOf(layout, highlight);
    if (!ext) return;
    const pad = Math.max((ext[1] - ext[0]) * 0.06, MIN_VISIBLE_US);
    setRange(ext[0] - pad, ext[1] + pad, true);
  }, [highlight, layout, setRange]);

  // a selection (a click, Enter, the details panel, a cell's list) moves the keyboard focus to it
  useEffect(() => {
    if (selectedIndex !== null) setFocus((f) => (f?.index === selectedIndex ? f : { index: selectedIndex, newThread: false }));
  }, [selectedIndex]);

  // a mark selected elsewhere (the details panel, a cell's list): bring it into view
  useEffect(() => {
    if (selectedId === null) return;
    const ext = extentOf(layout, [selectedId]);
    if (!ext) return;
    const [a, b] = visible.current;
    if (ext[0] >= a && ext[1] <= b) return;
    const len = Math.max(ext[1] - ext[0], (b - a) * 0.25);
    const pad = len * 0.15;
    setRange(ext[0] - pad, ext[0] + len + pad, true);
  }, [selectedId, layout, setRange]);

  // any state change: redraw
  useEffect(() => {
    requestDraw();
  }, [theme, highlightFlags, selectedIndex, hover, layout, focusedForDraw, requestDraw]);

  // the focused mark's row scrolled into the page's view (the proxy sits on that row)
  useEffect(() => {
    if (focusedForDraw !== null) focusProxy.current?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }, [focusedForDraw]);

  useEffect(
    () => () => {
      // StrictMode unmounts and remounts: forget the cancelled frame so that the next request draws
      cancelAnimationFrame(frame.current);
      frame.current = 0;
    },
    [],
  );

  const markAt = (clientX: number, clientY: number): number | null => {
    const canvas = canvasRef.current;
    if (!canvas) return null;
    const r = canvas.getBoundingClientRect();
    const px = clientX - r.left;
    const py = clientY - r.top;
    const x = transform.current.rescaleX(baseScale());
    const t = x.invert(px);
    const slack = x.invert(px + 3) - t;
    return hitTest(layout, py, t, slack);
  };

  const onMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    if (e.buttons) {
      if (hover) setHover(null);
      return;
    }
    const m = markAt(e.clientX, e.clientY);
    const host = hostRef.current!.getBoundingClientRect();
    if (m === null) {
      if (hover) setHover(null);
    } else setHover({ mark: m, x: e.clientX - host.left, y: e.clientY - host.top });
  };

  const onClick = (e: React.MouseEvent<HTMLCanvasElement>) => {
    const m = markAt(e.clientX, e.clientY);
    if (m !== null) setFocus({ index: m, newThread: false });
    onSelect(m === null ? null : layout.marks[m]!);
  };

  /** Pans (never zooms) so that mark `i` shows. */
  const panTo = (i: number) => {
    const ext = extentOf(layout, [layout.marks[i]!.id]);
    if (!ext) return;
    const [a, b] = goal.current ?? visible.current;
    const [na, nb] = panToShow(a, b, ext[0], ext[1], layout.spanUs);
    if (goal.current || na !== a || nb !== b) setRange(na, nb, false);
  };

  const moveFocus = (step: TimelineStep) => {
    const from = focusIndex ?? firstVisibleMark(layout, visible.current[0], visible.current[1]);
    if (from === null) return;
    const to = stepMark(layout, from, step);
    setFocus({ index: to, newThread: layout.laneOf[to] !== layout.laneOf[from] });
    panTo(to);
  };

  const onFocus = () => {
    const canvas = canvasRef.current;
    setFocusShown(!!canvas && canvas.matches(':focus-visible'));
    if (focusIndex === null) {
      const first = selectedIndex ?? firstVisibleMark(layout, visible.current[0], visible.current[1]);
      if (first !== null) setFocus({ index: first, newThread: true });
    }
  };

  const onKey = (e: React.KeyboardEvent<HTMLCanvasElement>) => {
    const z = zoomRef.current;
    const canvas = canvasRef.current;
    if (!z || !canvas || e.ctrlKey || e.metaKey || e.altKey) return;
    const sel = select(canvas);
    const w = live.current.width;
    // zoom around the focused mark when it shows, so that it stays in view
    const anchor = (): [number, number] => {
      if (focusIndex === null) return [w / 2, 0];
      const ext = extentOf(layout, [layout.marks[focusIndex]!.id])!;
      const x = transform.current.rescaleX(baseScale());
      const c = x((ext[0] + ext[1]) / 2);
      return [c >= 0 && c <= w ? c : w / 2, 0];
    };
    const step = e.shiftKey ? undefined : STEP_KEYS[e.key];
    let handled = true;
    if (step) moveFocus(step);
    else if (e.key === 'Enter' || e.key === ' ') {
      if (focusIndex !== null) onSelect(layout.marks[focusIndex]!);
    } else if (e.key === '+' || e.key === '=' || e.key === 'w') z.scaleBy(sel, 1.5, anchor());
    else if (e.key === '-' || e.key === 's') z.scaleBy(sel, 1 / 1.5, anchor());
    else if ((e.shiftKey && e.key === 'ArrowLeft') || e.key === 'a') z.translateBy(sel, (w * 0.15) / transform.current.k, 0);
    else if ((e.shiftKey && e.key === 'ArrowRight') || e.key === 'd') z.translateBy(sel, (-w * 0.15) / transform.current.k, 0);
    else if (e.key === '0' || e.key === 'f') fitAll(true);
    else if (e.key === 'Escape') onSelect(null);
    else handled = false;
    if (handled) {
      e.preventDefault();
      setFocusShown(true);
    }
  };

  const focusMark = focusIndex !== null ? layout.marks[focusIndex]! : null;
  const focusLane = focusIndex !== null ? layout.lanes[layout.laneOf[focusIndex]!]! : null;
  const focusRow = focusLane && focusIndex !== null ? focusLane.rows[layout.rowOf[focusIndex]!]! : null;
  const announcement =
    focusShown && focusMark && focusLane
      ? `${markAnnouncement(focusMark)}${focus?.newThread ? `, thread ${focusLane.thread.task} ${focusLane.thread.tid}` : ''}${focusIndex === selectedIndex ? ', selected' : ''}`
      : '';

  const hovered = hover ? layout.marks[hover.mark]! : null;
  const hoveredThread = hover ? layout.lanes[layout.laneOf[hover.mark]!]!.thread : null;
  const hostW = hostRef.current?.clientWidth ?? 1000;

  return (
    <div className="tl" ref={hostRef}>
      <div className="tl-axis-row">
        <div className="tl-gutter-head muted" ref={visibleLabel} />
        <svg className="tl-axis" ref={axisRef} width={width} height={AXIS_H} aria-hidden="true" />
      </div>
      <div className="tl-body" style={{ height: layout.height }}>
        <div className="tl-gutter" style={{ width: GUTTER, height: layout.height }}>
          {layout.groups.map((g) => (
            <div key={`${g.kind}:${g.tgid}`}>
              <div className={`tl-group tl-group-${g.kind}`} style={{ top: g.y, height: GROUP_HEAD - 2 }}>
                {g.label}
              </div>
              {g.lanes.map((lane) => (
                <div
                  key={lane.thread.tid}
                  className="tl-lane-label"
                  style={{ top: lane.y, height: lane.height }}
                  title={`${lane.thread.task} (thread ${lane.thread.tid}, process ${lane.thread.tgid}): ${lane.thread.marks.length} marks`}
                >
                  <span className="tl-task">{lane.thread.task}</span> <span className="tl-tid">{lane.thread.tid}</span>
                </div>
              ))}
              {g.lanes.map((lane) =>
                lane.copyRow === null ? null : (
                  <div
                    key={`copies-${lane.thread.tid}`}
                    className="tl-copies-label"
                    style={{ top: lane.rows[lane.copyRow]!.y }}
                    title="Copies the parser's tree rewrites made of marks (moved to the phase or layer they are counted in); the originals stay in the call stack above, hatched when their time is taken off the parent."
                  >
                    copies (rewrites)
                  </div>
                ),
              )}
            </div>
          ))}
        </div>
        <canvas
          ref={canvasRef}
          className="tl-canvas"
          data-testid="timeline-canvas"
          tabIndex={0}
          role="application"
          aria-roledescription="timeline"
          aria-label={`Timeline of ${label}: ${layout.markCount} marks on ${layout.lanes.length} threads. Keys: left and right arrows go to the previous and next mark of a row, up to the parent, down to the first child or the next row, Home and End to the ends of a row; Enter selects, Escape clears the selection; plus and minus zoom, Shift with left or right arrow pans, 0 fits.`}
          onFocus={onFocus}
          onBlur={() => setFocusShown(false)}
          onPointerDown={() => setFocusShown(false)}
          onPointerMove={onMove}
          onPointerLeave={() => setHover(null)}
          onClick={onClick}
          onDoubleClick={() => fitAll(true)}
          onKeyDown={onKey}
        />
        {focusRow && (
          <div
            ref={focusProxy}
            className="tl-focus-proxy"
            aria-hidden="true"
            style={{ top: focusRow.y - 6, height: ROW_HEIGHT + 12, left: GUTTER, scrollMarginTop: AXIS_H + 8 }}
          />
        )}
      </div>
      <div className="tl-focus-line">
        {!announcement && (
          <span className="muted">Keyboard: Tab into the timeline; arrows move between marks, Enter selects (all keys in the Selection panel).</span>
        )}
        {announcement && (
          <span className="muted" aria-hidden="true">
            Focused:{' '}
          </span>
        )}
        <span aria-live="polite" aria-atomic="true" data-testid="timeline-focus">
          {announcement}
        </span>
      </div>
      {hovered && hover && hoveredThread && (
        <div
          className="tl-tooltip"
          role="tooltip"
          data-testid="timeline-tooltip"
          style={{ left: Math.min(hover.x + 14, hostW - 340), top: hover.y + 16 }}
        >
          <div className="tl-tip-name">{hovered.name || hovered.mark}</div>
          <div className="tl-tip-layer">
            <span className="tl-swatch" data-layer={hovered.ignored ? 'LX' : hovered.layer} />
            {layerPhaseText(hovered)}
            {hovered.ignored ? ' · ignored' : ''}
          </div>
          <dl>
            <dt>Elapsed</dt>
            <dd>{formatUs(hovered.elapsedUs)}</dd>
            <dt>Self</dt>
            <dd>{formatUs(hovered.selfUs)}</dd>
            <dt>Thread</dt>
            <dd>
              {hoveredThread.task} {hoveredThread.tid}
            </dd>
            <dt>Line</dt>
            <dd>{hovered.line}</dd>
          </dl>
        </div>
      )}
    </div>
  );
}
