/**
 * Circle (and TFLite) reader: bytes -> `CircleModel`, zero-copy and bounds-checked.
 *
 * - Buffer `data` and `custom_options` are `subarray` views into the input; no weight byte is
 *   read or copied, so reading is O(structure), not O(bytes).
 * - Op codes follow circle.md section 3 (signed `deprecated_builtin_code`; 127 -> `builtin_code`).
 * - Every offset, vector length and cross reference (tensor, buffer, op-code, subgraph indices)
 *   is checked; bad input throws `FormatError` with the byte offset and structure path.
 */
import { FormatError } from '../errors';
import { CheckedBuffer, prefixed, slotOf, type TableList, type TableRef } from './checked';
import type {
  CircleBuffer,
  CircleMetadata,
  CircleModel,
  CircleOperator,
  CircleOperatorCode,
  CircleQuantization,
  CircleSignatureDef,
  CircleSubGraph,
  CircleTensor,
  CircleTensorMap,
  UnionValue,
} from './model';
import { CIRCLE_SCHEMA } from './schema-table';
import type { SchemaTableDef } from './fbs-schema';

import { CIRCLE_IDENTIFIER, TFLITE_IDENTIFIER, identifierOf } from './detect';

export { CIRCLE_IDENTIFIER, TFLITE_IDENTIFIER, detect } from './detect';
/** op code stored in deprecated_builtin_code when the real code is in builtin_code */
export const PLACEHOLDER_FOR_GREATER_OP_CODES = 127;

/** The resolved op code of an OperatorCode (circle.md section 3). */
export function resolveOpcode(deprecatedBuiltinCode: number, builtinCode: number): number {
  return deprecatedBuiltinCode === PLACEHOLDER_FOR_GREATER_OP_CODES ? builtinCode : deprecatedBuiltinCode;
}

const S = {
  model: {
    version: slotOf('Model', 'version'),
    operatorCodes: slotOf('Model', 'operator_codes'),
    subgraphs: slotOf('Model', 'subgraphs'),
    description: slotOf('Model', 'description'),
    buffers: slotOf('Model', 'buffers'),
    metadataBuffer: slotOf('Model', 'metadata_buffer'),
    metadata: slotOf('Model', 'metadata'),
    signatureDefs: slotOf('Model', 'signature_defs'),
  },
  opcode: {
    deprecated: slotOf('OperatorCode', 'deprecated_builtin_code'),
    custom: slotOf('OperatorCode', 'custom_code'),
    version: slotOf('OperatorCode', 'version'),
    builtin: slotOf('OperatorCode', 'builtin_code'),
  },
  subgraph: {
    tensors: slotOf('SubGraph', 'tensors'),
    inputs: slotOf('SubGraph', 'inputs'),
    outputs: slotOf('SubGraph', 'outputs'),
    operators: slotOf('SubGraph', 'operators'),
    name: slotOf('SubGraph', 'name'),
    dataFormat: slotOf('SubGraph', 'deprecated_data_format'),
  },
  tensor: {
    shape: slotOf('Tensor', 'shape'),
    type: slotOf('Tensor', 'type'),
    buffer: slotOf('Tensor', 'buffer'),
    name: slotOf('Tensor', 'name'),
    quantization: slotOf('Tensor', 'quantization'),
    isVariable: slotOf('Tensor', 'is_variable'),
    sparsity: slotOf('Tensor', 'sparsity'),
    shapeSignature: slotOf('Tensor', 'shape_signature'),
    hasRank: slotOf('Tensor', 'has_rank'),
    variantTensors: slotOf('Tensor', 'variant_tensors'),
    compressionType: slotOf('Tensor', 'compression_type'),
  },
  variant: { shape: slotOf('VariantSubType', 'shape'), type: slotOf('VariantSubType', 'type'), hasRank: slotOf('VariantSubType', 'has_rank') },
  quant: {
    min: slotOf('QuantizationParameters', 'min'),
    max: slotOf('QuantizationParameters', 'max'),
    scale: slotOf('QuantizationParameters', 'scale'),
    zeroPoint: slotOf('QuantizationParameters', 'zero_point'),
    details: slotOf('QuantizationParameters', 'details'),
    dim: slotOf('QuantizationParameters', 'quantized_dimension'),
  },
  op: {
    opcodeIndex: slotOf('Operator', 'opcode_index'),
    inputs: slotOf('Operator', 'inputs'),
    outputs: slotOf('Operator', 'outputs'),
    options: slotOf('Operator', 'builtin_options'),
    customOptions: slotOf('Operator', 'custom_options'),
    customFormat: slotOf('Operator', 'custom_options_format'),
    mutating: slotOf('Operator', 'mutating_variable_inputs'),
    intermediates: slotOf('Operator', 'intermediates'),
    largeOffset: slotOf('Operator', 'large_custom_options_offset'),
    largeSize: slotOf('Operator', 'large_custom_options_size'),
    options2: slotOf('Operator', 'builtin_options_2'),
  },
  buffer: { data: slotOf('Buffer', 'data'), offset: slotOf('Buffer', 'offset'), size: slotOf('Buffer', 'size') },
  metadata: { name: slotOf('Metadata', 'name'), buffer: slotOf('Metadata', 'buffer') },
  sig: {
    inputs: slotOf('SignatureDef', 'inputs'),
    outputs: slotOf('SignatureDef', 'outputs'),
    key: slotOf('SignatureDef', 'signature_key'),
    subgraph: slotOf('SignatureDef', 'subgraph_index'),
  },
  tensorMap: { name: slotOf('TensorMap', 'name'), index: slotOf('TensorMap', 'tensor_index') },
};

