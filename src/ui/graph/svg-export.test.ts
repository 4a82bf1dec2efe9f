import { describe, expect, it } from 'vitest';
import { exportSceneSVG, xmlEscape } from './svg-export';
import { buildScene } from '../../core/graph/view/scene';
import { buildStyle } from './style';
import { diamond } from '../../core/graph/view/fixtures.test-util';
import { sceneMeasuresFrom } from '../../core/graph/view/scene';
import { paletteFor } from './palette';

const measures = sceneMeasuresFrom(null);

describe('xmlEscape', () => {
  it('escapes markup characters', () => {
    expect(xmlEscape(`<script>alert("x") & 'y'</script>`)).toBe('&lt;script&gt;alert(&quot;x&quot;) &amp; &apos;y&apos;&lt;/script&gt;');
  });
  it('replaces characters XML cannot carry', () => {
    expect(xmlEscape('a\u0000b\u0007c\uffff')).toBe('a\ufffdb\ufffdc\ufffd');
    expect(xmlEscape('x\ud800y')).toBe('x\ufffdy');
    expect(xmlEscape('x\udc00')).toBe('x\ufffd');
    expect(xmlEscape('😀')).toBe('😀');
    expect(xmlEscape('a\tb\nc')).toBe('a&#9;b&#10;c');
  });
});

describe('SVG export', () => {
  it('draws every node and edge with the canvas colours and escaped names', () => {
    const { graph, layout } = diamond();
    graph.nodes[2].name = '</text><script>alert(1)</script>';
    const scene = buildScene(graph, layout, measures);
    const style = buildStyle(graph, scene.nodeCount, 'dark');
    const svg = exportSceneSVG(scene, style, { selected: 1 });
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&lt;/text&gt;&lt;script&gt;');
    expect(svg).toContain('&amp; co');
    expect((svg.match(/marker-end=/g) ?? []).length).toBe(5);
    // edges are the canvas's curves: straight two-point edges are lines, longer ones cubic pieces
    expect(svg).toMatch(/<path d="M[\d.,-]+L[\d.,-]+" marker-end/);
    expect((svg.match(/<rect /g) ?? []).length).toBe(6); // background + 5 nodes
    expect(svg).toContain(paletteFor('dark').category.Layer);
    expect(svg).toContain(paletteFor('dark').background);
    expect(svg).toContain(`stroke="${paletteFor('dark').selected}"`);
    expect(svg).toContain('float32[1,3]');
    expect(svg).not.toMatch(/href=|<style|<image/);
  });

  it('uses fill overrides and outlines', () => {
    const { graph, layout } = diamond();
    const scene = buildScene(graph, layout, measures);
    const style = buildStyle(graph, scene.nodeCount, 'light', [null, '#808000', null, null, null], [null, null, '#008080', null, null]);
    const svg = exportSceneSVG(scene, style);
    expect(svg).toContain('fill="#808000"');
    expect(svg).toContain('stroke="#008080"');
  });
});
