/**
 * A small Caffe deploy-net reader for the kernel bench: parses a V2 prototxt with the project's
 * text-format parser, infers blob shapes at batch 1 with Caffe's rules for the layer types of
 * GoogLeNet, ResNet-50, MobileNet and SqueezeNet, gives each heavy layer its kernel parameters,
 * makes seeded random weights (the ranges of shared/tools/gen_caffemodel.py: He-uniform conv and
 * fc weights, small biases, BatchNorm and Scale near identity) and writes them as a .caffemodel
 * for OpenCV. The full reader (every layer type, V0/V1, errors) is src/core/caffe; this one only
 * has to describe four known nets for timing.
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';
import descriptor from '../../src/core/caffe/generated/caffe.json';
import {
  conv2dOutputShape,
  poolOutputSize,
  type Conv2dParams,
  type InnerProductParams,
  type LrnParams,
  type Pool2dParams,
} from '../../src/core/kernels/params';
import { randomTensor } from '../../src/core/kernels/testing';
import { parseTextProto, type TextMessage, type TextValue } from '../../src/core/textproto';
import type { BenchLayer } from './kernel-layers';

export type HeavyLayer = Extract<BenchLayer, { kind: 'conv' | 'pool' | 'lrn' | 'ip' }>;

export interface NetLayer {
  name: string;
  /** shapes of the bottoms */
  ins: number[][];
  type: string;
  bottoms: string[];
  tops: string[];
  /** shape of the first top */
  out: number[];
  heavy: HeavyLayer | null;
  /** the weight blobs Caffe would hold for this layer */
  blobs: { shape: number[]; lo: number; hi: number; constant?: number }[];
}

export interface Net {
  name: string;
  input: number[];
  layers: NetLayer[];
}

const root = protobuf.Root.fromJSON(descriptor as protobuf.INamespace);
const NetParameter = root.lookupType('caffe.NetParameter');

