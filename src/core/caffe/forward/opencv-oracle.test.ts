/**
 * Forward agreement with OpenCV's Caffe importer (cv2.dnn.readNetFromCaffe, Debian's
 * python3-opencv), run only when CAFFE_OPENCV names a Python with cv2 (e.g.
 * CAFFE_OPENCV=/usr/bin/python3): every layer's output must equal OpenCV's to a relative error
 * of 1e-4 (of the blob's largest magnitude). Fusion is turned off in OpenCV so each layer's own
 * output can be asked for. The Python script is ours, written to a temporary folder.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { randomBlob } from '../input';
import { openCaffeModel } from '../model';
import { readNpz, writeNpy } from '../npy';
import { readPrototxt } from '../read';
import { generateCaffemodel } from '../random-weights';
import { runForward } from './run';

const SCRIPT = `
import sys, numpy as np, cv2
proto, weights, inp, out = sys.argv[1:5]
names = sys.argv[5:]
net = cv2.dnn.readNetFromCaffe(proto, weights)
net.setPreferableBackend(cv2.dnn.DNN_BACKEND_OPENCV)
net.setPreferableTarget(cv2.dnn.DNN_TARGET_CPU)
net.enableFusion(False)
net.setInput(np.load(inp))
outs = net.forward(names)
np.savez(out, **{n: o.astype(np.float32) for n, o in zip(names, outs)})
`;

const python = process.env.CAFFE_OPENCV;
const dir = 'test/fixtures/caffe/';

async function agree(deployFile: string, weights: Uint8Array, seed: number, range: [number, number]): Promise<void> {
  const tmp = mkdtempSync(join(tmpdir(), 'caffe-cv-'));
  try {
    const deploy = new Uint8Array(readFileSync(dir + deployFile));
    const model = openCaffeModel([{ name: 'deploy.prototxt', bytes: deploy }, { name: 'w.caffemodel', bytes: weights }], { batch: 1 });
    const input = model.net.blobs[model.net.inputs[0]!]!;
    const x = randomBlob(input.shape!.reduce((a, b) => a * b, 1), seed, range);
    const ours = await runForward(model.net, { inputs: { [input.name]: x } });
    const layers = model.net.layers.filter((l) => l.type !== 'Input' && l.tops.length > 0);
    // OpenCV reads the deploy with its own batch; write a batch-1 copy of the input shape
    const batch1 = new TextDecoder().decode(deploy).replace(/(input_param\s*\{\s*shape\s*:?\s*\{\s*dim\s*:\s*)\d+/, '$11').replace(/(input_dim\s*:\s*)\d+/, '$11').replace(/(input_shape\s*\{\s*dim\s*:\s*)\d+/, '$11');
    writeFileSync(join(tmp, 'deploy.prototxt'), batch1);
    writeFileSync(join(tmp, 'w.caffemodel'), weights);
    writeFileSync(join(tmp, 'in.npy'), writeNpy(input.shape!, x));
    writeFileSync(join(tmp, 'cv.py'), SCRIPT);
    execFileSync(python!, [join(tmp, 'cv.py'), join(tmp, 'deploy.prototxt'), join(tmp, 'w.caffemodel'), join(tmp, 'in.npy'), join(tmp, 'out.npz'), ...layers.map((l) => l.name)]);
    const cv = readNpz(new Uint8Array(readFileSync(join(tmp, 'out.npz'))), 'out.npz');
    const bad: string[] = [];
    for (const l of layers) {
      const mine = ours.values.get(model.net.blobs[l.tops[0]!]!.key)!;
      const theirs = cv.get(l.name)!;
      if (theirs.data.length !== mine.data.length) {
        bad.push(`${l.name}: ${theirs.data.length} values in OpenCV, ${mine.data.length} here`);
        continue;
      }
      let scale = 0;
      for (const v of theirs.data) scale = Math.max(scale, Math.abs(v));
      let worst = 0;
      for (let i = 0; i < mine.data.length; i++) worst = Math.max(worst, Math.abs(mine.data[i]! - theirs.data[i]!) / Math.max(scale, 1e-30));
      if (!(worst <= 1e-4)) bad.push(`${l.name} (${l.type}): relative error ${worst.toExponential(2)}`);
    }
    expect(bad).toEqual([]);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

describe.runIf(python)('agreement with OpenCV cv2.dnn (CAFFE_OPENCV=python with cv2)', () => {
  it('LeNet with its real weights', () => agree('lenet/lenet.prototxt', new Uint8Array(readFileSync(dir + 'lenet/lenet_iter_10000.caffemodel')), 1, [0, 1]));
  it('CIFAR-10 quick with its real V1 weights', () => agree('cifar10-quick/cifar10_quick.prototxt', new Uint8Array(readFileSync(dir + 'cifar10-quick/cifar10_quick_iter_5000.caffemodel')), 2, [-100, 100]));
  it('MTCNN det2 (PReLU) with its real weights', () => agree('mtcnn/det2.prototxt', new Uint8Array(readFileSync(dir + 'mtcnn/det2.caffemodel')), 3, [-1, 1]));
  it('SqueezeNet 1.1 with seeded random weights', () => {
    const net = readPrototxt(readFileSync(dir + 'squeezenet-v1.1/deploy.prototxt', 'utf8'), 'sq').net;
    return agree('squeezenet-v1.1/deploy.prototxt', generateCaffemodel(net, { seed: 5 }), 4, [-50, 50]);
  }, 300_000);
  it('CaffeNet (grouped conv, LRN) with seeded random weights', () => {
    const net = readPrototxt(readFileSync(dir + 'caffenet/deploy.prototxt', 'utf8'), 'cn').net;
    return agree('caffenet/deploy.prototxt', generateCaffemodel(net, { seed: 6 }), 5, [-50, 50]);
  }, 600_000);
});
