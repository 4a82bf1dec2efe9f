/**
 * Circle writer: `CircleModel` -> bytes, with the flatc-generated builders for the model's own
 * tables and a schema-driven builder (the same `schema-table.ts` the reader walks) for option
 * tables, quantization details and sparsity, so every option the reader decoded is rebuilt with
 * the same fields and values.
 *
 * Rules (circle.md sections 3, 4, 6, 7): identifier `CIR0`; both op-code fields written
 * (`builtin_code` = code, `deprecated_builtin_code` = int8(code) when code < 127, else 127);
 * `buffers[0]` stays the empty sentinel; metadata, signature defs and options are kept; buffer
 * data is 16-aligned; models over the FlatBuffers 2 GB limit are written in extended-buffer mode
 * (data appended after the FlatBuffer, 16-aligned, `offset`/`size` set).
 */
import { Builder } from 'flatbuffers';
import { FormatError } from '../errors';
import { Buffer as FbBuffer } from './generated/circle/buffer';
import { Metadata as FbMetadata } from './generated/circle/metadata';
import { Model as FbModel } from './generated/circle/model';
import { Operator as FbOperator } from './generated/circle/operator';
import { OperatorCode as FbOperatorCode } from './generated/circle/operator-code';
import { QuantizationParameters as FbQuantization } from './generated/circle/quantization-parameters';
import { SignatureDef as FbSignatureDef } from './generated/circle/signature-def';
import { SubGraph as FbSubGraph } from './generated/circle/sub-graph';
import { Tensor as FbTensor } from './generated/circle/tensor';
import { TensorMap as FbTensorMap } from './generated/circle/tensor-map';
import { VariantSubType as FbVariantSubType } from './generated/circle/variant-sub-type';
import { SCALAR_SIZE } from './checked';
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

/** `externalOffsets`: null for inline data; else per buffer its absolute offset (0 = none). */
function buildModel(b: Builder, m: CircleModel, datas: (Uint8Array | null)[], externalOffsets: number[] | null): number {
  // Buffers first (largest first in the file's tail is not required; keep model order).
  const bufferOffsets = datas.map((d, i) => {
    if (externalOffsets) {
      const off = externalOffsets[i]!;
      FbBuffer.startBuffer(b);
      if (off) {
        FbBuffer.addOffset(b, BigInt(off));
        FbBuffer.addSize(b, BigInt(d!.length));
      }
      return FbBuffer.endBuffer(b);
    }
    let dataOff = 0;
    if (d && d.length) {
      b.prep(16, d.length);
      dataOff = b.createByteVector(d);
    }
    FbBuffer.startBuffer(b);
    if (dataOff) FbBuffer.addData(b, dataOff);
    return FbBuffer.endBuffer(b);
  });
  const buffers = FbModel.createBuffersVector(b, bufferOffsets);

  const opcodes = FbModel.createOperatorCodesVector(
    b,
    m.operatorCodes.map((oc) => {
      const custom = oc.customCode !== null ? createString(b, oc.customCode) : 0;
      const { deprecatedBuiltinCode, builtinCode } = encodeOpcode(oc.code);
      FbOperatorCode.startOperatorCode(b);
      FbOperatorCode.addDeprecatedBuiltinCode(b, deprecatedBuiltinCode);
      if (custom) FbOperatorCode.addCustomCode(b, custom);
      FbOperatorCode.addVersion(b, oc.version);
      FbOperatorCode.addBuiltinCode(b, builtinCode);
      return FbOperatorCode.endOperatorCode(b);
    }),
  );
  const subgraphs = FbModel.createSubgraphsVector(b, m.subgraphs.map((sg) => buildSubGraph(b, sg)));
  const description = createString(b, m.description);
  const metadataBuffer = m.metadataBuffer.length ? FbModel.createMetadataBufferVector(b, m.metadataBuffer) : 0;
  const metadata = m.metadata.length
    ? FbModel.createMetadataVector(b, m.metadata.map((md) => FbMetadata.createMetadata(b, createString(b, md.name), md.buffer)))
    : 0;
  const signatures = m.signatureDefs.length
    ? FbModel.createSignatureDefsVector(
        b,
        m.signatureDefs.map((sd) => {
          const maps = (xs: { name: string; tensorIndex: number }[]) => xs.map((x) => FbTensorMap.createTensorMap(b, createString(b, x.name), x.tensorIndex));
          const inputs = FbSignatureDef.createInputsVector(b, maps(sd.inputs));
          const outputs = FbSignatureDef.createOutputsVector(b, maps(sd.outputs));
          return FbSignatureDef.createSignatureDef(b, inputs, outputs, createString(b, sd.signatureKey), sd.subgraphIndex);
        }),
      )
    : 0;
  FbModel.startModel(b);
  FbModel.addVersion(b, m.version);
  FbModel.addOperatorCodes(b, opcodes);
  FbModel.addSubgraphs(b, subgraphs);
  FbModel.addDescription(b, description);
  FbModel.addBuffers(b, buffers);
  if (metadataBuffer) FbModel.addMetadataBuffer(b, metadataBuffer);
  if (metadata) FbModel.addMetadata(b, metadata);
  if (signatures) FbModel.addSignatureDefs(b, signatures);
  return FbModel.endModel(b);
}

