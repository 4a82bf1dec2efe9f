import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCalibrationTable } from '../calibrate/table';
import { buildNetwork, type NetworkBuildOptions } from './build';
import { readDeploy, readWeights } from './caffe-files';
import type { CaffeMessage } from './caffe-input';
import type { Network, NetworkLayer } from './model';

const FIXTURES = join(__dirname, '../../../../test/fixtures/nvdla');

/** weights message: layer name -> blob value counts (filled with i * 0.01 + seed) */
function weightsOf(spec: Record<string, (number | number[])[]>): CaffeMessage {
  return {
    layer: Object.entries(spec).map(([name, blobs]) => ({
      name,
      blobs: blobs.map((b, k) => ({ data: Array.isArray(b) ? Float32Array.from(b) : Float32Array.from({ length: b }, (_, i) => i * 0.01 + k) })),
    })),
  };
}

const INPUT = 'input: "data"\ninput_shape { dim: 1 dim: 3 dim: 8 dim: 8 }\n';

function build(text: string, weights: Record<string, (number | number[])[]> = {}, options: NetworkBuildOptions = { precision: 'FP16' }) {
  return buildNetwork(readDeploy(text, 'net.prototxt'), { file: 'net.caffemodel', net: weightsOf(weights) }, options);
}

function ok(text: string, weights: Record<string, (number | number[])[]> = {}, options?: NetworkBuildOptions): Network {
  const r = build(text, weights, options);
  expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return r.network!;
}

function rejected(text: string, weights: Record<string, (number | number[])[]> = {}) {
  const r = build(text, weights);
  expect(r.network).toBeNull();
  const errors = r.diagnostics.filter((d) => d.severity === 'error');
  expect(errors).toHaveLength(1);
  return errors[0]!;
}

function layer(net: Network, name: string): NetworkLayer {
  const l = net.layers.find((x) => x.name === name);
  if (!l) throw new Error(`no layer ${name}`);
  return l;
}

