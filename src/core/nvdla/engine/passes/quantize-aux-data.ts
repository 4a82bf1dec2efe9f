/**
 * Pass `quantizeAuxData` (`Graph::quantizeAuxData`, INT8 only): convolution weights become int8
 * with a scale per kernel (per-kernel mode: one scale for all), and bias data becomes int16
 * `b / (Si * Sw[k])` with one common left shift (the bias aux surface is INT16).
 */
import { EngineGraphEditor, upstreamDataNodes } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import { scaleBiasToInt16, scaleMeanToInt16 } from '../low-precision';
import { surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { editCopy, unchanged, type EnginePass } from './pass';
import { quantizeConvWeights } from './pre-process-aux-data';

export const quantizeAuxDataPass: EnginePass = {
  name: 'quantizeAuxData',
  run(input, ctx) {
    if (ctx.profile.computePrecision !== 'INT8') return unchanged(input, 'nothing to do: not INT8');
    return editCopy(input, (g, changes) => {
      const ed = new EngineGraphEditor(g);
      for (const node of orderedElements(g).nodes) {
        if (node.params.kind === 'conv') {
          if (quantizeConvWeights(g, ed, node, ctx)) {
            changes.changed.push(node.id);
            changes.notes.push(`${node.name}: weights quantised to int8 (${ctx.profile.quantizationMode === 'PER_FILTER' ? 'a scale per filter' : 'one scale'})`);
          }
        } else if (node.params.kind === 'sdp-bias') {
          const p = node.params;
          const up = upstreamDataNodes(ed, node)[0];
          const fusedConv = up && up.params.kind === 'conv' ? up : null;
          const inEdge = fusedConv ? ed.edge(fusedConv.inputEdges[0]!) : ed.edge(node.inputEdges[0]!);
          const inScales = inEdge.tensor!.channelScales;
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          const prec = surfaceFormat(aux.format).precision;
          if (prec === 'INT8') throw new Error(`${node.name}: an INT8 bias surface: the bias of an INT8 net is held in INT16, as upstream's (an inconsistent engine graph, a compiler error)`);
          if (prec !== 'INT16') continue;
          if (p.rawBiasData.type !== 'FLOAT') throw new Error(`${node.name}: can't scale bias data which is not FLOAT`);
          const filterScales = fusedConv && fusedConv.params.kind === 'conv' ? fusedConv.params.conv.filterScales : null;
          const r = scaleBiasToInt16(p.rawBiasData.values as Float32Array, inScales[0]!, filterScales);
          p.rawBiasData = { type: 'INT16', count: r.values.length, values: r.values };
          p.sdp.x1.shiftValue = r.shift;
          changes.changed.push(node.id);
          changes.notes.push(`${node.name}: bias scaled to int16 (left shift ${r.shift})`);
        } else if (node.params.kind === 'sdp-bn') {
          // SDPBatchNormOpNode::quantizeAuxData: the mean as int16 of m / (Si (* Sw)), with a left shift
          const p = node.params;
          const up = upstreamDataNodes(ed, node)[0];
          const fusedConv = up && up.params.kind === 'conv' ? up : null;
          const inScales = ed.edge((fusedConv ?? node).inputEdges[0]!).tensor!.channelScales;
          for (const s of inScales) if (s !== inScales[0]) throw new Error(`Channel scales should be same for input of ${(fusedConv ?? node).name} when PER_TENSOR scaling is ON`);
          const filterScales = fusedConv && fusedConv.params.kind === 'conv' ? fusedConv.params.conv.filterScales : null;
          if (filterScales && ctx.profile.quantizationMode === 'PER_KERNEL') {
            for (const s of filterScales) if (s !== filterScales[0]) throw new Error(`Filter scales should be same for ${fusedConv!.name} when PER_KERNEL quantization is ON`);
          }
          const aux = surfaceById(g, ed.edge(node.auxEdges[0]!).surface!);
          const prec = surfaceFormat(aux.format).precision;
          if (prec !== 'INT16') throw new Error(`${node.name}: Don't support precision: ${prec}`);
          if (p.rawMeanData.type !== 'FLOAT') throw new Error(`Can't scale mean data which is not FLOAT / HALF precision for ${node.name}`);
          const r = scaleMeanToInt16(p.rawMeanData.values as Float32Array, p.rawMeanData.count, inScales[0]!, filterScales);
          p.rawMeanData = { type: 'INT16', count: r.values.length, values: r.values };
          p.sdp.x1.shiftValue = r.shift;
          changes.changed.push(node.id);
          changes.notes.push(`${node.name}: mean scaled to int16 (left shift ${r.shift})`);
        }
      }
      refreshGraphState(g, ctx);
    });
  },
};
