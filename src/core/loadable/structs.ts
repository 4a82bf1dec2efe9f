/**
 * The firmware structs a loadable's task blobs hold, as layout tables (name, byte offset, type,
 * enum) and one generic decoder over them. Layouts are facts from nvdla/sw headers (notes/nvdla.md
 * sections 4, 5 and 16): `dla_interface.h` (firmware 0.12.x; 0.10 / 0.11 differ only in the
 * 28-byte `dla_data_cube` without `offset`) and `emu_interface.h` (EMU 0.0.1, and the layout
 * before INT8 scale factors with a 16-byte op container, seen in `NN_L0_0_fbuf`).
 *
 * All structs are little-endian and packed; offsets are absolute within the struct. A union is a
 * struct whose members share offset 0. Written by hand (no library decodes C struct layouts from
 * a table like this one), as plain data so the dump, the diff and the UI all walk the same table.
 */
import {
  CONV_MODE,
  DLA_ENGINES,
  DLA_EVENT,
  DLA_MEM_TYPE,
  DLA_OP_TYPE,
  EMU_BUFFER_FORMAT,
  EMU_OP_TYPE,
  FW_PIXEL_MAPPING,
  LUT_METHOD,
  LUT_PRIORITY,
  MEAN_FORMAT,
  PIXEL_FORMAT,
  PIXEL_OVERRIDE,
  POOL_MODE,
  POOL_SIZE,
  PRECISION,
  RUBIK_MODE,
  SDP_ACT,
  SDP_ALU_TYPE,
  SDP_OP_MODE,
  SDP_OP_TYPE,
  WEIGHT_FORMAT,
  type EnumTable,
} from './names';

export type ScalarType = 'u8' | 'i8' | 'u16' | 'i16' | 'u32' | 'i32' | 'u64' | 'i64' | 'f32';

export const SCALAR_BYTES: Record<ScalarType, number> = { u8: 1, i8: 1, u16: 2, i16: 2, u32: 4, i32: 4, u64: 8, i64: 8, f32: 4 };

export interface FieldSpec {
  name: string;
  offset: number;
  type: ScalarType | StructSpec;
  /** an array of `count` elements */
  count?: number;
  /** names of the array elements (e.g. consumers by engine); default `0`, `1`, ... */
  labels?: readonly string[];
  enum?: EnumTable;
}

export interface StructSpec {
  name: string;
  size: number;
  fields: FieldSpec[];
  union?: boolean;
}

const f = (name: string, offset: number, type: ScalarType | StructSpec, extra: Partial<FieldSpec> = {}): FieldSpec => ({ name, offset, type, ...extra });

// ---- DLA firmware interface ------------------------------------------------------------------

export const DLA_NETWORK_DESC: StructSpec = {
  name: 'dla_network_desc',
  size: 40,
  fields: [
    f('operation_desc_index', 0, 'i16'),
    f('surface_desc_index', 2, 'i16'),
    f('dependency_graph_index', 4, 'i16'),
    f('lut_data_index', 6, 'i16'),
    f('roi_array_index', 8, 'i16'),
    f('surface_index', 10, 'i16'),
    f('stat_list_index', 12, 'i16'),
    f('reserved1', 14, 'i16'),
    f('op_head', 16, 'i16', { count: 6, labels: DLA_ENGINES }),
    f('num_rois', 28, 'u16'),
    f('num_operations', 30, 'u16'),
    f('num_luts', 32, 'u16'),
    f('num_addresses', 34, 'u16'),
    f('input_layer', 36, 'i16'),
    f('dynamic_roi', 38, 'u8'),
    f('reserved0', 39, 'u8'),
  ],
};

export const DLA_CONSUMER: StructSpec = {
  name: 'dla_consumer',
  size: 4,
  fields: [f('index', 0, 'i16'), f('event', 2, 'u8', { enum: DLA_EVENT }), f('res', 3, 'u8')],
};

