/**
 * Pass `quantizeAuxData` (`Graph::quantizeAuxData`, INT8 only): convolution weights become int8
 * with a scale per kernel (per-kernel mode: one scale for all), and bias data becomes int16
 * `b / (Si * Sw[k])` with one common left shift (the bias aux surface is INT16).
 */
import { EngineGraphEditor, upstreamDataNodes } from '../graph';
import { orderedElements, refreshGraphState } from '../graph-state';
import { scaleBiasToInt16 } from '../low-precision';
import { surfaceById } from '../surfaces';
import { surfaceFormat } from '../../surface';
import { editCopy, type EnginePass } from './pass';
import { quantizeConvWeights } from './pre-process-aux-data';

export const quantizeAuxDataPass: EnginePass = {
  name: 'quantizeAuxData',
  run(input, ctx) {
    return editCopy(input, (g, changes) => {
      if (ctx.profile.computePrecision !== 'INT8') {
        changes.notes.push('nothing to do: not INT8');
        return;
      }
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
          if (prec === 'INT8') throw new Error(`${node.name}: int8 bias data is not implemented (upstream's bias aux surface is INT16 for INT8)`);
          if (prec !== 'INT16') continue;
          if (p.rawBiasData.type !== 'FLOAT') throw new Error(`${node.name}: can't scale bias data which is not FLOAT`);
          const filterScales = fusedConv && fusedConv.params.kind === 'conv' ? fusedConv.params.conv.filterScales : null;
          const r = scaleBiasToInt16(p.rawBiasData.values as Float32Array, inScales[0]!, filterScales);
          p.rawBiasData = { type: 'INT16', count: r.values.length, values: r.values };
          p.sdp.x1.shiftValue = r.shift;
          changes.changed.push(node.id);
          changes.notes.push(`${node.name}: bias scaled to int16 (left shift ${r.shift})`);
        } else if (node.params.kind === 'sdp-bn') {
          throw new Error(`${node.name}: INT8 batch-norm quantisation is not implemented yet`);
        }
      }
      refreshGraphState(g, ctx);
    });
  },
};
