import { describe, expect, it } from 'vitest';
import { FormatError } from '../../errors';
import { DLA_LUT_PARAM } from '../../loadable/structs';
import { PRECISION, readFeature, type Cube } from '../cube';
import { halfBits } from '../half';
import { descriptor, featureBytes, featureCube, opDesc, surfaceDesc, testContext, type StructValues } from '../testing';
import type { Stream } from './context';
import { runSdp } from './sdp';

const SDP = 2;
const OFF: StructValues = { enable: 0 };

interface SdpCase {
  /** CHW values of the input (in memory unless `stream`) */
  input: number[];
  C: number;
  H?: number;
  W?: number;
  src?: number;
  dst?: number;
  x1?: StructValues;
  x2?: StructValues;
  y?: StructValues;
  outCvt?: StructValues;
  /** extra buffers at address 2, 3, ...: operand surfaces */
  operands?: Uint8Array[];
  surface?: StructValues;
  stream?: Stream;
  luts?: StructValues[];
  lutIndex?: number;
}

function sdp(c: SdpCase) {
  const H = c.H ?? 1;
  const W = c.W ?? c.input.length / c.C / H;
  const src = c.src ?? PRECISION.INT8;
  const dst = c.dst ?? src;
  const atom = 32;
  const inBytes = c.stream ? new Uint8Array(32) : featureBytes(c.input, c.C, H, W, src, atom);
  const outSize = featureCube(1, c.C, H, W, dst, atom).size as number;
  const streams = new Map<number, Stream>();
  if (c.stream) streams.set(7, c.stream);
  const ctx = testContext([inBytes, new Uint8Array(outSize), ...(c.operands ?? [])], {
    engine: 'SDP',
    streams,
    fusedParent: c.stream ? 7 : -1,
    luts: (c.luts ?? []).map((l) => descriptor(DLA_LUT_PARAM, l)),
  });
  const op = opDesc(SDP, {
    src_precision: src,
    dst_precision: dst,
    lut_index: c.lutIndex ?? -1,
    batch_num: 1,
    out_cvt: { scale: 1, truncate: 0, enable: 1, offset: 0, ...c.outCvt },
    x1_op: c.x1 ?? OFF,
    x2_op: c.x2 ?? OFF,
    y_op: c.y ?? OFF,
  });
  const surface = surfaceDesc(SDP, {
    src_data: c.stream ? { type: 2, address: -1, width: W, height: H, channel: c.C } : featureCube(0, c.C, H, W, src, atom),
    dst_data: featureCube(1, c.C, H, W, dst, atom),
    ...c.surface,
  });
  const r = runSdp(ctx, op, surface);
  const dstCube: Cube = { type: 0, address: 1, offset: 0, size: outSize, width: W, height: H, channel: c.C, lineStride: W * atom, surfStride: W * H * atom, planeStride: 0 };
  const written = Array.from(readFeature({ memId: 1, buf: ctx.mem.buffers[1]!, base: 0 }, dstCube, dst, atom));
  return { r, out: Array.from(r.output.data), written };
}

function thrown(f: () => unknown): FormatError {
  try {
    f();
  } catch (e) {
    if (e instanceof FormatError) return e;
    throw e;
  }
  throw new Error('no error');
}

