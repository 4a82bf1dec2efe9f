/**
 * The `run` capability of a Caffe document (core/format.ts `RunService`): what a run needs
 * (`plan`), the inputs made from a request (an image, a `.npy`, seeded random values), the
 * forward pass (forward/run.ts, heavy layers through the kernels the host gives), and the values
 * of the last run kept for the views (`blobSlice`: one channel plane for the heatmap).
 *
 * `feedInputs` is shared with the command line's `run`, so the browser and the CLI turn the same
 * image into the same input values.
 */
import { FormatError } from '../errors';
import type { BlobSlice, RunHooks, RunInputValue, RunOutcome, RunPlan, RunRequest, RunService } from '../format';
import { imageToBlob, randomBlob } from './input';
import type { CaffeModel } from './model';
import type { BlobValues } from './proto';
import { readNpy } from './npy';
import { runForward, runProblems, topK, type RunResult } from './forward/run';
import { valueStats } from './forward/stats';
import { elementCount, type Tensor } from './forward/tensor';

/** Values shown at the head of a blob slice. */
export const SLICE_FIRST_VALUES = 64;

export function runPlan(model: CaffeModel): RunPlan {
  const net = model.net;
  const t = model.transform;
  return {
    inputs: net.inputs.map((b) => {
      const blob = net.blobs[b]!;
      const shape = blob.shape ?? [];
      const c = shape[1];
      return { name: blob.name, shape: shape.slice(), image: shape.length === 4 && (c === 1 || c === 3) ? (c === 1 ? 'gray' : 'bgr') : null };
    }),
    problems: runProblems(net),
    transform: t && (t.scale !== undefined || t.mean !== undefined) ? { scale: t.scale ?? 1, mean: t.mean ?? [0], source: `transform_param of layer '${t.layer}'` } : null,
  };
}

function inputValue(model: CaffeModel, name: string, shape: number[], value: RunInputValue): Float32Array {
  const n = elementCount(shape);
  switch (value.kind) {
    case 'random':
      return randomBlob(n, value.seed);
    case 'array': {
      const a = readNpy(value.bytes, value.file);
      if (a.data.length !== n) {
        throw new FormatError({ kind: 'semantic', file: value.file, message: `the array has shape [${a.shape.join(',')}] (${a.data.length} values); input '${name}' is [${shape.join(',')}] (${n} values)` });
      }
      return a.data;
    }
    case 'image':
      try {
        return imageToBlob(value.pixels, shape, { scale: value.scale, mean: value.mean, ...(value.color ? { color: value.color } : {}) });
      } catch (e) {
        if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file: value.file, message: `the image cannot feed input '${name}' of ${model.netFile.file}: ${e.message}` });
        throw e;
      }
  }
}

/** The values of every net input: the request's, or seeded random values (seed + input index) for the rest. */
export function feedInputs(model: CaffeModel, request: RunRequest): Record<string, Float32Array> {
  const net = model.net;
  const known = new Set(net.inputs.map((b) => net.blobs[b]!.name));
  for (const name of Object.keys(request.inputs)) {
    if (!known.has(name)) throw new FormatError({ kind: 'semantic', file: model.netFile.file, message: `the net has no input '${name}' (its inputs: ${[...known].join(', ') || 'none'})` });
  }
  const out: Record<string, Float32Array> = {};
  net.inputs.forEach((b, i) => {
    const blob = net.blobs[b]!;
    if (!blob.shape) throw new FormatError({ kind: 'semantic', file: model.netFile.file, message: `input '${blob.name}' has no known shape` });
    const given = request.inputs[blob.name] ?? { kind: 'random', seed: (request.seed ?? 1) + i };
    out[blob.name] = inputValue(model, blob.name, blob.shape, given);
  });
  return out;
}

/** Classifier outputs ([N, C] or [N, C, 1, 1] with C > 1): the five best classes of item 0. */
export function classifierTop(result: RunResult, k = 5): RunOutcome['top'] {
  const out: RunOutcome['top'] = [];
  for (const key of result.outputs) {
    const t = result.values.get(key);
    if (!t || t.shape.length < 2 || t.shape[1]! <= 1 || !t.shape.slice(2).every((d) => d === 1)) continue;
    out.push({ output: key, classes: topK(t, k)[0]! });
  }
  return out;
}

