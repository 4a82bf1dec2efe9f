/**
 * fold_constants (luci's Fold* passes for element-wise ops): an element-wise operator whose
 * inputs are all constant is computed once, with the reference interpreter's own kernel (so the
 * folded values are exactly what running the model gives), and its output tensor becomes a
 * constant. Float32 and int32 outputs; the output must have readers and not be a graph output.
 * Origins: absorb into the neighbours: constants carry no origin, so every reader of the folded
 * tensor gains the folded operator's origin (nothing is lost).
 */
import { absorb } from '../../origin/rules';
import { builtinOperatorName } from '../../circle/names';
import { KERNELS } from '../../interp/run';
import { decodeConstant, dtypeOfTensorType, type TensorValue } from '../../interp/tensor';
import { Op, sameShape, type GraphEditor } from '../editor';
import type { Pass } from '../pass';

const FOLDABLE = new Set<number>([Op.ADD, Op.SUB, Op.MUL, Op.DIV, Op.MAXIMUM, Op.MINIMUM, Op.SQUARED_DIFFERENCE, Op.NEG, Op.ABS, Op.SQRT, Op.RSQRT, Op.SQUARE]);

function fold(g: GraphEditor, i: number): TensorValue | null {
  const op = g.ops[i]!;
  if (op.outputs.length !== 1 || op.inputs.length === 0) return null;
  const y = g.tensor(op.outputs[0]!);
  const dtype = dtypeOfTensorType(y.type);
  if ((dtype !== 'float32' && dtype !== 'int32') || (y.quantization && y.quantization.scale.length)) return null;
  const inputs: TensorValue[] = [];
  for (const t of op.inputs) {
    if (!g.isConst(t)) return null;
    const tensor = g.tensor(t);
    if (tensor.quantization && tensor.quantization.scale.length) return null;
    const d = dtypeOfTensorType(tensor.type);
    if (!d) return null;
    try {
      const v = decodeConstant(g.model, tensor, d);
      if (!v) return null;
      inputs.push(v);
    } catch {
      return null;
    }
  }
  const kernel = KERNELS[builtinOperatorName(g.code(i))];
  if (!kernel) return null;
  try {
    const [out] = kernel({
      inputs,
      outputCount: 1,
      outputDTypes: [dtype],
      options: op.builtinOptions?.fields ?? {},
      runSubgraph: () => {
        throw new Error('no subgraphs while folding');
      },
    });
    if (!out || out.dtype !== dtype || !sameShape(out.shape, y.shape)) return null;
    return out;
  } catch {
    return null;
  }
}

export const foldConstants: Pass = {
  name: 'fold_constants',
  originRule: 'absorb into neighbours',
  description: 'compute element-wise operators whose inputs are all constant',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      if (!FOLDABLE.has(g.code(i))) continue;
      const y = g.ops[i]!.outputs[0]!;
      const readers = g.consumers(y);
      if (g.isBoundary(y) || readers.length === 0) continue;
      const value = fold(g, i);
      if (!value) continue;
      const data = value.data as Float32Array | Int32Array;
      const bytes = new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
      const line = `${g.describe(i)} folded to a constant of ${data.length} value(s)`;
      const origin = g.origins[i]!;
      for (const r of readers) g.setOrigin(r, absorb(g.origins[r]!, origin));
      g.sg.tensors[y] = { ...g.tensor(y), buffer: g.addBuffer(bytes) };
      g.removeOps([i]);
      return line;
    }
    return null;
  },
};
