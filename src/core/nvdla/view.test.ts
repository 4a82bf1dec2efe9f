import { describe, expect, it } from 'vitest';
import { frontEnd, lenet } from '../../../test/support/nvdla/fixtures';
import { compileNvdla } from './compile';
import { canonicalGraphView, canonicalViewStats, engineGraphView, engineViewStats } from './view';

describe('NVDLA stages as drawable graphs', () => {
  const { deploy, weights } = lenet();
  const r = frontEnd(deploy, weights);

  it('canonical: input marker, one node per layer, output marker, data edges', () => {
    const v = canonicalGraphView(r.canonical!);
    expect(v.graph.nodes.map((n) => n.id)).toEqual(['in:0', 'n-0', 'n-1', 'n-2', 'n-3', 'n-4', 'n-5', 'n-6', 'n-7', 'out:0']);
    expect(v.graph.stats).toEqual({ nodes: 8, edges: 9 });
    expect(v.edgeKinds.every((k) => k === 'data')).toBe(true);
    const conv = v.graph.nodes[1]!;
    expect(conv.attributes.find((a) => a.name === 'weightDims')!.value).toBe('20x1x5x5');
    expect(v.origins[1]).toEqual([1]);
  });

  it('engine: aux tensors as constants on aux edges, NVDLA names, origins per node', () => {
    const v = engineGraphView(r.engine!.graph!);
    const ops = v.graph.nodes.filter((n) => n.kind === 'op');
    expect(ops.map((n) => n.name)).toEqual(['dc-conv-0', 'bias-0', 'pdp-0', 'dc-conv-1', 'bias-1', 'pdp-1', 'fc-0', 'bias-2', 'sdp-scale-0', 'act-0', 'fc-1', 'bias-3', 'cpu-sm-0']);
    expect(v.graph.nodes.filter((n) => n.kind === 'const')).toHaveLength(9);
    expect(v.edgeKinds.filter((k) => k === 'aux')).toHaveLength(9);
    expect(v.edgeKinds.filter((k) => k === 'data')).toHaveLength(14);
    // every edge joins two existing nodes
    for (const e of v.graph.edges) expect(e.from !== e.to && v.graph.nodes[e.from] && v.graph.nodes[e.to]).toBeTruthy();
    const act = v.graph.nodes.findIndex((n) => n.name === 'act-0');
    expect(v.origins[act]).toEqual([6]);
  });

  it('the counts of a stage graph without building it: the same as the built graph, for every stage, batch 1 and 2, int8 and fp16', () => {
    const wrong: string[] = [];
    for (const options of [{}, { cprecision: 'fp16' as const, batch: 2 }, { profile: 'basic' }]) {
      const c = compileNvdla(deploy, weights, options);
      const can = canonicalGraphView(c.canonical!).graph.stats;
      if (JSON.stringify(canonicalViewStats(c.canonical!)) !== JSON.stringify(can)) wrong.push(`${JSON.stringify(options)} canonical`);
      for (const [name, g] of [['generateGraph', c.engine!] as const, ...c.passes.map((p) => [p.name, p.graph] as const)]) {
        const built = engineGraphView(g).graph.stats;
        const counted = engineViewStats(g);
        if (JSON.stringify(counted) !== JSON.stringify(built)) wrong.push(`${JSON.stringify(options)} ${name}: counted ${JSON.stringify(counted)}, built ${JSON.stringify(built)}`);
      }
      expect(c.passes).toHaveLength(15);
    }
    expect(wrong).toEqual([]);
  });
});