export const DLA_COMMON_OP_DESC: StructSpec = {
  name: 'dla_common_op_desc',
  size: 36,
  fields: [
    f('index', 0, 'i16'),
    f('roi_index', 2, 'i8'),
    f('op_type', 3, 'u8', { enum: DLA_OP_TYPE }),
    f('dependency_count', 4, 'u8'),
    f('reserved0', 5, 'u8', { count: 3 }),
    f('consumers', 8, DLA_CONSUMER, { count: 6, labels: DLA_ENGINES }),
    f('fused_parent', 32, DLA_CONSUMER),
  ],
};

export const DLA_CVT_PARAM: StructSpec = {
  name: 'dla_cvt_param',
  size: 8,
  fields: [f('scale', 0, 'i16'), f('truncate', 2, 'u8'), f('enable', 3, 'u8'), f('offset', 4, 'i32')],
};

/** `dla_data_cube`: 32 bytes in firmware 0.12, 28 bytes (no `offset`) in 0.10 / 0.11. */
export function dataCube(size: 32 | 28): StructSpec {
  const o = size === 32 ? 4 : 0; // bytes added by `offset`
  const fields = [f('type', 0, 'u16', { enum: DLA_MEM_TYPE }), f('address', 2, 'i16')];
  if (size === 32) fields.push(f('offset', 4, 'u32'));
  fields.push(
    f('size', 4 + o, 'u32'),
    f('width', 8 + o, 'u16'),
    f('height', 10 + o, 'u16'),
    f('channel', 12 + o, 'u16'),
    f('reserved0', 14 + o, 'u16'),
    f('line_stride', 16 + o, 'u32'),
    f('surf_stride', 20 + o, 'u32'),
    f('plane_stride', 24 + o, 'u32'),
  );
  return { name: 'dla_data_cube', size, fields };
}

const cubes = (cube: StructSpec, names: readonly string[]): FieldSpec[] => names.map((n, i) => f(n, i * cube.size, cube));

export const DLA_BDMA_TRANSFER_DESC: StructSpec = {
  name: 'dla_bdma_transfer_desc',
  size: 32,
  fields: [
    f('source_address', 0, 'i16'),
    f('destination_address', 2, 'i16'),
    f('line_size', 4, 'u32'),
    f('line_repeat', 8, 'u32'),
    f('source_line', 12, 'u32'),
    f('destination_line', 16, 'u32'),
    f('surface_repeat', 20, 'u32'),
    f('source_surface', 24, 'u32'),
    f('destination_surface', 28, 'u32'),
  ],
};

export const DLA_BDMA_SURFACE_DESC: StructSpec = {
  name: 'dla_bdma_surface_desc',
  size: 644,
  fields: [
    f('source_type', 0, 'u8', { enum: DLA_MEM_TYPE }),
    f('destination_type', 1, 'u8', { enum: DLA_MEM_TYPE }),
    f('num_transfers', 2, 'u16'),
    f('transfers', 4, DLA_BDMA_TRANSFER_DESC, { count: 20 }),
  ],
};

export const DLA_BDMA_OP_DESC: StructSpec = {
  name: 'dla_bdma_op_desc',
  size: 4,
  fields: [f('num_transfers', 0, 'u16'), f('reserved0', 2, 'u16')],
};

