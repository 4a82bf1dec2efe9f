/**
 * An INT8 compile checked against Caffe: the net's seeded random weights (the oracle tests'
 * weights, `syntheticCaffemodel`, seed 1) run through the Caffe float pass (core/caffe) on a
 * few seeded inputs to make a calibration table (max; `int8ScaleTies`: pooling layers on their
 * input's scale, Concat inputs on the Concat's), the net is compiled INT8 with that table, and the loadable runs on the DLA
 * model on another input; every op slot's output is compared with its Caffe layer
 * (`compareSlots`), per layer in dB.
 */
import { openCaffeModel } from '../../../src/core/caffe/model';
import { runForward } from '../../../src/core/caffe/forward/run';
import { bindInput, bindableTensors } from '../../../src/core/dla/bindings';
import { collectRun, layerOutputs, netLayers } from '../../../src/core/dla/caffe-reference';
import { CalibrationCollector, int8ScaleTies } from '../../../src/core/dla/calibrate';
import { compareSlots, type LayerComparison } from '../../../src/core/dla/compare';
import { runLoadable } from '../../../src/core/dla/run';
import { slotLayersOf } from '../../../src/core/dla/slot-layers';
import { read } from '../../../src/core/loadable/read';
import { parseCalibrationTable } from '../../../src/core/nvdla/calibrate/table';
import { compileNvdla, type NvdlaCompileResult } from '../../../src/core/nvdla/compile';
import { syntheticCaffemodel } from './fixtures';
import type { CaffeDeploy, CaffeWeights } from '../../../src/core/nvdla/network/caffe-input';
import type { NvdlaCompileOptions } from '../../../src/core/nvdla/options';
import { seededRandom } from '../../../src/core/random';

export interface Int8Agreement {
  compile: NvdlaCompileResult;
  rows: LayerComparison[];
  /** layer -> SNR in dB of the DLA model's output against Caffe's */
  snr: Record<string, number>;
  /** the calibration scale of each tensor (by layer name) */
  scales: Record<string, number>;
}

function input(n: number, seed: number, lo: number, hi: number): Float32Array {
  const rnd = seededRandom(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * rnd());
}

/**
 * `prototxtText` is the batch-1 deploy `deploy` was read from; inputs are uniform in [lo, hi)
 * (calibrated on seeds 100.., run on seed 7).
 */
export async function int8Agreement(
  prototxtText: string,
  deploy: CaffeDeploy,
  weights: CaffeWeights,
  options: Partial<NvdlaCompileOptions>,
  { calibrationInputs = 3, lo = -128, hi = 128 }: { calibrationInputs?: number; lo?: number; hi?: number } = {},
): Promise<Int8Agreement> {
  const model = openCaffeModel(
    [
      { name: 'deploy.prototxt', bytes: new TextEncoder().encode(prototxtText) },
      { name: 'weights.caffemodel', bytes: syntheticCaffemodel(deploy) },
    ],
    { batch: 1 },
  );
  const net = model.net;
  const inputName = net.blobs[net.inputs[0]!]!.name;
  const inShape = planShape(prototxtText);
  if (!inShape) throw new Error('the deploy has no 4-D input shape');
  const count = inShape[1]! * inShape[2]! * inShape[3]!;
  const collector = new CalibrationCollector();
  for (let s = 0; s < calibrationInputs; s++) collectRun(collector, net, await runForward(net, { inputs: { [inputName]: input(count, 100 + s, lo, hi) } }));
  const calib = collector.result({ kind: 'max' }, 'calib.json', int8ScaleTies(netLayers(net)));
  const compile = compileNvdla(deploy, weights, { ...options, calibtable: parseCalibrationTable(JSON.stringify(calib.table), 'calib.json') });
  const errors = compile.diagnostics.filter((d) => d.severity === 'error');
  if (!compile.bytes) throw new Error(`the INT8 compile failed: ${errors.map((d) => d.message).join('; ')}`);
  const l = read(compile.bytes, 'int8.nvdla');
  const spec = bindableTensors(l).find((t) => t.kind === 'input')!;
  const scales = Object.fromEntries(Object.entries(calib.table).map(([k, v]) => [k, v.scale]));
  const x = input(count, 7, lo, hi);
  const run = await runLoadable(l, { inputs: [bindInput(l, spec, x, inShape[1]!, scales[inputName] ?? null)] });
  const ref = layerOutputs(net, await runForward(net, { inputs: { [inputName]: x } }));
  const rows = compareSlots({ run, mapping: slotLayersOf(compile), reference: (n) => ref[n], scale: (n) => scales[n] ?? null }).rows;
  return { compile, rows, snr: Object.fromEntries(rows.map((r) => [r.layer, r.metrics.snrDb])), scales };
}

/** the first input shape of a deploy text (input_param shape dims, or input_dim lines) */
function planShape(text: string): number[] | null {
  const shape = /(?:input_param\s*:?\s*\{\s*shape|input_shape)\s*:?\s*\{([^}]*)\}/.exec(text);
  const dims = shape ? [...shape[1]!.matchAll(/dim\s*:\s*(\d+)/g)].map((m) => Number(m[1])) : [...text.matchAll(/input_dim\s*:\s*(\d+)/g)].map((m) => Number(m[1]));
  return dims.length === 4 ? dims : null;
}
