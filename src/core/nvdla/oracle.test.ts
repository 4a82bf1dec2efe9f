/**
 * Differential test against nvdla_compiler itself (built from nvdla/sw outside this repository).
 * Runs only when NVDLA_COMPILER points at the binary, e.g.
 *   NVDLA_COMPILER=/work/ref/build/nvdla_compiler npx vitest run src/core/nvdla/oracle.test.ts
 * Each case compiles the same Caffe files with the same options in both and compares the
 * loadables byte for byte (and, when they differ, semantically, to say where).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseCalibrationTable } from './calibrate/table';
import { compileNvdla } from './compile';
import { readDeploy, readWeights } from './network/caffe-files';
import type { NvdlaCompileOptions } from './options';
import { FIXTURES } from '../../../test/support/nvdla/fixtures';
import { loadableDifferences, readLoadable } from '../../../test/support/nvdla/read-loadable';

const BIN = process.env.NVDLA_COMPILER;

interface Case {
  prototxt: string;
  caffemodel: string;
  args: string[];
}

const LENET = { prototxt: 'nvdla/golden/lenet_n1.prototxt', caffemodel: 'nvdla/lenet/lenet_iter_10000.caffemodel' };
const LENET64 = { prototxt: 'nvdla/lenet/lenet.prototxt', caffemodel: 'nvdla/lenet/lenet_iter_10000.caffemodel' };
const CIFAR = { prototxt: 'caffe/cifar10-quick/cifar10_quick.prototxt', caffemodel: 'caffe/cifar10-quick/cifar10_quick_iter_5000.caffemodel' };

const CASES: Case[] = [];
for (const profile of ['basic', 'default', 'performance', 'fast-math'])
  for (const cprecision of ['int8', 'fp16'])
    for (const target of ['nv_full', 'nv_large', 'nv_small']) CASES.push({ ...LENET, args: ['--profile', profile, '--cprecision', cprecision, '--configtarget', target] });
for (const informat of ['nchw', 'ncxhwx']) CASES.push({ ...LENET, args: ['--informat', informat] }, { ...LENET, args: ['--informat', informat, '--cprecision', 'fp16'] });
CASES.push({ ...LENET, args: ['--quantizationMode', 'per-filter'] });
CASES.push({ ...LENET, args: ['--quantizationMode', 'per-filter', '--calibtable', 'nvdla/golden/lenet_calib_example.json'] });
CASES.push({ ...LENET, args: ['--batch', '3'] }, { ...LENET, args: ['--batch', '2', '--profile', 'basic', '--cprecision', 'fp16'] });
CASES.push({ ...LENET64, args: ['--profile', 'default'] });
CASES.push({ ...LENET, args: ['--configtarget', 'opendla-small'] }, { ...LENET, args: ['--profile', 'unknown-profile'] });
for (const profile of ['basic', 'fast-math']) for (const target of ['nv_full', 'nv_small']) CASES.push({ ...CIFAR, args: ['--profile', profile, '--configtarget', target] }, { ...CIFAR, args: ['--profile', profile, '--configtarget', target, '--cprecision', 'fp16'] });

/** our options from nvdla_compiler's argv */
function optionsOf(args: string[]): Partial<NvdlaCompileOptions> {
  const o: Partial<NvdlaCompileOptions> = {};
  for (let i = 0; i < args.length; i += 2) {
    const [k, v] = [args[i]!.slice(2), args[i + 1]!];
    if (k === 'batch') o.batch = Number(v);
    else if (k === 'calibtable') o.calibtable = parseCalibrationTable(readFileSync(join(FIXTURES, v), 'utf8'), v);
    else (o as Record<string, string>)[k] = v;
  }
  return o;
}

const dir = BIN ? mkdtempSync(join(tmpdir(), 'nvdla-oracle-')) : '';
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe.runIf(BIN)('nvdla_compiler differential', () => {
  CASES.forEach((c, n) => {
    it(`${c.prototxt.split('/').pop()} ${c.args.join(' ')}`, () => {
      const work = join(dir, String(n));
      execFileSync('mkdir', ['-p', work]);
      const args = c.args.map((a) => (a.endsWith('.json') ? join(FIXTURES, a) : a));
      execFileSync(BIN!, ['--prototxt', join(FIXTURES, c.prototxt), '--caffemodel', join(FIXTURES, c.caffemodel), ...args], { cwd: work, stdio: 'pipe' });
      const profile = c.args.includes('--profile') ? c.args[c.args.indexOf('--profile') + 1]! : 'fast-math';
      const theirs = new Uint8Array(readFileSync(join(work, `${profile}.nvdla`)));
      const deploy = readDeploy(readFileSync(join(FIXTURES, c.prototxt), 'utf8'), c.prototxt);
      const weights = readWeights(new Uint8Array(readFileSync(join(FIXTURES, c.caffemodel))), c.caffemodel);
      // with nvdla_compiler's post-extended image weight layout: its bytes
      const r = compileNvdla(deploy, weights, { ...optionsOf(c.args), postExtWeights: 'nvdla_compiler' });
      expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      const ours = r.bytes!;
      if (ours.length !== theirs.length || ours.some((v, i) => v !== theirs[i])) {
        expect(loadableDifferences(readLoadable(ours), readLoadable(theirs))).toEqual([]);
        expect('semantically equivalent but not byte-identical').toBe('byte-identical');
      }
      // by default (the layout the CSC reads): the same, or, where the layouts differ (a warning says so), only
      // the post-extended convolution's weight blob differs
      const d = compileNvdla(deploy, weights, optionsOf(c.args));
      const layout = d.diagnostics.filter((x) => /post-extended by \d are laid out as the convolution buffer reads them/.test(x.message));
      const diff = loadableDifferences(readLoadable(d.bytes!), readLoadable(theirs));
      if (layout.length) expect(diff).toEqual([expect.stringMatching(/^blobs\["tb-0"\]\.data\[\d+\.\.\d+\] differ/)]);
      else expect(diff).toEqual([]);
    });
  });
});
