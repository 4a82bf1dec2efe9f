import { describe, expect, it } from 'vitest';
import { DLA_LUT_PARAM } from '../loadable/structs';
import { halfBits } from './half';
import { decodeLut, lutLookup } from './lut';
import { descriptor, type StructValues } from './testing';

const base: StructValues = {
  linear_exp_table: Array.from({ length: 65 }, (_, i) => 100 * i),
  linear_only_table: Array.from({ length: 257 }, (_, i) => -i),
  linear_exp_offset: { exp_offset: 0 },
  linear_only_offset: { frac_bits: 0 },
  linear_exp_start: 0,
  linear_exp_end: 2 ** 64 - 1,
  linear_only_start: 0,
  linear_only_end: 256,
  hybrid_priority: 0,
  underflow_priority: 0,
  overflow_priority: 0,
  method: 0,
};

describe('LUT (two tables, as the SDP Y unit and the CDP read them)', () => {
  it('exponent LE table: index = floor(log2(x - start)) - offset, the fraction between powers of two', () => {
    const p = decodeLut(descriptor(DLA_LUT_PARAM, base), false, 'CDP');
    // 6 = 2^2 x 1.5: index 2, fraction 0.5 -> (200 + 300) / 2 = 250; 8: index 3 exactly -> 300; 1: index 0 -> 0
    expect(lutLookup(p, 6)).toEqual({ value: 250, table: 'LE', flow: 'hit' });
    expect(lutLookup(p, 8).value).toBe(300);
    expect(lutLookup(p, 1).value).toBe(0);
    // exp_offset 2: 6 is index 0 with fraction 0.5 -> 50; 3 (exponent 1 < 2) underflows LE, so LO (which hits) answers
    const q = decodeLut(descriptor(DLA_LUT_PARAM, { ...base, linear_exp_offset: { exp_offset: 2 } }), false, 'CDP');
    expect(lutLookup(q, 6).value).toBe(50);
    expect(lutLookup(q, 3)).toEqual({ value: -3, table: 'LO', flow: 'hit' });
  });

  it('which table answers: hybrid, underflow and overflow priorities', () => {
    const lo = decodeLut(descriptor(DLA_LUT_PARAM, { ...base, hybrid_priority: 1 }), false, 'CDP');
    expect(lutLookup(lo, 6)).toEqual({ value: -6, table: 'LO', flow: 'hit' });
    // 300: LO overflows (index >= 256), LE hits: the hitting table answers whatever the priorities
    expect(lutLookup(lo, 300).table).toBe('LE');
    // x <= start: both underflow, underflow_priority picks
    expect(lutLookup(decodeLut(descriptor(DLA_LUT_PARAM, { ...base, underflow_priority: 1 }), false, 'CDP'), -5).table).toBe('LO');
    expect(lutLookup(decodeLut(descriptor(DLA_LUT_PARAM, base), false, 'CDP'), -5).table).toBe('LE');
  });

  it('fp16 tables: entries are fp16 values, the start a float', () => {
    const f = decodeLut(
      descriptor(DLA_LUT_PARAM, { ...base, method: 1, linear_exp_table: Array.from({ length: 65 }, (_, i) => halfBits(i / 4)), linear_exp_offset: { frac_bits: 0 }, hybrid_priority: 0 }),
      true,
      'CDP',
    );
    // linear LE: index = x (frac_bits 0): 2.5 -> between 0.5 and 0.75 -> 0.625
    expect(lutLookup(f, 2.5)).toEqual({ value: 0.625, table: 'LE', flow: 'hit' });
  });
});
