import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { inspectCaffe } from './inspect';
import { openCaffeModel } from './model';

const dir = 'test/fixtures/caffe/';
const file = (f: string) => ({ name: f.split('/').pop()!, bytes: new Uint8Array(readFileSync(dir + f)) });

describe('inspect --json data for Caffe', () => {
  it('LeNet with weights', () => {
    const j = inspectCaffe(openCaffeModel([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')]));
    expect(j).toEqual({
      format: 'caffe',
      version: 'V2',
      name: 'LeNet',
      phase: 'TEST',
      layers: 9,
      types: { Input: 1, Convolution: 2, Pooling: 2, InnerProduct: 2, ReLU: 1, Softmax: 1 },
      inputs: [{ name: 'data', shape: [64, 1, 28, 28] }],
      outputs: [{ name: 'prob', shape: [64, 10] }],
      blobs: { data: [64, 1, 28, 28], conv1: [64, 20, 24, 24], pool1: [64, 20, 12, 12], conv2: [64, 50, 8, 8], pool2: [64, 50, 4, 4], ip1: [64, 500], ip2: [64, 10], prob: [64, 10] },
      params: 431080,
      upgrades: [],
      weights: { file: 'lenet_iter_10000.caffemodel', matched: 4, mismatched: [], missing: [], ignored: 2 },
    });
  });

  it('counts types over the chosen phase and reports the original version', () => {
    const tt = inspectCaffe(openCaffeModel([file('lenet/lenet_train_test.prototxt')]));
    expect(tt.types).toEqual({ Data: 1, Convolution: 2, Pooling: 2, InnerProduct: 2, ReLU: 1, Accuracy: 1, SoftmaxWithLoss: 1 });
    expect(inspectCaffe(openCaffeModel([file('lenet/lenet_train_test.prototxt')], { phase: 'TRAIN' })).types.Accuracy).toBeUndefined();
    const v0 = inspectCaffe(openCaffeModel([file('legacy/caffenet_deploy.v0.prototxt')], { batch: 1 }));
    expect(v0).toMatchObject({ version: 'V0', upgrades: ['V0->V1', 'V1->V2', 'input-fields'], inputs: [{ name: 'data', shape: [1, 3, 227, 227] }], outputs: [{ name: 'prob', shape: [1, 1000] }] });
    expect(v0.params).toBe(60965224);
  });
});