export const DLA_CONV_OP_DESC: StructSpec = {
  name: 'dla_conv_op_desc',
  size: 92,
  fields: [
    f('conv_mode', 0, 'u8', { enum: CONV_MODE }),
    f('data_reuse', 1, 'u8'),
    f('weight_reuse', 2, 'u8'),
    f('skip_data_rls', 3, 'u8'),
    f('skip_weight_rls', 4, 'u8'),
    f('reserved0', 5, 'u8'),
    f('entry_per_slice', 6, 'u16'),
    f('data_format', 8, 'u8', { enum: PIXEL_FORMAT }),
    f('pixel_mapping', 9, 'u8', { enum: FW_PIXEL_MAPPING }),
    f('fetch_grain', 10, 'u16'),
    f('reserved_b', 12, 'u8', { count: 8 }),
    f('batch', 20, 'u8'),
    f('weight_format', 21, 'u8', { enum: WEIGHT_FORMAT }),
    f('data_bank', 22, 'u8'),
    f('weight_bank', 23, 'u8'),
    f('batch_stride', 24, 'u32'),
    f('post_extension', 28, 'u8'),
    f('pixel_override', 29, 'u8', { enum: PIXEL_OVERRIDE }),
    f('release', 30, 'u16'),
    f('input_width_csc', 32, 'u16'),
    f('input_height_csc', 34, 'u16'),
    f('input_channel_csc', 36, 'u16'),
    f('kernel_width_csc', 38, 'u16'),
    f('kernel_height_csc', 40, 'u16'),
    f('kernel_channel_csc', 42, 'u16'),
    f('input_width_cmac', 44, 'u16'),
    f('input_height_cmac', 46, 'u16'),
    f('bytes_per_kernel', 48, 'u32'),
    f('mean_ry', 52, 'i16'),
    f('mean_gu', 54, 'i16'),
    f('mean_bv', 56, 'i16'),
    f('mean_ax', 58, 'i16'),
    f('mean_format', 60, 'u8', { enum: MEAN_FORMAT }),
    f('conv_stride_x', 61, 'u8'),
    f('conv_stride_y', 62, 'u8'),
    f('pad_x_left', 63, 'u8'),
    f('pad_x_right', 64, 'u8'),
    f('pad_y_top', 65, 'u8'),
    f('pad_y_bottom', 66, 'u8'),
    f('dilation_x', 67, 'u8'),
    f('dilation_y', 68, 'u8'),
    f('reserved2', 69, 'u8', { count: 2 }),
    f('pra_truncate', 71, 'u8'),
    f('in_precision', 72, 'u8', { enum: PRECISION }),
    f('out_precision', 73, 'u8', { enum: PRECISION }),
    f('pad_val', 74, 'i16'),
    f('in_cvt', 76, DLA_CVT_PARAM),
    f('out_cvt', 84, DLA_CVT_PARAM),
  ],
};

export const DLA_SDP_CVT: StructSpec = {
  name: 'dla_sdp_cvt',
  size: 16,
  fields: [f('alu_cvt', 0, DLA_CVT_PARAM), f('mul_cvt', 8, DLA_CVT_PARAM)],
};

export const DLA_SDP_OP: StructSpec = {
  name: 'dla_sdp_op',
  size: 32,
  fields: [
    f('enable', 0, 'u8'),
    f('alu_type', 1, 'u8', { enum: SDP_ALU_TYPE }),
    f('type', 2, 'u8', { enum: SDP_OP_TYPE }),
    f('mode', 3, 'u8', { enum: SDP_OP_MODE }),
    f('act', 4, 'u8', { enum: SDP_ACT }),
    f('shift_value', 5, 'u8'),
    f('truncate', 6, 'u8'),
    f('precision', 7, 'u8', { enum: PRECISION }),
    f('alu_operand', 8, 'i32'),
    f('mul_operand', 12, 'i32'),
    f('cvt', 16, DLA_SDP_CVT),
  ],
};

export const DLA_SDP_OP_DESC: StructSpec = {
  name: 'dla_sdp_op_desc',
  size: 116,
  fields: [
    f('src_precision', 0, 'u8', { enum: PRECISION }),
    f('dst_precision', 1, 'u8', { enum: PRECISION }),
    f('lut_index', 2, 'i16'),
    f('out_cvt', 4, DLA_CVT_PARAM),
    f('conv_mode', 12, 'u8'),
    f('batch_num', 13, 'u8'),
    f('reserved0', 14, 'u16'),
    f('batch_stride', 16, 'u32'),
    f('x1_op', 20, DLA_SDP_OP),
    f('x2_op', 52, DLA_SDP_OP),
    f('y_op', 84, DLA_SDP_OP),
  ],
};

