/**
 * NVDLA compiler figures: `compileNvdla` (Caffe network -> every pass -> emit -> FlatBuffers
 * bytes) in a warm process (five compiles first, up to 40 or 1.5 s of them for the small nets so
 * that V8 has optimised the compiler's code, then the median of several), on LeNet,
 * cifar10_quick and the real-size nets with seeded random weights (N=1 deploys, as the reference
 * results in test/fixtures/nvdla/oracle were made). Reading the caffemodel (core/caffe's wire
 * decoder; the weights stay views into the file) is timed apart, as "parse". When NVDLA_COMPILER
 * points at a built nvdla_compiler, the same compiles by the reference, a whole process each
 * (parse included), are timed beside ours (under /usr/bin/time when it is there, for its CPU time
 * and peak RSS).
 *
 * Wall time on a shared machine depends on what else runs, so the CPU time of the same compiles
 * (process.cpuUsage: this thread plus V8's GC threads) is printed beside it, with the load average.
 * Peak memory: ResNet-50 compiled twice in a fresh Node process of its own (the weights file
 * made, read, then compiled), its peak RSS (`process.resourceUsage().maxRSS`).
 *
 *   npm run bench -- nvdla-compile
 *   NVDLA_COMPILER=/work/ref/build/nvdla_compiler npm run bench -- nvdla-compile
 *   NVDLA_BENCH_ALL=1 ...      also MobileNet, SqueezeNet and VGG16
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { compileNvdla } from '../src/core/nvdla/compile';
import { readDeploy, readWeights } from '../src/core/nvdla/network/caffe-files';
import type { CaffeDeploy, CaffeWeights } from '../src/core/nvdla/network/caffe-input';
import type { NvdlaCompileOptions } from '../src/core/nvdla/options';
import { FIXTURES, fixtureDeploy, syntheticCaffemodel } from '../test/support/nvdla/fixtures';
import { batch1Text, netCase, NET_PROTOTXTS } from '../test/support/nvdla/nets';
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
  return { name, deploy: c.deploy, prototxtText: c.prototxtText, caffemodel: syntheticCaffemodel(c.deploy), options: c.options, args: c.args, runs };
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
];

/** with NVDLA_BENCH_ALL=1: the other real-size nets too (VGG16 alone makes a 528 MB caffemodel) */
const MORE_CASES: (() => Case)[] = [
  () => netBench('MobileNet v1 fp16 fast-math', 'mobilenet-v1-b1-nv_full-fp16-fast-math', 3),
  () => netBench('SqueezeNet v1.1 fp16 fast-math', 'squeezenet-v1.1-b1-nv_full-fp16-fast-math', 5),
  () => netBench('VGG16 fp16 fast-math', 'vgg16-b1-nv_full-fp16-fast-math', 3),
];
if (process.env.NVDLA_BENCH_ALL) CASES.push(...MORE_CASES);

