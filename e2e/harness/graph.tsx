/**
 * Dev harness for GraphView: a synthetic graph of n operators, laid out on the page.
 * http://localhost:5173/e2e/harness/graph.html?n=10000&kind=resnet|transformer|palette&theme=dark&dir=LR&sel=5
 * Exposes window.__graphView (the imperative handle) and window.__harness (sizes and timings).
 */
import { StrictMode, useMemo, useRef, useState } from 'react';
import { createRoot } from 'react-dom/client';
import { layout } from '../../src/core/graph/layout';
import type { GraphLayout, LayoutDirection } from '../../src/core/graph/layout-types';
import type { Graph, GraphNode, NodeCategory, NodeKind } from '../../src/core/graph/model';
import { syntheticGraph } from '../../src/core/graph/synthetic';
import { GraphView, type GraphViewHandle } from '../../src/ui/graph/GraphView';
import { cachedCharMeasure, nodeBoxSize, SUBTITLE_FONT, TITLE_FONT } from '../../src/core/graph/view/labels';
import type { Theme } from '../../src/ui/graph/palette';

declare global {
  interface Window {
    __graphView?: GraphViewHandle | null;
    __harness?: { nodes: number; edges: number; layoutMs: number; buildMs: number; selected: number | null; hovered: number | null; activated: number | null };
  }
}

const params = new URLSearchParams(location.search);
const n = Math.max(2, Number(params.get('n') ?? 1000));
const kind = params.get('kind') ?? 'resnet';
const direction: LayoutDirection = params.get('dir') === 'LR' ? 'LR' : 'TB';

const SHAPES = ['float32[1,64,56,56]', 'float32[1,128,28,28]', 'int8[1,256,14,14]', 'float32[1,1000]'];

function mk(i: number, kind_: NodeKind, type: string, name: string, category: NodeCategory): GraphNode {
  return { id: `n${i}`, kind: kind_, type, name, category, index: i, inputs: [], outputs: [], attributes: [] };
}

/** One node of every category, chained, with input, output and constant markers. */
function paletteGraph(): Graph {
  const cats: [string, NodeCategory][] = [
    ['CONV_2D', 'Layer'], ['RELU', 'Activation'], ['MAX_POOL_2D', 'Pool'], ['BATCH_NORM', 'Normalization'],
    ['DROPOUT', 'Dropout'], ['RESHAPE', 'Shape'], ['GATHER', 'Tensor'], ['TRANSPOSE', 'Transform'], ['SPLIT', 'Data'],
    ['QUANTIZE', 'Quantization'], ['MyCustomOp', 'Custom'], ['WHILE', 'Control'], ['ADD', 'Other'],
  ];
  const nodes: GraphNode[] = [mk(0, 'input', 'Input', 'ifm1', 'Input')];
  cats.forEach(([t, c], k) => nodes.push(mk(k + 1, 'op', t, k === 3 ? 'a/very/long/namespace/path/batchnorm_<&>"quoted"' : `${t.toLowerCase()}_${k}`, c)));
  nodes.push(mk(nodes.length, 'const', 'Constant', 'weights', 'Constant'));
  nodes.push(mk(nodes.length, 'output', 'Output', 'ofm', 'Output'));
  const edges = [];
  for (let i = 0; i + 2 < nodes.length; i++) edges.push({ from: i, to: i + 1, tensor: i, name: `t${i}`, label: SHAPES[i % 4] });
  edges.push({ from: nodes.length - 2, to: 12, tensor: 99, name: 'w', label: 'float32[3,3,64,64]' });
  edges.push({ from: 12, to: 13, tensor: 98, name: 'x', label: 'float32[1,64]' });
  edges.push({ from: 1, to: 13, tensor: 97, name: 'skip', label: 'float32[1,64,56,56]' });
  edges.push({ from: 13, to: nodes.length - 1, tensor: 96, name: 'ofm', label: 'float32[1,10]' });
  return { id: 'palette', name: 'palette', nodes, edges, stats: { nodes: nodes.length, edges: edges.length } };
}

