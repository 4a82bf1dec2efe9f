import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { decodeLut, lutLookup, CDP_FRACTION_BITS } from '../../dla/lut';
import { convert } from '../../dla/fixed';
import { DLA_LUT_PARAM, decodeStruct } from '../../loadable/structs';
import { SIZES, StructWriter, writeLutParam } from './dla-structs';
import { linearTable, lrnInt8OutCvt, lrnInt8Table, lutParam } from './luts';

const sha = (values: number[]) => {
  const b = new Uint8Array(values.length * 2);
  const v = new DataView(b.buffer);
  values.forEach((x, i) => v.setUint16(2 * i, x, true));
  return createHash('sha256').update(b).digest('hex');
};

describe('lookup tables', () => {
  it("sigmoid and tanh, sampled and rounded to fp16, are upstream's tables (checksums of LutManager.cpp's arrays)", () => {
    expect(sha(linearTable('SIGMOID'))).toBe('31e9d3729a475d6b7a17aac5d471345900478f408788c244581ab234d43d4412');
    expect(sha(linearTable('TANH'))).toBe('c1cf552e555d8767df9313ea4312c496383f6b0ca51a611e04139ba1b5531060');
    expect(linearTable('SIGMOID')[128]).toBe(0x3800); // sigmoid(0) = 0.5
    expect(linearTable('TANH')[128]).toBe(0); // tanh(0)
  });

  it('LRN (fp16): 1 / (k + alpha/n x 2^i)^beta, exponential method, linear table off', () => {
    const l = lutParam({ key: '', type: 'LRN', precision: 'FP16', lrn: { localSize: 5, alpha: Math.fround(1e-4), beta: 0.75, k: 1 } });
    expect(l.linear_exp_table[0]).toBe(0x3c00); // 1 / (1 + 2e-5)^0.75 rounds to 1.0
    expect(l.linear_exp_table.length).toBe(65);
    expect([l.method, l.linear_exp_offset, l.linear_only_offset, l.linear_only_start, l.linear_only_end]).toEqual([0, 0, -128, 1, 1]);
    expect(l.linear_only_table.every((v) => v === 0)).toBe(true);
  });

  it("INT8 tables are upstream's empty ones (the compiler refuses INT8 sigmoid/tanh before emit)", () => {
    const l = lutParam({ key: '', type: 'SIGMOID', precision: 'INT8', lrn: null });
    expect([...l.linear_exp_table, ...l.linear_only_table].every((v) => v === 0)).toBe(true);
  });
});

