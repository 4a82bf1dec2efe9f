/**
 * Per-model structure for partitioning, computed once per model (`preparePartition`) so that
 * re-partitioning after a `.part` edit only walks flat arrays.
 *
 * luci's node view of a circle main graph (partitioner.md section 3), in tensor terms:
 * - an operator output tensor is the operator's node (single-output ops) or one of its `*Out`
 *   nodes (multi-output ops): either way a part boundary is named by the tensor;
 * - a graph input tensor is a `CircleInput` (group = default, in no PGroup);
 * - any other tensor read by an operator (constant data, variables, dangling tensors) is local:
 *   cloned into every part that uses it, never a part input;
 * - an omitted input (-1) is a `CircleOutputExclude`: it joins the consumer's PGroup.
 */
import type { CircleModel } from '../circle/model';
import { builtinOperatorName } from '../circle/names';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';

/** luci's IsMultiOutputNode list; any operator with several outputs is treated the same way. */
const MULTI_OUTPUT_OPS = new Set<number>([
  BuiltinOperator.CUSTOM,
  BuiltinOperator.IF,
  BuiltinOperator.NON_MAX_SUPPRESSION_V4,
  BuiltinOperator.NON_MAX_SUPPRESSION_V5,
  BuiltinOperator.SPLIT,
  BuiltinOperator.SPLIT_V,
  BuiltinOperator.TOPK_V2,
  BuiltinOperator.UNIQUE,
  BuiltinOperator.UNPACK,
  BuiltinOperator.WHILE,
]);

export interface PreparedModel {
  /** the model file name as given (used for output names) */
  file: string;
  model: CircleModel;
  /** name of subgraph 0 */
  graphName: string;
  opCount: number;
  /** per operator: BuiltinOperator name (luci `opcode_name`: custom ops are `CUSTOM`) */
  opcodeNames: string[];
  /** per operator: luci node name = name of its first output tensor */
  nodeNames: string[];
  /**
   * per operator: true for luci's multi-output node types (`IsMultiOutputNode` of
   * PartitionPGroups.cpp; a custom op even with one output) and for any other operator with
   * several outputs (BidirectionalSequenceLSTM, ..., which circle-partitioner does not support).
   * Their outputs are luci `*Out` nodes: part outputs of the operator's part, and of the default
   * group in the merge's `group_of` (algorithm.ts `inputGroup`).
   */
  multiOutput: Uint8Array;
  /** per operator, CSR: boundary input tensors (graph inputs or operator outputs) in argument order, deduplicated */
  inStart: Int32Array;
  inTensors: Int32Array;
  /** per operator, CSR: output tensors (the nodes that can be part outputs) */
  outStart: Int32Array;
  outTensors: Int32Array;
  /** per operator, CSR: operators that read one of its outputs, deduplicated, ascending */
  consStart: Int32Array;
  consOps: Int32Array;
  /** per tensor: producing operator or -1 */
  producer: Int32Array;
  /** per tensor: 1 for graph inputs of subgraph 0 */
  isGraphInput: Uint8Array;
  graphInputs: number[];
  graphOutputs: number[];
  /** operator indices by opcode name and by node name */
  opsByOpcode: Map<string, number[]>;
  opsByName: Map<string, number[]>;
}

export function opcodeNameOf(model: CircleModel, opcodeIndex: number): string {
  const oc = model.operatorCodes[opcodeIndex];
  if (!oc) return `Unknown(opcode_index ${opcodeIndex})`;
  return builtinOperatorName(oc.code);
}

