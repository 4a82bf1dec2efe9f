import { describe, expect, it } from 'vitest';
import { starterSamples, type SampleEntry } from './samples';

describe('starterSamples', () => {
  it('offers one sample of each kind the studio opens, a real and small one first', () => {
    const samples: SampleEntry[] = [
      { group: 'models', file: 'resnet_like_1000.circle', title: 'resnet_like_1000 (synthetic)', operators: 1000 },
      { group: 'models', file: 'big.circle', title: 'big', operators: 40 },
      { group: 'models', file: 'small.circle', title: 'small', operators: 3 },
      { group: 'partition', file: 'a.part', files: ['a.circle', 'a.part'], title: 'a.part' },
      { group: 'caffe', file: 'net.prototxt', title: 'structure only' },
      { group: 'caffe', file: 'lenet.prototxt', files: ['lenet.prototxt', 'lenet.caffemodel'], title: 'LeNet with weights' },
      { group: 'loadables', file: 'l.nvdla', title: 'l', operators: 9 },
    ];
    const got = starterSamples(samples).map((s) => [s.kind.group, s.sample?.file ?? null]);
    expect(got).toEqual([
      ['models', 'small.circle'],
      ['partition', 'a.part'],
      ['profiles', null],
      ['caffe', 'lenet.prototxt'],
      ['loadables', 'l.nvdla'],
    ]);
  });
});
