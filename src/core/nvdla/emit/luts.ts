/**
 * The lookup tables of the DLA (`LutManager::writeLRNData`, `writeSigmoidData`, `writeTanhData`):
 * LRN in FP16 is an exponential table of 1 / (k + alpha/n x 2^i)^beta for i = 0..64; sigmoid and
 * tanh in FP16 are 257-entry linear tables over [-16, 16] and [-4, 4]. INT8
 * tables upstream are all zeros (it logs "Empty INT8 ... LUT"). NPU Studio refuses INT8 sigmoid
 * and tanh before they get here; INT8 LRN it compiles with a table of its own (`lrnInt8Plan`).
 */
import type { LutEntry } from '../engine/model';
import { float32ToHalfTiesAway } from '../half-ties-away';
import type { LutParam } from './dla-structs';
import { EmitError } from './memory-list';

const LINEAR_EXP = 65;
const LINEAR_ONLY = 257;
const PRIORITY_LINEAR_EXP = 0;
const PRIORITY_LINEAR_ONLY = 1;
const METHOD_EXPONENTIAL = 0;
const METHOD_LINEAR = 1;

/**
 * Upstream ships the sigmoid and tanh tables as constants; they are exactly the functions sampled
 * on upstream's grids (sigmoid: x = -16 + i/8, tanh: x = -4 + i/32, i = 0..256), rounded to fp16,
 * so they are generated here (the test checks them against the checksums of upstream's tables).
 */
export function linearTable(type: 'SIGMOID' | 'TANH'): number[] {
  const f = type === 'SIGMOID' ? (x: number) => 1 / (1 + Math.exp(-x)) : Math.tanh;
  const [start, step] = type === 'SIGMOID' ? [-16, 1 / 8] : [-4, 1 / 32];
  return Array.from({ length: LINEAR_ONLY }, (_, i) => float32ToHalfTiesAway(Math.fround(f(start + i * step))));
}

const s16 = (v: number) => (v << 16) >> 16;

function emptyInt8(): LutParam {
  return {
    linear_exp_table: new Array<number>(LINEAR_EXP).fill(0),
    linear_only_table: new Array<number>(LINEAR_ONLY).fill(0),
    linear_exp_offset: 0,
    linear_only_offset: -128,
    linear_exp_start: 0,
    linear_exp_end: 0,
    linear_only_start: 1,
    linear_only_end: 1,
    slopes: [0, 0, 0, 0],
    hybrid_priority: PRIORITY_LINEAR_EXP,
    underflow_priority: PRIORITY_LINEAR_EXP,
    overflow_priority: PRIORITY_LINEAR_EXP,
    method: METHOD_EXPONENTIAL,
  };
}

/** the float32 bits of a value, as upstream stores index offsets in the 64-bit start field */
function float32Bits(v: number): number {
  const b = new DataView(new ArrayBuffer(4));
  b.setFloat32(0, v, true);
  return b.getUint32(0, true);
}

/**
 * INT8 LRN on the CDP (beyond nvdla_compiler, which only has FP16 CDP formats). With the input
 * convertor the identity, the CDP squares the int8 inputs x' (x = s_in x'), sums them over
 * `localSize` channels into an integer s, looks up l = LUT(s), and writes out_cvt(x' l). Caffe's
 * LRN is y = x (k + alpha/n sum x^2)^-beta, and sum x^2 = s_in^2 s, so both tables hold
 *
 *   LUT(s) = round(T (k + alpha/n s_in^2 s)^-beta)
 *
 * sampled linearly (an exponent table's octaves would interpolate a power law ~6 % off):
 *
 * - LE, 65 entries with step 2^b: the smallest step with which 64 steps reach the largest
 *   possible sum, localSize x 128^2 (every input -128), so no sum overflows;
 * - LO, 257 entries with step 2^(b-5): 32x finer, covering [0, 8 x 2^b], where the factor bends
 *   most (the small sums); beyond it LE's step is at most 1/8 of the sum, which bounds the
 *   linear interpolation's relative error by (1/8)^2 / 8 beta (beta + 1) (0.27 % for beta 0.75).
 *
 * Near s = 0 LO's error is that of its step: (alpha/n s_in^2 2^(b-5) / k)^2 / 8 beta (beta + 1),
 * negligible for AlexNet's LRN at calibrated scales (under 0.3 % everywhere) and under 1 % even
 * when the factor falls to 1/60 over the int8 range (luts.test.ts).
 * Where both hit, the hybrid priority picks LO; past LO's end LO overflows and LE (the one hit)
 * answers; s = 0 underflows both and the underflow priority picks LO[0] = f(0) exactly.
 * T = 32767 / the largest entry, so the 16-bit LUT output keeps all its bits. The output
 * convertor scales x' l by s_in / (T s_out) (`lrnInt8OutCvt`). Sums are exact integers, so the
 * only errors are the tables' interpolation and the int8 rounding of the output.
 */
