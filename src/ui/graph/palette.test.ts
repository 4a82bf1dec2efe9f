import { describe, expect, it } from 'vitest';
import type { NodeCategory } from '../../core/graph/model';
import { contrastRatio, nodeFillColor, paletteFor, parseColor, textColorFor } from './palette';

const categories: NodeCategory[] = ['Layer', 'Activation', 'Pool', 'Normalization', 'Dropout', 'Shape', 'Tensor', 'Transform',
  'Data', 'Quantization', 'Custom', 'Control', 'Input', 'Output', 'Constant', 'Other'];

describe('palette', () => {
  it('parses hex and rgb colours', () => {
    expect(parseColor('#fff')).toEqual([255, 255, 255]);
    expect(parseColor('#335588')).toEqual([0x33, 0x55, 0x88]);
    expect(parseColor('rgb(1, 2, 3)')).toEqual([1, 2, 3]);
    expect(parseColor('nonsense')).toBeNull();
  });

  it('computes WCAG contrast', () => {
    expect(contrastRatio('#000000', '#ffffff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBeCloseTo(1, 5);
  });

  for (const theme of ['light', 'dark'] as const) {
    it(`gives readable text on every category fill (${theme})`, () => {
      const pal = paletteFor(theme);
      for (const c of categories) {
        const fill = pal.category[c];
        expect(contrastRatio(fill, textColorFor(fill)), `${theme} ${c} ${fill}`).toBeGreaterThanOrEqual(4.5);
      }
      for (const f of [pal.inputFill, pal.outputFill, pal.constantFill, pal.nodeDefault]) {
        expect(contrastRatio(f, textColorFor(f))).toBeGreaterThanOrEqual(4.5);
      }
    });
  }

  it('distinguishes categories, markers and themes', () => {
    const light = paletteFor('light'), dark = paletteFor('dark');
    expect(light.background).not.toBe(dark.background);
    expect(nodeFillColor({ kind: 'op', category: 'Layer' }, light)).not.toBe(nodeFillColor({ kind: 'op', category: 'Activation' }, light));
    expect(nodeFillColor({ kind: 'input', category: 'Input' }, light)).not.toBe(nodeFillColor({ kind: 'output', category: 'Output' }, light));
    expect(nodeFillColor({ kind: 'op', category: 'Layer' }, dark)).not.toBe(nodeFillColor({ kind: 'op', category: 'Layer' }, light));
    expect(light.highlighted).toBe('#ff00be');
  });

  it('edges stand out from the background in both themes', () => {
    for (const theme of ['light', 'dark'] as const) {
      const p = paletteFor(theme);
      expect(contrastRatio(p.edge, p.background)).toBeGreaterThanOrEqual(3);
      expect(contrastRatio(p.edgeLabel, p.background)).toBeGreaterThanOrEqual(4.5);
    }
  });
});
