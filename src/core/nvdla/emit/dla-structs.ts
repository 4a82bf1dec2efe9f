/**
 * The DLA firmware interface 0.12 structures the compiler writes into a loadable's task blobs
 * (nvdla.md section 4; `dla_interface.h`, packed little-endian, as gcc lays them out on x86-64),
 * as plain objects named field by field like the C structs, and their byte writers. Everything
 * not set stays zero, as upstream's `memset(0)` containers leave it.
 */

export const DLA_OP_TYPE = { BDMA: 0, CONV: 1, SDP: 2, PDP: 3, CDP: 4, RUBIK: 5 } as const;
export type DlaOpType = keyof typeof DLA_OP_TYPE;
export const DLA_OP_TYPES = Object.keys(DLA_OP_TYPE) as DlaOpType[];

export const SIZES = {
  networkDesc: 40,
  commonOpDesc: 36,
  operationContainer: 116,
  surfaceContainer: 644,
  lutParam: 700,
  dataCube: 32,
} as const;

export interface Consumer {
  index: number;
  event: number;
}

export interface CvtParam {
  scale: number;
  truncate: number;
  enable: number;
  offset: number;
}

export interface DataCube {
  type: number;
  address: number;
  offset: number;
  size: number;
  width: number;
  height: number;
  channel: number;
  line_stride: number;
  surf_stride: number;
  plane_stride: number;
}

export interface NetworkDesc {
  operation_desc_index: number;
  surface_desc_index: number;
  dependency_graph_index: number;
  lut_data_index: number;
  roi_array_index: number;
  surface_index: number;
  stat_list_index: number;
  /** by op type: BDMA, CONV, SDP, PDP, CDP, RUBIK */
  op_head: number[];
  num_rois: number;
  num_operations: number;
  num_luts: number;
  num_addresses: number;
  input_layer: number;
  dynamic_roi: number;
}

export interface CommonOpDesc {
  index: number;
  roi_index: number;
  op_type: number;
  dependency_count: number;
  /** by op type: BDMA, CONV, SDP, PDP, CDP, RUBIK */
  consumers: Consumer[];
  fused_parent: Consumer;
}

export interface ConvOpDesc {
  conv_mode: number;
  data_reuse: number;
  weight_reuse: number;
  skip_data_rls: number;
  skip_weight_rls: number;
  entry_per_slice: number;
  data_format: number;
  pixel_mapping: number;
  fetch_grain: number;
  batch: number;
  weight_format: number;
  data_bank: number;
  weight_bank: number;
  batch_stride: number;
  post_extension: number;
  pixel_override: number;
  release: number;
  input_width_csc: number;
  input_height_csc: number;
  input_channel_csc: number;
  kernel_width_csc: number;
  kernel_height_csc: number;
  kernel_channel_csc: number;
  input_width_cmac: number;
  input_height_cmac: number;
  bytes_per_kernel: number;
  mean_ry: number;
  mean_gu: number;
  mean_bv: number;
  mean_ax: number;
  mean_format: number;
  conv_stride_x: number;
  conv_stride_y: number;
  pad_x_left: number;
  pad_x_right: number;
  pad_y_top: number;
  pad_y_bottom: number;
  dilation_x: number;
  dilation_y: number;
  pra_truncate: number;
  in_precision: number;
  out_precision: number;
  pad_val: number;
  in_cvt: CvtParam;
  out_cvt: CvtParam;
}

export interface ConvSurfaceDesc {
  weight_data: DataCube;
  wmb_data: DataCube;
  wgs_data: DataCube;
  src_data: DataCube;
  dst_data: DataCube;
  offset_u: number;
  in_line_uv_stride: number;
}

export interface SdpOp {
  enable: number;
  alu_type: number;
  type: number;
  mode: number;
  act: number;
  shift_value: number;
  truncate: number;
  precision: number;
  alu_operand: number;
  mul_operand: number;
  alu_cvt: CvtParam;
  mul_cvt: CvtParam;
}

