/**
 * GraphView: draws a Graph with its GraphLayout on a canvas, pans and zooms with d3-zoom, culls
 * through a uniform grid, drops detail when zoomed out, and keeps every node reachable by keyboard
 * through an overlay of transparent, focusable elements (roving tabindex) for the visible nodes.
 */
import { forwardRef, useCallback, useEffect, useImperativeHandle, useLayoutEffect, useMemo, useRef, useState } from 'react';
import type { CSSProperties, FocusEvent as ReactFocusEvent, KeyboardEvent as ReactKeyboardEvent, MouseEvent as ReactMouseEvent, PointerEvent as ReactPointerEvent, UIEvent as ReactUIEvent } from 'react';
import { select, zoom as d3zoom, zoomIdentity, type D3ZoomEvent, type Selection, type ZoomBehavior, type ZoomTransform } from 'd3';
import type { GraphLayout } from '../../core/graph/layout-types';
import type { Graph } from '../../core/graph/model';
import { hitTestEdge, hitTestNode, hitTestRow } from '../../core/graph/view/hit-test';
import { initialFocus, navTarget, type NavKey } from '../../core/graph/view/keyboard-nav';
import { accessibleName } from '../../core/graph/view/labels';
import { paletteFor, type Theme } from './palette';
import { drawFrame, LOD, makeScratch, type FrameScratch } from './render';
import { buildScene, sceneMeasuresFrom, withGraph, type Scene, type SceneData, type SceneMeasures } from '../../core/graph/view/scene';
import { buildStyle, type EdgeStyle } from './style';
import { exportSceneSVG } from './svg-export';
import { onSceneLabels, preparedSceneFor, sceneDrawn } from './prepared';
import { CANVAS_STYLE, canvasSizeFor, releaseCanvas, takeCanvas } from './canvas-pool';

export interface GraphViewProps {
  graph: Graph;
  layout: GraphLayout;
  /** the scene prepared off the UI thread for exactly this graph and layout, with the strings it refers to (optional) */
  scene?: { scene: SceneData; strings: readonly string[] };
  theme: Theme;
  selected: number | null;
  /** related nodes (non-zero = highlighted), index-aligned with graph.nodes */
  highlighted?: Uint8Array;
  /** fill override per node (e.g. partition colours); null keeps the category colour */
  nodeFill?: ReadonlyArray<string | null>;
  /** outline colour per node (groups); null for none */
  nodeOutline?: ReadonlyArray<string | null>;
  /** edge strokes by kind (a loadable's dependency events); default: one edge colour */
  edgeStyle?: EdgeStyle;
  onSelect(index: number | null): void;
  onHover?(index: number | null): void;
  /** double click, Shift+Enter on a focused node, or Enter on a node with a body */
  onActivate?(index: number): void;
  /** accessible name of the view */
  label?: string;
  /**
   * the first view fits the whole graph only when that draws what this names (default: the op
   * types); otherwise it shows the graph's start at a readable scale. Panes compared by their
   * node names (the compile view) ask for 'names'.
   */
  firstView?: 'titles' | 'names';
  className?: string;
  style?: CSSProperties;
}

export interface GraphViewHandle {
  fit(): void;
  zoomBy(factor: number): void;
  centerOn(index: number): void;
  exportSVG(): string;
  /**
   * The whole graph (default; at 2x, scaled down to the canvas limits when it is too big) or the
   * visible area at 2x. `scale` is the pixels per layout unit the PNG got.
   */
  exportPNG(area?: 'graph' | 'visible'): Promise<PngExport>;
  getTransform(): { x: number; y: number; k: number };
  /** pans by (dx, dy) CSS pixels */
  panBy(dx: number, dy: number): void;
  /** sets the transform directly */
  setTransform(x: number, y: number, k: number): void;
}

export interface PngExport {
  blob: Blob;
  width: number;
  height: number;
  scale: number;
}

export interface GraphStats {
  framesDrawn: number;
  lastFrameMs: number;
  visibleNodes: number;
  visibleEdges: number;
}

declare global {
  interface Window {
    __npuGraphStats?: GraphStats;
  }
}

/** Overlay elements exist only when at most this many nodes are visible. */
export const OVERLAY_LIMIT = 1500;
/** The overlay is refreshed (and shown again) this long after the view stops moving. */
const OVERLAY_SETTLE_MS = 120;
const FIT_MARGIN = 24;
const MAX_FIT_SCALE = 1.5;
/**
 * below these fit scales a whole-graph view draws no op types (LOD.text), or no node names
 * (LOD.subtitle); the first view shows the start at a readable scale instead, as Netron does
 */
const MIN_READABLE_FIT = { titles: LOD.text, names: LOD.subtitle } as const;
const INITIAL_SCALE = 0.9;
const MAX_SCALE = 8;
/** PNG export: pixel ratio, cap per side, cap on the total area */
const PNG_SCALE = 2;
const PNG_MAX_SIDE = 16384;
const PNG_MAX_AREA = 1 << 27;

