import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDeploy } from './caffe-files';
import { encodeSyntheticCaffemodel, fnv1a64, syntheticLayers, uniformFloats } from './synthetic-weights';

const CAFFE = join(__dirname, '../../../../test/fixtures/caffe');

describe('synthetic weights (gen_caffemodel.py in TypeScript)', () => {
  it('FNV-1a-64 and SplitMix64 agree with 64-bit BigInt arithmetic', () => {
    const key = fnv1a64('1:conv1:0');
    const k = (BigInt(key[0]) << 32n) | BigInt(key[1]);
    const mask = (1n << 64n) - 1n;
    const expected: number[] = [];
    for (let i = 1n; i <= 50n; i++) {
      let z = (k + i * 0x9e3779b97f4a7c15n) & mask;
      z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & mask;
      z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & mask;
      z ^= z >> 31n;
      expected.push(Math.fround(-0.5 + 1.0 * (Number(z >> 11n) * 2 ** -53)));
    }
    expect(Array.from(uniformFloats(key, 50, -0.5, 0.5))).toEqual(expected);
  });

  it('writes the same bytes as gen_caffemodel.py --seed 1 for cifar10_quick (sha256 from the script)', () => {
    const deploy = readDeploy(readFileSync(join(CAFFE, 'cifar10-quick/cifar10_quick.prototxt'), 'utf8'), 'cifar10_quick.prototxt');
    const bytes = encodeSyntheticCaffemodel(deploy.net, 1);
    expect(bytes.length).toBe(582860);
    expect(createHash('sha256').update(bytes).digest('hex')).toBe('93b19612421792878022e2d0528b68d8ec1effe393017c2c3294dc19c22a9070');
  });

  it('blob shapes follow Caffe (grouped conv, BatchNorm, Scale) and zeros keep the shapes', () => {
    const deploy = readDeploy(readFileSync(join(CAFFE, 'mobilenet-v1/mobilenet_deploy.prototxt'), 'utf8'), 'mobilenet_deploy.prototxt');
    const layers = syntheticLayers(deploy.net, 1, 'zeros');
    const dw = layers.find((l) => l.name === 'conv2_1/dw')!;
    expect(dw.blobs.map((b) => b.shape)).toEqual([[32, 1, 3, 3]]);
    const bn = layers.find((l) => l.type === 'BatchNorm')!;
    expect(bn.blobs.map((b) => [b.kind, b.shape])).toEqual([['bn_mean', [32]], ['bn_var', [32]], ['bn_factor', [1]]]);
    expect(bn.blobs[2]!.data[0]).toBe(1);
    const total = layers.reduce((s, l) => s + l.blobs.reduce((t, b) => t + b.data.length, 0), 0);
    expect(total).toBe(4253891); // the parameter count the script printed
  });
});