function buildSubGraph(b: Builder, sg: CircleSubGraph): number {
  const tensors = FbSubGraph.createTensorsVector(b, sg.tensors.map((t) => buildTensor(b, t)));
  const inputs = FbSubGraph.createInputsVector(b, sg.inputs);
  const outputs = FbSubGraph.createOutputsVector(b, sg.outputs);
  const operators = FbSubGraph.createOperatorsVector(b, sg.operators.map((op) => buildOperator(b, op)));
  const name = createString(b, sg.name);
  return FbSubGraph.createSubGraph(b, tensors, inputs, outputs, operators, name);
}

function buildTensor(b: Builder, t: CircleTensor): number {
  const shape = FbTensor.createShapeVector(b, t.shape);
  const name = createString(b, t.name);
  const quant = t.quantization ? buildQuantization(b, t.quantization) : 0;
  const sparsity = t.sparsity ? encodeTable(b, CIRCLE_SCHEMA.tables.SparsityParameters!, t.sparsity) : 0;
  const signature = t.shapeSignature ? FbTensor.createShapeSignatureVector(b, t.shapeSignature) : 0;
  const variants = t.variantTensors.length
    ? FbTensor.createVariantTensorsVector(
        b,
        t.variantTensors.map((v) => FbVariantSubType.createVariantSubType(b, FbVariantSubType.createShapeVector(b, v.shape), v.type, v.hasRank)),
      )
    : 0;
  FbTensor.startTensor(b);
  FbTensor.addShape(b, shape);
  FbTensor.addType(b, t.type);
  FbTensor.addBuffer(b, t.buffer);
  FbTensor.addName(b, name);
  if (quant) FbTensor.addQuantization(b, quant);
  FbTensor.addIsVariable(b, t.isVariable);
  if (sparsity) FbTensor.addSparsity(b, sparsity);
  if (signature) FbTensor.addShapeSignature(b, signature);
  FbTensor.addHasRank(b, t.hasRank);
  if (variants) FbTensor.addVariantTensors(b, variants);
  FbTensor.addCompressionType(b, t.compressionType);
  return FbTensor.endTensor(b);
}

function buildQuantization(b: Builder, q: CircleQuantization): number {
  const min = q.min.length ? FbQuantization.createMinVector(b, q.min) : 0;
  const max = q.max.length ? FbQuantization.createMaxVector(b, q.max) : 0;
  const scale = q.scale.length ? FbQuantization.createScaleVector(b, q.scale) : 0;
  const zp = q.zeroPoint.length ? FbQuantization.createZeroPointVector(b, q.zeroPoint.map(toBigInt)) : 0;
  const details = q.details ? encodeUnion(b, 'QuantizationDetails', q.details) : 0;
  FbQuantization.startQuantizationParameters(b);
  if (min) FbQuantization.addMin(b, min);
  if (max) FbQuantization.addMax(b, max);
  if (scale) FbQuantization.addScale(b, scale);
  if (zp) FbQuantization.addZeroPoint(b, zp);
  if (q.details) {
    FbQuantization.addDetailsType(b, q.details.type);
    if (details) FbQuantization.addDetails(b, details);
  }
  FbQuantization.addQuantizedDimension(b, q.quantizedDimension);
  return FbQuantization.endQuantizationParameters(b);
}

function buildOperator(b: Builder, op: CircleOperator): number {
  const inputs = FbOperator.createInputsVector(b, op.inputs);
  const outputs = FbOperator.createOutputsVector(b, op.outputs);
  const options = op.builtinOptions ? encodeUnion(b, 'BuiltinOptions', op.builtinOptions) : 0;
  const options2 = op.builtinOptions2 ? encodeUnion(b, 'BuiltinOptions2', op.builtinOptions2) : 0;
  const custom = op.customOptions ? b.createByteVector(op.customOptions) : 0;
  const mutating = op.mutatingVariableInputs.length ? FbOperator.createMutatingVariableInputsVector(b, op.mutatingVariableInputs) : 0;
  const intermediates = op.intermediates.length ? FbOperator.createIntermediatesVector(b, op.intermediates) : 0;
  FbOperator.startOperator(b);
  FbOperator.addOpcodeIndex(b, op.opcodeIndex);
  FbOperator.addInputs(b, inputs);
  FbOperator.addOutputs(b, outputs);
  if (op.builtinOptions) {
    FbOperator.addBuiltinOptionsType(b, op.builtinOptions.type);
    if (options) FbOperator.addBuiltinOptions(b, options);
  }
  if (custom) FbOperator.addCustomOptions(b, custom);
  FbOperator.addCustomOptionsFormat(b, op.customOptionsFormat);
  if (mutating) FbOperator.addMutatingVariableInputs(b, mutating);
  if (intermediates) FbOperator.addIntermediates(b, intermediates);
  FbOperator.addLargeCustomOptionsOffset(b, toBigInt(op.largeCustomOptionsOffset));
  FbOperator.addLargeCustomOptionsSize(b, toBigInt(op.largeCustomOptionsSize));
  if (op.builtinOptions2) {
    FbOperator.addBuiltinOptions2Type(b, op.builtinOptions2.type);
    if (options2) FbOperator.addBuiltinOptions2(b, options2);
  }
  return FbOperator.endOperator(b);
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
