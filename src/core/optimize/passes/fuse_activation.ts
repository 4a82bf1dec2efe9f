/**
 * fuse_activation (luci FuseActivationFunctionPass): RELU, RELU6 or TANH after a CONV_2D,
 * DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL or DIV that has no fused activation yet and
 * whose output only the activation reads becomes that op's fused activation. The producer takes
 * the activation's output tensor (so graph output names stay).
 * Origins: absorb (`add_origin(pred, get_origin(activation))`).
 */
import { absorb } from '../../origin/rules';
import { Act, Op, type GraphEditor } from '../editor';
import type { Pass } from '../pass';

const ACTIVATION_OF: Record<number, number> = { [Op.RELU]: Act.RELU, [Op.RELU6]: Act.RELU6, [Op.TANH]: Act.TANH };
const FUSABLE = new Set<number>([Op.CONV_2D, Op.DEPTHWISE_CONV_2D, Op.FULLY_CONNECTED, Op.ADD, Op.SUB, Op.MUL, Op.DIV]);

export const fuseActivation: Pass = {
  name: 'fuse_activation',
  originRule: 'absorb',
  description: 'fuse RELU/RELU6/TANH into the preceding CONV_2D, DEPTHWISE_CONV_2D, FULLY_CONNECTED, ADD, SUB, MUL or DIV',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      const act = ACTIVATION_OF[g.code(i)];
      if (act === undefined) continue;
      const op = g.ops[i]!;
      const x = op.inputs[0]!;
      const y = op.outputs[0]!;
      if (op.outputs.length !== 1 || x < 0) continue;
      const p = g.producer(x);
      if (p < 0 || !FUSABLE.has(g.code(p))) continue;
      const pred = g.ops[p]!;
      if (pred.outputs.length !== 1 || g.activation(p) !== Act.NONE) continue;
      if (g.consumers(x).length !== 1 || g.isBoundary(x)) continue;
      if (!g.isPlainF32(x) || !g.isPlainF32(y)) continue;
      const line = `${g.describe(i)} fused into ${g.describe(p)}`;
      g.setActivation(p, act);
      g.setOp(p, { ...g.ops[p]!, outputs: [y] }, absorb(g.origins[p]!, g.origins[i]));
      g.removeOps([i]);
      return line;
    }
    return null;
  },
};
