/**
 * Calibration from an open Caffe model (the browser's Calibrate view): the Caffe document's `run`
 * service runs each input, and every layer's float output (keyed by layer name, the network input
 * by its name: the keys of nvdla_compiler's `--calibtable`, notes 8.1) goes into the one-pass
 * histograms of calibrate.ts. The collector is kept so another method re-reads the same
 * histograms without running the inputs again. Pooling layers take their input's scale and the
 * inputs of a Concat the Concat's (`int8ScaleTies`: neither the PDP nor a concatenation rescales).
 */
import { FormatError } from '../errors';
import type { RunInputValue, RunService, SourceFile } from '../format';
import { CalibrationCollector, deployLayers, int8ScaleTies, type CalibrationMethod, type CalibrationResult } from './calibrate';
import type { CalibrationProgress } from './run-types';
import type { CaffeKernels } from '../caffe/forward/heavy';

export interface CaffeCalibration {
  /** the histograms of every input run so far */
  collector: CalibrationCollector;
  /** pooling layer or Concat input -> the layer whose scale it takes */
  ties: Record<string, string>;
  /** the inputs' names, in order */
  inputs: string[];
  result(method: CalibrationMethod): CalibrationResult;
}

export interface CaffeCalibrationHooks {
  onProgress?(p: CalibrationProgress): void | Promise<void>;
  signal?: { readonly aborted: boolean };
  /** the heavy layers' kernels (default: the plain TypeScript reference) */
  kernels?: CaffeKernels;
}

/** The deploy text of a Caffe file set (the `.prototxt`), for the scale ties; none when there is no deploy. */
async function tiesOf(files: SourceFile[]): Promise<Record<string, string>> {
  const deployFile = files.find((f) => !/\.caffemodel$/i.test(f.name));
  if (!deployFile) return {};
  const { readDeploy } = await import('../nvdla/network/caffe-files');
  return int8ScaleTies(deployLayers(readDeploy(new TextDecoder().decode(deployFile.bytes), deployFile.name)));
}

/**
 * Runs every input through the Caffe model and collects each layer's |values|. `runOf` gives the
 * run service an input goes to (the worker sends an image to a copy of the model at batch 1, so a
 * deploy written for batch 64 does not compute the image 64 times; an array to the model as open).
 */
export async function calibrateCaffe(runOf: RunService | ((value: RunInputValue) => RunService), files: SourceFile[], inputs: { name: string; value: RunInputValue }[], hooks: CaffeCalibrationHooks = {}): Promise<CaffeCalibration> {
  const file = files[0]?.name ?? 'Caffe model';
  if (!inputs.length) throw new FormatError({ kind: 'empty', file, message: 'calibration needs at least one input (images or .npy arrays)' });
  const serviceFor = typeof runOf === 'function' ? runOf : () => runOf;
  const plan = serviceFor(inputs[0]!.value).plan();
  if (plan.problems.length) throw new FormatError({ kind: 'unsupported', file, message: `the Caffe model cannot run: ${plan.problems[0]}` });
  const first = plan.inputs[0];
  if (!first) throw new FormatError({ kind: 'semantic', file, message: 'the Caffe model has no input' });
  const collector = new CalibrationCollector();
  const ties = await tiesOf(files);
  let done = 0;
  for (const input of inputs) {
    if (hooks.signal?.aborted) throw new FormatError({ kind: 'cancelled', file, message: `the calibration was cancelled after ${done} of ${inputs.length} inputs` });
    const run = serviceFor(input.value);
    const shape = run.plan().inputs[0]?.shape ?? first.shape;
    const outcome = await run.run({ inputs: { [first.name]: input.value } }, { ...(hooks.signal ? { signal: hooks.signal } : {}), ...(hooks.kernels ? { kernels: hooks.kernels } : {}) });
    // an image fills every item of the batch with itself: item 0 says it all; an array's items may differ
    const items = input.value.kind === 'array' ? (shape[0] ?? 1) : 1;
    collector.add(first.name, blobValues(run, first.name, shape, items));
    for (const l of outcome.layers) {
      const top = l.tops[0];
      if (!top || l.type === 'Input') continue;
      collector.add(l.layer, blobValues(run, top.key, top.shape, items));
    }
    collector.next();
    done++;
    await hooks.onProgress?.({ done, total: inputs.length, input: input.name });
  }
  return {
    collector,
    ties,
    inputs: inputs.map((i) => i.name),
    result: (method) => collector.result(method, file, ties),
  };
}

/**
 * The first `items` items of a blob of the last run, through `blobSlice` (one plane at a time).
 * An image repeated over the net's batch needs item 0 only: each slice also summarises the whole
 * blob, so asking for every item of a batch-64 net would cost 64 times the pass.
 */
export function blobValues(run: RunService, key: string, shape: readonly number[], items = shape[0] ?? 1): Float32Array {
  const planar = shape.length >= 3 && shape.slice(2).reduce((a, b) => a * b, 1) > 1;
  const n = Math.min(items, shape[0] ?? 1);
  const out = new Float32Array((shape.slice(1).reduce((a, b) => a * b, 1)) * n);
  let at = 0;
  for (let item = 0; item < n; item++) {
    const channels = planar ? shape[1]! : 1;
    for (let c = 0; c < channels; c++) {
      const s = run.blobSlice(key, item, c);
      out.set(s.values, at);
      at += s.values.length;
    }
  }
  return out;
}
