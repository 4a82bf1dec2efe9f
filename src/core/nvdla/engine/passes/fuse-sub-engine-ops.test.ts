import { describe, expect, it } from 'vitest';
import { readDeploy } from '../../network/caffe-files';
import { lenet, synthetic } from '../../../../../test/support/nvdla/fixtures';
import { fuseSubEngineOpsPass } from './fuse-sub-engine-ops';
import { passesThrough } from './pipeline';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

const RESIDUAL = `
name: "residual"
layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 8 dim: 8 } } }
layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: 8 kernel_size: 1 } }
layer { name: "b" type: "Convolution" bottom: "data" top: "b" convolution_param { num_output: 8 kernel_size: 1 } }
layer { name: "sum" type: "Eltwise" bottom: "a" bottom: "b" top: "sum" eltwise_param { operation: SUM } }
`;

describe('pass fuseSubEngineOps', () => {
  it('LeNet has no SDP feeding another SDP: nothing to fuse; basic profiles never fuse', () => {
    const { deploy, weights } = lenet();
    const { graph, ctx } = engineFor(deploy, weights, {});
    const g = runPasses(graph, ctx, passesThrough('splitNodes')).at(-1)!;
    const r = fuseSubEngineOpsPass.run(g, ctx);
    expect(r.changes.notes).toEqual(['no SDP pair to fuse']);
    expect(r.graph.nodes.map((n) => n.id)).toEqual(g.nodes.map((n) => n.id));
    const basic = engineFor(deploy, weights, { profile: 'basic' });
    expect(fuseSubEngineOpsPass.run(runPasses(basic.graph, basic.ctx, passesThrough('splitNodes')).at(-1)!, basic.ctx).changes.notes).toEqual(['off in this profile']);
  });

  it('the bias visited last before an element-wise sum is the one upstream fuses with it (X1 bias, X2 sum): reported as not implemented', () => {
    const deploy = readDeploy(RESIDUAL, 'residual.prototxt');
    const { graph, ctx } = engineFor(deploy, synthetic(deploy), { cprecision: 'fp16' });
    const g = runPasses(graph, ctx, passesThrough('splitNodes')).at(-1)!;
    expect(() => fuseSubEngineOpsPass.run(g, ctx)).toThrow(/bias-1 and ew-0: nvdla_compiler fuses them into one SDP super op/);
    // the basic profile compiles the same net without the fusion
    const basic = engineFor(deploy, synthetic(deploy), { cprecision: 'fp16', profile: 'basic' });
    expect(() => runPasses(basic.graph, basic.ctx, passesThrough('generateDependencyParams'))).not.toThrow();
  });
});