const MEMORY_NET = 'resnet-50';
const MEMORY_OPTIONS: Partial<NvdlaCompileOptions> = { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math' };
const MiB = 1024 * 1024;

/** `--peak-memory`: the child process of the memory figure; prints one JSON line */
function peakMemoryChild(): void {
  const text = batch1Text(readFileSync(join(FIXTURES, NET_PROTOTXTS[MEMORY_NET]!), 'utf8'));
  const deploy = readDeploy(text, `${MEMORY_NET}.prototxt`);
  const file = syntheticCaffemodel(deploy);
  const weights = readWeights(file, `${MEMORY_NET}.caffemodel`);
  const before = process.memoryUsage().rss;
  let bytes = 0;
  for (let i = 0; i < 2; i++) bytes = compileNvdla(deploy, weights, MEMORY_OPTIONS).bytes?.length ?? 0;
  console.log(JSON.stringify({ caffemodel: file.length, loadable: bytes, rssBeforeCompile: before, maxRss: process.resourceUsage().maxRSS * 1024 }));
}

interface Timed {
  wallMs: number;
  cpuMs: number | null;
  maxRss: number | null;
  ok: boolean;
}

/** one nvdla_compiler process, under /usr/bin/time when it is there (CPU time, peak RSS) */
function runReference(ref: string, args: string[], cwd: string): Timed {
  const timeFile = join(cwd, 'time.txt');
  const useTime = existsSync('/usr/bin/time');
  const t = performance.now();
  const r = useTime
    ? spawnSync('/usr/bin/time', ['-o', timeFile, '-f', '%U %S %M', ref, ...args], { cwd, stdio: 'pipe', timeout: 600_000 })
    : spawnSync(ref, args, { cwd, stdio: 'pipe', timeout: 600_000 });
  const wallMs = performance.now() - t;
  if (!useTime) return { wallMs, cpuMs: null, maxRss: null, ok: r.status === 0 };
  // /usr/bin/time writes "Command exited with non-zero status N" before the figures when it fails
  const last = readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '';
  const [u, sys, kb] = last.split(' ').map(Number);
  return { wallMs, cpuMs: ((u ?? NaN) + (sys ?? NaN)) * 1000, maxRss: (kb ?? NaN) * 1024, ok: r.status === 0 };
}

function main(): void {
  const ref = process.env.NVDLA_COMPILER;
  const work = mkdtempSync(join(tmpdir(), 'nvdla-bench-'));
  const load = () => loadavg().map((x) => x.toFixed(1)).join(' / ');
  console.log('## NVDLA compile (core/nvdla)\n');
  console.log(`Node ${process.version}, ${new Date().toISOString()}, load average at the start ${load()} (1 / 5 / 15 min)\n`);
  console.log(`| network | parse caffemodel, ms | compile, warm, median ms wall (runs) | same, CPU ms | loadable bytes |${ref ? ' nvdla_compiler process, median ms wall | same, CPU ms |' : ''}`);
  console.log(`|---|---:|---:|---:|---:|${ref ? '---:|---:|' : ''}`);
  let refResnetRss: number | null = null;
  try {
    for (const make of CASES) {
      const c = make();
      let t = performance.now();
      const weights: CaffeWeights = readWeights(c.caffemodel, 'bench.caffemodel');
      const parse = performance.now() - t;
      // warm-up, so the timed compiles run optimised code (a warm worker's state): five compiles,
      // and for the small nets up to 40 or 1.5 s of them: V8 tiers the compiler's code up over
      // about 30 LeNet compiles (238, 94, 53 ... ms CPU in a fresh process, then 7-10 ms) and about
      // 5 ResNet-50 int8 ones (2,019, 1,011, 1,120, 741, 809, then 545-724 ms), which a worker that
      // has compiled nets before has already done
      const warmStart = performance.now();
      for (let i = 0; i < 5 || (i < 40 && performance.now() - warmStart < 1500); i++) compileNvdla(c.deploy, weights, c.options);
      const times: number[] = [];
      const cpu: number[] = [];
      let bytes = 0;
      for (let i = 0; i < c.runs; i++) {
        t = performance.now();
        const u = process.cpuUsage();
        const r = compileNvdla(c.deploy, weights, c.options);
        const d = process.cpuUsage(u);
        times.push(performance.now() - t);
        cpu.push((d.user + d.system) / 1000);
        if (!r.bytes) throw new Error(`${c.name}: ${r.diagnostics.find((x) => x.severity === 'error')?.message}`);
        bytes = r.bytes.length;
      }
      let refCells = '';
      if (ref) {
        const proto = join(work, 'net.prototxt');
        const model = join(work, 'net.caffemodel');
        writeFileSync(proto, c.prototxtText);
        writeFileSync(model, c.caffemodel);
        const runs: Timed[] = [];
        for (let i = 0; i < Math.min(c.runs, 3); i++) runs.push(runReference(ref, ['--prototxt', proto, '--caffemodel', model, ...c.args], work));
        const failed = runs.some((r) => !r.ok) ? ' (fails)' : '';
        const cpuRef = runs.every((r) => r.cpuMs !== null) ? median(runs.map((r) => r.cpuMs!)).toFixed(0) : 'n/a';
        refCells = ` ${median(runs.map((r) => r.wallMs)).toFixed(0)}${failed} | ${cpuRef} |`;
        if (c.name === 'ResNet-50 fp16 fast-math') refResnetRss = Math.max(...runs.map((r) => r.maxRss ?? NaN));
      }
      console.log(`| ${c.name} | ${parse.toFixed(0)} | ${median(times).toFixed(0)} (${c.runs}) | ${median(cpu).toFixed(0)} | ${bytes} |${refCells}`);
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  const tsx = join(process.cwd(), 'node_modules', 'tsx', 'dist', 'cli.mjs');
  const child = spawnSync(process.execPath, [tsx, fileURLToPath(import.meta.url), '--peak-memory'], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });
  const line = child.stdout.trim().split('\n').pop() ?? '';
  if (child.status !== 0 || !line.startsWith('{')) throw new Error(`the peak-memory process failed (exit ${child.status})`);
  const m = JSON.parse(line) as { caffemodel: number; loadable: number; rssBeforeCompile: number; maxRss: number };
  console.log(
    `\nResNet-50 fp16 fast-math, peak memory of a fresh Node process that makes the ${(m.caffemodel / MiB).toFixed(0)} MiB caffemodel, reads it and compiles twice: ` +
      `${(m.maxRss / MiB).toFixed(0)} MiB peak RSS (${(m.rssBeforeCompile / MiB).toFixed(0)} MiB before the first compile; target < 1024 MiB)` +
      (refResnetRss !== null && Number.isFinite(refResnetRss) ? `; nvdla_compiler ${(refResnetRss / MiB).toFixed(0)} MiB.` : '.'),
  );
  console.log(`Load average at the end: ${load()}.`);
}

if (process.argv.includes('--peak-memory')) peakMemoryChild();
else main();
