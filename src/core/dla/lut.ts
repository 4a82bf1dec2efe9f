/**
 * The two-level hybrid lookup table shared by SDP (Y unit) and CDP (nvdla/doc
 * hw/v1/ias/lut-programming.rst; nvdla/hw cmod `hls/sdp/sdp_y_idx.cpp` for the index,
 * `sdp_y_inp.cpp` for the interpolation, `sdp_hls_wrapper.cpp` for out-of-range):
 *
 * - LE ("linear / exponent", 65 entries): in exponent mode the index is
 *   floor(log2(x - start)) - exp_offset and the fraction the position between the two powers of
 *   two; in linear mode the index is (x - start) >> index_select. LO ("linear only", 257
 *   entries) is always linear. x <= start (or an index below 0) underflows; an index at or past
 *   the last entry overflows (the end registers are only the origin of the overflow slope).
 * - which table answers: both hit -> hybrid priority; both underflow -> underflow priority; both
 *   overflow -> overflow priority; one hit -> that one; mixed misses -> hybrid priority.
 * - a hit interpolates linearly between entry i and i + 1 with a 35-bit fraction (int: rounded
 *   half away; fp16: fp17 arithmetic, modelled in float32); a miss extrapolates
 *   `LUT[0 or N] + (x - (start or end) - bias) x slope`, slope = scale >> shift (int, signed
 *   5-bit shift) or an fp16 scale, bias = 2^exp_offset for an exponent-table underflow.
 *
 * Descriptor -> registers as firmware `update_lut` (common.c) writes them: exponent mode uses
 * `linear_exp_offset.exp_offset` as LE_INDEX_OFFSET; linear mode `linear_exp_offset.frac_bits`
 * as LE_INDEX_SELECT; `linear_only_offset.frac_bits` is LO_INDEX_SELECT. SDP registers take the
 * low 32 bits of start / end (fp32 bits in an fp16 pipeline, whose datapath is fp32); CDP takes
 * all 38.
 */
import type { DecodedStruct } from '../loadable/structs';
import { member, valueOf } from '../loadable/structs';
import { saturate, signedShift, roundShiftRight } from './fixed';
import { halfTable } from './half';

export interface LutSlope {
  /** int: i16 scale; float: the fp16 scale's value */
  scale: number;
  /** int: signed shift (right when positive) */
  shift: number;
}

