/**
 * NVDLA compiler figures: `compileNvdla` (Caffe network -> every pass -> emit -> FlatBuffers
 * bytes) in a warm process (one compile first, then the median of several), on LeNet,
 * cifar10_quick and the real-size nets with seeded random weights (N=1 deploys, as the reference
 * results in test/fixtures/nvdla/oracle were made). Reading the caffemodel (protobuf decode) is
 * timed apart, as "parse". When NVDLA_COMPILER points at a built nvdla_compiler, the same compiles
 * by the reference, a whole process each (parse included), are timed beside ours.
 *
 *   npm run bench -- nvdla-compile
 *   NVDLA_COMPILER=/work/ref/build/nvdla_compiler npm run bench -- nvdla-compile
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { compileNvdla } from '../src/core/nvdla/compile';
import { readWeights } from '../src/core/nvdla/network/caffe-files';
import type { CaffeDeploy, CaffeWeights } from '../src/core/nvdla/network/caffe-input';
import { encodeSyntheticCaffemodel } from '../src/core/nvdla/network/synthetic-weights';
import type { NvdlaCompileOptions } from '../src/core/nvdla/options';
import { FIXTURES, fixtureDeploy } from '../test/support/nvdla/fixtures';
import { netCase } from '../test/support/nvdla/nets';
import { readFileSync } from 'node:fs';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Case {
  name: string;
  deploy: CaffeDeploy;
  prototxtText: string;
  caffemodel: Uint8Array;
  options: Partial<NvdlaCompileOptions>;
  args: string[];
  runs: number;
}

function fixtureCase(name: string, prototxt: string, caffemodel: string, options: Partial<NvdlaCompileOptions>, args: string[], runs: number): Case {
  return { name, deploy: fixtureDeploy(prototxt), prototxtText: readFileSync(join(FIXTURES, prototxt), 'utf8'), caffemodel: new Uint8Array(readFileSync(join(FIXTURES, caffemodel))), options, args, runs };
}

function netBench(name: string, tag: string, runs: number): Case {
  const c = netCase(tag);
  return { name, deploy: c.deploy, prototxtText: c.prototxtText, caffemodel: encodeSyntheticCaffemodel(c.deploy.net, 1), options: c.options, args: c.args, runs };
}

const LENET = ['nvdla/golden/lenet_n1.prototxt', 'nvdla/lenet/lenet_iter_10000.caffemodel'] as const;
const CASES: (() => Case)[] = [
  () => fixtureCase('LeNet int8 fast-math', ...LENET, {}, [], 15),
  () => fixtureCase('LeNet fp16 basic', ...LENET, { cprecision: 'fp16', profile: 'basic' }, ['--cprecision', 'fp16', '--profile', 'basic'], 15),
  () => fixtureCase('cifar10_quick int8 fast-math', 'caffe/cifar10-quick/cifar10_quick.prototxt', 'caffe/cifar10-quick/cifar10_quick_iter_5000.caffemodel', {}, [], 9),
  () => netBench('GoogLeNet fp16 fast-math', 'googlenet-b1-nv_full-fp16-fast-math', 5),
  () => netBench('GoogLeNet fp16 basic', 'googlenet-b1-nv_full-fp16-basic', 5),
  () => netBench('ResNet-50 fp16 fast-math', 'resnet-50-b1-nv_full-fp16-fast-math', 3),
  () => netBench('ResNet-50 int8 fast-math', 'resnet-50-b1-nv_full-int8-fast-math', 3),
  () => netBench('MobileNet v1 fp16 fast-math', 'mobilenet-v1-b1-nv_full-fp16-fast-math', 3),
  () => netBench('SqueezeNet v1.1 fp16 fast-math', 'squeezenet-v1.1-b1-nv_full-fp16-fast-math', 5),
  () => netBench('VGG16 fp16 fast-math', 'vgg16-b1-nv_full-fp16-fast-math', 3),
];

const ref = process.env.NVDLA_COMPILER;
const work = mkdtempSync(join(tmpdir(), 'nvdla-bench-'));
console.log('## NVDLA compile (core/nvdla)\n');
console.log(`| network | parse caffemodel, ms | compile, warm, median ms (runs) | loadable bytes |${ref ? ' nvdla_compiler process, median ms |' : ''}`);
console.log(`|---|---:|---:|---:|${ref ? '---:|' : ''}`);
try {
  for (const make of CASES) {
    const c = make();
    let t = performance.now();
    const weights: CaffeWeights = readWeights(c.caffemodel, 'bench.caffemodel');
    const parse = performance.now() - t;
    compileNvdla(c.deploy, weights, c.options); // warm-up
    const times: number[] = [];
    let bytes = 0;
    for (let i = 0; i < c.runs; i++) {
      t = performance.now();
      const r = compileNvdla(c.deploy, weights, c.options);
      times.push(performance.now() - t);
      if (!r.bytes) throw new Error(`${c.name}: ${r.diagnostics.find((d) => d.severity === 'error')?.message}`);
      bytes = r.bytes.length;
    }
    let refCell = '';
    if (ref) {
      const proto = join(work, 'net.prototxt');
      const model = join(work, 'net.caffemodel');
      writeFileSync(proto, c.prototxtText);
      writeFileSync(model, c.caffemodel);
      const rt: number[] = [];
      let failed = '';
      for (let i = 0; i < Math.min(c.runs, 3); i++) {
        t = performance.now();
        const r = spawnSync(ref, ['--prototxt', proto, '--caffemodel', model, ...c.args], { cwd: work, stdio: 'pipe', timeout: 600_000 });
        rt.push(performance.now() - t);
        if (r.status !== 0) failed = ' (fails)';
      }
      refCell = ` ${median(rt).toFixed(0)}${failed} |`;
    }
    console.log(`| ${c.name} | ${parse.toFixed(0)} | ${median(times).toFixed(0)} (${c.runs}) | ${bytes} |${refCell}`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
