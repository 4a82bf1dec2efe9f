/** Summary statistics of a blob or weight: min / max / mean / std, non-finite counts, histogram. */
export interface ValueStats {
  count: number;
  min: number;
  max: number;
  mean: number;
  std: number;
  /** NaN and +-Infinity values (left out of the other figures) */
  nonFinite: number;
  zeros: number;
}

export interface Histogram {
  /** lower edge of the first bin, upper edge of the last */
  min: number;
  max: number;
  /** bin counts, equal widths over [min, max] (the max falls into the last bin) */
  bins: number[];
}

export function valueStats(data: ArrayLike<number>): ValueStats {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sumSq = 0;
  let finite = 0;
  let zeros = 0;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (!Number.isFinite(v)) continue;
    finite++;
    if (v < min) min = v;
    if (v > max) max = v;
    if (v === 0) zeros++;
    sum += v;
  }
  const mean = finite ? sum / finite : NaN;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (Number.isFinite(v)) sumSq += (v - mean) * (v - mean);
  }
  return {
    count: data.length,
    min: finite ? min : NaN,
    max: finite ? max : NaN,
    mean,
    std: finite ? Math.sqrt(sumSq / finite) : NaN,
    nonFinite: data.length - finite,
    zeros,
  };
}

export function histogram(data: ArrayLike<number>, binCount = 32, stats: ValueStats = valueStats(data)): Histogram {
  const bins = new Array<number>(binCount).fill(0);
  const { min, max } = stats;
  if (!Number.isFinite(min)) return { min: NaN, max: NaN, bins };
  const width = (max - min) / binCount;
  for (let i = 0; i < data.length; i++) {
    const v = data[i]!;
    if (!Number.isFinite(v)) continue;
    const b = width > 0 ? Math.min(binCount - 1, Math.floor((v - min) / width)) : 0;
    bins[b]!++;
  }
  return { min, max, bins };
}

/** Stats, histogram and the first values of a long sequence given in chunks (two passes). */
export function streamedStats(each: (f: (chunk: Float32Array) => void) => void, binCount: number, firstCount: number): { stats: ValueStats; histogram: Histogram; first: number[] } {
  let count = 0;
  let finite = 0;
  let zeros = 0;
  let min = Infinity;
  let max = -Infinity;
  let mean = 0;
  let m2 = 0;
  const first: number[] = [];
  each((c) => {
    for (let i = 0; i < c.length; i++) {
      const v = c[i]!;
      if (first.length < firstCount) first.push(v);
      count++;
      if (!Number.isFinite(v)) continue;
      finite++;
      if (v === 0) zeros++;
      if (v < min) min = v;
      if (v > max) max = v;
      const d = v - mean;
      mean += d / finite;
      m2 += d * (v - mean);
    }
  });
  const stats: ValueStats = {
    count,
    min: finite ? min : NaN,
    max: finite ? max : NaN,
    mean: finite ? mean : NaN,
    std: finite ? Math.sqrt(m2 / finite) : NaN,
    nonFinite: count - finite,
    zeros,
  };
  const bins = new Array<number>(binCount).fill(0);
  if (finite) {
    const width = (max - min) / binCount;
    each((c) => {
      for (let i = 0; i < c.length; i++) {
        const v = c[i]!;
        if (!Number.isFinite(v)) continue;
        bins[width > 0 ? Math.min(binCount - 1, Math.floor((v - min) / width)) : 0]!++;
      }
    });
  }
  return { stats, histogram: { min: stats.min, max: stats.max, bins }, first };
}
