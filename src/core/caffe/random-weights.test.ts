import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openCaffeModel } from './model';
import { BlobValues, messages } from './proto';
import { readCaffemodel, readPrototxt } from './read';
import { fnv1a64, generateCaffemodel, uniformValues } from './random-weights';

const dir = 'test/fixtures/caffe/';
const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** The generator spelled out with BigInt, straight from gen_caffemodel.py's docstring. */
function referenceValue(key: bigint, i: number, lo: number, hi: number): number {
  const M = (1n << 64n) - 1n;
  let z = (key + BigInt(i + 1) * 0x9e3779b97f4a7c15n) & M;
  z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & M;
  z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & M;
  z ^= z >> 31n;
  return Math.fround(lo + (hi - lo) * (Number(z >> 11n) * 2 ** -53));
}

describe('seeded random caffemodel (gen_caffemodel.py in TypeScript)', () => {
  it('the 32-bit-halves arithmetic equals the BigInt definition', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }), fc.nat(1000), (key, start) => {
        const n = 5;
        const dv = new DataView(new ArrayBuffer(4 * (start + n)));
        uniformValues(key, start + n, -1.5, 0.25, dv, 0);
        for (let i = start; i < start + n; i++) expect(dv.getFloat32(4 * i, true)).toBe(referenceValue(key, i, -1.5, 0.25));
      }),
      { numRuns: 200 },
    );
    expect(fnv1a64('')).toBe(0xcbf29ce484222325n);
    expect(fnv1a64('a')).toBe(0xaf63dc4c8601ec8cn);
  });

  // sha256 of `gen_caffemodel.py <net> --seed 7` output, recorded by running the shared tool
  // (python3-protobuf 4.21 + numpy); the env-gated test below re-runs the tool itself.
  it.each([
    ['lenet/lenet.prototxt', 1724696, '297263371057387ffedcf07fc39bfadf5a9ec3a39025724b5ee7795f9be744bd'],
    ['cifar10-quick/cifar10_quick.prototxt', 582860, '66c9d50e78b235382338bc1e143e24a6a8c8292b362518a03fd6f50ede879db6'],
    ['mtcnn/det2.prototxt', 401384, 'edd5931804a452a36633d279257a37695f65be0cda78ed37ac19063d17ed1c70'],
  ])('%s --seed 7 is byte-identical to the Python tool', (net, size, hash) => {
    const r = readPrototxt(readFileSync(dir + net, 'utf8'), net);
    const bytes = generateCaffemodel(r.net, { seed: 7 });
    expect(bytes.length).toBe(size);
    expect(sha(bytes)).toBe(hash);
  });

  it("fill 'zeros': the same file layout with every value 0 and BatchNorm's moving-average factor 1", () => {
    const net = 'resnet-50/ResNet-50-deploy.prototxt';
    const v2 = readPrototxt(readFileSync(dir + net, 'utf8'), net).net;
    const random = generateCaffemodel(v2, { seed: 3 });
    const zeros = generateCaffemodel(v2, { seed: 3, fill: 'zeros' });
    expect(zeros.length).toBe(random.length);
    const read = readCaffemodel(zeros, 'z.caffemodel').net;
    const nonZero: string[] = [];
    for (const l of messages(read, 'layer'))
      messages(l, 'blobs').forEach((b, j) => {
        const v = (b.data as BlobValues).toFloat32();
        const want = l.type === 'BatchNorm' && j === 2 ? 1 : 0;
        if (v.length === 0 || v.some((x) => x !== want)) nonZero.push(`${String(l.name)}:${j}`);
      });
    expect(nonZero).toEqual([]);
  });

  it('generated weights merge into their deploy net with every layer matched', () => {
    const net = 'resnet-50/ResNet-50-deploy.prototxt';
    const text = readFileSync(dir + net);
    const bytes = generateCaffemodel(readPrototxt(new Uint8Array(text), net).net, { seed: 3 });
    const model = openCaffeModel([{ name: 'r.prototxt', bytes: new Uint8Array(text) }, { name: 'r.caffemodel', bytes }]);
    const rows = model.merge!.rows;
    expect(rows.filter((r) => r.status !== 'matched')).toEqual([]);
    expect(rows.length).toBe(53 + 53 + 53 + 1);
    const bn = model.net.layers.find((l) => l.name === 'bn_conv1')!;
    expect(Array.from(bn.weights[2]!.values!.toFloat32())).toEqual([1]);
    const v = bn.weights[1]!.values!.toFloat32();
    expect(v.every((x) => x >= 0.5 && x < 1.5)).toBe(true);
  });

  it.runIf(process.env.CAFFE_GEN_TOOL)('matches a fresh run of gen_caffemodel.py (CAFFE_GEN_TOOL=path to the tool)', () => {
    const tool = process.env.CAFFE_GEN_TOOL!;
    const tmp = mkdtempSync(join(tmpdir(), 'caffe-gen-'));
    try {
      for (const net of ['lenet/lenet.prototxt', 'mobilenet-v1/mobilenet_deploy.prototxt']) {
        const out = join(tmp, 'out.caffemodel');
        const proto = join(tool, '..', '..', 'schemas', 'caffe.proto');
        execFileSync('/usr/bin/python3', [tool, dir + net, '-o', out, '--seed', '11', ...(existsSync(proto) ? ['--proto', proto] : [])]);
        const mine = generateCaffemodel(readPrototxt(readFileSync(dir + net, 'utf8'), net).net, { seed: 11 });
        expect(sha(mine)).toBe(sha(new Uint8Array(readFileSync(out))));
      }
    } finally {
      rmSync(tmp, { recursive: true, force: true });
    }
  });
});
