/**
 * Caffe's `UpgradeNetAsNeeded` (BVLC/caffe src/caffe/util/upgrade_proto.cpp, caffe.md section 3),
 * applied to text and binary nets alike: V0 -> V1 (padding layers folded into their consumer,
 * V0 fields moved into the per-type parameter messages), data-transformation fields, V1 -> V2
 * (enum types to strings, per-blob training settings to `param`), legacy `input` fields -> an
 * Input layer, and the BatchNorm parameter fix.
 *
 * Where Caffe aborts (LOG(FATAL) / CHECK) this throws a FormatError naming the layer and where it
 * was written; where Caffe logs an error and goes on ("not fully compatible") this adds a warning.
 * Every step that ran is reported in `steps`, so the studio can say which upgrade it applied.
 */
import { FormatError, type Diagnostic } from '../errors';
import { isMessage, messages, strings, type ProtoMessage, type ProtoValue } from './proto';

export type CaffeVersion = 'V0' | 'V1' | 'V2';

/** Where a layer (or the net) was written: line:column in a text file, byte offset in a binary. */
export interface SourceLocation {
  line?: number;
  column?: number;
  offset?: number;
}

export interface UpgradeStep {
  /** 'V0->V1' | 'data-transformation' | 'V1->V2' | 'input-fields' | 'batch-norm' */
  id: string;
  message: string;
}

export interface UpgradeResult {
  /** the V2 NetParameter (`layer` only; no `input`, `input_dim`, `input_shape`, `layers`) */
  net: ProtoMessage;
  version: CaffeVersion;
  steps: UpgradeStep[];
  /** source location of each layer of `net.layer` */
  layerSources: SourceLocation[];
  diagnostics: Diagnostic[];
}

export function detectVersion(net: ProtoMessage): CaffeVersion {
  const layers = messages(net, 'layers');
  if (layers.some((l) => l.layer !== undefined)) return 'V0';
  if (layers.length > 0) return 'V1';
  return 'V2';
}

const V0_TYPES: Record<string, string> = {
  accuracy: 'ACCURACY', bnll: 'BNLL', concat: 'CONCAT', conv: 'CONVOLUTION', data: 'DATA', dropout: 'DROPOUT',
  euclidean_loss: 'EUCLIDEAN_LOSS', flatten: 'FLATTEN', hdf5_data: 'HDF5_DATA', hdf5_output: 'HDF5_OUTPUT',
  im2col: 'IM2COL', images: 'IMAGE_DATA', infogain_loss: 'INFOGAIN_LOSS', innerproduct: 'INNER_PRODUCT', lrn: 'LRN',
  multinomial_logistic_loss: 'MULTINOMIAL_LOGISTIC_LOSS', pool: 'POOLING', relu: 'RELU', sigmoid: 'SIGMOID',
  softmax: 'SOFTMAX', softmax_loss: 'SOFTMAX_LOSS', split: 'SPLIT', tanh: 'TANH', window_data: 'WINDOW_DATA',
};

export const V1_TYPE_NAMES: Record<string, string> = {
  NONE: '', ABSVAL: 'AbsVal', ACCURACY: 'Accuracy', ARGMAX: 'ArgMax', BNLL: 'BNLL', CONCAT: 'Concat',
  CONTRASTIVE_LOSS: 'ContrastiveLoss', CONVOLUTION: 'Convolution', DECONVOLUTION: 'Deconvolution', DATA: 'Data',
  DROPOUT: 'Dropout', DUMMY_DATA: 'DummyData', EUCLIDEAN_LOSS: 'EuclideanLoss', ELTWISE: 'Eltwise', EXP: 'Exp',
  FLATTEN: 'Flatten', HDF5_DATA: 'HDF5Data', HDF5_OUTPUT: 'HDF5Output', HINGE_LOSS: 'HingeLoss', IM2COL: 'Im2col',
  IMAGE_DATA: 'ImageData', INFOGAIN_LOSS: 'InfogainLoss', INNER_PRODUCT: 'InnerProduct', LRN: 'LRN',
  MEMORY_DATA: 'MemoryData', MULTINOMIAL_LOGISTIC_LOSS: 'MultinomialLogisticLoss', MVN: 'MVN', POOLING: 'Pooling',
  POWER: 'Power', RELU: 'ReLU', SIGMOID: 'Sigmoid', SIGMOID_CROSS_ENTROPY_LOSS: 'SigmoidCrossEntropyLoss',
  SILENCE: 'Silence', SOFTMAX: 'Softmax', SOFTMAX_LOSS: 'SoftmaxWithLoss', SPLIT: 'Split', SLICE: 'Slice',
  TANH: 'TanH', WINDOW_DATA: 'WindowData', THRESHOLD: 'Threshold',
};

