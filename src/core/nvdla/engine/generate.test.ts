import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readDeploy } from '../network/caffe-files';
import { FIXTURES, fixtureDeploy, frontEnd, lenet, synthetic } from '../../../../test/support/nvdla/fixtures';
import type { EngineGraph } from './model';

interface DumpElement {
  class: 'node' | 'edge';
  id: string;
  name?: string;
  type?: string;
  className?: string;
  sources?: string[];
  targets?: string[];
}

const CLASS_OF: Record<string, string> = {
  ConvolutionOpNode: 'CONVOLUTION_CONV',
  SDPBiasOpNode: 'SDP_BIAS',
  PDPNode: 'PDP_POOL',
  FullyConnectedOpNode: 'CONVOLUTION_FC',
  SDPScaleNode: 'SDP_SCALE',
  SDPActivationNode: 'SDP_ACTIVATION',
  CPUSoftMaxOpNode: 'CPU_SOFTMAX',
};

function names(g: EngineGraph): string[] {
  return g.nodes.map((n) => n.name);
}

function byName(g: EngineGraph, ids: string[]): string[] {
  return ids.map((id) => g.nodes.find((n) => n.id === id)!.name);
}

const small = (body: string, opts: Parameters<typeof frontEnd>[2] = {}, channels = 8) => {
  const deploy = readDeploy(`input: "data"\ninput_shape { dim: 1 dim: ${channels} dim: 8 dim: 8 }\n` + body, 'net.prototxt');
  return frontEnd(deploy, synthetic(deploy), { informat: 'nchw', ...opts });
};

describe('engine graph: LeNet', () => {
  it('int8 gives the nodes and edges of the instrumented compiler dump right after generateGraph (engine_g.json)', () => {
    const dump = JSON.parse(readFileSync(join(FIXTURES, 'nvdla/lenet/engine_g.json'), 'utf8')) as { elements: DumpElement[] };
    const { deploy, weights } = lenet();
    const g = frontEnd(deploy, weights).engine!.graph!;
    // the dump's "id" is the node's NVDLA name and its "name" the node id
    const nodes = dump.elements.filter((e) => e.class === 'node').map((e) => `${e.name}:${e.id}:${CLASS_OF[e.className!]}`);
    expect(g.nodes.map((n) => `${n.id}:${n.name}:${n.engineOpType}`)).toEqual(nodes);
    const want = dump.elements
      .filter((e) => e.class === 'edge')
      .map((e) => `${e.id}:${e.type}:${e.sources!.join(',')}>${e.targets!.join(',')}`)
      .sort();
    const got = g.edges.map((e) => `${e.id}:${e.kind.toUpperCase()}:${byName(g, e.sources).join(',')}>${byName(g, e.targets).join(',')}`).sort();
    expect(got).toEqual(want);
    expect(names(g)).toEqual(['dc-conv-0', 'bias-0', 'pdp-0', 'dc-conv-1', 'bias-1', 'pdp-1', 'fc-0', 'bias-2', 'sdp-scale-0', 'act-0', 'fc-1', 'bias-3', 'cpu-sm-0']);
  });

  it('fp16 has no rescaling sdp-scale before the ReLU', () => {
    const { deploy, weights } = lenet();
    const g = frontEnd(deploy, weights, { cprecision: 'fp16' }).engine!.graph!;
    expect(names(g)).toEqual(['dc-conv-0', 'bias-0', 'pdp-0', 'dc-conv-1', 'bias-1', 'pdp-1', 'fc-0', 'bias-2', 'act-0', 'fc-1', 'bias-3', 'cpu-sm-0']);
  });

  it('edges by kind, aux tensors, bindable I/O with the batch size and widened image input', () => {
    const { deploy, weights } = lenet();
    const r = frontEnd(deploy, weights).engine!;
    const g = r.graph!;
    expect(g.batchSize).toBe(64);
    const aux = g.edges.filter((e) => e.aux).map((e) => `${e.tensor!.name}:${e.tensor!.type}`);
    expect(aux).toEqual(['tensor-aux-0:WEIGHT', 'tensor-aux-1:BIAS', 'tensor-aux-2:WEIGHT', 'tensor-aux-3:BIAS', 'tensor-aux-4:WEIGHT', 'tensor-aux-5:BIAS', 'tensor-aux-6:SCALE', 'tensor-aux-7:WEIGHT', 'tensor-aux-8:BIAS']);
    const input = g.edges.find((e) => e.id === g.inputEdges[0])!;
    expect([input.bind, input.tensor!.dims, input.tensor!.dataFormat]).toEqual([{ id: 0, direction: 'input' }, { n: 64, c: 4, h: 28, w: 28 }, 'NHWC']);
    expect(input.tensor!.channelScales).toEqual([1, 1, 1, 1]);
    const output = g.edges.find((e) => e.id === g.outputEdges[0])!;
    expect([output.bind, output.tensor!.dims.n, output.tensor!.dataFormat]).toEqual([{ id: 0, direction: 'output' }, 64, 'NCxHWx']);
    // every other non-aux tensor has N = 1
    expect(g.edges.filter((e) => !e.bind && !e.aux && e.tensor!.dims.n !== 1)).toEqual([]);
    expect(r.diagnostics.map((d) => d.upstream)).toContain('Prototxt #chnls (C = 1) != Profile #chnls for input (NVDLA_IMG_A8B8G8R8: C = 4). Preferring #chnls from Profile for compiling.');
    // origins: the joint SDP and the rescaling scale come from the Caffe layers they serve
    const origin = (name: string) => g.nodes.find((n) => n.name === name)!.origins;
    expect([origin('bias-0'), origin('sdp-scale-0'), origin('act-0')]).toEqual([[1], [6], [6]]);
  });

  it('--batch overrides the input N, and more than the target allows is refused', () => {
    const { deploy, weights } = lenet();
    const r = frontEnd(deploy, weights, { batch: 4 }).engine!;
    expect(r.graph!.batchSize).toBe(4);
    expect(r.diagnostics.map((d) => d.upstream)).toContain('Overriding input multibatch size from 64 to 4');
    // the prototxt N = 64 itself exceeds nv_full's 32 only when given as --batch (upstream checks the profile value)
    const big = frontEnd(deploy, weights, { batch: 33 }).engine!;
    expect(big.graph).toBeNull();
    expect(big.diagnostics[0]!.upstream).toBe('numbatches is greater than allowed maxbatches (32)');
  });
});

