/**
 * The op-slot graph's engine palette and dependency-edge strokes: every engine told apart in both
 * themes with readable text, each dependency kind of a real loadable drawn its own way (also in
 * the SVG export).
 */
import { describe, expect, it } from 'vitest';
import { contrastRatio, textColorFor } from './palette';
import { buildStyle, dependencyEdgeStyle, engineColor, engineFills, engineOf, ENGINES } from './style';
import { exportSceneSVG } from './svg-export';
import { openLoadable } from '../../core/loadable/document';
import { buildScene, sceneMeasuresFrom } from '../../core/graph/view/scene';
import { layout } from '../../core/graph/layout';
import { layoutInputFor } from '../../core/graph/size';
import { goldenBytes } from '../../../test/support/nvdla-fixtures';
import { transformerGraph } from '../../core/graph/synthetic';

const lenet = () => openLoadable([{ name: 'l.nvdla', bytes: goldenBytes('lenet-b1-nv_full-int8-fast-math') }]).services.graph!.graph('slots');

describe('engine palette', () => {
  it('seven distinct engine colours per theme, each with text of contrast 4.5 or more', () => {
    for (const theme of ['light', 'dark'] as const) {
      const colours = ENGINES.map((e) => engineColor(e, theme));
      expect(new Set(colours).size).toBe(7);
      const weak = colours.filter((c) => contrastRatio(c, textColorFor(c)) < 4.5);
      expect(weak).toEqual([]);
    }
  });

  it('engines from node types; other types keep the category colour', () => {
    expect(['CONV', 'EMU SOFTMAX', 'op_type 9', 'Conv2D'].map(engineOf)).toEqual(['CONV', 'EMU', null, null]);
    const g = lenet();
    const fills = engineFills(g, 'light');
    expect(fills[0]).toBe(engineColor('CONV', 'light'));
    expect(fills[10]).toBe(engineColor('EMU', 'light'));
  });
});

describe('dependency edges by kind', () => {
  it('LeNet: completion solid, programmed dashed, the task event long-dashed', () => {
    const g = lenet();
    const style = dependencyEdgeStyle(g, 'light');
    const kindOf = (e: number) => style.classes[style.edgeClass[e]!]!.name;
    expect(g.edges.map((_, e) => kindOf(e))).toEqual(g.edges.map((e) => e.name));
    const programmed = style.classes.find((c) => c.name === 'OP_PROGRAMMED')!;
    const completed = style.classes.find((c) => c.name === 'OP_COMPLETED')!;
    expect(programmed.dash.length).toBeGreaterThan(0);
    expect(completed.dash).toEqual([]);
    expect(new Set(style.classes.map((c) => `${c.color} ${c.dash.join(',')} ${c.width ?? 1}`)).size).toBe(style.classes.length);
  });

  it('the SVG export strokes each edge by its kind', () => {
    const g = lenet();
    const scene = buildScene(g, layout(layoutInputFor(g), { direction: 'TB' }), sceneMeasuresFrom(null));
    const edges = dependencyEdgeStyle(g, 'dark');
    const svg = exportSceneSVG(scene, buildStyle(g, scene.nodeCount, 'dark', engineFills(g, 'dark'), undefined, edges));
    const dashed = (svg.match(/<path [^>]*stroke-dasharray="6 4"/g) ?? []).length;
    expect(dashed).toBe(g.edges.filter((e) => e.name === 'OP_PROGRAMMED').length);
    expect(svg).toContain(`fill="${engineColor('PDP', 'dark')}"`);
  });
});

describe('style tables', () => {
  it("read from the scene's typed kinds and categories: the same tables as from the node objects (every kind, chained layers, overrides)", () => {
    const g = transformerGraph(60);
    // every node kind, and chained layers on a few nodes (Caffe's in-place layers)
    const kinds = ['op', 'input', 'output', 'const'] as const;
    g.nodes.forEach((n, i) => {
      if (i % 7 === 3) n.kind = kinds[i % 4]!;
      if (i % 11 === 5) n.chain = [{ type: 'ReLU', name: `r${i}`, category: 'Activation' }, { type: 'BatchNorm', name: `b${i}`, category: 'Normalization' }];
    });
    const scene = buildScene(g, layout(layoutInputFor(g), { direction: 'TB' }), sceneMeasuresFrom(null));
    expect(scene.chainNodes.length).toBeGreaterThan(0);
    const fill = g.nodes.map((_, i) => (i % 5 === 0 ? '#808000' : null));
    const outline = g.nodes.map((_, i) => (i % 3 === 0 ? '#008080' : null));
    for (const theme of ['light', 'dark'] as const) {
      for (const [f, o] of [[undefined, undefined], [fill, outline]] as const) {
        expect(buildStyle(g, scene.nodeCount, theme, f, o, undefined, scene)).toEqual(buildStyle(g, scene.nodeCount, theme, f, o));
      }
    }
  });
});
