/**
 * Each engine node's operation descriptors (`<Node>::emitOp` of nvdla/sw): the DLA common op desc
 * (slot, dependency count, consumers by engine, fused parent), the op desc and the surface desc
 * with one data cube per tensor; or, for the EMU (CPU) nodes, the op desc and buffer descs. Also
 * the relocations upstream records for strides of bindable tensors, as byte offsets in the
 * surface (or EMU buffer) container of the task.
 */
import { dependencyCount } from '../engine/passes/generate-dependency-params';
import { entriesPerSlice } from '../engine/passes/split-nodes';
import { EngineGraphEditor } from '../engine/graph';
import { ENGINE_TYPES, type EngineGraph, type EngineNode, type NodeDependency, type OperationEvent, type SDPActType, type SDPALUType, type SDPMode, type SDPOpType, type SDPSubEngineParams } from '../engine/model';
import { bufferById, surfaceById, type TensorSurfaceDesc } from '../engine/surfaces';
import { surfaceFormat } from '../surface';
import type { PassContext } from '../engine/graph-state';
import {
  CONV_SURFACE_CUBES,
  CUBE_LINE_STRIDE,
  CUBE_SURF_STRIDE,
  DLA_OP_TYPE,
  DLA_OP_TYPES,
  SDP_SURFACE_CUBES,
  SRC_DST_SURFACE_CUBES,
  zeroConvOp,
  zeroCube,
  zeroCvt,
  zeroPdpOpDesc,
  zeroSdpOp,
  zeroSdpOpDesc,
  type CommonOpDesc,
  type ConvSurfaceDesc,
  type DataCube,
  type DlaOpDesc,
  type SdpOp,
  type SdpSurfaceDesc,
  type SrcDstSurfaceDesc,
} from './dla-structs';
import { EMU_BUF_DST, EMU_BUF_LINE_STRIDE, EMU_BUF_SRC, EMU_BUF_SURF_STRIDE, EMU_FORMAT, type EmuBufferDesc, type EmuOpDesc } from './emu-structs';
import { RELOC_TYPE } from './loadable';
import { EmitError, type SurfaceAddress } from './memory-list';
import { lrnInt8OutCvt, lrnInt8Table } from './luts';

const EVENT: Record<OperationEvent, number> = { OP_COMPLETED: 1, OP_PROGRAMMED: 2, OP_ENABLED: 3, OP_CDMA_WEIGHT_DONE: 4, OP_CDMA_DATA_DONE: 5 };
const FW_OF: Record<string, string> = { BDMA: 'BDMA', CONVOLUTION: 'CONV', SDP: 'SDP', PDP: 'PDP', CDP: 'CDP', RUBIK: 'RUBIK' };
const PRECISION: Record<string, number> = { INT8: 0, INT16: 1, FP16: 2 };
const SDP_MODE: Record<SDPMode, number> = { PER_LAYER: 0, PER_CHANNEL: 1, PER_ELEMENT: 2, UNKNOWN: 0xff };
const SDP_OP_TYPE: Record<SDPOpType, number> = { NONE: 0, MUL: 1, ADD: 2, BOTH: 3, UNKNOWN: 0xff };
const SDP_ALU: Record<SDPALUType, number> = { MAX: 0, MIN: 1, SUM: 2, EQL: 3, UNKNOWN: 0xff };
const SDP_ACT: Record<SDPActType, number> = { NONE: 0, RELU: 1, SIGMOID: 2, TANH: 2, UNKNOWN: 0xff };

/** a stride upstream records for relocation: the byte offset inside the task's surface/buffer container */
export interface PendingReloc {
  addressId: number;
  offset: number;
  interface: number;
  relocType: number;
}

export interface EmitContext {
  g: EngineGraph;
  ed: EngineGraphEditor;
  ctx: PassContext;
  addresses: Map<string, SurfaceAddress>;
  relocs: PendingReloc[];
}

function precisionCode(format: string): number {
  const p = PRECISION[surfaceFormat(format).precision];
  if (p === undefined) throw new EmitError(`Wrong surface precision provided ${surfaceFormat(format).precision}`);
  return p;
}

