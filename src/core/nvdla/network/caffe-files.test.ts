import { describe, expect, it } from 'vitest';
import { openCaffeModel } from '../../caffe/model';
import { generateCaffemodel } from '../../caffe/random-weights';
import { readPrototxt } from '../../caffe/read';
import { deployOf, readDeploy, readWeights, weightsOf } from './caffe-files';
import { floats, subs } from './caffe-input';

const DEPLOY = `name: "t"
input: "data"
input_dim: 1 input_dim: 3 input_dim: 8 input_dim: 8
layer { name: "conv" type: "Convolution" bottom: "data" top: "conv" convolution_param { num_output: 4 kernel_size: 3 } }
layer { name: "bn" type: "BatchNorm" bottom: "conv" top: "conv" param { lr_mult: 1 } param { lr_mult: 1 } param { lr_mult: 1 } }
`;

describe('the Caffe files as nvdla_compiler reads them (core/caffe, not upgraded)', () => {
  it('the deploy keeps its legacy input fields and its layers as written, with line:column', () => {
    const d = readDeploy(DEPLOY, 't.prototxt');
    expect(d.net.input).toEqual(['data']);
    expect(subs(d.net, 'layer').map((l) => l.name)).toEqual(['conv', 'bn']);
    expect(d.layerSources).toEqual([{ line: 4, column: 7 }, { line: 5, column: 7 }]);
  });

  it("the document's upgrade (Input layer, BatchNorm lr_mult 0) leaves the net it hands the compiler as written", () => {
    const file = readPrototxt(DEPLOY, 't.prototxt');
    expect(file.steps.map((s) => s.id)).toEqual(['input-fields', 'batch-norm']);
    const d = deployOf(file);
    expect(subs(d.net, 'layer').map((l) => l.type)).toEqual(['Convolution', 'BatchNorm']);
    expect(subs(subs(d.net, 'layer')[1], 'param')).toEqual([{ lr_mult: 1 }, { lr_mult: 1 }, { lr_mult: 1 }]);
  });

  it('weights are float32 views into the caffemodel bytes, not copies', () => {
    const bytes = generateCaffemodel(readPrototxt(DEPLOY, 't.prototxt').net, { seed: 3 });
    const w = readWeights(bytes, 't.caffemodel');
    const conv = floats(subs(subs(w.net, 'layer')[0], 'blobs')[0]!.data)!;
    expect([conv.length, conv.buffer === bytes.buffer]).toEqual([4 * 3 * 9, true]);
    expect(conv.some((v) => v !== 0)).toBe(true);
  });

  it("an opened model's files give the same nets as reading the files again", () => {
    const bytes = generateCaffemodel(readPrototxt(DEPLOY, 't.prototxt').net, { seed: 3 });
    const model = openCaffeModel([
      { name: 't.prototxt', bytes: new TextEncoder().encode(DEPLOY) },
      { name: 't.caffemodel', bytes },
    ]);
    expect(deployOf(model.netFile)).toEqual(readDeploy(DEPLOY, 't.prototxt'));
    expect(weightsOf(model.weightsFile!).net).toEqual(readWeights(bytes, 't.caffemodel').net);
  });
});
