import { describe, expect, it } from 'vitest';
import { compileNvdla } from './compile';
import { fixtureDeploy, lenet, synthetic } from '../../../test/support/nvdla/fixtures';
import { goldenBytes } from '../../../test/support/nvdla/golden';

describe('compileNvdla', () => {
  it('LeNet with the default options: every pass in order, then the loadable nvdla_compiler writes', () => {
    const { deploy, weights } = lenet();
    const r = compileNvdla(deploy, weights, { batch: 1 });
    expect(r.reached).toBe('emit');
    expect(r.passes.map((p) => p.name)).toEqual([
      'registerBuffers', 'preProcessAuxData', 'mergeActivationOperations', 'updateScalingFactors', 'quantizeAuxData', 'fuseOnTheFlyNodes', 'handleLowPrecisionConversions',
      'translateAuxData', 'reserveBuffers', 'splitNodes', 'fuseSubEngineOps', 'boundGraph', 'handleMultiBatch', 'generateDependencyParams', 'resolveMemory',
    ]);
    // N=64 in this prototxt overridden by --batch 1: the same bytes as the N=1 golden
    const golden = goldenBytes('lenet-b1-nv_full-int8-fast-math');
    expect(r.bytes!.length).toBe(golden.length);
    expect(r.bytes!.findIndex((v, i) => v !== golden[i])).toBe(-1);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('a pass that refuses the network: the error names the pass, the passes before it stay', () => {
    const deploy = fixtureDeploy('caffe/googlenet/deploy.prototxt');
    const r = compileNvdla(deploy, synthetic(deploy, 'zeros'), {});
    expect(r.reached).toBe('engine');
    expect(r.passes).toEqual([]);
    expect(r.bytes).toBeNull();
    const err = r.diagnostics.find((d) => d.severity === 'error')!;
    expect(err.stage).toBe('passes');
    expect(err.message).toMatch(/^registerBuffers: .*Couldn't narrow down to suitable SF/);
    expect(err.upstream).toBe('failed compilation phase: registerBuffers');
  });
});