export const DLA_PDP_OP_DESC: StructSpec = {
  name: 'dla_pdp_op_desc',
  size: 52,
  fields: [
    f('partial_in_width_first', 0, 'u16'),
    f('partial_in_width_mid', 2, 'u16'),
    f('partial_in_width_last', 4, 'u16'),
    f('partial_width_first', 6, 'u16'),
    f('partial_width_mid', 8, 'u16'),
    f('partial_width_last', 10, 'u16'),
    f('split_num', 12, 'u8'),
    f('pool_mode', 13, 'u8', { enum: POOL_MODE }),
    f('pool_width', 14, 'u8', { enum: POOL_SIZE }),
    f('pool_height', 15, 'u8', { enum: POOL_SIZE }),
    f('stride_x', 16, 'u8'),
    f('stride_y', 17, 'u8'),
    f('pad_left', 18, 'u8'),
    f('pad_right', 19, 'u8'),
    f('pad_top', 20, 'u8'),
    f('pad_bottom', 21, 'u8'),
    f('precision', 22, 'u8', { enum: PRECISION }),
    f('reserved0', 23, 'u8'),
    f('padding_value', 24, 'i32', { count: 7 }),
  ],
};

export const DLA_CDP_OP_DESC: StructSpec = {
  name: 'dla_cdp_op_desc',
  size: 24,
  fields: [
    f('in_precision', 0, 'u8', { enum: PRECISION }),
    f('out_precision', 1, 'u8', { enum: PRECISION }),
    f('lut_index', 2, 'i16'),
    f('in_cvt', 4, DLA_CVT_PARAM),
    f('out_cvt', 12, DLA_CVT_PARAM),
    f('local_size', 20, 'u8'),
    f('bypass_sqsum', 21, 'u8'),
    f('bypass_out_mul', 22, 'u8'),
    f('reserved0', 23, 'u8'),
  ],
};

export const DLA_RUBIK_OP_DESC: StructSpec = {
  name: 'dla_rubik_op_desc',
  size: 4,
  fields: [f('mode', 0, 'u8', { enum: RUBIK_MODE }), f('precision', 1, 'u8', { enum: PRECISION }), f('stride_x', 2, 'u8'), f('stride_y', 3, 'u8')],
};

const DLA_LUT_OFFSET: StructSpec = {
  name: 'dla_lut_offset',
  size: 2,
  union: true,
  fields: [f('exp_offset', 0, 'i8'), f('frac_bits', 0, 'i8'), f('reserved0', 0, 'u16')],
};

const DLA_FLOAT_DATA: StructSpec = {
  name: 'dla_float_data',
  size: 4,
  fields: [f('scale', 0, 'i16'), f('shifter', 2, 'i8'), f('reserved0', 3, 'u8')],
};

const DLA_SLOPE: StructSpec = {
  name: 'dla_slope',
  size: 4,
  union: true,
  fields: [f('data_i', 0, DLA_FLOAT_DATA), f('data_f', 0, 'u16')],
};

export const DLA_LUT_PARAM: StructSpec = {
  name: 'dla_lut_param',
  size: 700,
  fields: [
    f('linear_exp_table', 0, 'i16', { count: 65 }),
    f('linear_only_table', 130, 'i16', { count: 257 }),
    f('linear_exp_offset', 644, DLA_LUT_OFFSET),
    f('linear_only_offset', 646, DLA_LUT_OFFSET),
    f('linear_exp_start', 648, 'u64'),
    f('linear_exp_end', 656, 'u64'),
    f('linear_only_start', 664, 'u64'),
    f('linear_only_end', 672, 'u64'),
    f('linear_exp_underflow_slope', 680, DLA_SLOPE),
    f('linear_exp_overflow_slope', 684, DLA_SLOPE),
    f('linear_only_underflow_slope', 688, DLA_SLOPE),
    f('linear_only_overflow_slope', 692, DLA_SLOPE),
    f('hybrid_priority', 696, 'u8', { enum: LUT_PRIORITY }),
    f('underflow_priority', 697, 'u8', { enum: LUT_PRIORITY }),
    f('overflow_priority', 698, 'u8', { enum: LUT_PRIORITY }),
    f('method', 699, 'u8', { enum: LUT_METHOD }),
  ],
};

/** Container strides (union sizes): the same in firmware 0.10, 0.11 and 0.12. */
export const DLA_COMMON_STRIDE = 36;
export const DLA_OPERATION_CONTAINER = 116;
export const DLA_SURFACE_CONTAINER = 644;
export const DLA_LUT_STRIDE = 700;