export interface LutParams {
  le: number[];
  lo: number[];
  exponent: boolean;
  leIndexOffset: number;
  leIndexSelect: number;
  loIndexSelect: number;
  leStart: number;
  leEnd: number;
  loStart: number;
  loEnd: number;
  leUnderflow: LutSlope;
  leOverflow: LutSlope;
  loUnderflow: LutSlope;
  loOverflow: LutSlope;
  /** 0: LE, 1: LO */
  hybridPriority: number;
  underflowPriority: number;
  overflowPriority: number;
  float: boolean;
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const i32 = new Int32Array(f32.buffer);

function low32AsFloat(v: number): number {
  u32[0] = v >>> 0;
  return f32[0]!;
}

function low32AsInt(v: number): number {
  u32[0] = v >>> 0;
  return i32[0]!;
}

/**
 * A `dla_lut_param` as the registers of one engine see it. `engine` SDP reads the low 32 bits of
 * start / end, CDP all of them (its 64-bit values are exact below 2^53).
 */
export function decodeLut(s: DecodedStruct, float: boolean, engine: 'SDP' | 'CDP'): LutParams {
  const arr = (name: string, n: number): number[] => {
    const m = member(s, name);
    const out: number[] = [];
    for (let i = 0; i < n; i++) out.push(m?.fields?.[i]?.value ?? 0);
    return out;
  };
  const half = halfTable();
  const entry = (v: number) => (float ? half[v & 0xffff]! : v);
  const big = (name: string): number => {
    const raw = valueOf(s, name) ?? 0;
    if (engine === 'SDP') return float ? low32AsFloat(raw % 2 ** 32) : low32AsInt(raw % 2 ** 32);
    if (float) return low32AsFloat(raw % 2 ** 32);
    // CDP: 38-bit signed
    const m = raw % 2 ** 38;
    return m >= 2 ** 37 ? m - 2 ** 38 : m;
  };
  const slope = (name: string): LutSlope =>
    float
      ? { scale: half[(valueOf(s, `${name}.data_f`) ?? 0) & 0xffff]!, shift: 0 }
      : { scale: valueOf(s, `${name}.data_i.scale`) ?? 0, shift: valueOf(s, `${name}.data_i.shifter`) ?? 0 };
  return {
    le: arr('linear_exp_table', 65).map(entry),
    lo: arr('linear_only_table', 257).map(entry),
    exponent: (valueOf(s, 'method') ?? 0) === 0,
    leIndexOffset: valueOf(s, 'linear_exp_offset.exp_offset') ?? 0,
    leIndexSelect: valueOf(s, 'linear_exp_offset.frac_bits') ?? 0,
    loIndexSelect: valueOf(s, 'linear_only_offset.frac_bits') ?? 0,
    leStart: big('linear_exp_start'),
    leEnd: big('linear_exp_end'),
    loStart: big('linear_only_start'),
    loEnd: big('linear_only_end'),
    leUnderflow: slope('linear_exp_underflow_slope'),
    leOverflow: slope('linear_exp_overflow_slope'),
    loUnderflow: slope('linear_only_underflow_slope'),
    loOverflow: slope('linear_only_overflow_slope'),
    hybridPriority: valueOf(s, 'hybrid_priority') ?? 0,
    underflowPriority: valueOf(s, 'underflow_priority') ?? 0,
    overflowPriority: valueOf(s, 'overflow_priority') ?? 0,
    float,
  };
}

interface Probe {
  uflow: boolean;
  oflow: boolean;
  index: number;
  /** in [0, 1) */
  fraction: number;
}

function linearProbe(x: number, start: number, select: number, entries: number, float: boolean): Probe {
  const last = entries - 1;
  if (float) {
    const d = Math.fround(x - start);
    if (!(d > 0)) return { uflow: true, oflow: false, index: 0, fraction: 0 };
    const f = d / 2 ** select;
    const i = Math.floor(f);
    if (i >= last) return { uflow: false, oflow: true, index: last, fraction: 0 };
    return { uflow: false, oflow: false, index: i, fraction: f - i };
  }
  if (x <= start) return { uflow: true, oflow: false, index: 0, fraction: 0 };
  const d = x - start;
  const i = select >= 0 ? Math.floor(d / 2 ** select) : d * 2 ** -select;
  if (i >= last) return { uflow: false, oflow: true, index: last, fraction: 0 };
  const fraction = select > 0 ? (d - i * 2 ** select) / 2 ** select : 0;
  return { uflow: false, oflow: false, index: i, fraction };
}

function exponentProbe(x: number, start: number, offset: number, float: boolean): Probe {
  const d = float ? Math.fround(x - start) : x - start;
  if (!(d > 0)) return { uflow: true, oflow: false, index: 0, fraction: 0 };
  const e = Math.floor(Math.log2(d));
  // log2 can be off by one ulp near powers of two: fix the exponent exactly
  const p = 2 ** e > d ? e - 1 : 2 ** (e + 1) <= d ? e + 1 : e;
  if (p < offset) return { uflow: true, oflow: false, index: 0, fraction: 0 };
  const s = p - offset;
  if (s >= 64) return { uflow: false, oflow: true, index: 64, fraction: 0 };
  return { uflow: false, oflow: false, index: s, fraction: d / 2 ** p - 1 };
}

export interface LutAnswer {
  value: number;
  /** which table answered and how: for the statistics the hardware keeps */
  table: 'LE' | 'LO';
  flow: 'hit' | 'underflow' | 'overflow';
}

/** SDP interpolates with a 35-bit fraction (yLutFracSize); CDP's int8 path keeps 16 bits. */
export const SDP_FRACTION_BITS = 35;
export const CDP_FRACTION_BITS = 16;

/** The LUT output for one input value (an integer in int pipelines, a float in fp ones). */
export function lutLookup(p: LutParams, x: number, fractionBits = SDP_FRACTION_BITS): LutAnswer {
  const le = p.exponent ? exponentProbe(x, p.leStart, p.leIndexOffset, p.float) : linearProbe(x, p.leStart, p.leIndexSelect, 65, p.float);
  const lo = linearProbe(x, p.loStart, p.loIndexSelect, 257, p.float);
  const leMiss = le.uflow || le.oflow;
  const loMiss = lo.uflow || lo.oflow;
  let useLo: boolean;
  if (le.uflow && lo.uflow) useLo = p.underflowPriority === 1;
  else if (le.oflow && lo.oflow) useLo = p.overflowPriority === 1;
  else if (!leMiss && !loMiss) useLo = p.hybridPriority === 1;
  else if (leMiss && loMiss) useLo = p.hybridPriority === 1;
  else useLo = leMiss;
  const probe = useLo ? lo : le;
  const table = useLo ? p.lo : p.le;
  const y0 = table[probe.index] ?? 0;
  if (!probe.uflow && !probe.oflow) {
    const y1 = table[probe.index + 1] ?? y0;
    let value: number;
    if (p.float) value = Math.fround(Math.fround((1 - probe.fraction) * y0) + Math.fround(probe.fraction * y1));
    else {
      const f = Math.floor(probe.fraction * 2 ** fractionBits);
      value = saturate(roundShiftRight(y0 * (2 ** fractionBits - f) + y1 * f, fractionBits), 32);
    }
    return { value, table: useLo ? 'LO' : 'LE', flow: 'hit' };
  }
  const slope = useLo ? (probe.oflow ? p.loOverflow : p.loUnderflow) : probe.oflow ? p.leOverflow : p.leUnderflow;
  const origin = useLo ? (probe.oflow ? p.loEnd : p.loStart) : probe.oflow ? p.leEnd : p.leStart;
  const expUnderflow = !useLo && p.exponent && probe.uflow;
  let value: number;
  if (p.float) {
    const bias = expUnderflow ? 2 ** p.leIndexOffset : 0;
    const a = Math.fround(x - Math.fround(origin + bias));
    value = Math.fround(y0 + Math.fround(a * slope.scale));
  } else {
    const bias = expUnderflow && p.leIndexOffset > 0 ? 2 ** p.leIndexOffset : 0;
    const a = x - (origin + bias);
    value = saturate(y0 + signedShift(a * slope.scale, slope.shift, 52), 32);
  }
  return { value, table: useLo ? 'LO' : 'LE', flow: probe.oflow ? 'overflow' : 'underflow' };
}
