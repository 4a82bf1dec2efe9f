/**
 * Circle model as plain data (structured-clone safe). `read()` produces it from a file's bytes
 * without copying buffer contents (buffer `data` are views into the file); `write()` serialises
 * it with the flatc-generated builder; `chef` builds it from a recipe.
 *
 * Field names follow circle_schema.fbs; enum values are kept as numbers (signed where the schema
 * allows negative values) so unknown values survive a round trip.
 */

export type OptionValue = number | boolean | string | number[] | string[] | OptionTable | OptionTable[] | null;
export interface OptionTable {
  [field: string]: OptionValue;
}

/** A value of a union field of the schema (BuiltinOptions, BuiltinOptions2, ...). */
export interface UnionValue {
  /** the union's type id (e.g. BuiltinOptions.AddOptions = 11; circle ids 248..254) */
  type: number;
  /** the option table's name in the schema, e.g. `AddOptions` */
  name: string;
  /** fields by their schema name (snake_case); enums as numbers */
  fields: OptionTable;
}

export interface CircleOperatorCode {
  /** resolved op code (circle.md section 3): may be negative for circle-only ops */
  code: number;
  /** as stored, for exact round trips */
  deprecatedBuiltinCode: number;
  builtinCode: number;
  customCode: string | null;
  version: number;
}

export interface CircleQuantization {
  min: number[];
  max: number[];
  scale: number[];
  /** int64 in the file; kept as numbers (exact up to 2^53) */
  zeroPoint: number[];
  quantizedDimension: number;
  /** QuantizationDetails union (CustomQuantization / MXQuantization), if any */
  details: UnionValue | null;
}

export interface CircleTensor {
  name: string;
  shape: number[];
  shapeSignature: number[] | null;
  /** TensorType, signed (circle has negative types) */
  type: number;
  /** index into CircleModel.buffers; 0 = no data */
  buffer: number;
  quantization: CircleQuantization | null;
  isVariable: boolean;
  /** SparsityParameters as a plain table (traversal_order, block_map, dim_metadata) */
  sparsity: OptionTable | null;
  hasRank: boolean;
  variantTensors: { shape: number[]; type: number; hasRank: boolean }[];
  compressionType: number;
}

export interface CircleOperator {
  opcodeIndex: number;
  /** tensor indices; -1 = omitted optional input */
  inputs: number[];
  outputs: number[];
  builtinOptions: UnionValue | null;
  builtinOptions2: UnionValue | null;
  customOptions: Uint8Array | null;
  customOptionsFormat: number;
  mutatingVariableInputs: boolean[];
  intermediates: number[];
  largeCustomOptionsOffset: number;
  largeCustomOptionsSize: number;
}

export interface CircleSubGraph {
  name: string;
  tensors: CircleTensor[];
  inputs: number[];
  outputs: number[];
  operators: CircleOperator[];
  /** deprecated_data_format of old files; writers never set it */
  deprecatedDataFormat: number;
}

export interface CircleBuffer {
  /** inline data, a view into the file when read (zero-copy); null when empty or external */
  data: Uint8Array | null;
  /** extended buffer (circle.md section 4): absolute file offset and size; 0 when unused */
  offset: number;
  size: number;
}

export interface CircleMetadata {
  name: string;
  buffer: number;
}

export interface CircleTensorMap {
  name: string;
  tensorIndex: number;
}

export interface CircleSignatureDef {
  inputs: CircleTensorMap[];
  outputs: CircleTensorMap[];
  signatureKey: string;
  subgraphIndex: number;
}

export interface CircleModel {
  /** `CIR0` or `TFL3` as read; the writer always writes `CIR0` */
  identifier: string;
  version: number;
  description: string;
  operatorCodes: CircleOperatorCode[];
  subgraphs: CircleSubGraph[];
  buffers: CircleBuffer[];
  metadataBuffer: number[];
  metadata: CircleMetadata[];
  signatureDefs: CircleSignatureDef[];
}
