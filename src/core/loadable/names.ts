/**
 * Enum names of the loadable schema (`schemas/loadable.fbs`) plus the values the compiler
 * writes that the schema lacks (notes/nvdla.md section 2.2), and of the firmware interfaces
 * (sections 4 and 5). A value without a name is shown as its number.
 */

export type EnumTable = Readonly<Record<number, string>>;

export const INTERFACE: EnumTable = { 0: 'NONE', 1: 'DLA1', 2: 'EMU1' };
export const MEMORY_DOMAIN: EnumTable = { 0: 'SYSTEM', 1: 'SRAM' };
export const MEMORY_FLAG_BITS: readonly [number, string][] = [
  [1, 'ALLOC'],
  [2, 'SET'],
  [4, 'INPUT'],
  [8, 'OUTPUT'],
  [16, 'DEBUG'],
];
export const EVENT_TYPE: EnumTable = { 0: 'EVENTTYPE0', 1: 'EVENTTYPE1', 2: 'EVENTTYPE2' };
export const EVENT_OP: EnumTable = { 0: 'WAIT', 1: 'SIGNAL' };
/** DataFormat of the schema plus 3 (NCxHWx), which the compiler writes for outputs */
export const DATA_FORMAT: EnumTable = { 0: 'UNKNOWN', 1: 'NCHW', 2: 'NHWC', 3: 'NCxHWx' };
/** DataType of the schema plus 5 / 6 (UINT8 / UINT16), which the compiler can write */
export const DATA_TYPE: EnumTable = { 0: 'UNKNOWN', 1: 'FLOAT', 2: 'HALF', 3: 'INT16', 4: 'INT8', 5: 'UINT8', 6: 'UINT16' };
export const DATA_CATEGORY: EnumTable = { 0: 'IMAGE', 1: 'WEIGHT', 2: 'FEATURE', 3: 'PLANAR', 4: 'BIAS' };
export const PIXEL_MAPPING: EnumTable = { 0: 'PITCH_LINEAR', 1: 'INVALID_PIXEL_MAP' };
/** PixelFormat of the schema; also the firmware's FORMAT_T_* codes (conv `data_format`) */
export const PIXEL_FORMAT: EnumTable = Object.fromEntries(
  [
    'R8', 'R10', 'R12', 'R16', 'R16_I', 'R16_F', 'A16B16G16R16', 'X16B16G16R16', 'A16B16G16R16_F', 'A16Y16U16V16',
    'V16U16Y16A16', 'A16Y16U16V16_F', 'A8B8G8R8', 'A8R8G8B8', 'B8G8R8A8', 'R8G8B8A8', 'X8B8G8R8', 'X8R8G8B8',
    'B8G8R8X8', 'R8G8B8X8', 'A2B10G10R10', 'A2R10G10B10', 'B10G10R10A2', 'R10G10B10A2', 'A2Y10U10V10',
    'V10U10Y10A2', 'A8Y8U8V8', 'V8U8Y8A8', 'Y8_U8V8_N444', 'Y8_V8U8_N444', 'Y10_U10V10_N444', 'Y10_V10U10_N444',
    'Y12_U12V12_N444', 'Y12_V12U12_N444', 'Y16_U16V16_N444', 'Y16_V16U16_N444', 'FEATURE', 'FEATURE_X8',
  ].map((n, i) => [i, n]),
);
/** reloc_type (`enum ELST`, priv/Type.h) */
export const RELOC_TYPE: EnumTable = { 1: 'LINE_STRIDE', 2: 'SURFACE_STRIDE' };

/** Blob sub_interface by interface (`NvDlaLoadable.h`) */
export const DLA_SUB_INTERFACE: EnumTable = { 0: 'NONE', 1: 'ADDR0', 2: 'DEPS', 3: 'OPS', 4: 'SURFS', 5: 'LUTS' };
export const EMU_SUB_INTERFACE: EnumTable = { 0: 'NONE', 1: 'ADDR0', 3: 'OPS', 4: 'SURFS' };

// ---- firmware (dla_interface.h 0.12, emu_interface.h) --------------------------------------

