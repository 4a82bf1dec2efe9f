/**
 * The Run view's drawings: the per-layer error chart (d3 scales, React-drawn SVG), a plane of
 * values as a heatmap (viridis, or a diverging red-blue scale centred on 0 for a difference), and
 * a calibration histogram with the chosen range.
 */
import { useEffect, useMemo, useRef, useState } from 'react';
import { interpolateRdBu, rgb, scaleBand, scaleLinear } from 'd3';
import type { ComparisonRow, PlaneSlice } from '../../worker/api';
import { colourIndex, VIRIDIS } from '../run/colours';
import { fmt } from '../run/Heatmap';
import { badness, errorColour, formatMetric, histogramBars, METRICS, metricValue, SNR_BAD_DB, SNR_GOOD_DB, type MetricName } from './model';

const RDBU: Uint8Array = (() => {
  const lut = new Uint8Array(256 * 3);
  for (let i = 0; i < 256; i++) {
    const c = rgb(interpolateRdBu(1 - i / 255));
    lut.set([Math.round(c.r), Math.round(c.g), Math.round(c.b)], i * 3);
  }
  return lut;
})();

/** One bar per compared op slot, in run order; coloured by how much precision it lost. */
export function ErrorChart({ rows, metric, picked, onPick, theme }: { rows: ComparisonRow[]; metric: MetricName; picked: number | null; onPick: (order: number) => void; theme: 'light' | 'dark' }) {
  const m = METRICS.find((x) => x.name === metric)!;
  const width = Math.max(360, rows.length * 54 + 70);
  const height = 210;
  const margin = { top: 14, right: 12, bottom: 46, left: 56 };
  const finite = rows.map((r) => metricValue(r, metric)).filter(Number.isFinite);
  const top = metric === 'cosine' ? 1 : metric === 'snrDb' ? Math.max(80, ...finite) : Math.max(1e-12, ...finite) * 1.1;
  const bottom = metric === 'cosine' ? Math.min(0.9, ...finite) : metric === 'snrDb' ? Math.min(0, ...finite) : 0;
  const x = scaleBand<number>().domain(rows.map((r) => r.order)).range([margin.left, width - margin.right]).padding(0.25);
  const y = scaleLinear().domain([bottom, top]).nice().range([height - margin.bottom, margin.top]);
  const clampY = (v: number) => y(v === Infinity ? y.domain()[1]! : v === -Infinity ? y.domain()[0]! : Math.max(y.domain()[0]!, Math.min(y.domain()[1]!, v)));
  const ticks = y.ticks(5);
  return (
    <svg className="rl-chart" width={width} height={height} role="img" aria-label={`${m.label} per layer: ${rows.map((r) => `${r.layer} ${formatMetric(metricValue(r, metric), metric)}`).join(', ')}`}>
      <g className="rl-axis">
        {ticks.map((t) => (
          <g key={t} transform={`translate(0,${y(t)})`}>
            <line x1={margin.left} x2={width - margin.right} className="rl-grid" />
            <text x={margin.left - 6} dy="0.32em" textAnchor="end">
              {metric === 'cosine' ? t.toFixed(2) : y.tickFormat(5)(t)}
            </text>
          </g>
        ))}
        <text transform={`translate(14,${(height - margin.bottom + margin.top) / 2}) rotate(-90)`} textAnchor="middle" className="rl-axis-label">
          {m.label}
          {m.unit ? ` (${m.unit})` : ''}
        </text>
      </g>
      {metric === 'snrDb' && (
        <g className="rl-thresholds">
          <line x1={margin.left} x2={width - margin.right} y1={y(SNR_GOOD_DB)} y2={y(SNR_GOOD_DB)} />
          <text x={width - margin.right} y={y(SNR_GOOD_DB) - 3} textAnchor="end">
            {SNR_GOOD_DB} dB
          </text>
          <line x1={margin.left} x2={width - margin.right} y1={y(SNR_BAD_DB)} y2={y(SNR_BAD_DB)} />
          <text x={width - margin.right} y={y(SNR_BAD_DB) - 3} textAnchor="end">
            {SNR_BAD_DB} dB
          </text>
        </g>
      )}
      {rows.map((r) => {
        const v = metricValue(r, metric);
        const x0 = x(r.order)!;
        const base = metric === 'snrDb' || metric === 'cosine' ? y(y.domain()[0]!) : y(0);
        const yv = clampY(v);
        return (
          <g key={r.order} className={`rl-bar${picked === r.order ? ' picked' : ''}`} onClick={() => onPick(r.order)} style={{ cursor: 'pointer' }}>
            <title>{`${r.layer} (task ${r.task} ${r.engine} slot ${r.slot}): ${formatMetric(v, metric)}`}</title>
            <rect x={x0} width={x.bandwidth()} y={Math.min(yv, base)} height={Math.max(1, Math.abs(base - yv))} fill={errorColour(badness(r), theme)} />
            <text x={x0 + x.bandwidth() / 2} y={Math.min(yv, base) - 3} textAnchor="middle" className="rl-bar-value">
              {v === Infinity ? '∞' : metric === 'snrDb' ? v.toFixed(0) : ''}
            </text>
            <text x={x0 + x.bandwidth() / 2} y={height - margin.bottom + 14} textAnchor="middle" className="rl-bar-label">
              {r.layer}
            </text>
            <text x={x0 + x.bandwidth() / 2} y={height - margin.bottom + 27} textAnchor="middle" className="rl-bar-sub">
              {r.engine.startsWith('EMU') ? 'EMU' : r.engine} {r.slot}
            </text>
          </g>
        );
      })}
    </svg>
  );
}

