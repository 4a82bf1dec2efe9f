/**
 * Pass `handleLowPrecisionConversions` (INT8 only): each op's requantisation to its output's
 * scale, `Qo = (Qi x Qw + b / (Si Sw)) x (Si Sw / So)`:
 *
 * - CONV: its input converter is the identity (scale 1, truncate 0);
 * - SDP bias, per kernel: `Si x Sw / So` as the output converter's `scale x 2^-truncate`;
 *   per filter: one int16 multiplier per channel (interleaved with the bias later) and one
 *   common truncate on X1;
 * - SDP scale: the scale data rescaled by `Si (x Sw) / So`, then int16 multipliers with one
 *   common truncate;
 * - SDP element-wise: `Si / So` on the output converter.
 */
import { EngineGraphEditor } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import { factorizeScalars, scaleAndShiftFromScalar } from '../low-precision';
import type { EngineNode } from '../model';
import { surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { editCopy, type EnginePass } from './pass';

const f32 = Math.fround;

function sameScales(scales: number[], what: string, node: EngineNode): number {
  for (const s of scales) if (s !== scales[0]) throw new Error(`Channel scales should be same for ${what} of ${node.name} when PER_TENSOR scaling is ON`);
  return scales[0]!;
}

function asFloats(b: { type: string; values: ArrayLike<number> }): number[] {
  return Array.from(b.values as ArrayLike<number>, (v) => f32(v));
}

export const handleLowPrecisionConversionsPass: EnginePass = {
  name: 'handleLowPrecisionConversions',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      if (ctx.profile.computePrecision !== 'INT8') {
        changes.notes.push('nothing to do: not INT8');
        return;
      }
      const ed = new EngineGraphEditor(g);
      const perFilter = ctx.profile.quantizationMode === 'PER_FILTER';
      for (const node of orderedElements(g).nodes) {
        const p = node.params;
        const fused = node.fusedInput ? ed.node(node.fusedInput) : null;
        const fusedConv = fused && fused.params.kind === 'conv' ? fused : null;
        if (p.kind === 'conv') {
          p.conv.inputCVT = { enable: true, scale: 1, offset: 0, truncate: 0 };
          p.conv.outTruncate = 0;
          p.conv.praTruncate = 0;
          continue;
        }
        if (p.kind === 'sdp-bias') {
          const inScales = ed.edge((fusedConv ?? node).inputEdges[0]!).tensor!.channelScales;
          const si = sameScales(inScales, 'input', fusedConv ?? node);
          const so = sameScales(ed.edge(node.outputEdges[0]!).tensor!.channelScales, 'output', node);
          const filterScales = fusedConv && fusedConv.params.kind === 'conv' ? fusedConv.params.conv.filterScales : [];
          if (!perFilter) {
            let rescale = f32(si / so);
            if (fusedConv) {
              for (const s of filterScales) if (s !== filterScales[0]) throw new Error(`Filter scales should be same for ${fusedConv.name} when PER_KERNEL quantization is ON`);
              rescale = f32(rescale * filterScales[0]!);
            }
            const ss = scaleAndShiftFromScalar(rescale);
            p.sdp.outCVT = { enable: true, offset: 0, scale: ss.scale, truncate: ss.shift };
            changes.notes.push(`${node.name}: output requantised by ${ss.scale} x 2^-${ss.shift}`);
          } else {
            const n = p.rawBiasData.count;
            const rescales: number[] = [];
            for (let c = 0; c < n; c++) rescales.push(fusedConv ? f32(f32(si / so) * filterScales[c]!) : f32(si / so));
            const max = rescales.reduce((a, b) => (b > a ? b : a), rescales[0]!);
            const common = scaleAndShiftFromScalar(max);
            const factors = factorizeScalars(rescales, common.shift);
            p.rescaleData = { type: 'INT16', count: n, values: Int16Array.from(factors, (f) => f.scale) };
            p.sdp.x1.isINT8Rescaling = true;
            p.sdp.x1.opType = 'BOTH';
            p.sdp.x1.truncate = common.shift;
            p.sdp.outCVT = { enable: true, offset: 0, scale: 1, truncate: 0 };
            changes.notes.push(`${node.name}: per-channel requantisation, common truncate ${common.shift}`);
          }
          changes.changed.push(node.id);
          continue;
        }
        if (p.kind === 'sdp-scale') {
          const so = sameScales(ed.edge(node.outputEdges[0]!).tensor!.channelScales, 'output', node);
          const raw = asFloats(p.rawScaleData);
          const d = p.scaleDims;
          const out = new Float32Array(raw.length);
          if (fusedConv && fusedConv.params.kind === 'conv') {
            const fs = fusedConv.params.conv.filterScales;
            const si = sameScales(ed.edge(fusedConv.inputEdges[0]!).tensor!.channelScales, 'input', fusedConv);
            if (perFilter && p.sdp.x1.mode === 'PER_LAYER') throw new Error(`Invalid SDP mode: PER_LAYER when PER_FILTER is ON`);
            for (let c = 0; c < d.c; c++)
              for (let h = 0; h < d.h; h++)
                for (let w = 0; w < d.w; w++) {
                  const o = w + d.w * (h + d.h * c);
                  out[o] = f32(f32(f32(raw[o]! * (perFilter ? fs[c]! : fs[0]!)) * si) / so);
                }
          } else {
            const si = sameScales(ed.edge(node.inputEdges[0]!).tensor!.channelScales, 'input', node);
            for (let c = 0; c < d.c; c++)
              for (let h = 0; h < d.h; h++)
                for (let w = 0; w < d.w; w++) {
                  const o = w + d.w * (h + d.h * c);
                  out[o] = f32(f32(raw[o]! * si) / so);
                }
          }
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          if (surfaceFormat(aux.format).precision !== 'INT16') throw new Error(`Unsupported handling of scale data with ${surfaceFormat(aux.format).precision} precision`);
          const values = Array.from(out);
          let max = values[0]!;
          for (const v of values) if (Math.abs(max) < Math.abs(v)) max = v;
          const common = scaleAndShiftFromScalar(max);
          const factors = factorizeScalars(values, common.shift);
          p.rawScaleData = { type: 'INT16', count: values.length, values: Int16Array.from(factors, (f) => f.scale) };
          p.sdp.x1.truncate = common.shift;
          changes.changed.push(node.id);
          changes.notes.push(`${node.name}: scale data rescaled to int16, truncate ${common.shift}`);
          continue;
        }
        if (p.kind === 'sdp-ew') {
          const si = sameScales(ed.edge(node.inputEdges[0]!).tensor!.channelScales, 'input', node);
          const so = sameScales(ed.edge(node.outputEdges[0]!).tensor!.channelScales, 'output', node);
          const ss = scaleAndShiftFromScalar(f32(si / so));
          p.sdp.outCVT = { enable: true, offset: 0, scale: ss.scale, truncate: ss.shift };
          changes.changed.push(node.id);
          continue;
        }
        if (p.kind === 'sdp-bn') throw new Error(`${node.name}: INT8 batch-norm requantisation is not implemented yet`);
      }
      refreshGraphState(g, ctx);
    });
  },
};