class Upgrader {
  readonly diagnostics: Diagnostic[] = [];
  constructor(
    readonly file: string,
    readonly netSource: SourceLocation,
  ) {}

  error(message: string, at: SourceLocation | undefined): never {
    throw new FormatError({ kind: 'semantic', file: this.file, message, ...(at ?? {}) });
  }

  warn(message: string, at: SourceLocation | undefined): void {
    this.diagnostics.push({ severity: 'warning', file: this.file, message, source: 'upgrade', ...(at ?? {}) });
  }
}

function push(msg: ProtoMessage, field: string, v: ProtoValue): void {
  const cur = msg[field];
  if (Array.isArray(cur)) (cur as ProtoValue[]).push(v);
  else msg[field] = [v] as ProtoMessage[];
}

function sub(msg: ProtoMessage, field: string): ProtoMessage {
  const cur = msg[field];
  if (isMessage(cur)) return cur;
  const m: ProtoMessage = {};
  msg[field] = m;
  return m;
}

// --- V0 -> V1 -------------------------------------------------------------------------------

function upgradeV0PaddingLayers(net: ProtoMessage, sources: SourceLocation[], u: Upgrader): { layers: ProtoMessage[]; sources: SourceLocation[] } {
  const layers = messages(net, 'layers');
  const out: ProtoMessage[] = [];
  const outSources: SourceLocation[] = [];
  const lastTop = new Map<string, number>();
  for (const name of strings(net, 'input')) lastTop.set(name, -1);
  layers.forEach((conn, i) => {
    const v0 = (conn.layer as ProtoMessage | undefined) ?? {};
    const type = typeof v0.type === 'string' ? v0.type : '';
    let copy: ProtoMessage | null = null;
    if (type !== 'padding') {
      copy = { ...conn, layer: { ...v0 }, ...(conn.bottom ? { bottom: [...(conn.bottom as string[])] } : {}) };
      out.push(copy);
      outSources.push(sources[i] ?? {});
    }
    strings(conn, 'bottom').forEach((blob, j) => {
      const top = lastTop.get(blob);
      if (top === undefined) u.error(`layer '${String(v0.name ?? i)}' reads blob '${blob}', which no earlier layer or input produces (V0 upgrade)`, sources[i]);
      if (top === -1) return;
      const src = layers[top]!;
      const srcV0 = (src.layer as ProtoMessage | undefined) ?? {};
      if (srcV0.type !== 'padding') return;
      const name = String(v0.name ?? i);
      if (type !== 'conv' && type !== 'pool') u.error(`padding layer '${String(srcV0.name)}' feeds layer '${name}' of type '${type}'; Caffe's V0 upgrade only folds padding into conv or pool layers`, sources[i]);
      if (strings(conn, 'bottom').length !== 1) u.error(`layer '${name}' takes a padding layer's output and so must have exactly one bottom (V0 upgrade)`, sources[i]);
      if (strings(src, 'bottom').length !== 1) u.error(`padding layer '${String(srcV0.name)}' must have exactly one bottom (V0 upgrade)`, sources[top]);
      if (strings(src, 'top').length !== 1) u.error(`padding layer '${String(srcV0.name)}' must have exactly one top (V0 upgrade)`, sources[top]);
      const target = out[out.length - 1]!;
      (target.layer as ProtoMessage).pad = srcV0.pad ?? 0;
      (target.bottom as string[])[j] = strings(src, 'bottom')[0]!;
    });
    for (const t of strings(conn, 'top')) lastTop.set(t, i);
  });
  return { layers: out, sources: outSources };
}

