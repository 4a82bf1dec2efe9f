import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { DOCK_DEFAULT, DOCK_MIN, PANEL_MIN, formatLayoutHash, parseLayoutHash } from './layout';
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
  });

  it('ignores bad numbers and clamps the rest', () => {
    expect(parseLayoutHash('#panel=-5&dock=abc')).toEqual({});
    expect(parseLayoutHash('#panel=1e9&dock=12.5')).toEqual({});
    expect(parseLayoutHash('#panel=10&dock=3')).toEqual({ panel: PANEL_MIN, dock: DOCK_MIN });
    expect(parseLayoutHash('#panel=99999')).toEqual({ panel: 4000 });
  });

  it('writes its keys, leaves defaults out and keeps other keys', () => {
    expect(formatLayoutHash('', { panel: 420.4, dock: DOCK_DEFAULT, side: 'right' })).toBe('#panel=420');
    expect(formatLayoutHash('#x=1&panel=300', { panel: null, dock: 200, side: 'right' })).toBe('#x=1&dock=200');
    expect(formatLayoutHash('#panel=300&dock=200&side=left', { panel: null, dock: DOCK_DEFAULT, side: 'right' })).toBe('');
    expect(formatLayoutHash('', { panel: null, dock: DOCK_DEFAULT, side: 'hidden' })).toBe('#side=hidden');
  });

  it('round-trips any layout within bounds, and never throws on any hash', () => {
    fc.assert(
      fc.property(
        fc.option(fc.integer({ min: PANEL_MIN, max: 4000 })),
        fc.integer({ min: DOCK_MIN, max: 4000 }),
        fc.constantFrom('right' as const, 'left' as const, 'hidden' as const),
        (panel, dock, side) => {
          const back = { panel: null, dock: DOCK_DEFAULT, side: 'right', ...parseLayoutHash(formatLayoutHash('#keep=me', { panel, dock, side })) };
          return back.panel === panel && back.dock === dock && back.side === side;
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
