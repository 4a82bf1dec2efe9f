/**
 * Module production (`produce_pmodules`, partitioner.md section 3.4): one `CircleModel` per part.
 *
 * - main graph named `<source graph name>_<backend>`; one graph input per part input and one graph
 *   output per part output (tensor names, dtypes, shapes and quantisation copied, so the boundary
 *   names survive);
 * - every local tensor an operator reads (constants, variables) is cloned into the part with its
 *   own buffer: a constant shared by two parts is in both;
 * - operators keep their options; IF/WHILE branch, cond and body subgraphs (recursively) are
 *   copied into the part and their indices fixed; other subgraph users are rejected;
 * - origins (NPU Studio, origins.md section 4): `ONE_op_table` = part operator index -> source
 *   ids; `ONE_source_table` = the entries of the source model's table (read from the file or
 *   synthesised as `operator index -> node name`) that those ids name, and no others. Ids keep
 *   their source-model values, so they mean the same in every part; a part stays small however
 *   many parts there are. `origins: false` reproduces ONE's origin-less parts.
 */
import { FormatError } from '../errors';
import type { CircleBuffer, CircleModel, CircleOperator, CircleOperatorCode, CircleSubGraph, CircleTensor, UnionValue } from '../circle/model';
import type { PartitionPlan } from './algorithm';
import type { PreparedModel } from './prepare';
import { decodeOpTable, decodeSourceTable, encodeOpTable, encodeSourceTable, type OpTable, type SourceTable } from './origin-tables';

export const SOURCE_TABLE_NAME = 'ONE_source_table';
export const OP_TABLE_NAME = 'ONE_op_table';

export interface PartModelOptions {
  /** write ONE_source_table / ONE_op_table (default true) */
  origins?: boolean;
  /** description string of the parts */
  description?: string;
}

export interface SourceOrigins {
  kind: 'file' | 'synthesised';
  sourceTable: SourceTable;
  /** per main-graph operator: source ids */
  opSources: number[][];
}

function metadataBytes(model: CircleModel, name: string): Uint8Array | null {
  const m = model.metadata.find((x) => x.name === name);
  if (!m) return null;
  return model.buffers[m.buffer]?.data ?? null;
}

const originCache = new WeakMap<PreparedModel, SourceOrigins>();

/** Origins of the source model's main-graph operators (origins.md section 3). */
export function sourceOrigins(prepared: PreparedModel): SourceOrigins {
  const cached = originCache.get(prepared);
  if (cached) return cached;
  const sBytes = metadataBytes(prepared.model, SOURCE_TABLE_NAME);
  const oBytes = metadataBytes(prepared.model, OP_TABLE_NAME);
  const fileSources = sBytes ? decodeSourceTable(sBytes) : null;
  const fileOps: OpTable | null = oBytes ? decodeOpTable(oBytes) : null;
  let result: SourceOrigins;
  if (fileSources && fileOps) {
    // both decoded just now for this call alone: used as they are, not copied
    const sourceTable = fileSources;
    const opSources: number[][] = [];
    for (let i = 0; i < prepared.opCount; i++) {
      const ids = fileOps.get(i);
      if (ids && ids.length > 0) opSources.push(ids);
      else {
        // import rule 3: synthesise single_origin(i, node name)
        if (!sourceTable.has(i)) sourceTable.set(i, prepared.nodeNames[i]!);
        opSources.push([i]);
      }
    }
    result = { kind: 'file', sourceTable, opSources };
  } else {
    const sourceTable: SourceTable = new Map();
    const opSources: number[][] = [];
    for (let i = 0; i < prepared.opCount; i++) {
      sourceTable.set(i, prepared.nodeNames[i]!);
      opSources.push([i]);
    }
    result = { kind: 'synthesised', sourceTable, opSources };
  }
  originCache.set(prepared, result);
  return result;
}

const SUBGRAPH_USERS: Record<string, readonly string[]> = {
  IfOptions: ['then_subgraph_index', 'else_subgraph_index'],
  WhileOptions: ['cond_subgraph_index', 'body_subgraph_index'],
};

function subgraphFields(u: UnionValue | null): string[] {
  if (!u) return [];
  return Object.keys(u.fields).filter((k) => k.endsWith('subgraph_index'));
}

