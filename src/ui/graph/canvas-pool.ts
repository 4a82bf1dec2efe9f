/**
 * Graph canvases made ready before a view needs them.
 *
 * The first drawing on a freshly sized canvas pays for its pixels (Chromium allocates and clears
 * the backing store then): 25-130 ms on the UI thread for a 1200x800 canvas on the 2-core bench
 * machine, which made the first frame of a big graph one long task. While a graph is laid out
 * (seconds at 100,000 operators) the pane it will be drawn in already has its size, so
 * `warmCanvasFor` makes a canvas of that size and draws once on it, in a task of its own; the
 * GraphView that mounts next takes it (`takeCanvas`) and its first frame only draws. Without the
 * GPU the compositor also makes two shared-memory buffers of a canvas's size the first two times
 * it shows it (about 20 ms each there): the warmed canvas is shown blank in the pane for two
 * frames (`presentBlank`), so the view's first frames do not make them. A view gives
 * its canvas back when it goes (`releaseCanvas`), so the next graph of the pane (another subgraph,
 * the other direction) finds one of the right size too.
 * Measured and not kept (issue 16, 100,000 operators, 2-core VM at load 4-6): context options
 * `{ alpha: false }` and `{ desynchronized: true }` (alone or both) leave the warm-up's allocation
 * as long (40-145 ms wall); `desynchronized` removed the two presents' long tasks in some runs and
 * not in others. The trace (TRACE=1) shows these tasks use only 15-30 ms of CPU each: the rest of
 * their wall time is the UI thread waiting for a core while the model and layout workers run.
 *
 * The first text drawn in a font pays for loading and shaping it, and the first ⟨ ⟩ for the font
 * fallback search (50-140 ms for the first font on that machine, once per page: Blink's font cache
 * is shared by every canvas). `warmFontsWhenIdle` (main.tsx) draws the renderer's fonts once each
 * on a small canvas of its own, one font per idle moment after the studio starts, so no open pays
 * for them; a pane warm-up draws any font not warmed yet on its spare canvas, a task each.
 */
import { EDGE_LABEL_FONT, SUBTITLE_FONT, TITLE_FONT } from '../../core/graph/view/labels';
import { ROW_BOLD_FONT, ROW_FONT } from '../../core/graph/view/node-box';

/** the fonts the renderer draws with, and text with the characters it draws (ASCII, shapes, rows, ellipsis) */
const FONTS = [TITLE_FONT, SUBTITLE_FONT, EDGE_LABEL_FONT, ROW_BOLD_FONT, ROW_FONT];
const SAMPLE = `${Array.from({ length: 95 }, (_, i) => String.fromCharCode(32 + i)).join('')} \u00d7\u27e8\u27e9\u2026`;

/** The canvas bitmap size for an element: what GraphView sizes its canvas to (CSS pixels rounded, times the device pixel ratio). */
export function canvasSizeFor(el: Element): { width: number; height: number; cssWidth: number; cssHeight: number; dpr: number } {
  const r = el.getBoundingClientRect();
  const dpr = window.devicePixelRatio || 1;
  const cssWidth = Math.max(0, Math.round(r.width)), cssHeight = Math.max(0, Math.round(r.height));
  return { width: Math.max(1, Math.round(cssWidth * dpr)), height: Math.max(1, Math.round(cssHeight * dpr)), cssWidth, cssHeight, dpr };
}

/** How a graph canvas sits in its host: over the whole of it (GraphView places its canvas so; a warmed canvas waits so). */
export const CANVAS_STYLE = { position: 'absolute', left: '0px', top: '0px', width: '100%', height: '100%', display: 'block' } as const;

/** Canvases nobody draws on, ready (their backing store allocated); few: one per pane size seen last. */
const spare: HTMLCanvasElement[] = [];
const MAX_SPARE = 2;

/** Allocates the canvas's pixels now: one drawing operation, then the canvas is blank again. */
function allocate(canvas: HTMLCanvasElement) {
  const ctx = canvas.getContext('2d');
  if (!ctx) return;
  ctx.fillRect(0, 0, 1, 1);
  ctx.clearRect(0, 0, 1, 1);
}

/** A blank canvas of this bitmap size: a spare one of that size when there is one, else a new one (allocated on its first drawing). */
export function takeCanvas(width: number, height: number): HTMLCanvasElement {
  const i = spare.findIndex((c) => c.width === width && c.height === height);
  if (i >= 0) {
    // for the benches: the view starts on a ready canvas
    performance.mark('npu:view:canvas-ready');
    const c = spare.splice(i, 1)[0]!;
    // (a warmed canvas waits in its pane's warmer element: the view places it itself)
    c.style.pointerEvents = '';
    return c;
  }
  const c = spare.pop() ?? document.createElement('canvas');
  c.width = width;
  c.height = height;
  return c;
}