function upgradeV0Layer(conn: ProtoMessage, at: SourceLocation, u: Upgrader): ProtoMessage {
  const out: ProtoMessage = {};
  if (conn.bottom !== undefined) out.bottom = [...strings(conn, 'bottom')];
  if (conn.top !== undefined) out.top = [...strings(conn, 'top')];
  const v0 = conn.layer as ProtoMessage | undefined;
  if (!v0) return out;
  if (v0.name !== undefined) out.name = v0.name;
  const type = typeof v0.type === 'string' ? v0.type : '';
  if (v0.type !== undefined) {
    const t = V0_TYPES[type];
    if (!t) u.error(`unknown V0 layer type '${type}' in layer '${String(v0.name ?? '')}' (Caffe: "Unknown layer name")`, at);
    out.type = t;
  }
  for (const f of ['blobs', 'blobs_lr', 'weight_decay'] as const) if (v0[f] !== undefined) out[f] = Array.isArray(v0[f]) ? [...(v0[f] as ProtoMessage[])] : v0[f]!;
  const unknown = (f: string) => u.warn(`V0 upgrade: unknown parameter ${f} for layer type ${type} (layer '${String(v0.name ?? '')}'); the upgrade continues but is not fully compatible`, at);
  const has = (f: string) => v0[f] !== undefined;
  const move = (f: string, byType: Record<string, [string, string, 'set' | 'add']>) => {
    if (!has(f)) return;
    const dest = byType[type];
    if (!dest) return unknown(f);
    const [param, name, mode] = dest;
    const p = sub(out, param);
    if (mode === 'add') push(p, name, v0[f] as number);
    else p[name] = v0[f]!;
  };
  const convIp = (name: string): Record<string, [string, string, 'set']> => ({ conv: ['convolution_param', name, 'set'], innerproduct: ['inner_product_param', name, 'set'] });
  move('num_output', convIp('num_output'));
  move('biasterm', convIp('bias_term'));
  move('weight_filler', convIp('weight_filler'));
  move('bias_filler', convIp('bias_filler'));
  move('pad', { conv: ['convolution_param', 'pad', 'add'], pool: ['pooling_param', 'pad', 'set'] });
  move('kernelsize', { conv: ['convolution_param', 'kernel_size', 'add'], pool: ['pooling_param', 'kernel_size', 'set'] });
  move('group', { conv: ['convolution_param', 'group', 'set'] });
  move('stride', { conv: ['convolution_param', 'stride', 'add'], pool: ['pooling_param', 'stride', 'set'] });
  move('pool', { pool: ['pooling_param', 'pool', 'set'] });
  move('dropout_ratio', { dropout: ['dropout_param', 'dropout_ratio', 'set'] });
  for (const f of ['local_size', 'alpha', 'beta', 'k']) move(f, { lrn: ['lrn_param', f, 'set'] });
  move('source', {
    data: ['data_param', 'source', 'set'], hdf5_data: ['hdf5_data_param', 'source', 'set'], images: ['image_data_param', 'source', 'set'],
    window_data: ['window_data_param', 'source', 'set'], infogain_loss: ['infogain_loss_param', 'source', 'set'],
  });
  if (has('scale')) sub(out, 'transform_param').scale = v0.scale!;
  if (has('meanfile')) sub(out, 'transform_param').mean_file = v0.meanfile!;
  move('batchsize', {
    data: ['data_param', 'batch_size', 'set'], hdf5_data: ['hdf5_data_param', 'batch_size', 'set'],
    images: ['image_data_param', 'batch_size', 'set'], window_data: ['window_data_param', 'batch_size', 'set'],
  });
  if (has('cropsize')) sub(out, 'transform_param').crop_size = v0.cropsize!;
  if (has('mirror')) sub(out, 'transform_param').mirror = v0.mirror!;
  move('rand_skip', { data: ['data_param', 'rand_skip', 'set'], images: ['image_data_param', 'rand_skip', 'set'] });
  move('shuffle_images', { images: ['image_data_param', 'shuffle', 'set'] });
  move('new_height', { images: ['image_data_param', 'new_height', 'set'] });
  move('new_width', { images: ['image_data_param', 'new_width', 'set'] });
  move('concat_dim', { concat: ['concat_param', 'concat_dim', 'set'] });
  move('det_fg_threshold', { window_data: ['window_data_param', 'fg_threshold', 'set'] });
  move('det_bg_threshold', { window_data: ['window_data_param', 'bg_threshold', 'set'] });
  move('det_fg_fraction', { window_data: ['window_data_param', 'fg_fraction', 'set'] });
  move('det_context_pad', { window_data: ['window_data_param', 'context_pad', 'set'] });
  move('det_crop_mode', { window_data: ['window_data_param', 'crop_mode', 'set'] });
  if (has('hdf5_output_param')) {
    if (type === 'hdf5_output') out.hdf5_output_param = v0.hdf5_output_param!;
    else unknown('hdf5_output_param');
  }
  return out;
}

