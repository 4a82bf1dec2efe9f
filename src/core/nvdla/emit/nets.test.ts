/**
 * Real-size nets against nvdla_compiler's results for them (test/fixtures/nvdla/nets: the
 * reference compiled the deploy prototxts with seeded random weights, which `synthetic()`
 * reproduces bit for bit; the loadables are too big to keep, so their blobs are compared by
 * sha256). AlexNet fp16 exercises LRN on the CDP with its lookup table.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compileNvdla } from '../compile';
import { FIXTURES, fixtureDeploy, synthetic } from '../../../../test/support/nvdla/fixtures';

describe('real-size nets (blob checksums of nvdla_compiler output)', () => {
  it('AlexNet fp16, basic and fast-math: every blob (weights, op, surface, dependency and LUT lists) as the reference', () => {
    const deploy = fixtureDeploy('caffe/alexnet/deploy.prototxt');
    const weights = synthetic(deploy);
    for (const profile of ['basic', 'fast-math']) {
      const r = compileNvdla(deploy, weights, { cprecision: 'fp16', profile, batch: 1 });
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const tsv = readFileSync(join(FIXTURES, `nvdla/nets/alexnet-b1-nv_full-fp16-${profile}.blobs.tsv`), 'utf8').trim().split('\n').slice(1);
      const want = Object.fromEntries(tsv.map((l) => l.split('\t')).map(([n, size, h]) => [n, `${size} ${h}`]));
      const got = Object.fromEntries(r.loadable!.blobs.map((b) => [b.name, `${b.size} ${createHash('sha256').update(b.data).digest('hex')}`]));
      expect(got).toEqual(want);
      expect(r.loadable!.memory.length).toBe(Number(/memory_list: (\d+) entries/.exec(readFileSync(join(FIXTURES, `nvdla/nets/alexnet-b1-nv_full-fp16-${profile}.summary.txt`), 'utf8'))![1]));
    }
  }, 600_000);
});
