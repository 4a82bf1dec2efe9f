/**
 * The network as Caffe builds it (Net::Init): layers in order, each bottom bound to the latest
 * top of that name written before it (so in-place layers, top == bottom, make a new version of
 * the blob), shapes inferred layer by layer with Caffe's rules (shapes.ts), and the learnable
 * blobs of each layer (from the file itself, or merged from a .caffemodel by merge.ts).
 *
 * Blob versions are the edges of the graph and the values of a forward run: the final version of
 * a name is saved under that name, an earlier one (overwritten in place) as `layer:<producer>`.
 */
import type { Diagnostic } from '../errors';
import { BlobValues, messages, numbers, strings, type ProtoMessage } from './proto';
import { count, DATA_LAYER_TYPES, hasShapeRule, layerShapes, ShapeError, type ParamSpec, type Shape } from './shapes';
import type { SourceLocation } from './upgrade';

export interface WeightBlob {
  /** shape as stored: BlobShape dims, or the legacy num/channels/height/width */
  shape: Shape;
  legacy: boolean;
  values: BlobValues | null;
  /** where the values came from */
  origin: 'file' | 'weights' | 'generated';
}

export interface NetLayer {
  index: number;
  name: string;
  type: string;
  /** the V2 LayerParameter */
  param: ProtoMessage;
  bottoms: number[];
  tops: number[];
  /** top i rewrites bottom j of the same name (in-place) */
  inPlace: boolean;
  source: SourceLocation;
  /** learnable blobs this layer type expects, when the input shapes are known */
  expected: ParamSpec[] | null;
  /** learnable blobs present (file or merged weights) */
  weights: WeightBlob[];
  /** why shapes could not be inferred for this layer's tops, if so */
  shapeProblem: string | null;
}

export interface NetBlob {
  id: number;
  name: string;
  /** value key in a run: the name for a final version, `layer:<producer>` for an overwritten one */
  key: string;
  /** producing layer index, -1 when nothing produces it (a bottom nobody wrote) */
  producer: number;
  consumers: number[];
  shape: Shape | null;
  /** the last version of this name */
  final: boolean;
}

export interface CaffeNet {
  name: string;
  layers: NetLayer[];
  blobs: NetBlob[];
  /** blobs produced by Input layers */
  inputs: number[];
  /** final blob versions no layer reads (Caffe's net outputs) */
  outputs: number[];
  diagnostics: Diagnostic[];
}

/** Shapes of the blobs stored in a layer's `blobs` (BlobShape, or legacy 4-D). */
export function weightBlobsOf(layer: ProtoMessage, origin: WeightBlob['origin']): WeightBlob[] {
  return messages(layer, 'blobs').map((b) => {
    const shapeMsg = b.shape as ProtoMessage | undefined;
    const legacy = shapeMsg === undefined && (b.num !== undefined || b.channels !== undefined || b.height !== undefined || b.width !== undefined);
    const shape = shapeMsg !== undefined ? numbers(shapeMsg, 'dim') : legacy ? [Number(b.num ?? 0), Number(b.channels ?? 0), Number(b.height ?? 0), Number(b.width ?? 0)] : [];
    let values: BlobValues | null = null;
    if (b.data instanceof BlobValues) values = b.data;
    else if (b.double_data instanceof BlobValues) values = b.double_data;
    else if (b.half_data instanceof BlobValues) values = b.half_data;
    else if (Array.isArray(b.data)) values = BlobValues.fromNumbers('float', b.data as number[]);
    else if (Array.isArray(b.double_data)) values = BlobValues.fromNumbers('double', b.double_data as number[]);
    return { shape, legacy, values, origin };
  });
}

export interface BuildOptions {
  file: string;
  layerSources?: SourceLocation[];
  /** replace the batch (first dimension) of every Input shape */
  batch?: number;
}

