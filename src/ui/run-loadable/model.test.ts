import { describe, expect, it } from 'vitest';
import type { ComparisonRow } from '../../worker/api';
import { badness, calibrationJson, errorColour, formatMetric, histogramBars, inputChannels, layerErrorFills, parseCalibrationScales, slotErrorFills, worstLayer } from './model';
import { inputOf } from './state';

function row(layer: string, node: number, snrDb: number, layers: string[] = [layer]): ComparisonRow {
  return {
    order: node,
    task: 0,
    slot: node,
    engine: 'SDP',
    node,
    unit: `bias-${node}`,
    layer,
    layers,
    precision: 'FP16',
    shape: [1, 1, 1],
    scale: 1,
    metrics: { count: 1, maxAbs: 0, meanAbs: 0, relative: 0, cosine: 1, snrDb, nonFinite: 0 },
    saturated: 0,
  };
}

describe('error colours', () => {
  it('badness runs from 0 at 40 dB and above to 1 at 10 dB and below; NaN is lost', () => {
    expect([Infinity, 60, 40, 25, 10, -5, NaN].map((db) => badness(row('x', 0, db)))).toEqual([0, 0, 0, 0.5, 1, 1, 1]);
  });
  it('green for exact, red for lost, in both themes', () => {
    expect(errorColour(0, 'light')).toBe('rgb(46, 158, 91)');
    expect(errorColour(1, 'light')).toBe('rgb(208, 52, 44)');
    expect(errorColour(1, 'dark')).not.toBe(errorColour(1, 'light'));
  });
  it('op-slot graph: compared slots coloured by node index, others left to the engine colours', () => {
    const fills = slotErrorFills(4, [row('conv1', 1, 70), row('ip2', 3, 5), row('bad', 9, 5)], 'light');
    expect(fills.map((f) => f !== null)).toEqual([false, true, false, true]);
    expect(fills[3]).toBe(errorColour(1, 'light'));
  });
  it('op-slot graph: a layer split into bands colours every band slot', () => {
    const banded = { ...row('conv2', 5, 5), bands: { slots: [3, 4, 5], nodes: [3, 4, 5], label: '3-5 (3 bands)' } };
    const fills = slotErrorFills(7, [row('conv1', 1, 70), banded], 'light');
    expect(fills.map((f) => f !== null)).toEqual([false, true, false, true, true, true, false]);
    expect(fills[4]).toBe(errorColour(1, 'light'));
  });
  it('Caffe graph: a box takes the worst error of the slots naming its layer (fused layers too)', () => {
    const fills = layerErrorFills(['data', 'ip1', 'relu1', 'ip2'], [row('relu1', 0, 70, ['ip1', 'relu1']), row('ip2', 1, 25), row('ip2', 2, 8)], 'light');
    expect(fills).toEqual([null, errorColour(0, 'light'), errorColour(0, 'light'), errorColour(1, 'light')]);
  });
  it('the worst layer is the lowest SNR', () => {
    expect(worstLayer([row('a', 0, 70), row('b', 1, 12), row('c', 2, Infinity)])?.layer).toBe('b');
    expect(worstLayer([])).toBeNull();
  });
  it('metrics read as numbers a person understands', () => {
    expect(formatMetric(Infinity, 'snrDb')).toBe('∞ dB (exact)');
    expect(formatMetric(63.249, 'snrDb')).toBe('63.2 dB');
    expect(formatMetric(0.000123, 'maxAbs')).toBe('1.23e-4');
    expect(formatMetric(0.99999991, 'cosine')).toBe('0.9999999');
  });
});

describe('inputs', () => {
  it('the channels of the paired Caffe model win over the descriptor’s padded ones', () => {
    expect(inputChannels({ imageChannels: 3 }, [64, 1, 28, 28])).toBe(1);
    expect(inputChannels({ imageChannels: 1 }, [1, 3, 32, 32])).toBe(3);
    expect(inputChannels({ imageChannels: 3 }, null)).toBe(3);
  });
  it('fields to a request, or the sentence naming the wrong field', () => {
    const file = { name: '7.png', blob: new Blob([]) };
    const base = { source: 'image' as const, file, scale: '0.00390625', mean: '0', color: 'gray' as const, seed: '1' };
    expect(inputOf(base)).toEqual({ ok: true, input: { kind: 'image', file, scale: 0.00390625, mean: [0], color: 'gray' } });
    expect(inputOf({ ...base, scale: 'x' })).toEqual({ ok: false, message: "the scale is one number, not 'x'" });
    expect(inputOf({ ...base, color: 'bgr', mean: '1, 2' })).toEqual({ ok: false, message: "the mean is one number or 3 (one per channel), not '1, 2'" });
    expect(inputOf({ ...base, file: null })).toEqual({ ok: false, message: 'choose an image for the input' });
    expect(inputOf({ ...base, source: 'random', seed: '2.5' })).toEqual({ ok: false, message: "the seed is a whole number, not '2.5'" });
    expect(inputOf({ ...base, source: 'array' })).toEqual({ ok: true, input: { kind: 'array', file } });
  });
});

describe('calibration tables', () => {
  it('the download is the compiler’s JSON and reads back as the same scales', () => {
    const table = { data: { scale: 0.0078, min: 0, max: 0, offset: 0 }, conv1: { scale: 0.05, min: 0, max: 0, offset: 0 } };
    const text = calibrationJson({ table });
    expect(JSON.parse(text)).toEqual(table);
    expect(parseCalibrationScales(text, 'calib.json')).toEqual({ data: { scale: 0.0078 }, conv1: { scale: 0.05 } });
  });
  it('min / max entries give max(|min|, |max|) / 127; bad tables name the entry', () => {
    expect(parseCalibrationScales('{"data": {"min": -254, "max": 127}}', 'c.json')).toEqual({ data: { scale: 2 } });
    expect(() => parseCalibrationScales('{"data": {"scale": 0}}', 'c.json')).toThrow(/entry 'data' has no positive scale/);
    expect(() => parseCalibrationScales('[1]', 'c.json')).toThrow(/JSON object/);
    expect(() => parseCalibrationScales('{', 'c.json')).toThrow(/c.json is not JSON/);
    expect(() => parseCalibrationScales('{}', 'c.json')).toThrow(/empty/);
  });
  it('histogram bars: 128 bins over the range, bins past the threshold are clipped', () => {
    const histogram = Array.from({ length: 128 }, (_, i) => (i < 64 ? 9 : 0));
    const bars = histogramBars({ histogram, range: 128, threshold: 100, absmax: 63 });
    expect(bars.length).toBe(128);
    expect([bars[0]!.x0, bars[0]!.x1, bars[127]!.x1]).toEqual([0, 1, 128]);
    expect(bars[0]!.log).toBeCloseTo(1, 6);
    expect(bars.filter((b) => b.clipped).map((b) => b.x0)).toEqual(Array.from({ length: 28 }, (_, i) => 100 + i));
  });
});
