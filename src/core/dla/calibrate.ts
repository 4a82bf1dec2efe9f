/**
 * Calibration for int8: the `--calibtable` JSON nvdla_compiler reads (notes/nvdla.md 8.1: keyed by
 * network input names and Caffe layer names, `scale` = absmax / 127, symmetric), made from the
 * float activations of a set of inputs instead of TensorRT.
 *
 * Each tensor's |values| go into a histogram of `BINS` bins over [0, range); when a value passes
 * the range, the range doubles and pairs of bins merge, so one pass over any number of inputs
 * needs fixed memory and never looks at a value twice. The threshold t (scale = t / 127) is:
 *
 * - `max`: the largest |value| seen (exact, kept beside the histogram);
 * - `percentile:P`: the smallest bin edge below which P % of the |values| fall;
 * - `entropy`: TensorRT's method (the "EntropyCalibration2" of its calibration tables): for each
 *   candidate i (128 .. BINS bins), P = the first i bins with everything past them added to bin
 *   i - 1, Q = those i bins merged into 128 levels and spread back evenly over the non-empty bins
 *   of each level; the i of least KL(P || Q) gives t = i x bin width.
 */
import { FormatError } from '../errors';
import { str, strs, subs, type CaffeDeploy } from '../nvdla/network/caffe-input';

export const BINS = 2048;
const LEVELS = 128;

export type CalibrationMethod = { kind: 'max' } | { kind: 'percentile'; percentile: number } | { kind: 'entropy' };

/** `max`, `percentile:99.99`, `entropy` (the CLI's and the UI's spelling). */
export function parseCalibrationMethod(text: string): CalibrationMethod {
  if (text === 'max') return { kind: 'max' };
  if (text === 'entropy') return { kind: 'entropy' };
  const m = /^percentile:(\d+(?:\.\d+)?)$/.exec(text);
  if (m) {
    const p = Number(m[1]);
    if (p > 0 && p <= 100) return { kind: 'percentile', percentile: p };
  }
  throw new RangeError(`'${text}' is not a calibration method: max, percentile:P (0 < P <= 100) or entropy`);
}

export function methodText(m: CalibrationMethod): string {
  return m.kind === 'percentile' ? `percentile:${m.percentile}` : m.kind;
}

/** The |value| histogram of one tensor over all inputs. */
export class AbsHistogram {
  /** bins over [0, range) */
  readonly counts = new Float64Array(BINS);
  range = 0;
  absmax = 0;
  total = 0;
  nonFinite = 0;

  add(values: ArrayLike<number>): void {
    let max = 0;
    for (let i = 0; i < values.length; i++) {
      const a = Math.abs(values[i]!);
      if (a > max) max = a;
    }
    if (max > this.absmax) this.absmax = max;
    if (max > 0 && max >= this.range) this.grow(max);
    const scale = this.range > 0 ? BINS / this.range : 0;
    for (let i = 0; i < values.length; i++) {
      const a = Math.abs(values[i]!);
      if (!Number.isFinite(a)) {
        this.nonFinite++;
        continue;
      }
      const b = Math.min(BINS - 1, Math.floor(a * scale));
      this.counts[b]!++;
      this.total++;
    }
  }

  /** Doubles the range (merging bin pairs) until `max` lies inside it. */
  private grow(max: number): void {
    if (!Number.isFinite(max)) return;
    if (this.range === 0) {
      // the first range: the next power of two above max, so later doublings keep edges exact
      this.range = 2 ** Math.ceil(Math.log2(max));
      if (this.range <= max) this.range *= 2;
      return;
    }
    while (this.range <= max) {
      for (let i = 0; i < BINS / 2; i++) this.counts[i] = this.counts[2 * i]! + this.counts[2 * i + 1]!;
      this.counts.fill(0, BINS / 2);
      this.range *= 2;
    }
  }

  get binWidth(): number {
    return this.range / BINS;
  }
}

/** The threshold (the |value| that maps to 127) of one histogram by a method. */
export function threshold(h: AbsHistogram, method: CalibrationMethod): number {
  if (h.total === 0 || h.absmax === 0) return 0;
  if (method.kind === 'max') return h.absmax;
  if (method.kind === 'percentile') {
    const want = (method.percentile / 100) * h.total;
    let seen = 0;
    for (let i = 0; i < BINS; i++) {
      seen += h.counts[i]!;
      if (seen >= want) return Math.min(h.absmax, (i + 1) * h.binWidth);
    }
    return h.absmax;
  }
  return Math.min(h.absmax, entropyThreshold(h.counts) * h.binWidth);
}

