/**
 * The lookup tables of the DLA (`LutManager::writeLRNData`, `writeSigmoidData`, `writeTanhData`):
 * LRN in FP16 is an exponential table of 1 / (k + alpha/n x 2^i)^beta for i = 0..64; sigmoid and
 * tanh in FP16 are 257-entry linear tables over [-16, 16] and [-4, 4]. INT8
 * tables upstream are all zeros (it logs "Empty INT8 ... LUT"); NPU Studio refuses those
 * networks before they get here.
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

export function lutParam(entry: LutEntry): LutParam {
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
