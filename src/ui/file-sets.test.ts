import { describe, expect, it } from 'vitest';
import { distinctLabel, groupFiles } from './file-sets';

const named = (...names: string[]) => names.map((name) => ({ name }));
const sets = (...names: string[]) => groupFiles(named(...names)).sets.map((s) => s.map((f) => f.name));

describe('file sets from dropped files', () => {
  it('a prototxt goes with its caffemodel, whatever the drop order', () => {
    expect(sets('lenet_iter_10000.caffemodel', 'lenet.prototxt')).toEqual([['lenet.prototxt', 'lenet_iter_10000.caffemodel']]);
    expect(sets('lenet.prototxt', 'lenet_iter_10000.caffemodel')).toEqual([['lenet.prototxt', 'lenet_iter_10000.caffemodel']]);
  });

  it('a train_test prototxt beside a deploy joins it (input defaults); alone it opens on its own', () => {
    expect(sets('lenet_train_test.prototxt', 'lenet_iter_10000.caffemodel', 'lenet.prototxt')).toEqual([['lenet.prototxt', 'lenet_iter_10000.caffemodel', 'lenet_train_test.prototxt']]);
    expect(sets('lenet_train_test.prototxt')).toEqual([['lenet_train_test.prototxt']]);
    expect(sets('lenet_train_test.prototxt', 'lenet_iter_10000.caffemodel')).toEqual([['lenet_train_test.prototxt', 'lenet_iter_10000.caffemodel']]);
  });

  it('a calibration table (.json) dropped with a Caffe net joins its set; without a net it is a file of its own', () => {
    expect(sets('lenet_calib.json', 'lenet.prototxt', 'lenet_iter_10000.caffemodel')).toEqual([['lenet.prototxt', 'lenet_iter_10000.caffemodel', 'lenet_calib.json']]);
    expect(sets('a.json')).toEqual([['a.json']]);
  });

  it('a solver heads its set, with the net it names and the weights', () => {
    expect(sets('lenet_train_test.prototxt', 'lenet_solver.prototxt', 'lenet_iter_10000.caffemodel')).toEqual([['lenet_solver.prototxt', 'lenet_iter_10000.caffemodel', 'lenet_train_test.prototxt']]);
  });

  it('two deploys: each caffemodel pairs with the deploy of the longest common stem; an unpaired one opens alone', () => {
    expect(sets('det1.prototxt', 'det2.prototxt', 'det2.caffemodel', 'det1.caffemodel')).toEqual([
      ['det1.prototxt', 'det1.caffemodel'],
      ['det2.prototxt', 'det2.caffemodel'],
    ]);
    expect(sets('det1.prototxt', 'cifar10_quick.prototxt', 'bvlc_googlenet.caffemodel')).toEqual([['det1.prototxt'], ['cifar10_quick.prototxt'], ['bvlc_googlenet.caffemodel']]);
    expect(sets('bvlc_googlenet.caffemodel')).toEqual([['bvlc_googlenet.caffemodel']]);
  });

  it('images and .npy arrays are run inputs, not documents; circle sidecars stay with the first model', () => {
    const g = groupFiles(named('lenet.prototxt', 'digit.PNG', 'x.npy', 'photo.jpeg', 'lenet_iter_10000.caffemodel'));
    expect(g.sets.map((s) => s.map((f) => f.name))).toEqual([['lenet.prototxt', 'lenet_iter_10000.caffemodel']]);
    expect(g.runInputs.map((f) => f.name)).toEqual(['digit.PNG', 'x.npy', 'photo.jpeg']);
    expect(sets('a.circle', 'a.part', 'b.circle')).toEqual([['a.circle', 'a.part'], ['b.circle']]);
    expect(sets('only.part')).toEqual([['only.part']]);
    expect(groupFiles(named('digit.png')).sets).toEqual([]);
  });
});

describe('distinctLabel', () => {
  it('keeps a unique name, tells a second one apart by its folder or a free (N) suffix', () => {
    expect(distinctLabel('model.circle', '', [])).toBe('model.circle');
    expect(distinctLabel('model.circle', '', ['model.circle'])).toBe('model.circle (2)');
    expect(distinctLabel('model.circle', '', ['model.circle', 'model.circle (2)'])).toBe('model.circle (3)');
    expect(distinctLabel('model.circle', 'v2', ['model.circle'])).toBe('v2/model.circle');
    expect(distinctLabel('model.circle', '', ['model.circle (2)'])).toBe('model.circle');
  });
});
