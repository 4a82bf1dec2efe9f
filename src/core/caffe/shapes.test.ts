import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { readPrototxt } from './read';
import { layerShapes, ShapeError, type Shape } from './shapes';
import type { ProtoMessage } from './proto';
import { inputHeader, netFromText } from './testing';

/** Parses one `layer { ... }` and infers its top shapes from the given bottom shapes. */
function shapes(layerText: string, bottoms: Shape[], tops = 1): { tops: Shape[]; params: Shape[] } {
  const l = (readPrototxt(`layer { ${layerText} }`, 't').net.layer as ProtoMessage[])[0]!;
  const r = layerShapes(l, String(l.type), bottoms, tops);
  return { tops: r.tops, params: r.params.map((p) => p.shape) };
}

function rule(layerText: string, bottoms: Shape[], tops = 1): string {
  try {
    shapes(layerText, bottoms, tops);
  } catch (e) {
    if (e instanceof ShapeError) return e.rule;
    throw e;
  }
  return 'no error';
}

describe('shape rules (Caffe Reshape)', () => {
  it('Convolution: padding, stride, dilation, groups, rectangular kernels, bias_term', () => {
    // (28 + 0 - 5) / 1 + 1 = 24
    expect(shapes('type: "Convolution" convolution_param { num_output: 20 kernel_size: 5 }', [[64, 1, 28, 28]])).toEqual({ tops: [[64, 20, 24, 24]], params: [[20, 1, 5, 5], [20]] });
    // CaffeNet conv2: group 2, pad 2, 27x27 -> 27x27, weights [256, 96/2, 5, 5]
    expect(shapes('type: "Convolution" convolution_param { num_output: 256 pad: 2 kernel_size: 5 group: 2 }', [[10, 96, 27, 27]]).params[0]).toEqual([256, 48, 5, 5]);
    // dilation 2, kernel 3 -> extent 5: (10 + 2 - 5) / 2 + 1 = 4 (integer division)
    expect(shapes('type: "Convolution" convolution_param { num_output: 4 kernel_size: 3 dilation: 2 pad: 1 stride: 2 bias_term: false }', [[1, 2, 10, 10]])).toEqual({ tops: [[1, 4, 4, 4]], params: [[4, 2, 3, 3]] });
    // kernel_h/w, stride_h/w, pad_h/w
    expect(shapes('type: "Convolution" convolution_param { num_output: 1 kernel_h: 3 kernel_w: 1 stride_h: 2 stride_w: 1 pad_h: 1 pad_w: 0 }', [[1, 1, 7, 5]]).tops).toEqual([[1, 1, 4, 5]]);
    // depthwise (MobileNet): group = channels
    expect(shapes('type: "Convolution" convolution_param { num_output: 32 group: 32 kernel_size: 3 pad: 1 }', [[1, 32, 112, 112]]).params[0]).toEqual([32, 1, 3, 3]);
    expect(rule('name: "c" type: "Convolution" convolution_param { num_output: 5 kernel_size: 1 group: 2 }', [[1, 4, 3, 3]])).toBe('num_output (5) must be divisible by group (2)');
    expect(rule('type: "Convolution" convolution_param { num_output: 2 kernel_size: 1 group: 3 }', [[1, 4, 3, 3]])).toBe('the input channels (4) must be divisible by group (3)');
    expect(rule('type: "Convolution" convolution_param { num_output: 2 }', [[1, 4, 3, 3]])).toMatch(/kernel size is not given/);
    expect(rule('type: "Convolution" convolution_param { num_output: 2 kernel_size: 5 }', [[1, 4, 3, 3]])).toMatch(/larger than the padded input/);
    expect(rule('type: "Convolution" convolution_param { num_output: 2 kernel_size: 1 kernel_h: 1 kernel_w: 1 }', [[1, 4, 3, 3]])).toMatch(/not both/);
  });

  it('Deconvolution: stride * (in - 1) + dilated kernel - 2 pad, weights [in, out/group, kh, kw]', () => {
    // 2 * (4 - 1) + 4 - 2 = 8
    expect(shapes('type: "Deconvolution" convolution_param { num_output: 6 kernel_size: 4 stride: 2 pad: 1 group: 2 }', [[1, 4, 4, 4]])).toEqual({ tops: [[1, 6, 8, 8]], params: [[4, 3, 4, 4], [6]] });
    // dilation 2, kernel 3 -> extent 5: 1 * (3 - 1) + 5 = 7
    expect(shapes('type: "Deconvolution" convolution_param { num_output: 1 kernel_size: 3 dilation: 2 }', [[1, 1, 3, 3]]).tops).toEqual([[1, 1, 7, 7]]);
  });

  it('Pooling: ceil rounding, the clip when the last window starts in the padding, floor mode, global pooling', () => {
    // ceil((13 - 3) / 2) + 1 = 6 (CaffeNet pool5 input 13 -> 6)
    expect(shapes('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }', [[10, 256, 13, 13]]).tops).toEqual([[10, 256, 6, 6]]);
    // GoogLeNet pool1: ceil((112 - 3) / 2) + 1 = 56
    expect(shapes('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }', [[1, 64, 112, 112]]).tops).toEqual([[1, 64, 56, 56]]);
    // ceil((5 + 2 - 2) / 2) + 1 = 4, but window 3 would start at 3*2 = 6 >= 5 + 1: clipped to 3
    expect(shapes('type: "Pooling" pooling_param { pool: AVE kernel_size: 2 stride: 2 pad: 1 }', [[1, 1, 5, 5]]).tops).toEqual([[1, 1, 3, 3]]);
    // the same without padding is not clipped: ceil((6 - 2) / 2) + 1 = 3
    expect(shapes('type: "Pooling" pooling_param { pool: MAX kernel_size: 2 stride: 2 }', [[1, 1, 6, 6]]).tops).toEqual([[1, 1, 3, 3]]);
    // floor rounding: floor((6 - 3) / 2) + 1 = 2 (ceil gives 3)
    expect(shapes('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 round_mode: FLOOR }', [[1, 1, 6, 6]]).tops).toEqual([[1, 1, 2, 2]]);
    expect(shapes('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 stride: 2 }', [[1, 1, 6, 6]]).tops).toEqual([[1, 1, 3, 3]]);
    expect(shapes('type: "Pooling" pooling_param { pool: AVE global_pooling: true }', [[1, 1000, 13, 13]]).tops).toEqual([[1, 1000, 1, 1]]);
    expect(rule('type: "Pooling" pooling_param { pool: AVE global_pooling: true kernel_size: 3 }', [[1, 1, 5, 5]])).toMatch(/global_pooling: true the kernel size cannot be given/);
    expect(rule('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 pad: 3 }', [[1, 1, 5, 5]])).toMatch(/must be smaller than the kernel/);
    expect(rule('type: "Pooling" pooling_param { pool: MAX kernel_size: 3 }', [[1, 5, 5]])).toMatch(/4 axes/);
  });

  it('InnerProduct flattens from axis; transpose swaps the weight shape', () => {
    expect(shapes('type: "InnerProduct" inner_product_param { num_output: 500 }', [[64, 50, 4, 4]])).toEqual({ tops: [[64, 500]], params: [[500, 800], [500]] });
    expect(shapes('type: "InnerProduct" inner_product_param { num_output: 7 axis: 2 transpose: true bias_term: false }', [[2, 3, 4, 5]])).toEqual({ tops: [[2, 3, 7]], params: [[20, 7]] });
    expect(rule('type: "InnerProduct" inner_product_param { num_output: 7 axis: 4 }', [[2, 3, 4, 5]])).toBe('axis 4 is out of range for a 4-D blob');
  });

  it('Concat, Slice, Split, Eltwise', () => {
    expect(shapes('type: "Concat"', [[1, 64, 28, 28], [1, 128, 28, 28], [1, 32, 28, 28]]).tops).toEqual([[1, 224, 28, 28]]);
    expect(shapes('type: "Concat" concat_param { axis: -1 }', [[2, 3], [2, 4]]).tops).toEqual([[2, 7]]);
    expect(shapes('type: "Concat" concat_param { concat_dim: 0 }', [[2, 3], [5, 3]]).tops).toEqual([[7, 3]]);
    expect(rule('type: "Concat"', [[1, 2, 3, 3], [1, 2, 4, 3]])).toMatch(/same shape except on the concat axis 1/);
    expect(shapes('type: "Slice" slice_param { axis: 1 slice_point: 1 slice_point: 3 }', [[2, 6, 4]], 3).tops).toEqual([[2, 1, 4], [2, 2, 4], [2, 3, 4]]);
    expect(shapes('type: "Slice"', [[2, 6]], 3).tops).toEqual([[2, 2], [2, 2], [2, 2]]);
    expect(rule('type: "Slice"', [[2, 5]], 3)).toMatch(/must divide the sliced axis \(5\) evenly/);
    expect(rule('type: "Slice" slice_param { slice_point: 3 slice_point: 2 }', [[2, 6]], 3)).toMatch(/strictly increasing/);
    expect(shapes('type: "Split"', [[1, 3]], 3).tops).toEqual([[1, 3], [1, 3], [1, 3]]);
    expect(shapes('type: "Eltwise" eltwise_param { operation: SUM coeff: 1 coeff: -1 }', [[1, 3], [1, 3]]).tops).toEqual([[1, 3]]);
    expect(rule('type: "Eltwise" eltwise_param { coeff: 1 }', [[1, 3], [1, 3]])).toMatch(/one coefficient per bottom/);
    expect(rule('type: "Eltwise" eltwise_param { operation: MAX coeff: 1 coeff: 2 }', [[1, 3], [1, 3]])).toMatch(/only for the SUM/);
    expect(rule('type: "Eltwise"', [[1, 3], [1, 4]])).toMatch(/same shape/);
  });

  it('Flatten, Reshape (0 copies, -1 infers), Crop, ArgMax', () => {
    expect(shapes('type: "Flatten"', [[2, 3, 4, 5]]).tops).toEqual([[2, 60]]);
    expect(shapes('type: "Flatten" flatten_param { axis: 1 end_axis: 2 }', [[2, 3, 4, 5]]).tops).toEqual([[2, 12, 5]]);
    expect(shapes('type: "Reshape" reshape_param { shape { dim: 0 dim: -1 dim: 2 } }', [[2, 3, 4, 5]]).tops).toEqual([[2, 30, 2]]);
    expect(shapes('type: "Reshape" reshape_param { shape { dim: 6 dim: 2 } axis: 1 num_axes: 2 }', [[2, 3, 4, 5]]).tops).toEqual([[2, 6, 2, 5]]);
    expect(shapes('type: "Reshape" reshape_param { shape { dim: 1 } axis: -1 num_axes: 0 }', [[2, 3]]).tops).toEqual([[2, 3, 1]]);
    expect(rule('type: "Reshape" reshape_param { shape { dim: -1 dim: -1 } }', [[2, 3]])).toMatch(/more than one -1/);
    expect(rule('type: "Reshape" reshape_param { shape { dim: 7 dim: -1 } }', [[2, 3]])).toMatch(/not divisible/);
    expect(rule('type: "Reshape" reshape_param { shape { dim: 5 } }', [[2, 3]])).toMatch(/output count \(5/);
    expect(shapes('type: "Crop" crop_param { axis: 2 offset: 1 }', [[1, 3, 10, 10], [1, 1, 6, 7]]).tops).toEqual([[1, 3, 6, 7]]);
    expect(rule('type: "Crop" crop_param { axis: 2 offset: 5 }', [[1, 3, 10, 10], [1, 1, 6, 7]])).toMatch(/runs past the input/);
    expect(shapes('type: "ArgMax" argmax_param { top_k: 2 out_max_val: true }', [[4, 10]]).tops).toEqual([[4, 2, 2]]);
    expect(shapes('type: "ArgMax" argmax_param { axis: 1 }', [[4, 10, 3]]).tops).toEqual([[4, 1, 3]]);
  });

  it('element-wise layers keep the shape; BatchNorm, Scale, Bias, PReLU expect their blobs', () => {
    for (const t of ['ReLU', 'Sigmoid', 'TanH', 'Dropout', 'Power', 'AbsVal', 'ELU', 'Softmax']) expect(shapes(`type: "${t}"`, [[2, 3, 4]]).tops).toEqual([[2, 3, 4]]);
    expect(shapes('type: "LRN"', [[1, 96, 55, 55]]).tops).toEqual([[1, 96, 55, 55]]);
    expect(rule('type: "LRN" lrn_param { local_size: 4 }', [[1, 96, 55, 55]])).toMatch(/odd/);
    expect(shapes('type: "BatchNorm"', [[1, 64, 8, 8]]).params).toEqual([[64], [64], [1]]);
    expect(shapes('type: "Scale" scale_param { bias_term: true }', [[1, 64, 8, 8]]).params).toEqual([[64], [64]]);
    expect(shapes('type: "Scale" scale_param { axis: 1 num_axes: -1 }', [[1, 64, 8, 8]]).params).toEqual([[64, 8, 8]]);
    expect(shapes('type: "Scale" scale_param { num_axes: 0 }', [[1, 64, 8, 8]]).params).toEqual([[]]);
    expect(shapes('type: "Scale" scale_param { bias_term: true }', [[1, 64, 8, 8], [64]]).params).toEqual([[64]]);
    expect(rule('type: "Scale"', [[1, 64, 8, 8], [32]])).toMatch(/dimension mismatch/);
    expect(shapes('type: "Bias"', [[1, 5, 2]]).params).toEqual([[5]]);
    expect(shapes('type: "PReLU"', [[1, 10, 5, 5]]).params).toEqual([[10]]);
    expect(shapes('type: "PReLU" prelu_param { channel_shared: true }', [[1, 10, 5, 5]]).params).toEqual([[]]);
  });

  it('a net names the layer and the rule on a shape error, and an unsupported type keeps the graph with unknown shapes below it', () => {
    const net = netFromText(`${inputHeader([1, 3, 8, 8])}
layer { name: "bad" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 4 kernel_size: 9 } }
layer { name: "r" type: "ReLU" bottom: "c" top: "c" }
layer { name: "weird" type: "Normalize" bottom: "data" top: "n" }
layer { name: "after" type: "ReLU" bottom: "n" top: "m" }`);
    expect(net.diagnostics.map((d) => [d.severity, d.message, d.line])).toEqual([
      ['error', "layer 'bad' (Convolution): the dilated kernel (9) is larger than the padded input (8+2*0) along spatial axis 0", 3],
      ['error', "layer 'weird': type 'Normalize' is not supported (no shape rule, no forward kernel); the graph shows it without shapes below it", 5],
    ]);
    expect(net.layers.map((l) => l.name)).toEqual(['input', 'bad', 'r', 'weird', 'after']);
    expect(net.blobs.map((b) => [b.key, b.shape])).toEqual([
      ['data', [1, 3, 8, 8]],
      ['layer:bad', null],
      ['c', null],
      ['n', null],
      ['m', null],
    ]);
    expect(net.layers[4]!.shapeProblem).toBe('an input shape is unknown');
  });

  it('every fixture deploy net gets shapes for every blob, with the classic output sizes', () => {
    const cases: [string, Record<string, Shape>][] = [
      ['caffenet/deploy.prototxt', { conv1: [10, 96, 55, 55], pool1: [10, 96, 27, 27], pool5: [10, 256, 6, 6], prob: [10, 1000] }],
      ['googlenet/deploy.prototxt', { 'inception_3a/output': [10, 256, 28, 28], 'pool5/7x7_s1': [10, 1024, 1, 1], prob: [10, 1000] }],
      ['resnet-50/ResNet-50-deploy.prototxt', { res5c: [1, 2048, 7, 7], pool5: [1, 2048, 1, 1], prob: [1, 1000] }],
      ['squeezenet-v1.1/deploy.prototxt', { pool10: [10, 1000, 1, 1] }],
      ['mobilenet-v1/mobilenet_deploy.prototxt', { 'conv6/sep': [1, 1024, 7, 7], fc7: [1, 1000, 1, 1], pool6: [1, 1024, 1, 1], prob: [1, 1000, 1, 1] }],
      ['vgg16/deploy.prototxt', { pool5: [10, 512, 7, 7], fc8: [10, 1000] }],
      ['mtcnn/det1.prototxt', { 'conv4-2': [1, 4, 1, 1], prob1: [1, 2, 1, 1] }],
      ['mtcnn/det2.prototxt', { conv3: [1, 64, 3, 3], 'conv5-2': [1, 4] }],
    ];
    for (const [file, expected] of cases) {
      const net = netFromText(readFileSync(`test/fixtures/caffe/${file}`, 'utf8'), {}, file);
      expect(net.diagnostics, file).toEqual([]);
      expect(net.blobs.filter((b) => b.shape === null).map((b) => b.key), file).toEqual([]);
      const final = Object.fromEntries(net.blobs.filter((b) => b.final).map((b) => [b.name, b.shape]));
      for (const [k, v] of Object.entries(expected)) expect(final[k], `${file} ${k}`).toEqual(v);
    }
  });
});
