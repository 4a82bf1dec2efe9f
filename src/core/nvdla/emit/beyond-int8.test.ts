/**
 * Where nvdla_compiler gives up in INT8 and NPU Studio compiles (issue 14 point 4): each compile
 * is run on the DLA model and compared layer by layer with the Caffe float pass of the same
 * seeded weights, calibrated on other inputs (test/support/nvdla/int8-agreement.ts). The bar is
 * "in line with the other INT8 layers of the same run", in dB (10 log10 of signal over error
 * power; int8 layers of these nets sit at 33-42 dB).
 */
import { describe, expect, it } from 'vitest';
import type { LayerComparison } from '../../dla/compare';
import { readDeploy } from '../network/caffe-files';
import { synthetic } from '../../../../test/support/nvdla/fixtures';
import { netCase } from '../../../../test/support/nvdla/nets';
import { int8Agreement } from '../../../../test/support/nvdla/int8-agreement';

const below = (rows: LayerComparison[], db: number) => rows.filter((r) => !(r.metrics.snrDb >= db)).map((r) => `${r.layer}: ${r.metrics.snrDb.toFixed(1)} dB`);

/** conv1 + ReLU, then `mid` (reading conv1, writing "mid"), then conv2 (grouped `group`) + ReLU */
const smallNet = (mid: string, group = 1) => `name: "small"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 32 dim: 32 } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
${mid}
layer { name: "conv2" type: "Convolution" bottom: "mid" top: "conv2" convolution_param { num_output: 32 kernel_size: 3 pad: 1 group: ${group} } }
layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }
`;
const lrn = (p: string) => `layer { name: "norm1" type: "LRN" bottom: "conv1" top: "mid" lrn_param { ${p} } }`;

async function small(text: string, configtarget: string) {
  const deploy = readDeploy(text, 'small.prototxt');
  return int8Agreement(text, deploy, synthetic(deploy), { configtarget, cprecision: 'int8', profile: 'fast-math' });
}

describe('INT8 LRN on the CDP (nvdla_compiler: "Couldn\'t narrow down to suitable SF")', () => {
  it.each([
    { name: 'AlexNet\'s LRN (local 5, alpha 1e-4, beta 0.75)', params: 'local_size: 5 alpha: 0.0001 beta: 0.75', target: 'nv_full', margin: 2 },
    { name: 'AlexNet\'s LRN (local 5, alpha 1e-4, beta 0.75)', params: 'local_size: 5 alpha: 0.0001 beta: 0.75', target: 'nv_small', margin: 2 },
    // the factor falls to ~1/60 over the input range: dividing by the sum of squares of quantised
    // inputs costs ~5 dB more than the gentle one (the table itself is within 1 %, luts.test.ts)
    { name: 'a strong LRN (local 3, alpha 0.01, beta 0.6, k 2)', params: 'local_size: 3 alpha: 0.01 beta: 0.6 k: 2', target: 'nv_full', margin: 6 },
  ])('$name on $target: norm1 within $margin dB of relu1 (its input) and above 30 dB; conv2 after it too', async ({ params, target, margin }) => {
    const r = await small(smallNet(lrn(params)), target);
    expect(r.rows.map((row) => `${row.layer} ${row.engine} ${row.precision}`)).toEqual(['relu1 SDP INT8', 'norm1 CDP INT8', 'relu2 SDP INT8']);
    expect(r.snr.norm1).toBeGreaterThan(30);
    expect(r.snr.norm1).toBeGreaterThan(r.snr.relu1! - margin);
    expect(r.snr.relu2).toBeGreaterThan(30);
  }, 120_000);

  it('the LRN really divides: with alpha 0.01 the output is well below the input (a table of ones would fail)', async () => {
    const r = await small(smallNet(lrn('local_size: 3 alpha: 0.01 beta: 0.6 k: 2')), 'nv_full');
    // calibrated absmax of the LRN output against its input's
    expect(r.scales.norm1! / r.scales.relu1!).toBeLessThan(0.5);
    expect(r.snr.norm1).toBeGreaterThan(30);
  }, 120_000);
});

describe('INT8 grouped convolution (nvdla_compiler quantises only 1/G of the widened weights)', () => {
  it('conv2 with 2 groups: relu2 as good as the ungrouped one', async () => {
    const pool = 'layer { name: "pool1" type: "Pooling" bottom: "conv1" top: "mid" pooling_param { pool: MAX kernel_size: 3 stride: 2 } }';
    const grouped = await small(smallNet(pool, 2), 'nv_full');
    const plain = await small(smallNet(pool, 1), 'nv_full');
    expect(grouped.snr.relu2).toBeGreaterThan(34);
    expect(grouped.snr.relu2).toBeGreaterThan(plain.snr.relu2! - 2);
  }, 120_000);
});

