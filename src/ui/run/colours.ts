/** The heatmap's colour scale: viridis (perceptually uniform, readable in grey) as a 256-entry table. */
import { interpolateViridis, rgb } from 'd3';

/** 256 viridis colours as RGB bytes, from low to high. */
export const VIRIDIS: Uint8Array = (() => {
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const c = rgb(interpolateViridis(i / 255));
    lut.set([Math.round(c.r), Math.round(c.g), Math.round(c.b)], i * 3);
  }
  return lut;
})();

/** The colour index (0..255) of `v` on [min, max]; NaN and infinities get -1 (drawn magenta). */
export function colourIndex(v: number, min: number, max: number): number {
  if (!Number.isFinite(v)) return -1;
  if (!(max > min)) return 128;
  return Math.max(0, Math.min(255, Math.round(((v - min) / (max - min)) * 255)));
}