/** A plane as a heatmap: viridis from min to max, or (diverging) blue-white-red symmetric around 0. */
export function PlaneHeatmap({ plane, title, diverging = false, range }: { plane: PlaneSlice; title: string; diverging?: boolean; range?: [number, number] }) {
  const canvas = useRef<HTMLCanvasElement>(null);
  const [hover, setHover] = useState<{ y: number; x: number; v: number } | null>(null);
  const [lo, hi] = useMemo((): [number, number] => {
    if (range) return range;
    if (!diverging) return [plane.min, plane.max];
    const a = Math.max(Math.abs(plane.min || 0), Math.abs(plane.max || 0)) || 1;
    return [-a, a];
  }, [plane, diverging, range]);
  useEffect(() => {
    const c = canvas.current;
    const ctx = c?.getContext('2d');
    if (!c || !ctx) return;
    c.width = plane.width;
    c.height = plane.height;
    const img = ctx.createImageData(plane.width, plane.height);
    const lut = diverging ? RDBU : VIRIDIS;
    plane.values.forEach((v, i) => {
      const k = colourIndex(v, lo, hi);
      const o = i * 4;
      if (k < 0) img.data.set([255, 0, 255, 255], o);
      else img.data.set([lut[k * 3]!, lut[k * 3 + 1]!, lut[k * 3 + 2]!, 255], o);
    });
    ctx.putImageData(img, 0, 0);
    setHover(null);
  }, [plane, lo, hi, diverging]);
  const style = plane.height === 1 ? { width: '100%', height: 28 } : { width: '100%', aspectRatio: `${plane.width} / ${plane.height}` };
  const onMove = (e: React.PointerEvent<HTMLCanvasElement>) => {
    const r = e.currentTarget.getBoundingClientRect();
    const x = Math.floor(((e.clientX - r.left) / r.width) * plane.width);
    const y = Math.floor(((e.clientY - r.top) / r.height) * plane.height);
    if (x < 0 || y < 0 || x >= plane.width || y >= plane.height) return setHover(null);
    setHover({ x, y, v: plane.values[y * plane.width + x]! });
  };
  return (
    <figure className="rl-heatmap">
      <figcaption>{title}</figcaption>
      <canvas ref={canvas} role="img" aria-label={`${title}: ${plane.height} x ${plane.width} values from ${fmt(lo)} to ${fmt(hi)}`} style={style} onPointerMove={onMove} onPointerLeave={() => setHover(null)} />
      <div className="heatmap-legend">
        <span className="mono">{fmt(lo)}</span>
        <span className={diverging ? 'heatmap-ramp rl-ramp-diverging' : 'heatmap-ramp'} aria-hidden="true" />
        <span className="mono">{fmt(hi)}</span>
      </div>
      <div className="muted heatmap-readout">{hover ? `[${hover.y}, ${hover.x}] = ${fmt(hover.v)}` : `${plane.height} × ${plane.width}`}</div>
    </figure>
  );
}

/** |value| histogram of a calibration row (log counts) with the threshold the method chose. */
export function CalibrationHistogram({ row }: { row: { name: string; histogram: number[]; range: number; threshold: number; absmax: number; scale: number } }) {
  const bars = histogramBars(row);
  const width = 520;
  const height = 170;
  const margin = { top: 10, right: 12, bottom: 28, left: 40 };
  const x = scaleLinear().domain([0, row.range || 1]).range([margin.left, width - margin.right]);
  const maxLog = Math.max(1e-9, ...bars.map((b) => b.log));
  const y = scaleLinear().domain([0, maxLog]).range([height - margin.bottom, margin.top]);
  const tx = x(Math.min(row.threshold, row.range));
  return (
    <svg className="rl-hist" width={width} height={height} role="img" aria-label={`|value| histogram of ${row.name}: range 0 to ${fmt(row.range)}, threshold ${fmt(row.threshold)} (scale ${fmt(row.scale)}), largest ${fmt(row.absmax)}`}>
      {bars.map((b, i) => (
        <rect key={i} x={x(b.x0)} width={Math.max(0.5, x(b.x1) - x(b.x0) - 0.3)} y={y(b.log)} height={y(0) - y(b.log)} className={b.clipped ? 'clipped' : ''} />
      ))}
      <line x1={tx} x2={tx} y1={margin.top - 4} y2={height - margin.bottom} className="rl-threshold" />
      <text x={Math.min(tx + 4, width - 120)} y={margin.top + 8} className="rl-threshold-label">
        threshold {fmt(row.threshold)}
      </text>
      <g className="rl-axis">
        <line x1={margin.left} x2={width - margin.right} y1={height - margin.bottom} y2={height - margin.bottom} />
        {x.ticks(6).map((t) => (
          <text key={t} x={x(t)} y={height - margin.bottom + 14} textAnchor="middle">
            {fmt(t)}
          </text>
        ))}
        <text x={margin.left - 4} y={margin.top + 4} textAnchor="end">
          log n
        </text>
        <text x={(width + margin.left) / 2} y={height - 2} textAnchor="middle" className="rl-axis-label">
          |value|
        </text>
      </g>
    </svg>
  );
}
