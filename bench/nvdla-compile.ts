/**
 * NVDLA compiler figures: `compileNvdla` (Caffe network -> every pass -> emit -> FlatBuffers
 * bytes) on LeNet, cifar10_quick and AlexNet (seeded random weights, 61 M parameters; making them
 * is not timed), median of several runs in this Node process. When NVDLA_COMPILER points at a
 * built nvdla_compiler, the same LeNet/cifar10 compiles by the reference (a whole process each)
 * are timed beside ours.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileNvdla } from '../src/core/nvdla/compile';
import type { NvdlaCompileOptions } from '../src/core/nvdla/options';
import { FIXTURES, fixtureDeploy, fixtureWeights, synthetic } from '../test/support/nvdla/fixtures';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Case {
  name: string;
  prototxt: string;
  caffemodel: string | null;
  options: Partial<NvdlaCompileOptions>;
  runs: number;
}

const CASES: Case[] = [
  { name: 'LeNet int8 fast-math', prototxt: 'nvdla/golden/lenet_n1.prototxt', caffemodel: 'nvdla/lenet/lenet_iter_10000.caffemodel', options: {}, runs: 9 },
  { name: 'LeNet fp16 basic', prototxt: 'nvdla/golden/lenet_n1.prototxt', caffemodel: 'nvdla/lenet/lenet_iter_10000.caffemodel', options: { cprecision: 'fp16', profile: 'basic' }, runs: 9 },
  { name: 'LeNet int8 fast-math, batch 64', prototxt: 'nvdla/lenet/lenet.prototxt', caffemodel: 'nvdla/lenet/lenet_iter_10000.caffemodel', options: {}, runs: 5 },
  { name: 'cifar10_quick int8 fast-math', prototxt: 'caffe/cifar10-quick/cifar10_quick.prototxt', caffemodel: 'caffe/cifar10-quick/cifar10_quick_iter_5000.caffemodel', options: {}, runs: 9 },
  { name: 'AlexNet fp16 fast-math (batch 1)', prototxt: 'caffe/alexnet/deploy.prototxt', caffemodel: null, options: { cprecision: 'fp16', batch: 1 }, runs: 3 },
];

const ref = process.env.NVDLA_COMPILER;
const work = ref ? mkdtempSync(join(tmpdir(), 'nvdla-bench-')) : '';
console.log('## NVDLA compile (core/nvdla)\n');
console.log(`| network | ours: median ms (runs) | loadable bytes |${ref ? ' nvdla_compiler process, median ms |' : ''}`);
console.log(`|---|---:|---:|${ref ? '---:|' : ''}`);
for (const c of CASES) {
  const deploy = fixtureDeploy(c.prototxt);
  const weights = c.caffemodel ? fixtureWeights(c.caffemodel) : synthetic(deploy);
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < c.runs; i++) {
    const t = performance.now();
    const r = compileNvdla(deploy, weights, c.options);
    times.push(performance.now() - t);
    if (!r.bytes) throw new Error(`${c.name}: ${r.diagnostics.find((d) => d.severity === 'error')?.message}`);
    bytes = r.bytes.length;
  }
  let refCell = '';
  if (ref && c.caffemodel) {
    const args = ['--prototxt', join(FIXTURES, c.prototxt), '--caffemodel', join(FIXTURES, c.caffemodel)];
    for (const [k, v] of Object.entries(c.options)) args.push(`--${k}`, String(v));
    const rt: number[] = [];
    for (let i = 0; i < c.runs; i++) {
      const t = performance.now();
      execFileSync(ref, args, { cwd: work, stdio: 'pipe' });
      rt.push(performance.now() - t);
    }
    refCell = ` ${median(rt).toFixed(0)} |`;
  } else if (ref) refCell = ' - |';
  console.log(`| ${c.name} | ${median(times).toFixed(0)} (${c.runs}) | ${bytes} |${refCell}`);
}
if (work) rmSync(work, { recursive: true, force: true });
