/**
 * Surface formats of the NVDLA compiler (`SurfaceEnums.h` of nvdla/sw umd): each format's
 * category, precision, bytes per element and channels per atom (-1: not fixed). Plain tables so
 * every stage can name a format as text.
 */
export type SurfaceCategory =
  | 'UNKNOWN'
  | 'IMG'
  | 'WEIGHT'
  | 'FEATURE_DATA'
  | 'M_PLANAR'
  | 'BIAS_DATA'
  | 'BATCH_NORM_DATA'
  | 'SCALE_DATA';

export type SurfacePrecision = 'UNKNOWN' | 'INT8' | 'INT16' | 'FP16' | 'UINT8' | 'UINT16';

export interface SurfaceFormatInfo {
  name: string;
  category: SurfaceCategory;
  precision: SurfacePrecision;
  bytesPerElement: number;
  channelsPerAtom: number;
  /** the enum ordinal upstream */
  ordinal: number;
}

type Row = [string, SurfaceCategory, SurfacePrecision, number, number];

// name, category, precision, bytes per element, channels per atom (ordinal = row index)
const ROWS: Row[] = [
  ['NVDLA_IMG_R8', 'IMG', 'INT8', 1, 1],
  ['NVDLA_IMG_R10', 'IMG', 'INT16', 2, 1],
  ['NVDLA_IMG_R12', 'IMG', 'INT16', 2, 1],
  ['NVDLA_IMG_R16', 'IMG', 'INT16', 2, 1],
  ['NVDLA_IMG_R16_I', 'IMG', 'INT16', 2, 1],
  ['NVDLA_IMG_R16_F', 'IMG', 'FP16', 2, 1],
  ['NVDLA_IMG_A16B16G16R16', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_X16B16G16R16', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_A16B16G16R16_F', 'IMG', 'FP16', 2, 4],
  ['NVDLA_IMG_A16Y16U16V16', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_V16U16Y16A16', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_A16Y16U16V16_F', 'IMG', 'FP16', 2, 4],
  ['NVDLA_IMG_A8B8G8R8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_A8R8G8B8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_B8G8R8A8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_R8G8B8A8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_X8B8G8R8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_X8R8G8B8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_B8G8R8X8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_R8G8B8X8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_A2B10G10R10', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_A2R10G10B10', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_B10G10R10A2', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_R10G10B10A2', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_A2Y10U10V10', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_V10U10Y10A2', 'IMG', 'INT16', 2, 4],
  ['NVDLA_IMG_A8Y8U8V8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_V8U8Y8A8', 'IMG', 'INT8', 1, 4],
  ['NVDLA_IMG_Y8___U8V8_N444', 'IMG', 'INT8', 1, 3],
  ['NVDLA_IMG_Y8___V8U8_N444', 'IMG', 'INT8', 1, 3],
  ['NVDLA_IMG_Y10___U10V10_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_IMG_Y10___V10U10_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_IMG_Y12___U12V12_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_IMG_Y12___V12U12_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_IMG_Y16___U16V16_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_IMG_Y16___V16U16_N444', 'IMG', 'INT16', 2, 3],
  ['NVDLA_WEIGHT_DC_INT8', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_DC_INT8_COMPRESSED', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_WG_INT8', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_WG_INT8_COMPRESSED', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_IMG_INT8', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_IMG_INT8_COMPRESSED', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_DECONV_INT8', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_DECONV_INT8_COMPRESSED', 'WEIGHT', 'INT8', 1, -1],
  ['NVDLA_WEIGHT_DC_INT16', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_DC_INT16_COMPRESSED', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_WG_INT16', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_WG_INT16_COMPRESSED', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_IMG_INT16', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_IMG_INT16_COMPRESSED', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_DECONV_INT16', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_DECONV_INT16_COMPRESSED', 'WEIGHT', 'INT16', 2, -1],
  ['NVDLA_WEIGHT_DC_FP16', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_DC_FP16_COMPRESSED', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_WG_FP16', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_WG_FP16_COMPRESSED', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_IMG_FP16', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_IMG_FP16_COMPRESSED', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_DECONV_FP16', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_WEIGHT_DECONV_FP16_COMPRESSED', 'WEIGHT', 'FP16', 2, -1],
  ['NVDLA_BIAS_DATA_INT8', 'BIAS_DATA', 'INT8', 1, -1],
  ['NVDLA_BIAS_DATA_INT16', 'BIAS_DATA', 'INT16', 2, -1],
  ['NVDLA_BIAS_DATA_FP16', 'BIAS_DATA', 'FP16', 2, -1],
  ['NVDLA_FEATURE_DATA_INT8', 'FEATURE_DATA', 'INT8', 1, -1],
  ['NVDLA_FEATURE_DATA_INT16', 'FEATURE_DATA', 'INT16', 2, -1],
  ['NVDLA_FEATURE_DATA_FP16', 'FEATURE_DATA', 'FP16', 2, -1],
  ['NVDLA_M_PLANAR_INT8', 'M_PLANAR', 'INT8', 1, -1],
  ['NVDLA_M_PLANAR_INT16', 'M_PLANAR', 'INT16', 2, -1],
  ['NVDLA_M_PLANAR_FP16', 'M_PLANAR', 'FP16', 2, -1],
  ['NVDLA_BATCH_NORM_DATA_INT8', 'BATCH_NORM_DATA', 'INT8', 1, -1],
  ['NVDLA_BATCH_NORM_DATA_INT16', 'BATCH_NORM_DATA', 'INT16', 2, -1],
  ['NVDLA_BATCH_NORM_DATA_FP16', 'BATCH_NORM_DATA', 'FP16', 2, -1],
  ['NVDLA_SCALE_DATA_INT8', 'SCALE_DATA', 'INT8', 1, -1],
  ['NVDLA_SCALE_DATA_INT16', 'SCALE_DATA', 'INT16', 2, -1],
  ['NVDLA_SCALE_DATA_FP16', 'SCALE_DATA', 'FP16', 2, -1],
  ['NVDLA_UNKNOWN_FORMAT', 'UNKNOWN', 'UNKNOWN', 0, -1],
];

const BY_NAME = new Map<string, SurfaceFormatInfo>(
  ROWS.map(([name, category, precision, bytesPerElement, channelsPerAtom], ordinal) => [
    name,
    { name, category, precision, bytesPerElement, channelsPerAtom, ordinal },
  ]),
);

export const SURFACE_FORMATS: readonly SurfaceFormatInfo[] = [...BY_NAME.values()];

export function surfaceFormat(name: string): SurfaceFormatInfo {
  const f = BY_NAME.get(name);
  if (!f) throw new RangeError(`unknown NVDLA surface format ${name}`);
  return f;
}

/** The public pixel formats (`nvdla::PixelFormat`, IType.h / the loadable's PixelFormat enum order). */
export const PIXEL_FORMATS = [
  'R8', 'R10', 'R12', 'R16', 'R16_I', 'R16_F', 'A16B16G16R16', 'X16B16G16R16', 'A16B16G16R16_F',
  'A16Y16U16V16', 'V16U16Y16A16', 'A16Y16U16V16_F', 'A8B8G8R8', 'A8R8G8B8', 'B8G8R8A8', 'R8G8B8A8',
  'X8B8G8R8', 'X8R8G8B8', 'B8G8R8X8', 'R8G8B8X8', 'A2B10G10R10', 'A2R10G10B10', 'B10G10R10A2',
  'R10G10B10A2', 'A2Y10U10V10', 'V10U10Y10A2', 'A8Y8U8V8', 'V8U8Y8A8', 'Y8___U8V8_N444',
  'Y8___V8U8_N444', 'Y10___U10V10_N444', 'Y10___V10U10_N444', 'Y12___U12V12_N444',
  'Y12___V12U12_N444', 'Y16___U16V16_N444', 'Y16___V16U16_N444', 'FEATURE', 'FEATURE_X8',
] as const;
export type PixelFormat = (typeof PIXEL_FORMATS)[number];

/** Public data formats (`nvdla::DataFormat`): values as in the loadable (NCxHWx = 3 is not in its .fbs). */
export type DataFormat = 'UNKNOWN' | 'NCHW' | 'NHWC' | 'NCxHWx';
export const DATA_FORMAT_CODE: Record<DataFormat, number> = { UNKNOWN: 0, NCHW: 1, NHWC: 2, NCxHWx: 3 };

/**
 * `Profile.cpp setSurfaceFormat`: the surface format a pixel format means at a compute
 * precision. IMG pixel formats map one to one; FEATURE follows the precision; FEATURE_X8 exists
 * only for INT8. Returns null where upstream fails ("Cant determine surface format FEATURE_ ...").
 */
export function surfaceFormatOfPixelFormat(pf: PixelFormat, precision: SurfacePrecision): string | null {
  if (pf === 'FEATURE') {
    if (precision === 'FP16') return 'NVDLA_FEATURE_DATA_FP16';
    if (precision === 'INT16') return 'NVDLA_FEATURE_DATA_INT16';
    if (precision === 'INT8') return 'NVDLA_FEATURE_DATA_INT8';
    return null;
  }
  if (pf === 'FEATURE_X8') return precision === 'INT8' ? 'NVDLA_FEATURE_DATA_INT8' : null;
  return `NVDLA_IMG_${pf}`;
}
