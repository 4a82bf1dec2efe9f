import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../../test/support/nvdla/fixtures';
import { CIFAR_GOLDENS, LENET_GOLDENS, goldenCase } from '../../../../../test/support/nvdla/golden';
import { EngineGraphEditor } from '../graph';
import { surfaceById } from '../surfaces';
import { passesThrough } from './pipeline';
import { entriesPerSlice, graphShape, pdpMaxFlyingWidth, sameShape, splitNodesPass } from './split-nodes';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

interface OpsJson {
  tasks: { ops?: { slot: number; common: { op_type_name: string }; op_desc: Record<string, number> }[] }[];
}

describe('pass splitNodes', () => {
  for (const name of [...LENET_GOLDENS, ...CIFAR_GOLDENS].filter((n) => !n.includes('-b64-'))) {
    it(`${name}: CBUF banks, entries per slice and pooling padding as the golden's op descriptors`, () => {
      const c = goldenCase(name);
      const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
      const g = runPasses(graph, ctx, passesThrough('splitNodes')).at(-1)!;
      const ed = new EngineGraphEditor(g);
      const ours: string[] = [];
      for (const n of g.nodes) {
        const p = n.params;
        if (p.kind === 'conv') ours.push(`CONV ${p.conv.allottedDataBanks}/${p.conv.allottedWeightBanks} eps ${entriesPerSlice(n, surfaceById(g, ed.edge(n.inputEdges[0]!).surface!), ctx)}`);
        if (p.kind === 'pdp') ours.push(`PDP pad ${p.bottomRightPadding.w}/${p.bottomRightPadding.h} split ${p.splitWidth?.numSplits ?? 1}`);
      }
      const ops = (JSON.parse(readFileSync(join(FIXTURES, `nvdla/golden/${name}.ops.json`), 'utf8')) as OpsJson).tasks[0]!.ops!;
      const golden = ops
        .filter((o) => o.common.op_type_name === 'CONV' || o.common.op_type_name === 'PDP')
        .map((o) => (o.common.op_type_name === 'CONV' ? `CONV ${o.op_desc.data_bank}/${o.op_desc.weight_bank} eps ${o.op_desc.entry_per_slice}` : `PDP pad ${o.op_desc.pad_right}/${o.op_desc.pad_bottom} split ${o.op_desc.split_num}`));
      expect(ours).toEqual(golden);
    });
  }

  it('nv_small int8 LeNet: ip1 weights (400,000 B) do not fit its 32 banks: ping-pong on two 2-bank kernel groups', () => {
    const c = goldenCase('lenet-b1-nv_small-int8-fast-math');
    const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
    const r = splitNodesPass.run(runPasses(graph, ctx, passesThrough('reserveBuffers')).at(-1)!, ctx);
    expect(r.changes.notes).toContain('fc-0: full input + weights in ping-pong (data 1 banks, weights 4 of 32)');
  });

  it('PDP line buffer: the widest output it pools on the fly', () => {
    expect(pdpMaxFlyingWidth('INT8', 2, 2, 32)).toBe(128); // 7 KiB x 8 / (1 line x 32 x 14 bits)
    expect(pdpMaxFlyingWidth('FP16', 3, 1, 32)).toBe(32); // 3 overlapping lines -> 4 RTL lines, 16 x 28 bits
    expect(pdpMaxFlyingWidth('INT8', 3, 2, 8)).toBe(256); // nv_small: 8 kernels per group
  });

  it('graphShape: unchanged by parameter edits, changed by a node or edge added or removed', () => {
    const c = goldenCase('lenet-b1-nv_full-int8-fast-math');
    const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
    const g = runPasses(graph, ctx, passesThrough('reserveBuffers')).at(-1)!;
    const ed = new EngineGraphEditor(g);
    let shape = graphShape(g);
    const conv = g.nodes.find((n) => n.params.kind === 'conv')!;
    if (conv.params.kind === 'conv') conv.params.conv.allottedDataBanks = 3;
    expect(sameShape(shape, g)).toBe(true);
    ed.addDataEdge(conv, null, null);
    expect(sameShape(shape, g)).toBe(false);
    shape = graphShape(g);
    ed.deleteNode(g.nodes.at(-1)!);
    expect(sameShape(shape, g)).toBe(false);
    shape = graphShape(g);
    // a node made and removed again: the lists are as long as before, but the node counter moved on
    ed.deleteNode(ed.addNode('x-', 'SDP_NOP', null, [], g.nodes[0]!.params));
    expect(g.nodes.length).toBe(shape.nodeCount);
    expect(sameShape(shape, g)).toBe(false);
  });
});