const SPARSITY = CIRCLE_SCHEMA.tables.SparsityParameters!;

/**
 * Reads every table of a vector with `readOne`, whose paths are relative to the element (constant
 * strings); a failure gets `path[i]` put in front (checked.ts `prefixed`).
 */
function readEach<T>(c: CheckedBuffer, tables: TableList | null, path: string, readOne: (c: CheckedBuffer, t: TableRef) => T): T[] {
  if (!tables) return [];
  const out = new Array<T>(tables.count);
  for (let i = 0; i < tables.count; i++) {
    try {
      out[i] = readOne(c, tables.at(i));
    } catch (e) {
      throw prefixed(e, `${path}[${i}]`);
    }
  }
  return out;
}

/**
 * `readEach` for the three long vectors (buffers, tensors, operators), each a copy of its own:
 * one shared loop was optimized for the reader it met first and deoptimized by the next.
 */
function readBuffers(c: CheckedBuffer, tables: TableList | null, path: string): CircleBuffer[] {
  if (!tables) return [];
  const out = new Array<CircleBuffer>(tables.count);
  for (let i = 0; i < tables.count; i++) {
    try {
      out[i] = readBuffer(c, tables.at(i));
    } catch (e) {
      throw prefixed(e, `${path}[${i}]`);
    }
  }
  return out;
}

/**
 * Shared by every table that leaves the vector out (most operators have no intermediates, most
 * tensors no variants): one frozen empty array, not one per table (300,000 fewer objects to
 * allocate and keep at 100,000 operators). Frozen, so that a caller filling it in place fails
 * loudly instead of changing every table's.
 */
const NONE: never[] = Object.freeze([]) as unknown as never[];

/**
 * Reads a circle or TFLite file. Throws `FormatError` (kind 'empty', 'truncated', 'corrupt',
 * 'unsupported' or 'limit', with byte offset and path) for anything that is not a readable model.
 */
