/**
 * remove_unnecessary_reshape (luci RemoveUnnecessaryReshapePass): a RESHAPE whose output shape
 * equals its input shape (both static) is removed; its readers read the input. When its output
 * is a graph output, the input's producer writes that tensor instead.
 * Origins: absorb into the neighbours, so no origin is lost: the producer of the input gains the
 * RESHAPE's origin, or, when the input is a graph input or constant, every reader of the output.
 */
import { absorb } from '../../origin/rules';
import { Op, sameShape, type GraphEditor } from '../editor';
import type { Pass } from '../pass';

function isStatic(g: GraphEditor, t: number): boolean {
  const s = g.tensor(t).shapeSignature;
  return !s || s.every((d) => d >= 0);
}

export const removeUnnecessaryReshape: Pass = {
  name: 'remove_unnecessary_reshape',
  originRule: 'absorb into neighbours',
  description: 'remove a RESHAPE to the shape its input already has',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      if (g.code(i) !== Op.RESHAPE) continue;
      const op = g.ops[i]!;
      const x = op.inputs[0]!;
      const y = op.outputs[0]!;
      if (x < 0 || op.outputs.length !== 1) continue;
      const tx = g.tensor(x);
      const ty = g.tensor(y);
      if (tx.type !== ty.type || !sameShape(tx.shape, ty.shape) || !isStatic(g, x) || !isStatic(g, y)) continue;
      const p = g.producer(x);
      const readers = g.consumers(y);
      const line = `${g.describe(i)} removed (shape [${ty.shape.join(',')}] unchanged)`;
      if (g.isBoundary(y)) {
        // the producer takes over the graph output tensor
        if (p < 0 || g.isBoundary(x) || g.consumers(x).length !== 1) continue;
        const pred = g.ops[p]!;
        g.setOp(p, { ...pred, outputs: pred.outputs.map((t) => (t === x ? y : t)) }, absorb(g.origins[p]!, g.origins[i]));
        g.removeOps([i]);
        return line;
      }
      if (p < 0 && readers.length === 0) continue;
      const origin = g.origins[i]!;
      if (p >= 0) g.setOrigin(p, absorb(g.origins[p]!, origin));
      else for (const r of readers) g.setOrigin(r, absorb(g.origins[r]!, origin));
      g.rewireConsumers(y, x);
      g.removeOps([i]);
      return line;
    }
    return null;
  },
};
