import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCalibrationTable } from '../nvdla/calibrate/table';
import { seededRandom } from '../random';
import { AbsHistogram, BINS, CalibrationCollector, entropyThreshold, int8ScaleTies, parseCalibrationMethod, threshold } from './calibrate';

function gaussian(n: number, seed: number, sigma = 1): Float32Array {
  const rnd = seededRandom(seed);
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) out[i] = sigma * Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  return out;
}

describe('calibration methods', () => {
  it('parses the spellings of the CLI', () => {
    expect(parseCalibrationMethod('max')).toEqual({ kind: 'max' });
    expect(parseCalibrationMethod('percentile:99.99')).toEqual({ kind: 'percentile', percentile: 99.99 });
    expect(parseCalibrationMethod('entropy')).toEqual({ kind: 'entropy' });
    expect(() => parseCalibrationMethod('percentile:0')).toThrow(/not a calibration method/);
    expect(() => parseCalibrationMethod('kl')).toThrow(RangeError);
  });

  it('max is the exact absmax over every input; scale = absmax / 127', () => {
    const c = new CalibrationCollector();
    c.add('conv1', [0.5, -3.25, 1]);
    c.next();
    c.add('conv1', [2, -1]);
    c.next();
    const r = c.result({ kind: 'max' });
    expect(r.rows[0]).toMatchObject({ name: 'conv1', absmax: 3.25, threshold: 3.25, count: 5 });
    expect(r.table.conv1!.scale).toBe(3.25 / 127);
    expect(r.inputs).toBe(2);
  });

  it('percentile: 99 % of 0..999 lies below about 990', () => {
    const h = new AbsHistogram();
    h.add(Float32Array.from({ length: 1000 }, (_, i) => i));
    const t = threshold(h, { kind: 'percentile', percentile: 99 });
    expect(t).toBeGreaterThanOrEqual(989);
    expect(t).toBeLessThanOrEqual(991 + h.binWidth);
    expect(threshold(h, { kind: 'percentile', percentile: 100 })).toBe(999);
  });

  it('entropy clips a rare outlier far out but keeps the bulk of a gaussian', () => {
    const h = new AbsHistogram();
    h.add(gaussian(200000, 1));
    h.add([80]);
    const t = threshold(h, { kind: 'entropy' });
    expect(t).toBeLessThan(20);
    expect(t).toBeGreaterThan(3);
    expect(threshold(h, { kind: 'max' })).toBe(80);
  });

  it('entropy keeps nearly everything of a uniform distribution', () => {
    expect(entropyThreshold(new Array(BINS).fill(10))).toBeGreaterThan(BINS * 0.9);
    expect(entropyThreshold([5, 3, 0, 0])).toBe(2);
  });

  it('the histogram grows by doubling without losing counts (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.array(fc.float({ min: -1e6, max: 1e6, noNaN: true }), { maxLength: 40 }), { maxLength: 8 }), (batches) => {
        const h = new AbsHistogram();
        let n = 0;
        let max = 0;
        for (const b of batches) {
          h.add(b);
          n += b.length;
          for (const v of b) max = Math.max(max, Math.abs(v));
        }
        expect(h.total).toBe(n);
        expect(h.counts.reduce((a, b) => a + b, 0)).toBe(n);
        expect(h.absmax).toBe(max);
        if (max > 0) expect(h.range).toBeGreaterThan(max);
      }),
    );
  });

  it('writes a table nvdla_compiler (and our compiler) reads', () => {
    const c = new CalibrationCollector();
    c.add('data', [0, 1]);
    c.add('conv1', [0, 0]);
    c.next();
    const r = c.result({ kind: 'max' });
    const t = parseCalibrationTable(JSON.stringify(r.table), 'calib.json');
    expect(Object.keys(t.entries)).toEqual(['data', 'conv1']);
    expect(t.entries.data!.scale).toBe(Math.fround(1 / 127));
    expect(r.rows[1]!.scale).toBeGreaterThan(0);
  });

  it('says so when nothing was collected', () => {
    expect(() => new CalibrationCollector().result({ kind: 'max' })).toThrow(/at least one input/);
  });
});