/** The synthetic graphs with some category variety and an output marker. */
function harnessGraph(): Graph {
  if (kind === 'palette') return paletteGraph();
  const g = syntheticGraph(kind === 'transformer' ? 'transformer' : 'resnet', n);
  const nodes = g.nodes.map((node, i) => {
    if (kind === 'resnet' && node.kind === 'op' && node.type === 'Relu' && i % 21 === 2) return { ...node, type: 'MaxPool2D', category: 'Pool' as NodeCategory };
    if (kind === 'resnet' && node.kind === 'op' && node.type === 'Conv2D' && i % 3 === 2) return { ...node, type: 'BatchNorm', category: 'Normalization' as NodeCategory };
    return node;
  });
  const out = mk(nodes.length, 'output', 'Output', 'output', 'Output');
  const edges = g.edges.map((e, k) => ({ ...e, label: SHAPES[k % SHAPES.length] }));
  edges.push({ from: nodes.length - 1, to: nodes.length, tensor: nodes.length - 1, name: 'output', label: 'float32[1,1000]' });
  nodes.push(out);
  return { ...g, nodes, edges, stats: { nodes: nodes.length - 1, edges: edges.length } };
}

function build(): { graph: Graph; layout: GraphLayout; layoutMs: number; buildMs: number } {
  const t0 = performance.now();
  const graph = harnessGraph();
  const ctx = document.createElement('canvas').getContext('2d');
  const by = (font: string) => cachedCharMeasure((ch) => {
    if (!ctx) return 6.5;
    ctx.font = font;
    return ctx.measureText(ch).width;
  });
  const mt = by(TITLE_FONT), ms = by(SUBTITLE_FONT);
  const widths = new Float64Array(graph.nodes.length), heights = new Float64Array(graph.nodes.length);
  graph.nodes.forEach((node, i) => {
    const [w, h] = nodeBoxSize(node, mt, ms);
    widths[i] = w;
    heights[i] = h;
  });
  const t1 = performance.now();
  const lay = layout({
    widths, heights,
    edgeFrom: Uint32Array.from(graph.edges, (e) => e.from),
    edgeTo: Uint32Array.from(graph.edges, (e) => e.to),
  }, { direction, nodesep: 20, ranksep: 24 });
  const t2 = performance.now();
  return { graph, layout: lay, layoutMs: t2 - t1, buildMs: t1 - t0 };
}

function Harness() {
  const built = useMemo(build, []);
  const [theme, setTheme] = useState<Theme>(params.get('theme') === 'dark' ? 'dark' : 'light');
  const sel0 = params.get('sel');
  const [selected, setSelected] = useState<number | null>(sel0 === null ? null : Number(sel0));
  const [status, setStatus] = useState('');
  const view = useRef<GraphViewHandle>(null);
  const highlighted = useMemo(() => {
    if (params.get('hl') === null) return undefined;
    const h = new Uint8Array(built.graph.nodes.length);
    for (const s of params.get('hl')!.split(',')) h[Number(s)] = 1;
    return h;
  }, [built]);
  window.__harness = {
    nodes: built.graph.nodes.length, edges: built.graph.edges.length, layoutMs: built.layoutMs, buildMs: built.buildMs,
    selected, hovered: window.__harness?.hovered ?? null, activated: window.__harness?.activated ?? null,
  };
  document.body.classList.toggle('dark', theme === 'dark');
  const download = (blob: Blob, name: string) => {
    const a = document.createElement('a');
    a.href = URL.createObjectURL(blob);
    a.download = name;
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  };
  return (
    <div className="app">
      <div className="bar">
        <strong>GraphView harness</strong>
        <span>{built.graph.nodes.length} nodes · {built.graph.edges.length} edges · layout {built.layoutMs.toFixed(0)} ms</span>
        <button type="button" onClick={() => view.current?.fit()}>Fit</button>
        <button type="button" onClick={() => setTheme(theme === 'light' ? 'dark' : 'light')}>Theme</button>
        <button type="button" onClick={() => download(new Blob([view.current?.exportSVG() ?? ''], { type: 'image/svg+xml' }), 'graph.svg')}>SVG</button>
        <button type="button" onClick={() => void view.current?.exportPNG().then((png) => download(png.blob, 'graph.png'))}>PNG</button>
        <span>{status}</span>
      </div>
      <div className="host">
        <GraphView
          ref={(h) => {
            view.current = h;
            window.__graphView = h;
          }}
          graph={built.graph}
          layout={built.layout}
          theme={theme}
          selected={selected}
          highlighted={highlighted}
          onSelect={(i) => {
            setSelected(i);
            setStatus(i === null ? '' : `selected ${built.graph.nodes[i].type} ${built.graph.nodes[i].name}`);
          }}
          onHover={(i) => {
            if (window.__harness) window.__harness.hovered = i;
          }}
          onActivate={(i) => {
            if (window.__harness) window.__harness.activated = i;
          }}
        />
      </div>
    </div>
  );
}

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <Harness />
  </StrictMode>,
);