describe('NVDLA network from Caffe: LeNet', () => {
  const deploy = readDeploy(readFileSync(join(FIXTURES, 'lenet/lenet.prototxt'), 'utf8'), 'lenet.prototxt');
  const weights = readWeights(readFileSync(join(FIXTURES, 'lenet/lenet_iter_10000.caffemodel')), 'lenet_iter_10000.caffemodel');

  it('has the layers, dims and tensor names nvdla_compiler gives', () => {
    const { network, diagnostics } = buildNetwork(deploy, weights, { precision: 'INT8' });
    expect(diagnostics.filter((d) => d.severity !== 'info')).toEqual([]);
    const net = network!;
    expect(net.layers.map((l) => `${l.name}:${l.type}`)).toEqual([
      'conv1:CONVOLUTION', 'pool1:POOLING', 'conv2:CONVOLUTION', 'pool2:POOLING',
      'ip1:FULLY_CONNECTED', 'relu1:ACTIVATION', 'ip2:FULLY_CONNECTED', 'prob:SOFTMAX',
    ]);
    expect(net.tensors.map((t) => `${t.name}:${t.dims.n}x${t.dims.c}x${t.dims.h}x${t.dims.w}`)).toEqual([
      'data:64x1x28x28', 'conv1:1x20x24x24', 'pool1:1x20x12x12', 'conv2:1x50x8x8', 'pool2:1x50x4x4',
      // ip1's own output loses its name to the in-place ReLU (std::map: the last writer of "ip1")
      'tensor-anon-5:1x500x1x1', 'ip1:1x500x1x1', 'ip2:1x10x1x1', 'prob:1x10x1x1',
    ]);
    expect(net.inputs).toEqual([0]);
    expect(net.outputs).toEqual([8]);
    const conv1 = layer(net, 'conv1');
    expect(conv1.type === 'CONVOLUTION' && [conv1.params.kernelWeights.count, conv1.params.biasWeights.count, conv1.params.biasMode]).toEqual([500, 20, 'CHANNEL']);
    expect(conv1.origins).toEqual([1]); // layer 0 of the prototxt is the Input layer
    expect(net.sources.map((s) => s.name)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
  });

  it('INT8 without a calibration table: inputs scale 1, layer outputs 127; FP16 sets none', () => {
    const int8 = buildNetwork(deploy, weights, { precision: 'INT8' }).network!;
    expect(int8.tensors.map((t) => t.channelScales[0] ?? null)).toEqual([1, 127, 127, 127, 127, 127, 127, 127, 127]);
    expect(int8.tensors[0]!.channelScales).toHaveLength(1);
    const fp16 = buildNetwork(deploy, weights, { precision: 'FP16' }).network!;
    expect(fp16.tensors.every((t) => t.channelScales.length === 0)).toBe(true);
  });

  it('INT8 with a calibration table: scale per input name and per layer name; a missing name is an error', () => {
    const table = parseCalibrationTable(readFileSync(join(FIXTURES, 'golden/lenet_calib_example.json'), 'utf8'), 'calib.json');
    const net = buildNetwork(deploy, weights, { precision: 'INT8', calibration: table }).network!;
    const s = (name: string) => Math.fround(Math.fround(table.entries[name]!.scale! * 127) / 127);
    expect(net.tensors[0]!.channelScales[0]).toBe(s('data'));
    expect(net.tensors[6]!.channelScales[0]).toBe(s('relu1'));
    expect(net.tensors[5]!.channelScales[0]).toBe(s('ip1'));
    const partial = { file: 'calib.json', entries: { ...table.entries } };
    delete partial.entries.pool2;
    const r = buildNetwork(deploy, weights, { precision: 'INT8', calibration: partial });
    expect(r.network).toBeNull();
    expect(r.diagnostics.at(-1)!.message).toContain("'pool2'");
  });
});

describe('NVDLA network from Caffe: accepted layers', () => {
  it('Convolution: group, dilation, pad/stride h/w, bias modes by count, bias_term false', () => {
    const net = ok(
      INPUT +
        `layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 6 kernel_size: 3 pad: 1 group: 3 dilation: 2 } }
         layer { name: "c2" type: "Convolution" bottom: "c1" top: "c2" convolution_param { num_output: 4 kernel_h: 3 kernel_w: 1 stride_h: 2 stride_w: 1 pad_h: 1 bias_term: false } }
         layer { name: "c3" type: "Convolution" bottom: "c2" top: "c3" convolution_param { num_output: 2 kernel_size: 1 } }`,
      { c1: [6 * 1 * 9, 6], c2: [4 * 6 * 3], c3: [8, 1] },
    );
    const c1 = layer(net, 'c1');
    if (c1.type !== 'CONVOLUTION') throw new Error();
    expect(c1.params.numGroups).toBe(3);
    expect(c1.params.dilation).toEqual({ h: 2, w: 2 });
    expect(net.tensors[c1.outputs[0]!]!.dims).toEqual({ n: 1, c: 6, h: 6, w: 6 }); // (8 + 2 - 5) / 1 + 1
    const c2 = layer(net, 'c2');
    if (c2.type !== 'CONVOLUTION') throw new Error();
    expect([c2.params.kernelSize, c2.params.stride, c2.params.topLeftPadding, c2.params.biasMode]).toEqual([{ h: 3, w: 1 }, { h: 2, w: 1 }, { h: 1, w: 0 }, 'NONE']);
    expect(net.tensors[c2.outputs[0]!]!.dims).toEqual({ n: 1, c: 4, h: 3, w: 6 });
    const c3 = layer(net, 'c3');
    expect(c3.type === 'CONVOLUTION' && c3.params.biasMode).toBe('UNIFORM');
  });

  it('two-valued kernel_size is Caffe [h, w] here; upstream reads [w, h], so a warning says so', () => {
    const r = build(INPUT + 'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 1 kernel_size: 3 kernel_size: 1 } }', { c: [9, 1] });
    const c = r.network!.layers[0]!;
    expect(c.type === 'CONVOLUTION' && c.params.kernelSize).toEqual({ h: 3, w: 1 });
    expect(r.diagnostics.map((d) => d.upstreamBehaviour)).toContain('wrong-result');
  });

  it('Deconvolution output size is the inverse of convolution', () => {
    const net = ok(INPUT + 'layer { name: "d" type: "Deconvolution" bottom: "data" top: "d" convolution_param { num_output: 2 kernel_size: 4 stride: 2 pad: 1 } }', { d: [3 * 2 * 16, 2] });
    expect(net.tensors[1]!.dims).toEqual({ n: 1, c: 2, h: 16, w: 16 });
  });

  it('Pooling: ceil rounding with the padded-window clip, AVE, global', () => {
    const net = ok(
      'input: "data"\ninput_shape { dim: 1 dim: 3 dim: 7 dim: 7 }\n' +
        `layer { name: "p1" type: "Pooling" bottom: "data" top: "p1" pooling_param { pool: MAX kernel_size: 2 stride: 2 } }
         layer { name: "p2" type: "Pooling" bottom: "data" top: "p2" pooling_param { pool: AVE kernel_size: 3 stride: 2 pad: 1 } }
         layer { name: "p3" type: "Pooling" bottom: "p1" top: "p3" pooling_param { pool: AVE global_pooling: true } }`,
    );
    expect(net.tensors.slice(1).map((t) => [t.dims.h, t.dims.w])).toEqual([[4, 4], [4, 4], [1, 1]]);
    const p2 = layer(net, 'p2');
    expect(p2.type === 'POOLING' && p2.params.poolingType).toBe('AVERAGE');
    const p3 = layer(net, 'p3');
    expect(p3.type === 'POOLING' && p3.params.windowSize).toEqual({ h: 4, w: 4 });
    expect(net.outputs).toEqual([2, 3]);
  });

  it('InnerProduct, ReLU/Sigmoid/TanH, Softmax and SoftmaxWithLoss', () => {
    const r = build(
      INPUT +
        `layer { name: "fc" type: "InnerProduct" bottom: "data" top: "fc" inner_product_param { num_output: 5 } }
         layer { name: "r" type: "ReLU" bottom: "fc" top: "fc" relu_param { negative_slope: 0.1 } }
         layer { name: "s" type: "Sigmoid" bottom: "fc" top: "s" }
         layer { name: "t" type: "TanH" bottom: "s" top: "t" }
         layer { name: "sm" type: "SoftmaxWithLoss" bottom: "t" top: "sm" }`,
      { fc: [5 * 192, 5] },
    );
    const net = r.network!;
    expect(net.layers.map((l) => (l.type === 'ACTIVATION' ? l.params.activationType : l.type))).toEqual(['FULLY_CONNECTED', 'RELU', 'SIGMOID', 'TANH', 'SOFTMAX']);
    expect(net.tensors.at(-1)!.dims).toEqual({ n: 1, c: 5, h: 1, w: 1 });
    // the leaky slope is dropped, as upstream, with a warning
    expect(r.diagnostics.filter((d) => d.severity === 'warning').map((d) => d.layer)).toEqual(['r']);
  });

  it('LRN defaults are nvdla_compiler\'s (beta 5), with a warning; Power 1/0 is a uniform scale', () => {
    const r = build(
      INPUT +
        `layer { name: "n" type: "LRN" bottom: "data" top: "n" lrn_param { local_size: 3 alpha: 0.0001 } }
         layer { name: "pw" type: "Power" bottom: "n" top: "pw" power_param { scale: 0.5 } }`,
    );
    const n = layer(r.network!, 'n');
    expect(n.type === 'LRN' && n.params).toEqual({ windowSize: 3, alpha: Math.fround(0.0001), beta: 5, k: 1 });
    expect(r.diagnostics.find((d) => d.layer === 'n')!.message).toContain('0.75');
    const pw = layer(r.network!, 'pw');
    if (pw.type !== 'SCALE') throw new Error();
    expect([pw.params.mode, pw.params.scale.values![0], pw.params.shift.values![0], pw.params.power.values![0]]).toEqual(['UNIFORM', 0.5, 0, 1]);
  });

  it('Eltwise SUM/PROD, and MAX accepted with a warning that upstream rejects it', () => {
    const r = build(
      INPUT +
        `layer { name: "a" type: "Eltwise" bottom: "data" bottom: "data" top: "a" }
         layer { name: "b" type: "Eltwise" bottom: "a" bottom: "data" top: "b" eltwise_param { operation: PROD } }
         layer { name: "c" type: "Eltwise" bottom: "b" bottom: "a" top: "c" eltwise_param { operation: MAX } }`,
    );
    expect(r.network!.layers.map((l) => l.type === 'ELEMENTWISE' && l.params.operation)).toEqual(['SUM', 'PROD', 'MAX']);
    const w = r.diagnostics.find((d) => d.layer === 'c')!;
    expect([w.severity, w.upstreamBehaviour]).toEqual(['warning', 'rejects']);
    expect(w.upstream).toContain('error: parsing layer type Eltwise index 2');
  });

  it('Concat sums channels; BatchNorm divides mean and variance by the moving-average factor', () => {
    const net = ok(
      INPUT +
        `layer { name: "cat" type: "Concat" bottom: "data" bottom: "data" top: "cat" }
         layer { name: "bn" type: "BatchNorm" bottom: "cat" top: "bn" batch_norm_param { eps: 0.001 } }`,
      { bn: [[1, 2, 3, 4, 5, 6], [2, 4, 6, 8, 10, 12], [2]] },
    );
    expect(net.tensors[1]!.dims.c).toBe(6);
    const bn = layer(net, 'bn');
    if (bn.type !== 'BATCH_NORM') throw new Error();
    expect([bn.params.mode, Array.from(bn.params.mean.values!), Array.from(bn.params.variance.values!), bn.params.epsilon]).toEqual(['CHANNEL', [0.5, 1, 1.5, 2, 2.5, 3], [1, 2, 3, 4, 5, 6], Math.fround(0.001)]);
  });

  it('Scale: modes by count; bias only with bias_term true; bias_term false is done right with a warning', () => {
    const r = build(
      INPUT +
        `layer { name: "s1" type: "Scale" bottom: "data" top: "s1" }
         layer { name: "s2" type: "Scale" bottom: "s1" top: "s2" scale_param { bias_term: true } }
         layer { name: "s3" type: "Scale" bottom: "s2" top: "s3" scale_param { bias_term: false } }`,
      { s1: [1], s2: [3, 3], s3: [192] },
    );
    const net = r.network!;
    const modes = net.layers.map((l) => l.type === 'SCALE' && [l.params.mode, l.params.shift.count]);
    expect(modes).toEqual([['UNIFORM', 0], ['CHANNEL', 3], ['ELEMENTWISE', 0]]);
    const w = r.diagnostics.find((d) => d.layer === 's3')!;
    expect(w.upstreamBehaviour).toBe('crashes');
  });

  it('Dropout and Flatten alias their top; phase TEST layers are skipped; Input layers add inputs', () => {
    const r = build(
      `layer { name: "in" type: "Input" top: "x" input_param { shape { dim: 2 dim: 4 dim: 1 dim: 1 } } }
       layer { name: "d" type: "Dropout" bottom: "x" top: "y" }
       layer { name: "f" type: "Flatten" bottom: "y" top: "z" }
       layer { name: "skip" type: "Accuracy" bottom: "z" top: "acc" phase: TEST }
       layer { name: "fc" type: "InnerProduct" bottom: "z" top: "out" inner_product_param { num_output: 2 } }`,
      { fc: [8, 2] },
    );
    const net = r.network!;
    expect(net.layers.map((l) => l.name)).toEqual(['fc']);
    expect(net.layers[0]!.inputs).toEqual([0]);
    // the input tensor is named by the last alias in byte order
    expect(net.tensors[0]!.name).toBe('z');
    expect(r.diagnostics.map((d) => d.upstream).filter(Boolean)).toContain('Warning: Flatten layer ignored.');
  });

  it('several input: entries keep their own names (upstream names them all after the first and crashes)', () => {
    const r = build(
      'input: "a"\ninput: "b"\ninput_dim: 1\ninput_dim: 2\ninput_dim: 4\ninput_dim: 4\ninput_dim: 1\ninput_dim: 2\ninput_dim: 4\ninput_dim: 4\n' +
        'layer { name: "e" type: "Eltwise" bottom: "a" bottom: "b" top: "e" }',
    );
    expect(r.network!.inputs.map((i) => r.network!.tensors[i]!.name)).toEqual(['a', 'b']);
    expect(r.diagnostics[0]!.upstreamBehaviour).toBe('crashes');
  });
});

describe('NVDLA network from Caffe: rejections name the layer and give the upstream reason', () => {
  it('unsupported layer types', () => {
    for (const type of ['PReLU', 'Data', 'Reshape', 'Crop']) {
      const e = rejected(INPUT + `layer { name: "x" type: "${type}" bottom: "data" top: "x" }`);
      expect([e.layer, e.layerIndex, e.upstream]).toEqual(['x', 0, `could not parse layer type ${type}`]);
    }
  });

  it('parameter rejections', () => {
    const cases: [string, Record<string, (number | number[])[]>, string][] = [
      ['layer { name: "p" type: "Pooling" bottom: "data" top: "p" pooling_param { pool: STOCHASTIC kernel_size: 2 } }', {}, 'only AVE and MAX pool operations are supported'],
      ['layer { name: "p" type: "Power" bottom: "data" top: "p" power_param { power: 2 } }', {}, 'error: parsing layer type Power index 0'],
      ['layer { name: "p" type: "Deconvolution" bottom: "data" top: "p" convolution_param { num_output: 3 kernel_size: 2 group: 3 } }', { p: [12, 3] }, 'error: parsing layer type Deconvolution index 0'],
      ['layer { name: "p" type: "BatchNorm" bottom: "data" top: "p" }', { p: [3, 3, [0]] }, 'Batch Normalization moving average is zero'],
      ['layer { name: "p" type: "BatchNorm" bottom: "data" top: "p" }', { p: [2, 2, [1]] }, 'Unknown batch norm mode'],
      ['layer { name: "p" type: "Scale" bottom: "data" bottom: "data" top: "p" }', { p: [3] }, "Parser can't handle more than 1 inputs to scale op"],
      ['layer { name: "p" type: "Scale" bottom: "data" top: "p" }', { p: [5] }, 'Unknown scale mode'],
      ['layer { name: "p" type: "LRN" bottom: "data" top: "p" lrn_param { local_size: 17 } }', {}, 'Parameter check failed in addLRN'],
      ['layer { name: "p" type: "Pooling" bottom: "data" top: "p" pooling_param { kernel_size: 2 pad: 2 } }', {}, 'Parameter check failed in addPooling, condition: tlPadding.w < windowSize.w'],
      ['layer { name: "p" type: "Convolution" bottom: "data" top: "p" convolution_param { num_output: 0 kernel_size: 1 } }', { p: [3, 1] }, 'Parameter check failed in addConvolution'],
    ];
    for (const [text, w, upstream] of cases) {
      const e = rejected(INPUT + text, w);
      expect(e.layer).toBe('p');
      expect(e.upstream).toContain(upstream);
    }
  });

  it('what crashes upstream is a clear error here', () => {
    const crash = (text: string, w: Record<string, (number | number[])[]> = {}) => {
      const e = rejected(text, w);
      expect(e.upstreamBehaviour).toBe('crashes');
      return e.message;
    };
    expect(crash(INPUT + 'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 1 kernel_size: 1 } }')).toContain('no weights');
    expect(crash(INPUT + 'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 1 kernel_size: 1 } }', { c: [3] })).toContain('bias (blob 1) is missing');
    expect(crash(INPUT + 'layer { name: "r" type: "ReLU" bottom: "nothing" top: "r" }')).toContain("'nothing'");
    expect(crash('input: "data"\ninput_shape { dim: 1 dim: 3 }\nlayer { name: "r" type: "ReLU" bottom: "data" top: "r" }')).toContain('2 dimensions');
  });

  it('NaN weights, round_mode, and a network with no layers', () => {
    const nan = rejected(INPUT + 'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 1 kernel_size: 1 bias_term: false } }', { c: [[1, NaN, 1]] });
    expect(nan.message).toContain('NaN at index 1');
    const r = build(INPUT + 'layer { name: "p" type: "Pooling" bottom: "data" top: "p" pooling_param { kernel_size: 2 round_mode: FLOOR } }');
    expect(r.diagnostics.at(-1)!.message).toContain('round_mode');
    const v1 = build(INPUT + 'layers { name: "r" type: RELU bottom: "data" top: "r" }');
    expect(v1.network).toBeNull();
    expect(v1.diagnostics.map((d) => d.upstream ?? '')).toContain('Marking total 0 outputs\nUnable to identify outputs for the network: 0');
  });

  it('random layer lists give a network or diagnostics, never an exception', () => {
    const types = ['Convolution', 'Pooling', 'InnerProduct', 'ReLU', 'Sigmoid', 'Softmax', 'LRN', 'Power', 'Eltwise', 'Concat', 'Deconvolution', 'BatchNorm', 'Scale', 'Dropout', 'Flatten', 'PReLU', 'Input'];
    const layerArb = fc.record({
      type: fc.constantFrom(...types),
      bottoms: fc.array(fc.constantFrom('data', 'l0', 'l1', 'l2', 'zz'), { maxLength: 3 }),
      k: fc.integer({ min: 0, max: 9 }),
      n: fc.integer({ min: 0, max: 4 }),
      blobs: fc.array(fc.integer({ min: 0, max: 40 }), { maxLength: 3 }),
    });
    fc.assert(
      fc.property(fc.array(layerArb, { maxLength: 6 }), (layers) => {
        let text = INPUT;
        const weights: Record<string, number[]> = {};
        layers.forEach((l, i) => {
          const bottoms = l.bottoms.map((b) => `bottom: "${b}"`).join(' ');
          text += `layer { name: "l${i}" type: "${l.type}" ${bottoms} top: "l${i}" convolution_param { num_output: ${l.n} kernel_size: ${l.k} } pooling_param { kernel_size: ${l.k} } inner_product_param { num_output: ${l.n} } }\n`;
          weights[`l${i}`] = l.blobs;
        });
        const r = build(text, weights);
        if (r.network === null) expect(r.diagnostics.some((d) => d.severity === 'error')).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
