/**
 * DLA model figures (core/dla): a loadable run through the `runLoadable` service as a warm worker
 * would (the service kept between runs: memory images and decoded weights reused), median of
 * several runs after warm-up runs, in this Node process.
 *
 * - LeNet: the nv_small fp16 golden (nvdla_compiler's), and an int8 loadable our compiler writes
 *   with a calibration table the studio makes (both on the plain TypeScript engines);
 * - AlexNet fp16 (nv_full, batch 1, seeded random weights: making and compiling them is not
 *   timed), on the TypeScript engines and with the WebAssembly SIMD kernels for the fp16
 *   convolutions; the first (cold) run is printed apart: it decodes and packs 61 M weights.
 *
 * - ResNet-50 fp16 (the second figure, nv_full, batch 1, fast-math, seeded random weights
 *   written as a .caffemodel: making and compiling it is not timed): the loadable NPU Studio's
 *   compiler writes, run with the WebAssembly kernels. When NVDLA_COMPILER points at a built
 *   nvdla_compiler (an oracle outside the repository, as in bench/nvdla-compile.ts), it compiles
 *   the same .caffemodel and its loadable runs beside ours on the same input; the two outputs are
 *   compared (cosine, largest difference) and so are the loadables (`semanticDigest`).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createNodeKernels } from '../src/cli/kernels';
import { CalibrationCollector, deployLayers, int8ScaleTies } from '../src/core/dla/calibrate';
import { loadableRunService } from '../src/core/dla/run-service';
import type { LoadableRunHooks, LoadableRunRequest } from '../src/core/dla/run-types';
import { decodeTasks } from '../src/core/loadable/tasks';
import type { Kernels } from '../src/core/kernels/kernels';
import { read } from '../src/core/loadable/read';
import { parseCalibrationTable } from '../src/core/nvdla/calibrate/table';
import { compileNvdla } from '../src/core/nvdla/compile';
import { readWeights } from '../src/core/nvdla/network/caffe-files';
import { seededRandom } from '../src/core/random';
import { floatForward } from '../test/support/dla/float-reference';
import { fixtureDeploy, fixtureWeights, synthetic, syntheticCaffemodel } from '../test/support/nvdla/fixtures';
import { goldenBytes } from '../test/support/nvdla/golden';
import { netCase, semanticDigest } from '../test/support/nvdla/nets';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Row {
  name: string;
  ops: number;
  cold: number;
  warm: number;
  /** the fastest warm run: what the run costs when this process is not waiting for a core */
  fastest: number;
  /** median CPU time of the process in a warm run (user + system, every thread: the kernel threads too, and GC) */
  cpu: number;
  runs: number;
  engine: string;
  /** the first output tensor of the last run (item 0 and the rest), and how many values its op slots saturated */
  output: Float32Array;
  outputName: string;
  saturated: number;
}

async function measure(name: string, bytes: Uint8Array, request: LoadableRunRequest, warmup: number, runs: number, kernels?: Kernels): Promise<Row> {
  const service = loadableRunService(decodeTasks(read(bytes, `${name}.nvdla`)));
  const hooks: LoadableRunHooks = { now: () => performance.now(), ...(kernels ? { kernels } : {}) };
  let t = performance.now();
  const first = await service.run(request, hooks);
  const cold = performance.now() - t;
  for (let i = 1; i < warmup; i++) await service.run(request, hooks);
  const times: number[] = [];
  const cpu: number[] = [];
  let last = first;
  for (let i = 0; i < runs; i++) {
    const c = process.cpuUsage();
    t = performance.now();
    last = await service.run(request, hooks);
    times.push(performance.now() - t);
    const d = process.cpuUsage(c);
    cpu.push((d.user + d.system) / 1000);
  }
  return { name, ops: first.slots.length, cold, warm: median(times), fastest: Math.min(...times), cpu: median(cpu), runs, engine: kernels ? 'TS + WebAssembly SIMD fp16 conv' : 'TypeScript', output: last.outputs[0]!.values, outputName: last.outputs[0]!.name, saturated: last.slots.reduce((n, x) => n + (x.output?.saturated ?? 0), 0) };
}

const rows: Row[] = [];
const digit = (seed: number) => {
  const rnd = seededRandom(seed);
  return Float32Array.from({ length: 784 }, () => (rnd() < 0.2 ? rnd() : 0));
};

// LeNet fp16: nvdla_compiler's nv_small golden
rows.push(await measure('LeNet fp16 nv_small (nvdla_compiler golden)', goldenBytes('lenet-b1-nv_small-fp16-fast-math'), { input: { kind: 'values', file: 'digit', values: digit(1) }, calibration: null }, 30, 50));

// LeNet int8: our compiler with a table calibrated from the float pass
{
  const deploy = fixtureDeploy('nvdla/golden/lenet_n1.prototxt');
  const weights = fixtureWeights('nvdla/lenet/lenet_iter_10000.caffemodel');
  const c = new CalibrationCollector();
  for (let s = 0; s < 10; s++) {
    const x = digit(100 + s);
    c.add('data', x);
    for (const [layer, blob] of floatForward(deploy, weights, x)) c.add(layer, blob.values);
    c.next();
  }
  const table = c.result({ kind: 'max' }, 'calib', int8ScaleTies(deployLayers(deploy))).table;
  const r = compileNvdla(deploy, weights, { configtarget: 'nv_full', cprecision: 'int8', calibtable: parseCalibrationTable(JSON.stringify(table), 'calib.json') });
  rows.push(await measure('LeNet int8 nv_full (NPU Studio compiler, studio table)', r.bytes!, { input: { kind: 'values', file: 'digit', values: digit(2) }, calibration: table }, 30, 50));
}