function surface(ec: EmitContext, edgeId: string | undefined, what: string, node: EngineNode): TensorSurfaceDesc {
  const e = edgeId ? ec.ed.edge(edgeId) : null;
  const tsd = e?.surface ? surfaceById(ec.g, e.surface) : undefined;
  if (!tsd) throw new EmitError(`${node.name}: no ${what} surface`);
  return tsd;
}

function bindable(tsd: TensorSurfaceDesc): boolean {
  return tsd.bind !== null;
}

/** `Node::setDataCubeAccessor` */
function dataCube(ec: EmitContext, node: EngineNode, tsd: TensorSurfaceDesc, iod: 'input' | 'output' | 'none', batch: number, surfaceBase: number): DataCube {
  const c = zeroCube();
  const dep = node.dependency[batch]!;
  const fused = iod === 'input' ? dep.fusedInput : iod === 'output' ? dep.fusedOutput : null;
  if (fused) {
    c.type = 2; // DLA_MEM_HW
    c.address = -1;
  } else {
    const tb = tsd.buffer ? bufferById(ec.g, tsd.buffer) : undefined;
    const loc = tb?.placement[batch]?.location;
    const where = ec.addresses.get(tsd.id);
    if (!where) throw new EmitError(`${node.name}: ${tsd.id} has no address`);
    c.type = loc === 'CVSRAM' ? 1 : 0;
    c.address = where.addressId[batch]!;
    c.offset = where.offset[batch]!;
    if (bindable(tsd)) {
      ec.relocs.push({ addressId: c.address, offset: surfaceBase + CUBE_LINE_STRIDE, interface: 1, relocType: RELOC_TYPE.LINE_STRIDE });
      ec.relocs.push({ addressId: c.address, offset: surfaceBase + CUBE_SURF_STRIDE, interface: 1, relocType: RELOC_TYPE.SURFACE_STRIDE });
    }
  }
  c.size = tsd.size;
  c.width = tsd.dims.w;
  c.height = tsd.dims.h;
  c.channel = tsd.dims.c;
  c.line_stride = tsd.lineStride;
  c.surf_stride = tsd.surfaceStride;
  c.plane_stride = 0;
  return c;
}

/** `Node::emitDependencyParams` */
export function commonOpDesc(ec: EmitContext, node: EngineNode, batch: number): CommonOpDesc {
  const d: NodeDependency = node.dependency[batch]!;
  const fwType = FW_OF[node.engineType];
  if (!fwType) throw new EmitError(`${node.name}: ${node.engineType} is not a DLA engine`);
  const consumers = DLA_OP_TYPES.map((t) => {
    const idx = ENGINE_TYPES.findIndex((e) => FW_OF[e] === t);
    const l = d.consumers[idx]!;
    return { index: l.slot, event: EVENT[l.event] };
  });
  const fusedIn = d.fusedInput ? ec.ed.node(d.fusedInput) : null;
  return {
    index: d.slot,
    roi_index: 0,
    op_type: DLA_OP_TYPE[fwType as keyof typeof DLA_OP_TYPE],
    dependency_count: dependencyCount(d),
    consumers,
    fused_parent: { index: fusedIn ? fusedIn.dependency[batch]!.slot : -1, event: fusedIn ? EVENT.OP_ENABLED : EVENT.OP_COMPLETED },
  };
}

function convOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): DlaOpDesc {
  const p = node.params;
  if (p.kind !== 'conv') throw new EmitError(`${node.name} is not a convolution`);
  const cp = p.conv;
  if (cp.convMode !== 'DIRECT') throw new EmitError(`Unsupported Conv mode for ${node.name}`);
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  const wt = surface(ec, node.auxEdges[0], 'weight', node);
  const fc = node.engineOpType === 'CONVOLUTION_FC';
  if (node.engineOpType === 'CONVOLUTION_DECONV') return deconvOp(ec, node, batch, surfBase, src, dst, wt);
  const flags = cp.batches?.[batch] ?? { reuseWeights: cp.reuseWeights, releaseWeights: cp.releaseWeights };
  const op = zeroConvOp();
  const srcSf = surfaceFormat(src.format);
  op.pad_val = fc ? 0 : cp.paddingValue;
  op.skip_data_rls = fc ? 0 : cp.releaseData ? 0 : 1;
  op.skip_weight_rls = fc ? 0 : flags.releaseWeights ? 0 : 1;
  op.data_reuse = fc ? 0 : cp.reuseData ? 1 : 0;
  op.weight_reuse = fc ? 0 : flags.reuseWeights ? 1 : 0;
  op.batch = 1;
  op.dilation_x = fc ? 1 : cp.dilation.w;
  op.dilation_y = fc ? 1 : cp.dilation.h;
  op.pad_x_left = fc ? 0 : cp.topLeftPadding.w;
  op.pad_x_right = fc ? 0 : cp.bottomRightPadding.w;
  op.pad_y_top = fc ? 0 : cp.topLeftPadding.h;
  op.pad_y_bottom = fc ? 0 : cp.bottomRightPadding.h;
  op.mean_format = 0;
  op.in_cvt = { scale: cp.inputCVT.scale, truncate: cp.inputCVT.truncate, enable: cp.inputCVT.enable ? 1 : 0, offset: cp.inputCVT.offset };
  op.out_cvt = { scale: 1, truncate: cp.outTruncate, enable: 1, offset: 0 };
  op.in_precision = precisionCode(src.format);
  op.out_precision = precisionCode(dst.format);
  op.fetch_grain = 1;
  op.data_format = srcSf.category === 'IMG' ? srcSf.ordinal : 36;
  op.pixel_override = fc ? 0 : 1; // PIXEL_OVERRIDE_INT (the FC emitter leaves it unset)
  op.weight_format = 0;
  op.conv_stride_x = cp.stride.w;
  op.conv_stride_y = cp.stride.h;
  op.input_width_cmac = dst.dims.w;
  op.input_height_cmac = dst.dims.h;
  op.bytes_per_kernel = wt.dims.c * wt.dims.h * wt.dims.w * surfaceFormat(wt.format).bytesPerElement;
  op.post_extension = fc ? 0 : Math.trunc(cp.postExtension / 2);
  if (!fc) {
    if (srcSf.category === 'FEATURE_DATA' && src.dims.c !== wt.dims.c) throw new EmitError(`Src channels ${src.dims.c} != weight channels ${wt.dims.c} for ${node.name}`);
    if (srcSf.category === 'IMG' && wt.dims.w !== 1) throw new EmitError(`Weight channels ${wt.dims.c} != 1 for ${node.name}`);
  }
  op.conv_mode = 0;
  op.input_width_csc = src.dims.w;
  op.input_height_csc = src.dims.h;
  op.input_channel_csc = src.dims.c;
  op.kernel_height_csc = wt.dims.h;
  op.kernel_width_csc = wt.dims.w;
  op.kernel_channel_csc = wt.dims.c;
  op.pixel_mapping = 0;
  op.entry_per_slice = entriesPerSlice(node, src, ec.ctx);
  op.data_bank = cp.allottedDataBanks;
  op.weight_bank = cp.allottedWeightBanks;
  op.release = fc ? src.dims.h : op.input_height_csc;
  const s: ConvSurfaceDesc = {
    src_data: dataCube(ec, node, src, 'input', batch, surfBase + CONV_SURFACE_CUBES.src_data),
    weight_data: dataCube(ec, node, wt, 'none', batch, surfBase + CONV_SURFACE_CUBES.weight_data),
    dst_data: dataCube(ec, node, dst, 'output', batch, surfBase + CONV_SURFACE_CUBES.dst_data),
    wmb_data: zeroCube(),
    wgs_data: zeroCube(),
    offset_u: 0,
    in_line_uv_stride: 0,
  };
  return { kind: 'CONV', op, surface: s };
}