export function read(bytes: Uint8Array, file: string): CircleModel {
  if (bytes.length === 0) throw new FormatError({ kind: 'empty', file, offset: 0, message: 'the file is empty' });
  if (bytes.length < 8) {
    throw new FormatError({ kind: 'truncated', file, offset: bytes.length, message: `the file has only ${bytes.length} bytes; a circle model starts with 8 bytes of header` });
  }
  const identifier = identifierOf(bytes);
  if (identifier !== CIRCLE_IDENTIFIER && identifier !== TFLITE_IDENTIFIER) {
    const shown = /^[\x20-\x7e]{4}$/.test(identifier) ? `"${identifier}"` : 'none';
    throw new FormatError({
      kind: 'unsupported',
      file,
      offset: 4,
      message: `not a circle model: file identifier ${shown} at bytes 4..8 (expected "CIR0" or "TFL3")`,
    });
  }
  const c = new CheckedBuffer(bytes, file);
  const root = c.table(c.deref(0, 'model'), 'model');
  const M = S.model;

  const operatorCodes = (c.fieldTableVector(root, M.operatorCodes, 'operator_codes') ?? []).map((t, i) => readOpcode(c, t, `operator_codes[${i}]`));
  const buffers = readBuffers(c, c.fieldTableList(root, M.buffers, 'buffers'), 'buffers');
  const subgraphs = (c.fieldTableVector(root, M.subgraphs, 'subgraphs') ?? []).map((t, i) => readSubGraph(c, t, `subgraphs[${i}]`));
  const metadata = (c.fieldTableVector(root, M.metadata, 'metadata') ?? []).map(
    (t, i): CircleMetadata => ({
      name: c.fieldString(t, S.metadata.name, `metadata[${i}].name`) ?? '',
      buffer: c.fieldScalar(t, S.metadata.buffer, 'uint', 0, `metadata[${i}].buffer`),
    }),
  );
  const signatureDefs = (c.fieldTableVector(root, M.signatureDefs, 'signature_defs') ?? []).map((t, i) => readSignature(c, t, `signature_defs[${i}]`));
  const model: CircleModel = {
    identifier,
    version: c.fieldScalar(root, M.version, 'uint', 0, 'version'),
    description: c.fieldString(root, M.description, 'description') ?? '',
    operatorCodes,
    subgraphs,
    buffers,
    metadataBuffer: c.fieldScalarVector(root, M.metadataBuffer, 'int', 'metadata_buffer') ?? [],
    metadata,
    signatureDefs,
  };
  checkReferences(model, file);
  return model;
}

function readOpcode(c: CheckedBuffer, t: TableRef, path: string): CircleOperatorCode {
  const O = S.opcode;
  const deprecatedBuiltinCode = c.fieldScalar(t, O.deprecated, 'byte', 0, `${path}.deprecated_builtin_code`);
  const builtinCode = c.fieldScalar(t, O.builtin, 'int', 0, `${path}.builtin_code`);
  return {
    code: resolveOpcode(deprecatedBuiltinCode, builtinCode),
    deprecatedBuiltinCode,
    builtinCode,
    customCode: c.fieldString(t, O.custom, `${path}.custom_code`),
    version: c.fieldScalar(t, O.version, 'int', 1, `${path}.version`),
  };
}

function readBuffer(c: CheckedBuffer, t: TableRef): CircleBuffer {
  const data = c.fieldBytes(t, S.buffer.data, 'data');
  return {
    data: data && data.length > 0 ? data : null,
    offset: c.fieldScalar(t, S.buffer.offset, 'ulong', 0, 'offset'),
    size: c.fieldScalar(t, S.buffer.size, 'ulong', 0, 'size'),
  };
}

function readSubGraph(c: CheckedBuffer, t: TableRef, path: string): CircleSubGraph {
  const G = S.subgraph;
  return {
    name: c.fieldString(t, G.name, `${path}.name`) ?? '',
    tensors: readTensors(c, c.fieldTableList(t, G.tensors, `${path}.tensors`), `${path}.tensors`),
    inputs: c.fieldScalarVector(t, G.inputs, 'int', `${path}.inputs`) ?? [],
    outputs: c.fieldScalarVector(t, G.outputs, 'int', `${path}.outputs`) ?? [],
    operators: readOperators(c, c.fieldTableList(t, G.operators, `${path}.operators`), `${path}.operators`),
    deprecatedDataFormat: c.fieldScalar(t, G.dataFormat, 'byte', 0, `${path}.deprecated_data_format`),
  };
}

