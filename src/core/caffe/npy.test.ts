import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../errors';
import { imageToBlob, resizePlane, transformDefaults } from './input';
import { readNpy, readNpz, writeNpy, writeNpz } from './npy';
import { readPrototxt } from './read';
import { readFileSync } from 'node:fs';

describe('.npy / .npz', () => {
  it('writes numpy.save layout and reads it back', () => {
    const bytes = writeNpy([2, 3], Float32Array.from([1, 2, 3, 4, 5, -6.5]));
    expect(new TextDecoder('latin1').decode(bytes.subarray(0, 10 + 60))).toMatch(/^\x93NUMPY\x01\x00.{2}\{'descr': '<f4', 'fortran_order': False, 'shape': \(2, 3\), \}/);
    expect((10 + new DataView(bytes.buffer).getUint16(8, true)) % 64).toBe(0);
    const a = readNpy(bytes, 'a.npy');
    expect(a).toEqual({ shape: [2, 3], data: Float32Array.from([1, 2, 3, 4, 5, -6.5]), dtype: '<f4' });
    expect(readNpy(writeNpy([4], new Float32Array(4)), 'b').shape).toEqual([4]);
    expect(readNpy(writeNpy([], Float32Array.from([7])), 'c')).toMatchObject({ shape: [], data: Float32Array.from([7]) });
  });

  it('reads other dtypes numpy writes (float64, uint8, int64)', () => {
    const header = (descr: string, shape: string) => {
      let h = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${shape}, }`;
      h += ' '.repeat((64 - ((10 + h.length + 1) % 64)) % 64) + '\n';
      return [0x93, ...new TextEncoder().encode('NUMPY'), 1, 0, h.length & 255, h.length >> 8, ...new TextEncoder().encode(h)];
    };
    const f8 = new Uint8Array([...header('<f8', '(2,)'), ...new Uint8Array(Float64Array.from([0.5, -2]).buffer)]);
    expect(Array.from(readNpy(f8, 'f8').data)).toEqual([0.5, -2]);
    const u1 = new Uint8Array([...header('|u1', '(3,)'), 0, 128, 255]);
    expect(Array.from(readNpy(u1, 'u1').data)).toEqual([0, 128, 255]);
    const i8 = new Uint8Array([...header('<i8', '(1,)'), ...new Uint8Array(BigInt64Array.from([-3n]).buffer)]);
    expect(Array.from(readNpy(i8, 'i8').data)).toEqual([-3]);
    expect(() => readNpy(new Uint8Array([...header('>f4', '(1,)'), 0, 0, 0, 0]), 'be.npy')).toThrow(/dtype '>f4' is not supported/);
  });

  it('.npz round trip with keys such as layer:conv1', () => {
    const z = writeNpz([
      ['prob', { shape: [1, 2], data: Float32Array.from([0.25, 0.75]) }],
      ['layer:conv1', { shape: [1], data: Float32Array.from([-1]) }],
    ]);
    const back = readNpz(z, 'out.npz');
    expect([...back.keys()]).toEqual(['prob', 'layer:conv1']);
    expect(back.get('prob')!.data).toEqual(Float32Array.from([0.25, 0.75]));
  });

  it('truncated or mutated .npy gives a FormatError or a result', () => {
    const base = writeNpy([3, 5], Float32Array.from({ length: 15 }, (_, i) => i));
    expect(() => readNpy(base.subarray(0, base.length - 1), 't.npy')).toThrow(/data needs 60 bytes/);
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.nat(255)), { maxLength: 6 }), fc.nat(base.length), (edits, cut) => {
        const b = base.slice(0, cut);
        for (const [i, v] of edits) if (i < b.length) b[i] = v;
        try {
          readNpy(b, 'm.npy');
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('image inputs', () => {
  it('resizes like cv2.resize INTER_LINEAR (pixel centres, edges repeated)', () => {
    // 2 -> 4 columns: src x = (d + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25 -> clamp, lerp, lerp, clamp
    expect(Array.from(resizePlane(Float32Array.from([0, 100]), 2, 1, 4, 1))).toEqual([0, 25, 75, 100]);
    // 4 -> 2: centres 0.5 and 2.5 -> averages of neighbours
    expect(Array.from(resizePlane(Float32Array.from([0, 10, 20, 30]), 4, 1, 2, 1))).toEqual([5, 25]);
  });

  it('turns RGBA into BGR or gray planes, then (pixel - mean) * scale, repeated over the batch', () => {
    const img = { width: 1, height: 1, data: Uint8Array.from([200, 100, 50, 255]) };
    expect(Array.from(imageToBlob(img, [2, 3, 1, 1], { mean: [10, 20, 30], scale: 0.5 }))).toEqual([20, 40, 85, 20, 40, 85]);
    expect(Array.from(imageToBlob(img, [1, 3, 1, 1], { color: 'rgb' }))).toEqual([200, 100, 50]);
    // 0.299 * 200 + 0.587 * 100 + 0.114 * 50 = 124.2 -> 124
    expect(Array.from(imageToBlob(img, [1, 1, 1, 1], { scale: 0.00390625 }))).toEqual([124 * 0.00390625]);
    expect(() => imageToBlob(img, [1, 2, 1, 1])).toThrow(/1 or 3 channels/);
  });

  it('takes scale and mean defaults from a train_test transform_param', () => {
    const tt = readPrototxt(readFileSync('test/fixtures/caffe/lenet/lenet_train_test.prototxt', 'utf8'), 'tt');
    expect(transformDefaults(tt.net)).toEqual({ layer: 'mnist', scale: 0.00390625 });
    const m = readPrototxt('layer { name: "d" type: "Data" transform_param { mean_value: 104 mean_value: 117 mean_value: 123 mirror: true } }', 'm');
    expect(transformDefaults(m.net)).toEqual({ layer: 'd', mean: [104, 117, 123] });
  });
});
