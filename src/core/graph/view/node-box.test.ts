import { describe, expect, it } from 'vitest';
import { decodeStrings, packGraph } from '../pack';
import type { Graph, GraphNode } from '../model';
import { BOX, nodeBoxes, RowKind, type DisplayOptions } from './node-box';
import { CHAIN_ROW_HEIGHT, FontMeasure, fittedText, FIT_ALL } from './labels';
import { hitTestRow } from './hit-test';

const m = { title: FontMeasure.fixed(7), subtitle: FontMeasure.fixed(5), row: FontMeasure.fixed(5), rowBold: FontMeasure.fixed(6) };

function conv(extra: Partial<GraphNode> = {}): GraphNode {
  return {
    id: 'op:0', kind: 'op', type: 'CONV_2D', name: 'block0/conv', category: 'Layer', index: 0, inputs: [], outputs: [],
    attributes: [
      { name: 'padding', value: 'VALID', type: 'enum', inNode: true },
      { name: 'dilation_w_factor', value: '1', type: 'int' },
      { name: 'fused_activation_function', value: 'RELU6_AND_A_VERY_LONG_TAIL', type: 'enum', inNode: true },
    ],
    constants: [
      { name: 'filter', shape: [8, 1, 1, 8], dtype: 'float32' },
      { name: 'bias', shape: [8], dtype: 'float32' },
      { name: 'axis', shape: [], dtype: 'int32', value: '3' },
    ],
    ...extra,
  };
}

function boxesOf(nodes: GraphNode[], display: DisplayOptions) {
  const g: Graph = { id: 'g', name: 'g', nodes, edges: [], stats: { nodes: nodes.length, edges: 0 } };
  const p = packGraph(g);
  const s = decodeStrings(p.strings);
  const b = nodeBoxes(p, s, display, m);
  const rows = (i: number) => {
    const out: { kind: number; text: string; tip: string }[] = [];
    for (let q = b.rowStart[i]!; q < b.rowStart[i + 1]!; q++) {
      const bold = b.rowBold[q]! >= 0 ? b.texts[b.rowBold[q]!]! : '';
      out.push({ kind: b.rowKind[q]!, text: bold + fittedText(b.texts[b.rowText[q]!]!, b.rowFit[q]!), tip: b.texts[b.rowTip[q]!]! });
    }
    return out;
  };
  return { b, rows, s };
}

