/**
 * Compare two runs output by output: the largest absolute difference, the number of elements
 * beyond tolerance, and where the worst one is. Floats pass within `floatTolerance` (absolute,
 * default 1e-5) plus `relativeTolerance` times the magnitude (default 0); integers and bools must
 * be exact. NaN equals NaN at the same place; NaN against a number, or infinities that differ,
 * count as an infinite difference.
 */
import { elementCount, isBigData, isFloat, type DType, type TensorValue } from './tensor';

export interface CompareOptions {
  floatTolerance?: number;
  relativeTolerance?: number;
}

export interface OutputDifference {
  index: number;
  dtype: DType;
  shape: number[];
  /** largest |a - b| over the elements (0 when equal, Infinity for a NaN or infinity mismatch) */
  maxAbsDiff: number;
  /** flat index of the element with the largest difference, -1 when all are equal */
  worstIndex: number;
  /** elements beyond tolerance */
  mismatches: number;
  /** the absolute tolerance applied: floatTolerance for floats, 0 for integers and bools */
  tolerance: number;
  ok: boolean;
  /** set when the outputs cannot be compared element by element (dtype or shape differs, missing) */
  problem?: string;
}

export interface ComparisonReport {
  ok: boolean;
  outputs: OutputDifference[];
  /** largest maxAbsDiff over all outputs */
  maxAbsDiff: number;
}

function elementDiff(a: TensorValue, b: TensorValue, i: number): number {
  if (isBigData(a.data) && isBigData(b.data)) {
    const d = a.data[i]! - b.data[i]!;
    return Math.abs(Number(d));
  }
  const x = Number(a.data[i]);
  const y = Number(b.data[i]);
  if (Number.isNaN(x) || Number.isNaN(y)) return Number.isNaN(x) && Number.isNaN(y) ? 0 : Infinity;
  if (x === y) return 0; // equal infinities too
  return Math.abs(x - y);
}

export function compareOutputs(a: readonly TensorValue[], b: readonly TensorValue[], options: CompareOptions = {}): ComparisonReport {
  const atol = options.floatTolerance ?? 1e-5;
  const rtol = options.relativeTolerance ?? 0;
  const outputs: OutputDifference[] = [];
  const count = Math.max(a.length, b.length);
  for (let k = 0; k < count; k++) {
    const x = a[k];
    const y = b[k];
    const base = { index: k, worstIndex: -1, mismatches: 0 };
    if (!x || !y) {
      const t = (x ?? y)!;
      outputs.push({ ...base, dtype: t.dtype, shape: [...t.shape], maxAbsDiff: Infinity, tolerance: 0, ok: false, problem: `output ${k} is missing from the ${x ? 'second' : 'first'} run` });
      continue;
    }
    const float = isFloat(x.dtype);
    const tolerance = float ? atol : 0;
    if (x.dtype !== y.dtype) {
      outputs.push({ ...base, dtype: x.dtype, shape: [...x.shape], maxAbsDiff: Infinity, tolerance, ok: false, problem: `dtypes differ: ${x.dtype} and ${y.dtype}` });
      continue;
    }
    if (x.shape.length !== y.shape.length || x.shape.some((d, i) => d !== y.shape[i]) || x.data.length !== y.data.length || elementCount(x.shape) !== x.data.length) {
      outputs.push({ ...base, dtype: x.dtype, shape: [...x.shape], maxAbsDiff: Infinity, tolerance, ok: false, problem: `shapes differ: [${x.shape.join(',')}] and [${y.shape.join(',')}]` });
      continue;
    }
    let max = 0;
    let worst = -1;
    let mismatches = 0;
    for (let i = 0; i < x.data.length; i++) {
      const d = elementDiff(x, y, i);
      if (d > max) {
        max = d;
        worst = i;
      }
      if (d === 0) continue;
      const allowed = float ? tolerance + rtol * Math.abs(Number(y.data[i])) : 0;
      if (!(d <= allowed)) mismatches++;
    }
    outputs.push({ ...base, dtype: x.dtype, shape: [...x.shape], maxAbsDiff: max, worstIndex: worst, mismatches, tolerance, ok: mismatches === 0 });
  }
  return { ok: outputs.every((o) => o.ok), outputs, maxAbsDiff: outputs.reduce((m, o) => Math.max(m, o.maxAbsDiff), 0) };
}
