import { useEffect, useRef } from 'react';
import { axisBottom, max as d3max, scaleLinear, select } from 'd3';

export interface HistogramData {
  /** lower edge of the first bin, upper edge of the last */
  min: number;
  max: number;
  bins: number[];
}

const WIDTH = 280;
const HEIGHT = 96;
const MARGIN = { top: 6, right: 8, bottom: 20, left: 8 };

/**
 * A histogram of values (a weight blob in the node panel, a blob of a run), drawn with d3: equal
 * bins over [min, max], bar heights linear in the count, the value axis below. The SVG has an
 * accessible name giving the range and the fullest bin.
 */
export function Histogram({ data, label }: { data: HistogramData; label: string }) {
  const ref = useRef<SVGSVGElement>(null);
  useEffect(() => {
    const svg = ref.current;
    if (!svg) return;
    const root = select(svg);
    root.selectAll('*').remove();
    if (!Number.isFinite(data.min) || !Number.isFinite(data.max) || data.bins.length === 0) return;
    const lo = data.min;
    const hi = data.max > data.min ? data.max : data.min + 1;
    const x = scaleLinear().domain([lo, hi]).range([MARGIN.left, WIDTH - MARGIN.right]);
    const y = scaleLinear()
      .domain([0, d3max(data.bins) ?? 1])
      .range([HEIGHT - MARGIN.bottom, MARGIN.top]);
    const width = (hi - lo) / data.bins.length;
    root
      .append('g')
      .attr('class', 'hist-bars')
      .selectAll('rect')
      .data(data.bins)
      .join('rect')
      .attr('x', (_, i) => x(lo + i * width) + 0.5)
      .attr('width', () => Math.max(1, x(lo + width) - x(lo) - 1))
      .attr('y', (d) => y(d))
      .attr('height', (d) => y(0) - y(d));
    root
      .append('g')
      .attr('class', 'hist-axis')
      .attr('transform', `translate(0,${HEIGHT - MARGIN.bottom})`)
      .call(axisBottom(x).ticks(4).tickSizeOuter(0));
  }, [data]);
  const fullest = data.bins.reduce((b, n, i) => (n > (data.bins[b] ?? -1) ? i : b), 0);
  const binWidth = (data.max - data.min) / Math.max(1, data.bins.length);
  const name = `${label}: ${data.bins.length} bins from ${fmt(data.min)} to ${fmt(data.max)}; the fullest holds ${data.bins[fullest] ?? 0} values around ${fmt(data.min + (fullest + 0.5) * binWidth)}`;
  return <svg ref={ref} className="histogram" role="img" aria-label={name} viewBox={`0 0 ${WIDTH} ${HEIGHT}`} width="100%" preserveAspectRatio="xMinYMin meet" />;
}

function fmt(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  if (v === 0 || (Math.abs(v) >= 1e-3 && Math.abs(v) < 1e5)) return String(Number(v.toPrecision(4)));
  return v.toExponential(3);
}