export interface SdpOpDesc {
  src_precision: number;
  dst_precision: number;
  lut_index: number;
  out_cvt: CvtParam;
  conv_mode: number;
  batch_num: number;
  batch_stride: number;
  x1_op: SdpOp;
  x2_op: SdpOp;
  y_op: SdpOp;
}

export interface SdpSurfaceDesc {
  src_data: DataCube;
  x1_data: DataCube;
  x2_data: DataCube;
  y_data: DataCube;
  dst_data: DataCube;
}

export interface PdpOpDesc {
  partial_in_width_first: number;
  partial_in_width_mid: number;
  partial_in_width_last: number;
  partial_width_first: number;
  partial_width_mid: number;
  partial_width_last: number;
  split_num: number;
  pool_mode: number;
  pool_width: number;
  pool_height: number;
  stride_x: number;
  stride_y: number;
  pad_left: number;
  pad_right: number;
  pad_top: number;
  pad_bottom: number;
  precision: number;
  padding_value: number[];
}

export interface SrcDstSurfaceDesc {
  src_data: DataCube;
  dst_data: DataCube;
}

export type DlaOpDesc =
  | { kind: 'CONV'; op: ConvOpDesc; surface: ConvSurfaceDesc }
  | { kind: 'SDP'; op: SdpOpDesc; surface: SdpSurfaceDesc }
  | { kind: 'PDP'; op: PdpOpDesc; surface: SrcDstSurfaceDesc }
  | { kind: 'CDP'; op: CdpOpDesc; surface: SrcDstSurfaceDesc };

// ------------------------------------------------------------------ empty values

export const zeroCvt = (): CvtParam => ({ scale: 0, truncate: 0, enable: 0, offset: 0 });
export const zeroCube = (): DataCube => ({ type: 0, address: 0, offset: 0, size: 0, width: 0, height: 0, channel: 0, line_stride: 0, surf_stride: 0, plane_stride: 0 });
export const zeroSdpOp = (): SdpOp => ({ enable: 0, alu_type: 0, type: 0, mode: 0, act: 0, shift_value: 0, truncate: 0, precision: 0, alu_operand: 0, mul_operand: 0, alu_cvt: zeroCvt(), mul_cvt: zeroCvt() });

export function zeroConvOp(): ConvOpDesc {
  return {
    conv_mode: 0, data_reuse: 0, weight_reuse: 0, skip_data_rls: 0, skip_weight_rls: 0, entry_per_slice: 0, data_format: 0, pixel_mapping: 0, fetch_grain: 0, batch: 0,
    weight_format: 0, data_bank: 0, weight_bank: 0, batch_stride: 0, post_extension: 0, pixel_override: 0, release: 0, input_width_csc: 0, input_height_csc: 0,
    input_channel_csc: 0, kernel_width_csc: 0, kernel_height_csc: 0, kernel_channel_csc: 0, input_width_cmac: 0, input_height_cmac: 0, bytes_per_kernel: 0,
    mean_ry: 0, mean_gu: 0, mean_bv: 0, mean_ax: 0, mean_format: 0, conv_stride_x: 0, conv_stride_y: 0, pad_x_left: 0, pad_x_right: 0, pad_y_top: 0, pad_y_bottom: 0,
    dilation_x: 0, dilation_y: 0, pra_truncate: 0, in_precision: 0, out_precision: 0, pad_val: 0, in_cvt: zeroCvt(), out_cvt: zeroCvt(),
  };
}

export function zeroSdpOpDesc(): SdpOpDesc {
  return { src_precision: 0, dst_precision: 0, lut_index: 0, out_cvt: zeroCvt(), conv_mode: 0, batch_num: 0, batch_stride: 0, x1_op: zeroSdpOp(), x2_op: zeroSdpOp(), y_op: zeroSdpOp() };
}

export function zeroPdpOpDesc(): PdpOpDesc {
  return {
    partial_in_width_first: 0, partial_in_width_mid: 0, partial_in_width_last: 0, partial_width_first: 0, partial_width_mid: 0, partial_width_last: 0, split_num: 0,
    pool_mode: 0, pool_width: 0, pool_height: 0, stride_x: 0, stride_y: 0, pad_left: 0, pad_right: 0, pad_top: 0, pad_bottom: 0, precision: 0, padding_value: [0, 0, 0, 0, 0, 0, 0],
  };
}