describe('SDP int8: X unit (ALU, MUL, truncate, ReLU) and the output convertor', () => {
  it('per-layer ALU operand shifted left, truncation half away, ReLU, out_cvt (hand computed)', () => {
    // x + (3 << 2) = 22 -8 112 -88; >> 1 -> 11 -4 56 -44; ReLU -> 11 0 56 0;
    // out_cvt (v - 1) x 5 >> 2: 12.5 -> 13, -1.25 -> -1, 68.75 -> 69, -1
    const { out, written, r } = sdp({
      input: [10, -20, 100, -100],
      C: 1,
      x1: { enable: 1, type: 2, mode: 0, alu_type: 2, alu_operand: 3, shift_value: 2, truncate: 1, act: 1 },
      outCvt: { offset: 1, scale: 5, truncate: 2 },
    });
    expect(out).toEqual([13, -1, 69, -1]);
    expect(written).toEqual(out);
    expect(r.output).toMatchObject({ precision: 'INT8', where: 'memory', saturated: 0 });
  });

  it('saturates to int8 after the 17-bit truncator and counts it', () => {
    // (11 - 1) x 40 >> 2 = 100; (56 - 1) x 40 >> 2 = 550 -> 127; (-100 + 12 - 1) x 40 >> 2 ... -> -128
    const { out, r } = sdp({
      input: [10, 100, -100],
      C: 1,
      x1: { enable: 1, type: 2, mode: 0, alu_type: 2, alu_operand: 3, shift_value: 2, truncate: 1 },
      outCvt: { offset: 1, scale: 40, truncate: 2 },
    });
    expect(out).toEqual([100, 127, -128]);
    expect(r.output.saturated).toBe(2);
  });

  it('MAX and MIN ALU', () => {
    const max = sdp({ input: [-5, 0, 5], C: 1, x1: { enable: 1, type: 2, mode: 0, alu_type: 0, alu_operand: 1 } });
    const min = sdp({ input: [-5, 0, 5], C: 1, x1: { enable: 1, type: 2, mode: 0, alu_type: 1, alu_operand: 1 } });
    expect(max.out).toEqual([1, 1, 5]);
    expect(min.out).toEqual([-5, 0, 1]);
  });

  it('per-kernel BOTH: an (ALU, MUL) int16 pair per channel from memory, ALU before MUL', () => {
    // channel 0: (x + 4) x 3 >> 1; channel 1: (x - 2) x -5 >> 1
    const pairs = new Uint8Array(64);
    new DataView(pairs.buffer).setInt16(0, 4, true);
    new DataView(pairs.buffer).setInt16(2, 3, true);
    new DataView(pairs.buffer).setInt16(4, -2, true);
    new DataView(pairs.buffer).setInt16(6, -5, true);
    const { out } = sdp({
      input: [1, 2, 3, 7, 8, 9],
      C: 2,
      x1: { enable: 1, type: 3, mode: 1, alu_type: 2, precision: 1, truncate: 1 },
      operands: [pairs],
      surface: { x1_data: { type: 0, address: 2, size: 64, width: 1, height: 1, channel: 2 } },
    });
    // ch0: 5x3=15 -> 7.5 -> 8; 6x3=18 -> 9; 7x3=21 -> 10.5 -> 11; ch1: 5x-5=-25 -> -12.5 -> -13; -30 -> -15; -35 -> -17.5 -> -18
    expect(out).toEqual([8, 9, 11, -13, -15, -18]);
  });

  it('PReLU: non-negative values pass untruncated, negatives are multiplied and truncated', () => {
    const { out } = sdp({ input: [8, -8, 0, -3], C: 1, x1: { enable: 1, type: 1, mode: 0, act: 3, mul_operand: 3, truncate: 2 } });
    // 8 passes; -8 x 3 / 4 = -6; 0 passes; -3 x 3 / 4 = -2.25 -> -2
    expect(out).toEqual([8, -6, 0, -2]);
  });

  it('truncates a fused CONV stream even with MUL bypassed (firmware: the MUL truncate always applies)', () => {
    const stream: Stream = { channel: 1, height: 1, width: 4, kind: 'int', precision: 0, data: Float64Array.from([5, -5, 7, -7]) };
    const { out, written } = sdp({ input: [0, 0, 0, 0], C: 1, stream, x1: { enable: 1, type: 0, truncate: 1 } });
    expect(out).toEqual([3, -3, 4, -4]);
    expect(written).toEqual(out);
  });

  it('Y unit per kernel: MUL then ALU, each operand through its convertor', () => {
    // pair (alu 7, mul 3): alu_cvt (7 - 1) x 2 >> 1 = 6, mul_cvt (3 - 0) x 3 = 9; v = x x 9 + 6
    const pair = new Uint8Array(32);
    pair[0] = 7;
    pair[1] = 3;
    const { out } = sdp({
      input: [2, 3, -4],
      C: 1,
      y: {
        enable: 1,
        type: 3,
        mode: 1,
        alu_type: 2,
        precision: 0,
        cvt: { alu_cvt: { enable: 1, offset: 1, scale: 2, truncate: 1 }, mul_cvt: { enable: 1, offset: 0, scale: 3, truncate: 0 } },
      },
      operands: [pair],
      surface: { y_data: { type: 0, address: 2, size: 32, width: 1, height: 1, channel: 1 } },
    });
    expect(out).toEqual([24, 33, -30]);
  });

  it('Y unit per point: an eltwise sum with a second cube', () => {
    const ew = featureBytes([1, -2, 3, 5], 2, 1, 2, 0, 32);
    const { out } = sdp({
      input: [10, 20, 30, 40],
      C: 2,
      y: { enable: 1, type: 2, mode: 2, alu_type: 2, precision: 0, cvt: { alu_cvt: { enable: 1, offset: 0, scale: 3, truncate: 0 } } },
      operands: [ew],
      surface: { y_data: featureCube(2, 2, 1, 2, 0, 32) },
    });
    expect(out).toEqual([13, 14, 39, 55]);
  });
});

