/**
 * fuse_add_with_conv (luci FuseAddWithConvPass): CONV_2D / DEPTHWISE_CONV_2D followed by an ADD
 * of a constant per-channel vector (shape [C], [1,..,1,C] or a single value) folds the addend
 * into the bias: bias' = bias + addend. The ADD's fused activation moves to the conv, which takes
 * the ADD's output tensor.
 * Origins: fuse (the rewritten conv = composite_origin({conv, add})).
 */
import { fuse } from '../../origin/rules';
import { Op, isPerChannel, perChannel, type GraphEditor } from '../editor';
import type { Pass } from '../pass';
import { constOperand, convSite, rewriteConv } from './conv-common';

export const fuseAddWithConv: Pass = {
  name: 'fuse_add_with_conv',
  originRule: 'fuse',
  description: 'fold a constant per-channel ADD after CONV_2D / DEPTHWISE_CONV_2D into the bias',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      const site = convSite(g, i);
      if (!site) continue;
      const add = g.consumers(site.out)[0]!;
      if (g.code(add) !== Op.ADD) continue;
      const k = constOperand(g, add, site.out);
      const y = g.ops[add]!.outputs[0]!;
      if (!k || !g.isPlainF32(y)) continue;
      const outShape = g.tensor(site.out).shape;
      if (!isPerChannel(g.tensor(k.t).shape, site.channels, outShape.length)) continue;
      const addend = perChannel(k.values, site.channels);
      const bias = new Float32Array(site.channels);
      for (let c = 0; c < site.channels; c++) bias[c] = (site.bias ? site.bias[c]! : 0) + addend[c]!;
      const line = `${g.describe(add)} folded into the bias of ${g.describe(i)}`;
      rewriteConv(g, site, null, bias, y, g.activation(add));
      g.setOrigin(i, fuse([g.origins[i], g.origins[add]]));
      g.removeOps([add]);
      return line;
    }
    return null;
  },
};
