import { useEffect, useMemo, useRef, useState } from 'react';
import type { BlobSlice } from '../../worker/api';
import { colourIndex, VIRIDIS } from './colours';

/**
 * One plane of a blob as a heatmap on a canvas: a pixel per value, viridis from the plane's min
 * (dark) to its max (yellow), scaled up without smoothing. Hovering reads a value out.
 */
export function Heatmap({ slice }: { slice: BlobSlice }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<{ y: number; x: number; v: number } | null>(null);
  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    c.width = slice.width;
    c.height = slice.height;
    const img = ctx.createImageData(slice.width, slice.height);
    const v = slice.values;
    for (let i = 0; i < v.length; i++) {
      const k = colourIndex(v[i]!, slice.min, slice.max);
      const o = i * 4;
      if (k < 0) img.data.set([255, 0, 255, 255], o);
      else {
        img.data[o] = VIRIDIS[k * 3]!;
        img.data[o + 1] = VIRIDIS[k * 3 + 1]!;
        img.data[o + 2] = VIRIDIS[k * 3 + 2]!;
        img.data[o + 3] = 255;
      }
    }
    ctx.putImageData(img, 0, 0);
    setHover(null);
  }, [slice]);
  // a row of values (a classifier's scores) is drawn as a strip, a plane keeps its aspect ratio
  const style = useMemo(() => {
    if (slice.height === 1) return { width: '100%', height: 28 };
    const aspect = slice.width / slice.height;
    return { width: aspect >= 1 ? '100%' : `${Math.round(aspect * 100)}%`, aspectRatio: `${slice.width} / ${slice.height}` };
  }, [slice.width, slice.height]);
  const onMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const x = Math.floor(((e.clientX - r.left) / r.width) * slice.width);
    const y = Math.floor(((e.clientY - r.top) / r.height) * slice.height);
    if (x < 0 || y < 0 || x >= slice.width || y >= slice.height) return setHover(null);
    setHover({ x, y, v: slice.values[y * slice.width + x]! });
  };
  const label = `Heatmap of ${slice.key}, item ${slice.item}, channel ${slice.channel}: ${slice.height} x ${slice.width} values from ${fmt(slice.min)} (dark) to ${fmt(slice.max)} (yellow)`;
  return (
    <div className="heatmap">
      <canvas ref={canvas} role="img" aria-label={label} style={style} onPointerMove={onMove} onPointerLeave={() => setHover(null)} />
      <div className="heatmap-legend">
        <span className="mono">{fmt(slice.min)}</span>
        <span className="heatmap-ramp" aria-hidden="true" />
        <span className="mono">{fmt(slice.max)}</span>
      </div>
      <div className="muted heatmap-readout" aria-live="off">
        {hover ? `[${hover.y}, ${hover.x}] = ${fmt(hover.v)}` : `${slice.height} x ${slice.width}; hover to read a value`}
      </div>
    </div>
  );
}

export function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e5)) return String(Number(v.toPrecision(5)));
  return v.toExponential(3);
}