/** The op and surface descriptor of each engine for one data cube size. */
export interface DlaLayouts {
  cubeSize: 32 | 28;
  cube: StructSpec;
  op: Record<number, StructSpec>;
  surface: Record<number, StructSpec>;
}

function dlaLayouts(cubeSize: 32 | 28): DlaLayouts {
  const cube = dataCube(cubeSize);
  const two = (name: string): StructSpec => ({ name, size: 2 * cubeSize, fields: cubes(cube, ['src_data', 'dst_data']) });
  const conv: StructSpec = {
    name: 'dla_conv_surface_desc',
    size: 5 * cubeSize + 12,
    fields: [...cubes(cube, ['weight_data', 'wmb_data', 'wgs_data', 'src_data', 'dst_data']), f('offset_u', 5 * cubeSize, 'i64'), f('in_line_uv_stride', 5 * cubeSize + 8, 'u32')],
  };
  const sdp: StructSpec = { name: 'dla_sdp_surface_desc', size: 5 * cubeSize, fields: cubes(cube, ['src_data', 'x1_data', 'x2_data', 'y_data', 'dst_data']) };
  return {
    cubeSize,
    cube,
    op: { 0: DLA_BDMA_OP_DESC, 1: DLA_CONV_OP_DESC, 2: DLA_SDP_OP_DESC, 3: DLA_PDP_OP_DESC, 4: DLA_CDP_OP_DESC, 5: DLA_RUBIK_OP_DESC },
    surface: { 0: DLA_BDMA_SURFACE_DESC, 1: conv, 2: sdp, 3: two('dla_pdp_surface_desc'), 4: two('dla_cdp_surface_desc'), 5: two('dla_rubik_surface_desc') },
  };
}

export const DLA_LAYOUTS_0_12 = dlaLayouts(32);
export const DLA_LAYOUTS_0_10 = dlaLayouts(28);

// ---- EMU (CPU) interface ---------------------------------------------------------------------

export const EMU_NETWORK_DESC: StructSpec = {
  name: 'emu_network_desc',
  size: 256,
  fields: [f('operation_desc_index', 0, 'i16'), f('operation_buffer_desc_index', 2, 'i16'), f('num_operations', 4, 'u16')],
};

export interface EmuLayouts {
  /** `0.0.1` (INT8 scale factors, 24-byte ops) or `pre-0.0.1` (16-byte ops) */
  name: string;
  opStride: number;
  /** op descriptor by op type (POWER 0, SOFTMAX 1) */
  op: Record<number, StructSpec>;
  /** the descriptor used to read op_type before the type is known */
  common: StructSpec;
  buffers: StructSpec;
}

function emuLayouts(legacy: boolean): EmuLayouts {
  const common: StructSpec = legacy
    ? { name: 'emu_common_op_desc', size: 1, fields: [f('op_type', 0, 'u8', { enum: EMU_OP_TYPE })] }
    : {
        name: 'emu_common_op_desc',
        size: 12,
        fields: [f('op_type', 0, 'u8', { enum: EMU_OP_TYPE }), f('input_scale_factor', 4, 'f32'), f('output_scale_factor', 8, 'f32')],
      };
  const c = common.size;
  const power: StructSpec = {
    name: 'emu_power_op_desc',
    size: legacy ? 16 : 24,
    fields: [f('common', 0, common), f('power', c, 'f32'), f('scale', c + 4, 'f32'), f('shift', c + 8, 'f32')],
  };
  const softmax: StructSpec = { name: 'emu_softmax_op_desc', size: legacy ? 4 : 16, fields: [f('common', 0, common), f('axis', c, 'u8')] };
  // the buffer format codes changed with the INT8 support (EMUInterfaceEnums.h before it: INT8, INT16, FP16)
  const format = legacy ? { 0: 'INT8', 1: 'INT16', 2: 'FF16' } : EMU_BUFFER_FORMAT;
  const o = legacy ? 0 : 4; // bytes added by addressIndexOffset
  const bufFields = [f('addressIndex', 0, 'i16')];
  if (!legacy) bufFields.push(f('addressIndexOffset', 2, 'u32'));
  bufFields.push(
    f('size', 2 + o, 'u32'),
    f('format', 6 + o, 'u16', { enum: format }),
    f('width', 8 + o, 'u16'),
    f('height', 10 + o, 'u16'),
    f('channel', 12 + o, 'u16'),
    f('line_stride', 14 + o, 'u32'),
    f('surf_stride', 18 + o, 'u32'),
  );
  const buffer: StructSpec = { name: 'emu_buffer_desc', size: 256, fields: bufFields };
  return {
    name: legacy ? 'pre-0.0.1' : '0.0.1',
    opStride: legacy ? 16 : 24,
    op: { 0: power, 1: softmax },
    common,
    buffers: { name: 'emu_buffer_descs', size: 512, fields: [f('src_data', 0, buffer), f('dst_data', 256, buffer)] },
  };
}

