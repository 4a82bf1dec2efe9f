/**
 * Circle writer: `CircleModel` -> bytes, on the FlatBuffers Builder: the model's own tables
 * (Model, SubGraph, Tensor, Operator, ...) field by field in the order and with the defaults of
 * flatc's generated builders, and a schema-driven builder for option tables, quantization details
 * and sparsity, so every option the reader decoded is rebuilt with the same fields and values.
 * Both take their slots from `schema-table.ts`, which the reader walks too. The generated
 * classes are not imported: with them comes every options class (560 KB of code), whose loading
 * cost each command that writes a model about 80 ms of CPU at start-up.
 *
 * Rules (circle.md sections 3, 4, 6, 7): identifier `CIR0`; both op-code fields written
 * (`builtin_code` = code, `deprecated_builtin_code` = int8(code) when code < 127, else 127);
 * `buffers[0]` stays the empty sentinel; metadata, signature defs and options are kept; buffer
 * data is 16-aligned; models over the FlatBuffers 2 GB limit are written in extended-buffer mode
 * (data appended after the FlatBuffer, 16-aligned, `offset`/`size` set).
 */
import { Builder } from 'flatbuffers';
import { FormatError } from '../errors';
import { SCALAR_SIZE, slotOf } from './checked';
import type { ScalarType, SchemaField, SchemaTableDef } from './fbs-schema';
import type { CircleBuffer, CircleModel, CircleOperator, CircleQuantization, CircleSubGraph, CircleTensor, OptionTable, OptionValue, UnionValue } from './model';
import { CIRCLE_IDENTIFIER, PLACEHOLDER_FOR_GREATER_OP_CODES } from './read';
import { CIRCLE_SCHEMA } from './schema-table';

export interface WriteOptions {
  /**
   * Force extended-buffer mode (buffer bytes after the FlatBuffer). Chosen automatically when the
   * FlatBuffer would pass the 2 GB limit.
   */
  extendedBuffers?: boolean;
  /**
   * The bytes of the file the model was read from: needed to write buffers that were external
   * (extended-buffer files), whose `data` is null and whose bytes sit at `offset`/`size`.
   */
  sourceBytes?: Uint8Array;
}

/** FlatBuffers' own limit (2^31 - 1 bytes), less headroom for the structure. */
const FLATBUFFER_LIMIT = 2 ** 31 - 1;

/** Op-code fields as luci writes them (circle.md section 3). */
export function encodeOpcode(code: number): { deprecatedBuiltinCode: number; builtinCode: number } {
  return { builtinCode: code, deprecatedBuiltinCode: code < PLACEHOLDER_FOR_GREATER_OP_CODES ? (code << 24) >> 24 : PLACEHOLDER_FOR_GREATER_OP_CODES };
}

export function write(model: CircleModel, options: WriteOptions = {}): Uint8Array {
  const datas = model.buffers.map((b, i) => bufferBytes(b, i, options.sourceBytes));
  const dataBytes = datas.reduce((a, d) => a + (d ? d.length + 16 : 0), 0);
  const extended = options.extendedBuffers ?? dataBytes > FLATBUFFER_LIMIT - (64 << 20);
  if (!extended) {
    const b = builderOf(Math.min(FLATBUFFER_LIMIT, dataBytes + 4096));
    const bytes = finish(b, buildModel(b, model, datas, null));
    keepBuilder(b);
    return bytes;
  }
  // Extended mode: build once with placeholder offsets to learn the FlatBuffer's size (offsets are
  // fixed-width ulong fields, so the real values do not change the layout), then again for real.
  const placeholder = datas.map((d) => (d && d.length ? 2 ** 40 : 0));
  const probe = new Builder(4096);
  const probeBytes = finish(probe, buildModel(probe, model, datas, placeholder));
  const offsets: number[] = [];
  let end = align16(probeBytes.length);
  for (const d of datas) {
    if (d && d.length) {
      offsets.push(end);
      end = align16(end + d.length);
    } else offsets.push(0);
  }
  const b = new Builder(probeBytes.length + 1024);
  const head = finish(b, buildModel(b, model, datas, offsets));
  if (head.length !== probeBytes.length) throw new Error('circle writer: extended-buffer layout changed between passes');
  const out = new Uint8Array(end);
  out.set(head, 0);
  datas.forEach((d, i) => {
    if (d && d.length) out.set(d, offsets[i]!);
  });
  return out;
}

