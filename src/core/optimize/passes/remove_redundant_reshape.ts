/**
 * remove_redundant_reshape (luci RemoveRedundantReshapePass): RESHAPE(RESHAPE(x)) reads x
 * directly; the inner RESHAPE goes when nothing else reads its output.
 * Origins: absorb (the outer RESHAPE gains the inner one's origin).
 */
import { absorb } from '../../origin/rules';
import { Op, type GraphEditor } from '../editor';
import type { Pass } from '../pass';

export const removeRedundantReshape: Pass = {
  name: 'remove_redundant_reshape',
  originRule: 'absorb',
  description: 'a RESHAPE of a RESHAPE reads the first input directly',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      if (g.code(i) !== Op.RESHAPE) continue;
      const op = g.ops[i]!;
      const t = op.inputs[0]!;
      const p = g.producer(t);
      if (p < 0 || g.code(p) !== Op.RESHAPE) continue;
      const x = g.ops[p]!.inputs[0]!;
      const line = `${g.describe(p)} bypassed by ${g.describe(i)}`;
      g.setOp(i, { ...op, inputs: [x, ...op.inputs.slice(1)] }, absorb(g.origins[i]!, g.origins[p]));
      if (g.consumers(t).length === 0 && !g.isBoundary(t)) {
        g.removeOps([p]);
        return `${line} and removed`;
      }
      return line;
    }
    return null;
  },
};
