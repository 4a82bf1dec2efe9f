import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { read } from '../circle/read';
import { partition } from './algorithm';
import { checkPartition } from './check';
import { writePartition } from './output';
import { preparePartition } from './prepare';
import { parsePart } from './table';
import { layeredModel, synthModel, type SynthArg, type SynthOp } from './testing';

const CODES = [BuiltinOperator.ADD, BuiltinOperator.MUL, BuiltinOperator.SUB, BuiltinOperator.MAXIMUM];
const BACKENDS = ['cpu', 'npu', 'dsp'];

/** A random DAG of element-wise operators and a random backend per operator (by node name). */
const arbCase = fc
  .record({
    inputs: fc.integer({ min: 1, max: 3 }),
    n: fc.integer({ min: 1, max: 24 }),
    seeds: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat()), { minLength: 24, maxLength: 24 }),
    defaultBackend: fc.constantFrom(...BACKENDS),
  })
  .map(({ inputs, n, seeds, defaultBackend }) => {
    const ops: SynthOp[] = [];
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const [a, b, c, d] = seeds[i]!;
      const arg = (r: number): SynthArg => {
        const k = r % (inputs + i + 1);
        if (k < inputs) return { input: k };
        if (k === inputs + i) return { const: 0.25 };
        return { op: k - inputs };
      };
      ops.push({ code: CODES[a % CODES.length]!, args: [arg(b), arg(c)] });
      if (d % 4 !== 0) lines.push(`op${i}=${BACKENDS[d % BACKENDS.length]}`);
    }
    const text = `[partition]\nbackends=${BACKENDS.join(',')}\ndefault=${defaultBackend}\ncomply=opname\n[OPNAME]\n${lines.join('\n')}\n`;
    return { model: synthModel({ inputs, ops }), text };
  });

/**
 * The same with multi-output operators (SPLIT, 1 to 3 outputs, any output read): structure only,
 * the shapes are not SPLIT's, so these models are partitioned but not run.
 */
const arbMultiCase = fc
  .record({
    inputs: fc.integer({ min: 1, max: 3 }),
    n: fc.integer({ min: 1, max: 24 }),
    seeds: fc.array(fc.tuple(fc.nat(), fc.nat(), fc.nat(), fc.nat(), fc.nat()), { minLength: 24, maxLength: 24 }),
    defaultBackend: fc.constantFrom(...BACKENDS),
  })
  .map(({ inputs, n, seeds, defaultBackend }) => {
    const ops: SynthOp[] = [];
    const lines: string[] = [];
    for (let i = 0; i < n; i++) {
      const [a, b, c, d, e] = seeds[i]!;
      const arg = (r: number): SynthArg => {
        const k = r % (inputs + i + 1);
        if (k < inputs) return { input: k };
        if (k === inputs + i) return { const: 0.25 };
        const op = k - inputs;
        return { op, output: (r >>> 8) % (ops[op]!.outputs ?? 1) };
      };
      const split = e % 3 === 0;
      ops.push(split ? { code: BuiltinOperator.SPLIT, args: [arg(b)], outputs: 1 + ((e >>> 2) % 3) } : { code: CODES[a % CODES.length]!, args: [arg(b), arg(c)] });
      if (d % 4 !== 0) lines.push(`op${i}=${BACKENDS[d % BACKENDS.length]}`);
    }
    const text = `[partition]\nbackends=${BACKENDS.join(',')}\ndefault=${defaultBackend}\ncomply=opname\n[OPNAME]\n${lines.join('\n')}\n`;
    return { model: synthModel({ inputs, ops }), text };
  });