/**
 * A small builder kept for the next write. A new Builder allocates its byte buffer (and a
 * TextEncoder): partitioning writes thousands of small models, and those allocations, with the
 * collections they caused, were much of its time. `finish` copies the bytes out, so nothing
 * written refers to the builder's buffer.
 */
let spareBuilder: Builder | null = null;
const SPARE_BUILDER_MAX = 1 << 20;

function builderOf(size: number): Builder {
  const b = spareBuilder;
  spareBuilder = null;
  if (b && b.dataBuffer().capacity() >= size) {
    b.clear();
    return b;
  }
  return new Builder(size);
}

function keepBuilder(b: Builder): void {
  if (b.dataBuffer().capacity() <= SPARE_BUILDER_MAX) spareBuilder = b;
}

/** scratch for the UTF-8 bytes of an ASCII string (createString copies them) */
let asciiScratch = new Uint8Array(256);

/**
 * `b.createString(s)` without a TextEncoder call (and its new buffer) for ASCII strings, the
 * usual names; other strings go through the builder's encoder. Same bytes either way.
 */
function createString(b: Builder, s: string): number {
  const n = s.length;
  if (n > asciiScratch.length) asciiScratch = new Uint8Array(Math.max(n, 2 * asciiScratch.length));
  const out = asciiScratch;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return b.createString(s);
    out[i] = c;
  }
  return b.createString(out.subarray(0, n));
}

function align16(n: number): number {
  return Math.ceil(n / 16) * 16;
}

function finish(b: Builder, root: number): Uint8Array {
  b.finish(root, CIRCLE_IDENTIFIER);
  return b.asUint8Array().slice();
}

function bufferBytes(buf: CircleBuffer, index: number, source: Uint8Array | undefined): Uint8Array | null {
  if (buf.data && buf.data.length) return buf.data;
  if (buf.offset > 1 && buf.size > 0) {
    if (!source || buf.offset + buf.size > source.length) {
      throw new FormatError({
        kind: 'unsupported',
        file: 'model',
        path: `buffers[${index}]`,
        message: 'the buffer is stored outside the FlatBuffer (extended buffer); pass the source file bytes to write it',
      });
    }
    return source.subarray(buf.offset, buf.offset + buf.size);
  }
  return null;
}

/** Slots and field counts of the model's own tables, from the schema table (as flatc numbers them). */
const table = (name: string) => CIRCLE_SCHEMA.tables[name]!.slots;
const MODEL = {
  fields: table('Model'),
  version: slotOf('Model', 'version'),
  operatorCodes: slotOf('Model', 'operator_codes'),
  subgraphs: slotOf('Model', 'subgraphs'),
  description: slotOf('Model', 'description'),
  buffers: slotOf('Model', 'buffers'),
  metadataBuffer: slotOf('Model', 'metadata_buffer'),
  metadata: slotOf('Model', 'metadata'),
  signatureDefs: slotOf('Model', 'signature_defs'),
};
const BUFFER = { fields: table('Buffer'), data: slotOf('Buffer', 'data'), offset: slotOf('Buffer', 'offset'), size: slotOf('Buffer', 'size') };
const OPCODE = {
  fields: table('OperatorCode'),
  deprecated: slotOf('OperatorCode', 'deprecated_builtin_code'),
  custom: slotOf('OperatorCode', 'custom_code'),
  version: slotOf('OperatorCode', 'version'),
  builtin: slotOf('OperatorCode', 'builtin_code'),
};
const METADATA = { fields: table('Metadata'), name: slotOf('Metadata', 'name'), buffer: slotOf('Metadata', 'buffer') };
const SIGNATURE = {
  fields: table('SignatureDef'),
  inputs: slotOf('SignatureDef', 'inputs'),
  outputs: slotOf('SignatureDef', 'outputs'),
  key: slotOf('SignatureDef', 'signature_key'),
  subgraph: slotOf('SignatureDef', 'subgraph_index'),
};
const TENSOR_MAP = { fields: table('TensorMap'), name: slotOf('TensorMap', 'name'), index: slotOf('TensorMap', 'tensor_index') };
const SUBGRAPH = {
  fields: table('SubGraph'),
  tensors: slotOf('SubGraph', 'tensors'),
  inputs: slotOf('SubGraph', 'inputs'),
  outputs: slotOf('SubGraph', 'outputs'),
  operators: slotOf('SubGraph', 'operators'),
  name: slotOf('SubGraph', 'name'),
};
const TENSOR = {
  fields: table('Tensor'),
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
};
const VARIANT = { fields: table('VariantSubType'), shape: slotOf('VariantSubType', 'shape'), type: slotOf('VariantSubType', 'type'), hasRank: slotOf('VariantSubType', 'has_rank') };
const QUANT = {
  fields: table('QuantizationParameters'),
  min: slotOf('QuantizationParameters', 'min'),
  max: slotOf('QuantizationParameters', 'max'),
  scale: slotOf('QuantizationParameters', 'scale'),
  zeroPoint: slotOf('QuantizationParameters', 'zero_point'),
  details: slotOf('QuantizationParameters', 'details'),
  dim: slotOf('QuantizationParameters', 'quantized_dimension'),
};
const OPERATOR = {
  fields: table('Operator'),
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
};
const ZERO64 = BigInt(0);