export function preparePartition(model: CircleModel, file = 'model.circle'): PreparedModel {
  const g = model.subgraphs[0];
  const tensorsCount = g ? g.tensors.length : 0;
  const ops = g ? g.operators : [];
  const n = ops.length;
  const producer = new Int32Array(tensorsCount).fill(-1);
  const isGraphInput = new Uint8Array(tensorsCount);
  for (const t of g?.inputs ?? []) if (t >= 0 && t < tensorsCount) isGraphInput[t] = 1;
  // index loops throughout: this runs once over every operator, mostly before the code is
  // optimised, where for-of allocates a result per step
  for (let i = 0; i < n; i++) {
    const outs = ops[i]!.outputs;
    for (let k = 0; k < outs.length; k++) {
      const t = outs[k]!;
      if (t >= 0 && t < tensorsCount && producer[t] === -1) producer[t] = i;
    }
  }

  const opcodeNames: string[] = new Array(n);
  const nodeNames: string[] = new Array(n);
  const multiOutput = new Uint8Array(n);
  const opsByOpcode = new Map<string, number[]>();
  const opsByName = new Map<string, number[]>();
  const inStart = new Int32Array(n + 1);
  const outStart = new Int32Array(n + 1);
  const inList: number[] = [];
  const outList: number[] = [];
  const mark = new Int32Array(tensorsCount).fill(-1);
  for (let i = 0; i < n; i++) {
    const op = ops[i]!;
    const code = model.operatorCodes[op.opcodeIndex]?.code ?? -1;
    const oname = opcodeNameOf(model, op.opcodeIndex);
    opcodeNames[i] = oname;
    const first = op.outputs[0];
    const name = first !== undefined && first >= 0 ? (g!.tensors[first]?.name ?? '') : '';
    nodeNames[i] = name;
    multiOutput[i] = MULTI_OUTPUT_OPS.has(code) || op.outputs.length > 1 ? 1 : 0;
    let l = opsByOpcode.get(oname);
    if (!l) opsByOpcode.set(oname, (l = []));
    l.push(i);
    let m = opsByName.get(name);
    if (!m) opsByName.set(name, (m = []));
    m.push(i);
    inStart[i] = inList.length;
    const ins = op.inputs;
    for (let k = 0; k < ins.length; k++) {
      const t = ins[k]!;
      if (t < 0 || t >= tensorsCount) continue;
      if (producer[t] < 0 && !isGraphInput[t]) continue; // local: constant, variable, dangling
      if (mark[t] === i) continue;
      mark[t] = i;
      inList.push(t);
    }
    outStart[i] = outList.length;
    const outs = op.outputs;
    for (let k = 0; k < outs.length; k++) {
      const t = outs[k]!;
      if (t >= 0 && t < tensorsCount && producer[t] === i) outList.push(t);
    }
  }
  inStart[n] = inList.length;
  outStart[n] = outList.length;
  const inTensors = Int32Array.from(inList);

  // consumers
  const consCount = new Int32Array(n + 1);
  const lastSeen = new Int32Array(n).fill(-1);
  for (let c = 0; c < n; c++) {
    for (let k = inStart[c]!; k < inStart[c + 1]!; k++) {
      const p = producer[inTensors[k]!]!;
      if (p >= 0 && lastSeen[p] !== c) {
        lastSeen[p] = c;
        consCount[p]++;
      }
    }
  }
  const consStart = new Int32Array(n + 1);
  for (let i = 0; i < n; i++) consStart[i + 1] = consStart[i]! + consCount[i]!;
  const fill = consStart.slice(0, n);
  const consOps = new Int32Array(consStart[n]!);
  lastSeen.fill(-1);
  for (let c = 0; c < n; c++) {
    for (let k = inStart[c]!; k < inStart[c + 1]!; k++) {
      const p = producer[inTensors[k]!]!;
      if (p >= 0 && lastSeen[p] !== c) {
        lastSeen[p] = c;
        consOps[fill[p]!++] = c;
      }
    }
  }

  return {
    file,
    model,
    graphName: g?.name ?? '',
    opCount: n,
    opcodeNames,
    nodeNames,
    multiOutput,
    inStart,
    inTensors,
    outStart,
    outTensors: Int32Array.from(outList),
    consStart,
    consOps,
    producer,
    isGraphInput,
    graphInputs: (g?.inputs ?? []).slice(),
    graphOutputs: (g?.outputs ?? []).slice(),
    opsByOpcode,
    opsByName,
  };
}

const namesCache = new WeakMap<PreparedModel, string[]>();

/** Names of the main graph's tensors (cached per prepared model). */
export function tensorNames(prepared: PreparedModel): string[] {
  let names = namesCache.get(prepared);
  if (!names) namesCache.set(prepared, (names = (prepared.model.subgraphs[0]?.tensors ?? []).map((t) => t.name)));
  return names;
}

export function tensorName(prepared: PreparedModel, t: number): string {
  return prepared.model.subgraphs[0]?.tensors[t]?.name ?? '';
}
