import { describe, expect, it } from 'vitest';
import { compileNvdla } from './compile';
import { readDeploy } from './network/caffe-files';
import { fixtureDeploy, lenet, synthetic } from '../../../test/support/nvdla/fixtures';
import { goldenBytes } from '../../../test/support/nvdla/golden';
import { loadableDifferences, readLoadable } from '../../../test/support/nvdla/read-loadable';

describe('compileNvdla', () => {
  it('LeNet with the default options: every pass in order, then the loadable nvdla_compiler writes', () => {
    const { deploy, weights } = lenet();
    const r = compileNvdla(deploy, weights, { batch: 1 });
    expect(r.reached).toBe('emit');
    expect(r.passes.map((p) => p.name)).toEqual([
      'registerBuffers', 'preProcessAuxData', 'mergeActivationOperations', 'updateScalingFactors', 'quantizeAuxData', 'fuseOnTheFlyNodes', 'handleLowPrecisionConversions',
      'translateAuxData', 'reserveBuffers', 'splitNodes', 'fuseSubEngineOps', 'boundGraph', 'handleMultiBatch', 'generateDependencyParams', 'resolveMemory',
    ]);
    // N=64 in this prototxt overridden by --batch 1: the N=1 golden but for conv1's post-extended weights (blob tb-0),
    // laid out as the hardware reads them, not as nvdla_compiler does
    const golden = goldenBytes('lenet-b1-nv_full-int8-fast-math');
    expect(r.bytes!.length).toBe(golden.length);
    // int8, 20 kernels x 20 channels a row: stripe 0 (rows 0, 1: bytes 0..799) and the last row (1600..1999) agree, stripe 1 holds rows 2, 3, not 3, 4
    expect(loadableDifferences(readLoadable(r.bytes!), readLoadable(golden))).toEqual([expect.stringMatching(/^blobs\["tb-0"\]\.data\[800\.\.1596\] differ/)]);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const layout = r.diagnostics.filter((d) => d.message.includes('post-extended'));
    expect(layout.map((d) => [d.severity, d.stage, d.layer, d.upstreamBehaviour])).toEqual([['warning', 'passes', 'conv1', 'wrong-result']]);
    expect(layout[0]!.message).toMatch(/not 3 rows apart as nvdla_compiler lays them: this weight blob differs from nvdla_compiler's \(--post-ext-weights nvdla_compiler writes its layout\)$/);
    // with nvdla_compiler's layout: its bytes exactly, and a warning of what the hardware makes of them
    const compat = compileNvdla(deploy, weights, { batch: 1, postExtWeights: 'nvdla_compiler' });
    expect(compat.bytes!.length).toBe(golden.length);
    expect(compat.bytes!.findIndex((v, i) => v !== golden[i])).toBe(-1);
    expect(compat.diagnostics.filter((d) => d.message.includes('post-extended')).map((d) => [d.layer, /kernel rows (\d+(?:, \d+)*)/.exec(d.message)?.[1]])).toEqual([['conv1', '0, 1, 3, 4, 4']]);
  });

  it('--post-ext-weights takes csc or nvdla_compiler (any case); anything else is an option error spelled as the CLI spells it', () => {
    const { deploy, weights } = lenet();
    const r = compileNvdla(deploy, weights, { postExtWeights: 'cmod' });
    expect(r.reached).toBeNull();
    expect(r.diagnostics.map((d) => [d.severity, d.stage, d.message])).toEqual([
      ['error', 'options', "--post-ext-weights: 'cmod' is not csc (the layout the hardware reads, the default) or nvdla_compiler (its byte-identical layout)"],
    ]);
  });

  it('nv_small has no post-extension: no layout warning, the default is the golden', () => {
    const { deploy, weights } = lenet();
    const r = compileNvdla(deploy, weights, { batch: 1, configtarget: 'nv_small' });
    expect(r.diagnostics.filter((d) => d.message.includes('post-extended'))).toEqual([]);
    const golden = goldenBytes('lenet-b1-nv_small-int8-fast-math');
    expect(r.bytes!.length === golden.length && r.bytes!.every((v, i) => v === golden[i])).toBe(true);
  });

  it('a pass that refuses the network: the error names the pass, the passes before it stay', () => {
    // one 23x23 kernel group over 64 channels (1 MiB of int8) is larger than nv_full's whole convolution buffer
    const deploy = readDeploy(
      `name: "k23"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 64 dim: 23 dim: 23 } } }
layer { name: "wide" type: "Convolution" bottom: "data" top: "wide" convolution_param { num_output: 64 kernel_size: 23 } }`,
      'k23.prototxt',
    );
    const r = compileNvdla(deploy, synthetic(deploy, 'zeros'), { informat: 'nchw' });
    expect(r.reached).toBe('engine');
    expect(r.passes.map((p) => p.name).at(-1)).toBe('reserveBuffers');
    expect(r.bytes).toBeNull();
    const err = r.diagnostics.find((d) => d.severity === 'error')!;
    expect(err.stage).toBe('passes');
    expect(err.message).toMatch(/^splitNodes: dc-conv-0: Not enough banks to hold weight data, even for 64 input channels at a time/);
    expect(err.upstream).toBe('failed compilation phase: splitNodes');
  });
});