/** [int] / [uint] vectors, as flatc's create...Vector writes them */
function int32Vector(b: Builder, data: readonly number[]): number {
  b.startVector(4, data.length, 4);
  for (let i = data.length - 1; i >= 0; i--) b.addInt32(data[i]!);
  return b.endVector();
}
function float32Vector(b: Builder, data: readonly number[]): number {
  b.startVector(4, data.length, 4);
  for (let i = data.length - 1; i >= 0; i--) b.addFloat32(data[i]!);
  return b.endVector();
}
function int64Vector(b: Builder, data: readonly bigint[]): number {
  b.startVector(8, data.length, 8);
  for (let i = data.length - 1; i >= 0; i--) b.addInt64(data[i]!);
  return b.endVector();
}
function boolVector(b: Builder, data: readonly boolean[]): number {
  b.startVector(1, data.length, 1);
  for (let i = data.length - 1; i >= 0; i--) b.addInt8(+data[i]!);
  return b.endVector();
}

/** `externalOffsets`: null for inline data; else per buffer its absolute offset (0 = none). */
function buildModel(b: Builder, m: CircleModel, datas: (Uint8Array | null)[], externalOffsets: number[] | null): number {
  // Buffers first (largest first in the file's tail is not required; keep model order).
  const bufferOffsets = datas.map((d, i) => {
    if (externalOffsets) {
      const off = externalOffsets[i]!;
      b.startObject(BUFFER.fields);
      if (off) {
        b.addFieldInt64(BUFFER.offset, BigInt(off), ZERO64);
        b.addFieldInt64(BUFFER.size, BigInt(d!.length), ZERO64);
      }
      return b.endObject();
    }
    let dataOff = 0;
    if (d && d.length) {
      b.prep(16, d.length);
      dataOff = b.createByteVector(d);
    }
    b.startObject(BUFFER.fields);
    if (dataOff) b.addFieldOffset(BUFFER.data, dataOff, 0);
    return b.endObject();
  });
  const buffers = offsetVector(b, bufferOffsets);

  const opcodes = offsetVector(
    b,
    m.operatorCodes.map((oc) => {
      const custom = oc.customCode !== null ? createString(b, oc.customCode) : 0;
      const { deprecatedBuiltinCode, builtinCode } = encodeOpcode(oc.code);
      b.startObject(OPCODE.fields);
      b.addFieldInt8(OPCODE.deprecated, deprecatedBuiltinCode, 0);
      if (custom) b.addFieldOffset(OPCODE.custom, custom, 0);
      b.addFieldInt32(OPCODE.version, oc.version, 1);
      b.addFieldInt32(OPCODE.builtin, builtinCode, 0);
      return b.endObject();
    }),
  );
  const subgraphs = offsetVector(b, m.subgraphs.map((sg) => buildSubGraph(b, sg)));
  const description = createString(b, m.description);
  const metadataBuffer = m.metadataBuffer.length ? int32Vector(b, m.metadataBuffer) : 0;
  const metadata = m.metadata.length
    ? offsetVector(
        b,
        m.metadata.map((md) => {
          const name = createString(b, md.name);
          b.startObject(METADATA.fields);
          b.addFieldOffset(METADATA.name, name, 0);
          b.addFieldInt32(METADATA.buffer, md.buffer, 0);
          return b.endObject();
        }),
      )
    : 0;
  const signatures = m.signatureDefs.length
    ? offsetVector(
        b,
        m.signatureDefs.map((sd) => {
          const maps = (xs: { name: string; tensorIndex: number }[]) =>
            xs.map((x) => {
              const name = createString(b, x.name);
              b.startObject(TENSOR_MAP.fields);
              b.addFieldOffset(TENSOR_MAP.name, name, 0);
              b.addFieldInt32(TENSOR_MAP.index, x.tensorIndex, 0);
              return b.endObject();
            });
          const inputs = offsetVector(b, maps(sd.inputs));
          const outputs = offsetVector(b, maps(sd.outputs));
          const key = createString(b, sd.signatureKey);
          b.startObject(SIGNATURE.fields);
          b.addFieldOffset(SIGNATURE.inputs, inputs, 0);
          b.addFieldOffset(SIGNATURE.outputs, outputs, 0);
          b.addFieldOffset(SIGNATURE.key, key, 0);
          b.addFieldInt32(SIGNATURE.subgraph, sd.subgraphIndex, 0);
          return b.endObject();
        }),
      )
    : 0;
  b.startObject(MODEL.fields);
  b.addFieldInt32(MODEL.version, m.version, 0);
  b.addFieldOffset(MODEL.operatorCodes, opcodes, 0);
  b.addFieldOffset(MODEL.subgraphs, subgraphs, 0);
  b.addFieldOffset(MODEL.description, description, 0);
  b.addFieldOffset(MODEL.buffers, buffers, 0);
  if (metadataBuffer) b.addFieldOffset(MODEL.metadataBuffer, metadataBuffer, 0);
  if (metadata) b.addFieldOffset(MODEL.metadata, metadata, 0);
  if (signatures) b.addFieldOffset(MODEL.signatureDefs, signatures, 0);
  return b.endObject();
}