/** A view's canvas it no longer draws on, kept for the next view (cleared, detached). */
export function releaseCanvas(canvas: HTMLCanvasElement) {
  canvas.remove();
  const ctx = canvas.getContext('2d');
  if (ctx) {
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.clearRect(0, 0, canvas.width, canvas.height);
  }
  spare.unshift(canvas);
  spare.length = Math.min(spare.length, MAX_SPARE);
}

/**
 * Makes a ready canvas of the size a GraphView filling `host` would draw on, unless there is one:
 * called while a graph is being laid out, so that the allocation is a task of its own.
 */
export function warmCanvasFor(host: Element) {
  const { width, height, cssWidth, cssHeight } = canvasSizeFor(host);
  if (cssWidth === 0 || cssHeight === 0) return;
  if (spare.some((c) => c.width === width && c.height === height)) return;
  const t0 = performance.now();
  const c = document.createElement('canvas');
  c.width = width;
  c.height = height;
  allocate(c);
  spare.unshift(c);
  spare.length = Math.min(spare.length, MAX_SPARE);
  performance.measure('npu:view:canvas-warm', { start: t0, end: performance.now() });
  presentBlank(c, host, PRESENTS);
  warmFonts(c, 0);
}

/**
 * The compositor keeps two buffers of a canvas (the one on screen and the one being drawn):
 * without the GPU, each is a shared-memory bitmap of the canvas's size, made the first time the
 * canvas is shown with new content (about 20 ms each for a 1100x800 canvas on the bench machine,
 * in the frame's task: the first frame of a view and the next one were long tasks for it).
 */
const PRESENTS = 2;

/**
 * Shows the blank canvas `c` in `host` (where the view will be; transparent, so nothing is seen)
 * with new content in each of `frames` frames, one animation frame apart, so that the compositor
 * makes its buffers now, each in a frame of its own; they stay with the canvas when a view takes
 * it and moves it into its own element. Stops once a view took the canvas or the host went.
 */
function presentBlank(c: HTMLCanvasElement, host: Element, frames: number) {
  Object.assign(c.style, CANVAS_STYLE, { pointerEvents: 'none' });
  host.appendChild(c);
  const step = (left: number) => {
    if (left === 0) {
      // for the benches: this canvas has its pixels and its compositor buffers
      performance.mark('npu:view:canvas-presented');
      return;
    }
    if (!spare.includes(c) || !host.isConnected) return;
    requestAnimationFrame(() => {
      if (!spare.includes(c) || c.parentElement !== host) return;
      const t0 = performance.now();
      // new content (cleared again in the same frame): the frame shows the canvas, still blank
      allocate(c);
      performance.measure('npu:view:canvas-present', { start: t0, end: performance.now() });
      // the frame this callback belongs to is painted before the next one's callbacks run
      step(left - 1);
    });
  };
  step(frames);
}

/** Fonts already drawn once in this page (the font cache is per page, not per canvas). */
const warmedFonts = new Set<string>();

/** Draws `font` once on `ctx` and clears what it drew. */
function warmFont(ctx: CanvasRenderingContext2D, font: string) {
  const t0 = performance.now();
  ctx.font = font;
  ctx.fillText(SAMPLE, 0, 20);
  ctx.clearRect(0, 0, ctx.canvas.width, 40);
  warmedFonts.add(font);
  performance.measure('npu:view:font-warm', { start: t0, end: performance.now() });
}

/** Draws font `k` (and then the next ones, a task each) on a spare canvas, then clears it; stops once a view took the canvas. */
function warmFonts(c: HTMLCanvasElement, k: number) {
  const next = FONTS.findIndex((f, i) => i >= k && !warmedFonts.has(f));
  if (next < 0) return;
  setTimeout(() => {
    if (!spare.includes(c)) return;
    const ctx = c.getContext('2d');
    if (!ctx) return;
    if (!warmedFonts.has(FONTS[next]!)) warmFont(ctx, FONTS[next]!);
    warmFonts(c, next + 1);
  }, 0);
}

/**
 * Draws the renderer's fonts once each on a small canvas of its own, one font per idle moment
 * (`requestIdleCallback`, else a timeout), so that the first graph the user opens does not pay for
 * loading them and for the font fallback search inside the task that draws it.
 */
export function warmFontsWhenIdle() {
  const c = document.createElement('canvas');
  c.width = 2048;
  c.height = 40;
  const ctx = c.getContext('2d');
  if (!ctx) return;
  const step = (k: number) => {
    const next = FONTS.findIndex((f, i) => i >= k && !warmedFonts.has(f));
    if (next < 0) return;
    whenIdle(() => {
      if (!warmedFonts.has(FONTS[next]!)) warmFont(ctx, FONTS[next]!);
      step(next + 1);
    });
  };
  step(0);
}

/** Runs `f` at the page's next idle moment (`requestIdleCallback`, 2 s at the latest; else a timeout); returns a cancel. */
export function whenIdle(f: () => void): () => void {
  if (typeof requestIdleCallback === 'function') {
    const id = requestIdleCallback(() => f(), { timeout: 2000 });
    return () => cancelIdleCallback(id);
  }
  const id = setTimeout(f, 50);
  return () => clearTimeout(id);
}
