/**
 * fuse_mul_with_conv (luci FuseMulWithConvPass): CONV_2D / DEPTHWISE_CONV_2D followed by a MUL
 * by a constant per-channel vector (shape [C], [1,..,1,C] or a single value) folds the scale into
 * the weights and bias: filter'[o] = filter[o] * s[o], bias' = bias * s. The MUL's fused
 * activation moves to the conv, which takes the MUL's output tensor.
 * Origins: fuse (the new conv = composite_origin({conv, mul}), as upstream).
 */
import { fuse } from '../../origin/rules';
import { Op, isPerChannel, perChannel, type GraphEditor } from '../editor';
import type { Pass } from '../pass';
import { constOperand, convSite, rewriteConv, scaleFilter } from './conv-common';

export const fuseMulWithConv: Pass = {
  name: 'fuse_mul_with_conv',
  originRule: 'fuse',
  description: 'fold a constant per-channel MUL after CONV_2D / DEPTHWISE_CONV_2D into its filter and bias',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      const site = convSite(g, i);
      if (!site) continue;
      const mul = g.consumers(site.out)[0]!;
      if (g.code(mul) !== Op.MUL) continue;
      const k = constOperand(g, mul, site.out);
      const y = g.ops[mul]!.outputs[0]!;
      if (!k || !g.isPlainF32(y)) continue;
      if (!isPerChannel(g.tensor(k.t).shape, site.channels, g.tensor(site.out).shape.length)) continue;
      const scale = perChannel(k.values, site.channels);
      const bias = new Float32Array(site.channels);
      for (let c = 0; c < site.channels; c++) bias[c] = (site.bias ? site.bias[c]! : 0) * scale[c]!;
      const line = `${g.describe(mul)} folded into the filter and bias of ${g.describe(i)}`;
      rewriteConv(g, site, scaleFilter(g, site, scale), bias, y, g.activation(mul));
      g.setOrigin(i, fuse([g.origins[i], g.origins[mul]]));
      g.removeOps([mul]);
      return line;
    }
    return null;
  },
};