export function runOutcome(result: RunResult): RunOutcome {
  return {
    layers: result.layers,
    outputs: result.outputs.map((key) => ({ key, shape: result.values.get(key)!.shape.slice() })),
    top: classifierTop(result),
    keys: [...result.values.keys()],
    kernels: result.kernels,
    ms: result.totalMs,
    forwardMs: result.forwardMs,
  };
}

/**
 * Plane `channel` of item `item`: for [N, C, H, W...] an H x (W...) plane; [N, C] and [N, C, 1, 1]
 * give item's C values as one row (channel 0); a 1-D blob is one row.
 */
export function sliceOf(key: string, t: Tensor, item: number, channel: number): BlobSlice {
  const shape = t.shape;
  const rank = shape.length;
  let height: number;
  let width: number;
  let offset: number;
  const planar = rank >= 3 && elementCount(shape.slice(2)) > 1;
  const items = rank >= 1 ? shape[0]! : 1;
  if (rank >= 2 && !Number.isInteger(item)) throw new RangeError(`item ${item} is not a whole number`);
  if (rank >= 2 && (item < 0 || item >= items)) throw new RangeError(`blob '${key}' has ${items} item(s); item ${item} does not exist`);
  if (planar) {
    const channels = shape[1]!;
    if (!Number.isInteger(channel) || channel < 0 || channel >= channels) throw new RangeError(`blob '${key}' has ${channels} channel(s); channel ${channel} does not exist`);
    height = shape[2]!;
    width = elementCount(shape.slice(3));
    offset = (item * channels + channel) * height * width;
  } else {
    if (channel !== 0) throw new RangeError(`blob '${key}' [${shape.join(',')}] has no channel planes; ask for channel 0`);
    height = 1;
    width = rank >= 2 ? elementCount(shape.slice(1)) : elementCount(shape);
    offset = rank >= 2 ? item * width : 0;
  }
  const values = t.data.slice(offset, offset + height * width);
  let min = Infinity;
  let max = -Infinity;
  for (const v of values) {
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return {
    key,
    shape: shape.slice(),
    item: rank >= 2 ? item : 0,
    channel,
    height,
    width,
    values,
    min: Number.isFinite(min) ? min : NaN,
    max: Number.isFinite(max) ? max : NaN,
    stats: valueStats(t.data),
    first: Array.from(t.data.subarray(0, SLICE_FIRST_VALUES)),
  };
}

/** The run service of one open model; the last run's values live here until the next run. */
export function caffeRunService(model: CaffeModel): RunService {
  let last: RunResult | null = null;
  let lastKernels: RunHooks['kernels'] | null = null;
  // decoded weights kept between runs (an unaligned blob is decoded once; fast kernels pack each once)
  const decoded = new WeakMap<BlobValues, Float32Array>();
  const weightValues = (v: BlobValues) => {
    let a = decoded.get(v);
    if (!a) {
      a = v.toFloat32();
      decoded.set(v, a);
    }
    return a;
  };
  return {
    plan: () => runPlan(model),
    async run(request: RunRequest, hooks: RunHooks = {}): Promise<RunOutcome> {
      const inputs = feedInputs(model, request);
      // a new run replaces the last one; its values are dropped before the new ones are made
      // (arrays the kernels placed in their own memory go back to it)
      if (last && lastKernels?.release) for (const data of new Set([...last.values.values()].map((t) => t.data))) lastKernels.release(data);
      last = null;
      lastKernels = hooks.kernels ?? null;
      const result = await runForward(model.net, {
        inputs,
        file: model.netFile.file,
        weightValues,
        ...(hooks.kernels ? { kernels: hooks.kernels } : {}),
        ...(hooks.signal ? { signal: hooks.signal } : {}),
        ...(hooks.now ? { now: hooks.now } : {}),
        ...(hooks.onProgress ? { onProgress: (p) => hooks.onProgress!({ done: p.done, total: p.total, layer: p.layer, type: p.type }) } : {}),
      });
      last = result;
      return runOutcome(result);
    },
    blobSlice(key: string, item: number, channel: number): BlobSlice {
      if (!last) throw new FormatError({ kind: 'unsupported', file: model.netFile.file, message: 'there is no run to show values of: run the net first' });
      const t = last.values.get(key);
      if (!t) throw new FormatError({ kind: 'semantic', file: model.netFile.file, message: `the last run has no blob '${key}'` });
      try {
        return sliceOf(key, t, item, channel);
      } catch (e) {
        if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file: model.netFile.file, message: e.message });
        throw e;
      }
    },
  };
}