// AlexNet fp16, seeded random weights
{
  const deploy = fixtureDeploy('caffe/alexnet/deploy.prototxt');
  const r = compileNvdla(deploy, synthetic(deploy), { cprecision: 'fp16', batch: 1 });
  if (!r.bytes) throw new Error(`AlexNet: ${r.diagnostics.find((d) => d.severity === 'error')?.message}`);
  const rnd = seededRandom(3);
  const request: LoadableRunRequest = { input: { kind: 'values', file: 'random', values: Float32Array.from({ length: 3 * 227 * 227 }, () => -128 + 256 * rnd()) }, calibration: null };
  rows.push(await measure('AlexNet fp16 nv_full, batch 1', r.bytes, request, 2, 3));
  const kernels = createNodeKernels();
  try {
    rows.push(await measure('AlexNet fp16 nv_full, batch 1', r.bytes, request, 2, 3, kernels));
  } finally {
    kernels.dispose();
  }
}

// ResNet-50 fp16, seeded random weights: our compiler's loadable; nvdla_compiler's beside it when it is there
const resnetNotes: string[] = [];
{
  const c = netCase('resnet-50-b1-nv_full-fp16-fast-math');
  const caffemodel = syntheticCaffemodel(c.deploy);
  const ours = compileNvdla(c.deploy, readWeights(caffemodel, 'resnet50.caffemodel'), c.options);
  if (!ours.bytes) throw new Error(`ResNet-50: ${ours.diagnostics.find((d) => d.severity === 'error')?.message}`);
  const rnd = seededRandom(4);
  const request: LoadableRunRequest = { input: { kind: 'values', file: 'random', values: Float32Array.from({ length: 3 * 224 * 224 }, () => -128 + 256 * rnd()) }, calibration: null };
  const mb = (b: Uint8Array) => (b.length / 2 ** 20).toFixed(0);
  const kernels = createNodeKernels();
  try {
    const ourRow = await measure(`ResNet-50 fp16 nv_full, batch 1 (NPU Studio compiler, ${mb(ours.bytes)} MB)`, ours.bytes, request, 1, 3, kernels);
    rows.push(ourRow);
    resnetNotes.push(`ResNet-50 (our loadable): ${ourRow.saturated} output values of its op slots saturated at the fp16 range (random weights on an input in -128..128).`);
    const nvdlaCompiler = process.env.NVDLA_COMPILER;
    if (!nvdlaCompiler) resnetNotes.push("ResNet-50 from nvdla_compiler: not run (set NVDLA_COMPILER to a built nvdla_compiler to run its loadable beside ours and compare them).");
    else {
      const work = mkdtempSync(join(tmpdir(), 'dla-resnet50-'));
      try {
        writeFileSync(join(work, 'resnet50.prototxt'), c.prototxtText);
        writeFileSync(join(work, 'resnet50.caffemodel'), caffemodel);
        execFileSync(nvdlaCompiler, ['--prototxt', 'resnet50.prototxt', '--caffemodel', 'resnet50.caffemodel', ...c.args], { cwd: work, stdio: 'pipe' });
        const theirs = new Uint8Array(readFileSync(join(work, 'fast-math.nvdla')));
        const refRow = await measure(`ResNet-50 fp16 nv_full, batch 1 (nvdla_compiler, ${mb(theirs)} MB)`, theirs, request, 1, 3, kernels);
        rows.push(refRow);
        const a = ourRow.output;
        const b = refRow.output;
        let dot = 0;
        let na = 0;
        let nb = 0;
        let worst = 0;
        for (let k = 0; k < a.length; k++) {
          dot += a[k]! * b[k]!;
          na += a[k]! * a[k]!;
          nb += b[k]! * b[k]!;
          worst = Math.max(worst, Math.abs(a[k]! - b[k]!));
        }
        const cosine = na === 0 || nb === 0 ? (na === nb ? 1 : 0) : dot / Math.sqrt(na * nb);
        const same = semanticDigest(ours.bytes) === semanticDigest(theirs);
        resnetNotes.push(
          `ResNet-50, our loadable against nvdla_compiler's on the same input: output '${ourRow.outputName}' cosine ${cosine.toFixed(6)}, largest difference ${worst.toExponential(2)} over ${a.length} values; ` +
            `the two loadables are ${same ? 'the same in content (semanticDigest equal)' : 'different in content (semanticDigest differs)'}; saturated values ${ourRow.saturated} and ${refRow.saturated}.`,
        );
      } finally {
        rmSync(work, { recursive: true, force: true });
      }
    }
  } finally {
    kernels.dispose();
  }
}

console.log('## DLA model: a loadable run (core/dla, runLoadable service kept warm)\n');
const load = loadavg().map((x) => x.toFixed(1)).join(' ');
console.log(`Node ${process.version}, ${cpus().length} cores, load average ${load} at the end.\n`);
console.log('| loadable | ops | engines | first run ms | warm median ms (runs) | fastest warm ms | process CPU ms, warm median |');
console.log('|---|---:|---|---:|---:|---:|---:|');
for (const r of rows) console.log(`| ${r.name} | ${r.ops} | ${r.engine} | ${r.cold.toFixed(0)} | ${r.warm.toFixed(1)} (${r.runs}) | ${r.fastest.toFixed(1)} | ${r.cpu.toFixed(1)} |`);
for (const note of resnetNotes) console.log(`\n${note}`);