function buildSubGraph(b: Builder, sg: CircleSubGraph): number {
  const tensors = offsetVector(b, sg.tensors.map((t) => buildTensor(b, t)));
  const inputs = int32Vector(b, sg.inputs);
  const outputs = int32Vector(b, sg.outputs);
  const operators = offsetVector(b, sg.operators.map((op) => buildOperator(b, op)));
  const name = createString(b, sg.name);
  b.startObject(SUBGRAPH.fields);
  b.addFieldOffset(SUBGRAPH.tensors, tensors, 0);
  b.addFieldOffset(SUBGRAPH.inputs, inputs, 0);
  b.addFieldOffset(SUBGRAPH.outputs, outputs, 0);
  b.addFieldOffset(SUBGRAPH.operators, operators, 0);
  b.addFieldOffset(SUBGRAPH.name, name, 0);
  return b.endObject();
}

function buildTensor(b: Builder, t: CircleTensor): number {
  const shape = int32Vector(b, t.shape);
  const name = createString(b, t.name);
  const quant = t.quantization ? buildQuantization(b, t.quantization) : 0;
  const sparsity = t.sparsity ? encodeTable(b, CIRCLE_SCHEMA.tables.SparsityParameters!, t.sparsity) : 0;
  const signature = t.shapeSignature ? int32Vector(b, t.shapeSignature) : 0;
  const variants = t.variantTensors.length
    ? offsetVector(
        b,
        t.variantTensors.map((v) => {
          const vShape = int32Vector(b, v.shape);
          b.startObject(VARIANT.fields);
          b.addFieldOffset(VARIANT.shape, vShape, 0);
          b.addFieldInt8(VARIANT.type, v.type, 0);
          b.addFieldInt8(VARIANT.hasRank, +v.hasRank, 0);
          return b.endObject();
        }),
      )
    : 0;
  b.startObject(TENSOR.fields);
  b.addFieldOffset(TENSOR.shape, shape, 0);
  b.addFieldInt8(TENSOR.type, t.type, 0);
  b.addFieldInt32(TENSOR.buffer, t.buffer, 0);
  b.addFieldOffset(TENSOR.name, name, 0);
  if (quant) b.addFieldOffset(TENSOR.quantization, quant, 0);
  b.addFieldInt8(TENSOR.isVariable, +t.isVariable, 0);
  if (sparsity) b.addFieldOffset(TENSOR.sparsity, sparsity, 0);
  if (signature) b.addFieldOffset(TENSOR.shapeSignature, signature, 0);
  b.addFieldInt8(TENSOR.hasRank, +t.hasRank, 0);
  if (variants) b.addFieldOffset(TENSOR.variantTensors, variants, 0);
  b.addFieldInt8(TENSOR.compressionType, t.compressionType, 0);
  return b.endObject();
}

