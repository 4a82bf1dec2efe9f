/**
 * Value check of a partition (partitioner.md section 5.4): run the source model and the chained
 * parts on the same seeded random inputs with the reference interpreter, scheduling parts as
 * circle-part-driver does (a name -> tensor stage seeded with the source inputs; repeatedly run
 * the first part whose inputs are all present; finally read the source outputs from the stage),
 * and compare each source output (float32 tolerance 1e-5, integers exact).
 */
import type { CircleModel } from '../circle/model';
import { compareOutputs, randomInputs, run, type TensorValue } from '../interp';

export interface CheckPart {
  file: string;
  model: CircleModel;
  /** input and output names as the conn file lists them */
  inputs: string[];
  outputs: string[];
}

export interface OutputCheck {
  name: string;
  maxAbsDiff: number;
  tolerance: number;
  ok: boolean;
  problem?: string;
}

export interface PartitionCheck {
  ok: boolean;
  outputs: OutputCheck[];
  /** part files in the order they ran */
  order: string[];
  /** set when the parts could not be chained (a part never became runnable, a name is missing) */
  problem?: string;
}

/** Runs the parts as circle-part-driver does; returns the stage (name -> value). */
export function runParts(parts: readonly CheckPart[], inputs: ReadonlyMap<string, TensorValue>): { stage: Map<string, TensorValue>; order: string[]; problem?: string } {
  const stage = new Map(inputs);
  const done = new Array<boolean>(parts.length).fill(false);
  const order: string[] = [];
  for (let round = 0; round < parts.length; round++) {
    const i = parts.findIndex((p, k) => !done[k] && p.inputs.every((n) => stage.has(n)));
    if (i < 0) {
      const waiting = parts.filter((_, k) => !done[k]).map((p) => `${p.file} (needs ${p.inputs.filter((n) => !stage.has(n)).join(', ')})`);
      return { stage, order, problem: `parts never became runnable: ${waiting.join('; ')}` };
    }
    const part = parts[i]!;
    const named: Record<string, TensorValue> = {};
    for (const n of part.inputs) named[n] = stage.get(n)!;
    const outs = run(part.model, named);
    const sg = part.model.subgraphs[0]!;
    sg.outputs.forEach((t, k) => stage.set(sg.tensors[t]!.name, outs[k]!));
    done[i] = true;
    order.push(part.file);
  }
  return { stage, order };
}

export function checkPartition(source: CircleModel, parts: readonly CheckPart[], options: { seed?: number; floatTolerance?: number } = {}): PartitionCheck {
  const seed = options.seed ?? 1;
  const inputs = randomInputs(source, seed);
  const expected = run(source, inputs);
  const sg = source.subgraphs[0]!;
  const stageIn = new Map<string, TensorValue>();
  sg.inputs.forEach((t, k) => stageIn.set(sg.tensors[t]!.name, inputs[k]!));
  const { stage, order, problem } = runParts(parts, stageIn);
  const names = sg.outputs.map((t) => sg.tensors[t]!.name);
  const got = names.map((n) => stage.get(n));
  const outputs: OutputCheck[] = names.map((name, k) => {
    const value = got[k];
    if (!value) return { name, maxAbsDiff: Infinity, tolerance: 0, ok: false, problem: `no part produced ${name}` };
    const r = compareOutputs([expected[k]!], [value], { floatTolerance: options.floatTolerance ?? 1e-5 }).outputs[0]!;
    return { name, maxAbsDiff: r.maxAbsDiff, tolerance: r.tolerance, ok: r.ok, ...(r.problem ? { problem: r.problem } : {}) };
  });
  return { ok: !problem && outputs.every((o) => o.ok), outputs, order, ...(problem ? { problem } : {}) };
}