/**
 * The tensors of a subgraph. A tensor whose shape equals one of the last few distinct shapes read
 * shares that (frozen) array: a network repeats a handful of shapes, and at 100,000 operators one
 * array per tensor was a sixth of the objects the reader made and kept.
 */
function readTensors(c: CheckedBuffer, tables: TableList | null, path: string): CircleTensor[] {
  if (!tables) return [];
  const recent: (readonly number[])[] = [];
  let next = 0;
  const out = new Array<CircleTensor>(tables.count);
  for (let i = 0; i < tables.count; i++) {
    try {
      const x = readTensor(c, tables.at(i), recent);
      if (x.shape !== NONE && !recent.includes(x.shape)) {
        recent[next] = Object.freeze(x.shape);
        next = (next + 1) % RECENT_SHAPES;
      }
      out[i] = x;
    } catch (e) {
      throw prefixed(e, `${path}[${i}]`);
    }
  }
  return out;
}
const RECENT_SHAPES = 4;

/** A tensor; paths relative to it (`readEach` names the tensor when something fails); `shapes`: ones it may share. */
function readTensor(c: CheckedBuffer, t: TableRef, shapes: readonly (readonly number[])[]): CircleTensor {
  const T = S.tensor;
  const q = c.fieldTable(t, T.quantization, 'quantization');
  const sp = c.fieldTable(t, T.sparsity, 'sparsity');
  const variants = c.fieldTableList(t, T.variantTensors, 'variant_tensors');
  return {
    name: c.fieldString(t, T.name, 'name') ?? '',
    shape: c.fieldIntVectorOf(t, T.shape, 'shape', shapes) ?? NONE,
    shapeSignature: c.fieldScalarVector(t, T.shapeSignature, 'int', 'shape_signature'),
    type: c.fieldScalar(t, T.type, 'byte', 0, 'type'),
    buffer: c.fieldScalar(t, T.buffer, 'uint', 0, 'buffer'),
    quantization: q ? readQuantization(c, q, 'quantization') : null,
    isVariable: c.fieldScalar(t, T.isVariable, 'bool', 0, 'is_variable') !== 0,
    sparsity: sp ? c.decodeTable(SPARSITY, sp, 'sparsity') : null,
    hasRank: c.fieldScalar(t, T.hasRank, 'bool', 0, 'has_rank') !== 0,
    variantTensors: variants
      ? readEach(c, variants, 'variant_tensors', (c, v) => ({
          shape: c.fieldScalarVector(v, S.variant.shape, 'int', 'shape') ?? [],
          type: c.fieldScalar(v, S.variant.type, 'byte', 0, 'type'),
          hasRank: c.fieldScalar(v, S.variant.hasRank, 'bool', 0, 'has_rank') !== 0,
        }))
      : NONE,
    compressionType: c.fieldScalar(t, T.compressionType, 'byte', 0, 'compression_type'),
  };
}

function readQuantization(c: CheckedBuffer, t: TableRef, path: string): CircleQuantization {
  const Q = S.quant;
  try {
    return {
      min: c.fieldScalarVector(t, Q.min, 'float', 'min') ?? [],
      max: c.fieldScalarVector(t, Q.max, 'float', 'max') ?? [],
      scale: c.fieldScalarVector(t, Q.scale, 'float', 'scale') ?? [],
      zeroPoint: c.fieldScalarVector(t, Q.zeroPoint, 'long', 'zero_point') ?? [],
      quantizedDimension: c.fieldScalar(t, Q.dim, 'int', 0, 'quantized_dimension'),
      details: c.fieldUnion(t, Q.details, 'QuantizationDetails', 'details'),
    };
  } catch (e) {
    throw prefixed(e, path);
  }
}

/**
 * The operators of a subgraph. An options value whose fields are all scalars, enums or strings
 * and equal to one of the last few read is that one (frozen, with its fields): 100,000 operators
 * repeat a handful of option values (`AddOptions` with no activation), and the two objects of
 * each were a fifth of what the reader kept.
 */