function buildQuantization(b: Builder, q: CircleQuantization): number {
  const min = q.min.length ? float32Vector(b, q.min) : 0;
  const max = q.max.length ? float32Vector(b, q.max) : 0;
  const scale = q.scale.length ? float32Vector(b, q.scale) : 0;
  const zp = q.zeroPoint.length ? int64Vector(b, q.zeroPoint.map(toBigInt)) : 0;
  const details = q.details ? encodeUnion(b, 'QuantizationDetails', q.details) : 0;
  b.startObject(QUANT.fields);
  if (min) b.addFieldOffset(QUANT.min, min, 0);
  if (max) b.addFieldOffset(QUANT.max, max, 0);
  if (scale) b.addFieldOffset(QUANT.scale, scale, 0);
  if (zp) b.addFieldOffset(QUANT.zeroPoint, zp, 0);
  if (q.details) {
    b.addFieldInt8(QUANT.details - 1, q.details.type, 0);
    if (details) b.addFieldOffset(QUANT.details, details, 0);
  }
  b.addFieldInt32(QUANT.dim, q.quantizedDimension, 0);
  return b.endObject();
}

function buildOperator(b: Builder, op: CircleOperator): number {
  const inputs = int32Vector(b, op.inputs);
  const outputs = int32Vector(b, op.outputs);
  const options = op.builtinOptions ? encodeUnion(b, 'BuiltinOptions', op.builtinOptions) : 0;
  const options2 = op.builtinOptions2 ? encodeUnion(b, 'BuiltinOptions2', op.builtinOptions2) : 0;
  const custom = op.customOptions ? b.createByteVector(op.customOptions) : 0;
  const mutating = op.mutatingVariableInputs.length ? boolVector(b, op.mutatingVariableInputs) : 0;
  const intermediates = op.intermediates.length ? int32Vector(b, op.intermediates) : 0;
  b.startObject(OPERATOR.fields);
  b.addFieldInt32(OPERATOR.opcodeIndex, op.opcodeIndex, 0);
  b.addFieldOffset(OPERATOR.inputs, inputs, 0);
  b.addFieldOffset(OPERATOR.outputs, outputs, 0);
  if (op.builtinOptions) {
    b.addFieldInt8(OPERATOR.options - 1, op.builtinOptions.type, 0);
    if (options) b.addFieldOffset(OPERATOR.options, options, 0);
  }
  if (custom) b.addFieldOffset(OPERATOR.customOptions, custom, 0);
  b.addFieldInt8(OPERATOR.customFormat, op.customOptionsFormat, 0);
  if (mutating) b.addFieldOffset(OPERATOR.mutating, mutating, 0);
  if (intermediates) b.addFieldOffset(OPERATOR.intermediates, intermediates, 0);
  b.addFieldInt64(OPERATOR.largeOffset, toBigInt(op.largeCustomOptionsOffset), ZERO64);
  b.addFieldInt64(OPERATOR.largeSize, toBigInt(op.largeCustomOptionsSize), ZERO64);
  if (op.builtinOptions2) {
    b.addFieldInt8(OPERATOR.options2 - 1, op.builtinOptions2.type, 0);
    if (options2) b.addFieldOffset(OPERATOR.options2, options2, 0);
  }
  return b.endObject();
}

function toBigInt(v: number): bigint {
  return BigInt(Number.isFinite(v) ? Math.trunc(v) : 0);
}

// ---- schema-driven tables ----------------------------------------------------------------------

