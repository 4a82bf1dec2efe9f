import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FIXTURES } from '../../../../../test/support/nvdla/fixtures';
import { CIFAR_GOLDENS, LENET_GOLDENS, goldenCase } from '../../../../../test/support/nvdla/golden';
import { passesThrough } from './pipeline';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';
import { netCase } from '../../../../../test/support/nvdla/nets';
import { compileNvdla } from '../../compile';

/** the pool entries of a golden: memory entries right after the dead page that are ALLOC or ALLOC|SET and hold aux blobs or nothing */
function goldenPools(name: string): { size: number; contents: Record<string, number> }[] {
  const text = readFileSync(join(FIXTURES, `nvdla/golden/${name}.summary.txt`), 'utf8');
  const rows = [...text.matchAll(/^ {2}mem id=(\d+) dom=\w+ flags=(\w+) size=(\d+) align=\d+ bind_id=\d+ tdesc=\d+ contents=\[(.*)\]$/gm)];
  const pools: { size: number; contents: Record<string, number> }[] = [];
  for (const r of rows.slice(1)) {
    const contents = Object.fromEntries([...r[4]!.matchAll(/\('([\w-]+)', (\d+)\)/g)].map((c) => [c[1]!, Number(c[2])]));
    const names = Object.keys(contents);
    const isPool = (r[2] === 'ALLOC' && names.length === 0) || (r[2] === '3' && names.length > 1) || (r[2] === '3' && names.length === 1 && names[0]!.startsWith('tb-') && contents[names[0]!] !== 0);
    if (!isPool || names.some((n) => n.startsWith('task-'))) break;
    pools.push({ size: Number(r[3]), contents });
  }
  return pools;
}

describe('pass resolveMemory', () => {
  for (const name of [...LENET_GOLDENS, ...CIFAR_GOLDENS]) {
    it(`${name}: pool sizes and where every weight, bias and scale blob sits, as the golden memory list`, () => {
      const c = goldenCase(name);
      const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
      const g = runPasses(graph, ctx, passesThrough('resolveMemory')).at(-1)!;
      const ours = g.pools.filter((p) => p.used > 0).map((p) => ({ size: Math.ceil(p.used / 4096) * 4096, contents: Object.fromEntries(p.contents.map((x) => [x.buffer, x.offset])) }));
      expect(ours).toEqual(goldenPools(name));
      if (name.includes('basic')) expect(ours).toEqual([]); // basic: every tensor in memory of its own
      else expect(ours.length).toBe(2);
    });
  }

  it('LeNet int8: local tensors are freed once their last reader ran and the space is reused (ip1 output at conv2 output offset)', () => {
    const c = goldenCase('lenet-b1-nv_full-int8-fast-math');
    const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
    const g = runPasses(graph, ctx, passesThrough('resolveMemory')).at(-1)!;
    const name = (id: string) => g.nodes.find((n) => n.id === id)!.name;
    const local = g.memoryEvents.filter((e) => e.pool === 'LOCAL_DRAM').map((e) => `${name(e.node)} ${e.action} ${e.buffer}@${e.offset}`);
    expect(local).toEqual([
      'bias-0 alloc tb-11@0',
      'pdp-0 alloc tb-12@32768',
      'dc-conv-1 free tb-11@0',
      'bias-1 alloc tb-14@40960',
      'pdp-1 free tb-12@32768',
      'pdp-1 alloc tb-15@45056',
      'fc-0 free tb-14@40960',
      'bias-2 alloc tb-19@40960',
      'fc-1 free tb-15@45056',
      'bias-3 alloc tb-21@45056', // the softmax input: EMU source at 45,056 in the golden
    ]);
  });

  it('GoogLeNet int8 nv_small: no op slot writes over a tensor a later slot still reads (upstream freed pool2\'s buffer while the split bands of inception_3a\'s reduce convolutions still read it)', () => {
    const c = netCase('googlenet-b1-nv_small-int8-fast-math');
    const r = compileNvdla(c.deploy, c.weights, c.options);
    const g = r.passes.at(-1)!.graph!;
    const edges = new Map(g.edges.map((e) => [e.id, e]));
    const surfaces = new Map(g.surfaces.map((s) => [s.id, s]));
    const buffers = new Map(g.buffers.map((b) => [b.id, b]));
    // where a data edge's surface sits: pool, [start, end), buffer
    const place = (edgeId: string) => {
      const s = surfaces.get(edges.get(edgeId)!.surface!)!;
      const pl = buffers.get(s.buffer!)!.placement[0]!;
      if (s.category === 'STREAM' || pl.pool === null) return null;
      return { surface: s.id, pool: pl.pool, start: pl.poolOffset + s.bufferOffset, end: pl.poolOffset + s.bufferOffset + s.size, buffer: s.buffer! };
    };
    const byId = new Map(g.nodes.map((n) => [n.id, n]));
    const slots = g.tasks.flatMap((t) => t.nodes.map((id) => byId.get(id)!)).filter((n) => n.taskId >= 0 && n.dependency[0]!.slot >= 0);
    const io = slots.map((n) => ({ name: n.name, reads: n.inputEdges.map(place).filter((x) => x !== null), writes: n.outputEdges.map(place).filter((x) => x !== null) }));
    const clobbered: string[] = [];
    io.forEach((w, i) => {
      for (const out of w.writes)
        for (let j = i + 1; j < io.length; j++)
          for (const rd of io[j]!.reads) {
            if (rd.buffer === out.buffer || rd.pool !== out.pool || !(rd.start < out.end && out.start < rd.end)) continue;
            // the read tensor was written before this write: this write destroys it
            if (io.slice(0, i).some((o) => o.writes.some((x) => x.buffer === rd.buffer))) clobbered.push(`${w.name} writes ${out.surface} over ${rd.surface}, read later by ${io[j]!.name}`);
          }
    });
    expect(slots.length).toBeGreaterThan(150);
    expect(clobbered).toEqual([]);
  });
});
