/**
 * SDP: X1 (BS) -> X2 (BN) -> Y (EW) -> C (output convertor), firmware `sdp.c` for the
 * descriptor -> register mapping, nvdla/hw cmod `hls/sdp/sdp_x.cpp`, `sdp_y_core.cpp`,
 * `sdp_y_cvt.cpp`, `sdp_c.cpp` for the arithmetic.
 *
 * Integer pipeline (src INT8 / INT16; data is int32 inside):
 * - X unit: ALU (when `type` is ADD or BOTH) adds, maxes or mins the operand shifted left by
 *   `shift_value` (saturated to 32 bits); MUL (`type` MUL or BOTH) multiplies by the 16-bit
 *   operand, PReLU keeps non-negative values untouched; then the truncator shifts right by
 *   `truncate`, rounding half away from zero and saturating to int32, also when MUL is bypassed
 *   (firmware: "MUL truncate will take effect no matter MUL is bypassed or not"); ReLU last.
 * - Y unit: operands from memory go through their convertors (`cvt.alu_cvt`, `cvt.mul_cvt`),
 *   MUL first (truncated by `truncate`), then ALU (saturated to 32 bits), then the LUT when
 *   `act` is LUT.
 * - C: `(x - offset) x scale`, shifted right by `out_cvt.truncate` rounding half away, saturated
 *   to 17 bits and then to the output width (int8 / int16), or made fp16 from the 17-bit value.
 * Float pipeline (src FP16): fp32 inside, operands fp16 -> fp32, no shifts or truncation; C
 * rounds to fp16 (nearest even, saturating at +-65504).
 *
 * Operands: `mode` PER_LAYER takes the op's `alu_operand` / `mul_operand` (16-bit registers for
 * X; fp16 bits in a float pipeline); PER_KERNEL reads one value per channel (an ALU, MUL pair per
 * channel for BOTH) from `x1_data` / `x2_data` / `y_data`; PER_POINT reads a cube shaped like the
 * input, in feature layout with as many operands per atom position as the pipeline has
 * elements per atom (32 int / 16 fp16 on nv_full).
 *
 * Not modelled: Winograd layout (`conv_mode` 1), batches (`batch_num` > 1), EQL mode (a
 * comparison that writes no surface). Y per-layer float operands are read as fp32 bits (the
 * compilers here never emit them: unknown, chosen as the 32-bit register implies).
 */
import type { DecodedStruct } from '../../loadable/structs';
import { member, valueOf } from '../../loadable/structs';
import { MEM_TYPE, PRECISION, cubeOf, elementBytes, featureExtent, readFeature, writeFeature } from '../cube';
import { convert, roundShiftRight, saturate, shiftLeftSat, shiftRightSat } from '../fixed';
import { halfTable, toHalfValue } from '../half';
import { decodeLut, lutLookup, type LutParams } from '../lut';
import { checkOverlap, fail, featureRef, num, takeStream, type EngineContext, type EngineOutput, type ReadRegion, type Stream } from './context';

const OP_TYPE = { NONE: 0, MUL: 1, ADD: 2, BOTH: 3 } as const;
const MODE = { PER_LAYER: 0, PER_KERNEL: 1, PER_POINT: 2 } as const;
const ACT = { NONE: 0, RELU: 1, LUT: 2, PRELU: 3 } as const;
const ALU = { MAX: 0, MIN: 1, SUM: 2, EQL: 3 } as const;