describe('real-size INT8 nets with LRN against Caffe (seeded random weights)', () => {
  it('AlexNet nv_full: norm1 and norm2 above 35 dB, every layer before the softmax above 32 dB', async () => {
    const c = netCase('alexnet-b1-nv_full-int8-fast-math');
    const r = await int8Agreement(c.prototxtText, c.deploy, c.weights, c.options);
    expect(r.rows.map((row) => row.layer)).toEqual(['relu1', 'norm1', 'pool1', 'relu2', 'norm2', 'pool2', 'relu3', 'relu4', 'relu5', 'pool5', 'relu6', 'relu7', 'fc8', 'prob']);
    expect(r.snr.norm1).toBeGreaterThan(35);
    expect(r.snr.norm2).toBeGreaterThan(35);
    expect(below(r.rows.filter((row) => row.layer !== 'prob'), 32)).toEqual([]);
  }, 900_000);

  it('GoogLeNet nv_small: pool1/norm1 and conv2/norm2 above 34 dB, every layer up to pool2 above 34 dB', async () => {
    const c = netCase('googlenet-b1-nv_small-int8-fast-math');
    const r = await int8Agreement(c.prototxtText, c.deploy, c.weights, c.options);
    expect(r.rows.filter((row) => row.engine === 'CDP').map((row) => `${row.layer} ${row.precision}`)).toEqual(['pool1/norm1 INT8', 'conv2/norm2 INT8']);
    expect(r.snr['pool1/norm1']).toBeGreaterThan(34);
    expect(r.snr['conv2/norm2']).toBeGreaterThan(34);
    // inside the inceptions the INT8 run drifts away from Caffe (from inception_3a's reduce
    // convolutions on) for a cause that is not the LRN, not found yet: only the layers up to pool2 are held
    const upToPool2 = r.rows.slice(0, r.rows.findIndex((row) => row.layer === 'pool2/3x3_s2') + 1);
    expect(upToPool2.map((row) => row.layer)).toEqual(['conv1/relu_7x7', 'pool1/3x3_s2', 'pool1/norm1', 'conv2/relu_3x3_reduce', 'conv2/relu_3x3', 'conv2/norm2', 'pool2/3x3_s2']);
    expect(below(upToPool2, 34)).toEqual([]);
  }, 900_000);
});

describe('INT8 weight split by input channel (nvdla_compiler: "Not enough banks to hold weight data. No software split supported")', () => {
  // fc1's one kernel group (32 kernels x 16384 inputs, 512 KiB of int8) fills nv_full's whole convolution buffer, as VGG16's fc6 does
  const WIDE_FC = `name: "widefc"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 1024 dim: 4 dim: 4 } } }
layer { name: "fc1" type: "InnerProduct" bottom: "data" top: "fc1" inner_product_param { num_output: 64 } }
layer { name: "relu1" type: "ReLU" bottom: "fc1" top: "fc1" }
layer { name: "fc2" type: "InnerProduct" bottom: "fc1" top: "fc2" inner_product_param { num_output: 10 } }
`;
  it('fc1 in two chunks: the int8 sum of the partials at 35 dB or more, relu1 after its requantised bias too, fc2 as the other layers', async () => {
    const deploy = readDeploy(WIDE_FC, 'widefc.prototxt');
    const r = await int8Agreement(WIDE_FC, deploy, synthetic(deploy), { configtarget: 'nv_full', cprecision: 'int8', profile: 'fast-math', informat: 'nchw' });
    const notes = r.compile.passes.find((p) => p.name === 'splitNodes')!.changes.notes.join('\n');
    expect(notes).toMatch(/fc-0: .*split by input channel into 2 convolutions of 960 \+ 64 channels/);
    // the two partials (SDP NOPs, each only part of fc1: not comparable alone), their sum, then bias + ReLU
    expect(r.rows.map((row) => `${row.layer} ${row.node}`)).toEqual(['fc1 sdp-nop-0', 'fc1 sdp-nop-1', 'fc1 ew-0', 'relu1 bias-0', 'fc2 bias-1']);
    const byNode = Object.fromEntries(r.rows.map((row) => [row.node, row]));
    expect(byNode['ew-0']!.metrics.snrDb).toBeGreaterThan(35);
    expect(byNode['bias-0']!.metrics.snrDb).toBeGreaterThan(35);
    expect(byNode['bias-1']!.metrics.snrDb).toBeGreaterThan(32);
    expect(r.rows.reduce((n, row) => n + row.saturated, 0)).toBe(0);
  }, 120_000);

  it('per-filter quantisation is refused, naming the layer', async () => {
    const deploy = readDeploy(WIDE_FC, 'widefc.prototxt');
    const { compileNvdla } = await import('../compile');
    const r = compileNvdla(deploy, synthetic(deploy), { configtarget: 'nv_full', cprecision: 'int8', profile: 'fast-math', informat: 'nchw', quantizationMode: 'per-filter' });
    expect(r.bytes).toBeNull();
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message).join('\n')).toMatch(/fc-0: .* in INT8 only with per-kernel quantisation/);
  });
});