/**
 * How many |values| int8 saturates at threshold `t`: those above t (a value equal to t becomes
 * 127 exactly). Bins are [k w, (k + 1) w) and every method's t is a bin edge or the largest
 * |value|, so:
 * - t at or above the largest |value| clips nothing, although values equal to t (MNIST's 1.0, a
 *   power of two) land in the bin that starts at t;
 * - t = k w below it clips bins k and up: TensorRT's "outliers" that the entropy method folds into
 *   bin k - 1 (a value exactly equal to t in bin k would be counted too; the histogram cannot tell
 *   it apart, and continuous activations practically never hit an edge);
 * - t inside bin k (not an edge) counts bins k + 1 and up: bin k's share above t is not known.
 */
export function clippedCount(h: AbsHistogram, t: number): number {
  if (h.total === 0 || h.binWidth === 0 || t >= h.absmax) return 0;
  let above = 0;
  for (let i = Math.min(BINS, Math.ceil(t / h.binWidth)); i < BINS; i++) above += h.counts[i]!;
  return above;
}

/** TensorRT's KL search: the number of bins (>= 128) whose quantised distribution loses least. */
export function entropyThreshold(counts: ArrayLike<number>): number {
  const n = counts.length;
  let last = n;
  while (last > 0 && counts[last - 1] === 0) last--;
  if (last <= LEVELS) return Math.max(1, last);
  let best = last;
  let bestKl = Infinity;
  const p = new Float64Array(n);
  const q = new Float64Array(n);
  for (let i = LEVELS; i <= last; i++) {
    // P: the first i bins, the outliers folded into the last
    let outliers = 0;
    for (let k = i; k < n; k++) outliers += counts[k]!;
    for (let k = 0; k < i; k++) p[k] = counts[k]!;
    p[i - 1]! += outliers;
    // Q: i bins merged into LEVELS levels, each level spread over its non-empty bins
    const per = i / LEVELS;
    for (let level = 0; level < LEVELS; level++) {
      const start = Math.floor(level * per);
      const end = level === LEVELS - 1 ? i : Math.floor((level + 1) * per);
      let sum = 0;
      let nonEmpty = 0;
      for (let k = start; k < end; k++) {
        sum += counts[k]!;
        if (counts[k] !== 0) nonEmpty++;
      }
      for (let k = start; k < end; k++) q[k] = counts[k] !== 0 ? sum / nonEmpty : 0;
    }
    const kl = klDivergence(p, q, i);
    if (kl < bestKl) {
      bestKl = kl;
      best = i;
    }
  }
  return best;
}

/** KL(P || Q) of the first n entries, both normalised; bins where Q is 0 but P is not count with a small epsilon (as TensorRT smooths). */
function klDivergence(p: Float64Array, q: Float64Array, n: number): number {
  let ps = 0;
  let qs = 0;
  for (let k = 0; k < n; k++) {
    ps += p[k]!;
    qs += q[k]!;
  }
  if (ps === 0 || qs === 0) return Infinity;
  let kl = 0;
  for (let k = 0; k < n; k++) {
    const pk = p[k]! / ps;
    if (pk === 0) continue;
    const qk = Math.max(q[k]! / qs, 1e-12);
    kl += pk * Math.log(pk / qk);
  }
  return kl;
}

/** One tensor's calibration: the figures the table and the histogram view show. */
export interface CalibrationRow {
  name: string;
  absmax: number;
  threshold: number;
  /** threshold / 127 */
  scale: number;
  /** values counted (over every input) */
  count: number;
  /** share of the |values| above the threshold (saturated in int8; `clippedCount`) */
  clipped: number;
  /** the histogram, 128 bins over [0, range) */
  histogram: number[];
  range: number;
  /** the tensor whose scale this one takes (an engine that cannot rescale writes it) */
  tiedTo?: string;
}

export interface CalibrationResult {
  method: string;
  inputs: number;
  rows: CalibrationRow[];
  /** the `--calibtable` JSON nvdla_compiler reads */
  table: Record<string, { scale: number; min: number; max: number; offset: number }>;
}

/** Collects the float activations of calibration inputs, tensor by tensor, in first-seen order. */
export class CalibrationCollector {
  private readonly histograms = new Map<string, AbsHistogram>();
  inputs = 0;

  /** the values of tensor `name` for one input (call once per tensor per input) */
  add(name: string, values: ArrayLike<number>): void {
    let h = this.histograms.get(name);
    if (!h) this.histograms.set(name, (h = new AbsHistogram()));
    h.add(values);
  }

  /** marks the end of one input */
  next(): void {
    this.inputs++;
  }

  names(): string[] {
    return [...this.histograms.keys()];
  }

  histogram(name: string): AbsHistogram | undefined {
    return this.histograms.get(name);
  }

