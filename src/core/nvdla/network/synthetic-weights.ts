/**
 * Deterministic pseudo-random weights for a deploy net: the TypeScript twin of
 * `shared/tools/gen_caffemodel.py` (its docstring is the specification), so tests and benches
 * can compile real-size nets without committing their weights. Same blob shapes (Caffe's layer
 * set-up and reshape rules), same values bit for bit (FNV-1a-64 key per blob, SplitMix64 per
 * element, float32 rounding of `lo + (hi - lo) * u`), and `encodeSyntheticCaffemodel` writes the
 * same bytes as the script.
 *
 * Written by hand: it must reproduce one script's exact arithmetic; 64-bit products are done on
 * 32-bit halves because BigInt per element is too slow for 100M-parameter nets.
 */
import { bool, enumName, has, num, nums, str, strs, sub, subs, type CaffeMessage } from './caffe-input';

type Shape = number[];

export interface SyntheticBlob {
  kind: 'weight' | 'bias' | 'bn_mean' | 'bn_var' | 'bn_factor' | 'scale' | 'prelu';
  shape: Shape;
  data: Float32Array;
}

export interface SyntheticLayer {
  name: string;
  type: string;
  bottom: string[];
  top: string[];
  blobs: SyntheticBlob[];
}

export class SyntheticWeightsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SyntheticWeightsError';
  }
}

// ------------------------------------------------------------------ 64-bit arithmetic on halves

// results of the 64-bit helpers (hi, lo as uint32), kept in module scope so the per-element loop
// allocates nothing
let rh = 0;
let rl = 0;

