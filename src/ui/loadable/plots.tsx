/**
 * A weight blob's histogram and a LUT's two curves, drawn with d3's scales and shape generators
 * into React-owned SVG (no DOM handed to d3), so they follow the theme through CSS.
 */
import { useMemo } from 'react';
import { line, scaleLinear, scaleLog, max as d3max, extent } from 'd3';
import type { BlobPlot, LutCurve } from '../../worker/api';
import { grouped } from '../capabilities';

type Histogram = Extract<BlobPlot, { kind: 'histogram' }>;

const M = { top: 10, right: 14, bottom: 28, left: 56 };

function fmt(v: number): string {
  if (Number.isInteger(v)) return grouped(v);
  const a = Math.abs(v);
  if (a !== 0 && (a >= 1e5 || a < 1e-3)) return v.toExponential(2);
  return v.toPrecision(4).replace(/\.?0+$/, '');
}

function Axis({ ticks, x, y, horizontal, format, length }: { ticks: number[]; x: (v: number) => number; y: number; horizontal: boolean; format: (v: number) => string; length: number }) {
  return (
    <g className="lv-axis">
      {horizontal ? <line x1={M.left} x2={M.left + length} y1={y} y2={y} /> : <line x1={M.left} x2={M.left} y1={M.top} y2={M.top + length} />}
      {ticks.map((t) =>
        horizontal ? (
          <g key={t} transform={`translate(${x(t)},${y})`}>
            <line y2={4} />
            <text y={16} textAnchor="middle">
              {format(t)}
            </text>
          </g>
        ) : (
          <g key={t} transform={`translate(${M.left},${x(t)})`}>
            <line x2={-4} />
            <text x={-7} dy="0.32em" textAnchor="end">
              {format(t)}
            </text>
          </g>
        ),
      )}
    </g>
  );
}

export function HistogramPlot({ plot, width = 560, height = 220, log }: { plot: Histogram; width?: number; height?: number; log: boolean }) {
  const iw = width - M.left - M.right;
  const ih = height - M.top - M.bottom;
  const { x, y, yTicks } = useMemo(() => {
    const lo = plot.bins[0]?.x0 ?? 0;
    const hi = plot.bins[plot.bins.length - 1]?.x1 ?? 1;
    const x = scaleLinear().domain([lo, hi === lo ? lo + 1 : hi]).range([M.left, M.left + iw]);
    const top = d3max(plot.bins, (b) => b.count) ?? 1;
    const y = log ? scaleLog().domain([0.8, Math.max(1, top)]).range([M.top + ih, M.top]).clamp(true) : scaleLinear().domain([0, Math.max(1, top)]).nice().range([M.top + ih, M.top]);
    const yTicks = log ? y.ticks(4).filter((t) => Number.isInteger(Math.log10(t))) : y.ticks(4);
    return { x, y, yTicks };
  }, [plot, iw, ih, log]);
  return (
    <svg className="lv-plot" width={width} height={height} role="img" aria-label={`Histogram of ${grouped(plot.count)} ${plot.element} values from ${fmt(plot.min)} to ${fmt(plot.max)}`}>
      {plot.bins.map((b, i) => {
        if (b.count === 0) return null;
        const x0 = x(b.x0);
        const w = Math.max(1, x(b.x1) - x0 - (plot.bins.length > 100 ? 0 : 1));
        const yv = y(log ? Math.max(1, b.count) : b.count);
        return (
          <rect key={i} className="lv-hist-bar" x={x0} y={yv} width={w} height={M.top + ih - yv}>
            <title>{`${fmt(b.x0)} to ${fmt(b.x1)}: ${grouped(b.count)}`}</title>
          </rect>
        );
      })}
      <Axis ticks={x.ticks(6)} x={x} y={M.top + ih} horizontal format={fmt} length={iw} />
      <Axis ticks={yTicks} x={y} y={0} horizontal={false} format={(v) => fmt(v)} length={ih} />
    </svg>
  );
}

function Curve({ values, title, width, height }: { values: number[]; title: string; width: number; height: number }) {
  const iw = width - M.left - M.right;
  const ih = height - M.top - M.bottom;
  const { x, y, d } = useMemo(() => {
    const x = scaleLinear().domain([0, Math.max(1, values.length - 1)]).range([M.left, M.left + iw]);
    const [lo = 0, hi = 0] = extent(values);
    const y = scaleLinear().domain(lo === hi ? [lo - 1, hi + 1] : [lo, hi]).nice().range([M.top + ih, M.top]);
    const d = line<number>().x((_, i) => x(i)).y((v) => y(v))(values) ?? '';
    return { x, y, d };
  }, [values, iw, ih]);
  return (
    <figure className="lv-figure">
      <figcaption>{title}</figcaption>
      <svg className="lv-plot" width={width} height={height} role="img" aria-label={`${title}: ${values.length} entries from ${d3min(values)} to ${d3maxOf(values)}`}>
        <path className="lv-curve" d={d} />
        {values.length <= 80 && values.map((v, i) => <circle key={i} className="lv-curve-dot" cx={x(i)} cy={y(v)} r={2} />)}
        <Axis ticks={x.ticks(8)} x={x} y={M.top + ih} horizontal format={fmt} length={iw} />
        <Axis ticks={y.ticks(4)} x={y} y={0} horizontal={false} format={fmt} length={ih} />
      </svg>
    </figure>
  );
}

const d3min = (v: number[]) => (v.length ? Math.min(...v) : 0);
const d3maxOf = (v: number[]) => (v.length ? Math.max(...v) : 0);

/** A `dla_lut_param`: the linear-exponential table (65 entries) and the linear table (257), with its parameters. */
export function LutPlot({ curve, width = 520 }: { curve: LutCurve; width?: number }) {
  return (
    <div className="lv-lut" data-testid="lut-plot">
      <h4>
        {curve.label} <span className="muted">method {curve.method}</span>
      </h4>
      <div className="lv-lut-curves">
        <Curve values={curve.linearExp} title="linear_exp_table (65 entries, by entry index)" width={width} height={180} />
        <Curve values={curve.linearOnly} title="linear_only_table (257 entries, by entry index)" width={width} height={180} />
      </div>
      <table className="props lv-lut-params" aria-label={`${curve.label} parameters`}>
        <tbody>
          {curve.params.map((p) => (
            <tr key={p.name}>
              <th scope="row">{p.name}</th>
              <td className="mono">{p.value}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
