import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { filterNet } from './phase';
import { printTextProto } from './print';
import { messages, type ProtoMessage } from './proto';
import { readPrototxt } from './read';
import { upgradeNet } from './upgrade';

const dir = 'test/fixtures/caffe/';
const read = (f: string) => readPrototxt(readFileSync(dir + f, 'utf8'), f);

/** Layer names, types, bottoms, tops and inference parameters (fillers and training settings dropped). */
function inferenceView(net: ProtoMessage): unknown[] {
  return messages(net, 'layer').map((l) => {
    const out: Record<string, unknown> = { name: l.name, type: l.type, bottom: l.bottom ?? [], top: l.top ?? [] };
    for (const [k, v] of Object.entries(l)) {
      if (!k.endsWith('_param')) continue;
      const p = { ...(v as ProtoMessage) };
      delete p.weight_filler;
      delete p.bias_filler;
      out[k] = p;
    }
    return out;
  });
}

describe('upgrades (upgrade_proto.cpp)', () => {
  it('the four CaffeNet files (V0, V1, V2 input_dim, V2 input_shape) give the same V2 graph', () => {
    const files = ['legacy/caffenet_deploy.v0.prototxt', 'legacy/caffenet_deploy.v1.prototxt', 'legacy/caffenet_deploy.v2-input_dim.prototxt', 'legacy/caffenet_deploy.v2-input_shape.prototxt'];
    const views = files.map((f) => inferenceView(read(f).net));
    expect(views[0]).toHaveLength(24);
    expect(views[0]![0]).toEqual({ name: 'input', type: 'Input', bottom: [], top: ['data'], input_param: { shape: [{ dim: [10, 3, 227, 227] }] } });
    for (let i = 1; i < views.length; i++) expect(views[i], files[i]).toEqual(views[0]);
    expect(read(files[0]!).steps.map((s) => s.id)).toEqual(['V0->V1', 'V1->V2', 'input-fields']);
    expect(read(files[1]!).steps.map((s) => s.id)).toEqual(['V1->V2', 'input-fields']);
    expect(read(files[2]!).steps.map((s) => s.id)).toEqual(['input-fields']);
    expect(read(files[1]!).steps[0]!.message).toMatch(/nvdla_compiler .* empty network/);
  });

  it('LeNet V0 and V1 upgrade to the V2 LeNet except for the Input layer name and training settings', () => {
    const v2 = inferenceView(read('lenet/lenet.prototxt').net);
    (v2[0] as { name: string }).name = 'input';
    expect(inferenceView(read('legacy/lenet.v0.prototxt').net)).toEqual(v2);
    expect(inferenceView(read('legacy/lenet.v1.prototxt').net)).toEqual(v2);
    // training settings move into param entries
    const conv1 = messages(read('legacy/lenet.v0.prototxt').net, 'layer')[1]!;
    expect(conv1.param).toEqual([{ lr_mult: 1 }, { lr_mult: 2 }]);
  });

  it('V1 CIFAR-10, GoogLeNet and VGG16 match their V2 counterparts', () => {
    expect(inferenceView(read('cifar10-quick/cifar10_quick.v1.prototxt').net).slice(1)).toEqual(inferenceView(read('cifar10-quick/cifar10_quick.prototxt').net).slice(1));
    const g1 = inferenceView(read('legacy/googlenet_deploy.v1.prototxt').net);
    const g2 = inferenceView(read('googlenet/deploy.prototxt').net);
    expect(g1.length).toBe(g2.length);
    expect(g1.map((l) => (l as { type: string }).type)).toEqual(g2.map((l) => (l as { type: string }).type));
  });

  it('folds a V0 padding layer into its conv consumer', () => {
    const v0 = `name: "p"
input: "data" input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layers { layer { name: "pad1" type: "padding" pad: 2 } bottom: "data" top: "pad1" }
layers { layer { name: "conv1" type: "conv" num_output: 4 kernelsize: 3 stride: 1 } bottom: "pad1" top: "conv1" }
layers { layer { name: "drop" type: "dropout" dropout_ratio: 0.25 } bottom: "conv1" top: "conv1" }`;
    const r = readPrototxt(v0, 'pad.prototxt');
    const layers = messages(r.net, 'layer');
    expect(layers.map((l) => l.name)).toEqual(['input', 'conv1', 'drop']);
    expect(layers[1]).toEqual({ name: 'conv1', type: 'Convolution', bottom: ['data'], top: ['conv1'], convolution_param: { num_output: 4, pad: [2], kernel_size: [3], stride: [1] } });
    expect(layers[2]!.dropout_param).toEqual({ dropout_ratio: 0.25 });
    expect(r.layerSources.map((s) => s.line)).toEqual([2, 4, 5]);
  });

  it('warns about a V0 parameter used on the wrong type, and refuses unknown V0 types and mixed layer/layers', () => {
    const r = readPrototxt('input: "x"\nlayers { layer { name: "r" type: "relu" num_output: 3 } bottom: "x" top: "x" }', 'w.prototxt');
    expect(r.diagnostics.map((d) => d.message)).toEqual([expect.stringMatching(/unknown parameter num_output for layer type relu/)]);
    expect(r.diagnostics[0]).toMatchObject({ severity: 'warning', line: 2, column: 8 });
    expect(() => readPrototxt('layers { layer { name: "q" type: "quux" } }', 'u.prototxt')).toThrow(/unknown V0 layer type 'quux'/);
    expect(() => readPrototxt('layers { name: "a" type: RELU }\nlayer { name: "b" type: "ReLU" }', 'm.prototxt')).toThrow(/m.prototxt: line 1:8: the net has both 'layer'/);
  });

  it('moves V1 data-layer transformation fields, maps every V1 per-blob setting, and fixes BatchNorm params', () => {
    const v1 = `layers { name: "d" type: DATA top: "x" data_param { source: "db" scale: 0.5 mean_file: "m" crop_size: 3 mirror: true }
  include { phase: TRAIN } }
layers { name: "c" type: CONVOLUTION bottom: "x" top: "y" blobs_lr: 1 blobs_lr: 2 weight_decay: 1 weight_decay: 0 param: "w" blob_share_mode: PERMISSIVE
  convolution_param { num_output: 2 kernel_size: 1 } }
layers { name: "l" type: SOFTMAX_LOSS bottom: "y" bottom: "x" loss_weight: 2 }`;
    const r = readPrototxt(v1, 'v1.prototxt');
    expect(r.steps.map((s) => s.id)).toEqual(['data-transformation', 'V1->V2']);
    const [d, c, l] = messages(r.net, 'layer');
    expect(d).toEqual({ name: 'd', type: 'Data', top: ['x'], include: [{ phase: 'TRAIN' }], data_param: { source: 'db' }, transform_param: { scale: 0.5, mean_file: 'm', crop_size: 3, mirror: true } });
    expect(c!.param).toEqual([{ name: 'w', share_mode: 'PERMISSIVE', lr_mult: 1, decay_mult: 1 }, { lr_mult: 2, decay_mult: 0 }]);
    expect(l).toMatchObject({ type: 'SoftmaxWithLoss', loss_weight: [2] });
    const bn = upgradeNet({ layer: [{ name: 'bn', type: 'BatchNorm', param: [{ lr_mult: 1 }, {}, { decay_mult: 3 }] }] }, 'bn');
    expect(messages(bn.net, 'layer')[0]!.param).toEqual([0, 0, 0].map(() => ({ lr_mult: 0, decay_mult: 0 })));
    expect(bn.steps.map((s) => s.id)).toEqual(['batch-norm']);
  });

  it('drops a legacy input without shape (old caffemodels)', () => {
    const r = upgradeNet({ input: ['data'], layer: [{ name: 'a', type: 'ReLU', bottom: ['data'], top: ['data'] }] }, 'old');
    expect(messages(r.net, 'layer').map((l) => l.name)).toEqual(['a']);
    expect(r.net.input).toBeUndefined();
  });

  it('the upgraded V0 CaffeNet prints as a V2 prototxt that reads back to the same net', () => {
    const r = read('legacy/caffenet_deploy.v0.prototxt');
    const printed = printTextProto(r.net);
    expect(printed).toMatch(/^name: "CaffeNet"\nlayer \{\n {2}name: "input"\n {2}type: "Input"/);
    const again = readPrototxt(printed, 'again.prototxt');
    expect(again.version).toBe('V2');
    expect(again.net).toEqual(r.net);
  });

  it('selects TRAIN / TEST layers with include and exclude rules (TEST by default in callers)', () => {
    const r = read('lenet/lenet_train_test.prototxt');
    const test = filterNet(r.net, r.layerSources, { phase: 'TEST' }, 'tt');
    const train = filterNet(r.net, r.layerSources, { phase: 'TRAIN' }, 'tt');
    expect(messages(test.net, 'layer').map((l) => l.name)).toEqual(['mnist', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'accuracy', 'loss']);
    expect(messages(train.net, 'layer').map((l) => l.name)).toEqual(['mnist', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'loss']);
    expect(test.excluded).toEqual(['mnist']);
    expect(messages(test.net, 'layer')[0]!.include).toEqual([{ phase: 'TEST' }]);
    const rules = `layer { name: "a" type: "ReLU" exclude { phase: TEST } }
layer { name: "b" type: "ReLU" include { stage: "deploy" } }
layer { name: "c" type: "ReLU" include { min_level: 1 } }
layer { name: "d" type: "ReLU" include { not_stage: "deploy" } }`;
    const n = readPrototxt(rules, 'rules.prototxt');
    const names = (st: Parameters<typeof filterNet>[2]) => messages(filterNet(n.net, n.layerSources, st, 'r').net, 'layer').map((l) => l.name);
    expect(names({ phase: 'TEST' })).toEqual(['d']);
    expect(names({ phase: 'TRAIN', stages: ['deploy'], level: 1 })).toEqual(['a', 'b', 'c']);
    expect(() => filterNet(readPrototxt('layer { name: "x" include { phase: TEST } exclude { phase: TRAIN } }', 'x').net, [], { phase: 'TEST' }, 'x')).toThrow(/both include and exclude/);
  });
});
