/**
 * `toGraphPack` counts its edges, constant rows and in-node attribute rows before packing
 * (graph.ts `packSizes`) and sizes those columns with the counts. Held here: on every model the
 * counts are what the packing writes (a count that drifted would cost a regrown or trimmed column).
 */
import { describe, expect, it } from 'vitest';
import { bufferHasData, packSizes, toGraphPack } from './graph';
import { read } from './read';
import { write } from './write';
import { sampleModel, operator, options } from './testing';
import { resnetLikeCircle } from '../../../test/support/circle-synthetic';
import type { CircleModel } from './model';

/** per subgraph: the counts and the lengths of the columns written, where they differ */
function mismatches(model: CircleModel): unknown[] {
  const out: unknown[] = [];
  for (let s = 0; s < model.subgraphs.length; s++) {
    const sg = model.subgraphs[s]!;
    const isConstant = new Uint8Array(sg.tensors.length);
    sg.tensors.forEach((t, i) => {
      if (!sg.inputs.includes(i) && bufferHasData(model.buffers[t.buffer])) isConstant[i] = 1;
    });
    const counted = packSizes(sg, isConstant);
    const p = toGraphPack(model, s);
    const written = { edges: p.edgeFrom.length, constants: p.constName.length, attributes: p.attrName.length };
    if (JSON.stringify(counted) !== JSON.stringify(written)) out.push({ subgraph: s, counted, written });
  }
  return out;
}

describe('toGraphPack column sizes', () => {
  it('the sample model', () => {
    expect(mismatches(read(write(sampleModel()), 'x.circle'))).toEqual([]);
  });

  it('a ResNet-like chain of 1,000 operators (shared options, constants, skips)', () => {
    const m = read(write(resnetLikeCircle({ operators: 1000 })), 'x.circle');
    expect(mismatches(m)).toEqual([]);
    // the counts are not trivially zero
    const p = toGraphPack(m, 0);
    expect([p.edgeFrom.length > 1000, p.constName.length > 600, p.attrName.length > 600]).toEqual([true, true, true]);
  });

  it('tensors read twice by one op, omitted inputs, constant and repeated graph outputs, options of both unions', () => {
    const m = read(write(resnetLikeCircle({ operators: 9 })), 'x.circle');
    const sg = m.subgraphs[0]!;
    const conv = sg.operators[0]!;
    const last = sg.operators[8]!.outputs[0]!;
    sg.operators.push(operator(0, [last, last, -1], [sg.tensors.length - 1], { builtinOptions: options(11, 'AddOptions', { fused_activation_function: 1, pot_scale_int16: false }) }));
    sg.operators.push(operator(1, [conv.inputs[0]!, conv.inputs[1]!, conv.inputs[1]!], [sg.tensors.length - 1], { builtinOptions: conv.builtinOptions, builtinOptions2: options(18, 'DilateOptions', {}) }));
    sg.outputs = [sg.outputs[0]!, sg.outputs[0]!, conv.inputs[1]!, -1];
    expect(mismatches(m)).toEqual([]);
  });
});
