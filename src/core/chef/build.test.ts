import { describe, expect, it } from 'vitest';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildFromRecipe, cookRecipe, OPS, CUSTOM_TYPES, CHEF_DESCRIPTION } from './index';
import { tflchefRoot } from './schema';
import { FormatError, type ErrorInfo } from '../errors';
import type { CircleModel, CircleSubGraph } from '../circle/model';
import { BuiltinOperator } from '../circle/generated/circle/builtin-operator';
import { BuiltinOptions } from '../circle/generated/circle/builtin-options';
import { TensorType } from '../circle/generated/circle/tensor-type';

const RECIPES = join(__dirname, '../../../test/fixtures/one/recipes');
const recipeNames = readdirSync(RECIPES).sort();
const load = (name: string) => readFileSync(join(RECIPES, name, 'test.recipe'), 'utf8');
const build = (name: string) => buildFromRecipe(load(name), `${name}/test.recipe`);

function opNames(m: CircleModel, sg = 0): string[] {
  return m.subgraphs[sg]!.operators.map((o) => BuiltinOperator[m.operatorCodes[o.opcodeIndex]!.code]!);
}
function tensor(g: CircleSubGraph, name: string) {
  const t = g.tensors.find((x) => x.name === name);
  if (!t) throw new Error(`no tensor ${name}`);
  return t;
}
function floats(m: CircleModel, buffer: number): number[] {
  const d = m.buffers[buffer]!.data!;
  return Array.from(new Float32Array(d.buffer.slice(d.byteOffset, d.byteOffset + d.byteLength)));
}
function sameBytes(a: Uint8Array | null, b: Uint8Array | null): boolean {
  if (a === null || b === null) return a === b;
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
function errorOf(text: string): ErrorInfo {
  try {
    buildFromRecipe(text, 'r.recipe');
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    return (e as FormatError).info;
  }
  throw new Error('expected an error');
}

/** Expected per recipe: operators per subgraph (BuiltinOperator names), subgraph count. */
const EXPECTED: Record<string, string[][]> = {
  Net_InstanceNorm_003: [['MEAN', 'SQUARED_DIFFERENCE', 'MEAN', 'ADD', 'POW', 'SUB', 'DIV', 'MUL', 'ADD']],
  Net_UnpackAdd_001: [['UNPACK', 'ADD']],
  Part_Add_Sqrt_000: [['ADD', 'SQRT', 'SQRT']],
  Part_Add_Sqrt_Rsqrt_000: [['ADD', 'SQRT', 'SQRT', 'RSQRT', 'RSQRT']],
  Part_Add_Sub_000: [['ADD', 'ADD', 'SUB']],
  Part_Add_Sub_001: [['ADD', 'ADD', 'SUB']],
  Part_Add_Sub_002: [['ADD', 'ADD', 'SUB']],
  Part_CumSum_Add_000: [['CUMSUM', 'ADD']],
  Part_If_Add_Sub_001: [['ADD', 'SUB', 'IF'], ['ADD'], ['MUL'], ['ADD'], ['IF']],
  Part_Mul_Sqrt_FC_nobias_000: [['MUL', 'SQRT', 'FULLY_CONNECTED']],
  Part_Split_Add_000: [['SPLIT', 'ADD']],
  Part_Sqrt_Rsqrt_000: [['SQRT', 'RSQRT']],
  Part_Sqrt_Rsqrt_001: [['SQRT', 'SQRT', 'RSQRT', 'RSQRT']],
  Part_Sqrt_Rsqrt_002: [['SQRT', 'RSQRT', 'SQRT', 'RSQRT']],
  Part_Sqrt_Rsqrt_003: [['SQRT', 'RSQRT', 'RSQRT', 'SQRT']],
  Part_Sqrt_Rsqrt_Add_000: [['RSQRT', 'SQRT', 'RSQRT', 'ADD']],
  Part_Sqrt_Rsqrt_Add_001: [['RSQRT', 'SQRT', 'RSQRT', 'RSQRT', 'ADD']],
  Part_Sqrt_Rsqrt_Add_002: [['RSQRT', 'SQRT', 'RSQRT', 'RSQRT', 'RSQRT', 'ADD']],
  Part_Sqrt_Rsqrt_Add_003: [['RSQRT', 'SQRT', 'ADD']],
  Part_Sqrt_Rsqrt_Add_004: [['RSQRT', 'SQRT', 'ADD']],
  Part_Tanh_FC_nobias: [['TANH', 'FULLY_CONNECTED']],
  Part_While_000: [['MINIMUM', 'MAXIMUM', 'WHILE'], ['LESS'], ['ADD']],
  Part_While_001: [['MINIMUM', 'MAXIMUM', 'WHILE'], ['LESS'], ['ADD'], ['LESS'], ['ADD', 'WHILE']],
  SignatureDef_MultiOut_000: [['ADD', 'MUL', 'SUB']],
  SignatureDef_MultiOut_001: [['ADD', 'MUL', 'SUB']],
};

describe('buildFromRecipe: every fixture recipe', () => {
  it('covers all 25 recipes', () => {
    expect(recipeNames).toEqual(Object.keys(EXPECTED).sort());
  });

  for (const name of recipeNames) {
    it(`builds ${name}`, () => {
      const m = build(name);
      const expected = EXPECTED[name]!;
      expect(m.subgraphs.length).toBe(expected.length);
      expected.forEach((ops, i) => expect(opNames(m, i)).toEqual(ops));
      expect(m.identifier).toBe('CIR0');
      expect(m.version).toBe(3);
      expect(m.description).toBe(CHEF_DESCRIPTION);
      // buffers[0] is the empty sentinel; every tensor has its own non-zero buffer
      expect(m.buffers[0]).toEqual({ data: null, offset: 0, size: 0 });
      const used = m.subgraphs.flatMap((g) => g.tensors.map((t) => t.buffer));
      expect(used.filter((b) => !(b > 0 && b < m.buffers.length))).toEqual([]);
      expect(new Set(used).size).toBe(used.length);
      // op codes: sorted builtin codes, unique, both fields written
      const codes = m.operatorCodes.map((c) => c.code);
      expect(codes).toEqual([...new Set(codes)].sort((a, b) => a - b));
      for (const c of m.operatorCodes) {
        expect(c.builtinCode).toBe(c.code);
        expect(c.deprecatedBuiltinCode).toBe(c.code < 127 ? c.code : 127);
      }
      // every operator input/output is a tensor of its subgraph (or -1)
      for (const g of m.subgraphs) {
        for (const op of g.operators) {
          for (const t of [...op.inputs, ...op.outputs]) expect(t === -1 || (t >= 0 && t < g.tensors.length)).toBe(true);
        }
      }
      // deterministic (typed arrays compared by hand: toEqual is slow on 26 MB of weights)
      const again = build(name);
      expect(again.buffers.length).toBe(m.buffers.length);
      again.buffers.forEach((b, i) => expect(sameBytes(b.data, m.buffers[i]!.data), `buffer ${i}`).toBe(true));
      expect({ ...again, buffers: [] }).toEqual({ ...m, buffers: [] });
    });
  }
});

describe('buildFromRecipe: recipe semantics', () => {
  it('Part_Add_Sub_000: tensors, io, options, buffers laid out as circlechef', () => {
    const m = build('Part_Add_Sub_000');
    const g = m.subgraphs[0]!;
    expect(g.name).toBe('main');
    expect(g.tensors.map((t) => t.name)).toEqual(['ifm1', 'ifm2', 'ifm3', 'ifm4', 'add1', 'add2', 'ofm']);
    expect(g.tensors.filter((t) => t.type !== TensorType.FLOAT32 || t.shape.join() !== '1,3,3,2').map((t) => `${t.name}: ${t.type} [${t.shape.join()}]`)).toEqual([]);
    expect(g.inputs).toEqual([0, 1, 2, 3]);
    expect(g.outputs).toEqual([6]);
    // 4 inputs -> buffers 1..4, output -> 5, then add1 -> 6, add2 -> 7
    expect(g.tensors.map((t) => t.buffer)).toEqual([1, 2, 3, 4, 6, 7, 5]);
    expect(m.buffers).toHaveLength(8);
    expect(m.buffers.filter((b) => b.data !== null)).toEqual([]);
    expect(g.operators[0]).toMatchObject({
      opcodeIndex: 0,
      inputs: [0, 1],
      outputs: [4],
      builtinOptions: { type: BuiltinOptions.AddOptions, name: 'AddOptions', fields: { fused_activation_function: 0 } },
    });
    expect(g.operators[2]!.builtinOptions).toEqual({ type: BuiltinOptions.SubOptions, name: 'SubOptions', fields: { fused_activation_function: 0 } });
    expect(m.operatorCodes.map((c) => [c.code, c.version, c.customCode])).toEqual([
      [BuiltinOperator.ADD, 1, null],
      [BuiltinOperator.SUB, 1, null],
    ]);
  });

  it('Net_InstanceNorm_003: explicit fillers, Mean keep_dims, activation RELU', () => {
    const m = build('Net_InstanceNorm_003');
    const g = m.subgraphs[0]!;
    const beta = tensor(g, 'Beta');
    expect(floats(m, beta.buffer)).toEqual([1.9714, 1.4517, 1.20315, 0.287979, 0.161815, -0.281398, 2.70276, -0.166962, 0.266389, 0.890943, -0.279833, 1.82808].map(Math.fround));
    const eps = tensor(g, 'Epsilon');
    expect(eps.shape).toEqual([]);
    expect(floats(m, eps.buffer)).toEqual([Math.fround(0.001)]);
    const idx = tensor(g, 'Reduction_indices');
    expect(idx.type).toBe(TensorType.INT32);
    expect(Array.from(new Int32Array(m.buffers[idx.buffer]!.data!.slice().buffer))).toEqual([1, 2]);
    expect(g.operators[0]!.builtinOptions).toEqual({ type: BuiltinOptions.ReducerOptions, name: 'ReducerOptions', fields: { keep_dims: true } });
    expect(g.operators[8]!.builtinOptions!.fields).toEqual({ fused_activation_function: 1 });
    expect(g.operators[1]!.builtinOptions!.name).toBe('SquaredDifferenceOptions');
    expect(g.operators[4]!.builtinOptions!.name).toBe('PowOptions');
  });

  it('Part_Mul_Sqrt_FC_nobias_000: omitted bias is -1, FullyConnected options, gaussian weights', () => {
    const m = build('Part_Mul_Sqrt_FC_nobias_000');
    const g = m.subgraphs[0]!;
    const fc = g.operators[2]!;
    expect(fc.inputs).toEqual([2, 3, -1]);
    expect(fc.builtinOptions).toEqual({
      type: BuiltinOptions.FullyConnectedOptions,
      name: 'FullyConnectedOptions',
      fields: { fused_activation_function: 0, keep_num_dims: false, weights_format: 0 },
    });
    expect(g.operators[1]!.builtinOptions).toBeNull(); // Sqrt has no options table
    const w = floats(m, tensor(g, 'weight').buffer);
    expect(w).toHaveLength(16);
    const mean = w.reduce((a, b) => a + b, 0) / w.length;
    expect(Math.abs(mean)).toBeLessThan(1.5);
    expect(new Set(w).size).toBe(16);
  });

  it('Part_Tanh_FC_nobias: big gaussian weight has the right size and spread', () => {
    const m = build('Part_Tanh_FC_nobias');
    const w = floats(m, tensor(m.subgraphs[0]!, 'weight').buffer);
    expect(w).toHaveLength(4362 * 1536);
    const n = w.length;
    const mean = w.reduce((a, b) => a + b, 0) / n;
    const sd = Math.sqrt(w.reduce((a, b) => a + (b - mean) ** 2, 0) / n);
    expect(Math.abs(mean)).toBeLessThan(0.01);
    expect(Math.abs(sd - 1)).toBeLessThan(0.01);
  });

  it('Part_Split_Add_000 and Net_UnpackAdd_001: Split num_splits, Unpack num/axis', () => {
    const s = build('Part_Split_Add_000');
    expect(s.subgraphs[0]!.operators[0]).toMatchObject({ inputs: [1, 0], outputs: [2, 3], builtinOptions: { name: 'SplitOptions', fields: { num_splits: 2 } } });
    expect(floats(s, tensor(s.subgraphs[0]!, 'split_dim').buffer)).toHaveLength(1);
    const u = build('Net_UnpackAdd_001');
    expect(u.subgraphs[0]!.operators[0]).toMatchObject({ outputs: [1, 2], builtinOptions: { name: 'UnpackOptions', fields: { num: 2, axis: 0 } } });
  });

  it('Part_CumSum_Add_000: CumSum exclusive/reverse', () => {
    const m = build('Part_CumSum_Add_000');
    expect(m.subgraphs[0]!.operators[0]!.builtinOptions).toEqual({ type: BuiltinOptions.CumsumOptions, name: 'CumsumOptions', fields: { exclusive: false, reverse: false } });
    expect(m.operatorCodes[m.subgraphs[0]!.operators[0]!.opcodeIndex]!.code).toBe(BuiltinOperator.CUMSUM);
    const axis = tensor(m.subgraphs[0]!, 'axis');
    expect(Array.from(m.buffers[axis.buffer]!.data!)).toEqual([2, 0, 0, 0]);
  });

  it('Part_If_Add_Sub_001: main graph first, then graph blocks in order; If indices', () => {
    const m = build('Part_If_Add_Sub_001');
    expect(m.subgraphs.map((g) => g.name)).toEqual(['Main', 'IF_THEN_THEN', 'IF_THEN_ELSE', 'IF_ELSE', 'IF_THEN']);
    const mainIf = m.subgraphs[0]!.operators[2]!;
    expect(mainIf.inputs).toEqual([2, 3, 4]);
    expect(mainIf.builtinOptions).toEqual({ type: BuiltinOptions.IfOptions, name: 'IfOptions', fields: { then_subgraph_index: 4, else_subgraph_index: 3 } });
    // then = IF_THEN (which itself branches into 1 and 2), else = IF_ELSE
    expect(m.subgraphs[4]!.operators[0]!.builtinOptions!.fields).toEqual({ then_subgraph_index: 1, else_subgraph_index: 2 });
    const cond = tensor(m.subgraphs[0]!, 'cond');
    expect(cond.type).toBe(TensorType.BOOL);
    expect(Array.from(m.buffers[cond.buffer]!.data!)).toEqual([1]);
    // subgraph tensors keep their own buffers
    expect(m.subgraphs[1]!.tensors.map((t) => t.buffer)).toEqual([7, 8, 9]);
  });

  it('Part_While_000 / 001: cond/body indices, Maximum/Minimum options, scalar shapes', () => {
    const m = build('Part_While_000');
    expect(m.subgraphs.map((g) => g.name)).toEqual(['Main', 'WHILE_COND', 'WHILE_BODY']);
    expect(m.subgraphs[0]!.operators[2]!.builtinOptions).toEqual({ type: BuiltinOptions.WhileOptions, name: 'WhileOptions', fields: { cond_subgraph_index: 1, body_subgraph_index: 2 } });
    expect(m.subgraphs[0]!.operators[0]!.builtinOptions).toEqual({ type: BuiltinOptions.MaximumMinimumOptions, name: 'MaximumMinimumOptions', fields: {} });
    expect(m.subgraphs[1]!.operators[0]!.builtinOptions!.name).toBe('LessOptions');
    expect(floats(m, tensor(m.subgraphs[1]!, 'ifm2').buffer)).toEqual([10]);
    const m1 = build('Part_While_001');
    expect(m1.subgraphs[0]!.operators[2]!.builtinOptions!.fields).toEqual({ cond_subgraph_index: 3, body_subgraph_index: 4 });
    expect(m1.subgraphs[4]!.operators[1]!.builtinOptions!.fields).toEqual({ cond_subgraph_index: 1, body_subgraph_index: 2 });
    expect(m1.subgraphs[0]!.tensors[0]!.shape).toEqual([]);
  });

  it('SignatureDef_MultiOut_000/001: numeric activation, signature defs', () => {
    const m0 = build('SignatureDef_MultiOut_000');
    expect(m0.signatureDefs).toEqual([]);
    expect(m0.subgraphs[0]!.outputs).toEqual([4, 2, 3]);
    expect(m0.subgraphs[0]!.operators[1]!.builtinOptions!.fields).toEqual({ fused_activation_function: 0 });
    const m1 = build('SignatureDef_MultiOut_001');
    expect(m1.signatureDefs).toEqual([
      {
        signatureKey: 'serving_default',
        subgraphIndex: 0,
        inputs: [
          { name: 'ifm1', tensorIndex: 0 },
          { name: 'ifm2', tensorIndex: 1 },
        ],
        outputs: [
          { name: 'out3', tensorIndex: 3 },
          { name: 'out2', tensorIndex: 4 },
          { name: 'out1', tensorIndex: 2 },
        ],
      },
    ]);
  });

  it('Part_Add_Sub_001: names with / and ; are kept', () => {
    const m = build('Part_Add_Sub_001');
    expect(m.subgraphs[0]!.tensors[4]!.name).toBe('some/node/add1;and/another');
  });
});

describe('buildFromRecipe: features beyond the fixtures', () => {
  const operand = (name: string, rest = '') => `operand { name: "${name}" type: FLOAT32 shape { dim: 1 dim: 4 } ${rest} }\n`;

  it('conv, pools, reshape, softmax, concatenation, depthwise options', () => {
    const text = [
      operand('x'),
      operand('w', 'filler { tag: "constant" arg: "0.5" }'),
      operand('y'),
      operand('z'),
      'operand { name: "shape" type: INT32 shape { dim: 2 } filler { tag: "explicit" arg: "4" arg: "1" } }',
      'operation { type: "Conv2D" input: "x" input: "w" input: "" output: "y" conv2d_options { padding: SAME stride_w: 2 stride_h: 3 activation: RELU6 } }',
      'operation { type: "DepthwiseConv2D" input: "y" input: "w" input: "" output: "z" depthwiseconv2d_options { depth_multiplier: 2 dilation_w_factor: 2 } }',
      'operation { type: "MaxPool2D" input: "z" output: "y" maxpool2d_options { filter_width: 2 filter_height: 3 } }',
      'operation { type: "Reshape" input: "y" input: "shape" output: "z" reshape_options { new_shape: [4, 1] } }',
      'operation { type: "Reshape" input: "z" input: "shape" output: "y" }',
      'operation { type: "Softmax" input: "y" output: "z" softmax_options { beta: 0.5 } }',
      'operation { type: "Concatenation" input: "z" input: "z" output: "y" concatenation_options { axis: -1 } }',
      'operation { type: "BatchMatMulV2" input: "y" input: "y" output: "z" }',
      'operation { type: "Custom" custom_code: "MyOp" input: "z" output: "y" version: 2 }',
      'input: "x" output: "y"',
    ].join('\n');
    const m = buildFromRecipe(text, 'r.recipe');
    const ops = m.subgraphs[0]!.operators;
    expect(ops[0]!.builtinOptions!.fields).toEqual({ padding: 0, stride_w: 2, stride_h: 3, fused_activation_function: 3, dilation_w_factor: 1, dilation_h_factor: 1 });
    expect(ops[1]!.builtinOptions!.fields).toEqual({ padding: 1, stride_w: 1, stride_h: 1, depth_multiplier: 2, fused_activation_function: 0, dilation_w_factor: 2, dilation_h_factor: 1 });
    expect(ops[2]!.builtinOptions).toEqual({ type: BuiltinOptions.Pool2DOptions, name: 'Pool2DOptions', fields: { padding: 1, stride_w: 1, stride_h: 1, filter_width: 2, filter_height: 3, fused_activation_function: 0 } });
    expect(ops[3]!.builtinOptions!.fields).toEqual({ new_shape: [4, 1] });
    expect(ops[4]!.builtinOptions).toBeNull();
    expect(ops[5]!.builtinOptions!.fields).toEqual({ beta: 0.5 });
    expect(ops[6]!.builtinOptions!.fields).toEqual({ axis: -1, fused_activation_function: 0 });
    // custom ops after the sorted builtins, sorted by name
    expect(m.operatorCodes.map((c) => c.customCode)).toEqual([null, null, null, null, null, null, 'BatchMatMulV2', 'MyOp']);
    expect(m.operatorCodes.slice(-2).map((c) => c.code)).toEqual([BuiltinOperator.CUSTOM, BuiltinOperator.CUSTOM]);
    expect(ops[7]!.opcodeIndex).toBe(6);
    expect(ops[8]!.opcodeIndex).toBe(7);
    expect(floats(m, m.subgraphs[0]!.tensors[1]!.buffer)).toEqual([0.5, 0.5, 0.5, 0.5]);
  });

  it('operation version: highest wins per code', () => {
    const m = buildFromRecipe(
      operand('a') + operand('b') + 'operation { type: "ReLU" input: "a" output: "b" version: 3 } operation { type: "ReLU" input: "b" output: "a" }',
      'r',
    );
    expect(m.operatorCodes).toEqual([{ code: BuiltinOperator.RELU, deprecatedBuiltinCode: 19, builtinCode: 19, customCode: null, version: 3 }]);
  });

  it('quantization, shape_signature, is_variable, int/bool/uint8/int64/float16 fillers', () => {
    const text = `
      operand { name: "q" type: UINT8 shape { dim: 3 } filler { tag: "explicit" arg: "1" arg: "255" }
        quant { min: -1 max: 1 scale: 0.0078 zero_point: 128 quantized_dimension: 0 } }
      operand { name: "s" type: FLOAT32 shape { dim: 1 dim: 4 } shape_signature { dim: -1 dim: 4 } is_variable: true }
      operand { name: "b" type: BOOL shape { dim: 4 } filler { tag: "explicit" arg: "T" arg: "false" arg: "1" arg: "f" } }
      operand { name: "l" type: INT64 shape { dim: 2 } filler { tag: "explicit" arg: "-2" arg: "9007199254740993" } }
      operand { name: "h" type: FLOAT16 shape { dim: 2 } filler { tag: "explicit" arg: "1.0" arg: "-2.5" } }
      operand { name: "c" type: INT32 shape { dim: 0 } filler { tag: "explicit" arg: "7" arg: "8" arg: "9" } }
      operand { name: "g" type: UINT8 shape { dim: 64 } filler { tag: "gaussian" arg: "128" arg: "200" } }
    `;
    const m = buildFromRecipe(text, 'r');
    const [q, s, b, l, h, c, g] = m.subgraphs[0]!.tensors;
    expect(Array.from(m.buffers[q!.buffer]!.data!)).toEqual([1, 255, 0]);
    expect(q!.quantization).toEqual({ min: [-1], max: [1], scale: [Math.fround(0.0078)], zeroPoint: [128], quantizedDimension: 0, details: null });
    expect(s!.shapeSignature).toEqual([-1, 4]);
    expect(s!.isVariable).toBe(true);
    expect(s!.quantization).toBeNull();
    expect(Array.from(m.buffers[b!.buffer]!.data!)).toEqual([1, 0, 1, 0]);
    const lv = new DataView(m.buffers[l!.buffer]!.data!.slice().buffer);
    expect([lv.getBigInt64(0, true), lv.getBigInt64(8, true)]).toEqual([-2n, 9007199254740993n]);
    expect(Array.from(new Uint16Array(m.buffers[h!.buffer]!.data!.slice().buffer))).toEqual([0x3c00, 0xc100]);
    // a zero-sized shape takes the number of arguments (as tflchef)
    expect(Array.from(new Int32Array(m.buffers[c!.buffer]!.data!.slice().buffer))).toEqual([7, 8, 9]);
    const gv = Array.from(m.buffers[g!.buffer]!.data!);
    expect(gv).toHaveLength(64);
    expect(gv.some((x) => x === 0) && gv.some((x) => x === 255)).toBe(true); // clamped
  });

  it('explicit sparsity parameters', () => {
    const m = buildFromRecipe(
      `operand { name: "s" type: FLOAT32 shape { dim: 2 dim: 3 } filler { tag: "explicit" arg: "1" arg: "2" }
        sparsity { traversal_order { dim: 0 dim: 1 }
          dim_metadata { format: DENSE dense_size: 2 }
          dim_metadata { format: SPARSE_CSR array_segments { dim: 0 dim: 1 dim: 2 type: UINT8VEC } array_indices { dim: 0 dim: 2 type: INT32VEC } } } }`,
      'r',
    );
    expect(m.subgraphs[0]!.tensors[0]!.sparsity).toEqual({
      traversal_order: [0, 1],
      block_map: [],
      dim_metadata: [
        { format: 0, dense_size: 2, array_segments: null, array_indices: null },
        {
          format: 1,
          dense_size: 0,
          array_segments: { type: 3, name: 'Uint8Vector', fields: { values: [0, 1, 2] } },
          array_indices: { type: 1, name: 'Int32Vector', fields: { values: [0, 2] } },
        },
      ],
    });
  });


  it('every op of the table names real codes, options tables and recipe fields', () => {
    const operation = tflchefRoot().lookupType('tflchef.Operation');
    for (const [type, spec] of Object.entries(OPS)) {
      expect(typeof BuiltinOperator[spec.code], type).toBe('number');
      if (spec.options) expect(typeof BuiltinOptions[spec.options], type).toBe('number');
      if (spec.from) expect(operation.fields[spec.from], `${type}.${spec.from}`).toBeDefined();
    }
    expect(CUSTOM_TYPES.has('Add')).toBe(false);
    // every options message of tflchef.proto is used by some op
    const used = new Set(Object.values(OPS).map((s) => s.from));
    const unused = Object.entries(operation.fields)
      .filter(([f, field]) => f.endsWith('_options') && !used.has(f) && Object.keys((field.resolvedType as { fields: object }).fields).length > 0)
      .map(([f]) => f);
    // the options of tflchef's custom ops (All, MatMul, MaxPoolWithArgmax) go into FlexBuffers
    // custom_options, which this chef does not write (see the report in ops.ts)
    expect(unused).toEqual(['all_options', 'matmul_options', 'max_pool_with_argmax_options']);
    const unusedEmpty = Object.keys(operation.fields).filter((f) => f.endsWith('_options') && !used.has(f));
    expect(unusedEmpty).toEqual(['all_options', 'matmul_options', 'max_pool_with_argmax_options']);
  });
});

describe('cookRecipe: diagnostics', () => {
  it('Part_While_000: Minimum given maximum_options is a located warning', () => {
    const { diagnostics } = cookRecipe(load('Part_While_000'), 'Part_While_000');
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ severity: 'warning', line: 99, column: 19 });
    expect(diagnostics[0]!.message).toBe("operation 0 (Minimum) of graph 'Main' ignores 'maximum_options' (it reads 'minimum_options')");
  });
  it('the other fixtures build without diagnostics', () => {
    for (const name of recipeNames.filter((n) => !n.startsWith('Part_While') && n !== 'Part_Tanh_FC_nobias')) {
      expect(cookRecipe(load(name), name).diagnostics, name).toEqual([]);
    }
  });
  it('repeated singular fields are reported by the parser', () => {
    const { diagnostics } = cookRecipe('operand { name: "a" name: "b" type: FLOAT32 }', 'r');
    expect(diagnostics).toMatchObject([{ severity: 'warning', line: 1, column: 21 }]);
  });
});