describe('engine graph: per layer type', () => {
  it('convolution without bias: a unit sdp-scale in int8 (per layer, or per channel for per-filter), an sdp-nop in fp16', () => {
    const body = 'layer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 4 kernel_size: 3 bias_term: false } }';
    const int8 = small(body).engine!.graph!;
    expect(names(int8)).toEqual(['dc-conv-0', 'sdp-scale-0']);
    const scale = int8.nodes[1]!;
    expect(scale.params.kind === 'sdp-scale' && [scale.params.sdp.x1.mode, scale.params.scaleDims.c]).toEqual(['PER_LAYER', 1]);
    const pf = small(body, { quantizationMode: 'per-filter' }).engine!.graph!.nodes[1]!;
    expect(pf.params.kind === 'sdp-scale' && [pf.params.sdp.x1.mode, pf.params.scaleDims.c]).toEqual(['PER_CHANNEL', 4]);
    expect(names(small(body, { cprecision: 'fp16' }).engine!.graph!)).toEqual(['dc-conv-0', 'sdp-nop-0']);
  });

  it('grouped (depthwise) convolution keeps its groups on the conv and its joint SDP', () => {
    const g = small('layer { name: "dw" type: "Convolution" bottom: "data" top: "dw" convolution_param { num_output: 8 group: 8 kernel_size: 3 pad: 1 } }').engine!.graph!;
    const [conv, bias] = g.nodes;
    expect(conv!.params.kind === 'conv' && [conv!.params.conv.numGroups, conv!.params.conv.weightDims]).toEqual([8, { n: 8, c: 1, h: 3, w: 3 }]);
    expect(bias!.params.kind === 'sdp-bias' && bias!.params.sdp.numGroups).toBe(8);
  });

  it('BatchNorm + Scale with bias: sdp-bn, then sdp-scale feeding bias', () => {
    const g = small(
      `layer { name: "bn" type: "BatchNorm" bottom: "data" top: "bn" }
       layer { name: "sc" type: "Scale" bottom: "bn" top: "sc" scale_param { bias_term: true } }`,
      { cprecision: 'fp16' },
    ).engine!.graph!;
    expect(names(g)).toEqual(['sdp-bn-0', 'sdp-scale-0', 'bias-0']);
    const scale = g.nodes[1]!;
    const bias = g.nodes[2]!;
    const link = g.edges.find((e) => e.sources.includes(scale.id) && e.targets.includes(bias.id))!;
    expect(link.tensor!.type).toBe('IO');
    expect(g.edges.filter((e) => e.aux).map((e) => e.tensor!.type)).toEqual(['BATCH_NORM', 'SCALE', 'BIAS']);
  });

  // LRN and Sigmoid of the input, their Eltwise MAX, a Concat of the Sigmoid and the MAX, then Power and Softmax (CPU)
  const CONCAT_NET = `layer { name: "a" type: "LRN" bottom: "data" top: "a" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 } }
       layer { name: "b" type: "Sigmoid" bottom: "data" top: "b" }
       layer { name: "e" type: "Eltwise" bottom: "a" bottom: "b" top: "e" eltwise_param { operation: MAX } }
       layer { name: "cat" type: "Concat" bottom: "b" bottom: "e" top: "cat" }
       layer { name: "p" type: "Power" bottom: "cat" top: "p" power_param { scale: 2 } }
       layer { name: "s" type: "Softmax" bottom: "p" top: "s" }`;

  it('Concat keeps canonical input order; LRN, Eltwise, Softmax, Power, Sigmoid', () => {
    const g = small(
      CONCAT_NET,
      { cprecision: 'fp16' },
      16, // whole 16-channel FP16 groups: the concat's second input starts on a group boundary
    ).engine!.graph!;
    expect(names(g)).toEqual(['cdp-lrn-0', 'act-0', 'ew-0', 'concat-0', 'cpu-scale-0', 'cpu-sm-0']);
    const ew = g.nodes[2]!;
    expect(ew.params.kind === 'sdp-ew' && [ew.params.sdp.x1.aluType, ew.params.sdp.x1.opType, ew.params.sdp.x1.mode]).toEqual(['MAX', 'ADD', 'PER_ELEMENT']);
    const concat = g.nodes[3]!;
    const tensorOf = (id: string) => g.edges.find((e) => e.id === id)!.tensor!.name;
    expect(concat.inputEdges.map(tensorOf)).toEqual(['b', 'e']);
  });

  it('a Concat whose second input starts mid channel group (8 + 8 in FP16 on nv_full) read by the CPU (Power) is refused, naming both', () => {
    const r = small(
      CONCAT_NET,
      { cprecision: 'fp16' },
    ).engine!;
    expect(r.graph).toBeNull();
    const d = r.diagnostics.at(-1)!;
    expect([d.layer, d.upstreamBehaviour]).toEqual(['cat', 'wrong-result']);
    expect(d.message).toMatch(/^Concat 'cat': its input 2 starts at channel 8, not a multiple of the 16 channels .*; 'p' \(CPU_SCALE\) reads it, which cannot skip the gap channels/);
  });

  it('Sigmoid on nv_small: refused (upstream drops the activation silently)', () => {
    const r = small('layer { name: "s" type: "Sigmoid" bottom: "data" top: "s" }', { configtarget: 'nv_small' }).engine!;
    expect(r.graph).toBeNull();
    const d = r.diagnostics.at(-1)!;
    expect([d.layer, d.upstreamBehaviour, d.upstream]).toEqual(['s', 'wrong-result', 'Activation type not supported: 1']);
  });

  it('TanH in INT8: refused (upstream writes an all-zero lookup table); in FP16 one table per distinct activation/LRN', () => {
    const r = small('layer { name: "t" type: "TanH" bottom: "data" top: "t" }', {}).engine!;
    expect(r.graph).toBeNull();
    const d = r.diagnostics.at(-1)!;
    expect([d.layer, d.upstreamBehaviour, d.upstream]).toEqual(['t', 'wrong-result', 'Empty INT8 Tanh LUT']);
    const g = small(
      `layer { name: "a" type: "LRN" bottom: "data" top: "a" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 } }
       layer { name: "b" type: "Sigmoid" bottom: "a" top: "b" }
       layer { name: "c" type: "LRN" bottom: "b" top: "c" lrn_param { local_size: 5 alpha: 0.0001 beta: 0.75 } }
       layer { name: "d" type: "Sigmoid" bottom: "c" top: "d" }`,
      { cprecision: 'fp16' },
    ).engine!.graph!;
    expect(g.luts.map((l) => l.key)).toEqual(['LRNFP165-0.000100000-0.750000-1.00000', 'SIGMOIDFP16']);
    expect(g.nodes.map((n) => ('lutIndex' in n.params ? n.params.lutIndex : null))).toEqual([0, 1, 0, 1]);
  });

  it('an 8-channel image input is refused (upstream cuts it to 4), fewer channels are widened', () => {
    const deploy = readDeploy('input: "data"\ninput_shape { dim: 1 dim: 8 dim: 4 dim: 4 }\nlayer { name: "c" type: "Convolution" bottom: "data" top: "c" convolution_param { num_output: 2 kernel_size: 1 } }', 'n.prototxt');
    const r = frontEnd(deploy, synthetic(deploy)).engine!;
    expect(r.graph).toBeNull();
    expect(r.diagnostics.at(-1)!.upstreamBehaviour).toBe('wrong-result');
    // the same net as feature data compiles
    expect(frontEnd(deploy, synthetic(deploy), { informat: 'nchw' }).engine!.graph).not.toBeNull();
  });
});

