import { describe, expect, it } from 'vitest';
import { CIFAR_GOLDENS, LENET_GOLDENS, goldenCase, goldenSlots } from '../../../../../test/support/nvdla/golden';
import { ENGINE_TYPES } from '../model';
import { dependencyCount } from './generate-dependency-params';
import { passesThrough } from './pipeline';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

const EVENT = { OP_COMPLETED: 1, OP_PROGRAMMED: 2, OP_ENABLED: 3, OP_CDMA_WEIGHT_DONE: 4, OP_CDMA_DATA_DONE: 5 } as const;
const FW_TYPES = ['BDMA', 'CONVOLUTION', 'SDP', 'PDP', 'CDP', 'RUBIK'];
const FW_NAME: Record<string, string> = { BDMA: 'BDMA', CONVOLUTION: 'CONV', SDP: 'SDP', PDP: 'PDP', CDP: 'CDP', RUBIK: 'RUBIK' };

/** the op slots as the golden summaries print them: type, dependency count, consumers, fused parent */
function slotsOf(name: string) {
  const c = goldenCase(name);
  const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
  const g = runPasses(graph, ctx, passesThrough('generateDependencyParams')).at(-1)!;
  const dla = g.tasks.find((t) => t.kind === 'DLA')!;
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  const rows: { slot: number; type: string; deps: number; consumers: [string, number, number][]; fused: number }[] = [];
  for (const id of dla.nodes) {
    const n = byId.get(id)!;
    n.dependency.forEach((d) => {
      const consumers: [string, number, number][] = [];
      for (const t of FW_TYPES) {
        const l = d.consumers[ENGINE_TYPES.indexOf(t as never)]!;
        if (l.slot !== -1) consumers.push([FW_NAME[t]!, l.slot, EVENT[l.event]]);
      }
      rows.push({ slot: d.slot, type: FW_NAME[n.engineType]!, deps: dependencyCount(d), consumers, fused: d.fusedInput ? byId.get(d.fusedInput)!.dependency[n.dependency.indexOf(d)]!.slot : -1 });
    });
  }
  return rows.sort((a, b) => a.slot - b.slot);
}

describe('pass generateDependencyParams', () => {
  for (const name of [...LENET_GOLDENS, ...CIFAR_GOLDENS]) {
    it(`${name}: op slots, dependency counts, consumers with their events and fused parents as the golden`, () => {
      const ours = slotsOf(name);
      const golden = goldenSlots(name);
      expect(golden.length).toBeGreaterThanOrEqual(10);
      expect(ours.length).toBe(golden.length);
      const bad = ours.filter((r, i) => JSON.stringify(r) !== JSON.stringify(golden[i]));
      expect(bad.slice(0, 3).map((r) => ({ ours: r, golden: golden[r.slot] }))).toEqual([]);
    });
  }
});