describe('partition properties (fast-check)', () => {
  it('every operator lands in exactly one part, on its own backend', () => {
    fc.assert(
      fc.property(fc.oneof(arbCase, arbMultiCase), ({ model, text }) => {
        const prepared = preparePartition(model, 'm.circle');
        const table = parsePart(text, 'm.part', { model: prepared }).table!;
        const plan = partition(prepared, table);
        const count = new Array<number>(prepared.opCount).fill(0);
        for (const p of plan.parts) {
          for (const op of p.operators) {
            count[op]!++;
            expect(plan.operatorBackend[op]).toBe(p.backend);
            expect(plan.operatorPart[op]).toBe(p.index);
          }
        }
        // operators in no part or in several, with their counts
        expect([...count.entries()].filter(([, c]) => c !== 1)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('every part input is a source input or an output of an earlier part', () => {
    fc.assert(
      fc.property(fc.oneof(arbCase, arbMultiCase), ({ model, text }) => {
        const prepared = preparePartition(model, 'm.circle');
        const plan = partition(prepared, parsePart(text, 'm.part', { model: prepared }).table!);
        // only a part's first operator reads other parts (later members read inside the part), so
        // in a topologically ordered file every producer part is numbered earlier
        const available = new Set(plan.sourceInputs);
        for (const p of plan.parts) {
          for (const n of p.inputs) expect(available.has(n), `${p.fileName} reads ${n}`).toBe(true);
          for (const o of p.outputs) available.add(o);
        }
        for (const o of plan.sourceOutputs) expect(available.has(o)).toBe(true);
      }),
      { numRuns: 200 },
    );
  });

  it('chaining the parts reproduces the source outputs', () => {
    fc.assert(
      fc.property(arbCase, fc.integer({ min: 1, max: 1000 }), ({ model, text }, seed) => {
        const prepared = preparePartition(model, 'm.circle');
        const plan = partition(prepared, parsePart(text, 'm.part', { model: prepared }).table!);
        const files = writePartition(prepared, plan).files;
        const parts = plan.parts.map((p) => ({ file: p.fileName, inputs: p.inputs, outputs: p.outputs, model: read(files[p.index]!.bytes, p.fileName) }));
        const result = checkPartition(model, parts, { seed });
        expect(result.problem).toBeUndefined();
        expect(result.ok).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('the fast merge equals a literal transcription of merge_pgroups on random graphs', () => {
    fc.assert(
      fc.property(fc.oneof(arbCase, arbMultiCase), ({ model, text }) => {
        const prepared = preparePartition(model, 'm.circle');
        const table = parsePart(text, 'm.part', { model: prepared }).table!;
        const plan = partition(prepared, table);
        const naive = naivePartition(prepared, table.defaultBackend, plan.operatorBackend);
        expect(plan.parts.map((p) => [p.operators, p.inputTensors, p.outputTensors])).toEqual(naive);
      }),
      { numRuns: 300 },
    );
  });

  it('large layered models partition (10,000 operators)', () => {
    const model = layeredModel(10_000);
    const prepared = preparePartition(model, 'big.circle');
    const table = parsePart('[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMUL=npu\nTANH=npu\n', 'b.part').table!;
    const plan = partition(prepared, table);
    expect(plan.parts.reduce((a, p) => a + p.operators.length, 0)).toBe(10_000);
  });
});

/**
 * PartitionMerge.cpp + PartitionCleanup.cpp transcribed literally (O(n^3)): scan, merge, restart.
 * Tensors stand for nodes; constants are left out of inputs (the cleanup removes them anyway).
 */
function naivePartition(prepared: ReturnType<typeof preparePartition>, defaultBackend: string, backend: string[]): [number[], number[], number[]][] {
  interface G {
    id: number;
    group: string;
    pnodes: number[]; // operators
    inputs: number[];
    outputs: number[];
  }
  const pgroups: G[] = [];
  const pgroupOfOp = new Map<number, G>();
  for (let i = 0; i < prepared.opCount; i++) {
    const inputs: number[] = [];
    for (let k = prepared.inStart[i]!; k < prepared.inStart[i + 1]!; k++) inputs.push(prepared.inTensors[k]!);
    const outputs: number[] = [];
    for (let k = prepared.outStart[i]!; k < prepared.outStart[i + 1]!; k++) outputs.push(prepared.outTensors[k]!);
    const g: G = { id: i, group: backend[i]!, pnodes: [i], inputs, outputs };
    pgroups.push(g);
    pgroupOfOp.set(i, g);
  }
  // node2group: a graph input and every *Out node of a multi-output op are the default group
  // (produce_pgroups visits the Out nodes after their op and records them as virtual nodes)
  const groupOf = (t: number) => {
    const p = prepared.producer[t]!;
    return p >= 0 && !prepared.multiOutput[p] ? backend[p]! : defaultBackend;
  };
  const pgroupOf = (t: number) => (prepared.producer[t]! >= 0 ? pgroupOfOp.get(prepared.producer[t]!)! : null);
  const isInputOf = (a: G, b: G) => a.outputs.some((o) => b.inputs.includes(o));
  const isInputSame = (p: G) => {
    let group: string | null = null;
    let pg: G | null = null;
    for (const t of p.inputs) {
      const g = groupOf(t);
      if (group === null) group = g;
      else if (group !== g) return false;
      const q = pgroupOf(t);
      if (q) {
        if (!pg) pg = q;
        else if (pg !== q) return false;
      }
    }
    return true;
  };
  let changed = true;
  while (changed) {
    changed = false;
    outer: for (const gi of pgroups) {
      for (let k = 0; k < pgroups.length; k++) {
        const p = pgroups[k]!;
        if (p.id === gi.id || p.group !== gi.group || !isInputOf(gi, p) || !isInputSame(p)) continue;
        for (const op of p.pnodes) {
          gi.pnodes.push(op);
          pgroupOfOp.set(op, gi);
        }
        for (const t of p.inputs) {
          const inside = prepared.producer[t]! >= 0 && gi.pnodes.includes(prepared.producer[t]!);
          if (!inside && !gi.inputs.includes(t)) gi.inputs.push(t);
        }
        for (const t of p.outputs) if (!gi.outputs.includes(t)) gi.outputs.push(t);
        pgroups.splice(k, 1);
        changed = true;
        break outer;
      }
    }
  }
  const used = new Set<number>(prepared.graphOutputs.filter((t) => prepared.producer[t]! >= 0));
  for (const g of pgroups) {
    g.inputs = g.inputs.filter((t) => !(prepared.producer[t]! >= 0 && g.pnodes.includes(prepared.producer[t]!)));
    for (const t of g.inputs) used.add(t);
  }
  return pgroups.map((g) => [g.pnodes.slice().sort((a, b) => a - b), g.inputs, g.outputs.filter((t) => used.has(t))]);
}