const list = (v: TextValue | undefined): TextValue[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const num = (m: TextMessage | undefined, f: string, d: number): number => (m && m[f] !== undefined ? Number(list(m[f])[0]) : d);
const str = (m: TextMessage | undefined, f: string, d: string): string => (m && m[f] !== undefined ? String(list(m[f])[0]) : d);
const bool = (m: TextMessage | undefined, f: string, d: boolean): boolean => (m && m[f] !== undefined ? list(m[f])[0] === true : d);

/** Caffe's kernel/stride/pad fields: repeated (one or two values) or the _h/_w pair. */
function hw(m: TextMessage, f: string, d: number): [number, number] {
  if (m[`${f}_h`] !== undefined || m[`${f}_w`] !== undefined) return [num(m, `${f}_h`, d), num(m, `${f}_w`, d)];
  const v = list(m[f === 'kernel' ? 'kernel_size' : f]).map(Number);
  if (v.length === 0) return [d, d];
  return [v[0]!, v[1] ?? v[0]!];
}

export function readNet(path: string): Net {
  const { message } = parseTextProto(readFileSync(path, 'utf8'), NetParameter, path);
  const shapes = new Map<string, number[]>();
  let input: number[] = [];
  const inputs = list(message.input).map(String);
  if (inputs.length) {
    const dims = list(message.input_dim).map(Number);
    const shape = dims.length ? dims : list((list(message.input_shape)[0] as TextMessage | undefined)?.dim).map(Number);
    input = [1, ...shape.slice(1)];
    shapes.set(inputs[0]!, input);
  }
  const layers: NetLayer[] = [];
  for (const l of list(message.layer) as TextMessage[]) {
    const name = str(l, 'name', '');
    const type = str(l, 'type', '');
    const bottoms = list(l.bottom).map(String);
    const tops = list(l.top).map(String);
    const ins = bottoms.map((b) => {
      const s = shapes.get(b);
      if (!s) throw new Error(`${path}: layer ${name}: unknown bottom ${b}`);
      return s;
    });
    const x = ins[0] ?? [];
    let out = x;
    let heavy: HeavyLayer | null = null;
    const blobs: NetLayer['blobs'] = [];
    switch (type) {
      case 'Input': {
        const shape = list((list((l.input_param as TextMessage).shape)[0] as TextMessage).dim).map(Number);
        out = input = [1, ...shape.slice(1)];
        break;
      }
      case 'Convolution': {
        const cp = l.convolution_param as TextMessage;
        const [kh, kw] = hw(cp, 'kernel', 1);
        const [sh, sw] = hw(cp, 'stride', 1);
        const [ph, pw] = hw(cp, 'pad', 0);
        const dil = list(cp.dilation).map(Number);
        const p: Conv2dParams = {
          batch: 1, inChannels: x[1]!, inHeight: x[2]!, inWidth: x[3]!, outChannels: num(cp, 'num_output', 0),
          kernelH: kh, kernelW: kw, strideH: sh, strideW: sw, padH: ph, padW: pw,
          dilationH: dil[0] ?? 1, dilationW: dil[1] ?? dil[0] ?? 1, group: num(cp, 'group', 1),
        };
        const bias = bool(cp, 'bias_term', true);
        heavy = { kind: 'conv', name, p, bias };
        out = conv2dOutputShape(p);
        const fanIn = (p.inChannels / p.group) * kh * kw;
        const r = Math.sqrt(6 / fanIn);
        blobs.push({ shape: [p.outChannels, p.inChannels / p.group, kh, kw], lo: -r, hi: r });
        if (bias) blobs.push({ shape: [p.outChannels], lo: -0.05, hi: 0.05 });
        break;
      }
      case 'Pooling': {
        const pp = l.pooling_param as TextMessage;
        const global = bool(pp, 'global_pooling', false);
        const [kh, kw] = global ? [x[2]!, x[3]!] : hw(pp, 'kernel', 1);
        const [sh, sw] = global ? [1, 1] : hw(pp, 'stride', 1);
        const [ph, pw] = global ? [0, 0] : hw(pp, 'pad', 0);
        const round = str(pp, 'round_mode', 'CEIL') === 'FLOOR' ? 'floor' : 'ceil';
        const p: Pool2dParams = {
          method: str(pp, 'pool', 'MAX') === 'AVE' ? 'ave' : 'max', batch: 1, channels: x[1]!, inHeight: x[2]!, inWidth: x[3]!,
          outHeight: poolOutputSize(x[2]!, kh, sh, ph, round), outWidth: poolOutputSize(x[3]!, kw, sw, pw, round),
          kernelH: kh, kernelW: kw, strideH: sh, strideW: sw, padH: ph, padW: pw,
        };
        if (str(pp, 'pool', 'MAX') === 'STOCHASTIC') throw new Error(`${name}: STOCHASTIC pooling`);
        heavy = { kind: 'pool', name, p };
        out = [1, x[1]!, p.outHeight, p.outWidth];
        break;
      }
      case 'LRN': {
        const lp = l.lrn_param as TextMessage | undefined;
        const p: LrnParams = {
          region: str(lp, 'norm_region', 'ACROSS_CHANNELS') === 'WITHIN_CHANNEL' ? 'within' : 'across',
          batch: 1, channels: x[1]!, height: x[2]!, width: x[3]!,
          size: num(lp, 'local_size', 5), alpha: num(lp, 'alpha', 1), beta: num(lp, 'beta', 0.75), k: num(lp, 'k', 1),
        };
        heavy = { kind: 'lrn', name, p };
        break;
      }
      case 'InnerProduct': {
        const ip = l.inner_product_param as TextMessage;
        const K = x.slice(1).reduce((a, b) => a * b, 1);
        const O = num(ip, 'num_output', 0);
        const bias = bool(ip, 'bias_term', true);
        heavy = { kind: 'ip', name, p: { batch: 1, inputSize: K, outputSize: O, transpose: bool(ip, 'transpose', false) }, bias };
        out = [1, O];
        const r = Math.sqrt(6 / K);
        blobs.push({ shape: [O, K], lo: -r, hi: r });
        if (bias) blobs.push({ shape: [O], lo: -0.05, hi: 0.05 });
        break;
      }
      case 'Concat': {
        const axis = num(l.concat_param as TextMessage | undefined, 'axis', 1);
        out = x.slice();
        out[axis] = ins.reduce((a, s) => a + s[axis]!, 0);
        break;
      }
      case 'BatchNorm':
        blobs.push({ shape: [x[1]!], lo: -0.1, hi: 0.1 }, { shape: [x[1]!], lo: 0.5, hi: 1.5 }, { shape: [1], lo: 1, hi: 1, constant: 1 });
        break;
      case 'Scale': {
        blobs.push({ shape: [x[1]!], lo: 0.5, hi: 1.5 });
        if (bool(l.scale_param as TextMessage | undefined, 'bias_term', false)) blobs.push({ shape: [x[1]!], lo: -0.05, hi: 0.05 });
        break;
      }
      case 'ReLU':
      case 'Dropout':
      case 'Softmax':
      case 'Eltwise':
        break;
      default:
        throw new Error(`${path}: layer ${name}: type ${type} is not in the bench's shape rules`);
    }
    for (const t of tops) shapes.set(t, out);
    layers.push({ name, type, ins, bottoms, tops, out, heavy, blobs });
  }
  return { name: str(message, 'name', path), input, layers };
}

function hashName(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

/** The seeded weights of a layer (same values for the same seed and layer name). */
export function layerWeights(layer: NetLayer, seed: number): Float32Array[] {
  return layer.blobs.map((b, j) => {
    const n = b.shape.reduce((a, c) => a * c, 1);
    if (b.constant !== undefined) return new Float32Array(n).fill(b.constant);
    return randomTensor(n, hashName(`${seed}:${layer.name}:${j}`), b.lo, b.hi);
  });
}

/** The weights as a binary NetParameter (V2 layers with name, type and blobs), for OpenCV. */
export function caffemodelBytes(net: Net, seed: number): Uint8Array {
  const layer = net.layers
    .filter((l) => l.blobs.length > 0)
    .map((l) => ({
      name: l.name,
      type: l.type,
      blobs: layerWeights(l, seed).map((data, j) => ({ shape: { dim: l.blobs[j]!.shape }, data })),
    }));
  return NetParameter.encode({ name: net.name, layer }).finish();
}

/** The prototxt with the input batch set to 1 (the first input_dim, or the first dim of the Input shape). */
export function batchOnePrototxt(text: string): string {
  if (/^\s*input_dim\s*:/m.test(text)) return text.replace(/^(\s*input_dim\s*:\s*)\d+/m, '$11');
  return text.replace(/(input_param\s*\{\s*shape\s*:?\s*\{\s*dim\s*:\s*)\d+/, '$11');
}

/**
 * The layers as the kernel bench runs them: heavy layers, then BatchNorm, Scale and ReLU as
 * in-place channelAffine calls, Eltwise, Concat; Input, Dropout (identity at test time) and
 * Softmax (1,000 values) are left out.
 */
export function benchLayers(net: Net): BenchLayer[] {
  const out: BenchLayer[] = [];
  const count = (s: number[]) => s.reduce((a, b) => a * b, 1);
  for (const l of net.layers) {
    if (l.heavy) {
      out.push(l.heavy);
      continue;
    }
    const x = l.ins[0] ?? [];
    const affine = { batch: 1, channels: x[1] ?? 1, spatial: count(x.slice(2)) };
    if (l.type === 'BatchNorm') out.push({ kind: 'affine', name: l.name, p: affine, scale: true, shift: true });
    else if (l.type === 'Scale') out.push({ kind: 'affine', name: l.name, p: affine, scale: true, shift: l.blobs.length > 1 });
    else if (l.type === 'ReLU') out.push({ kind: 'affine', name: l.name, p: { ...affine, relu: true }, scale: false, shift: false });
    else if (l.type === 'Eltwise') out.push({ kind: 'eltwise', name: l.name, n: count(x) });
    else if (l.type === 'Concat') out.push({ kind: 'concat', name: l.name, parts: l.ins.map(count) });
  }
  return out;
}
