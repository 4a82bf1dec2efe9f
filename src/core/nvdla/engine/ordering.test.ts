import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES, fixtureDeploy, frontEnd, lenet, synthetic } from '../../../../test/support/nvdla/fixtures';
import { graphOrder } from './ordering';

describe('engine graph element order', () => {
  it('LeNet: the element order of the instrumented compiler dump (engine_g.json), ties included', () => {
    const { deploy, weights } = lenet();
    const g = frontEnd(deploy, weights).engine!.graph!;
    const o = graphOrder(g);
    expect(o.error).toBeNull();
    const name = (id: string) => g.nodes.find((n) => n.id === id)!.name;
    const dump = JSON.parse(readFileSync(join(FIXTURES, 'nvdla/lenet/engine_g.json'), 'utf8')) as { elements: { id: string }[] };
    expect(o.elems.map((e) => (e.kind === 'node' ? name(e.id) : e.id))).toEqual(dump.elements.map((e) => e.id));
  });

  it('reaches every node and edge of GoogLeNet (fan-out, concat)', () => {
    const deploy = fixtureDeploy('caffe/googlenet/deploy.prototxt');
    const g = frontEnd(deploy, synthetic(deploy, 'zeros'), { cprecision: 'fp16' }).engine!.graph!;
    const o = graphOrder(g);
    expect(o.error).toBeNull();
    expect([o.nodes.length, o.edges.length]).toEqual([g.nodes.length, g.edges.length]);
    // topological: every data edge's producer comes before its consumers
    const pos = new Map(o.nodes.map((id, i) => [id, i]));
    for (const e of g.edges) for (const s of e.sources) for (const t of e.targets) expect(pos.get(s)!).toBeLessThan(pos.get(t)!);
  });
});