describe('INT8 LRN table (NPU Studio; nvdla_compiler has none)', () => {
  /** the table as the DLA model's CDP reads it from the loadable's bytes */
  const asCdpReads = (l: ReturnType<typeof lrnInt8Table>['lut']) => {
    const bytes = new Uint8Array(SIZES.lutParam);
    writeLutParam(new StructWriter(bytes), 0, l);
    return decodeLut(decodeStruct(DLA_LUT_PARAM, bytes, 0, null), false, 'CDP');
  };
  const cases = [
    { name: 'AlexNet (n 5, alpha 1e-4, beta 0.75, k 1)', p: { localSize: 5, alpha: 1e-4, beta: 0.75, k: 1 }, inScale: 0.9 },
    { name: 'strong (n 3, alpha 0.01, beta 0.6, k 2)', p: { localSize: 3, alpha: 0.01, beta: 0.6, k: 2 }, inScale: 0.3 },
    { name: 'n 9, alpha 1, beta 0.75, k 1', p: { localSize: 9, alpha: 1, beta: 0.75, k: 1 }, inScale: 0.02 },
    // alpha/n s_in^2 x the largest sum = 940 k: the fine table's first step moves the factor ~7 %, interpolated to within 0.9 %
    { name: 'very strong (n 3, alpha 0.01, beta 0.6, k 2, input scale 2.4)', p: { localSize: 3, alpha: 0.01, beta: 0.6, k: 2 }, inScale: 2.4, tolerance: 1e-2 },
  ];

  it.each(cases)('$name: every square sum of int8 inputs, through the CDP lookup, is the float factor to 0.3 % (1 % for a very strong one)', ({ p, inScale, tolerance = 3e-3 }) => {
    const plan = lrnInt8Table(p, inScale);
    const lut = asCdpReads(plan.lut);
    const max = p.localSize * 128 * 128;
    // the largest sum (every input -128) is inside the coarse table; the fine one covers the small sums
    expect(64 * 2 ** plan.leSelect).toBeGreaterThanOrEqual(max);
    expect(256 * 2 ** plan.loSelect).toBe(8 * 2 ** plan.leSelect);
    const bad: string[] = [];
    const seen = new Set<string>();
    for (let s = 0; s <= max; s += s < 4096 ? 1 : 37) {
      const got = lutLookup(lut, s, CDP_FRACTION_BITS);
      seen.add(`${got.table} ${got.flow}`);
      const want = Math.pow(p.k + (p.alpha / p.localSize) * inScale * inScale * s, -p.beta);
      const rel = Math.abs(got.value / plan.tableScale - want) / want;
      if (rel > tolerance) bad.push(`s ${s}: ${got.table} ${got.flow} ${got.value / plan.tableScale} vs ${want}`);
      if (bad.length > 5) break;
    }
    expect(bad).toEqual([]);
    // s = 0 underflows to LO[0]; small sums hit LO; large ones LE
    expect([...seen].sort()).toEqual(['LE hit', 'LO hit', 'LO underflow']);
    // the 16-bit LUT output keeps its bits: the peak entry is 32767
    expect(Math.max(...plan.lut.linear_only_table, ...plan.lut.linear_exp_table)).toBe(32767);
  });

  it('the output convertor gives y / s_out for x\' x LUT(s) (hand computed for one pixel)', () => {
    const p = { localSize: 3, alpha: 0.01, beta: 0.6, k: 2 };
    const sIn = 0.3;
    const sOut = 0.25;
    const plan = lrnInt8Table(p, sIn);
    const cvt = lrnInt8OutCvt(plan.tableScale, sIn, sOut);
    expect(cvt.scale).toBeLessThanOrEqual(32767);
    expect(cvt.scale).toBeGreaterThan(16383); // as many bits as the 16-bit scale holds
    const lut = asCdpReads(plan.lut);
    // x' = 40, 50, 60 on three channels: the middle one's sum is 40^2 + 50^2 + 60^2 = 7700
    const l = lutLookup(lut, 7700, CDP_FRACTION_BITS).value;
    const y = convert(50 * l, cvt.offset, cvt.scale, cvt.truncate, 8);
    const x = 50 * sIn;
    const want = (x * Math.pow(2 + (0.01 / 3) * 7700 * sIn * sIn, -0.6)) / sOut;
    expect(Math.abs(y - want)).toBeLessThanOrEqual(0.5 + 1e-9);
  });

  it('refuses a factor that is infinite at zero (k 0) and scales that are not positive', () => {
    expect(() => lrnInt8Table({ localSize: 5, alpha: 1e-4, beta: 0.75, k: 0 }, 1)).toThrow(/not finite and positive/);
    expect(() => lrnInt8Table({ localSize: 5, alpha: 1e-4, beta: 0.75, k: 1 }, 0)).toThrow(/positive input scale/);
    expect(() => lrnInt8OutCvt(1000, 1, 0)).toThrow(/positive input and output scales/);
  });

  it('lutParam emits it for an INT8 LRN entry that carries its input scale', () => {
    const p = { localSize: 5, alpha: 1e-4, beta: 0.75, k: 1 };
    expect(lutParam({ key: '', type: 'LRN', precision: 'INT8', lrn: { ...p, inputScale: 0.5 } })).toEqual(lrnInt8Table(p, 0.5).lut);
  });
});
