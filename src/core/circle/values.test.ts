import { describe, it, expect } from 'vitest';
import { read } from './read';
import { write } from './write';
import { tensorDetails, tensorNpy } from './values';
import { readNpy } from '../caffe/npy';
import { sampleModel, tensor, quant, f32 } from './testing';

describe('tensorDetails', () => {
  it('describes a non-constant tensor with its quantization formula per channel', () => {
    const m = read(write(sampleModel()), 'x');
    const d = tensorDetails(m, 0, 5);
    expect(d).toMatchObject({ name: 'add', dtype: 'float32', typeName: 'FLOAT32', shape: [1, 2, 2, 1], constant: false, values: null, typeString: 'float32[1,2,2,1]' });
    expect(d.quantization).toEqual({
      formula: 'scale * (q - zero_point)',
      lines: ['[0] 0.5 * (q - 0)', '[1] 0.25 * (q - 3)'],
      perChannel: true,
      quantizedDimension: 3,
      channels: [
        { channel: 0, scale: 0.5, zeroPoint: 0, min: null, max: null },
        { channel: 1, scale: 0.25, zeroPoint: 3, min: null, max: null },
      ],
      details: null,
    });
    expect(tensorDetails(m, 0, 6).typeString).toBe('float32[?,2,2,1]');
  });

  it('decodes constant values with min / max / mean over all elements', () => {
    const m = sampleModel();
    const values = Array.from({ length: 100 }, (_, i) => i - 10);
    m.buffers[1] = { data: f32(values), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('filter', [100], { buffer: 1 });
    const back = read(write(m), 'x');
    const d = tensorDetails(back, 0, 1);
    expect(d.constant).toBe(true);
    expect(d.byteLength).toBe(400);
    expect(d.values!.first).toEqual(values.slice(0, 64));
    expect(d.values!.count).toBe(100);
    expect(d.values!.min).toBe(-10);
    expect(d.values!.max).toBe(89);
    expect(d.values!.mean).toBeCloseTo(39.5, 10);
    expect(d.note).toBeNull();
  });

  it('handles unaligned data and every integer type, little-endian', () => {
    const m = sampleModel();
    const raw = new Uint8Array(1 + 16);
    const dv = new DataView(raw.buffer, 1);
    dv.setBigInt64(0, -5n, true);
    dv.setBigInt64(8, 7n, true);
    m.buffers[1] = { data: raw.subarray(1), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('i64', [2], { buffer: 1, type: 4 });
    // decode straight from the (unaligned) view, without a write/read
    const d = tensorDetails(m, 0, 1);
    expect(d.values).toMatchObject({ first: [-5, 7], min: -5, max: 7, mean: 1 });
    m.subgraphs[0]!.tensors[1] = tensor('i16', [8], { buffer: 1, type: 7 });
    expect(tensorDetails(m, 0, 1).values!.first.slice(0, 2)).toEqual([-5, -1]);
    m.subgraphs[0]!.tensors[1] = tensor('b', [16], { buffer: 1, type: 6 });
    expect(tensorDetails(m, 0, 1).values!.first.slice(0, 2)).toEqual([true, true]);
    m.subgraphs[0]!.tensors[1] = tensor('s', [1], { buffer: 1, type: 5 });
    expect(tensorDetails(m, 0, 1).values).toBeNull();
    expect(tensorDetails(m, 0, 1).note).toBe('values of type STRING are not decoded');
  });

  it('dequantizes the first values per channel', () => {
    const m = sampleModel();
    m.buffers[1] = { data: new Uint8Array([10, 20, 30, 40, 250, 0]), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('q', [3, 2], { buffer: 1, type: 3, quantization: quant([0.5, 2], [10, 0], 1) });
    const d = tensorDetails(read(write(m), 'x'), 0, 1);
    expect(d.values!.first).toEqual([10, 20, 30, 40, 250, 0]);
    expect(d.values!.dequantized).toEqual([0, 40, 10, 80, 120, 0]);
    const i8 = sampleModel();
    i8.buffers[1] = { data: new Uint8Array([0xff, 0x80]), offset: 0, size: 0 };
    i8.subgraphs[0]!.tensors[1] = tensor('q', [2], { buffer: 1, type: 9, quantization: quant([0.1], [-1]) });
    const d8 = tensorDetails(i8, 0, 1);
    expect(d8.values!.first).toEqual([-1, -128]);
    expect(d8.values!.dequantized![1]).toBeCloseTo(-12.7, 6);
    // the range the dtype reaches, in the float32 the model computes with
    expect(d8.quantization!.lines).toEqual(['-12.7 ≤ 0.1 * (q - -1) ≤ 12.8']);
  });

  it('decodes float16 and reads extended buffers from the file bytes', () => {
    const m = sampleModel();
    m.buffers[1] = { data: new Uint8Array([0x00, 0x3c, 0x00, 0x40]), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('h', [2], { buffer: 1, type: 1 });
    const bytes = write(m, { extendedBuffers: true });
    const back = read(bytes, 'ext.circle');
    expect(tensorDetails(back, 0, 1).values).toBeNull();
    expect(tensorDetails(back, 0, 1).note).toMatch(/outside the FlatBuffer/);
    expect(tensorDetails(back, 0, 1, bytes).values!.first).toEqual([1, 2]);
  });

  it('quantization shows the model\'s min / max around the formula, scales as the shortest float32 text', () => {
    const m = sampleModel();
    m.subgraphs[0]!.tensors[1] = tensor('q', [2], { type: 3, quantization: { min: [0], max: [1], scale: [Math.fround(1 / 255)], zeroPoint: [0], quantizedDimension: 0, details: null } });
    expect(tensorDetails(read(write(m), 'x'), 0, 1).quantization!.lines).toEqual(['0 ≤ 0.003921569 * (q - 0) ≤ 1']);
  });

  it('lays the values out along the shape and exports them as .npy with their dtype', () => {
    const m = sampleModel();
    const values = [0.001, -2, 3.5, 4, 5, 6].map(Math.fround);
    m.buffers[1] = { data: f32(values), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('conv/filter;x', [2, 3], { buffer: 1 });
    const back = read(write(m), 'x');
    expect(tensorDetails(back, 0, 1).values!.text).toBe('[[0.001,    -2,   3.5],\n [    4,     5,     6]]');
    const npy = tensorNpy(back, 0, 1)!;
    expect(npy.name).toBe('conv_filter_x.npy');
    const array = readNpy(npy.bytes, npy.name);
    expect(array.dtype).toBe('<f4');
    expect(array.shape).toEqual([2, 3]);
    expect(Array.from(array.data)).toEqual(values);
    m.buffers[1] = { data: new Uint8Array([1, 0, 255]), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('b', [3], { buffer: 1, type: 9 });
    expect(readNpy(tensorNpy(m, 0, 1)!.bytes, 'b').dtype).toBe('|i1');
    expect(Array.from(readNpy(tensorNpy(m, 0, 1)!.bytes, 'b').data)).toEqual([1, 0, -1]);
    expect(tensorNpy(m, 0, 0)).toBeNull(); // not a constant
  });

  it("wraps the values at the panel's width, held to 24..200 characters (46 when not given)", () => {
    const m = sampleModel();
    const values = Array.from({ length: 64 }, (_, i) => Math.fround((i - 32) / 7));
    m.buffers[1] = { data: f32(values), offset: 0, size: 0 };
    m.subgraphs[0]!.tensors[1] = tensor('w', [64], { buffer: 1 });
    const back = read(write(m), 'x');
    const widest = (width?: number) => Math.max(...tensorDetails(back, 0, 1, undefined, width).values!.text!.split('\n').map((l) => l.length));
    const lines = (width?: number) => tensorDetails(back, 0, 1, undefined, width).values!.text!.split('\n').length;
    // each number is 11 characters wide with its separator (`-4.5714288,`): a line holds what fits
    expect(widest(100)).toBeLessThanOrEqual(100);
    expect(widest(100)).toBeGreaterThan(100 - 12);
    expect(widest(40)).toBeLessThanOrEqual(40);
    expect(lines(40)).toBeGreaterThan(lines(100));
    expect(widest()).toBeLessThanOrEqual(46);
    expect(widest()).toBeGreaterThan(46 - 12);
    expect(tensorDetails(back, 0, 1, undefined, 1).values!.text).toBe(tensorDetails(back, 0, 1, undefined, 24).values!.text);
    expect(tensorDetails(back, 0, 1, undefined, 10_000).values!.text).toBe(tensorDetails(back, 0, 1, undefined, 200).values!.text);
    expect(tensorDetails(back, 0, 1, undefined, NaN).values!.text).toBe(tensorDetails(back, 0, 1).values!.text);
    // the numbers are the same whatever the width
    const numbers = (width: number) => tensorDetails(back, 0, 1, undefined, width).values!.text!.replace(/[[\]\s]/g, '');
    expect(numbers(24)).toBe(numbers(200));
  });
});