/** (a * b) mod 2^64 on [hi, lo] uint32 halves -> rh, rl */
function mul64(ah: number, al: number, bh: number, bl: number): void {
  // low 32 x low 32 -> 64 bits via 16-bit limbs
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const p11 = a1 * b1;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  rl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  const carry = p11 + (p01 >>> 16) + (p10 >>> 16) + Math.floor(mid / 0x10000);
  rh = (carry + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** a + b mod 2^64 -> rh, rl */
function add64(ah: number, al: number, bh: number, bl: number): void {
  const lo = (al + bl) >>> 0;
  rh = (ah + bh + (lo < al >>> 0 ? 1 : 0)) >>> 0;
  rl = lo;
}

/** x ^ (x >> s), 0 < s < 32 -> rh, rl */
function xorShift(h: number, l: number, s: number): void {
  rl = (l ^ ((l >>> s) | (h << (32 - s)))) >>> 0;
  rh = (h ^ (h >>> s)) >>> 0;
}

const GOLDEN_H = 0x9e3779b9;
const GOLDEN_L = 0x7f4a7c15;
const MIX1_H = 0xbf58476d;
const MIX1_L = 0x1ce4e5b9;
const MIX2_H = 0x94d049bb;
const MIX2_L = 0x133111eb;

export function fnv1a64(s: string): [number, number] {
  let h = 0xcbf29ce484222325n;
  const mask = (1n << 64n) - 1n;
  for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & mask;
  return [Number(h >> 32n) >>> 0, Number(h & 0xffffffffn) >>> 0];
}

/** `uniform_f32_bytes`: n float32 values uniform in [lo, hi) */
export function uniformFloats(key: [number, number], n: number, lo: number, hi: number): Float32Array {
  const out = new Float32Array(n);
  const span = hi - lo;
  // z_i = key + i * GOLDEN: step by adding GOLDEN each time
  add64(key[0], key[1], GOLDEN_H, GOLDEN_L);
  let zh = rh;
  let zl = rl;
  for (let i = 0; i < n; i++) {
    xorShift(zh, zl, 30);
    mul64(rh, rl, MIX1_H, MIX1_L);
    xorShift(rh, rl, 27);
    mul64(rh, rl, MIX2_H, MIX2_L);
    xorShift(rh, rl, 31);
    // (z >> 11) * 2^-53: a 53-bit integer, exact in a double
    const top = rh * 2 ** 21 + (rl >>> 11);
    out[i] = lo + span * (top * 2 ** -53);
    add64(zh, zl, GOLDEN_H, GOLDEN_L);
    zh = rh;
    zl = rl;
  }
  return out;
}

// ------------------------------------------------------------------ shapes (Caffe's rules)

const prod = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);
const canonAxis = (axis: number, ndim: number): number => (axis < 0 ? axis + ndim : axis);

function rep(vals: number[], idx: number, dflt: number | null): number | null {
  if (vals.length === 0) return dflt;
  return vals.length > 1 ? vals[idx]! : vals[0]!;
}

function convGeometry(p: CaffeMessage | undefined, name: string) {
  const kh = has(p, 'kernel_h') ? num(p, 'kernel_h', 0) : rep(nums(p, 'kernel_size'), 0, null);
  const kw = has(p, 'kernel_w') ? num(p, 'kernel_w', 0) : rep(nums(p, 'kernel_size'), 1, null);
  if (kh === null || kw === null) throw new SyntheticWeightsError(`layer '${name}': convolution without kernel size`);
  const sh = has(p, 'stride_h') ? num(p, 'stride_h', 1) : rep(nums(p, 'stride'), 0, 1)!;
  const sw = has(p, 'stride_w') ? num(p, 'stride_w', 1) : rep(nums(p, 'stride'), 1, 1)!;
  const ph = has(p, 'pad_h') ? num(p, 'pad_h', 0) : rep(nums(p, 'pad'), 0, 0)!;
  const pw = has(p, 'pad_w') ? num(p, 'pad_w', 0) : rep(nums(p, 'pad'), 1, 0)!;
  const dh = rep(nums(p, 'dilation'), 0, 1)!;
  const dw = rep(nums(p, 'dilation'), 1, 1)!;
  return { kh, kw, sh, sw, ph, pw, dh, dw };
}

const floorDiv = (a: number, b: number): number => Math.floor(a / b);

function inferTops(layer: CaffeMessage, bottoms: Shape[]): Shape[] {
  const t = str(layer, 'type');
  const name = str(layer, 'name');
  const b0 = bottoms[0] ?? [];
  if (t === 'Convolution' || t === 'Deconvolution') {
    const p = sub(layer, 'convolution_param');
    const g = convGeometry(p, name);
    const [n, , h, w] = b0 as [number, number, number, number];
    const oh = t === 'Convolution' ? floorDiv(h + 2 * g.ph - (g.dh * (g.kh - 1) + 1), g.sh) + 1 : g.sh * (h - 1) + g.dh * (g.kh - 1) + 1 - 2 * g.ph;
    const ow = t === 'Convolution' ? floorDiv(w + 2 * g.pw - (g.dw * (g.kw - 1) + 1), g.sw) + 1 : g.sw * (w - 1) + g.dw * (g.kw - 1) + 1 - 2 * g.pw;
    return [[n, num(p, 'num_output', 0), oh, ow]];
  }
  if (t === 'Pooling') {
    const p = sub(layer, 'pooling_param');
    const [n, c, h, w] = b0 as [number, number, number, number];
    if (bool(p, 'global_pooling', false)) return [[n, c, 1, 1]];
    const kh = has(p, 'kernel_h') ? num(p, 'kernel_h', 0) : num(p, 'kernel_size', 0);
    const kw = has(p, 'kernel_w') ? num(p, 'kernel_w', 0) : num(p, 'kernel_size', 0);
    const sh = has(p, 'stride_h') ? num(p, 'stride_h', 1) : num(p, 'stride', 1);
    const sw = has(p, 'stride_w') ? num(p, 'stride_w', 1) : num(p, 'stride', 1);
    const ph = has(p, 'pad_h') ? num(p, 'pad_h', 0) : num(p, 'pad', 0);
    const pw = has(p, 'pad_w') ? num(p, 'pad_w', 0) : num(p, 'pad', 0);
    const rnd = enumName(p, 'round_mode', ['CEIL', 'FLOOR'], 'CEIL') === 'CEIL' ? Math.ceil : Math.floor;
    let oh = rnd((h + 2 * ph - kh) / sh) + 1;
    let ow = rnd((w + 2 * pw - kw) / sw) + 1;
    if (ph || pw) {
      if ((oh - 1) * sh >= h + ph) oh--;
      if ((ow - 1) * sw >= w + pw) ow--;
    }
    return [[n, c, oh, ow]];
  }
  if (t === 'InnerProduct') {
    const p = sub(layer, 'inner_product_param');
    const a = canonAxis(num(p, 'axis', 1), b0.length);
    return [[...b0.slice(0, a), num(p, 'num_output', 0)]];
  }
  if (t === 'Concat') {
    const p = sub(layer, 'concat_param');
    const a = has(p, 'concat_dim') ? num(p, 'concat_dim', 1) : canonAxis(num(p, 'axis', 1), b0.length);
    const out = [...b0];
    out[a] = bottoms.reduce((s, b) => s + b[a]!, 0);
    return [out];
  }
  if (t === 'Flatten') {
    const p = sub(layer, 'flatten_param');
    const a = canonAxis(num(p, 'axis', 1), b0.length);
    const e = canonAxis(num(p, 'end_axis', -1), b0.length);
    return [[...b0.slice(0, a), prod(b0.slice(a, e + 1)), ...b0.slice(e + 1)]];
  }
  if (t === 'Reshape') {
    const p = sub(layer, 'reshape_param');
    const s = [...b0];
    const dims = nums(sub(p, 'shape'), 'dim');
    const axis = num(p, 'axis', 0);
    const a = axis < 0 ? canonAxis(axis, s.length + 1) : axis;
    const numAxes = num(p, 'num_axes', -1);
    const end = numAxes === -1 ? s.length : a + numAxes;
    const fresh = dims.map((d, i) => (d === 0 ? s[a + i]! : d));
    const out = [...s.slice(0, a), ...fresh, ...s.slice(end)];
    const k = out.indexOf(-1);
    if (k >= 0) out[k] = Math.floor(prod(s) / prod(out.filter((x) => x !== -1)));
    return [out];
  }
  if (t === 'Slice') {
    const p = sub(layer, 'slice_param');
    const a = has(p, 'slice_dim') ? num(p, 'slice_dim', 1) : canonAxis(num(p, 'axis', 1), b0.length);
    const tops = strs(layer, 'top');
    let pts = nums(p, 'slice_point');
    if (pts.length === 0) pts = Array.from({ length: tops.length - 1 }, (_, i) => Math.floor((b0[a]! * (i + 1)) / tops.length));
    const edges = [0, ...pts, b0[a]!];
    return tops.map((_, i) => [...b0.slice(0, a), edges[i + 1]! - edges[i]!, ...b0.slice(a + 1)]);
  }
  if (t === 'Split') return strs(layer, 'top').map(() => [...b0]);
  if (['ReLU', 'PReLU', 'Sigmoid', 'TanH', 'Softmax', 'Dropout', 'LRN', 'BatchNorm', 'Scale', 'Bias', 'Eltwise', 'Power', 'AbsVal', 'BNLL', 'ELU', 'Exp', 'Log', 'Threshold', 'MVN', 'Clip', 'Swish'].includes(t)) {
    return [[...b0]];
  }
  throw new SyntheticWeightsError(`layer '${name}': type '${t}' is not supported by the weight generator (no shape rule)`);
}

function blobShapes(layer: CaffeMessage, bottoms: Shape[]): [SyntheticBlob['kind'], Shape][] {
  const t = str(layer, 'type');
  const name = str(layer, 'name');
  const b0 = bottoms[0] ?? [];
  if (t === 'Convolution' || t === 'Deconvolution') {
    const p = sub(layer, 'convolution_param');
    const { kh, kw } = convGeometry(p, name);
    const cin = b0[1]!;
    const g = num(p, 'group', 1);
    const nout = num(p, 'num_output', 0);
    if (cin % g || nout % g) throw new SyntheticWeightsError(`layer '${name}': channels ${cin}/${nout} not divisible by group ${g}`);
    const w: Shape = t === 'Convolution' ? [nout, cin / g, kh, kw] : [cin, nout / g, kh, kw];
    const out: [SyntheticBlob['kind'], Shape][] = [['weight', w]];
    if (bool(p, 'bias_term', true)) out.push(['bias', [nout]]);
    return out;
  }
  if (t === 'InnerProduct') {
    const p = sub(layer, 'inner_product_param');
    const a = canonAxis(num(p, 'axis', 1), b0.length);
    const k = prod(b0.slice(a));
    const nout = num(p, 'num_output', 0);
    const out: [SyntheticBlob['kind'], Shape][] = [['weight', bool(p, 'transpose', false) ? [k, nout] : [nout, k]]];
    if (bool(p, 'bias_term', true)) out.push(['bias', [nout]]);
    return out;
  }
  if (t === 'BatchNorm') {
    const c = b0.length > 1 ? b0[1]! : 1;
    return [['bn_mean', [c]], ['bn_var', [c]], ['bn_factor', [1]]];
  }
  if (t === 'Scale') {
    const p = sub(layer, 'scale_param');
    const a = canonAxis(num(p, 'axis', 1), b0.length);
    const numAxes = num(p, 'num_axes', 1);
    const sshape = numAxes === -1 ? b0.slice(a) : b0.slice(a, a + numAxes);
    const out: [SyntheticBlob['kind'], Shape][] = strs(layer, 'bottom').length > 1 ? [] : [['scale', sshape]];
    if (bool(p, 'bias_term', false)) out.push(['bias', sshape]);
    return out;
  }
  if (t === 'Bias') {
    if (strs(layer, 'bottom').length > 1) return [];
    const p = sub(layer, 'bias_param');
    const a = canonAxis(num(p, 'axis', 1), b0.length);
    const numAxes = num(p, 'num_axes', 1);
    return [['bias', numAxes === -1 ? b0.slice(a) : b0.slice(a, a + numAxes)]];
  }
  if (t === 'PReLU') return [['prelu', bool(sub(layer, 'prelu_param'), 'channel_shared', false) ? [1] : [b0[1]!]]];
  return [];
}

function valueRange(kind: SyntheticBlob['kind'], shape: Shape): [number, number] {
  if (kind === 'weight') {
    const fanIn = Math.floor(prod(shape) / shape[0]!);
    const a = Math.sqrt(6.0 / fanIn);
    return [-a, a];
  }
  const ranges: Record<string, [number, number]> = { bias: [-0.05, 0.05], bn_mean: [-0.1, 0.1], bn_var: [0.5, 1.5], scale: [0.5, 1.5], prelu: [0.05, 0.3] };
  return ranges[kind]!;
}

function networkInputs(net: CaffeMessage): [string, Shape][] {
  const ins: [string, Shape][] = [];
  const names = strs(net, 'input');
  const shapes = subs(net, 'input_shape');
  const dims = nums(net, 'input_dim');
  names.forEach((n, i) => ins.push([n, shapes.length ? nums(shapes[i], 'dim') : dims.slice(4 * i, 4 * i + 4)]));
  for (const l of subs(net, 'layer')) {
    if (str(l, 'type') !== 'Input') continue;
    const ps = subs(sub(l, 'input_param'), 'shape');
    strs(l, 'top').forEach((top, i) => ins.push([top, nums(ps.length > 1 ? ps[i] : ps[0], 'dim')]));
  }
  return ins;
}

/**
 * The layers and blobs `gen_caffemodel.py --seed seed` writes for a deploy NetParameter.
 * `fill: 'zeros'` keeps the shapes but leaves values at 0 (moving-average factors stay 1): a
 * fast stand-in where only the structure matters.
 */
export function syntheticLayers(net: CaffeMessage, seed: number, fill: 'random' | 'zeros' = 'random'): SyntheticLayer[] {
  if (subs(net, 'layers').length && !subs(net, 'layer').length) throw new SyntheticWeightsError('V1 `layers` prototxt: upgrade it to V2 `layer` format first');
  const shapes = new Map<string, Shape>(networkInputs(net));
  if (shapes.size === 0) throw new SyntheticWeightsError('no network input found (need `input:`+`input_dim`/`input_shape`, or an Input layer)');
  const out: SyntheticLayer[] = [];
  for (const l of subs(net, 'layer')) {
    if (str(l, 'type') === 'Input') continue;
    const name = str(l, 'name');
    const bottoms = strs(l, 'bottom').map((b) => {
      const s = shapes.get(b);
      if (!s) throw new SyntheticWeightsError(`layer '${name}': bottom '${b}' has no known shape`);
      return s;
    });
    const blobs = blobShapes(l, bottoms);
    const tops = inferTops(l, bottoms);
    strs(l, 'top').forEach((t, i) => {
      if (tops[i]) shapes.set(t, tops[i]!);
    });
    out.push({
      name,
      type: str(l, 'type'),
      bottom: strs(l, 'bottom'),
      top: strs(l, 'top'),
      blobs: blobs.map(([kind, shape], j) => {
        const n = prod(shape);
        if (kind === 'bn_factor') return { kind, shape, data: new Float32Array(n).fill(1) };
        if (fill === 'zeros') return { kind, shape, data: new Float32Array(n) };
        const [lo, hi] = valueRange(kind, shape);
        return { kind, shape, data: uniformFloats(fnv1a64(`${seed}:${name}:${j}`), n, lo, hi) };
      }),
    });
  }
  return out;
}

/** The weights as a NetParameter message (what the NVDLA network builder reads). */
export function syntheticWeights(net: CaffeMessage, seed: number, fill: 'random' | 'zeros' = 'random'): CaffeMessage {
  return {
    ...(has(net, 'name') ? { name: str(net, 'name') } : {}),
    layer: syntheticLayers(net, seed, fill).map((l) => ({ name: l.name, type: l.type, bottom: l.bottom, top: l.top, blobs: l.blobs.map((b) => ({ data: b.data, shape: { dim: b.shape } })) })),
  };
}

// ------------------------------------------------------------------ protobuf bytes, as the script writes them

function varint(n: number, out: number[]): void {
  let v = n;
  while (v >= 0x80) {
    out.push((v % 0x80) | 0x80);
    v = Math.floor(v / 0x80);
  }
  out.push(v);
}

class Writer {
  parts: Uint8Array[] = [];
  length = 0;
  push(b: Uint8Array): void {
    this.parts.push(b);
    this.length += b.length;
  }
  header(field: number, len: number): void {
    const o: number[] = [];
    varint(field * 8 + 2, o);
    varint(len, o);
    this.push(Uint8Array.from(o));
  }
  bytes(): Uint8Array {
    const out = new Uint8Array(this.length);
    let o = 0;
    for (const p of this.parts) {
      out.set(p, o);
      o += p.length;
    }
    return out;
  }
}

function lengthDelimited(field: number, payload: Uint8Array): Uint8Array {
  const w = new Writer();
  w.header(field, payload.length);
  w.push(payload);
  return w.bytes();
}

const utf8 = new TextEncoder();

/** `gen_caffemodel.py` output bytes (canonical protobuf order), for a deploy NetParameter. */
export function encodeSyntheticCaffemodel(net: CaffeMessage, seed: number): Uint8Array {
  const w = new Writer();
  if (has(net, 'name')) w.push(lengthDelimited(1, utf8.encode(str(net, 'name'))));
  for (const l of syntheticLayers(net, seed)) {
    const body = new Writer();
    body.push(lengthDelimited(1, utf8.encode(l.name)));
    body.push(lengthDelimited(2, utf8.encode(l.type)));
    for (const b of l.bottom) body.push(lengthDelimited(3, utf8.encode(b)));
    for (const t of l.top) body.push(lengthDelimited(4, utf8.encode(t)));
    for (const b of l.blobs) {
      const data = new Uint8Array(b.data.buffer, b.data.byteOffset, b.data.byteLength);
      const dims: number[] = [];
      for (const d of b.shape) varint(d, dims);
      const shape = lengthDelimited(1, Uint8Array.from(dims));
      const blob = new Writer();
      blob.push(lengthDelimited(5, data));
      blob.push(lengthDelimited(7, shape));
      body.push(lengthDelimited(7, blob.bytes()));
    }
    w.push(lengthDelimited(100, body.bytes()));
  }
  return w.bytes();
}
