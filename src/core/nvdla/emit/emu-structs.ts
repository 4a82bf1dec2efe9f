/**
 * The EMU (CPU) interface 0.0.1 structures of a loadable's EMU task blobs (nvdla.md section 5;
 * `emu_interface.h`): the network descriptor, power and softmax op descriptors and buffer
 * descriptors, as plain objects and byte writers.
 */
import type { StructWriter } from './dla-structs';

export const EMU_SIZES = { networkDesc: 256, operationContainer: 24, operationBufferContainer: 512, bufferDesc: 256 } as const;
export const EMU_OP = { POWER: 0, SOFTMAX: 1 } as const;
/** buffer formats (`EMUInterface.h`) */
export const EMU_FORMAT = { INT8: 0, INT8_8: 1, INT16: 2, FF16: 3, UINT8: 4, UINT16: 5 } as const;

export interface EmuNetworkDesc {
  operation_desc_index: number;
  operation_buffer_desc_index: number;
  num_operations: number;
}

export interface EmuBufferDesc {
  addressIndex: number;
  addressIndexOffset: number;
  size: number;
  format: number;
  width: number;
  height: number;
  channel: number;
  line_stride: number;
  surf_stride: number;
}

export type EmuOpDesc =
  | { op_type: 1; input_scale_factor: number; output_scale_factor: number; axis: number }
  | { op_type: 0; input_scale_factor: number; output_scale_factor: number; power: number; scale: number; shift: number };

/** where line_stride and surf_stride sit in a buffer desc (relocs point at them) */
export const EMU_BUF_LINE_STRIDE = 18;
export const EMU_BUF_SURF_STRIDE = 22;
/** src_data and dst_data inside the 512-byte buffer container */
export const EMU_BUF_SRC = 0;
export const EMU_BUF_DST = 256;

export function writeEmuNetworkDesc(w: StructWriter, at: number, d: EmuNetworkDesc): void {
  w.i16(at + 0, d.operation_desc_index);
  w.i16(at + 2, d.operation_buffer_desc_index);
  w.u16(at + 4, d.num_operations);
}

export function writeEmuOpDesc(w: StructWriter, at: number, d: EmuOpDesc): void {
  w.u8(at + 0, d.op_type);
  w.f32(at + 4, d.input_scale_factor);
  w.f32(at + 8, d.output_scale_factor);
  if (d.op_type === 1) w.u8(at + 12, d.axis);
  else {
    w.f32(at + 12, d.power);
    w.f32(at + 16, d.scale);
    w.f32(at + 20, d.shift);
  }
}

export function writeEmuBufferDesc(w: StructWriter, at: number, d: EmuBufferDesc): void {
  w.i16(at + 0, d.addressIndex);
  w.u32(at + 2, d.addressIndexOffset);
  w.u32(at + 6, d.size);
  w.u16(at + 10, d.format);
  w.u16(at + 12, d.width);
  w.u16(at + 14, d.height);
  w.u16(at + 16, d.channel);
  w.u32(at + 18, d.line_stride);
  w.u32(at + 22, d.surf_stride);
}