function upgradeV0(net: ProtoMessage, sources: SourceLocation[], u: Upgrader): { net: ProtoMessage; sources: SourceLocation[] } {
  const padded = upgradeV0PaddingLayers(net, sources, u);
  const out: ProtoMessage = {};
  if (net.name !== undefined) out.name = net.name;
  out.layers = padded.layers.map((l, i) => upgradeV0Layer(l, padded.sources[i] ?? {}, u));
  if (net.input !== undefined) out.input = [...strings(net, 'input')];
  if (net.input_dim !== undefined) out.input_dim = [...(net.input_dim as number[])];
  if (net.force_backward !== undefined) out.force_backward = net.force_backward;
  return { net: out, sources: padded.sources };
}

// --- data transformation ---------------------------------------------------------------------

const TRANSFORM_TYPES: Record<string, string> = { DATA: 'data_param', IMAGE_DATA: 'image_data_param', WINDOW_DATA: 'window_data_param' };
const TRANSFORM_FIELDS = ['scale', 'mean_file', 'crop_size', 'mirror'];

function needsDataUpgrade(net: ProtoMessage): boolean {
  return messages(net, 'layers').some((l) => {
    const p = TRANSFORM_TYPES[String(l.type)];
    const param = p ? (l[p] as ProtoMessage | undefined) : undefined;
    return !!param && TRANSFORM_FIELDS.some((f) => param[f] !== undefined);
  });
}

function upgradeDataTransformation(net: ProtoMessage): void {
  for (const l of messages(net, 'layers')) {
    const p = TRANSFORM_TYPES[String(l.type)];
    if (!p) continue;
    const param = sub(l, p);
    const t = sub(l, 'transform_param');
    for (const f of TRANSFORM_FIELDS) {
      if (param[f] !== undefined) {
        t[f] = param[f]!;
        delete param[f];
      }
    }
    if (Object.keys(t).length === 0) delete l.transform_param;
  }
}

// --- V1 -> V2 --------------------------------------------------------------------------------

function upgradeV1Layer(v1: ProtoMessage, at: SourceLocation, u: Upgrader, index: number): ProtoMessage {
  const out: ProtoMessage = {};
  if (v1.bottom !== undefined) out.bottom = [...strings(v1, 'bottom')];
  if (v1.top !== undefined) out.top = [...strings(v1, 'top')];
  if (v1.name !== undefined) out.name = v1.name;
  if (v1.include !== undefined) out.include = messages(v1, 'include').map((r) => ({ ...r }));
  if (v1.exclude !== undefined) out.exclude = messages(v1, 'exclude').map((r) => ({ ...r }));
  if (v1.type !== undefined) {
    const t = V1_TYPE_NAMES[String(v1.type)];
    if (t === undefined) u.error(`unknown V1 layer type ${String(v1.type)}`, at);
    out.type = t;
  }
  if (v1.blobs !== undefined) out.blobs = [...messages(v1, 'blobs')];
  const params: ProtoMessage[] = [];
  const param = (i: number): ProtoMessage => {
    while (params.length <= i) params.push({});
    return params[i]!;
  };
  strings(v1, 'param').forEach((name, i) => (param(i).name = name));
  strings(v1, 'blob_share_mode').forEach((mode, i) => (param(i).share_mode = mode));
  ((v1.blobs_lr as number[] | undefined) ?? []).forEach((x, i) => (param(i).lr_mult = x));
  ((v1.weight_decay as number[] | undefined) ?? []).forEach((x, i) => (param(i).decay_mult = x));
  if (params.length) out.param = params;
  if (v1.loss_weight !== undefined) out.loss_weight = [...(v1.loss_weight as number[])];
  for (const k of Object.keys(v1)) if (k.endsWith('_param')) out[k] = v1[k]!;
  if (v1.layer !== undefined) u.warn(`V1 upgrade: layer ${index} ('${String(v1.name ?? '')}') still holds a V0 layer, which is ignored (Caffe: "Input NetParameter has V0 layer -- ignoring")`, at);
  return out;
}

function upgradeV1(net: ProtoMessage, sources: SourceLocation[], u: Upgrader): ProtoMessage {
  if (messages(net, 'layer').length > 0) {
    u.error("the net has both 'layer' (V2) and 'layers' (V1) entries; Caffe refuses to upgrade such an inconsistent NetParameter: switch the definition to the 'layer' format", u.netSource);
  }
  const out: ProtoMessage = { ...net };
  delete out.layers;
  delete out.layer;
  out.layer = messages(net, 'layers').map((l, i) => upgradeV1Layer(l, sources[i] ?? {}, u, i));
  return out;
}

