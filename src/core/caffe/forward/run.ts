/**
 * A float32 forward pass over a built CaffeNet (TEST phase semantics): layers in order, each
 * through its forward function (layers.ts; heavy layers through the `CaffeKernels` interface),
 * with a progress callback after every layer (which may return a Promise, so a worker can yield
 * to its event loop and receive a cancel) and an AbortSignal-like check between layers.
 *
 * Every blob version is kept: the final value of each blob under its name, and the output of a
 * layer later overwritten by an in-place layer under `layer:<name>` (NetBlob.key).
 */
import { FormatError } from '../../errors';
import type { CaffeNet, NetLayer } from '../net';
import type { BlobValues } from '../proto';
import { layersWithoutWeights } from '../merge';
import { referenceKernels, type CaffeKernels } from './heavy';
import { ForwardError, hasForward, LAYER_FORWARD } from './layers';
import { valueStats, type ValueStats } from './stats';
import { elementCount, type Tensor } from './tensor';

/** Largest blob a run allocates (2^28 float32 values = 1 GiB). */
export const MAX_BLOB_VALUES = 2 ** 28;

export interface RunProgress {
  /** layers done so far (1-based after the first layer) */
  done: number;
  total: number;
  layer: string;
  type: string;
  /** milliseconds the layer took */
  ms: number;
}

export interface AbortLike {
  readonly aborted: boolean;
}

export interface RunOptions {
  /** values of the net's input blobs, by blob name */
  inputs: Record<string, Float32Array | Tensor>;
  kernels?: CaffeKernels;
  onProgress?: (p: RunProgress) => void | Promise<void>;
  signal?: AbortLike;
  /** file name for errors */
  file?: string;
  /** a clock (performance.now); default Date.now */
  now?: () => number;
  /**
   * The float32 values of a weight blob (default: `BlobValues.toFloat32`, which decodes an
   * unaligned blob anew each call). A caller that runs a net again passes a cache, so fast
   * kernels keyed by array identity pack each weight once.
   */
  weightValues?: (values: BlobValues) => Float32Array;
}

export interface LayerRunStats {
  layer: string;
  type: string;
  ms: number;
  /** one per top, keyed like the values */
  tops: { key: string; shape: number[]; stats: ValueStats }[];
}

export interface RunResult {
  /** every blob version by key (`name`, or `layer:<name>` when overwritten later) */
  values: Map<string, Tensor>;
  layers: LayerRunStats[];
  /** keys of the net outputs */
  outputs: string[];
  kernels: string;
  /** the whole run: layers, the statistics of every top, bookkeeping */
  totalMs: number;
  /** the layers' own time (what OpenCV's net.forward() would do): the sum of `layers[i].ms` */
  forwardMs: number;
}

function problem(file: string, message: string, layer?: NetLayer): FormatError {
  return new FormatError({ kind: 'unsupported', file, message, ...(layer?.source ?? {}) });
}

/** Why `net` cannot run (empty when it can: shapes known, a kernel for every type, weights present, sizes sane). */
export function runProblems(net: CaffeNet): string[] {
  const out: string[] = [];
  for (const l of net.layers) {
    if (l.type === 'Input') continue;
    if (!hasForward(l.type)) out.push(`layer '${l.name}': type '${l.type}' has no forward pass`);
    else if (l.shapeProblem) out.push(`layer '${l.name}': ${l.shapeProblem}`);
  }
  for (const name of layersWithoutWeights(net)) out.push(`layer '${name}' has no weights`);
  for (const b of net.blobs) {
    if (b.shape && elementCount(b.shape) > MAX_BLOB_VALUES) out.push(`blob '${b.name}' would hold ${elementCount(b.shape)} values, more than the ${MAX_BLOB_VALUES} a run allocates for one blob`);
  }
  if (net.inputs.length === 0) out.push('the net has no Input layer (nor legacy input fields) to feed');
  return out;
}

export async function runForward(net: CaffeNet, options: RunOptions): Promise<RunResult> {
  const file = options.file ?? 'net';
  const now = options.now ?? Date.now;
  const kernels = options.kernels ?? referenceKernels;
  const problems = runProblems(net);
  if (problems.length) throw problem(file, `the net cannot run: ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? `; and ${problems.length - 5} more` : ''}`);
  const values = new Map<string, Tensor>();
  const current: (Tensor | undefined)[] = new Array<Tensor | undefined>(net.blobs.length);
  const layerStats: LayerRunStats[] = [];
  const start = now();
  for (const [i, layer] of net.layers.entries()) {
    if (options.signal?.aborted) throw new FormatError({ kind: 'cancelled', file, message: `the run was cancelled before layer '${layer.name}' (${i} of ${net.layers.length} done)` });
    const t0 = now();
    let tops: Tensor[];
    if (layer.type === 'Input') {
      tops = layer.tops.map((b) => {
        const blob = net.blobs[b]!;
        const given = options.inputs[blob.name];
        if (given === undefined) throw problem(file, `no value was given for input '${blob.name}'`, layer);
        const data = given instanceof Float32Array ? given : given.data;
        if (data.length !== elementCount(blob.shape!)) throw problem(file, `input '${blob.name}' has ${data.length} values; its shape [${blob.shape!.join(',')}] needs ${elementCount(blob.shape!)}`, layer);
        return { shape: blob.shape!.slice(), data };
      });
    } else {
      const bottoms = layer.bottoms.map((b) => current[b]!);
      const weights = layer.weights.map((w) => (options.weightValues ? options.weightValues(w.values!) : w.values!.toFloat32()));
      try {
        tops = await LAYER_FORWARD[layer.type]!(
          { layer: layer.param, type: layer.type, name: layer.name, weights, topShapes: layer.tops.map((t) => net.blobs[t]!.shape!), kernels },
          bottoms,
        );
      } catch (e) {
        if (e instanceof ForwardError) throw problem(file, `layer '${layer.name}' (${layer.type}): ${e.message}`, layer);
        throw e;
      }
    }
    if (tops.length < layer.tops.length) throw problem(file, `layer '${layer.name}' (${layer.type}) produced ${tops.length} outputs for its ${layer.tops.length} tops`, layer);
    const ms = now() - t0;
    const topStats: LayerRunStats['tops'] = [];
    layer.tops.forEach((b, j) => {
      const t = tops[j]!;
      current[b] = t;
      const key = net.blobs[b]!.key;
      values.set(key, t);
      topStats.push({ key, shape: t.shape, stats: valueStats(t.data) });
    });
    layerStats.push({ layer: layer.name, type: layer.type, ms, tops: topStats });
    if (options.onProgress) await options.onProgress({ done: i + 1, total: net.layers.length, layer: layer.name, type: layer.type, ms });
  }
  const forwardMs = layerStats.reduce((a, l) => a + l.ms, 0);
  return { values, layers: layerStats, outputs: net.outputs.map((o) => net.blobs[o]!.key), kernels: kernels.name, totalMs: now() - start, forwardMs };
}

/** The k best classes of a [N, C] or [N, C, 1, 1] output, per item. */
export function topK(t: Tensor, k = 5): { index: number; score: number }[][] {
  const n = t.shape[0] ?? 1;
  const c = elementCount(t.shape) / n;
  const out: { index: number; score: number }[][] = [];
  for (let i = 0; i < n; i++) {
    const row = Array.from(t.data.subarray(i * c, (i + 1) * c), (score, index) => ({ index, score }));
    row.sort((a, b) => b.score - a.score || a.index - b.index);
    out.push(row.slice(0, k));
  }
  return out;
}