describe('node boxes', () => {
  it('rows as Netron writes them: constants with their shape, scalars with their value, in-node attributes cut at 14 characters', () => {
    const { b, rows } = boxesOf([conv()], { attributes: true, weights: true, names: true });
    const r = rows(0);
    expect(r.slice(0, 4)).toEqual([
      { kind: RowKind.Constant, text: 'filter \u27e88\u00d71\u00d71\u00d78\u27e9', tip: 'filter: float32[8,1,1,8]' },
      { kind: RowKind.Constant, text: 'bias \u27e88\u27e9', tip: 'bias: float32[8]' },
      { kind: RowKind.Attribute, text: 'axis = 3', tip: 'axis: int32 = 3' },
      { kind: RowKind.Attribute, text: 'padding = VALID', tip: 'padding = VALID' },
    ]);
    // the value is cut at 14 characters, then the row is fitted to the widest box with an ellipsis; the tip has it whole
    expect(r[4]!.tip).toBe('fused_activation_function = RELU6_AND_A_VERY_LONG_TAIL');
    expect(r[4]!.text.startsWith('fused_activation_function = RELU')).toBe(true);
    expect(r[4]!.text.endsWith('\u2026')).toBe(true);
    expect(r[4]!.text.length * 5).toBeLessThanOrEqual(BOX.maxW - 2 * BOX.rowPadX);
    // header with the name line, then five rows
    expect(b.header[0]).toBe(BOX.titleNameH);
    expect(b.heights[0]).toBe(BOX.titleNameH + 2 * BOX.bodyPad + 5 * BOX.rowH);
    expect(b.widths[0]).toBeLessThanOrEqual(BOX.maxW);
  });

  it('each toggle takes its part out and the box shrinks; no rows and no name leaves the title alone', () => {
    const all = boxesOf([conv()], { attributes: true, weights: true, names: true }).b;
    const noAttrs = boxesOf([conv()], { attributes: false, weights: true, names: true });
    expect(noAttrs.rows(0).map((r) => r.text)).toEqual(['filter \u27e88\u00d71\u00d71\u00d78\u27e9', 'bias \u27e88\u27e9', 'axis = 3']);
    expect(noAttrs.b.heights[0]).toBeLessThan(all.heights[0]!);
    const noWeights = boxesOf([conv()], { attributes: true, weights: false, names: true });
    expect(noWeights.rows(0).map((r) => r.kind)).toEqual([RowKind.Attribute, RowKind.Attribute]);
    const bare = boxesOf([conv()], { attributes: false, weights: false, names: false }).b;
    expect([bare.heights[0], bare.header[0], bare.subRef[0], bare.rowStart[1]]).toEqual([BOX.titleH, BOX.titleH, -1, 0]);
    expect(bare.widths[0]).toBe(Math.max(BOX.minW, 'CONV_2D'.length * 7 + 2 * 8));
  });

  it('past 12 rows the last one says how many more; the hit test finds each row', () => {
    const constants = Array.from({ length: 20 }, (_, k) => ({ name: `w${k}`, shape: [k + 1], dtype: 'int8' }));
    const { b, rows } = boxesOf([conv({ constants, attributes: [] })], { attributes: true, weights: true, names: false });
    const r = rows(0);
    expect(r.length).toBe(BOX.maxRows);
    expect(r.at(-1)).toEqual({ kind: RowKind.More, text: '\u2026 9 more', tip: '\u2026 9 more' });
    const layout = { x: Float64Array.of(100), y: Float64Array.of(100), w: Float64Array.of(b.widths[0]!), h: Float64Array.of(b.heights[0]!) };
    const top = 100 - b.heights[0]! / 2 + b.header[0]! + BOX.bodyPad;
    const found = r.map((_, q) => hitTestRow(b, layout, 0, 100, top + (q + 0.5) * BOX.rowH));
    expect(found).toEqual(r.map((_, q) => b.rowStart[0]! + q));
    expect(hitTestRow(b, layout, 0, 100, top - 5)).toBe(-1); // the header
    expect(hitTestRow(b, layout, 0, 100 + b.widths[0]!, top + 2)).toBe(-1); // beside the box
  });

  it("chained layers (Caffe's in-place layers) are bands at the foot, one per layer, under the rows", () => {
    const chained = conv({ chain: [{ type: 'ReLU', name: 'relu1', category: 'Activation' }, { type: 'A_VERY_LONG_LAYER_TYPE_THAT_DOES_NOT_FIT_IN_ANY_BOX', name: 'x', category: 'Normalization' }] });
    const plain = boxesOf([conv()], { attributes: false, weights: true, names: true }).b;
    const { b } = boxesOf([chained], { attributes: false, weights: true, names: true });
    expect(b.heights[0]! - plain.heights[0]!).toBe(2 * CHAIN_ROW_HEIGHT);
    expect([b.chainStart[0], b.chainStart[1]]).toEqual([0, 2]);
    expect(b.texts[b.chainText[0]!]).toBe('ReLU');
    expect(b.chainFit[0]).toBe(FIT_ALL);
    // too long for the widest box: fitted with an ellipsis, the box no wider than the maximum
    expect(b.widths[0]).toBe(BOX.maxW);
    expect(fittedText(b.texts[b.chainText[1]!]!, b.chainFit[1]!).endsWith('\u2026')).toBe(true);
    // the rows keep their place below the header
    expect(b.rowStart[1]! - b.rowStart[0]!).toBe(3);
    expect(b.header[0]).toBe(plain.header[0]);
  });

  it('graph inputs and outputs are pills named by their tensor; long text is fitted with an ellipsis', () => {
    const input: GraphNode = { id: 'in:0', kind: 'input', type: 'Input', name: 'x'.repeat(100), category: 'Input', index: 0, inputs: [], outputs: [], attributes: [] };
    const { b, s } = boxesOf([input, conv({ type: 'A_VERY_LONG_CUSTOM_OPERATOR_TYPE_NAME_THAT_GOES_ON' })], { attributes: false, weights: false, names: true });
    expect(b.marker[0]).toBe(1);
    expect(b.heights[0]).toBe(BOX.markerH);
    expect(b.widths[0]).toBe(BOX.markerMaxW);
    expect(s[b.titleRef[0]!]).toBe('x'.repeat(100));
    expect(b.titleFit[0]).not.toBe(FIT_ALL);
    expect(fittedText(s[b.titleRef[0]!]!, b.titleFit[0]!).endsWith('\u2026')).toBe(true);
    expect(b.widths[1]).toBe(BOX.maxW);
    expect(fittedText(s[b.titleRef[1]!]!, b.titleFit[1]!).length * 7).toBeLessThanOrEqual(BOX.maxW);
  });
});