// ------------------------------------------------------------------ writers

/** little-endian writes at a base offset; values are truncated to the field width as C stores them */
export class StructWriter {
  private readonly view: DataView;
  constructor(readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(at: number, v: number): void {
    this.view.setUint8(at, v & 0xff);
  }
  i8(at: number, v: number): void {
    this.view.setInt8(at, (v << 24) >> 24);
  }
  u16(at: number, v: number): void {
    this.view.setUint16(at, v & 0xffff, true);
  }
  i16(at: number, v: number): void {
    this.view.setInt16(at, (v << 16) >> 16, true);
  }
  u32(at: number, v: number): void {
    this.view.setUint32(at, v >>> 0, true);
  }
  i32(at: number, v: number): void {
    this.view.setInt32(at, v | 0, true);
  }
  i64(at: number, v: number): void {
    this.view.setBigInt64(at, BigInt(v), true);
  }
  f32(at: number, v: number): void {
    this.view.setFloat32(at, v, true);
  }
}

export function writeNetworkDesc(w: StructWriter, at: number, d: NetworkDesc): void {
  w.i16(at + 0, d.operation_desc_index);
  w.i16(at + 2, d.surface_desc_index);
  w.i16(at + 4, d.dependency_graph_index);
  w.i16(at + 6, d.lut_data_index);
  w.i16(at + 8, d.roi_array_index);
  w.i16(at + 10, d.surface_index);
  w.i16(at + 12, d.stat_list_index);
  d.op_head.forEach((h, i) => w.i16(at + 16 + 2 * i, h));
  w.u16(at + 28, d.num_rois);
  w.u16(at + 30, d.num_operations);
  w.u16(at + 32, d.num_luts);
  w.u16(at + 34, d.num_addresses);
  w.i16(at + 36, d.input_layer);
  w.u8(at + 38, d.dynamic_roi);
}

function writeConsumer(w: StructWriter, at: number, c: Consumer): void {
  w.i16(at, c.index);
  w.u8(at + 2, c.event);
}

export function writeCommonOpDesc(w: StructWriter, at: number, d: CommonOpDesc): void {
  w.i16(at + 0, d.index);
  w.i8(at + 2, d.roi_index);
  w.u8(at + 3, d.op_type);
  w.u8(at + 4, d.dependency_count);
  d.consumers.forEach((c, i) => writeConsumer(w, at + 8 + 4 * i, c));
  writeConsumer(w, at + 32, d.fused_parent);
}

function writeCvt(w: StructWriter, at: number, c: CvtParam): void {
  w.i16(at, c.scale);
  w.u8(at + 2, c.truncate);
  w.u8(at + 3, c.enable);
  w.i32(at + 4, c.offset);
}

/** the offsets of `line_stride` and `surf_stride` inside a data cube (relocs point at them) */
export const CUBE_LINE_STRIDE = 20;
export const CUBE_SURF_STRIDE = 24;

export function writeDataCube(w: StructWriter, at: number, c: DataCube): void {
  w.u16(at + 0, c.type);
  w.i16(at + 2, c.address);
  w.u32(at + 4, c.offset);
  w.u32(at + 8, c.size);
  w.u16(at + 12, c.width);
  w.u16(at + 14, c.height);
  w.u16(at + 16, c.channel);
  w.u32(at + 20, c.line_stride);
  w.u32(at + 24, c.surf_stride);
  w.u32(at + 28, c.plane_stride);
}

export function writeConvOpDesc(w: StructWriter, at: number, d: ConvOpDesc): void {
  w.u8(at + 0, d.conv_mode);
  w.u8(at + 1, d.data_reuse);
  w.u8(at + 2, d.weight_reuse);
  w.u8(at + 3, d.skip_data_rls);
  w.u8(at + 4, d.skip_weight_rls);
  w.u16(at + 6, d.entry_per_slice);
  w.u8(at + 8, d.data_format);
  w.u8(at + 9, d.pixel_mapping);
  w.u16(at + 10, d.fetch_grain);
  w.u8(at + 20, d.batch);
  w.u8(at + 21, d.weight_format);
  w.u8(at + 22, d.data_bank);
  w.u8(at + 23, d.weight_bank);
  w.u32(at + 24, d.batch_stride);
  w.u8(at + 28, d.post_extension);
  w.u8(at + 29, d.pixel_override);
  w.u16(at + 30, d.release);
  w.u16(at + 32, d.input_width_csc);
  w.u16(at + 34, d.input_height_csc);
  w.u16(at + 36, d.input_channel_csc);
  w.u16(at + 38, d.kernel_width_csc);
  w.u16(at + 40, d.kernel_height_csc);
  w.u16(at + 42, d.kernel_channel_csc);
  w.u16(at + 44, d.input_width_cmac);
  w.u16(at + 46, d.input_height_cmac);
  w.u32(at + 48, d.bytes_per_kernel);
  w.i16(at + 52, d.mean_ry);
  w.i16(at + 54, d.mean_gu);
  w.i16(at + 56, d.mean_bv);
  w.i16(at + 58, d.mean_ax);
  w.u8(at + 60, d.mean_format);
  w.u8(at + 61, d.conv_stride_x);
  w.u8(at + 62, d.conv_stride_y);
  w.u8(at + 63, d.pad_x_left);
  w.u8(at + 64, d.pad_x_right);
  w.u8(at + 65, d.pad_y_top);
  w.u8(at + 66, d.pad_y_bottom);
  w.u8(at + 67, d.dilation_x);
  w.u8(at + 68, d.dilation_y);
  w.u8(at + 71, d.pra_truncate);
  w.u8(at + 72, d.in_precision);
  w.u8(at + 73, d.out_precision);
  w.i16(at + 74, d.pad_val);
  writeCvt(w, at + 76, d.in_cvt);
  writeCvt(w, at + 84, d.out_cvt);
}

export const CONV_SURFACE_CUBES = { weight_data: 0, wmb_data: 32, wgs_data: 64, src_data: 96, dst_data: 128 } as const;

export function writeConvSurfaceDesc(w: StructWriter, at: number, d: ConvSurfaceDesc): void {
  for (const [k, off] of Object.entries(CONV_SURFACE_CUBES)) writeDataCube(w, at + off, d[k as keyof typeof CONV_SURFACE_CUBES]);
  w.i64(at + 160, d.offset_u);
  w.u32(at + 168, d.in_line_uv_stride);
}

function writeSdpOp(w: StructWriter, at: number, o: SdpOp): void {
  w.u8(at + 0, o.enable);
  w.u8(at + 1, o.alu_type);
  w.u8(at + 2, o.type);
  w.u8(at + 3, o.mode);
  w.u8(at + 4, o.act);
  w.u8(at + 5, o.shift_value);
  w.u8(at + 6, o.truncate);
  w.u8(at + 7, o.precision);
  w.i32(at + 8, o.alu_operand);
  w.i32(at + 12, o.mul_operand);
  writeCvt(w, at + 16, o.alu_cvt);
  writeCvt(w, at + 24, o.mul_cvt);
}

export function writeSdpOpDesc(w: StructWriter, at: number, d: SdpOpDesc): void {
  w.u8(at + 0, d.src_precision);
  w.u8(at + 1, d.dst_precision);
  w.i16(at + 2, d.lut_index);
  writeCvt(w, at + 4, d.out_cvt);
  w.u8(at + 12, d.conv_mode);
  w.u8(at + 13, d.batch_num);
  w.u32(at + 16, d.batch_stride);
  writeSdpOp(w, at + 20, d.x1_op);
  writeSdpOp(w, at + 52, d.x2_op);
  writeSdpOp(w, at + 84, d.y_op);
}

export const SDP_SURFACE_CUBES = { src_data: 0, x1_data: 32, x2_data: 64, y_data: 96, dst_data: 128 } as const;

export function writeSdpSurfaceDesc(w: StructWriter, at: number, d: SdpSurfaceDesc): void {
  for (const [k, off] of Object.entries(SDP_SURFACE_CUBES)) writeDataCube(w, at + off, d[k as keyof typeof SDP_SURFACE_CUBES]);
}

export function writePdpOpDesc(w: StructWriter, at: number, d: PdpOpDesc): void {
  w.u16(at + 0, d.partial_in_width_first);
  w.u16(at + 2, d.partial_in_width_mid);
  w.u16(at + 4, d.partial_in_width_last);
  w.u16(at + 6, d.partial_width_first);
  w.u16(at + 8, d.partial_width_mid);
  w.u16(at + 10, d.partial_width_last);
  w.u8(at + 12, d.split_num);
  w.u8(at + 13, d.pool_mode);
  w.u8(at + 14, d.pool_width);
  w.u8(at + 15, d.pool_height);
  w.u8(at + 16, d.stride_x);
  w.u8(at + 17, d.stride_y);
  w.u8(at + 18, d.pad_left);
  w.u8(at + 19, d.pad_right);
  w.u8(at + 20, d.pad_top);
  w.u8(at + 21, d.pad_bottom);
  w.u8(at + 22, d.precision);
  d.padding_value.forEach((v, i) => w.i32(at + 24 + 4 * i, v));
}

export const SRC_DST_SURFACE_CUBES = { src_data: 0, dst_data: 32 } as const;

export function writeSrcDstSurfaceDesc(w: StructWriter, at: number, d: SrcDstSurfaceDesc): void {
  writeDataCube(w, at, d.src_data);
  writeDataCube(w, at + 32, d.dst_data);
}

export interface CdpOpDesc {
  in_precision: number;
  out_precision: number;
  lut_index: number;
  in_cvt: CvtParam;
  out_cvt: CvtParam;
  local_size: number;
  bypass_sqsum: number;
  bypass_out_mul: number;
}

export function writeCdpOpDesc(w: StructWriter, at: number, d: CdpOpDesc): void {
  w.u8(at + 0, d.in_precision);
  w.u8(at + 1, d.out_precision);
  w.i16(at + 2, d.lut_index);
  writeCvt(w, at + 4, d.in_cvt);
  writeCvt(w, at + 12, d.out_cvt);
  w.u8(at + 20, d.local_size);
  w.u8(at + 21, d.bypass_sqsum);
  w.u8(at + 22, d.bypass_out_mul);
}

/** `dla_lut_param` (700 bytes): 65 + 257 table entries, offsets, ranges, slopes, priorities, method */
export interface LutParam {
  linear_exp_table: number[];
  linear_only_table: number[];
  /** the two `dla_lut_offset` unions, as their one byte (exp_offset or frac_bits) */
  linear_exp_offset: number;
  linear_only_offset: number;
  linear_exp_start: number;
  linear_exp_end: number;
  linear_only_start: number;
  linear_only_end: number;
  /** the four `dla_slope` unions as their 16-bit data_f view (all zero in compiler output) */
  slopes: number[];
  hybrid_priority: number;
  underflow_priority: number;
  overflow_priority: number;
  method: number;
}

export function writeLutParam(w: StructWriter, at: number, d: LutParam): void {
  d.linear_exp_table.forEach((v, i) => w.i16(at + 2 * i, v));
  d.linear_only_table.forEach((v, i) => w.i16(at + 130 + 2 * i, v));
  w.i8(at + 644, d.linear_exp_offset);
  w.i8(at + 646, d.linear_only_offset);
  w.i64(at + 648, d.linear_exp_start);
  w.i64(at + 656, d.linear_exp_end);
  w.i64(at + 664, d.linear_only_start);
  w.i64(at + 672, d.linear_only_end);
  d.slopes.forEach((v, i) => w.u16(at + 680 + 4 * i, v));
  w.u8(at + 696, d.hybrid_priority);
  w.u8(at + 697, d.underflow_priority);
  w.u8(at + 698, d.overflow_priority);
  w.u8(at + 699, d.method);
}
