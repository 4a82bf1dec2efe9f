import { describe, expect, it } from 'vitest';
import { fixtureDeploy, lenet, synthetic } from '../../../../../test/support/nvdla/fixtures';
import { registerBuffersPass } from './register-buffers';
import { engineFor } from '../../../../../test/support/nvdla/passes';

describe('pass registerBuffers', () => {
  const { deploy, weights } = lenet();

  it('LeNet int8: one surface and buffer per data edge, numbered in graph order, sizes as the golden loadable', () => {
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1 });
    const g = registerBuffersPass.run(graph, ctx).graph;
    expect(graph.surfaces).toEqual([]); // the input graph is untouched
    const row = (edge: string) => {
      const s = g.surfaces.find((x) => x.edge === edge)!;
      return `${s.id}/${s.buffer} ${s.format.replace('NVDLA_', '')} ${s.lineStride}/${s.surfaceStride}/${s.size}`;
    };
    // tb numbering: conv1 weights tb-0, input tb-1, bias tb-2, conv2 weights tb-3 ... as the blob names of the goldens
    expect(row('e-9')).toBe('tsd-0/tb-0 WEIGHT_DC_INT8 0/0/512');
    expect(row('e-0')).toBe('tsd-1/tb-1 IMG_A8B8G8R8 128/0/3584'); // 28 x 4 bytes -> 128, x 28 lines
    expect(row('e-10')).toBe('tsd-2/tb-2 BIAS_DATA_INT16 64/64/40');
    expect(row('e-12')).toBe('tsd-3/tb-3 WEIGHT_DC_INT8 0/0/25088'); // 25,000 rounded to the 128-byte CBUF entry
    expect(row('e-15')).toBe('tsd-5/tb-5 WEIGHT_DC_INT8 0/0/400000');
    expect(row('e-8')).toBe('tsd-22/tb-22 FEATURE_DATA_INT8 32/32/32'); // the output: 10 channels in one 32-channel group
    expect(g.surfaces.find((s) => s.edge === 'e-11')!.category).toBe('STREAM');
  });

  it('fp16 and nv_small change formats, strides and sizes', () => {
    const fp16 = registerBuffersPass.run(engineFor(deploy, weights, { batch: 1, cprecision: 'fp16' }).graph, engineFor(deploy, weights, { batch: 1, cprecision: 'fp16' }).ctx).graph;
    const input = fp16.surfaces.find((s) => s.edge === 'e-0')!;
    expect([input.format, input.lineStride, input.size]).toEqual(['NVDLA_IMG_A16B16G16R16_F', 224, 6272]);
    const small = engineFor(deploy, weights, { batch: 1, configtarget: 'nv_small' });
    const out = registerBuffersPass.run(small.graph, small.ctx).graph.surfaces.find((s) => s.edge === 'e-8')!;
    expect([out.lineStride, out.size]).toEqual([8, 16]); // the 16-byte output of the nv_small golden
  });

  it('LRN in INT8: the CDP reads and writes INT8 feature data (upstream has only FP16 there and fails "Couldn\'t narrow down to suitable SF")', () => {
    const d = fixtureDeploy('caffe/googlenet/deploy.prototxt');
    for (const configtarget of ['nv_small', 'nv_full'] as const) {
      const { graph, ctx } = engineFor(d, synthetic(d, 'zeros'), { configtarget });
      const g = registerBuffersPass.run(graph, ctx).graph;
      const lrns = g.nodes.filter((n) => n.engineOpType === 'CDP_LRN');
      expect(lrns.length).toBe(2);
      const formats = lrns.flatMap((n) => [...n.inputEdges, ...n.outputEdges].map((e) => g.surfaces.find((s) => s.edge === e)!.format));
      expect(formats).toEqual(new Array(4).fill('NVDLA_FEATURE_DATA_INT8'));
    }
  });
});