const EMPTY_BUFFER: CircleBuffer = { data: null, offset: 0, size: 0 };

function hasData(b: CircleBuffer | undefined): boolean {
  return !!b && ((b.data !== null && b.data.length > 0) || b.size > 0);
}

class PartBuilder {
  readonly opcodes: CircleOperatorCode[] = [];
  private readonly opcodeMap = new Map<number, number>();
  readonly buffers: CircleBuffer[] = [EMPTY_BUFFER];
  readonly subgraphs: CircleSubGraph[] = [];
  private readonly subgraphMap = new Map<number, number>();

  constructor(private readonly model: CircleModel, private readonly file: string) {}

  opcode(index: number): number {
    let m = this.opcodeMap.get(index);
    if (m === undefined) {
      m = this.opcodes.length;
      const oc = this.model.operatorCodes[index];
      if (!oc) throw new FormatError({ kind: 'corrupt', file: this.file, message: `operator code index ${index} does not exist` });
      this.opcodes.push({ ...oc });
      this.opcodeMap.set(index, m);
    }
    return m;
  }

  /** A copy of a tensor; data buffers are given a new buffer entry (same bytes). */
  tensor(t: CircleTensor, keepData: boolean): CircleTensor {
    let buffer = 0;
    const src = this.model.buffers[t.buffer];
    if (keepData && t.buffer > 0 && hasData(src)) {
      buffer = this.buffers.length;
      this.buffers.push({ ...src! });
    }
    return { ...t, buffer };
  }

  operator(op: CircleOperator, mapTensor: (t: number) => number, where: string): CircleOperator {
    const fix = (u: UnionValue | null): UnionValue | null => {
      if (!u) return u;
      const fields = subgraphFields(u);
      if (fields.length === 0) return u;
      const known = SUBGRAPH_USERS[u.name];
      if (!known) {
        throw new FormatError({ kind: 'unsupported', file: this.file, path: where, message: `${u.name} refers to a subgraph: only IF and WHILE subgraphs can be partitioned (as circle-partitioner)` });
      }
      const out: UnionValue = { ...u, fields: { ...u.fields } };
      for (const f of known) {
        const v = u.fields[f];
        if (typeof v === 'number') out.fields[f] = this.subgraph(v);
      }
      return out;
    };
    return {
      ...op,
      opcodeIndex: this.opcode(op.opcodeIndex),
      inputs: op.inputs.map((t) => (t < 0 ? t : mapTensor(t))),
      outputs: op.outputs.map(mapTensor),
      intermediates: op.intermediates.map(mapTensor),
      builtinOptions: fix(op.builtinOptions),
      builtinOptions2: fix(op.builtinOptions2),
    };
  }

  /** Copies source subgraph `index` (whole) and returns its index in the part. */
  subgraph(index: number): number {
    const have = this.subgraphMap.get(index);
    if (have !== undefined) return have;
    const src = this.model.subgraphs[index];
    if (!src || index === 0) throw new FormatError({ kind: 'corrupt', file: this.file, message: `subgraph index ${index} is not a subgraph that can be copied` });
    const mine = this.subgraphs.length;
    this.subgraphMap.set(index, mine);
    const sg: CircleSubGraph = { name: src.name, tensors: [], inputs: src.inputs.slice(), outputs: src.outputs.slice(), operators: [], deprecatedDataFormat: 0 };
    this.subgraphs.push(sg);
    sg.tensors = src.tensors.map((t) => this.tensor(t, true));
    sg.operators = src.operators.map((op, i) => this.operator(op, (t) => t, `subgraphs[${index}].operators[${i}]`));
    return mine;
  }
}