describe('buildFromRecipe: errors with line:column', () => {
  it('unknown operand in an operation', () => {
    const e = errorOf('operand { name: "a" type: FLOAT32 }\noperation {\n  type: "ReLU"\n  input: "b"\n  output: "a"\n}');
    expect(e).toMatchObject({ kind: 'semantic', line: 4, column: 10 });
    expect(e.message).toMatch(/input 'b' is not an operand of graph 'main'/);
  });
  it('unknown graph output', () => {
    expect(errorOf('operand { name: "a" type: FLOAT32 }\noutput: "zz"')).toMatchObject({ kind: 'semantic', line: 2, column: 9 });
  });
  it('unknown op type', () => {
    const e = errorOf('operand { name: "a" type: FLOAT32 }\noperation { type: "Frobnicate" input: "a" output: "a" }');
    expect(e).toMatchObject({ kind: 'semantic', line: 2, column: 19, message: "unknown operation type 'Frobnicate'" });
    expect(errorOf('operand { name: "a" type: FLOAT32 }\noperation { type: "Relu" input: "a" output: "a" }').message).toBe(
      "unknown operation type 'Relu' (did you mean 'ReLU'?)",
    );
  });
  it('bad filler tag and values', () => {
    expect(errorOf('operand { name: "a" type: FLOAT32 shape { dim: 1 }\n filler { tag: "magic" } }')).toMatchObject({ line: 2, column: 16 });
    const e = errorOf('operand { name: "a" type: INT32 shape { dim: 2 }\n filler { tag: "explicit" arg: "1" arg: "x" } }');
    expect(e).toMatchObject({ kind: 'semantic', line: 2, column: 41 });
    expect(e.message).toMatch(/'x' is not an integer/);
    expect(errorOf('operand { name: "a" type: BOOL shape { dim: 1 } filler { tag: "explicit" arg: "yes" } }').message).toMatch(/not a boolean/);
    expect(errorOf('operand { name: "a" type: UINT8 shape { dim: 1 } filler { tag: "explicit" arg: "300" } }').message).toMatch(/out of range/);
    expect(errorOf('operand { name: "a" type: BOOL shape { dim: 1 } filler { tag: "gaussian" arg: "0" arg: "1" } }').message).toMatch(/not available/);
    expect(errorOf('operand { name: "a" type: FLOAT32 shape { dim: 100000 dim: 100000 } filler { tag: "constant" arg: "1" } }').message).toMatch(/more than/);
  });
  it('If/While indices out of range', () => {
    const e = errorOf('operand { name: "a" type: FLOAT32 }\noperation { type: "While" input: "a" output: "a"\n while_options { cond_subgraph_index: 1 body_subgraph_index: 2 } }');
    expect(e).toMatchObject({ kind: 'semantic', line: 3, column: 39 });
    expect(e.message).toMatch(/cond_subgraph_index 1 is not a subgraph/);
  });
  it('duplicate operand, bad enum, unknown field, syntax', () => {
    expect(errorOf('operand { name: "a" type: FLOAT32 }\noperand { name: "a" type: FLOAT32 }').message).toMatch(/defined twice/);
    expect(errorOf('operand { name: "a" type: FLOAT64 }')).toMatchObject({ kind: 'semantic', line: 1, column: 27 });
    expect(errorOf('operation { type: "Add" add_options { activation: RELU foo: 1 } }')).toMatchObject({ message: "unknown field 'foo' in tflchef.AddOptions" });
    expect(errorOf('operand {')).toMatchObject({ kind: 'syntax' });
  });
  it('an empty recipe is an empty-input error', () => {
    expect(errorOf('')).toMatchObject({ kind: 'empty' });
    expect(errorOf('\uFEFF  # only a comment\n\n')).toMatchObject({ kind: 'empty' });
  });
  it('make_sparse is unsupported and says so', () => {
    expect(errorOf('operand { name: "a" type: FLOAT32 make_sparse: true }')).toMatchObject({ kind: 'unsupported', line: 1, column: 48 });
  });
});
