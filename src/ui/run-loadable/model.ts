/**
 * View models of the loadable's Run and Calibrate views: pure functions over the plain data the
 * worker returns (no React, no DOM), so they are unit-tested on their own.
 *
 * - the metric a chart shows and how bad a value is (`metricValue`, `badness`, `errorColour`);
 * - the graphs coloured by error: the op-slot graph by node index, the Caffe graph by the layer
 *   names its boxes carry (an in-place layer folded into its producer's box colours that box);
 * - the calibration table as the compiler reads it and a dropped table parsed back into scales.
 */
import { interpolateRgb } from 'd3';
import type { CalibrationResult, ComparisonRow, LoadableRunPlan, CalibrationScales } from '../../worker/api';

export type MetricName = 'snrDb' | 'cosine' | 'relative' | 'maxAbs';

export const METRICS: { name: MetricName; label: string; unit: string; better: 'higher' | 'lower' }[] = [
  { name: 'snrDb', label: 'SNR', unit: 'dB', better: 'higher' },
  { name: 'cosine', label: 'cosine similarity', unit: '', better: 'higher' },
  { name: 'relative', label: 'relative error', unit: '', better: 'lower' },
  { name: 'maxAbs', label: 'max abs error', unit: '', better: 'lower' },
];

/** SNR at and above this is drawn as exact (green); fp16 layers reach 60 dB and more. */
export const SNR_GOOD_DB = 40;
/** SNR at and below this is drawn as lost (red): a layer this far off no longer computes its layer. */
export const SNR_BAD_DB = 10;

/** The chart's value of a row; Infinity (identical tensors) is shown at the axis' end. */
export function metricValue(row: Pick<ComparisonRow, 'metrics'>, metric: MetricName): number {
  return row.metrics[metric];
}

/**
 * How much precision a layer lost, 0 (none) .. 1 (all), from its SNR: 0 at `SNR_GOOD_DB` and
 * above, 1 at `SNR_BAD_DB` and below, linear between. One scale for every metric the chart shows,
 * so a layer keeps its colour when the chart switches metric.
 */
export function badness(row: Pick<ComparisonRow, 'metrics'>): number {
  const snr = row.metrics.snrDb;
  if (Number.isNaN(snr)) return 1;
  if (snr >= SNR_GOOD_DB) return 0;
  if (snr <= SNR_BAD_DB) return 1;
  return (SNR_GOOD_DB - snr) / (SNR_GOOD_DB - SNR_BAD_DB);
}

const GOOD = { light: '#2e9e5b', dark: '#4cc47c' };
const MID = { light: '#e0a526', dark: '#f0c050' };
const BAD = { light: '#d0342c', dark: '#ff6b5e' };

/** green (exact) -> amber -> red (lost) */
export function errorColour(bad: number, theme: 'light' | 'dark'): string {
  const b = Math.max(0, Math.min(1, bad));
  return b <= 0.5 ? interpolateRgb(GOOD[theme], MID[theme])(b * 2) : interpolateRgb(MID[theme], BAD[theme])((b - 0.5) * 2);
}

/** Fills of the op-slot graph (by node index): compared slots by their error, others left to the engine colours (null). */
export function slotErrorFills(nodeCount: number, rows: readonly ComparisonRow[], theme: 'light' | 'dark'): (string | null)[] {
  const fills: (string | null)[] = new Array(nodeCount).fill(null);
  // a layer split into bands colours every band's op slot
  for (const r of rows) for (const n of r.bands?.nodes ?? [r.node]) if (n >= 0 && n < nodeCount) fills[n] = errorColour(badness(r), theme);
  return fills;
}

/**
 * Fills of the Caffe graph: a node whose name is a compared layer (or one of the layers an op
 * slot fused) gets the worst error among the rows naming it; the rest stay null.
 */
