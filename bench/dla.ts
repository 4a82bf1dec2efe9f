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
 * ResNet-50 (the second figure) cannot be measured yet: NPU Studio's compiler refuses it
 * (BatchNorm pre-processing and the partial-height data split are not implemented), and no
 * ResNet-50 loadable is kept in the repository (nvdla_compiler's is 100 MB; only its summary).
 */
import { performance } from 'node:perf_hooks';
import { createNodeKernels } from '../src/cli/kernels';
import { CalibrationCollector, deployLayers, poolingScaleTies } from '../src/core/dla/calibrate';
import { loadableRunService } from '../src/core/dla/run-service';
import type { LoadableRunHooks, LoadableRunRequest } from '../src/core/dla/run-types';
import { decodeTasks } from '../src/core/loadable/tasks';
import type { Kernels } from '../src/core/kernels/kernels';
import { read } from '../src/core/loadable/read';
import { parseCalibrationTable } from '../src/core/nvdla/calibrate/table';
import { compileNvdla } from '../src/core/nvdla/compile';
import { seededRandom } from '../src/core/random';
import { floatForward } from '../test/support/dla/float-reference';
import { fixtureDeploy, fixtureWeights, synthetic } from '../test/support/nvdla/fixtures';
import { goldenBytes } from '../test/support/nvdla/golden';

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

interface Row {
  name: string;
  ops: number;
  cold: number;
  warm: number;
  runs: number;
  engine: string;
}

async function measure(name: string, bytes: Uint8Array, request: LoadableRunRequest, warmup: number, runs: number, kernels?: Kernels): Promise<Row> {
  const service = loadableRunService(decodeTasks(read(bytes, `${name}.nvdla`)));
  const hooks: LoadableRunHooks = { now: () => performance.now(), ...(kernels ? { kernels } : {}) };
  let t = performance.now();
  const first = await service.run(request, hooks);
  const cold = performance.now() - t;
  for (let i = 1; i < warmup; i++) await service.run(request, hooks);
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    t = performance.now();
    await service.run(request, hooks);
    times.push(performance.now() - t);
  }
  return { name, ops: first.slots.length, cold, warm: median(times), runs, engine: kernels ? 'TS + WebAssembly SIMD fp16 conv' : 'TypeScript' };
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
  const table = c.result({ kind: 'max' }, 'calib', poolingScaleTies(deployLayers(deploy))).table;
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

console.log('## DLA model: a loadable run (core/dla, runLoadable service kept warm)\n');
console.log('| loadable | ops | engines | first run ms | warm median ms (runs) |');
console.log('|---|---:|---|---:|---:|');
for (const r of rows) console.log(`| ${r.name} | ${r.ops} | ${r.engine} | ${r.cold.toFixed(0)} | ${r.warm.toFixed(1)} (${r.runs}) |`);
console.log('\nResNet-50: not measured (NPU Studio\'s compiler does not compile it yet: BatchNorm pre-processing, partial-height data split; no ResNet-50 loadable is kept in the repository).');