describe('splitWeightsAndData on nv_small (nvdla_compiler: "splitWeightsAndData is not yet supported")', () => {
  // conv1's input (512 x H x W int8) needs more than the profile's 8 data banks and one kernel
  // group (8 kernels x 512 x 3 x 3 = 36 KiB) more than its 8 weight banks, as VGG16's conv4/conv5 on nv_small
  const net = (hw: number, k: number, group: number) => `name: "swd"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 512 dim: ${hw} dim: ${hw} } } }
layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: ${k} kernel_size: 3 pad: 1 group: ${group} } }
layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }
layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 16 kernel_size: 1 } }
`;
  const run = async (text: string) => {
    const deploy = readDeploy(text, 'swd.prototxt');
    const r = await int8Agreement(text, deploy, synthetic(deploy), { configtarget: 'nv_small', cprecision: 'int8', profile: 'fast-math', informat: 'nchw' });
    return { r, notes: r.compile.passes.find((p) => p.name === 'splitNodes')!.changes.notes.join('\n'), node: (n: string) => r.rows.find((row) => row.node === n)! };
  };

  it('32x32: two channel chunks (448 + 64), the first in 8 bands of rows; the sum, relu1 and conv2 as the other int8 layers', async () => {
    const { r, notes, node } = await run(net(32, 16, 1));
    expect(notes).toMatch(/dc-conv-0: input of 128 banks and one kernel group of weights of 9 banks exceed the profile's 8 \+ 8 .* 2 convolutions of 448 \+ 64 channels/);
    expect(notes).toMatch(/dc-conv-0: input of 112 banks split into 8 partial-height convolutions/);
    // the first chunk's partial is one row made of its 8 band slots
    expect(r.rows[0]!.bands?.slots.length).toBe(8);
    expect(node('ew-0').metrics.snrDb).toBeGreaterThan(34);
    expect(node('bias-0').metrics.snrDb).toBeGreaterThan(34);
    expect(node('bias-1').metrics.snrDb).toBeGreaterThan(32);
  }, 300_000);

  it('a depthwise 3x3 over 512 channels (MobileNet\'s dc-conv-13 on nv_small): its widened kernels split the same way, relu1 above 35 dB', async () => {
    const { notes, node } = await run(net(14, 512, 512));
    expect(notes).toMatch(/dc-conv-0: input of 25 banks and one kernel group of weights of 9 banks exceed .* 2 convolutions of 448 \+ 64 channels/);
    expect(node('ew-0').metrics.snrDb).toBeGreaterThan(35);
    expect(node('bias-0').metrics.snrDb).toBeGreaterThan(35);
  }, 300_000);
});

describe('INT8 channel concatenation with an input starting mid channel group', () => {
  const net = (a: number) => `name: "cat"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 32 dim: 8 dim: 8 } } }
layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: ${a} kernel_size: 1 } }
layer { name: "ra" type: "ReLU" bottom: "a" top: "a" }
layer { name: "b" type: "Convolution" bottom: "data" top: "b" convolution_param { num_output: 48 kernel_size: 1 } }
layer { name: "rb" type: "ReLU" bottom: "b" top: "b" }
layer { name: "cat" type: "Concat" bottom: "a" bottom: "b" top: "cat" }
layer { name: "c" type: "Convolution" bottom: "cat" top: "c" convolution_param { num_output: 16 kernel_size: 1 } }
`;
  it('208 + 48 channels on nv_full (32-channel groups) is refused, naming the concat; before, the loadable wrote past its buffer on the DLA model', async () => {
    const deploy = readDeploy(net(208), 'cat.prototxt');
    const { compileNvdla } = await import('../compile');
    const r = compileNvdla(deploy, synthetic(deploy), { configtarget: 'nv_full', cprecision: 'int8', informat: 'nchw' });
    expect(r.bytes).toBeNull();
    expect(r.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([expect.stringMatching(/^Concat 'cat': its input 2 starts at channel 208, not a multiple of the 32 channels/)]);
  });

  it('the same on nv_small (8-channel groups) and 192 + 48 on nv_full compile, c after the concat above 34 dB', async () => {
    for (const [a, target] of [[208, 'nv_small'], [192, 'nv_full']] as const) {
      const text = net(a);
      const deploy = readDeploy(text, 'cat.prototxt');
      const r = await int8Agreement(text, deploy, synthetic(deploy), { configtarget: target, cprecision: 'int8', profile: 'fast-math', informat: 'nchw' });
      expect(r.snr.c).toBeGreaterThan(34);
    }
  }, 120_000);
});
