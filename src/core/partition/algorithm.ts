/**
 * The partitioning algorithm of luci (partitioner.md section 3): grouping, iterative merge,
 * cleanup, numbering. Produces a `PartitionPlan` (plain data); `modules.ts` turns it into models.
 *
 * Grouping (`produce_pgroups`): one PGroup per operator (constants and virtual nodes are never
 * grouped), its inputs the operator's arguments, its outputs the operator (or its `*Out` nodes).
 *
 * Merging (`merge_pgroups`) repeats, until nothing merges: take the first PGroup `G` in vector
 * order that has a candidate `P` (first in vector order) with the same backend, an input produced
 * in `G`, and `is_input_same(P)`: every non-constant input of `P` has the same `group_of` and every
 * input that belongs to a PGroup belongs to the same one. Merge `P` into `G` (pnodes, new inputs,
 * new outputs appended in order) and restart. `group_of` is luci's `node2group`, in which graph
 * inputs and the `*Out` nodes of multi-output operators (Split, Unpack, If, While, ...) are the
 * default group whatever their operator's backend (see `inputGroup`): so an operator of backend B
 * that reads a Split output of B and a graph input merges into the Split's PGroup even when B is
 * not the default, and one that reads a Split output and a plain output of the same PGroup does
 * not.
 *
 * Fast and exact: a candidate's inputs all come from one PGroup, so each candidate `P` has exactly
 * one possible partner, its single producer PGroup `G`; merging contracts the edge `G -> P` and
 * keeps the PGroup graph acyclic. Upstream's "first `G`, then first `P`" is therefore the minimum
 * of `(position(G), position(P))` over all current candidates, which a heap yields; a merge can
 * only make consumers of the merged PGroup new candidates (their producer set shrinks), so only
 * those are re-examined. Positions are operator indices (luci creates operator nodes in file
 * order, after inputs and constants).
 */
import type { PartitionTable } from './table';
import { backendOfOperator } from './table';
import { tensorName, tensorNames, type PreparedModel } from './prepare';

export interface PartPlan {
  /** 0-based position in output order */
  index: number;
  /** `00001`, `00002`, ... */
  number: string;
  /** `NAME.00001_cpu.circle` (make_path) */
  fileName: string;
  backend: string;
  /** source operator indices (subgraph 0), ascending */
  operators: number[];
  /** part input tensor names in PGroup input order (what `.conn.json` lists) */
  inputs: string[];
  /** part output tensor names in PGroup output order */
  outputs: string[];
  /** the same as source tensor indices */
  inputTensors: number[];
  outputTensors: number[];
}

export interface PartitionPlan {
  sourceFile: string;
  backends: string[];
  defaultBackend: string;
  /** source graph input and output tensor names (conn `source`) */
  sourceInputs: string[];
  sourceOutputs: string[];
  parts: PartPlan[];
  /** per source operator: its backend */
  operatorBackend: string[];
  /** per source operator: index of the part it lands in */
  operatorPart: Int32Array;
  /** notes about the result, e.g. a part left without outputs */
  warnings: string[];
}

/** `Net.circle` -> `Net.00002_acl_cl.circle` (circle-partitioner `make_path`). */
export function partFileName(sourceFile: string, number: number, backend: string): string {
  const { stem, ext } = splitFileName(sourceFile);
  return `${stem}.${String(number).padStart(5, '0')}_${backend}${ext}`;
}

/** File name without folder, split before its last extension: `a/b.c.circle` -> `b.c`, `.circle`. */
function splitFileName(file: string): { stem: string; ext: string } {
  const slash = Math.max(file.lastIndexOf('/'), file.lastIndexOf('\\'));
  const base = file.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return dot <= 0 ? { stem: base, ext: '' } : { stem: base.slice(0, dot), ext: base.slice(dot) };
}

/** `Net.circle` -> `Net.conn.json` / `Net.conn.ini`. */
export function connFileName(sourceFile: string, ext: 'json' | 'ini'): string {
  const slash = Math.max(sourceFile.lastIndexOf('/'), sourceFile.lastIndexOf('\\'));
  const base = sourceFile.slice(slash + 1);
  const dot = base.lastIndexOf('.');
  return `${dot <= 0 ? base : base.slice(0, dot)}.conn.${ext}`;
}