// --- inputs, BatchNorm -----------------------------------------------------------------------

function upgradeInput(net: ProtoMessage, sources: SourceLocation[], inputSource: SourceLocation): SourceLocation[] {
  const inputs = strings(net, 'input');
  const shapes = messages(net, 'input_shape');
  const dims = (net.input_dim as number[] | undefined) ?? [];
  let out = sources;
  if (shapes.length > 0 || dims.length > 0) {
    const shape: ProtoMessage[] = inputs.map((_, i) => (shapes.length > 0 ? { ...(shapes[i] ?? {}) } : { dim: dims.slice(4 * i, 4 * i + 4) }));
    const layer: ProtoMessage = { name: 'input', type: 'Input', top: [...inputs], input_param: { shape } };
    net.layer = [layer, ...messages(net, 'layer')];
    out = [inputSource, ...sources];
  }
  delete net.input;
  delete net.input_shape;
  delete net.input_dim;
  return out;
}

/** (layer entries are copied before they change: the input net's own messages stay as read) */
function upgradeBatchNorm(net: ProtoMessage): boolean {
  let changed = false;
  const layers = messages(net, 'layer').map((l) => {
    if (l.type !== 'BatchNorm' || messages(l, 'param').length !== 3) return l;
    changed = true;
    return { ...l, param: messages(l, 'param').map((p) => ({ ...p, lr_mult: 0, decay_mult: 0 })) };
  });
  if (changed) net.layer = layers;
  return changed;
}

export interface UpgradeOptions {
  /** where each top-level `layer` / `layers` entry was written, in order */
  layerSources?: { layer: SourceLocation[]; layers: SourceLocation[] };
  /** where the net's `input` field was written */
  inputSource?: SourceLocation;
  /** where net-level problems point (the first layer entry) */
  netSource?: SourceLocation;
  /** what nvdla_compiler sees, for the notice (it ignores V0/V1 `layers` without a word) */
  nvdlaNotice?: boolean;
}

/** Upgrades a NetParameter in place order as Caffe's UpgradeNetAsNeeded; `net` itself is not modified. */
export function upgradeNet(input: ProtoMessage, file: string, options: UpgradeOptions = {}): UpgradeResult {
  const version = detectVersion(input);
  const u = new Upgrader(file, options.netSource ?? {});
  const steps: UpgradeStep[] = [];
  let net: ProtoMessage = { ...input };
  let sources = version === 'V2' ? (options.layerSources?.layer ?? []) : (options.layerSources?.layers ?? []);
  const nvdla = options.nvdlaNotice ?? true;
  if (version === 'V0') {
    const r = upgradeV0(net, sources, u);
    net = r.net;
    sources = r.sources;
    steps.push({ id: 'V0->V1', message: 'upgraded from the V0 format (layers { layer { type: "conv" ... } }) to V1, as Caffe\'s UpgradeV0Net does' });
  }
  if (needsDataUpgrade(net)) {
    net.layers = messages(net, 'layers').map((l) => ({ ...l }));
    upgradeDataTransformation(net);
    steps.push({ id: 'data-transformation', message: 'moved scale / mean_file / crop_size / mirror of data layers into transform_param' });
  }
  if (messages(net, 'layers').length > 0) {
    net = upgradeV1(net, sources, u);
    steps.push({
      id: 'V1->V2',
      message:
        "upgraded V1 'layers' entries (enum types) to V2 'layer' entries (string types), as Caffe's UpgradeV1Net does" +
        (nvdla ? '; note that the upstream nvdla_compiler reads only V2 `layer` entries and would see an empty network in this file' : ''),
    });
  } else if (version === 'V2' && net.layers !== undefined) {
    delete net.layers;
  }
  if (strings(net, 'input').length > 0) {
    const hadShape = net.input_shape !== undefined || net.input_dim !== undefined;
    sources = upgradeInput(net, sources, options.inputSource ?? {});
    steps.push({
      id: 'input-fields',
      message: hadShape ? "turned the legacy 'input' + 'input_dim'/'input_shape' fields into an Input layer named 'input'" : "dropped the legacy 'input' field, which had no shape (an old caffemodel)",
    });
  }
  if (upgradeBatchNorm(net)) steps.push({ id: 'batch-norm', message: 'BatchNorm layers declaring three param entries got lr_mult: 0 and decay_mult: 0 (newer Caffe)' });
  if (net.layer === undefined) net.layer = [];
  return { net, version, steps, layerSources: sources, diagnostics: u.diagnostics };
}