/** Builds the table of a union value; 0 when the member is unknown to the schema (type kept). */
export function encodeUnion(b: Builder, unionName: string, u: Pick<UnionValue, 'type' | 'fields'>): number {
  const member = CIRCLE_SCHEMA.unions[unionName]?.[String(u.type)];
  const def = member ? CIRCLE_SCHEMA.tables[member] : undefined;
  if (!def) return 0;
  return encodeTable(b, def, u.fields);
}

function isTable(v: OptionValue | undefined): v is OptionTable {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function encodeTable(b: Builder, def: SchemaTableDef, fields: OptionTable): number {
  // Offsets (strings, vectors, sub-tables) must be built before the table starts.
  const offsets = new Map<SchemaField, number>();
  for (const f of def.fields) {
    if (f.deprecated) continue;
    const v = fields[f.name];
    if (v === null || v === undefined) continue;
    const k = f.type.kind;
    if (f.vector) {
      if (!Array.isArray(v)) continue;
      if (k === 'scalar' || k === 'enum') offsets.set(f, scalarVector(b, f.type.base!, v as (number | boolean)[]));
      else if (k === 'string') {
        const strs = (v as OptionValue[]).map((s) => createString(b, String(s)));
        offsets.set(f, offsetVector(b, strs));
      } else if (k === 'table') {
        const sub = CIRCLE_SCHEMA.tables[f.type.ref!]!;
        const tables = (v as OptionValue[]).map((x) => encodeTable(b, sub, isTable(x) ? x : {}));
        offsets.set(f, offsetVector(b, tables));
      }
    } else if (k === 'string') offsets.set(f, createString(b, String(v)));
    else if (k === 'table' && isTable(v)) offsets.set(f, encodeTable(b, CIRCLE_SCHEMA.tables[f.type.ref!]!, v));
    else if (k === 'union' && isTable(v) && isTable(v.fields)) {
      offsets.set(f, encodeUnion(b, f.type.ref!, { type: Number(v.type), fields: v.fields }));
    }
  }
  b.startObject(def.slots);
  for (const f of def.fields) {
    if (f.deprecated) continue;
    const v = fields[f.name];
    const k = f.type.kind;
    if (!f.vector && (k === 'scalar' || k === 'enum')) {
      if (typeof v === 'number' || typeof v === 'boolean') addScalarField(b, f.slot, f.type.base!, Number(v), Number(f.default));
    } else if (k === 'union' && !f.vector) {
      if (isTable(v) && typeof v.type === 'number' && v.type !== 0) {
        b.addFieldInt8(f.slot - 1, v.type, 0);
        const off = offsets.get(f);
        if (off) b.addFieldOffset(f.slot, off, 0);
      }
    } else {
      const off = offsets.get(f);
      if (off) b.addFieldOffset(f.slot, off, 0);
    }
  }
  return b.endObject();
}

function addScalarField(b: Builder, slot: number, base: ScalarType, v: number, def: number): void {
  switch (SCALAR_SIZE[base]) {
    case 1:
      return b.addFieldInt8(slot, v, def);
    case 2:
      return b.addFieldInt16(slot, v, def);
    case 4:
      if (base === 'float') return b.addFieldFloat32(slot, v, def);
      return b.addFieldInt32(slot, v, def);
    default:
      if (base === 'double') return b.addFieldFloat64(slot, v, def);
      return b.addFieldInt64(slot, toBigInt(v), toBigInt(def));
  }
}

function scalarVector(b: Builder, base: ScalarType, values: (number | boolean)[]): number {
  const size = SCALAR_SIZE[base];
  b.startVector(size, values.length, size);
  for (let i = values.length - 1; i >= 0; i--) {
    const v = Number(values[i]);
    if (base === 'float') b.addFloat32(v);
    else if (base === 'double') b.addFloat64(v);
    else if (size === 1) b.addInt8(v);
    else if (size === 2) b.addInt16(v);
    else if (size === 4) b.addInt32(v);
    else b.addInt64(toBigInt(v));
  }
  return b.endVector();
}

function offsetVector(b: Builder, offs: number[]): number {
  b.startVector(4, offs.length, 4);
  for (let i = offs.length - 1; i >= 0; i--) b.addOffset(offs[i]!);
  return b.endVector();
}
