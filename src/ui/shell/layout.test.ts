import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DOCK_DEFAULT, DOCK_MIN, DOCK_WIDTH_DEFAULT, DOCK_WIDTH_MIN, PANEL_MIN, formatLayoutHash, parseLayoutHash, type LayoutState } from './layout';

const base: LayoutState = { panel: null, dock: DOCK_DEFAULT, side: 'right', dockAt: 'bottom', dockWidth: DOCK_WIDTH_DEFAULT, inplace: 'folded', attributes: false, weights: true, names: true };
import { clampSize } from './Splitter';

describe('layout in the URL hash', () => {
  it('reads the sizes it names and nothing else', () => {
    expect(parseLayoutHash('#panel=420&dock=260')).toEqual({ panel: 420, dock: 260 });
    expect(parseLayoutHash('panel=420')).toEqual({ panel: 420 });
    expect(parseLayoutHash('')).toEqual({});
    expect(parseLayoutHash('#other=1')).toEqual({});
    expect(parseLayoutHash('#side=left')).toEqual({ side: 'left' });
    expect(parseLayoutHash('#side=hidden&side=left')).toEqual({ side: 'hidden' });
    expect(parseLayoutHash('#side=top')).toEqual({});
    expect(parseLayoutHash('#dockat=right&dockw=100')).toEqual({ dockAt: 'right', dockWidth: DOCK_WIDTH_MIN });
    expect(parseLayoutHash('#dockat=left')).toEqual({});
    expect(parseLayoutHash('#inplace=nodes')).toEqual({ inplace: 'nodes' });
    expect(parseLayoutHash('#inplace=<b>')).toEqual({});
  });

  it('ignores bad numbers and clamps the rest', () => {
    expect(parseLayoutHash('#panel=-5&dock=abc')).toEqual({});
    expect(parseLayoutHash('#panel=1e9&dock=12.5')).toEqual({});
    expect(parseLayoutHash('#panel=10&dock=3')).toEqual({ panel: PANEL_MIN, dock: DOCK_MIN });
    expect(parseLayoutHash('#panel=99999')).toEqual({ panel: 4000 });
  });

  it('writes its keys, leaves defaults out and keeps other keys', () => {
    expect(formatLayoutHash('', { ...base, panel: 420.4 })).toBe('#panel=420');
    expect(formatLayoutHash('#x=1&panel=300', { ...base, dock: 200 })).toBe('#x=1&dock=200');
    expect(formatLayoutHash('#panel=300&dock=200&side=left&dockat=right&dockw=400&inplace=nodes', base)).toBe('');
    expect(formatLayoutHash('', { ...base, side: 'hidden' })).toBe('#side=hidden');
    expect(formatLayoutHash('', { ...base, dockAt: 'right', dockWidth: 600 })).toBe('#dockat=right&dockw=600');
    expect(formatLayoutHash('#inplace=nodes&x=1', base)).toBe('#x=1');
    expect(formatLayoutHash('', { ...base, inplace: 'nodes' })).toBe('#inplace=nodes');
  });

  it('keeps the node display toggles: attrs=1, weights=0, names=0 (defaults left out)', () => {
    expect(formatLayoutHash('', { ...base, attributes: true })).toBe('#attrs=1');
    expect(formatLayoutHash('#panel=300', { ...base, panel: 300, weights: false, names: false })).toBe('#panel=300&weights=0&names=0');
    expect(formatLayoutHash('#attrs=1&weights=0&names=0', base)).toBe('');
    expect(parseLayoutHash('#attrs=1&weights=0&names=0')).toEqual({ attributes: true, weights: false, names: false });
    expect(parseLayoutHash('#attrs=yes&weights=2')).toEqual({});
  });

  it('round-trips any layout within bounds, and never throws on any hash', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: PANEL_MIN, max: 4000 })),
        fc.integer({ min: DOCK_MIN, max: 4000 }),
        fc.constantFrom('right' as const, 'left' as const, 'hidden' as const),
        fc.constantFrom('bottom' as const, 'right' as const),
        fc.integer({ min: DOCK_WIDTH_MIN, max: 4000 }),
        fc.boolean(), fc.boolean(), fc.boolean(),
        fc.constantFrom('folded' as const, 'nodes' as const),
        (panel, dock, side, dockAt, dockWidth, attributes, weights, names, inplace) => {
          const layout: LayoutState = { panel, dock, side, dockAt, dockWidth, inplace, attributes, weights, names };
          const back = { ...base, ...parseLayoutHash(formatLayoutHash('#keep=me', layout)) };
          return JSON.stringify(back) === JSON.stringify(layout);
        },
      ),
    );
    fc.assert(fc.property(fc.string(), (h) => typeof parseLayoutHash(h) === 'object'));
  });

  it('clamps splitter sizes to [min, max], min winning when the window is smaller', () => {
    expect(clampSize(100, 240, 800)).toBe(240);
    expect(clampSize(900, 240, 800)).toBe(800);
    expect(clampSize(500.6, 240, 800)).toBe(501);
    expect(clampSize(500, 240, 100)).toBe(240);
  });
});