/** Binary min-heap of numbers. */
class NumberHeap {
  private a: number[] = [];
  get size() {
    return this.a.length;
  }
  push(v: number) {
    const a = this.a;
    let i = a.length;
    a.push(v);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]! <= v) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = v;
  }
  pop(): number {
    const a = this.a;
    const top = a[0]!;
    const last = a.pop()!;
    if (a.length > 0) {
      let i = 0;
      const n = a.length;
      for (;;) {
        const l = 2 * i + 1;
        if (l >= n) break;
        const r = l + 1;
        const c = r < n && a[r]! < a[l]! ? r : l;
        if (a[c]! >= last) break;
        a[i] = a[c]!;
        i = c;
      }
      a[i] = last;
    }
    return top;
  }
}

/** A merged PGroup; singleton PGroups are read straight from the prepared CSR arrays. */
interface Group {
  ops: number[];
  inputs: number[];
  outputs: number[];
  /** operators reading an output of this group (may repeat; resolved through find) */
  consumers: number[];
}

export function partition(prepared: PreparedModel, table: PartitionTable): PartitionPlan {
  const n = prepared.opCount;
  const { inStart, inTensors, outStart, outTensors, consStart, consOps, producer, multiOutput } = prepared;

  // backends as small integers
  const backendIds = new Map<string, number>();
  const backendNames: string[] = [];
  const idOf = (b: string) => {
    let id = backendIds.get(b);
    if (id === undefined) {
      id = backendNames.length;
      backendIds.set(b, id);
      backendNames.push(b);
    }
    return id;
  };
  const defaultId = idOf(table.defaultBackend);
  const backendOf = new Int32Array(n);
  const operatorBackend: string[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const b = backendOfOperator(prepared, table, i);
    operatorBackend[i] = b;
    backendOf[i] = idOf(b);
  }

  // produce_pgroups: one group per operator (materialised on its first merge)
  const parent = new Int32Array(n);
  for (let i = 0; i < n; i++) parent[i] = i;
  const merged: (Group | undefined)[] = new Array(n);
  const slice = (arr: Int32Array, start: Int32Array, i: number): number[] => {
    const out: number[] = [];
    for (let k = start[i]!; k < start[i + 1]!; k++) out.push(arr[k]!);
    return out;
  };
  const materialise = (i: number): Group => {
    let g = merged[i];
    if (!g) merged[i] = g = { ops: [i], inputs: slice(inTensors, inStart, i), outputs: slice(outTensors, outStart, i), consumers: slice(consOps, consStart, i) };
    return g;
  };
  const find = (x: number): number => {
    let r = x;
    while (parent[r] !== r) r = parent[r]!;
    while (parent[x] !== r) {
      const nx = parent[x]!;
      parent[x] = r;
      x = nx;
    }
    return r;
  };

  /**
   * `group_of` of an input tensor in `is_input_same`: luci's `node2group`. A graph input
   * (`CircleInput`) is recorded as the default group. So is every output of a multi-output
   * operator: its `*Out` node gets the operator's group in `append()`, but luci's importer creates
   * the `*Out` nodes right after the operator, so `produce_pgroups` visits them later and, as
   * virtual nodes, records them as the default group, overwriting it. Any other operator output
   * has its operator's group.
   */
  const inputGroup = (t: number): number => {
    const prod = producer[t]!;
    return prod < 0 || multiOutput[prod] ? defaultId : backendOf[prod]!;
  };

  /** The merge partner of group `p` (its single producer group), or -1 when it is no candidate. */
  const partnerOf = (p: number): number => {
    let pred = -1;
    let group = -1;
    const g = merged[p];
    const count = g ? g.inputs.length : inStart[p + 1]! - inStart[p]!;
    for (let k = 0; k < count; k++) {
      const t = g ? g.inputs[k]! : inTensors[inStart[p]! + k]!;
      // is_input_same, first rule: every (non-constant) input has the same group_of
      const ig = inputGroup(t);
      if (group === -1) group = ig;
      else if (group !== ig) return -1;
      // second rule: every input that is in a PGroup is in the same one (graph inputs are in none)
      const prod = producer[t]!;
      if (prod < 0) continue;
      const r = find(prod);
      if (pred === -1) pred = r;
      else if (pred !== r) return -1;
    }
    // is_input_of: some input comes from the partner; and both have the same backend
    if (pred === -1 || pred === p) return -1;
    if (backendOf[pred] !== backendOf[p]) return -1;
    return pred;
  };

  const N = n + 1;
  const heap = new NumberHeap();
  for (let p = 0; p < n; p++) {
    const g = partnerOf(p);
    if (g >= 0) heap.push(g * N + p);
  }
  while (heap.size > 0) {
    const key = heap.pop();
    const p = key % N;
    const gWas = (key - p) / N;
    if (parent[p] !== p) continue; // already merged away
    const g = partnerOf(p);
    if (g < 0) continue;
    if (g !== gWas) {
      heap.push(g * N + p);
      continue;
    }
    // merge_into(P, G): pnodes, inputs not yet pnodes or inputs of G, outputs (always new: every
    // output node belongs to exactly one operator)
    const G = materialise(g);
    // P's lists: its group's arrays once merged, else straight from the CSR arrays (a singleton
    // P is not materialised only to be merged away); index loops, as this runs mostly before
    // the code is optimised, where for-of allocates a result per step
    const P = merged[p];
    const pIn: ArrayLike<number> = P ? P.inputs : inTensors;
    const pInFrom = P ? 0 : inStart[p]!;
    const pInTo = P ? P.inputs.length : inStart[p + 1]!;
    const pOut: ArrayLike<number> = P ? P.outputs : outTensors;
    const pOutFrom = P ? 0 : outStart[p]!;
    const pOutTo = P ? P.outputs.length : outStart[p + 1]!;
    const pCons: ArrayLike<number> = P ? P.consumers : consOps;
    const pConsFrom = P ? 0 : consStart[p]!;
    const pConsTo = P ? P.consumers.length : consStart[p + 1]!;
    parent[p] = g;
    if (P) for (let k = 0; k < P.ops.length; k++) G.ops.push(P.ops[k]!);
    else G.ops.push(p);
    for (let k = pInFrom; k < pInTo; k++) {
      const t = pIn[k]!;
      const prod = producer[t]!;
      if (prod >= 0 && find(prod) === g) continue; // a pnode of G now
      if (G.inputs.includes(t)) continue;
      G.inputs.push(t);
    }
    for (let k = pOutFrom; k < pOutTo; k++) G.outputs.push(pOut[k]!);
    for (let k = pConsFrom; k < pConsTo; k++) G.consumers.push(pCons[k]!);
    merged[p] = undefined;
    // consumers of P now see G instead of P: some may have become candidates
    for (let k = pConsFrom; k < pConsTo; k++) {
      const rc = find(pCons[k]!);
      if (rc === g) continue;
      const partner = partnerOf(rc);
      if (partner >= 0) heap.push(partner * N + rc);
    }
  }

  // remove_unused_inputoutputs
  const used = new Uint8Array(producer.length);
  for (const t of prepared.graphOutputs) if (t >= 0 && producer[t]! >= 0) used[t] = 1;
  const survivors: number[] = [];
  const survivorInputs: number[][] = [];
  for (let i = 0; i < n; i++) {
    if (parent[i] !== i) continue;
    survivors.push(i);
    const g = merged[i];
    const inputs = g ? g.inputs.filter((t) => !(producer[t]! >= 0 && find(producer[t]!) === i)) : slice(inTensors, inStart, i);
    survivorInputs.push(inputs);
    for (const t of inputs) used[t] = 1;
  }

  const names = tensorNames(prepared);
  const warnings: string[] = [];
  const operatorPart = new Int32Array(n).fill(-1);
  const { stem, ext } = splitFileName(prepared.file);
  const parts: PartPlan[] = new Array(survivors.length);
  for (let index = 0; index < survivors.length; index++) {
    const root = survivors[index]!;
    const g = merged[root];
    const allOutputs = g ? g.outputs : slice(outTensors, outStart, root);
    const outputs = allOutputs.filter((t) => used[t] === 1);
    const backend = backendNames[backendOf[root]!]!;
    const operators = g ? g.ops.slice().sort((a, b) => a - b) : [root];
    for (const op of operators) operatorPart[op] = index;
    const number = String(index + 1).padStart(5, '0');
    const fileName = `${stem}.${number}_${backend}${ext}`;
    if (outputs.length === 0) warnings.push(`${fileName} has no outputs: none of its results is used`);
    const inputTensors = survivorInputs[index]!;
    parts[index] = {
      index,
      number,
      fileName,
      backend,
      operators,
      inputs: inputTensors.map((t) => names[t]!),
      outputs: outputs.map((t) => names[t]!),
      inputTensors,
      outputTensors: outputs,
    };
  }

  return {
    sourceFile: prepared.file,
    backends: table.backends.slice(),
    defaultBackend: table.defaultBackend,
    sourceInputs: prepared.graphInputs.map((t) => tensorName(prepared, t)),
    sourceOutputs: prepared.graphOutputs.map((t) => tensorName(prepared, t)),
    parts,
    operatorBackend,
    operatorPart,
    warnings,
  };
}
