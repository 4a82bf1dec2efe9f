import { describe, expect, it } from 'vitest';
import { backendStyles, colourNodes, EARTH, GREEN_BLUE } from './colors';

describe('partition colours', () => {
  it('uses green-blue up to 4 backends and earth up to 9, in backends order, per theme', () => {
    expect(backendStyles(['cpu', 'npu'], 'light').map((s) => s.fill)).toEqual([GREEN_BLUE[0]!.light, GREEN_BLUE[1]!.light]);
    expect(backendStyles(['cpu', 'npu'], 'dark').map((s) => s.fill)).toEqual([GREEN_BLUE[0]!.dark, GREEN_BLUE[1]!.dark]);
    const five = backendStyles(['a', 'b', 'c', 'd', 'e'], 'light');
    expect(five.map((s) => s.slot)).toEqual(['earth-0', 'earth-1', 'earth-2', 'earth-3', 'earth-4']);
    expect(five[4]!.fill).toBe(EARTH[4]!.light);
  });
  it('gives every one of many backends a distinct fill', () => {
    const names = Array.from({ length: 27 }, (_, i) => `b${i}`);
    for (const theme of ['light', 'dark'] as const) {
      const styles = backendStyles(names, theme);
      expect(new Set(styles.map((s) => s.fill)).size).toBe(27);
      expect(styles[9]!.cycle).toBe(1);
    }
  });
  it('colours operators of subgraph 0 by backend and outlines them by part; markers keep theirs', () => {
    const nodes = [{ kind: 'input', index: 0 }, { kind: 'op', index: 0 }, { kind: 'op', index: 1 }, { kind: 'output', index: 3 }];
    const styles = backendStyles(['cpu', 'npu'], 'light');
    const c = colourNodes(nodes, Int32Array.from([1, 0]), Int32Array.from([0, 1]), styles, 'light');
    expect(c.fill).toEqual([null, styles[1]!.fill, styles[0]!.fill, null]);
    expect(c.outline[0]).toBeNull();
    expect(c.outline[1]).not.toBe(c.outline[2]);
    expect(Array.from(c.part)).toEqual([-1, 0, 1, -1]);
  });
});
