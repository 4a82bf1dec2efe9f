import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, frontEnd, lenet } from '../../../../test/support/nvdla/fixtures';
import { readDeploy } from '../network/caffe-files';
import { buildNetwork } from '../network/build';
import { generateCanonicalGraph } from './graph';

interface DumpElement {
  class: 'node' | 'edge';
  id: string;
  className?: string;
  sources?: string[];
  targets?: string[];
}

const CLASS_OF: Record<string, string> = {
  ConvolutionNode: 'CONVOLUTION',
  PoolingNode: 'POOLING',
  FullyConnectedNode: 'FULLY_CONNECTED',
  ActivationNode: 'ACTIVATION',
  SoftMaxNode: 'SOFTMAX',
};

describe('canonical graph', () => {
  it('LeNet gives the nodes and edges of the instrumented compiler dump (can_g.json)', () => {
    const dump = JSON.parse(readFileSync(join(FIXTURES, 'nvdla/lenet/can_g.json'), 'utf8')) as { elements: DumpElement[] };
    const { deploy, weights } = lenet();
    const can = frontEnd(deploy, weights).canonical!;
    const nodes = dump.elements.filter((e) => e.class === 'node').map((e) => `${e.id}:${CLASS_OF[e.className!]}`);
    expect(can.nodes.map((n) => `${n.id}:${n.opType}`)).toEqual(nodes);
    const edges = dump.elements.filter((e) => e.class === 'edge').map((e) => ({ id: e.id, sources: e.sources, targets: e.targets }));
    expect(can.edges.map((e) => ({ id: e.id, sources: e.sources, targets: e.targets }))).toEqual(edges);
    expect([can.inputEdges, can.outputEdges]).toEqual([['e-0'], ['e-8']]);
    expect(can.nodes.map((n) => n.name)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
  });

  it('captures layer parameters as upstream does (weight dims, bias dims, FC weight dims from the input)', () => {
    const { deploy, weights } = lenet();
    const can = frontEnd(deploy, weights).canonical!;
    const conv2 = can.nodes[2]!;
    expect(conv2.opType === 'CONVOLUTION' && [conv2.params.weightDims, conv2.params.biasDims]).toEqual([{ n: 50, c: 20, h: 5, w: 5 }, { n: 1, c: 50, h: 1, w: 1 }]);
    const ip1 = can.nodes[4]!;
    expect(ip1.opType === 'FULLY_CONNECTED' && ip1.params.weightDims).toEqual({ n: 500, c: 50, h: 4, w: 4 });
    expect(can.edges.find((e) => e.id === 'e-0')!.tensor.type).toBe('NW_INPUT');
    expect(can.edges.find((e) => e.id === 'e-8')!.tensor.type).toBe('NW_OUTPUT');
    expect(ip1.origins).toEqual([5]);
  });

  it('fan-out and fan-in: one edge per tensor, concat inputs in bottom order', () => {
    const deploy = readDeploy(
      `input: "data"\ninput_shape { dim: 1 dim: 2 dim: 4 dim: 4 }
       layer { name: "a" type: "ReLU" bottom: "data" top: "a" }
       layer { name: "b" type: "Sigmoid" bottom: "data" top: "b" }
       layer { name: "cat" type: "Concat" bottom: "b" bottom: "a" top: "cat" }`,
      'n.prototxt',
    );
    const net = buildNetwork(deploy, { file: 'w', net: {} }, { precision: 'FP16' }).network!;
    const can = generateCanonicalGraph(net);
    expect(can.edges.map((e) => `${e.id}:${e.sources.join(',')}>${e.targets.join(',')}`)).toEqual(['e-0:>n-0,n-1', 'e-1:n-0>n-2', 'e-2:n-1>n-2', 'e-3:n-2>']);
    expect(can.nodes[2]!.inputEdges).toEqual(['e-2', 'e-1']);
  });
});