let measureCtx: CanvasRenderingContext2D | null = null;
function sceneMeasures(): SceneMeasures {
  if (!measureCtx) measureCtx = document.createElement('canvas').getContext('2d');
  return sceneMeasuresFrom(measureCtx);
}

function sameList(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

const ROOT_STYLE: CSSProperties = { position: 'relative', overflow: 'hidden', width: '100%', height: '100%', outline: 'none', touchAction: 'none' };
const TIP_STYLE: CSSProperties = {
  position: 'absolute', left: 0, top: 0, display: 'none', pointerEvents: 'none', zIndex: 2, whiteSpace: 'pre', maxWidth: 480,
  overflow: 'hidden', textOverflow: 'ellipsis', font: '11px -apple-system, "Segoe UI", "Helvetica Neue", Helvetica, Arial, sans-serif',
  padding: '3px 6px', borderRadius: 4, boxShadow: '0 1px 4px rgba(0,0,0,0.3)',
};
const LAYER_STYLE: CSSProperties = { position: 'absolute', left: 0, top: 0, width: 0, height: 0, transformOrigin: '0 0', willChange: 'transform' };

export const GraphView = forwardRef<GraphViewHandle, GraphViewProps>(function GraphView(props, ref) {
  const { graph, layout, theme, selected, highlighted, nodeFill, nodeOutline, edgeStyle, onSelect, onHover, onActivate } = props;
  const rootRef = useRef<HTMLDivElement>(null);
  /** the canvas drawn on: one made ready while the graph was laid out when there is one (canvas-pool.ts), put in place on mount */
  const canvasRef = useRef<HTMLCanvasElement | null>(null);
  const layerRef = useRef<HTMLDivElement>(null);

  // a scene prepared in the worker (for this graph and layout) saves the UI thread its cost
  const scene: Scene = useMemo(
    () => {
      const prepared = props.scene ?? preparedSceneFor(layout);
      return prepared ? withGraph(prepared.scene, graph, layout, prepared.strings) : buildScene(graph, layout, sceneMeasures());
    },
    [graph, layout, props.scene],
  );
  // what a node's outgoing edges carry (their labels, e.g. shapes), for screen readers: the canvas
  // draws them. Asked only for the nodes in the overlay (the visible ones), through the scene's
  // index of edges by source (typed arrays), texts cached per node. (Made eagerly for every edge it
  // cost 0.8 s of UI thread at 100,000 operators; an index built here from the edge objects, 60 ms.)
  const outgoing = useMemo(() => {
    const cache = new Map<number, string[]>();
    return (node: number): string[] => {
      const hit = cache.get(node);
      if (hit) return hit;
      const { outEdgeStart, outEdges } = scene;
      const out: string[] = [];
      for (let j = outEdgeStart[node] ?? 0; j < (outEdgeStart[node + 1] ?? 0); j++) {
        const e = graph.edges[outEdges[j]!];
        if (!e) continue;
        const text = e.label ? `${e.name} ${e.label}` : e.name;
        if (text && !out.includes(text)) out.push(text);
      }
      cache.set(node, out);
      return out;
    };
  }, [graph, scene]);
  const style = useMemo(() => {
    const t0 = performance.now();
    const st = buildStyle(graph, scene.nodeCount, theme, nodeFill, nodeOutline, edgeStyle, scene);
    // a view's colours, rebuilt with the scene (part of the UI-thread task that shows a new graph)
    performance.measure('npu:view:style', { start: t0, end: performance.now() });
    return st;
  }, [graph, scene, theme, nodeFill, nodeOutline, edgeStyle]);
  const scratchRef = useRef<FrameScratch | null>(null);
  const hitScratch = useMemo(() => new Uint32Array(Math.max(1, scene.nodeCount)), [scene]);
  const edgeHitScratch = useMemo(() => new Uint32Array(Math.max(1, scene.segmentGrid.itemCount)), [scene]);
  /** the hover tooltip (a constant input's dtype, an attribute's whole value, an edge's tensor), updated without re-rendering */
  const tipRef = useRef<HTMLDivElement>(null);

  const [focus, setFocus] = useState<number | null>(() => initialFocus(scene.nav, selected, (i) => graph.nodes[i]!.kind));
  const [overlay, setOverlay] = useState<number[]>([]);
  const [focusInside, setFocusInside] = useState(false);

  // live values read by the frame callback and event handlers
  const firstView = props.firstView ?? 'titles';
  const live = useRef({ scene, style, selected, highlighted, focus, focusInside, onSelect, onHover, onActivate, graph, layout, firstView });
  live.current = { scene, style, selected, highlighted, focus, focusInside, onSelect, onHover, onActivate, graph, layout, firstView };

  const transformRef = useRef<ZoomTransform>(zoomIdentity);
  const sizeRef = useRef({ width: 0, height: 0, dpr: 1 });
  const zoomRef = useRef<ZoomBehavior<HTMLDivElement, unknown> | null>(null);
  const selRef = useRef<Selection<HTMLDivElement, unknown, null, undefined> | null>(null);
  const rafRef = useRef(0);
  const needsFitRef = useRef(true);
  /** the user moved the view (wheel, drag, keys, centre): a resize then keeps the view as it is */
  const userMovedRef = useRef(false);
  const overlayRef = useRef<number[]>([]);
  const overlayTimer = useRef<ReturnType<typeof setTimeout> | null>(null);
  const lastDrawnTransform = useRef<ZoomTransform | null>(null);
  const wantDomFocus = useRef(false);
  const hoverRef = useRef<number | null>(null);
  const pointerDownAt = useRef(-Infinity);

  // ---------------------------------------------------------------- drawing
  const updateOverlay = useCallback(() => {
    overlayTimer.current = null;
    const { scene: sc } = live.current;
    const scratch = scratchRef.current;
    const stats = window.__npuGraphStats;
    const nv = stats ? stats.visibleNodes : 0;
    let list: number[] = [];
    if (scratch && nv <= OVERLAY_LIMIT) list = Array.from(scratch.nodes.subarray(0, nv)).sort((a, b) => a - b);
    const f = live.current.focus;
    if (f !== null && f < sc.nodeCount && !list.includes(f)) list.push(f);
    // the settled zoom, for tests and people debugging (what the level of detail draws follows it)
    if (canvasRef.current && lastDrawnTransform.current) canvasRef.current.dataset.zoom = lastDrawnTransform.current.k.toFixed(3);
    if (!sameList(list, overlayRef.current)) {
      overlayRef.current = list;
      setOverlay(list);
    }
  }, []);

  const draw = useCallback(() => {
    rafRef.current = 0;
    const canvas = canvasRef.current;
    if (!canvas) return;
    const { width, height, dpr } = sizeRef.current;
    if (width === 0 || height === 0) return;
    const ctx = canvas.getContext('2d');
    if (!ctx) return;
    const { scene: sc, style: st, selected: sel, highlighted: hl, focus: foc, focusInside: fin } = live.current;
    if (!scratchRef.current || scratchRef.current.nodes.length < sc.nodeCount || scratchRef.current.edges.length < sc.edgeCount) {
      scratchRef.current = makeScratch(sc);
    }
    const t = transformRef.current;
    const t0 = performance.now();
    const res = drawFrame(ctx, sc, st, {
      x: t.x, y: t.y, k: t.k, width, height, dpr,
      selected: sel, focused: fin ? foc : null, highlighted: hl, background: true,
    }, scratchRef.current);
    const ms = performance.now() - t0;
    const prev = window.__npuGraphStats;
    if (!prev || prev.framesDrawn === 0) performance.measure('npu:view:first-draw', { start: t0, end: t0 + ms });
    // edge labels still to come are asked for once the frame is painted (a task after this one) and the UI thread is idle (prepared.ts)
    const drawnLayout = live.current.layout;
    setTimeout(() => sceneDrawn(drawnLayout), 0);
    window.__npuGraphStats = {
      framesDrawn: (prev?.framesDrawn ?? 0) + 1,
      lastFrameMs: ms,
      visibleNodes: res.visibleNodes,
      visibleEdges: res.visibleEdges,
    };
    const layer = layerRef.current;
    const last = lastDrawnTransform.current;
    const moved = !last || last.x !== t.x || last.y !== t.y || last.k !== t.k;
    lastDrawnTransform.current = t;
    if (layer) {
      if (moved) {
        layer.style.transform = `translate(${t.x}px, ${t.y}px) scale(${t.k})`;
        // While the view moves, the overlay is hidden (all but the focused element): a thousand
        // transparent elements would otherwise cost Chromium tens of ms of layerisation per frame.
        layer.style.visibility = 'hidden';
      }
    }
    if (moved || !overlayTimer.current) {
      if (overlayTimer.current) clearTimeout(overlayTimer.current);
      overlayTimer.current = setTimeout(() => {
        updateOverlay();
        if (layerRef.current) layerRef.current.style.visibility = '';
      }, moved ? OVERLAY_SETTLE_MS : 0);
    }
  }, [updateOverlay]);

  const requestDraw = useCallback(() => {
    if (!rafRef.current) rafRef.current = requestAnimationFrame(draw);
  }, [draw]);

  // a big graph's edge labels arrive after its scene (prepared.ts): into this view's scene, then drawn
  useEffect(
    () =>
      onSceneLabels(layout, (labels) => {
        Object.assign(scene, labels);
        requestDraw();
      }),
    [layout, scene, requestDraw],
  );

  // ---------------------------------------------------------------- transforms
  const applyTransform = useCallback((t: ZoomTransform) => {
    const z = zoomRef.current, s = selRef.current;
    if (z && s) s.call(z.transform, t);
    else {
      transformRef.current = t;
      requestDraw();
    }
  }, [requestDraw]);

  const fitTransform = useCallback((): ZoomTransform => {
    const { width, height } = sizeRef.current;
    const sc = live.current.scene;
    const bw = sc.maxX - sc.minX + 2 * FIT_MARGIN, bh = sc.maxY - sc.minY + 2 * FIT_MARGIN;
    const k = Math.min(MAX_FIT_SCALE, width / bw, height / bh);
    const x = (width - (sc.maxX + sc.minX) * k) / 2;
    const y = (height - (sc.maxY + sc.minY) * k) / 2;
    return zoomIdentity.translate(x, y).scale(k);
  }, []);

  /**
   * The first view of a graph: the whole graph when its names are readable that way; otherwise
   * (long models, where a fit shows a hairline or boxes without names) its start at a readable
   * scale, as a person reads it:
   * the top for top-to-bottom layouts, the left end for left-to-right.
   */
  const initialTransform = useCallback((): ZoomTransform => {
    const f = fitTransform();
    if (f.k >= MIN_READABLE_FIT[live.current.firstView]) return f;
    const { width, height } = sizeRef.current;
    const sc = live.current.scene;
    const { layout } = sc;
    const k = Math.min(INITIAL_SCALE, MAX_FIT_SCALE);
    // across the reading direction: the whole breadth centred when it fits, else centred on the
    // first node but with no empty band beside the graph (a graph drifting sideways stays in view)
    const across = (size: number, lo: number, hi: number, at: number) =>
      (hi - lo) * k + 2 * FIT_MARGIN <= size ? (size - (hi + lo) * k) / 2 : Math.min(FIT_MARGIN - lo * k, Math.max(size - FIT_MARGIN - hi * k, size / 2 - at * k));
    if (layout.direction === 'LR') {
      // left end
      let first = 0;
      for (let i = 1; i < sc.nodeCount; i++) if (layout.x[i]! < layout.x[first]!) first = i;
      return zoomIdentity.translate(FIT_MARGIN - sc.minX * k, across(height, sc.minY, sc.maxY, layout.y[first]!)).scale(k);
    }
    let first = 0;
    for (let i = 1; i < sc.nodeCount; i++) if (layout.y[i]! < layout.y[first]!) first = i;
    return zoomIdentity.translate(across(width, sc.minX, sc.maxX, layout.x[first]!), FIT_MARGIN - sc.minY * k).scale(k);
  }, [fitTransform]);

  const updateExtent = useCallback(() => {
    const z = zoomRef.current;
    if (!z) return;
    const f = fitTransform();
    z.scaleExtent([Math.min(0.05, f.k * 0.5), MAX_SCALE]);
  }, [fitTransform]);

  const fit = useCallback(() => {
    updateExtent();
    applyTransform(fitTransform());
  }, [applyTransform, fitTransform, updateExtent]);

  const showInitial = useCallback(() => {
    updateExtent();
    applyTransform(initialTransform());
  }, [applyTransform, initialTransform, updateExtent]);

  const zoomBy = useCallback((factor: number) => {
    const { width, height } = sizeRef.current;
    const t = transformRef.current;
    const [lo, hi] = zoomRef.current ? zoomRef.current.scaleExtent() : [0.0001, MAX_SCALE];
    const k = Math.max(lo, Math.min(hi, t.k * factor));
    const cx = width / 2, cy = height / 2;
    const wx = (cx - t.x) / t.k, wy = (cy - t.y) / t.k;
    userMovedRef.current = true;
    applyTransform(zoomIdentity.translate(cx - wx * k, cy - wy * k).scale(k));
  }, [applyTransform]);

  const actualSize = useCallback(() => zoomBy(1 / transformRef.current.k), [zoomBy]);

  /** Centres node i; zooms in to a readable scale when the view is too far out to read it. */
  const centerOn = useCallback((i: number, onlyIfHidden = false) => {
    const sc = live.current.scene;
    if (i < 0 || i >= sc.nodeCount) return;
    const { width, height } = sizeRef.current;
    const t = transformRef.current;
    const L = sc.layout;
    if (onlyIfHidden && t.k >= LOD.text) {
      const m = 32;
      const sx0 = (L.x[i] - L.w[i] / 2) * t.k + t.x, sx1 = (L.x[i] + L.w[i] / 2) * t.k + t.x;
      const sy0 = (L.y[i] - L.h[i] / 2) * t.k + t.y, sy1 = (L.y[i] + L.h[i] / 2) * t.k + t.y;
      if (sx0 >= m && sy0 >= m && sx1 <= width - m && sy1 <= height - m) return;
    }
    const k = t.k < LOD.text ? 1 : t.k;
    userMovedRef.current = true;
    applyTransform(zoomIdentity.translate(width / 2 - L.x[i] * k, height / 2 - L.y[i] * k).scale(k));
  }, [applyTransform]);

  // ---------------------------------------------------------------- export
  const exportSVG = useCallback(() => {
    const { scene: sc, style: st, selected: sel, highlighted: hl } = live.current;
    return exportSceneSVG(sc, st, { selected: sel, highlighted: hl });
  }, []);

  const exportPNG = useCallback(async (area: 'graph' | 'visible' = 'graph'): Promise<PngExport> => {
    const { scene: sc, style: st, selected: sel, highlighted: hl } = live.current;
    let W: number, H: number, frame: { x: number; y: number; k: number; dpr: number; width: number; height: number }, scale: number;
    if (area === 'visible') {
      // what is on screen, at twice its pixels
      const { width, height } = sizeRef.current;
      const t = transformRef.current;
      W = Math.max(1, Math.round(width * PNG_SCALE));
      H = Math.max(1, Math.round(height * PNG_SCALE));
      frame = { x: t.x, y: t.y, k: t.k, dpr: PNG_SCALE, width, height };
      scale = t.k * PNG_SCALE;
    } else {
      const m = FIT_MARGIN;
      const bw = sc.maxX - sc.minX + 2 * m, bh = sc.maxY - sc.minY + 2 * m;
      let s = Math.min(PNG_SCALE, PNG_MAX_SIDE / bw, PNG_MAX_SIDE / bh);
      if (bw * bh * s * s > PNG_MAX_AREA) s = Math.sqrt(PNG_MAX_AREA / (bw * bh));
      W = Math.max(1, Math.floor(bw * s));
      H = Math.max(1, Math.floor(bh * s));
      frame = { x: (m - sc.minX) * s, y: (m - sc.minY) * s, k: s, dpr: 1, width: W, height: H };
      scale = s;
    }
    const canvas = document.createElement('canvas');
    canvas.width = W;
    canvas.height = H;
    const ctx = canvas.getContext('2d');
    if (!ctx) throw new Error('Cannot create a canvas for the PNG export.');
    drawFrame(ctx, sc, st, { ...frame, selected: sel, focused: null, highlighted: hl, background: true }, makeScratch(sc));
    const blob = await new Promise<Blob>((resolve, reject) => {
      canvas.toBlob((b) => (b ? resolve(b) : reject(new Error('The PNG encoder returned nothing.'))), 'image/png');
    });
    return { blob, width: W, height: H, scale };
  }, []);

  useImperativeHandle(ref, () => ({
    fit,
    zoomBy,
    centerOn: (i: number) => centerOn(i),
    exportSVG,
    exportPNG,
    getTransform: () => {
      const t = transformRef.current;
      return { x: t.x, y: t.y, k: t.k };
    },
    panBy: (dx: number, dy: number) => {
      const t = transformRef.current;
      applyTransform(zoomIdentity.translate(t.x + dx, t.y + dy).scale(t.k));
    },
    setTransform: (x: number, y: number, k: number) => applyTransform(zoomIdentity.translate(x, y).scale(k)),
  }), [fit, zoomBy, centerOn, exportSVG, exportPNG, applyTransform]);

  // ---------------------------------------------------------------- effects
  // the canvas: first child of the root, under the tooltip and the focusable layer; given back on unmount
  useLayoutEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const { width, height } = canvasSizeFor(root);
    const canvas = takeCanvas(width, height);
    canvas.dataset.testid = 'graph-canvas';
    canvas.setAttribute('aria-hidden', 'true');
    Object.assign(canvas.style, CANVAS_STYLE);
    root.insertBefore(canvas, root.firstChild);
    canvasRef.current = canvas;
    return () => {
      canvasRef.current = null;
      delete canvas.dataset.zoom;
      releaseCanvas(canvas);
    };
  }, []);

  // d3-zoom on the root (wheel, drag); double click is ours (activate)
  useEffect(() => {
    const root = rootRef.current;
    if (!root) return;
    const z = d3zoom<HTMLDivElement, unknown>()
      .scaleExtent([0.0005, MAX_SCALE])
      // the size the canvas was last fitted to: d3's default reads the element's clientWidth and
      // clientHeight at every transform, a forced layout whenever the page's layout is dirty
      .extent((): [[number, number], [number, number]] => {
        const { width, height } = sizeRef.current;
        return width > 0 && height > 0 ? [[0, 0], [width, height]] : [[0, 0], [root.clientWidth, root.clientHeight]];
      })
      .on('zoom', (ev: D3ZoomEvent<HTMLDivElement, unknown>) => {
        if (ev.sourceEvent) userMovedRef.current = true;
        transformRef.current = ev.transform;
        requestDraw();
      });
    const s = select(root);
    s.call(z).on('dblclick.zoom', null);
    zoomRef.current = z;
    selRef.current = s;
    z.transform(s, transformRef.current);
    return () => {
      s.on('.zoom', null);
      zoomRef.current = null;
      selRef.current = null;
    };
  }, [requestDraw]);

  // canvas size follows the element (device pixel ratio aware)
  useEffect(() => {
    const root = rootRef.current, canvas = canvasRef.current;
    if (!root || !canvas) return;
    const resize = () => {
      const t0 = performance.now();
      const { width: bw, height: bh, cssWidth: width, cssHeight: height, dpr } = canvasSizeFor(root);
      sizeRef.current = { width, height, dpr };
      // setting a canvas's size, even to the same value, clears it and makes it allocate its pixels again
      if (canvas.width !== bw) canvas.width = bw;
      if (canvas.height !== bh) canvas.height = bh;
      if ((needsFitRef.current || !userMovedRef.current) && width > 0 && height > 0) {
        // first show, or the pane changed size (a dock opened) before the user moved the view
        needsFitRef.current = false;
        showInitial();
      } else {
        updateExtent();
      }
      requestDraw();
      // the canvas sized to its element (a forced layout, the canvas reset) and the first view placed
      performance.measure('npu:view:resize', { start: t0, end: performance.now() });
    };
    const ro = new ResizeObserver(resize);
    ro.observe(root);
    resize();
    return () => ro.disconnect();
  }, [showInitial, requestDraw, updateExtent]);

  // a new graph: fit on first show, reset keyboard focus; the same graph laid out again (another
  // node display choice) keeps its place: the selected node, or the one nearest the centre, stays
  // where it was on screen
  const prevSceneRef = useRef<Scene | null>(null);
  useEffect(() => {
    const prev = prevSceneRef.current;
    prevSceneRef.current = scene;
    scratchRef.current = null;
    overlayRef.current = [];
    setOverlay([]);
    const { width, height } = sizeRef.current;
    if (prev && prev.graph.id === scene.graph.id && prev.nodeCount === scene.nodeCount && prev.layout.direction === scene.layout.direction && width > 0 && height > 0) {
      const t = transformRef.current;
      const sel = live.current.selected;
      let anchor = sel !== null && sel >= 0 && sel < scene.nodeCount ? sel : null;
      if (anchor === null) {
        const scratch = new Uint32Array(Math.max(1, prev.nodeCount));
        anchor = hitTestNode(prev.nodeGrid, prev.layout, (width / 2 - t.x) / t.k, (height / 2 - t.y) / t.k, Math.max(width, height) / t.k, scratch);
      }
      updateExtent();
      if (anchor !== null) {
        const sx = prev.layout.x[anchor]! * t.k + t.x, sy = prev.layout.y[anchor]! * t.k + t.y;
        applyTransform(zoomIdentity.translate(sx - scene.layout.x[anchor]! * t.k, sy - scene.layout.y[anchor]! * t.k).scale(t.k));
      } else requestDraw();
      return;
    }
    setFocus(initialFocus(scene.nav, live.current.selected, (i) => scene.graph.nodes[i]!.kind));
    userMovedRef.current = false;
    if (sizeRef.current.width > 0 && sizeRef.current.height > 0) {
      needsFitRef.current = false;
      showInitial();
    } else {
      needsFitRef.current = true;
    }
  }, [scene, showInitial, updateExtent, applyTransform, requestDraw]);

  // selection from outside moves the roving focus there (without stealing DOM focus)
  useEffect(() => {
    if (selected !== null && selected >= 0 && selected < scene.nodeCount) setFocus(selected);
  }, [selected, scene]);

  useEffect(() => {
    requestDraw();
  }, [style, selected, highlighted, focus, focusInside, requestDraw]);

  // keep the focused node in the overlay, and move DOM focus to it when keyboard asked for it
  useEffect(() => {
    if (focus !== null && !overlayRef.current.includes(focus)) {
      const list = [...overlayRef.current, focus];
      overlayRef.current = list;
      setOverlay(list);
    }
  }, [focus]);
  useEffect(() => {
    if (!wantDomFocus.current || focus === null) return;
    const el = layerRef.current?.querySelector<HTMLElement>(`[data-node-index="${focus}"]`);
    if (!el) return;
    wantDomFocus.current = false;
    // the node's element can come a while after it was asked for (the overlay follows a pan or
    // a centring animation): by then focus may have gone on to something else (a slider, a
    // field), which keeps it; only focus on the page itself or in this graph moves to the node
    const active = document.activeElement;
    if (active && active !== document.body && !rootRef.current?.contains(active)) return;
    el.focus({ preventScroll: true });
  }, [focus, overlay]);

  useEffect(() => () => {
    if (rafRef.current) cancelAnimationFrame(rafRef.current);
    rafRef.current = 0;
    if (overlayTimer.current) clearTimeout(overlayTimer.current);
    overlayTimer.current = null;
  }, []);

  // ---------------------------------------------------------------- input
  const nodeAt = useCallback((clientX: number, clientY: number): number | null => {
    const root = rootRef.current;
    if (!root) return null;
    const r = root.getBoundingClientRect();
    const t = transformRef.current;
    const wx = (clientX - r.left - t.x) / t.k, wy = (clientY - r.top - t.y) / t.k;
    const sc = live.current.scene;
    return hitTestNode(sc.nodeGrid, sc.layout, wx, wy, 3 / t.k, hitScratch);
  }, [hitScratch]);

  const indexFromTarget = (target: EventTarget | null): number | null => {
    if (!(target instanceof HTMLElement)) return null;
    const v = target.dataset.nodeIndex;
    return v === undefined ? null : Number(v);
  };

  const moveFocus = useCallback((i: number) => {
    wantDomFocus.current = true;
    setFocus(i);
    centerOn(i, true);
  }, [centerOn]);

  const onClick = useCallback((ev: ReactMouseEvent<HTMLDivElement>) => {
    if (ev.defaultPrevented) return;
    const i = indexFromTarget(ev.target) ?? nodeAt(ev.clientX, ev.clientY);
    live.current.onSelect(i);
    if (i !== null) {
      // the node's element when it is drawn already, else once the overlay has it
      const el = layerRef.current?.querySelector<HTMLElement>(`[data-node-index="${i}"]`);
      wantDomFocus.current = !el;
      el?.focus({ preventScroll: true });
      setFocus(i);
    } else {
      rootRef.current?.focus({ preventScroll: true });
    }
  }, [nodeAt]);

  const onDoubleClick = useCallback((ev: ReactMouseEvent<HTMLDivElement>) => {
    const i = indexFromTarget(ev.target) ?? nodeAt(ev.clientX, ev.clientY);
    if (i !== null) live.current.onActivate?.(i);
  }, [nodeAt]);

  /** The tooltip text for a point: a body row of node i (constant input or attribute), or else an edge near it. */
  const tipAt = useCallback((clientX: number, clientY: number, i: number | null): string => {
    const root = rootRef.current;
    if (!root) return '';
    const r = root.getBoundingClientRect();
    const t = transformRef.current;
    const wx = (clientX - r.left - t.x) / t.k, wy = (clientY - r.top - t.y) / t.k;
    const sc = live.current.scene;
    if (i !== null) {
      if (t.k < LOD.subtitle) return '';
      const row = hitTestRow(sc.boxes, sc.layout, i, wx, wy);
      if (row < 0) return '';
      return sc.boxes.texts[sc.boxes.rowTip[row]!] ?? '';
    }
    if (t.k < LOD.text) return '';
    const e = hitTestEdge(sc, wx, wy, 4 / t.k, edgeHitScratch);
    if (e === null) return '';
    const edge = sc.graph.edges[e];
    if (!edge) return '';
    return edge.label ? `${edge.name}: ${edge.label}` : edge.name;
  }, [edgeHitScratch]);

  const showTip = useCallback((text: string, clientX: number, clientY: number) => {
    const el = tipRef.current, root = rootRef.current;
    if (!el || !root) return;
    if (!text) {
      if (el.style.display !== 'none') el.style.display = 'none';
      return;
    }
    const r = root.getBoundingClientRect();
    if (el.textContent !== text) el.textContent = text;
    el.style.display = 'block';
    const x = Math.min(clientX - r.left + 12, Math.max(0, r.width - el.offsetWidth - 4));
    const y = clientY - r.top + 16 + el.offsetHeight > r.height ? clientY - r.top - el.offsetHeight - 8 : clientY - r.top + 16;
    el.style.transform = `translate(${Math.round(x)}px, ${Math.round(y)}px)`;
  }, []);

  const onPointerMove = useCallback((ev: ReactPointerEvent<HTMLDivElement>) => {
    if (ev.buttons !== 0) {
      showTip('', 0, 0);
      return;
    }
    const i = indexFromTarget(ev.target) ?? nodeAt(ev.clientX, ev.clientY);
    if (i !== hoverRef.current) {
      hoverRef.current = i;
      if (rootRef.current) rootRef.current.style.cursor = i === null ? 'default' : 'pointer';
      live.current.onHover?.(i);
    }
    showTip(tipAt(ev.clientX, ev.clientY, i), ev.clientX, ev.clientY);
  }, [nodeAt, tipAt, showTip]);

  const onPointerLeave = useCallback(() => {
    showTip('', 0, 0);
    if (hoverRef.current !== null) {
      hoverRef.current = null;
      live.current.onHover?.(null);
    }
  }, []);

  const onKeyDown = useCallback((ev: ReactKeyboardEvent<HTMLDivElement>) => {
    if (ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const key = ev.key;
    const onNode = indexFromTarget(ev.target);
    let handled = true;
    if (key === ' ' || key === 'Spacebar') fit();
    else if (ev.shiftKey && key === 'ArrowUp') zoomBy(1.25);
    else if (ev.shiftKey && key === 'ArrowDown') zoomBy(0.8);
    else if (ev.shiftKey && key === 'Backspace') actualSize();
    else if (!ev.shiftKey && (key === 'ArrowUp' || key === 'ArrowDown' || key === 'ArrowLeft' || key === 'ArrowRight' || key === 'Home' || key === 'End')) {
      const sc = live.current.scene;
      const from = onNode ?? live.current.focus ?? initialFocus(sc.nav, live.current.selected);
      const t = from === null ? null : navTarget(sc.nav, from, key as NavKey);
      if (t !== null) moveFocus(t);
    } else if (key === 'Enter' && onNode !== null) {
      // Enter selects; on a node with a body (IF, WHILE) it also opens it, as the help says
      if (!ev.shiftKey) live.current.onSelect(onNode);
      if (ev.shiftKey || live.current.graph.nodes[onNode]?.subgraphs?.length) live.current.onActivate?.(onNode);
    } else if (key === 'Escape' && live.current.selected !== null) live.current.onSelect(null);
    else handled = false;
    if (handled) {
      ev.preventDefault();
      ev.stopPropagation();
    }
  }, [fit, zoomBy, actualSize, moveFocus]);

  const onNodeFocus = useCallback((ev: ReactFocusEvent<HTMLDivElement>) => {
    const i = indexFromTarget(ev.target);
    if (i === null) return;
    setFocusInside(true);
    if (i !== live.current.focus) setFocus(i);
    // keyboard focus keeps the node in view; focus from a pointer leaves the view where it is
    if (performance.now() - pointerDownAt.current > 600) centerOn(i, true);
  }, [centerOn]);

  const onNodeBlur = useCallback(() => setFocusInside(false), []);

  // the root never scrolls (focus() of an overlay element could scroll it)
  const onScroll = useCallback((ev: ReactUIEvent<HTMLDivElement>) => {
    const el = ev.currentTarget;
    if (el.scrollTop !== 0 || el.scrollLeft !== 0) {
      el.scrollTop = 0;
      el.scrollLeft = 0;
    }
  }, []);

  const L = scene.layout;
  return (
    <div
      ref={rootRef}
      className={props.className}
      style={props.style ? { ...ROOT_STYLE, ...props.style } : ROOT_STYLE}
      tabIndex={-1}
      onClick={onClick}
      onDoubleClick={onDoubleClick}
      onPointerMove={onPointerMove}
      onPointerLeave={onPointerLeave}
      onPointerDown={() => {
        pointerDownAt.current = performance.now();
      }}
      onKeyDown={onKeyDown}
      onScroll={onScroll}
      data-graph-id={graph.id}
    >
      <div ref={tipRef} role="tooltip" data-testid="graph-tooltip" style={{ ...TIP_STYLE, background: paletteFor(theme).tooltip, color: paletteFor(theme).tooltipText }} />
      <div
        ref={layerRef}
        role="group"
        aria-label={props.label ?? `Graph ${graph.name || graph.id}: ${scene.nodeCount} nodes; arrow keys move along edges`}
        style={LAYER_STYLE}
        onFocus={onNodeFocus}
        onBlur={onNodeBlur}
      >
        {overlay.map((i) => {
          const node = graph.nodes[i];
          if (!node) return null;
          return (
            <div
              key={i}
              role="button"
              tabIndex={i === focus ? 0 : -1}
              aria-label={accessibleName(node)}
              aria-description={describeNode(node, outgoing(i))}
              aria-pressed={i === selected}
              data-node-index={i}
              style={{
                position: 'absolute',
                left: L.x[i] - L.w[i] / 2,
                top: L.y[i] - L.h[i] / 2,
                width: L.w[i],
                height: L.h[i],
                outline: 'none',
                visibility: i === focus ? 'visible' : undefined,
              }}
            />
          );
        })}
      </div>
    </div>
  );
});

/** For screen readers: the layers drawn inside the box and what its outgoing edges carry (the canvas draws both). */
function describeNode(node: Graph['nodes'][number], out: string[] | undefined): string | undefined {
  const parts: string[] = [];
  if (node.chain?.length) parts.push(`then ${node.chain.map((c) => `${c.type} ${c.name}`).join(', ')} in place`);
  if (out?.length) parts.push(`out: ${out.join(', ')}`);
  return parts.length ? parts.join('; ') : undefined;
}