describe('clipped: the share of |values| above the threshold (what int8 saturates)', () => {
  const exact = (values: ArrayLike<number>, t: number) => Array.from(values).filter((v) => Math.abs(v) > t).length / values.length;

  it('max clips nothing, also when the largest |value| is a bin edge (values equal to the threshold become 127 exactly)', () => {
    // MNIST pixels: many are exactly 1.0, a power of two, so they start a bin of the histogram
    const pixels = Float32Array.from({ length: 784 }, (_, i) => (i % 7 === 0 ? 1 : (i % 255) / 255));
    const c = new CalibrationCollector();
    c.add('data', pixels);
    c.add('conv1', [-4, 4, 2, -1, 0.5]);
    c.add('ip1', [0.3, -2.7, 1.1]);
    c.next();
    const r = c.result({ kind: 'max' });
    expect(r.rows.map((row) => `${row.name} ${row.threshold} ${row.clipped}`)).toEqual(['data 1 0', 'conv1 4 0', 'ip1 2.7 0']);
  });

  it('percentile and entropy: the same share as counting the values above the threshold one by one', () => {
    const bad: string[] = [];
    for (const seed of [1, 2, 3]) {
      const values = gaussian(50000, seed, 2);
      values[7] = -40; // a far outlier: the methods below clip it
      const c = new CalibrationCollector();
      c.add('x', values);
      c.next();
      for (const method of [{ kind: 'percentile', percentile: 99 }, { kind: 'percentile', percentile: 99.99 }, { kind: 'entropy' }] as const) {
        const row = c.result(method).rows[0]!;
        if (!(row.threshold < 40)) bad.push(`seed ${seed} ${method.kind}: threshold ${row.threshold} does not clip the outlier`);
        const want = exact(values, row.threshold);
        if (row.clipped !== want) bad.push(`seed ${seed} ${method.kind}: clipped ${row.clipped}, counted ${want}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('a tensor tied to another scale is clipped at that scale', () => {
    const c = new CalibrationCollector();
    c.add('conv', [1, -2, 0.5, 1.5]);
    c.add('pool', [1, -3, 2.5, 0.25]); // larger than conv's: its own max would clip nothing
    c.next();
    const r = c.result({ kind: 'max' }, 'calib', { pool: 'conv' });
    const pool = r.rows.find((row) => row.name === 'pool')!;
    expect(pool).toMatchObject({ tiedTo: 'conv', scale: 2 / 127, clipped: 2 / 4 });
    expect(pool.threshold).toBeCloseTo(2, 12);
  });
});

describe('int8ScaleTies', () => {
  it('pools take their input\'s scale; every input of a Concat (its last writer) the Concat\'s; chains end at a scale of its own', () => {
    const L = (name: string, type: string, bottoms: string[], tops: string[]) => ({ name, type, bottoms, tops });
    const ties = int8ScaleTies([
      L('data', 'Input', [], ['data']),
      L('a', 'Convolution', ['data'], ['a']),
      L('relu_a', 'ReLU', ['a'], ['a']),
      L('b', 'Convolution', ['data'], ['b']),
      L('pool_b', 'Pooling', ['b'], ['pb']),
      L('cat', 'Concat', ['a', 'pb'], ['cat']),
      L('pool_cat', 'Pooling', ['cat'], ['pc']),
    ]);
    // pool_b takes b's scale and feeds the concat: b, pool_b and relu_a all take cat's, and so does the pool after it
    expect(ties).toEqual({ relu_a: 'cat', b: 'cat', pool_b: 'cat', pool_cat: 'cat' });
    // without a concat: the pool on its input's scale, as before Concat ties existed
    expect(int8ScaleTies([L('data', 'Input', [], ['data']), L('c', 'Convolution', ['data'], ['c']), L('p', 'Pooling', ['c'], ['p'])])).toEqual({ p: 'c' });
  });
});