export function layerErrorFills(nodeNames: readonly string[], rows: readonly ComparisonRow[], theme: 'light' | 'dark'): (string | null)[] {
  const worst = new Map<string, number>();
  for (const r of rows) {
    const b = badness(r);
    for (const layer of new Set([r.layer, ...r.layers])) worst.set(layer, Math.max(worst.get(layer) ?? 0, b));
  }
  return nodeNames.map((n) => (worst.has(n) ? errorColour(worst.get(n)!, theme) : null));
}

/** `63.2 dB`, `∞ dB`, `0.99998`, `1.2e-4` */
export function formatMetric(v: number, metric: MetricName): string {
  if (v === Infinity) return metric === 'snrDb' ? '∞ dB (exact)' : '∞';
  if (v === -Infinity) return '−∞';
  if (Number.isNaN(v)) return 'NaN';
  if (metric === 'snrDb') return `${v.toFixed(1)} dB`;
  if (metric === 'cosine') return v.toFixed(v > 0.9999 ? 7 : 4);
  if (v === 0) return '0';
  return Math.abs(v) >= 1e-3 && Math.abs(v) < 1e4 ? String(Number(v.toPrecision(4))) : v.toExponential(2);
}

/** The rows with the worst first (by SNR), for the "where is precision lost" summary. */
export function worstLayer(rows: readonly ComparisonRow[]): ComparisonRow | null {
  let worst: ComparisonRow | null = null;
  for (const r of rows) if (!worst || r.metrics.snrDb < worst.metrics.snrDb) worst = r;
  return worst;
}

/** The channels an image or random input gives the loadable: the paired Caffe model's when known, else the plan's. */
export function inputChannels(plan: Pick<LoadableRunPlan, 'imageChannels'>, caffeInputShape: readonly number[] | null): 1 | 3 {
  const c = caffeInputShape?.[1];
  return c === 1 || c === 3 ? c : plan.imageChannels;
}

/** The `--calibtable` JSON (notes 8.1) of a calibration, as written for download: keys in net order, scale, min, max, offset. */
export function calibrationJson(result: Pick<CalibrationResult, 'table'>): string {
  return `${JSON.stringify(result.table, null, 2)}\n`;
}

/**
 * A calibration table dropped or picked for an int8 run: `{ name: { scale } }`, or entries with
 * `min` / `max` (scale = max(|min|, |max|) / 127 as the compiler reads them). Throws a sentence
 * naming what is wrong.
 */
export function parseCalibrationScales(text: string, file: string): CalibrationScales {
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new Error(`${file} is not JSON (${e instanceof Error ? e.message : String(e)})`);
  }
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new Error(`${file}: a calibration table is a JSON object keyed by layer and input names`);
  const out: CalibrationScales = {};
  for (const [name, v] of Object.entries(doc as Record<string, unknown>)) {
    const e = v as { scale?: unknown; min?: unknown; max?: unknown } | null;
    const scale = typeof e?.scale === 'number' ? e.scale : typeof e?.min === 'number' && typeof e?.max === 'number' ? Math.max(Math.abs(e.min), Math.abs(e.max)) / 127 : NaN;
    if (!(scale > 0) || !Number.isFinite(scale)) throw new Error(`${file}: entry '${name}' has no positive scale (nor min and max)`);
    out[name] = { scale };
  }
  if (!Object.keys(out).length) throw new Error(`${file}: the calibration table is empty`);
  return out;
}

/** The histogram bars of a calibration row: 128 bins over [0, range), log counts, and where the threshold falls. */
export function histogramBars(row: { histogram: number[]; range: number; threshold: number; absmax: number }): { x0: number; x1: number; count: number; log: number; clipped: boolean }[] {
  const n = row.histogram.length;
  const width = n ? row.range / n : 0;
  return row.histogram.map((count, i) => ({ x0: i * width, x1: (i + 1) * width, count, log: count > 0 ? Math.log10(count + 1) : 0, clipped: i * width >= row.threshold && row.threshold > 0 }));
}
