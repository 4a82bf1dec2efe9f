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

  it('the bias visited last before an element-wise sum is the one upstream fuses with it: one super op, X1 the bias with its data, X2 the sum reading the other branch', () => {
    const deploy = readDeploy(RESIDUAL, 'residual.prototxt');
    const { graph, ctx } = engineFor(deploy, synthetic(deploy), { cprecision: 'fp16' });
    const g = runPasses(graph, ctx, passesThrough('splitNodes')).at(-1)!;
    const r = fuseSubEngineOpsPass.run(g, ctx);
    const names = (gr: typeof g) => gr.nodes.map((n) => n.name);
    expect(names(g)).toEqual(expect.arrayContaining(['bias-0', 'bias-1', 'ew-0']));
    expect(r.changes.notes[0]).toBe('bias-1 (X1) and ew-0 (X2) fused into sdp-super-0');
    const after = names(r.graph);
    expect(after).not.toContain('bias-1');
    expect(after).not.toContain('ew-0');
    const sup = r.graph.nodes.find((n) => n.name === 'sdp-super-0')!;
    expect(sup.params.kind).toBe('sdp-super');
    const sp = sup.params;
    if (sp.kind !== 'sdp-super') return;
    expect([sp.sdp.x1.opType, sp.sdp.x2.opType, sp.sdp.x2.mode]).toEqual(['ADD', 'ADD', 'PER_ELEMENT']);
    expect([sp.sub.x1?.auxType, sp.sub.x2?.auxType]).toEqual(['BIAS', 'IO']);
    // X2 reads the other branch's output (bias-0's), the input is the convolution's stream
    const edge = (id: string | null) => r.graph.edges.find((e) => e.id === id)!;
    const bias0 = r.graph.nodes.find((n) => n.name === 'bias-0')!;
    expect(edge(sp.auxEdgeOf.x2).sources).toEqual([bias0.id]);
    const conv = r.graph.nodes.find((n) => n.id === edge(sp.inputEdge).sources[0])!;
    expect([conv.engineType, conv.fusedOutput, sup.fusedInput]).toEqual(['CONVOLUTION', sup.id, conv.id]);
    expect(sup.inputEdges).toEqual([sp.inputEdge]);
    expect(new Set(sup.auxEdges)).toEqual(new Set([sp.auxEdgeOf.x1, sp.auxEdgeOf.x2]));
    // the basic profile compiles the same net without the fusion
    const basic = engineFor(deploy, synthetic(deploy), { cprecision: 'fp16', profile: 'basic' });
    expect(() => runPasses(basic.graph, basic.ctx, passesThrough('generateDependencyParams'))).not.toThrow();
  });
});