export interface LrnInt8Plan {
  lut: LutParam;
  /** T: LUT value = T x the float factor */
  tableScale: number;
  /** log2 of the LE (coarse) and LO (fine) tables' steps in square sums */
  leSelect: number;
  loSelect: number;
}

export interface LrnParams {
  localSize: number;
  alpha: number;
  beta: number;
  k: number;
}

export function lrnInt8Table(p: LrnParams, inputScale: number): LrnInt8Plan {
  if (!(inputScale > 0) || !Number.isFinite(inputScale)) throw new EmitError(`an INT8 LRN table needs a positive input scale, not ${inputScale}`);
  const maxSum = p.localSize * 128 * 128;
  const leSelect = Math.ceil(Math.log2(maxSum / (LINEAR_EXP - 1)));
  const loSelect = leSelect - 5;
  const c = (p.alpha / p.localSize) * inputScale * inputScale;
  const f = (s: number) => Math.pow(p.k + c * s, -p.beta);
  const lo = Array.from({ length: LINEAR_ONLY }, (_, i) => f(i * 2 ** loSelect));
  const le = Array.from({ length: LINEAR_EXP }, (_, i) => f(i * 2 ** leSelect));
  const peak = Math.max(...lo, ...le);
  if (!Number.isFinite(peak) || !(peak > 0)) {
    throw new EmitError(`the LRN factor (k + alpha/n sum x^2)^-beta with k ${p.k}, alpha ${p.alpha}, beta ${p.beta} is not finite and positive over the INT8 range, so it has no INT8 table`);
  }
  const tableScale = 32767 / peak;
  const q = (v: number) => Math.round(tableScale * v);
  return {
    tableScale,
    leSelect,
    loSelect,
    lut: {
      linear_exp_table: le.map(q),
      linear_only_table: lo.map(q),
      linear_exp_offset: leSelect,
      linear_only_offset: loSelect,
      linear_exp_start: 0,
      linear_exp_end: (LINEAR_EXP - 1) * 2 ** leSelect,
      linear_only_start: 0,
      linear_only_end: (LINEAR_ONLY - 1) * 2 ** loSelect,
      slopes: [0, 0, 0, 0],
      hybrid_priority: PRIORITY_LINEAR_ONLY,
      underflow_priority: PRIORITY_LINEAR_ONLY,
      overflow_priority: PRIORITY_LINEAR_EXP,
      method: METHOD_LINEAR,
    },
  };
}

/** The CDP output convertor of an INT8 LRN: x' LUT(s) x s_in / (T s_out) as scale / 2^truncate. */
export function lrnInt8OutCvt(tableScale: number, inputScale: number, outputScale: number): { scale: number; truncate: number; offset: number; enable: number } {
  const m = inputScale / (tableScale * outputScale);
  if (!(m > 0) || !Number.isFinite(m)) throw new EmitError(`an INT8 LRN needs positive input and output scales (input ${inputScale}, output ${outputScale})`);
  // the largest shift (the CDP's is 6 bits) that keeps the scale within a signed 16-bit value
  const truncate = Math.min(63, Math.floor(Math.log2(32767 / m)));
  if (truncate < 0) throw new EmitError(`an INT8 LRN's output rescale ${m} (input scale ${inputScale} over output scale ${outputScale}) exceeds the convertor's 16-bit scale`);
  const scale = Math.round(m * 2 ** truncate);
  return { scale, truncate, offset: 0, enable: 1 };
}

export function lutParam(entry: LutEntry): LutParam {
  if (entry.precision === 'INT8' && entry.type === 'LRN' && entry.lrn?.inputScale !== undefined) return lrnInt8Table(entry.lrn, entry.lrn.inputScale).lut;
  if (entry.precision === 'INT8') return emptyInt8();
  if (entry.precision !== 'FP16') throw new EmitError(`Unsupported ${entry.type} Precision: ${entry.precision}`);
  if (entry.type === 'LRN') {
    const p = entry.lrn!;
    const table: number[] = [];
    const alphaOverN = Math.fround(p.alpha / Math.fround(p.localSize));
    for (let i = 0; i < LINEAR_EXP; i++) {
      const out = 1.0 / Math.pow(p.k + alphaOverN * 2 ** i, p.beta);
      table.push(s16(float32ToHalfTiesAway(Math.fround(out))));
    }
    return { ...emptyInt8(), linear_exp_table: table };
  }
  const linear = linearTable(entry.type);
  return {
    linear_exp_table: new Array<number>(LINEAR_EXP).fill(0),
    linear_only_table: linear.map(s16),
    linear_exp_offset: -128,
    linear_only_offset: entry.type === 'SIGMOID' ? -3 : -5,
    linear_exp_start: 0,
    linear_exp_end: 0,
    linear_only_start: float32Bits(entry.type === 'SIGMOID' ? -16 : -4),
    linear_only_end: 0,
    slopes: [0, 0, 0, 0],
    hybrid_priority: PRIORITY_LINEAR_ONLY,
    underflow_priority: PRIORITY_LINEAR_ONLY,
    overflow_priority: PRIORITY_LINEAR_ONLY,
    method: METHOD_LINEAR,
  };
}
