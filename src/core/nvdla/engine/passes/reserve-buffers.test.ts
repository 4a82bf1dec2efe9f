import { describe, expect, it } from 'vitest';
import { goldenCase } from '../../../../../test/support/nvdla/golden';
import { cloneEngineGraph } from '../graph';
import { passesThrough } from './pipeline';
import { reserveBuffersPass } from './reserve-buffers';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

describe('pass reserveBuffers', () => {
  it('bindable buffers hold every batch; stream tensors get no memory; sizes of the b64 golden tensor descs', () => {
    const c = goldenCase('lenet-b64-nv_full-int8-fast-math');
    const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
    const g = runPasses(graph, ctx, passesThrough('reserveBuffers')).at(-1)!;
    const bufferOf = (edge: string) => g.buffers.find((b) => b.id === g.surfaces.find((s) => s.edge === edge)!.buffer)!;
    expect(bufferOf(g.inputEdges[0]!).size).toBe(229376); // 64 x 3,584 (tensor desc of the golden)
    expect(bufferOf(g.outputEdges[0]!).size).toBe(2048); // 64 x 32
    const stream = g.surfaces.find((s) => s.category === 'STREAM')!;
    expect(g.buffers.find((b) => b.id === stream.buffer)!.location).toBe('STREAM');
  });

  it('sizes stale buffers anew: a buffer shrunk by hand grows back to its largest surface', () => {
    const c = goldenCase('lenet-b1-nv_full-int8-fast-math');
    const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
    const g = cloneEngineGraph(runPasses(graph, ctx, passesThrough('translateAuxData')).at(-1)!);
    const tb = g.buffers.find((b) => b.id === 'tb-5')!;
    const want = tb.size;
    tb.size = 0;
    const r = reserveBuffersPass.run(g, ctx);
    expect(r.graph.buffers.find((b) => b.id === 'tb-5')!.size).toBe(want);
    expect(r.changes.notes).toEqual([`tb-5: 0 -> ${want} bytes`]);
  });
});