export function buildNet(netParam: ProtoMessage, options: BuildOptions): CaffeNet {
  const diagnostics: Diagnostic[] = [];
  const file = options.file;
  const layers: NetLayer[] = [];
  const blobs: NetBlob[] = [];
  const latest = new Map<string, number>();
  const names = new Set<string>();
  const newBlob = (name: string, producer: number): number => {
    const id = blobs.length;
    blobs.push({ id, name, key: name, producer, consumers: [], shape: null, final: true });
    const prev = latest.get(name);
    if (prev !== undefined) blobs[prev]!.final = false;
    latest.set(name, id);
    return id;
  };
  messages(netParam, 'layer').forEach((lp, index) => {
    const source = options.layerSources?.[index] ?? {};
    const name = typeof lp.name === 'string' ? lp.name : '';
    const type = typeof lp.type === 'string' ? lp.type : '';
    if (names.has(name)) diagnostics.push({ severity: 'warning', file, ...source, message: `layer name '${name}' is used by more than one layer (Caffe matches weights by name: only the first gets them)` });
    names.add(name);
    const bottomNames = strings(lp, 'bottom');
    const bottoms = bottomNames.map((b, j) => {
      let id = latest.get(b);
      if (id === undefined) {
        diagnostics.push({ severity: 'error', file, ...source, message: `layer '${name}' reads blob '${b}' (bottom ${j}), which no earlier layer produces (Caffe: "Unknown bottom blob")` });
        id = newBlob(b, -1);
      }
      blobs[id]!.consumers.push(index);
      return id;
    });
    const topNames = strings(lp, 'top');
    const inPlace = topNames.some((t) => bottomNames.includes(t));
    const tops = topNames.map((t) => newBlob(t, index));
    layers.push({ index, name, type, param: lp, bottoms, tops, inPlace, source, expected: null, weights: weightBlobsOf(lp, 'file'), shapeProblem: null });
  });
  for (const b of blobs) if (!b.final && b.producer >= 0) b.key = `layer:${layers[b.producer]!.name}`;
  const net: CaffeNet = {
    name: typeof netParam.name === 'string' ? netParam.name : '',
    layers,
    blobs,
    inputs: layers.filter((l) => l.type === 'Input').flatMap((l) => l.tops),
    outputs: blobs.filter((b) => b.final && b.consumers.length === 0 && b.producer >= 0).map((b) => b.id),
    diagnostics,
  };
  inferShapes(net, file, options.batch);
  return net;
}

/** Fills in blob shapes and expected learnable blobs; records problems as diagnostics. */
export function inferShapes(net: CaffeNet, file: string, batch?: number): void {
  for (const layer of net.layers) {
    const bottomShapes = layer.bottoms.map((b) => net.blobs[b]!.shape);
    if (DATA_LAYER_TYPES.has(layer.type)) {
      layer.shapeProblem = `a ${layer.type} layer reads its shapes from its data source, which is not part of the net file`;
      net.diagnostics.push({ severity: 'info', file, ...layer.source, message: `layer '${layer.name}' (${layer.type}): its top shapes come from its data source, so the shapes below it are unknown` });
      continue;
    }
    if (!hasShapeRule(layer.type)) {
      layer.shapeProblem = `layer type '${layer.type}' is not supported`;
      net.diagnostics.push({ severity: 'error', file, ...layer.source, message: `layer '${layer.name}': type '${layer.type}' is not supported (no shape rule, no forward kernel); the graph shows it without shapes below it` });
      continue;
    }
    if (bottomShapes.some((s) => s === null)) {
      layer.shapeProblem = 'an input shape is unknown';
      continue;
    }
    try {
      const r = layerShapes(layer.param, layer.type, bottomShapes as Shape[], layer.tops.length);
      if (layer.type === 'Input' && batch !== undefined) for (const t of r.tops) if (t.length > 0) t[0] = batch;
      layer.tops.forEach((t, i) => (net.blobs[t]!.shape = r.tops[i] ?? null));
      layer.expected = r.params;
    } catch (e) {
      if (!(e instanceof ShapeError)) throw e;
      layer.shapeProblem = e.rule;
      net.diagnostics.push({ severity: 'error', file, ...layer.source, message: `layer '${layer.name}' (${layer.type}): ${e.rule}` });
    }
  }
}

/** Number of values in the learnable blobs present. */
export function parameterCount(net: CaffeNet): number {
  let n = 0;
  for (const l of net.layers) {
    if (l.weights.length) for (const w of l.weights) n += w.values?.count ?? w.shape.reduce((a, b) => a * b, 1);
    else if (l.expected) for (const p of l.expected) n += p.shape.reduce((a, b) => a * b, 1);
  }
  return n;
}

/** Layer counts by type, in first-seen order. */
export function layerTypeCounts(net: CaffeNet): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of net.layers) out[l.type] = (out[l.type] ?? 0) + 1;
  return out;
}

/**
 * Bytes of activations held by one forward pass at the net's batch: every blob version Caffe
 * allocates (in-place tops share their bottom's memory), float32.
 */
export function activationBytes(net: CaffeNet): number {
  let bytes = 0;
  for (const b of net.blobs) {
    if (!b.shape || b.producer < 0) continue;
    const layer = net.layers[b.producer]!;
    const ownTop = layer.tops.indexOf(b.id);
    const topName = b.name;
    const sharesBottom = layer.bottoms.some((x) => net.blobs[x]!.name === topName) && ownTop >= 0;
    if (!sharesBottom) bytes += count(b.shape) * 4;
  }
  return bytes;
}