export const EMU_LAYOUTS_0_0_1 = emuLayouts(false);
export const EMU_LAYOUTS_LEGACY = emuLayouts(true);

// ---- decoding ----------------------------------------------------------------------------------

export interface DecodedField {
  /** field name, or the element label inside an array (`CONV`, `0`) */
  name: string;
  /** byte offset inside the blob the struct was read from */
  offset: number;
  size: number;
  /** scalar type or struct name (arrays: `u8[3]`, `dla_consumer[6]`) */
  type: string;
  /** scalars: the value (64-bit values past 2^53 are approximate; `text` is then exact) */
  value?: number;
  /** 64-bit scalars: the exact decimal */
  text?: string;
  /** scalars with an enum: its name, or null when the value has none */
  enumName?: string | null;
  /** structs and arrays: their members */
  fields?: DecodedField[];
  /** true when the bytes ended before this field */
  missing?: boolean;
}

export interface DecodedStruct {
  struct: string;
  /** the layout it was decoded with (the diff re-reads the other file's bytes with it) */
  spec: StructSpec;
  /** blob the bytes came from (null when they could not be located) */
  blob: string | null;
  /** byte offset of the struct inside that blob */
  offset: number;
  size: number;
  fields: DecodedField[];
  /** set when the struct could not be read whole, saying why */
  damage?: string;
}

function readScalar(view: DataView, pos: number, t: ScalarType): number {
  switch (t) {
    case 'u8':
      return view.getUint8(pos);
    case 'i8':
      return view.getInt8(pos);
    case 'u16':
      return view.getUint16(pos, true);
    case 'i16':
      return view.getInt16(pos, true);
    case 'u32':
      return view.getUint32(pos, true);
    case 'i32':
      return view.getInt32(pos, true);
    case 'f32':
      return view.getFloat32(pos, true);
    case 'u64':
      return Number(view.getBigUint64(pos, true));
    case 'i64':
      return Number(view.getBigInt64(pos, true));
  }
}

function typeName(spec: FieldSpec): string {
  const base = typeof spec.type === 'string' ? spec.type : spec.type.name;
  return spec.count !== undefined ? `${base}[${spec.count}]` : base;
}

function elementSize(spec: FieldSpec): number {
  return typeof spec.type === 'string' ? SCALAR_BYTES[spec.type] : spec.type.size;
}

function decodeOne(view: DataView, avail: number, base: number, type: ScalarType | StructSpec, name: string, enumTable: EnumTable | undefined): DecodedField {
  if (typeof type === 'string') {
    const size = SCALAR_BYTES[type];
    if (base + size > avail) return { name, offset: base, size, type, missing: true };
    const value = readScalar(view, base, type);
    const out: DecodedField = { name, offset: base, size, type, value };
    if (size === 8 && !Number.isSafeInteger(value)) out.text = (type === 'u64' ? view.getBigUint64(base, true) : view.getBigInt64(base, true)).toString();
    if (enumTable) out.enumName = enumTable[value] ?? null;
    return out;
  }
  const fields = new Array<DecodedField>(type.fields.length);
  for (let i = 0; i < fields.length; i++) fields[i] = decodeField(view, avail, base, type.fields[i]!);
  const out: DecodedField = { name, offset: base, size: type.size, type: type.name, fields };
  if (base >= avail) out.missing = true;
  return out;
}