describe('SDP fp16', () => {
  const h = (v: number) => halfBits(v);
  it('bias (fp16 operand) and ReLU on a float stream, output rounded to fp16', () => {
    const stream: Stream = { channel: 1, height: 1, width: 3, kind: 'float', precision: 2, data: Float64Array.from([1.0001, -3, 2.5]) };
    const { out, written } = sdp({ input: [0, 0, 0], C: 1, src: 2, stream, x1: { enable: 1, type: 2, mode: 0, alu_type: 2, alu_operand: h(0.5), act: 1 } });
    // 1.5001 rounds to the fp16 1.5; -2.5 -> 0; 3
    expect(out).toEqual([1.5, 0, 3]);
    expect(written).toEqual(out);
  });

  it('saturates at +-65504 instead of infinity', () => {
    const { out, r } = sdp({ input: [60000, -60000, 1], C: 1, src: 2, x1: { enable: 1, type: 1, mode: 0, mul_operand: h(2) } });
    expect(out).toEqual([65504, -65504, 2]);
    expect(r.output.saturated).toBe(2);
  });

  it('per-kernel fp16 scale from memory', () => {
    const scales = new Uint8Array(32);
    new DataView(scales.buffer).setUint16(0, h(0.25), true);
    new DataView(scales.buffer).setUint16(2, h(-2), true);
    const { out } = sdp({
      input: [4, 8, 1, 3],
      C: 2,
      src: 2,
      x1: { enable: 1, type: 1, mode: 1, precision: 2 },
      operands: [scales],
      surface: { x1_data: { type: 0, address: 2, size: 32, width: 1, height: 1, channel: 2 } },
    });
    expect(out).toEqual([1, 2, -2, -6]);
  });
});

describe('SDP LUT (Y act LUT)', () => {
  // linear-only table: lo[i] = 10 i, index = x >> 2, LO preferred when both tables answer
  const lo = Array.from({ length: 257 }, (_, i) => 10 * i);
  const lut: StructValues = {
    linear_exp_table: new Array(65).fill(0),
    linear_only_table: lo,
    linear_exp_offset: { exp_offset: 0 },
    linear_only_offset: { frac_bits: 2 },
    linear_exp_start: 0,
    linear_exp_end: 1024,
    linear_only_start: 0,
    linear_only_end: 1024,
    linear_only_underflow_slope: { data_i: { scale: 3, shifter: 1 } },
    linear_only_overflow_slope: { data_i: { scale: 1, shifter: 0 } },
    hybrid_priority: 1,
    underflow_priority: 1,
    overflow_priority: 1,
    method: 1,
  };
  it('interpolates (rounding half away), extrapolates under- and overflow with their slopes', () => {
    const stream: Stream = { channel: 1, height: 1, width: 4, kind: 'int', precision: 1, data: Float64Array.from([5, 6, -4, 1030]) };
    const { out, r } = sdp({ input: [0, 0, 0, 0], C: 1, src: 1, dst: 1, stream, y: { enable: 1, type: 0, act: 2 }, luts: [lut], lutIndex: 0 });
    // 5: index 1, fraction 1/4 -> 12.5 -> 13; 6: 15; -4: lo[0] + (-4 x 3 >> 1) = -6; 1030: lo[256] + 6 = 2566
    expect(out).toEqual([13, 15, -6, 2566]);
    expect(r.lut).toEqual({ le: 0, lo: 2, underflow: 1, overflow: 1 });
  });
  it('a LUT index past the task is an error naming op.lut_index', () => {
    const e = thrown(() => sdp({ input: [1], C: 1, y: { enable: 1, type: 0, act: 2 }, luts: [], lutIndex: 2 }));
    expect(e.info).toMatchObject({ kind: 'corrupt', path: 'task[0].slot[0].op.lut_index' });
  });
});

describe('SDP: what it refuses', () => {
  it('an output overlapping the input it reads', () => {
    const e = thrown(() => sdp({ input: [1, 2], C: 1, surface: { dst_data: featureCube(0, 1, 1, 2, 0, 32) } }));
    expect(e.info).toMatchObject({ kind: 'corrupt', path: 'task[0].slot[0].surface.dst_data' });
    expect(e.message).toContain('overlaps src_data');
  });
  it('a stream that does not match the cube', () => {
    const stream: Stream = { channel: 2, height: 1, width: 1, kind: 'int', precision: 0, data: new Float64Array(2) };
    const e = thrown(() => sdp({ input: [0, 0, 0], C: 1, stream }));
    expect(e.message).toContain('streams 1x1x2');
  });
  it('EQL (a comparison that writes nothing)', () => {
    const e = thrown(() => sdp({ input: [1], C: 1, x1: { enable: 1, type: 2, alu_type: 3 } }));
    expect(e.info).toMatchObject({ kind: 'unsupported', path: 'task[0].slot[0].op.x1_op.alu_type' });
  });
});