function readOperators(c: CheckedBuffer, tables: TableList | null, path: string): CircleOperator[] {
  if (!tables) return [];
  const recent = new RecentOptions();
  const out = new Array<CircleOperator>(tables.count);
  for (let i = 0; i < tables.count; i++) {
    try {
      out[i] = readOperator(c, tables.at(i), recent);
    } catch (e) {
      throw prefixed(e, `${path}[${i}]`);
    }
  }
  return out;
}
const RECENT_OPTIONS = 8;

/**
 * The option values read last, twice over: by value (`shared`: an equal flat value is the one
 * read before) and by bytes (`sameBytes`: a table of scalars only whose vtable and inline bytes
 * equal those of one decoded before decodes to the same value, so it is not decoded again; its
 * vtable and size are still located and checked, and charged, by `CheckedBuffer.tableInto`).
 */
class RecentOptions {
  private readonly values: UnionValue[] = [];
  private nextValue = 0;
  /** by bytes: union type, the table's vtable position and length, position and size, its value */
  private readonly types: number[] = [];
  private readonly vts: number[] = [];
  private readonly vtLens: number[] = [];
  private readonly poss: number[] = [];
  private readonly sizes: number[] = [];
  private readonly decoded: UnionValue[] = [];
  private nextBytes = 0;
  /** the options table being read (`CheckedBuffer.tableInto`), not one TableRef per operator */
  readonly scratch: TableRef = { pos: 0, vt: 0, vtLen: 0, size: 0 };

  shared(u: UnionValue | null): UnionValue | null {
    if (!u) return u;
    const recent = this.values;
    for (let k = 0; k < recent.length; k++) if (sameOptions(recent[k]!, u)) return recent[k]!;
    if (!flatOptions(u)) return u;
    Object.freeze(u.fields);
    recent[this.nextValue] = Object.freeze(u);
    this.nextValue = (this.nextValue + 1) % RECENT_OPTIONS;
    return u;
  }

  /** the value remembered for a table of union type `type` with the same bytes as `t`, or null */
  sameBytes(b: Uint8Array, type: number, t: TableRef): UnionValue | null {
    for (let k = 0; k < this.decoded.length; k++) {
      if (this.types[k] !== type || this.vtLens[k] !== t.vtLen || this.sizes[k] !== t.size) continue;
      const vt = this.vts[k]!;
      if (vt !== t.vt && !sameBytes(b, vt, t.vt, t.vtLen)) continue;
      // the table's inline bytes after its vtable offset
      if (!sameBytes(b, this.poss[k]! + 4, t.pos + 4, t.size - 4)) continue;
      return this.decoded[k]!;
    }
    return null;
  }

  rememberBytes(type: number, t: TableRef, value: UnionValue): void {
    const at = this.nextBytes;
    this.nextBytes = (at + 1) % RECENT_OPTIONS;
    this.types[at] = type;
    this.vts[at] = t.vt;
    this.vtLens[at] = t.vtLen;
    this.poss[at] = t.pos;
    this.sizes[at] = t.size;
    this.decoded[at] = value;
  }
}

function sameBytes(b: Uint8Array, x: number, y: number, n: number): boolean {
  for (let i = 0; i < n; i++) if (b[x + i] !== b[y + i]) return false;
  return true;
}

/**
 * Whether the value of a table depends only on its vtable and inline bytes: every field a
 * non-vector scalar or enum (no offsets to strings, tables or vectors). Per schema table, once.
 */
const SCALARS_ONLY = new Map<SchemaTableDef, boolean>();
function scalarsOnly(def: SchemaTableDef): boolean {
  let only = SCALARS_ONLY.get(def);
  if (only === undefined) {
    only = def.fields.every((f) => f.deprecated || (!f.vector && (f.type.kind === 'scalar' || f.type.kind === 'enum')));
    SCALARS_ONLY.set(def, only);
  }
  return only;
}