function decodeField(view: DataView, avail: number, structBase: number, spec: FieldSpec): DecodedField {
  const pos = structBase + spec.offset;
  if (spec.count === undefined) return decodeOne(view, avail, pos, spec.type, spec.name, spec.enum);
  const el = elementSize(spec);
  const items = new Array<DecodedField>(spec.count);
  for (let i = 0; i < spec.count; i++) items[i] = decodeOne(view, avail, pos + i * el, spec.type, spec.labels?.[i] ?? String(i), spec.enum);
  return { name: spec.name, offset: pos, size: el * spec.count, type: typeName(spec), fields: items };
}

/**
 * Decodes `spec` from `bytes` at `offset`. Bytes that end early leave the remaining fields
 * `missing` and set `damage`; nothing throws.
 */
export function decodeStruct(spec: StructSpec, bytes: Uint8Array, offset: number, blob: string | null): DecodedStruct {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const avail = bytes.byteLength;
  const fields = new Array<DecodedField>(spec.fields.length);
  for (let i = 0; i < fields.length; i++) fields[i] = decodeField(view, avail, offset, spec.fields[i]!);
  const out: DecodedStruct = { struct: spec.name, spec, blob, offset, size: spec.size, fields };
  if (offset + spec.size > avail) {
    out.damage = `${spec.name} needs ${spec.size} bytes at offset ${offset} but ${blob ? `blob "${blob}"` : 'the data'} ends at ${avail}`;
  }
  return out;
}

/** A scalar with its dotted path inside the top struct (`consumers.CONV.index`). */
export interface Leaf {
  path: string;
  field: DecodedField;
}

/** Every scalar of a decoded struct with its path, depth first, in layout order. */
export function leaves(fields: DecodedField[], prefix = '', out: Leaf[] = []): Leaf[] {
  for (const x of fields) {
    const path = prefix ? `${prefix}.${x.name}` : x.name;
    if (x.fields) leaves(x.fields, path, out);
    else out.push({ path, field: x });
  }
  return out;
}

/** A member by dotted path (`src_data.address`), or undefined. */
export function member(s: DecodedStruct | DecodedField, path: string): DecodedField | undefined {
  let fields = s.fields;
  let found: DecodedField | undefined;
  let from = 0;
  while (from <= path.length) {
    let to = path.indexOf('.', from);
    if (to < 0) to = path.length;
    const part = path.slice(from, to);
    found = undefined;
    if (fields) for (const x of fields) if (x.name === part) { found = x; break; }
    if (!found) return undefined;
    fields = found.fields;
    from = to + 1;
  }
  return found;
}

/** The numeric value at a dotted path, or undefined when absent or missing. */
export function valueOf(s: DecodedStruct | DecodedField, path: string): number | undefined {
  return member(s, path)?.value;
}

/** The shortest decimal that reads back as the same float32 (`0.1811`, not `0.181099995970726`). */
function float32Text(v: number): string {
  if (!Number.isFinite(v)) return String(v);
  for (let p = 1; p <= 9; p++) {
    const t = Number(v.toPrecision(p));
    if (Math.fround(t) === v) return String(t);
  }
  return String(v);
}

/** The exact decimal of a scalar (`-1`, `127`, `18446744073709551615`, `0.1811`). */
export function scalarText(x: DecodedField): string {
  if (x.text !== undefined) return x.text;
  return x.type === 'f32' && x.value !== undefined ? float32Text(x.value) : String(x.value);
}

/** `12 (A8B8G8R8)`, `-1`, `3 (?)` for an enum without a name. */
export function formatScalar(x: DecodedField): string {
  if (x.missing) return '(missing)';
  const t = scalarText(x);
  if (x.enumName === undefined) return t;
  return x.enumName === null ? `${t} (?)` : `${t} (${x.enumName})`;
}
