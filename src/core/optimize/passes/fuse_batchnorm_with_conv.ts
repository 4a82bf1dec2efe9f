/**
 * fuse_batchnorm_with_conv (luci FuseBatchNormWithConvPass): CONV_2D / DEPTHWISE_CONV_2D followed
 * by MUL(constant per-channel scale, no fused activation) and ADD(constant per-channel shift),
 * the batch-norm pattern, becomes one conv: filter'[o] = filter[o] * s[o],
 * bias' = bias * s + t; the ADD's fused activation and output tensor go to the conv.
 * Origins: fuse (the new conv = composite_origin({conv, mul, add})).
 */
import { fuse } from '../../origin/rules';
import { Act, Op, isPerChannel, perChannel, type GraphEditor } from '../editor';
import type { Pass } from '../pass';
import { constOperand, convSite, rewriteConv, scaleFilter } from './conv-common';

export const fuseBatchNormWithConv: Pass = {
  name: 'fuse_batchnorm_with_conv',
  originRule: 'fuse',
  description: 'fold a MUL + ADD (batch norm) with constant per-channel operands after a conv into the conv',
  apply(g: GraphEditor) {
    for (let i = 0; i < g.ops.length; i++) {
      const site = convSite(g, i);
      if (!site) continue;
      const rank = g.tensor(site.out).shape.length;
      const mul = g.consumers(site.out)[0]!;
      if (g.code(mul) !== Op.MUL || g.activation(mul) !== Act.NONE) continue;
      const s = constOperand(g, mul, site.out);
      const m = g.ops[mul]!.outputs[0]!;
      if (!s || !isPerChannel(g.tensor(s.t).shape, site.channels, rank)) continue;
      if (!g.isPlainF32(m) || g.isBoundary(m) || g.consumers(m).length !== 1) continue;
      const add = g.consumers(m)[0]!;
      if (g.code(add) !== Op.ADD) continue;
      const t = constOperand(g, add, m);
      const y = g.ops[add]!.outputs[0]!;
      if (!t || !g.isPlainF32(y) || !isPerChannel(g.tensor(t.t).shape, site.channels, rank)) continue;
      const scale = perChannel(s.values, site.channels);
      const shift = perChannel(t.values, site.channels);
      const bias = new Float32Array(site.channels);
      for (let c = 0; c < site.channels; c++) bias[c] = (site.bias ? site.bias[c]! : 0) * scale[c]! + shift[c]!;
      const line = `${g.describe(mul)} and ${g.describe(add)} (batch norm) folded into ${g.describe(i)}`;
      rewriteConv(g, site, scaleFilter(g, site, scale), bias, y, g.activation(add));
      g.setOrigin(i, fuse([g.origins[i], g.origins[mul], g.origins[add]]));
      g.removeOps([mul, add]);
      return line;
    }
    return null;
  },
};