/** The member table of a union type id, or undefined for an unknown id (per union and id, once). */
const MEMBERS = new Map<string, (SchemaTableDef | null)[]>();
function memberOf(unionName: string, type: number): SchemaTableDef | undefined {
  let byType = MEMBERS.get(unionName);
  if (!byType) MEMBERS.set(unionName, (byType = []));
  let def = byType[type];
  if (def === undefined) {
    const member = CIRCLE_SCHEMA.unions[unionName]?.[String(type)];
    byType[type] = def = (member ? CIRCLE_SCHEMA.tables[member] : undefined) ?? null;
  }
  return def ?? undefined;
}

/**
 * `CheckedBuffer.fieldUnion` of an operator's options, shared through `recent`: the same checks
 * in the same order (type byte, value field, table), the same value; a table of scalars only with
 * the bytes of one read before is that one's value without decoding it again.
 */
function readOptions(c: CheckedBuffer, t: TableRef, slot: number, unionName: string, path: string, recent: RecentOptions): UnionValue | null {
  const type = c.fieldScalar(t, slot - 1, 'ubyte', 0, path);
  if (type === 0) return null;
  const valuePos = c.field(t, slot, 4, path);
  const def = memberOf(unionName, type);
  if (!def || valuePos === 0 || !scalarsOnly(def)) return recent.shared(c.decodeUnion(unionName, type, valuePos, path));
  const table = c.tableInto(c.deref(valuePos, path), path, recent.scratch);
  const known = recent.sameBytes(c.bytes, type, table);
  if (known) return known;
  const u = recent.shared({ type, name: def.name, fields: c.decodeTable(def, table, path) })!;
  recent.rememberBytes(type, table, u);
  return u;
}

/** Whether every field of an options value is a scalar, an enum, a string or absent (no vector, no table). */
function flatOptions(u: UnionValue): boolean {
  for (const k in u.fields) {
    const v = u.fields[k];
    if (v !== null && typeof v === 'object') return false;
  }
  return true;
}

/** `a` (flat, see flatOptions) and `b` are the same options: same table, same field values. */
function sameOptions(a: UnionValue, b: UnionValue): boolean {
  if (a.type !== b.type || a.name !== b.name) return false;
  const fa = a.fields, fb = b.fields;
  let n = 0;
  for (const k in fb) {
    // Object.is: -0 and 0 stay apart (a rewrite keeps the sign bit)
    if (!Object.is(fa[k], fb[k])) return false;
    n++;
  }
  for (const _k in fa) n--;
  return n === 0;
}

/** An operator; paths relative to it (`readEach` names the operator when something fails). */
function readOperator(c: CheckedBuffer, t: TableRef, recent: RecentOptions): CircleOperator {
  const O = S.op;
  const mutating = c.fieldScalarVector(t, O.mutating, 'bool', 'mutating_variable_inputs');
  return {
    opcodeIndex: c.fieldScalar(t, O.opcodeIndex, 'uint', 0, 'opcode_index'),
    inputs: c.fieldScalarVector(t, O.inputs, 'int', 'inputs') ?? [],
    outputs: c.fieldScalarVector(t, O.outputs, 'int', 'outputs') ?? [],
    builtinOptions: readOptions(c, t, O.options, 'BuiltinOptions', 'builtin_options', recent),
    builtinOptions2: readOptions(c, t, O.options2, 'BuiltinOptions2', 'builtin_options_2', recent),
    customOptions: c.fieldBytes(t, O.customOptions, 'custom_options'),
    customOptionsFormat: c.fieldScalar(t, O.customFormat, 'byte', 0, 'custom_options_format'),
    mutatingVariableInputs: mutating ? mutating.map((v) => v !== 0) : NONE,
    intermediates: c.fieldScalarVector(t, O.intermediates, 'int', 'intermediates') ?? NONE,
    largeCustomOptionsOffset: c.fieldScalar(t, O.largeOffset, 'ulong', 0, 'large_custom_options_offset'),
    largeCustomOptionsSize: c.fieldScalar(t, O.largeSize, 'ulong', 0, 'large_custom_options_size'),
  };
}

