import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { linearTable, lutParam } from './luts';

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