describe('engine graph: every fixture deploy net', () => {
  const count = (g: EngineGraph, prefix: string) => g.nodes.filter((n) => n.name.startsWith(prefix)).length;

  it.each([
    ['cifar10-quick/cifar10_quick.prototxt', { 'dc-conv-': 3, 'pdp-': 3, 'fc-': 2, 'cpu-sm-': 1 }],
    ['squeezenet-v1.1/deploy.prototxt', { 'dc-conv-': 26, 'concat-': 8, 'pdp-': 4 }],
    ['googlenet/deploy.prototxt', { 'dc-conv-': 57, 'concat-': 9, 'cdp-lrn-': 2, 'fc-': 1 }],
    ['mobilenet-v1/mobilenet_deploy.prototxt', { 'dc-conv-': 28, 'sdp-bn-': 27, 'sdp-scale-': 27 }],
    ['resnet-50/ResNet-50-deploy.prototxt', { 'dc-conv-': 53, 'sdp-bn-': 53, 'sdp-scale-': 53, 'ew-': 16 }],
  ])('%s', (path, expected) => {
    const deploy = fixtureDeploy(`caffe/${path}`);
    const r = frontEnd(deploy, synthetic(deploy, 'zeros'), { cprecision: 'fp16' });
    expect(r.network.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const g = r.engine!.graph!;
    for (const [prefix, n] of Object.entries(expected)) expect([prefix, count(g, prefix)]).toEqual([prefix, n]);
    // every node has its ports, every edge its ends
    for (const n of g.nodes) {
      expect(n.outputEdges.length, n.name).toBeGreaterThan(0);
      expect(n.inputEdges.length, n.name).toBeGreaterThan(0);
      expect(n.origins.length, n.name).toBeGreaterThan(0);
    }
    if (path.startsWith('mobilenet')) {
      const depthwise = g.nodes.filter((n) => n.params.kind === 'conv' && n.params.conv.numGroups > 1);
      expect(depthwise).toHaveLength(13);
    }
  });

  it.each([
    ['mtcnn/det1.prototxt', 'could not parse layer type PReLU'],
    ['mtcnn/det2.prototxt', 'could not parse layer type PReLU'],
    ['lenet/lenet_train_test.prototxt', 'could not parse layer type Data'],
    ['cifar10-quick/cifar10_quick.v1.prototxt', 'Unable to identify outputs for the network: 0'],
    ['legacy/lenet.v0.prototxt', 'Unable to identify outputs for the network: 0'],
  ])('%s is refused as nvdla_compiler refuses it', (path, upstream) => {
    const deploy = fixtureDeploy(`caffe/${path}`);
    let weights;
    try {
      weights = synthetic(deploy, 'zeros');
    } catch {
      weights = { file: 'none.caffemodel', net: {} }; // Data layers and V0/V1 nets have no shapes to generate from
    }
    const r = frontEnd(deploy, weights);
    expect(r.network.network).toBeNull();
    expect(r.network.diagnostics.at(-1)!.upstream).toContain(upstream);
  });
});