/** One of X1, X2, Y with its operands resolved. */
interface Unit {
  name: 'x1_op' | 'x2_op' | 'y_op';
  enable: boolean;
  alu: boolean;
  mul: boolean;
  aluType: number;
  act: number;
  shift: number;
  truncate: number;
  /** operand of channel c at (y, x) */
  aluAt: (c: number, i: number) => number;
  mulAt: (c: number, i: number) => number;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

function fromBits32(v: number): number {
  u32[0] = v >>> 0;
  return f32[0]!;
}

function readUnit(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct, name: Unit['name'], cubeName: string, floatPipe: boolean, src: { channel: number; height: number; width: number }, regions: ReadRegion[]): Unit {
  const u = member(op, name)!;
  const v = (p: string) => valueOf(u, p) ?? 0;
  const enable = v('enable') === 1;
  const type = v('type');
  const mode = v('mode');
  const unit: Unit = {
    name,
    enable,
    alu: type === OP_TYPE.ADD || type === OP_TYPE.BOTH,
    mul: type === OP_TYPE.MUL || type === OP_TYPE.BOTH,
    aluType: v('alu_type'),
    act: v('act'),
    shift: v('shift_value'),
    truncate: v('truncate'),
    aluAt: () => 0,
    mulAt: () => 1,
  };
  if (!enable) return unit;
  if (type > 3) fail(ctx, 'corrupt', `op.${name}.type`, `${type} is not NONE, MUL, ADD or BOTH`);
  if (v('act') > 3) fail(ctx, 'corrupt', `op.${name}.act`, `${v('act')} is not NONE, RELU, LUT or PRELU`);
  if (v('act') === ACT.LUT && name !== 'y_op') fail(ctx, 'corrupt', `op.${name}.act`, 'only the Y unit has the LUT');
  if (unit.alu && unit.aluType === ALU.EQL) fail(ctx, 'unsupported', `op.${name}.alu_type`, 'EQL (a comparison that writes no surface) is not modelled');
  const isY = name === 'y_op';
  const half = halfTable();
  const aluCvt = { enable: v('cvt.alu_cvt.enable') === 1, offset: v('cvt.alu_cvt.offset'), scale: v('cvt.alu_cvt.scale'), truncate: v('cvt.alu_cvt.truncate') };
  const mulCvt = { enable: v('cvt.mul_cvt.enable') === 1, offset: v('cvt.mul_cvt.offset'), scale: v('cvt.mul_cvt.scale'), truncate: v('cvt.mul_cvt.truncate') };
  // int operands from memory pass the Y convertors; fp16 operands are fp16 values
  const fromMemory = (raw: number, cvt: typeof aluCvt): number => {
    if (floatPipe) return half[raw & 0xffff]!;
    if (isY && cvt.enable) return convert(raw, cvt.offset, cvt.scale, cvt.truncate, 32);
    return raw;
  };
  if (mode === MODE.PER_LAYER) {
    const a = v('alu_operand');
    const m = v('mul_operand');
    let aluV: number;
    let mulV: number;
    if (floatPipe) {
      aluV = isY ? fromBits32(a) : half[a & 0xffff]!;
      mulV = isY ? fromBits32(m) : half[m & 0xffff]!;
    } else {
      aluV = isY ? a | 0 : (a << 16) >> 16;
      mulV = isY ? m | 0 : (m << 16) >> 16;
    }
    unit.aluAt = () => aluV;
    unit.mulAt = () => mulV;
    return unit;
  }
  if (mode !== MODE.PER_KERNEL && mode !== MODE.PER_POINT) fail(ctx, 'corrupt', `op.${name}.mode`, `${mode} is not PER_LAYER, PER_KERNEL or PER_POINT`);
  const cube = cubeOf(surface, cubeName);
  if (!cube) fail(ctx, 'corrupt', `surface.${cubeName}`, 'missing');
  if (cube.type === MEM_TYPE.HW) fail(ctx, 'corrupt', `surface.${cubeName}.type`, 'operands come from memory');
  const precision = v('precision');
  if (precision > 2) fail(ctx, 'corrupt', `op.${name}.precision`, `${precision} is not INT8, INT16 or FP16`);
  const eb = elementBytes(precision);
  const both = type === OP_TYPE.BOTH;
  const per = both ? 2 : 1;
  const readRaw = (buf: Uint8Array, at: number): number => (eb === 1 ? (buf[at]! << 24) >> 24 : ((buf[at]! | (buf[at + 1]! << 8)) << 16) >> 16);
  const rawBits = (buf: Uint8Array, at: number): number => (eb === 1 ? buf[at]! : buf[at]! | (buf[at + 1]! << 8));
  const get = (buf: Uint8Array, at: number, cvt: typeof aluCvt) => (floatPipe ? fromMemory(rawBits(buf, at), cvt) : fromMemory(readRaw(buf, at), cvt));
  if (mode === MODE.PER_KERNEL) {
    const size = src.channel * eb * per;
    const ref = ctx.mem.resolve(ctx.task, ctx.taskIndex, cube.address, cube.offset, size, ctx.place, `surface.${cubeName}.address`);
    regions.push({ ref, size, field: cubeName });
    const aluVals = new Float64Array(src.channel);
    const mulVals = new Float64Array(src.channel).fill(1);
    for (let c = 0; c < src.channel; c++) {
      let at = ref.base + c * eb * per;
      if (unit.alu) {
        aluVals[c] = get(ref.buf, at, aluCvt);
        at += eb;
      }
      if (unit.mul) mulVals[c] = get(ref.buf, at, mulCvt);
    }
    unit.aluAt = (c) => aluVals[c]!;
    unit.mulAt = (c) => mulVals[c]!;
    return unit;
  }
  // PER_POINT: a cube of operands with the input's shape
  if (cube.width !== src.width || cube.height !== src.height || cube.channel !== src.channel) {
    fail(ctx, 'corrupt', `surface.${cubeName}`, `per-point operands ${cube.width}x${cube.height}x${cube.channel} differ from the input ${src.width}x${src.height}x${src.channel}`);
  }
  const perAtom = ctx.hw.atomBytes / (floatPipe ? 2 : 1);
  const pixelBytes = perAtom * eb * per;
  const groups = Math.ceil(cube.channel / perAtom);
  const size = (groups - 1) * cube.surfStride + (cube.height - 1) * cube.lineStride + cube.width * pixelBytes;
  const ref = ctx.mem.resolve(ctx.task, ctx.taskIndex, cube.address, cube.offset, size, ctx.place, `surface.${cubeName}.address`);
  regions.push({ ref, size, field: cubeName });
  const plane = src.height * src.width;
  const aluVals = new Float64Array(cube.channel * plane);
  const mulVals = new Float64Array(cube.channel * plane).fill(1);
  for (let c = 0; c < cube.channel; c++) {
    const g = Math.floor(c / perAtom);
    for (let y = 0; y < cube.height; y++)
      for (let x = 0; x < cube.width; x++) {
        let at = ref.base + g * cube.surfStride + y * cube.lineStride + x * pixelBytes + (c - g * perAtom) * eb * per;
        const i = c * plane + y * src.width + x;
        if (unit.alu) {
          aluVals[i] = get(ref.buf, at, aluCvt);
          at += eb;
        }
        if (unit.mul) mulVals[i] = get(ref.buf, at, mulCvt);
      }
  }
  unit.aluAt = (_c, i) => aluVals[i]!;
  unit.mulAt = (_c, i) => mulVals[i]!;
  return unit;
}

/** the sign bit is clear (PReLU passes such values): +0 and positives, not -0 */
function isNonNegative(v: number): boolean {
  return v > 0 || Object.is(v, 0);
}

function intAlu(type: number, a: number, b: number): number {
  return type === ALU.MAX ? (a > b ? a : b) : type === ALU.MIN ? (a < b ? a : b) : a + b;
}

function floatAlu(type: number, a: number, b: number): number {
  return type === ALU.MAX ? (a > b ? a : b) : type === ALU.MIN ? (a < b ? a : b) : Math.fround(a + b);
}

export interface SdpResult {
  output: EngineOutput;
  /** set when `dst_data` is on the fly (to the PDP) */
  stream: Stream | null;
  /** LUT statistics, when the LUT ran: hits per table and misses */
  lut: { le: number; lo: number; underflow: number; overflow: number } | null;
}

export function runSdp(ctx: EngineContext, op: DecodedStruct, surface: DecodedStruct): SdpResult {
  const n = (p: string) => num(ctx, op, p, 'op');
  const srcPrec = n('src_precision');
  const dstPrec = n('dst_precision');
  if (srcPrec > 2) fail(ctx, 'corrupt', 'op.src_precision', `${srcPrec} is not INT8, INT16 or FP16`);
  if (dstPrec > 2) fail(ctx, 'corrupt', 'op.dst_precision', `${dstPrec} is not INT8, INT16 or FP16`);
  if (n('conv_mode') !== 0) fail(ctx, 'unsupported', 'op.conv_mode', 'the Winograd output layout is not modelled');
  if (n('batch_num') > 1) fail(ctx, 'unsupported', 'op.batch_num', `${n('batch_num')} batches in one op are not modelled`);
  // firmware map_proc_precision[dst][src]: FP16 iff the source is FP16
  const floatPipe = srcPrec === PRECISION.FP16;
  if (floatPipe && dstPrec === PRECISION.INT8) fail(ctx, 'corrupt', 'op.dst_precision', 'FP16 to INT8 is not a conversion the SDP makes (hw/format.rst)');
  const src = cubeOf(surface, 'src_data');
  const dst = cubeOf(surface, 'dst_data');
  if (!src || !dst) fail(ctx, 'corrupt', 'surface', 'the SDP surface descriptor is incomplete');
  if (dst.width !== src.width || dst.height !== src.height || dst.channel !== src.channel) {
    fail(ctx, 'corrupt', 'surface.dst_data', `the output cube ${dst.width}x${dst.height}x${dst.channel} differs from the input ${src.width}x${src.height}x${src.channel}`);
  }
  const regions: ReadRegion[] = [];
  let input: Float32Array | Float64Array;
  if (src.type === MEM_TYPE.HW) {
    const s = takeStream(ctx, src, 'src_data');
    if ((s.kind === 'float') !== floatPipe) fail(ctx, 'corrupt', 'op.src_precision', `${srcPrec} does not match the ${s.kind} data its fused parent streams`);
    input = s.data;
  } else {
    const ref = featureRef(ctx, src, srcPrec, 'src_data');
    regions.push({ ref, size: featureExtent(src, srcPrec, ctx.hw.atomBytes), field: 'src_data' });
    input = readFeature(ref, src, srcPrec, ctx.hw.atomBytes);
  }
  const units = [
    readUnit(ctx, op, surface, 'x1_op', 'x1_data', floatPipe, src, regions),
    readUnit(ctx, op, surface, 'x2_op', 'x2_data', floatPipe, src, regions),
    readUnit(ctx, op, surface, 'y_op', 'y_data', floatPipe, src, regions),
  ] as const;
  const y = units[2];
  let lut: LutParams | null = null;
  const lutIndex = n('lut_index');
  if (y.enable && y.act === ACT.LUT) {
    if (lutIndex < 0) fail(ctx, 'corrupt', 'op.lut_index', `-1, but the Y unit's act is LUT`);
    const l = ctx.luts[lutIndex];
    if (!l) fail(ctx, 'corrupt', 'op.lut_index', `LUT ${lutIndex} is past the task's ${ctx.luts.length} LUT(s)`);
    lut = decodeLut(l, floatPipe, 'SDP');
  }
  const outCvt = { offset: n('out_cvt.offset'), scale: n('out_cvt.scale'), truncate: n('out_cvt.truncate') };
  const C = src.channel;
  const plane = src.width * src.height;
  const out = new Float64Array(C * plane);
  let saturated = 0;
  const lutStats = lut ? { le: 0, lo: 0, underflow: 0, overflow: 0 } : null;
  const outBits = dstPrec === PRECISION.INT8 ? 8 : 16;
  for (let c = 0; c < C; c++) {
    for (let p = 0; p < plane; p++) {
      const i = c * plane + p;
      let v = input[i]!;
      if (floatPipe) {
        for (let k = 0; k < 2; k++) {
          const u = units[k]!;
          if (!u.enable) continue;
          if (u.alu) v = floatAlu(u.aluType, v, u.aluAt(c, i));
          if (u.mul && !(u.act === ACT.PRELU && isNonNegative(v))) v = Math.fround(v * u.mulAt(c, i));
          if (u.act === ACT.RELU && v < 0) v = 0;
        }
        if (y.enable) {
          if (y.mul && !(y.act === ACT.PRELU && isNonNegative(v))) v = Math.fround(v * y.mulAt(c, i));
          if (y.alu) v = floatAlu(y.aluType, v, y.aluAt(c, i));
          if (lut) {
            const a = lutLookup(lut, v);
            v = a.value;
            count(lutStats!, a);
          }
        }
        if (dstPrec === PRECISION.FP16) {
          const h = toHalfValue(v);
          if (Math.abs(v) > 65504 && Number.isFinite(h)) saturated++;
          out[i] = h;
        } else {
          const r = saturate(v >= 0 ? Math.floor(v + 0.5) : -Math.floor(-v + 0.5), 16);
          if (r !== Math.round(v)) saturated++;
          out[i] = r;
        }
        continue;
      }
      for (let k = 0; k < 2; k++) {
        const u = units[k]!;
        if (!u.enable) continue;
        if (u.alu) v = intAlu(u.aluType, v, shiftLeftSat(u.aluAt(c, i), u.shift, 32));
        if (u.mul && u.act === ACT.PRELU && v >= 0) v = saturate(v, 32); // PReLU passes non-negative values, untruncated
        else v = shiftRightSat(u.mul ? v * u.mulAt(c, i) : v, u.truncate, 32);
        if (u.act === ACT.RELU && v < 0) v = 0;
      }
      if (y.enable) {
        if (y.mul && !(y.act === ACT.PRELU && v >= 0)) v = shiftRightSat(v * y.mulAt(c, i), y.truncate, 32);
        if (y.alu) v = saturate(intAlu(y.aluType, v, y.aluAt(c, i)), 32);
        if (lut) {
          const a = lutLookup(lut, v);
          v = a.value;
          count(lutStats!, a);
        }
      }
      const shifted = roundShiftRight((v - outCvt.offset) * outCvt.scale, outCvt.truncate);
      const r17 = saturate(shifted, 17);
      if (dstPrec === PRECISION.FP16) {
        if (r17 !== shifted) saturated++;
        out[i] = toHalfValue(r17);
      } else {
        const o = saturate(r17, outBits);
        if (o !== shifted) saturated++;
        out[i] = o;
      }
    }
  }
  const output: EngineOutput = { channel: C, height: src.height, width: src.width, precision: dstPrec === 0 ? 'INT8' : dstPrec === 1 ? 'INT16' : 'FP16', where: dst.type === MEM_TYPE.HW ? 'stream' : 'memory', data: out, saturated };
  if (dst.type === MEM_TYPE.HW) {
    return { output, stream: { channel: C, height: src.height, width: src.width, kind: dstPrec === PRECISION.FP16 ? 'float' : 'int', precision: dstPrec, data: out }, lut: lutStats };
  }
  const dref = ctx.mem.forWrite(featureRef(ctx, dst, dstPrec, 'dst_data'));
  const dsize = featureExtent(dst, dstPrec, ctx.hw.atomBytes);
  checkOverlap(ctx, dref, dsize, regions);
  writeFeature(dref, dst, dstPrec, ctx.hw.atomBytes, out);
  return { output, stream: null, lut: lutStats };
}

function count(s: { le: number; lo: number; underflow: number; overflow: number }, a: { table: 'LE' | 'LO'; flow: string }): void {
  if (a.flow === 'underflow') s.underflow++;
  else if (a.flow === 'overflow') s.overflow++;
  else if (a.table === 'LE') s.le++;
  else s.lo++;
}
