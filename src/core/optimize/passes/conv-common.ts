/**
 * What the conv folding passes share: a float32 CONV_2D or DEPTHWISE_CONV_2D with constant
 * filter (and constant or omitted bias) whose single output only one operator reads.
 */
import { Act, Op, type GraphEditor } from '../editor';

export interface ConvSite {
  conv: number;
  filter: Float32Array;
  bias: Float32Array | null;
  /** output channels (last dimension of the output) */
  channels: number;
  /** the conv's output tensor */
  out: number;
}

export function convSite(g: GraphEditor, i: number): ConvSite | null {
  const code = g.code(i);
  if (code !== Op.CONV_2D && code !== Op.DEPTHWISE_CONV_2D) return null;
  const op = g.ops[i]!;
  if (op.outputs.length !== 1 || g.activation(i) !== Act.NONE) return null;
  const out = op.outputs[0]!;
  if (!g.isPlainF32(out) || g.isBoundary(out) || g.consumers(out).length !== 1) return null;
  const filterT = op.inputs[1] ?? -1;
  const filter = g.constF32(filterT);
  if (!filter) return null;
  const biasT = op.inputs[2] ?? -1;
  const bias = biasT >= 0 ? g.constF32(biasT) : null;
  if (biasT >= 0 && !bias) return null;
  const shape = g.tensor(out).shape;
  const channels = shape[shape.length - 1] ?? 0;
  const filterShape = g.tensor(filterT).shape;
  if (channels <= 0 || filterShape.length !== 4) return null;
  // CONV_2D filter [O, H, W, I]; DEPTHWISE_CONV_2D filter [1, H, W, C * M]
  if ((code === Op.CONV_2D ? filterShape[0] : filterShape[3]) !== channels) return null;
  if (bias && bias.length !== channels) return null;
  return { conv: i, filter, bias, channels, out };
}

/** Filter with output channel `o` multiplied by `scale[o]`, rounded to float32. */
export function scaleFilter(g: GraphEditor, site: ConvSite, scale: Float32Array): Float32Array {
  const out = new Float32Array(site.filter.length);
  const depthwise = g.code(site.conv) === Op.DEPTHWISE_CONV_2D;
  const per = site.filter.length / site.channels;
  for (let k = 0; k < site.filter.length; k++) {
    const o = depthwise ? k % site.channels : Math.floor(k / per);
    out[k] = site.filter[k]! * scale[o]!;
  }
  return out;
}

/**
 * The conv with new filter and bias tensors (fresh constants: the old ones may be shared) and
 * the output tensor of the last fused op.
 */
export function rewriteConv(g: GraphEditor, site: ConvSite, filter: Float32Array | null, bias: Float32Array, out: number, activation: number): void {
  const op = g.ops[site.conv]!;
  const inputs = [...op.inputs];
  const name = g.tensor(out).name;
  if (filter) {
    const old = g.tensor(inputs[1]!);
    inputs[1] = g.addConstF32(g.freshName(`${name}/filter`), old.shape, filter);
  }
  inputs[2] = g.addConstF32(g.freshName(`${name}/bias`), [site.channels], bias);
  g.ops[site.conv] = { ...op, inputs, outputs: [out] };
  g.setActivation(site.conv, activation);
  g.invalidate();
}

/** The constant operand of a binary op whose other operand is `x`: [tensor, values] or null. */
export function constOperand(g: GraphEditor, op: number, x: number): { t: number; values: Float32Array } | null {
  const o = g.ops[op]!;
  if (o.inputs.length !== 2 || o.outputs.length !== 1) return null;
  const [a, b] = o.inputs as [number, number];
  const other = a === x ? b : b === x ? a : -1;
  if (other < 0 || other === x) return null;
  const values = g.constF32(other);
  return values ? { t: other, values } : null;
}