/** Operators of a part in an order where every producer comes first (ascending when possible). */
function topologicalOrder(prepared: PreparedModel, ops: number[]): number[] {
  const inPart = new Set(ops);
  const pos = new Map<number, number>();
  ops.forEach((op, i) => pos.set(op, i));
  let sorted = true;
  for (const op of ops) {
    for (let k = prepared.inStart[op]!; k < prepared.inStart[op + 1]!; k++) {
      const p = prepared.producer[prepared.inTensors[k]!]!;
      if (p >= 0 && inPart.has(p) && pos.get(p)! > pos.get(op)!) sorted = false;
    }
  }
  if (sorted) return ops;
  // Kahn, smallest index first
  const indeg = new Map<number, number>();
  for (const op of ops) indeg.set(op, 0);
  for (const op of ops)
    for (let k = prepared.consStart[op]!; k < prepared.consStart[op + 1]!; k++) {
      const c = prepared.consOps[k]!;
      if (inPart.has(c)) indeg.set(c, indeg.get(c)! + 1);
    }
  const ready = ops.filter((op) => indeg.get(op) === 0);
  const out: number[] = [];
  while (ready.length > 0) {
    ready.sort((a, b) => b - a);
    const op = ready.pop()!;
    out.push(op);
    for (let k = prepared.consStart[op]!; k < prepared.consStart[op + 1]!; k++) {
      const c = prepared.consOps[k]!;
      if (!inPart.has(c)) continue;
      const d = indeg.get(c)! - 1;
      indeg.set(c, d);
      if (d === 0) ready.push(c);
    }
  }
  return out.length === ops.length ? out : ops;
}

/** The circle model of part `partIndex` of a plan. */
export function buildPartModel(prepared: PreparedModel, plan: PartitionPlan, partIndex: number, options: PartModelOptions = {}): CircleModel {
  const part = plan.parts[partIndex];
  if (!part) throw new RangeError(`no part ${partIndex}`);
  const model = prepared.model;
  const g0 = model.subgraphs[0]!;
  const b = new PartBuilder(model, prepared.file);
  const main: CircleSubGraph = { name: `${g0.name}_${part.backend}`, tensors: [], inputs: [], outputs: [], operators: [], deprecatedDataFormat: 0 };
  b.subgraphs.push(main);

  const tmap = new Map<number, number>();
  const mapTensor = (t: number): number => {
    let m = tmap.get(t);
    if (m === undefined) {
      const src = g0.tensors[t];
      if (!src) throw new FormatError({ kind: 'corrupt', file: prepared.file, message: `tensor ${t} does not exist` });
      m = main.tensors.length;
      tmap.set(t, m);
      // local tensors (constants, variables) keep their data; produced tensors and inputs do not
      const local = prepared.producer[t]! < 0 && !prepared.isGraphInput[t];
      main.tensors.push(b.tensor(src, local));
    }
    return m;
  };
  for (const t of part.inputTensors) main.inputs.push(mapTensor(t));
  const order = topologicalOrder(prepared, part.operators);
  for (const op of order) main.operators.push(b.operator(g0.operators[op]!, mapTensor, `subgraphs[0].operators[${op}]`));
  for (const t of part.outputTensors) main.outputs.push(mapTensor(t));

  const metadata: CircleModel['metadata'] = [];
  if (options.origins ?? true) {
    const origins = sourceOrigins(prepared);
    const opTable: OpTable = new Map();
    // only the sources this part's operators name: luci resolves every id of ONE_op_table in
    // ONE_source_table (`_source_table.at(id)`, which throws on a missing id), and nothing else
    // in a part refers to the rest. An id the source's own op table names without a source entry
    // (a defect of the source, origins.md 2.4) gets the name `#<id>`, as the studio shows it, so
    // the part stays readable by luci.
    const sourceTable: SourceTable = new Map();
    order.forEach((op, i) => {
      const ids = origins.opSources[op]!;
      opTable.set(i, ids);
      for (const id of ids) sourceTable.set(id, origins.sourceTable.get(id) ?? `#${id}`);
    });
    const put = (name: string, bytes: Uint8Array) => {
      metadata.push({ name, buffer: b.buffers.length });
      b.buffers.push({ data: bytes, offset: 0, size: 0 });
    };
    put(SOURCE_TABLE_NAME, encodeSourceTable(sourceTable));
    put(OP_TABLE_NAME, encodeOpTable(opTable));
  }

  return {
    identifier: 'CIR0',
    version: model.version,
    description: options.description ?? 'npu-studio partition',
    operatorCodes: b.opcodes,
    subgraphs: b.subgraphs,
    buffers: b.buffers,
    metadataBuffer: [],
    metadata,
    signatureDefs: [],
  };
}

/** Source operator index of each operator of a built part (the order `buildPartModel` used). */
export function partOperatorOrder(prepared: PreparedModel, plan: PartitionPlan, partIndex: number): number[] {
  return topologicalOrder(prepared, plan.parts[partIndex]!.operators);
}