function readSignature(c: CheckedBuffer, t: TableRef, path: string): CircleSignatureDef {
  const maps = (slot: number, p: string): CircleTensorMap[] =>
    (c.fieldTableVector(t, slot, p) ?? []).map((m, i) => ({
      name: c.fieldString(m, S.tensorMap.name, `${p}[${i}].name`) ?? '',
      tensorIndex: c.fieldScalar(m, S.tensorMap.index, 'uint', 0, `${p}[${i}].tensor_index`),
    }));
  return {
    inputs: maps(S.sig.inputs, `${path}.inputs`),
    outputs: maps(S.sig.outputs, `${path}.outputs`),
    signatureKey: c.fieldString(t, S.sig.key, `${path}.signature_key`) ?? '',
    subgraphIndex: c.fieldScalar(t, S.sig.subgraph, 'uint', 0, `${path}.subgraph_index`),
  };
}

/** Cross references must point inside their tables: a model that passes is safe to walk. */
function checkReferences(m: CircleModel, file: string): void {
  const bad = (path: string, message: string): never => {
    throw new FormatError({ kind: 'corrupt', file, path, message });
  };
  const nb = m.buffers.length;
  m.subgraphs.forEach((sg, s) => {
    const nt = sg.tensors.length;
    sg.tensors.forEach((t, i) => {
      if (t.buffer !== 0 && t.buffer >= nb) bad(`subgraphs[${s}].tensors[${i}].buffer`, `tensor "${t.name}" refers to buffer ${t.buffer}, but the model has ${nb} buffers`);
    });
    // paths are made only for a bad index (`at`: where the list is, `subgraphs[s]` in front)
    const list = (xs: number[], at: string, allowOmitted: boolean) => {
      const min = allowOmitted ? -1 : 0;
      for (let k = 0; k < xs.length; k++) {
        const x = xs[k]!;
        if (x >= nt || x < min) bad(`subgraphs[${s}].${at}[${k}]`, `tensor index ${x} is out of range (the subgraph has ${nt} tensors)`);
      }
    };
    const inRange = (xs: number[]) => {
      for (let k = 0; k < xs.length; k++) if (xs[k]! >= nt || xs[k]! < -1) return false;
      return true;
    };
    list(sg.inputs, 'inputs', false);
    list(sg.outputs, 'outputs', false);
    // nothing in this loop closes over `o`: a closure that did made a context per operator
    for (let o = 0; o < sg.operators.length; o++) {
      const op = sg.operators[o]!;
      if (op.opcodeIndex >= m.operatorCodes.length) bad(`subgraphs[${s}].operators[${o}].opcode_index`, `operator code ${op.opcodeIndex} is out of range (the model has ${m.operatorCodes.length})`);
      if (inRange(op.inputs) && inRange(op.outputs) && inRange(op.intermediates)) continue;
      list(op.inputs, `operators[${o}].inputs`, true);
      list(op.outputs, `operators[${o}].outputs`, true);
      list(op.intermediates, `operators[${o}].intermediates`, true);
    }
  });
  m.metadata.forEach((md, i) => {
    if (md.buffer >= nb) bad(`metadata[${i}].buffer`, `metadata "${md.name}" refers to buffer ${md.buffer}, but the model has ${nb} buffers`);
  });
  m.signatureDefs.forEach((sd, i) => {
    const sg = m.subgraphs[sd.subgraphIndex];
    if (!sg) return bad(`signature_defs[${i}].subgraph_index`, `signature "${sd.signatureKey}" refers to subgraph ${sd.subgraphIndex}, but the model has ${m.subgraphs.length}`);
    for (const [k, tm] of [...sd.inputs, ...sd.outputs].entries()) {
      if (tm.tensorIndex >= sg.tensors.length) bad(`signature_defs[${i}]`, `signature "${sd.signatureKey}" entry ${k} refers to tensor ${tm.tensorIndex}, out of range`);
    }
  });
}
