/**
 * A Caffe concat that takes one tensor as two of its inputs: on NVDLA each concat input is
 * written in place by its producer, once, so one of the places would stay unwritten (nvdla_compiler
 * compiles it so; the convolution reading it came out at 3 dB against Caffe). NPU Studio refuses it,
 * naming the concat and the tensor.
 */
import { describe, expect, it } from 'vitest';
import { compileNvdla } from '../compile';
import { readDeploy } from '../network/caffe-files';
import { synthetic } from '../../../../test/support/nvdla/fixtures';

const net = (bottoms: string) => `name: "repeat"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 4 dim: 6 dim: 6 } } }
layer { name: "c1" type: "Convolution" bottom: "data" top: "c1" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }
layer { name: "c1b" type: "Convolution" bottom: "data" top: "c1b" convolution_param { num_output: 16 kernel_size: 3 pad: 1 } }
layer { name: "cat" type: "Concat" ${bottoms} top: "cat" }
layer { name: "c2" type: "Convolution" bottom: "cat" top: "c2" convolution_param { num_output: 8 kernel_size: 3 pad: 1 } }
`;

const compile = (bottoms: string, configtarget: string, cprecision: string) => {
  const deploy = readDeploy(net(bottoms), 'repeat.prototxt');
  const r = compileNvdla(deploy, synthetic(deploy), { configtarget, cprecision, profile: 'fast-math' });
  return { r, errors: r.diagnostics.filter((d) => d.severity === 'error') };
};

describe('a concat taking one tensor twice', () => {
  it.each([
    ['nv_full', 'fp16'],
    ['nv_full', 'int8'],
    ['nv_small', 'int8'],
  ])('%s %s: refused, naming the concat and the tensor; with two tensors it compiles', (configtarget, cprecision) => {
    const repeated = compile('bottom: "c1" bottom: "c1b" bottom: "c1"', configtarget, cprecision);
    expect(repeated.r.bytes).toBeNull();
    expect(repeated.errors.map((d) => [d.layer, d.upstreamBehaviour, d.message])).toEqual([
      ['cat', 'wrong-result', "Concat 'cat' takes 'c1' as its inputs 1 and 3: NVDLA writes each input of a concat in place in its buffer, one place per tensor, so the other places would never be written (compute each repeated input as a layer of its own)"],
    ]);
    const distinct = compile('bottom: "c1" bottom: "c1b"', configtarget, cprecision);
    expect(distinct.errors).toEqual([]);
    expect(distinct.r.bytes!.length).toBeGreaterThan(0);
  });
});