/** `ConvCoreDeconvolutionOpNode::emitOp`: a stride-1 phase convolution with fixed reuse, padding and conversion fields */
function deconvOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number, src: TensorSurfaceDesc, dst: TensorSurfaceDesc, wt: TensorSurfaceDesc): DlaOpDesc {
  const p = node.params;
  if (p.kind !== 'conv') throw new EmitError(`${node.name} is not a deconvolution`);
  const cp = p.conv;
  const op = zeroConvOp();
  const srcSf = surfaceFormat(src.format);
  op.pad_val = 0;
  op.data_reuse = 0;
  op.weight_reuse = 0;
  op.skip_data_rls = 0;
  op.skip_weight_rls = 0;
  op.batch = 1;
  op.batch_stride = 0;
  op.release = src.dims.h;
  op.mean_format = 0;
  op.pad_x_left = 0;
  op.pad_x_right = 0;
  op.pad_y_top = 0;
  op.pad_y_bottom = 0;
  op.dilation_x = 1;
  op.dilation_y = 1;
  op.pixel_mapping = 0;
  op.in_cvt = { scale: 0, truncate: 0, enable: 0, offset: 0 };
  op.out_cvt = { scale: 1, truncate: 0, enable: 1, offset: 0 };
  op.in_precision = precisionCode(src.format);
  op.out_precision = precisionCode(dst.format);
  op.fetch_grain = 1;
  op.data_format = srcSf.category === 'IMG' ? srcSf.ordinal : 36;
  op.weight_format = 0;
  op.conv_stride_x = cp.stride.w;
  op.conv_stride_y = cp.stride.h;
  op.input_width_cmac = dst.dims.w;
  op.input_height_cmac = dst.dims.h;
  op.bytes_per_kernel = wt.dims.c * wt.dims.h * wt.dims.w * surfaceFormat(wt.format).bytesPerElement;
  op.conv_mode = 0;
  op.input_width_csc = src.dims.w;
  op.input_height_csc = src.dims.h;
  op.input_channel_csc = src.dims.c;
  op.kernel_height_csc = wt.dims.h;
  op.kernel_width_csc = wt.dims.w;
  op.kernel_channel_csc = wt.dims.c;
  op.entry_per_slice = entriesPerSlice(node, src, ec.ctx);
  op.data_bank = cp.allottedDataBanks;
  op.weight_bank = cp.allottedWeightBanks;
  const s: ConvSurfaceDesc = {
    src_data: dataCube(ec, node, src, 'input', batch, surfBase + CONV_SURFACE_CUBES.src_data),
    weight_data: dataCube(ec, node, wt, 'none', batch, surfBase + CONV_SURFACE_CUBES.weight_data),
    dst_data: dataCube(ec, node, dst, 'output', batch, surfBase + CONV_SURFACE_CUBES.dst_data),
    wmb_data: zeroCube(),
    wgs_data: zeroCube(),
    offset_u: 0,
    in_line_uv_stride: 0,
  };
  return { kind: 'CONV', op, surface: s };
}

function sdpOp(fields: Partial<SdpOp>): SdpOp {
  return { ...zeroSdpOp(), ...fields };
}

/** the int16/half value at an index of translated per-layer data, as the firmware's s16 reads it */
function perLayerValue(node: EngineNode, blob: { type: string; values: ArrayLike<number> } | null, index: number): number {
  if (!blob) throw new EmitError(`${node.name}: no translated data`);
  const v = blob.values[index] ?? 0;
  return blob.type === 'HALF' ? (v << 16) >> 16 : v;
}

function sdpNodeOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): DlaOpDesc {
  const p = node.params;
  if (!('sdp' in p)) throw new EmitError(`${node.name} is not an SDP operation`);
  const sdp = p.sdp;
  if (sdp.convMode !== 'DIRECT') throw new EmitError(`Unsupported Conv mode for ${node.name}`);
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  const op = zeroSdpOpDesc();
  op.src_precision = precisionCode(src.format);
  op.dst_precision = precisionCode(dst.format);
  op.lut_index = -1;
  op.batch_num = 1;
  op.batch_stride = 0;
  op.out_cvt = { scale: sdp.outCVT.scale, truncate: sdp.outCVT.truncate, offset: sdp.outCVT.offset, enable: sdp.outCVT.enable ? 1 : 0 };
  op.conv_mode = 0;
  const s: SdpSurfaceDesc = { src_data: zeroCube(), x1_data: zeroCube(), x2_data: zeroCube(), y_data: zeroCube(), dst_data: zeroCube() };
  const cube = (tsd: TensorSurfaceDesc, iod: 'input' | 'output' | 'none', at: keyof typeof SDP_SURFACE_CUBES) => dataCube(ec, node, tsd, iod, batch, surfBase + SDP_SURFACE_CUBES[at]);
  const x1 = sdp.x1;
  switch (p.kind) {
    case 'sdp-bias': {
      const bias = surface(ec, node.auxEdges[0], 'bias', node);
      const perLayer = x1.mode === 'PER_LAYER';
      if (perLayer && p.dlaBiasData && p.dlaBiasData.count > 1) throw new EmitError(`More than one data availablein per-layer mode(#data = ${p.dlaBiasData.count})`);
      op.x1_op = sdpOp({
        enable: 1,
        alu_type: SDP_ALU.SUM,
        type: SDP_OP_TYPE[x1.opType],
        mode: SDP_MODE[x1.mode],
        act: SDP_ACT[x1.actType],
        shift_value: x1.shiftValue,
        truncate: x1.truncate,
        alu_operand: perLayer ? perLayerValue(node, p.dlaBiasData, 0) : 0,
        mul_operand: perLayer ? (x1.isINT8Rescaling ? perLayerValue(node, p.dlaBiasData, 1) : 1) : 1,
        precision: precisionCode(bias.format),
      });
      s.src_data = cube(src, 'input', 'src_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      if (!perLayer) s.x1_data = cube(bias, 'none', 'x1_data');
      break;
    }
    case 'sdp-scale': {
      const scale = surface(ec, node.auxEdges[0], 'scale', node);
      const perLayer = x1.mode === 'PER_LAYER';
      op.out_cvt = { scale: 1, truncate: 0, offset: 0, enable: 1 };
      op.x1_op = sdpOp({
        enable: 1,
        alu_type: SDP_ALU.SUM,
        type: SDP_OP_TYPE.MUL,
        mode: SDP_MODE[x1.mode],
        act: SDP_ACT[x1.actType],
        shift_value: 0,
        alu_operand: 0,
        mul_operand: perLayer ? perLayerValue(node, p.dlaScaleData, 0) : 1,
        truncate: x1.truncate,
        precision: precisionCode(scale.format),
      });
      s.src_data = cube(src, 'input', 'src_data');
      if (!perLayer) s.x1_data = cube(scale, 'none', 'x1_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      break;
    }
    case 'sdp-bn': {
      const bn = surface(ec, node.auxEdges[0], 'batch-norm', node);
      const perLayer = x1.mode === 'PER_LAYER';
      if (perLayer && p.dlaBatchNormData && p.dlaBatchNormData.count > 2) throw new EmitError(`More than one data availablein per-layer mode(#data = ${p.dlaBatchNormData.count})`);
      op.out_cvt = { scale: 1, truncate: 0, offset: 0, enable: 1 };
      op.x1_op = sdpOp({
        enable: 1,
        alu_type: SDP_ALU.SUM,
        type: SDP_OP_TYPE.BOTH,
        mode: SDP_MODE[x1.mode],
        act: SDP_ACT[x1.actType],
        shift_value: x1.shiftValue,
        alu_operand: perLayer ? perLayerValue(node, p.dlaBatchNormData, 0) : 0,
        mul_operand: perLayer ? perLayerValue(node, p.dlaBatchNormData, 1) : 1,
        truncate: x1.truncate,
        precision: precisionCode(bn.format),
      });
      s.src_data = cube(src, 'input', 'src_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      if (!perLayer) s.x1_data = cube(bn, 'none', 'x1_data');
      break;
    }
    case 'sdp-super': {
      // SDPSuperOpNode::emitOp: X1 and X2 as the fused ops configured them, their data cubes always
      const edgeOf = (x: 'x1' | 'x2') => {
        const id = p.auxEdgeOf[x];
        if (!id) throw new EmitError(`SDP SuperOp ${node.name} xN edge lookup failed for ${x}`);
        return id;
      };
      const superSrc = surface(ec, p.inputEdge ?? undefined, 'input', node);
      const x1Tsd = surface(ec, edgeOf('x1'), 'x1 data', node);
      const x2Tsd = surface(ec, edgeOf('x2'), 'x2 data', node);
      const sub = (x: SDPSubEngineParams, tsd: TensorSurfaceDesc) =>
        sdpOp({
          enable: x.enabled ? 1 : 0,
          alu_type: SDP_ALU[x.aluType],
          type: SDP_OP_TYPE[x.opType],
          mode: SDP_MODE[x.mode],
          act: SDP_ACT[x.actType],
          shift_value: x.shiftValue,
          alu_operand: x.aluOperand,
          mul_operand: 1,
          truncate: x.truncate,
          precision: precisionCode(tsd.format),
        });
      op.src_precision = precisionCode(superSrc.format);
      op.x1_op = sub(x1, x1Tsd);
      op.x2_op = sub(sdp.x2, x2Tsd);
      s.src_data = cube(superSrc, 'input', 'src_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      s.x1_data = cube(x1Tsd, 'none', 'x1_data');
      s.x2_data = cube(x2Tsd, 'none', 'x2_data');
      break;
    }
    case 'sdp-act': {
      if (x1.enabled) {
        if (x1.actType !== 'RELU') throw new EmitError(`Unknown activation type: ${x1.actType}`);
        op.x1_op = sdpOp({ enable: 1, alu_type: SDP_ALU.SUM, type: SDP_OP_TYPE.NONE, mode: SDP_MODE.PER_LAYER, act: SDP_ACT.RELU, shift_value: 0, alu_operand: 0, mul_operand: 1, truncate: 0, precision: op.src_precision });
      }
      if (sdp.y.enabled) {
        if (sdp.y.actType !== 'SIGMOID' && sdp.y.actType !== 'TANH') throw new EmitError(`Unknown activation type: ${sdp.y.actType}`);
        op.lut_index = p.lutIndex;
        op.y_op = sdpOp({ enable: 1, alu_type: SDP_ALU.SUM, type: SDP_OP_TYPE.NONE, mode: SDP_MODE.PER_LAYER, act: 2, shift_value: 0, alu_operand: 0, mul_operand: 1, truncate: 0, precision: op.src_precision });
      }
      s.src_data = cube(src, 'input', 'src_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      break;
    }
    case 'sdp-nop':
      s.src_data = cube(src, 'input', 'src_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      break;
    case 'sdp-ew': {
      const two = surface(ec, node.inputEdges[1], 'second input', node);
      op.x1_op = sdpOp({
        enable: x1.enabled ? 1 : 0,
        alu_type: SDP_ALU[x1.aluType],
        type: SDP_OP_TYPE[x1.opType],
        mode: SDP_MODE[x1.mode],
        act: SDP_ACT[x1.actType],
        shift_value: 0,
        alu_operand: 0,
        mul_operand: 1,
        truncate: 0,
        precision: op.src_precision,
      });
      s.src_data = cube(src, 'input', 'src_data');
      s.x1_data = cube(two, 'none', 'x1_data');
      s.dst_data = cube(dst, 'output', 'dst_data');
      break;
    }
    default:
      // every SDP parameter kind is a case above (the type checker holds it: p is never here)
      throw new EmitError(`${node.name}: an ${node.engineOpType} node reached the SDP emitter with parameters of another engine (an inconsistent engine graph, a compiler error)`);
  }
  return { kind: 'SDP', op, surface: s };
}

function pdpOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): DlaOpDesc {
  const p = node.params;
  if (p.kind !== 'pdp') throw new EmitError(`${node.name} is not a pooling`);
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  const op = zeroPdpOpDesc();
  const sw = p.splitWidth;
  op.precision = precisionCode(src.format);
  op.pool_mode = p.poolingType === 'AVERAGE' ? 0 : 1;
  op.padding_value[0] = p.paddingValue;
  op.split_num = Math.max(sw?.numSplits ?? 0, 1);
  op.partial_in_width_first = Math.max(sw?.firstInWidth ?? 0, 0);
  op.partial_in_width_last = Math.max(sw?.lastInWidth ?? 0, 0);
  op.partial_in_width_mid = Math.max(sw?.midInWidth ?? 0, 0);
  op.partial_width_first = Math.max(sw?.firstOutWidth ?? 0, 0);
  op.partial_width_last = Math.max(sw?.lastOutWidth ?? 0, 0);
  op.partial_width_mid = Math.max(sw?.midOutWidth ?? 0, 0);
  op.pool_height = p.poolingWindow.h - 1;
  op.pool_width = p.poolingWindow.w - 1;
  op.stride_x = p.stride.w;
  op.stride_y = p.stride.h;
  op.pad_left = p.topLeftPadding.w;
  op.pad_right = p.bottomRightPadding.w;
  op.pad_top = p.topLeftPadding.h;
  op.pad_bottom = p.bottomRightPadding.h;
  const s: SrcDstSurfaceDesc = {
    src_data: dataCube(ec, node, src, 'input', batch, surfBase + SRC_DST_SURFACE_CUBES.src_data),
    dst_data: dataCube(ec, node, dst, 'none', batch, surfBase + SRC_DST_SURFACE_CUBES.dst_data),
  };
  if (p.bottomRightPadding.w < 0) {
    s.src_data.width += p.bottomRightPadding.w;
    op.pad_right = 0;
  }
  if (p.bottomRightPadding.h < 0) {
    s.src_data.height += p.bottomRightPadding.h;
    op.pad_bottom = 0;
  }
  return { kind: 'PDP', op, surface: s };
}

function cdpOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): DlaOpDesc {
  const p = node.params;
  if (p.kind !== 'cdp-lrn') throw new EmitError(`${node.name} is not an LRN`);
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  // upstream maps INT16 to the INT8 code here
  const cdpPrecision = (format: string) => (surfaceFormat(format).precision === 'FP16' ? 2 : surfaceFormat(format).precision === 'INT8' || surfaceFormat(format).precision === 'INT16' ? 0 : precisionCode(format));
  let outCvt = { scale: 1, truncate: 0, offset: 0, enable: 1 };
  if (surfaceFormat(src.format).precision === 'INT8') {
    // NPU Studio's INT8 LRN (luts.ts lrnInt8Table): the table was made for the input's scale
    const entry = ec.g.luts[p.lutIndex];
    const inScale = ec.ed.edge(node.inputEdges[0]!).tensor?.channelScales[0];
    const outScale = ec.ed.edge(node.outputEdges[0]!).tensor?.channelScales[0];
    if (!entry?.lrn || entry.lrn.inputScale === undefined || inScale === undefined || outScale === undefined || entry.lrn.inputScale !== inScale) {
      throw new EmitError(`${node.name}: its INT8 LRN table was made for input scale ${entry?.lrn?.inputScale}, its input has ${inScale} (a compiler error)`);
    }
    outCvt = lrnInt8OutCvt(lrnInt8Table(entry.lrn, inScale).tableScale, inScale, outScale);
  }
  return {
    kind: 'CDP',
    op: {
      in_precision: cdpPrecision(src.format),
      out_precision: cdpPrecision(dst.format),
      lut_index: p.lutIndex,
      in_cvt: { scale: 1, truncate: 0, offset: 0, enable: 1 },
      out_cvt: outCvt,
      local_size: p.localSize,
      bypass_sqsum: 0,
      bypass_out_mul: 0,
    },
    surface: {
      src_data: dataCube(ec, node, src, 'input', batch, surfBase + SRC_DST_SURFACE_CUBES.src_data),
      dst_data: dataCube(ec, node, dst, 'none', batch, surfBase + SRC_DST_SURFACE_CUBES.dst_data),
    },
  };
}

/** `RubikNode::emitOp`: contract mode, the deconvolution's strides, channels as the contract aligned them */
function rubikOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): DlaOpDesc {
  const p = node.params;
  if (p.kind !== 'rubik') throw new EmitError(`${node.name} is not a rubik op`);
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  const mode = { CONTRACT: 0, SPLIT: 1, MERGE: 2 }[p.mode];
  const s = {
    src_data: dataCube(ec, node, src, 'input', batch, surfBase + SRC_DST_SURFACE_CUBES.src_data),
    dst_data: dataCube(ec, node, dst, 'none', batch, surfBase + SRC_DST_SURFACE_CUBES.dst_data),
  };
  if (p.mode === 'CONTRACT') {
    s.src_data.channel = p.contract.inDims.c;
    s.dst_data.channel = p.contract.outDims.c;
  }
  return { kind: 'RUBIK', op: { mode, precision: precisionCode(src.format), stride_x: p.deconvStride.w, stride_y: p.deconvStride.h }, surface: s };
}

/** one DLA op slot: its descriptors (`surfBase` = the slot's offset in the task's surface container) */
export function emitDlaOp(ec: EmitContext, node: EngineNode, batch: number, surfBase: number): { common: CommonOpDesc; desc: DlaOpDesc } {
  const common = commonOpDesc(ec, node, batch);
  let desc: DlaOpDesc;
  switch (node.engineType) {
    case 'CONVOLUTION':
      desc = convOp(ec, node, batch, surfBase);
      break;
    case 'SDP':
      desc = sdpNodeOp(ec, node, batch, surfBase);
      break;
    case 'PDP':
      desc = pdpOp(ec, node, batch, surfBase);
      break;
    case 'CDP':
      desc = cdpOp(ec, node, batch, surfBase);
      break;
    case 'RUBIK':
      desc = rubikOp(ec, node, batch, surfBase);
      break;
    default:
      // the engine graph makes no BDMA (memory copy) nodes; CPU, concat and split nodes are emitted elsewhere (EMU tasks, or no op at all)
      throw new EmitError(`${node.name}: a ${node.engineType} node (${node.engineOpType}) cannot be a DLA op slot here: NPU Studio's compiler creates no BDMA operations, and other engines are not DLA ops (an inconsistent engine graph, a compiler error)`);
  }
  return { common, desc };
}

function emuFormat(format: string, memoryAtomicSize: number): number {
  if (format === 'NVDLA_FEATURE_DATA_INT8') return memoryAtomicSize === 8 ? EMU_FORMAT.INT8_8 : EMU_FORMAT.INT8;
  if (format === 'NVDLA_FEATURE_DATA_INT16') return EMU_FORMAT.INT16;
  if (format === 'NVDLA_FEATURE_DATA_FP16') return EMU_FORMAT.FF16;
  throw new EmitError(`Wrong surface format provided ${format}`);
}

/** one EMU op: softmax or power (Caffe Power / Scale on the CPU); `bufBase` = its offset in the buffer container */
export function emitEmuOp(ec: EmitContext, node: EngineNode, batch: number, bufBase: number): { op: EmuOpDesc; src: EmuBufferDesc; dst: EmuBufferDesc } {
  const src = surface(ec, node.inputEdges[0], 'input', node);
  const dst = surface(ec, node.outputEdges[0], 'output', node);
  const int8 = ec.ctx.profile.computePrecision === 'INT8';
  const inEdge = ec.ed.edge(node.inputEdges[0]!);
  const outEdge = ec.ed.edge(node.outputEdges[0]!);
  const inScale = int8 ? (inEdge.tensor?.channelScales[0] ?? NaN) : 1;
  const outScale = int8 ? (outEdge.tensor?.channelScales[0] ?? NaN) : 1;
  if (Number.isNaN(inScale) || Number.isNaN(outScale)) throw new EmitError(`${node.name}: no INT8 scale on its input or output tensor`);
  let op: EmuOpDesc;
  const p = node.params;
  if (p.kind === 'cpu-softmax') op = { op_type: 1, input_scale_factor: inScale, output_scale_factor: outScale, axis: 1 };
  else if (p.kind === 'cpu-scale') {
    const first = (w: { values?: ArrayLike<number> | null }) => w.values?.[0] ?? 0;
    // upstream forces scale to 1 ("hack for current mnist fp16 test")
    op = { op_type: 0, input_scale_factor: inScale, output_scale_factor: outScale, power: first(p.power), scale: 1, shift: first(p.shift) };
  } else throw new EmitError(`${node.name}: not an EMU operation`);
  const buffer = (tsd: TensorSurfaceDesc, at: number): EmuBufferDesc => {
    const where = ec.addresses.get(tsd.id);
    if (!where) throw new EmitError(`${node.name}: ${tsd.id} has no address`);
    if (bindable(tsd)) {
      ec.relocs.push({ addressId: where.addressId[batch]!, offset: bufBase + at + EMU_BUF_LINE_STRIDE, interface: 2, relocType: RELOC_TYPE.LINE_STRIDE });
      ec.relocs.push({ addressId: where.addressId[batch]!, offset: bufBase + at + EMU_BUF_SURF_STRIDE, interface: 2, relocType: RELOC_TYPE.SURFACE_STRIDE });
    }
    return {
      addressIndex: where.addressId[batch]!,
      addressIndexOffset: where.offset[batch]!,
      size: tsd.size,
      format: emuFormat(tsd.format, ec.ctx.target.memoryAtomicSize),
      width: tsd.dims.w,
      height: tsd.dims.h,
      channel: tsd.dims.c,
      line_stride: tsd.lineStride,
      surf_stride: tsd.surfaceStride,
    };
  };
  return { op, src: buffer(src, EMU_BUF_SRC), dst: buffer(dst, EMU_BUF_DST) };
}

export { zeroCvt };