  /**
   * `sameScale`: tensors whose scale must be another's (name -> the one it copies): an engine
   * that cannot rescale (PDP pooling, a concatenation) writes its input's integers, so its output
   * must carry its input's scale; nvdla_compiler takes whatever the table says and would
   * misread those integers (see `int8ScaleTies`).
   */
  result(method: CalibrationMethod, file = 'calibration', sameScale: Record<string, string> = {}): CalibrationResult {
    if (this.histograms.size === 0) throw new FormatError({ kind: 'empty', file, message: 'no activations were collected: the calibration needs at least one input' });
    const rows: CalibrationRow[] = [];
    const table: CalibrationResult['table'] = {};
    for (const [name, h] of this.histograms) {
      const t = threshold(h, method);
      const above = clippedCount(h, t);
      const coarse: number[] = [];
      for (let i = 0; i < BINS; i += BINS / 128) {
        let s = 0;
        for (let k = i; k < i + BINS / 128; k++) s += h.counts[k]!;
        coarse.push(s);
      }
      // a tensor that is zero everywhere still needs a positive scale (any: nothing to represent)
      const scale = t > 0 ? t / 127 : 1 / 127;
      rows.push({ name, absmax: h.absmax, threshold: t, scale, count: h.total, clipped: h.total ? above / h.total : 0, histogram: coarse, range: h.range });
      table[name] = { scale, min: 0, max: 0, offset: 0 };
    }
    for (const [name, source] of Object.entries(sameScale)) {
      const from = table[source];
      const row = rows.find((r) => r.name === name);
      if (!from || !row) continue;
      row.scale = from.scale;
      row.tiedTo = source;
      // int8 saturates it where its scale says: the threshold and the clipped share follow the tie
      const h = this.histograms.get(name)!;
      row.threshold = from.scale * 127;
      row.clipped = h.total ? clippedCount(h, row.threshold) / h.total : 0;
      table[name] = { ...from };
    }
    return { method: methodText(method), inputs: this.inputs, rows, table };
  }
}

/** A Caffe layer as the ties need it: blob names in and out. */
export interface TieLayer {
  name: string;
  type: string;
  bottoms: string[];
  tops: string[];
}

/** The layers of a deploy as the network builder reads it (`layer`, or V1 `layers`). */
export function deployLayers(deploy: CaffeDeploy): TieLayer[] {
  return [...subs(deploy.net, 'layer'), ...subs(deploy.net, 'layers')].map((l) => ({ name: str(l, 'name'), type: str(l, 'type'), bottoms: strs(l, 'bottom'), tops: strs(l, 'top') }));
}

/**
 * The ties an INT8 compile needs: pooling layers take their input's scale (the last writer of
 * their bottom blob, in-place layers included: the PDP averages or picks int8 values without
 * rescaling), and every input of a Concat takes the Concat's scale (the concatenation only places the
 * producers' int8 values side by side, so they must all be on the scale the consumer reads them
 * with; untied, GoogLeNet's inception outputs mix four scales and fall from ~36 dB to below
 * 16 dB from inception_3b on). Tied layers form groups (a pool feeding a Concat ties its input
 * to the Concat too); each group takes the scale of its last Concat, else of its pooled layer.
 */
export function int8ScaleTies(layers: TieLayer[]): Record<string, string> {
  // groups of layers that must share one scale (union-find); a group with a Concat takes the
  // last Concat's scale, any other group its first member's (the pooled layer)
  const parent = new Map<string, string>();
  const find = (n: string): string => {
    let r = n;
    while (parent.has(r)) r = parent.get(r)!;
    return r;
  };
  const order: string[] = [];
  const concats = new Set<string>();
  const union = (a: string, b: string) => {
    const ra = find(a);
    const rb = find(b);
    if (ra !== rb) parent.set(rb, ra);
  };
  const lastWriter = new Map<string, string>();
  for (const layer of layers) {
    order.push(layer.name);
    const isPool = (layer.type === 'Pooling' || layer.type === 'POOLING') && layer.bottoms.length === 1;
    const isConcat = layer.type === 'Concat' || layer.type === 'CONCAT';
    if (isConcat) concats.add(layer.name);
    if (isPool || isConcat) {
      for (const b of layer.bottoms) {
        const from = lastWriter.get(b);
        if (from && from !== layer.name) union(from, layer.name);
      }
    }
    for (const top of layer.tops) lastWriter.set(top, layer.name);
  }
  const groups = new Map<string, string[]>();
  for (const n of order) {
    const r = find(n);
    if (!groups.has(r)) groups.set(r, []);
    groups.get(r)!.push(n);
  }
  const ties: Record<string, string> = {};
  for (const members of groups.values()) {
    if (members.length < 2) continue;
    const cats = members.filter((m) => concats.has(m));
    const rep = cats.length ? cats[cats.length - 1]! : members[0]!;
    for (const m of members) if (m !== rep) ties[m] = rep;
  }
  return ties;
}
