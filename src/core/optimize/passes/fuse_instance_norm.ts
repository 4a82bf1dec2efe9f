/**
 * fuse_instance_norm (luci FuseInstanceNormPass, the pattern of the Net_InstanceNorm_003 recipe):
 *
 *   mean_of_ifm      = MEAN(ifm, axes [1,2], keep_dims)
 *   sqdiff           = SQUARED_DIFFERENCE(ifm, mean_of_ifm)
 *   mean_as_variance = MEAN(sqdiff, axes [1,2], keep_dims)
 *   add_as_variance  = ADD(mean_as_variance, epsilon)          (constant scalar)
 *   pow              = POW(add_as_variance, 0.5)               (constant scalar)
 *   sub              = SUB(ifm, mean_of_ifm)
 *   div              = DIV(sub, pow)
 *   mul_gamma        = MUL(div, gamma)                         (constant, per channel)
 *   add_as_terminal  = ADD(mul_gamma, beta)                    (constant, per channel)
 *
 * becomes INSTANCE_NORM(ifm, gamma, beta) (circle builtin -2, InstanceNormOptions {epsilon,
 * fused_activation_function of the terminal ADD}) writing the terminal ADD's output tensor.
 * Inner ops must have no fused activation and no readers outside the pattern.
 * Origins: fuse (composite_origin over all nine matched operators, as upstream).
 */
import { fuse } from '../../origin/rules';
import { Act, Op, elements, sameShape, type GraphEditor } from '../editor';
import type { Pass } from '../pass';
import { constOperand } from './conv-common';

function intConst(g: GraphEditor, t: number): number[] | null {
  if (!g.isConst(t)) return null;
  const tensor = g.tensor(t);
  if (tensor.type !== 2) return null; // INT32
  const data = g.model.buffers[tensor.buffer]!.data!;
  const n = elements(tensor.shape);
  if (data.length !== n * 4) return null;
  const dv = new DataView(data.buffer, data.byteOffset, data.byteLength);
  return Array.from({ length: n }, (_, i) => dv.getInt32(i * 4, true));
}

/** MEAN over the spatial axes of a rank-4 NHWC input with keep_dims; returns its input. */
function spatialMean(g: GraphEditor, op: number): number | null {
  if (g.code(op) !== Op.MEAN) return null;
  const o = g.ops[op]!;
  const x = o.inputs[0]!;
  const axes = intConst(g, o.inputs[1] ?? -1);
  if (!axes || g.tensor(x).shape.length !== 4) return null;
  const norm = axes.map((a) => (a < 0 ? a + 4 : a)).sort();
  if (norm.length !== 2 || norm[0] !== 1 || norm[1] !== 2) return null;
  if (o.builtinOptions?.fields['keep_dims'] !== true) return null;
  return x;
}

/** The op producing `t` when it is of `code`, has no fused activation, and only `readers` read `t`. */
function inner(g: GraphEditor, t: number, code: number, readers = 1): number | null {
  const p = g.producer(t);
  if (p < 0 || g.code(p) !== code || g.ops[p]!.outputs.length !== 1) return null;
  if (g.hasActivationField(p) && g.activation(p) !== Act.NONE) return null;
  if (g.isBoundary(t) || g.consumers(t).length !== readers || !g.isPlainF32(t)) return null;
  return p;
}

function scalar(values: Float32Array | undefined, expect?: number): number | null {
  if (!values || values.length !== 1) return null;
  if (expect !== undefined && values[0] !== expect) return null;
  return values[0]!;
}

interface Match {
  ops: number[];
  ifm: number;
  gamma: number;
  beta: number;
  epsilon: number;
}

function match(g: GraphEditor, terminal: number): Match | null {
  if (g.code(terminal) !== Op.ADD) return null;
  const term = g.ops[terminal]!;
  if (term.inputs.length !== 2 || term.outputs.length !== 1) return null;
  // terminal ADD(mul_gamma, beta)
  for (const mg of term.inputs) {
    const mulGamma = inner(g, mg, Op.MUL);
    if (mulGamma === null) continue;
    const beta = constOperand(g, terminal, mg);
    if (!beta) continue;
    const mulOp = g.ops[mulGamma]!;
    for (const d of mulOp.inputs) {
      const div = inner(g, d, Op.DIV);
      if (div === null) continue;
      const gamma = constOperand(g, mulGamma, d);
      if (!gamma) continue;
      const [subT, powT] = g.ops[div]!.inputs as [number, number];
      const sub = inner(g, subT, Op.SUB);
      const pow = inner(g, powT, Op.POW);
      if (sub === null || pow === null) continue;
      const [ifm, meanT] = g.ops[sub]!.inputs as [number, number];
      const meanOfIfm = inner(g, meanT, Op.MEAN, 2);
      if (meanOfIfm === null || spatialMean(g, meanOfIfm) !== ifm || !g.isPlainF32(ifm)) continue;
      const [avT, halfT] = g.ops[pow]!.inputs as [number, number];
      if (scalar(g.constF32(halfT) ?? undefined, 0.5) === null) continue;
      const addVar = inner(g, avT, Op.ADD);
      if (addVar === null) continue;
      const mvT = g.ops[addVar]!.inputs.find((t) => g.producer(t) >= 0 && g.code(g.producer(t)) === Op.MEAN);
      if (mvT === undefined) continue;
      const eps = constOperand(g, addVar, mvT);
      const epsilon = scalar(eps?.values);
      if (epsilon === null) continue;
      const meanVar = inner(g, mvT, Op.MEAN);
      if (meanVar === null) continue;
      const sdT = spatialMean(g, meanVar);
      if (sdT === null) continue;
      const sqdiff = inner(g, sdT, Op.SQUARED_DIFFERENCE);
      if (sqdiff === null) continue;
      const sd = g.ops[sqdiff]!.inputs;
      if (!((sd[0] === ifm && sd[1] === meanT) || (sd[1] === ifm && sd[0] === meanT))) continue;
      const shape = g.tensor(ifm).shape;
      const channels = shape[3]!;
      if (!sameShape(g.tensor(term.outputs[0]!).shape, shape)) continue;
      if (![gamma.values, beta.values].every((v) => v.length === channels || v.length === 1)) continue;
      return { ops: [meanOfIfm, sqdiff, meanVar, addVar, pow, sub, div, mulGamma, terminal], ifm, gamma: gamma.t, beta: beta.t, epsilon };
    }
  }
  return null;
}

export const fuseInstanceNorm: Pass = {
  name: 'fuse_instance_norm',
  originRule: 'fuse',
  description: 'fuse the MEAN / SQUARED_DIFFERENCE / POW / DIV instance-norm pattern into one INSTANCE_NORM',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      const m = match(g, i);
      if (!m) continue;
      const term = g.ops[i]!;
      const line = `${m.ops.length} operators ending at ${g.describe(i)} fused into INSTANCE_NORM`;
      const origin = fuse(m.ops.map((k) => g.origins[k]));
      g.setOp(
        i,
        {
          ...term,
          opcodeIndex: g.opcodeIndex(Op.INSTANCE_NORM),
          inputs: [m.ifm, m.gamma, m.beta],
          outputs: [term.outputs[0]!],
          builtinOptions: { type: 254, name: 'InstanceNormOptions', fields: { epsilon: m.epsilon, fused_activation_function: g.activation(i) } },
          builtinOptions2: null,
        },
        origin,
      );
      g.removeOps(m.ops.filter((k) => k !== i));
      return line;
    }
    return null;
  },
};