/** DLA op types; also the index into `op_head[]` and `consumers[]` */
export const DLA_ENGINES = ['BDMA', 'CONV', 'SDP', 'PDP', 'CDP', 'RUBIK'] as const;
export type DlaEngine = (typeof DLA_ENGINES)[number];
export const DLA_OP_TYPE: EnumTable = Object.fromEntries(DLA_ENGINES.map((n, i) => [i, n]));
export const DLA_EVENT: EnumTable = {
  1: 'OP_COMPLETED',
  2: 'OP_PROGRAMMED',
  3: 'OP_ENABLED',
  4: 'CDMA_WT_DONE',
  5: 'CDMA_DT_DONE',
};
export const DLA_MEM_TYPE: EnumTable = { 0: 'MC', 1: 'CV', 2: 'HW' };
export const PRECISION: EnumTable = { 0: 'INT8', 1: 'INT16', 2: 'FP16' };
export const CONV_MODE: EnumTable = { 0: 'DIRECT', 1: 'WINOGRAD' };
export const WEIGHT_FORMAT: EnumTable = { 0: 'UNCOMPRESSED', 1: 'COMPRESSED' };
export const MEAN_FORMAT: EnumTable = { 0: 'DISABLE', 1: 'ENABLE' };
export const PIXEL_OVERRIDE: EnumTable = { 0: 'UINT', 1: 'INT' };
export const FW_PIXEL_MAPPING: EnumTable = { 0: 'PITCH_LINEAR' };
export const SDP_ALU_TYPE: EnumTable = { 0: 'MAX', 1: 'MIN', 2: 'SUM', 3: 'EQL' };
export const SDP_OP_TYPE: EnumTable = { 0: 'NONE', 1: 'MUL', 2: 'ADD', 3: 'BOTH' };
export const SDP_OP_MODE: EnumTable = { 0: 'PER_LAYER', 1: 'PER_KERNEL', 2: 'PER_POINT' };
export const SDP_ACT: EnumTable = { 0: 'NONE', 1: 'RELU', 2: 'LUT', 3: 'PRELU' };
export const POOL_MODE: EnumTable = { 0: 'AVG', 1: 'MAX', 2: 'MIN' };
/** pool sizes are stored as n - 1 */
export const POOL_SIZE: EnumTable = { 0: 'SIZE_1', 1: 'SIZE_2', 2: 'SIZE_3', 3: 'SIZE_4', 4: 'SIZE_5', 5: 'SIZE_6', 6: 'SIZE_7', 7: 'SIZE_8' };
export const RUBIK_MODE: EnumTable = { 0: 'CONTRACT', 1: 'SPLIT', 2: 'MERGE' };
export const LUT_METHOD: EnumTable = { 0: 'EXPONENTIAL', 1: 'LINEAR' };
export const LUT_PRIORITY: EnumTable = { 0: 'LINEAR_EXP', 1: 'LINEAR_ONLY' };

export const EMU_OP_TYPE: EnumTable = { 0: 'POWER', 1: 'SOFTMAX' };
/** EMU buffer formats (`EMUInterface.h`) */
export const EMU_BUFFER_FORMAT: EnumTable = { 0: 'INT8', 1: 'INT8_8', 2: 'INT16', 3: 'FF16', 4: 'UINT8', 5: 'UINT16' };

/** `NAME` or the number when the table has no name for it. */
export function enumName(table: EnumTable, value: number): string {
  return table[value] ?? String(value);
}

/** Names of the known enum value, or null when the value has none. */
export function knownName(table: EnumTable, value: number): string | null {
  return table[value] ?? null;
}

/** `ALLOC|SET` (unknown bits as a number: `ALLOC|0x40`); `NONE` for 0. */
export function memoryFlagsName(flags: number): string {
  if (flags === 0) return 'NONE';
  const parts: string[] = [];
  let rest = flags;
  for (const [bit, name] of MEMORY_FLAG_BITS) {
    if (flags & bit) {
      parts.push(name);
      rest &= ~bit;
    }
  }
  if (rest) parts.push(`0x${rest.toString(16)}`);
  return parts.join('|');
}

export function subInterfaceName(iface: number, sub: number): string {
  if (iface === 1) return enumName(DLA_SUB_INTERFACE, sub);
  if (iface === 2) return enumName(EMU_SUB_INTERFACE, sub);
  return String(sub);
}
