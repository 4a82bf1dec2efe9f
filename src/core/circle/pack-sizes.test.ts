/**
 * `toGraphPack` counts its edges, constant rows and in-node attribute rows before packing
 * (graph.ts `packSizes`) so that those columns are written to exactly their length. Held here:
 * on every model, each such column fills its buffer exactly (a count that drifted from what the
 * packing writes would leave slack or a regrown buffer behind).
 */
import { describe, expect, it } from 'vitest';
import { toGraphPack } from './graph';
import { read } from './read';
import { write } from './write';
import { sampleModel, operator, options } from './testing';
import { resnetLikeCircle } from '../../../test/support/circle-synthetic';
import type { CircleModel } from './model';

function slack(model: CircleModel): { column: string; length: number; capacity: number }[] {
  const out: { column: string; length: number; capacity: number }[] = [];
  for (let s = 0; s < model.subgraphs.length; s++) {
    const p = toGraphPack(model, s);
    const columns = { edgeFrom: p.edgeFrom, edgeTo: p.edgeTo, edgeTensor: p.edgeTensor, edgeName: p.edgeName, edgeLabel: p.edgeLabel, constName: p.constName, constShape: p.constShape, constDtype: p.constDtype, constValue: p.constValue, attrName: p.attrName, attrValue: p.attrValue };
    for (const [column, a] of Object.entries(columns)) {
      if (a.buffer.byteLength !== a.byteLength) out.push({ column: `sg${s}.${column}`, length: a.length, capacity: a.buffer.byteLength / a.BYTES_PER_ELEMENT });
    }
  }
  return out;
}

describe('toGraphPack column sizes', () => {
  it('the sample model: every edge, constant and attribute column is written to exactly its length', () => {
    expect(slack(read(write(sampleModel()), 'x.circle'))).toEqual([]);
  });

  it('a ResNet-like chain of 1,000 operators (shared options, constants, skips)', () => {
    expect(slack(read(write(resnetLikeCircle({ operators: 1000 })), 'x.circle'))).toEqual([]);
  });

  it('tensors read twice by one op, omitted inputs, constant and repeated graph outputs, options of both unions', () => {
    const m = read(write(resnetLikeCircle({ operators: 9 })), 'x.circle');
    const sg = m.subgraphs[0]!;
    const conv = sg.operators[0]!;
    sg.operators.push(operator(0, [sg.operators[8]!.outputs[0]!, sg.operators[8]!.outputs[0]!, -1], [sg.tensors.length - 1], { builtinOptions: options(11, 'AddOptions', { fused_activation_function: 1, pot_scale_int16: false }) }));
    sg.operators.push(operator(1, [conv.inputs[0]!, conv.inputs[1]!, conv.inputs[1]!], [sg.tensors.length - 1], { builtinOptions: conv.builtinOptions, builtinOptions2: options(18, 'DilateOptions', {}) }));
    sg.outputs = [sg.outputs[0]!, sg.outputs[0]!, conv.inputs[1]!, -1];
    expect(slack(m)).toEqual([]);
  });
});
