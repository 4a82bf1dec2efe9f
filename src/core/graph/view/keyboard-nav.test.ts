import { describe, expect, it } from 'vitest';
import { buildNavIndex, initialFocus, navTarget } from './keyboard-nav';
import { diamond } from './fixtures.test-util';

describe('keyboard navigation', () => {
  const { graph, layout } = diamond();
  const nav = buildNavIndex(graph.nodes.length, graph.edges.map((e) => e.from), graph.edges.map((e) => e.to), layout);

  it('Down follows the first consumer, Up the first producer', () => {
    expect(navTarget(nav, 0, 'ArrowDown')).toBe(1);
    expect(navTarget(nav, 1, 'ArrowDown')).toBe(2);
    expect(navTarget(nav, 3, 'ArrowUp')).toBe(1);
    expect(navTarget(nav, 4, 'ArrowUp')).toBe(2);
    expect(navTarget(nav, 0, 'ArrowUp')).toBeNull();
    expect(navTarget(nav, 4, 'ArrowDown')).toBeNull();
  });

  it('Left/Right move across the rank in drawing order', () => {
    expect(navTarget(nav, 2, 'ArrowRight')).toBe(3);
    expect(navTarget(nav, 3, 'ArrowLeft')).toBe(2);
    expect(navTarget(nav, 3, 'ArrowRight')).toBeNull();
    expect(navTarget(nav, 1, 'ArrowLeft')).toBeNull();
  });

  it('Home/End go to the first/last node in rank order', () => {
    expect(navTarget(nav, 2, 'Home')).toBe(0);
    expect(navTarget(nav, 2, 'End')).toBe(4);
  });

  it('orders across the rank by y in left-to-right layouts', () => {
    const lr = { ...layout, direction: 'LR' as const, y: Float64Array.from([0, 0, 90, 10, 0]) };
    const n2 = buildNavIndex(graph.nodes.length, graph.edges.map((e) => e.from), graph.edges.map((e) => e.to), lr);
    expect(navTarget(n2, 3, 'ArrowRight')).toBe(2);
  });

  it('ignores self loops, duplicate and out-of-range edges', () => {
    const n3 = buildNavIndex(3, [0, 0, 0, 0, 0], [0, 2, 2, 9, 1],
      { x: Float64Array.from([0, 0, 10]), y: Float64Array.from([0, 50, 50]), rank: Uint32Array.from([0, 1, 1]), direction: 'TB' });
    expect(Array.from(n3.outTargets)).toEqual([2, 1]);
    expect(navTarget(n3, 0, 'ArrowDown')).toBe(2);
  });

  it('lands first on the selection, else the first input', () => {
    expect(initialFocus(nav, 3)).toBe(3);
    expect(initialFocus(nav, null, graph.nodes.map((n) => n.kind))).toBe(0);
    expect(initialFocus(nav, null, (i) => graph.nodes[i]!.kind)).toBe(0);
    expect(initialFocus(buildNavIndex(0, [], [], { x: new Float64Array(0), y: new Float64Array(0), rank: new Uint32Array(0), direction: 'TB' }), null)).toBeNull();
  });
});
