import { describe, it, expect } from 'vitest';
import { read } from './read';
import { write } from './write';
import fc from 'fast-check';
import { toGraph, toGraphPack, summarize, metadataPreview, graphStats } from './graph';
import { packGraph } from '../graph/pack';
import { packContents } from '../graph/pack.test-util';
import { bottleneckCircle, resnetLikeCircle } from '../../../test/support/circle-synthetic';
import { sampleModel, opcode, operator, options, tensor, f32 } from './testing';
import type { CircleModel } from './model';
import { operatorCategory } from './categories';
import { builtinOperatorName, tensorTypeName, dtypeName } from './names';

describe('toGraph', () => {
  const model = read(write(sampleModel()), 'sample.circle');
  const g = toGraph(model, 0);

  it('makes op nodes named by their first output, typed by BuiltinOperator name', () => {
    const ops = g.nodes.filter((n) => n.kind === 'op');
    expect(ops.map((n) => [n.id, n.type, n.name, n.category])).toEqual([
      ['op:0', 'CONV_2D', 'conv', 'Layer'],
      ['op:1', 'RELU', 'relu', 'Activation'],
      ['op:2', 'ADD', 'add', 'Other'],
      ['op:3', 'INSTANCE_NORM', 'norm', 'Normalization'],
    ]);
    const conv = ops[0]!;
    expect(conv.inputs).toEqual([
      { name: 'input', tensor: 0, label: 'input', type: 'float32[1,2,2,1]' },
      { name: 'filter', tensor: 1, label: 'filter', type: 'float32[1,1,1,1]', constant: true },
      { name: 'bias', tensor: 2, label: 'bias', type: 'int32[1]', constant: true },
    ]);
    // values other than the schema default are shown in the node box (inNode), as Netron does
    expect(conv.attributes).toContainEqual({ name: 'padding', value: 'VALID', type: 'enum', inNode: true });
    expect(conv.attributes).toContainEqual({ name: 'dilation_w_factor', value: '1', type: 'int' });
    expect(ops[2]!.attributes).toContainEqual({ name: 'fused_activation_function', value: 'RELU', type: 'enum', inNode: true });
    // constant inputs, drawn inside the box: role, shape, dtype
    expect(conv.constants).toEqual([
      { name: 'filter', shape: [1, 1, 1, 1], dtype: 'float32' },
      { name: 'bias', shape: [1], dtype: 'int32' },
    ]);
    expect(ops[1]!.constants).toBeUndefined();
    expect(ops[3]!.inputs[1]).toEqual({ name: 'gamma', tensor: -1, label: '', type: '' });
    expect(ops[3]!.outputs[0]!.type).toBe('float32[?,2,2,1]');
  });

  it('has input and output markers and one edge per (non-constant tensor, consumer)', () => {
    expect(g.nodes[0]).toMatchObject({ id: 'in:0', kind: 'input', name: 'input', index: 0 });
    expect(g.nodes.at(-1)).toMatchObject({ id: 'out:0', kind: 'output', name: 'norm', index: 6 });
    const ids = (e: { from: number; to: number }) => `${g.nodes[e.from]!.id}->${g.nodes[e.to]!.id}`;
    // ADD(relu, relu) counts once; the constants filter and bias are no edges
    expect(g.edges.map(ids)).toEqual(['in:0->op:0', 'op:0->op:1', 'op:1->op:2', 'op:2->op:3', 'op:3->out:0']);
    expect(g.stats).toEqual({ nodes: 4, edges: 5 });
    expect(g.edges[0]!.label).toBe('float32[1,2,2,1]');
  });

  it('gives orphan tensors their own source node and handles cycles', () => {
    const m: CircleModel = {
      ...sampleModel(),
      operatorCodes: [opcode(0)],
      subgraphs: [
        {
          name: '',
          tensors: [tensor('a', [1]), tensor('b', [1]), tensor('orphan', [1])],
          inputs: [],
          outputs: [1],
          // a cycle: op0 reads b which op0 itself writes; plus an orphan input
          operators: [operator(0, [1, 2], [1])],
          deprecatedDataFormat: 0,
        },
      ],
      metadata: [],
      signatureDefs: [],
    };
    const gr = toGraph(read(write(m), 'c'), 0);
    expect(gr.name).toBe('main');
    expect(gr.nodes.map((n) => n.id)).toEqual(['op:0', 'in:2', 'out:0']);
    expect(gr.edges.map((e) => [e.from, e.to])).toEqual([
      [0, 0],
      [1, 0],
      [0, 2],
    ]);
    expect(gr.stats.edges).toBe(gr.edges.length);
    expect(graphStats(read(write(m), 'c'), 0)).toEqual(gr.stats);
  });

  it('references IF/WHILE bodies as sg:<n>', () => {
    const m = sampleModel();
    m.operatorCodes.push(opcode(118));
    m.subgraphs[0]!.operators.push(
      operator(4, [0], [6], { builtinOptions: options(92, 'IfOptions', { then_subgraph_index: 1, else_subgraph_index: 2 }) }),
    );
    const node = toGraph(read(write(m), 'x'), 0).nodes.find((n) => n.id === 'op:4')!;
    expect(node.type).toBe('IF');
    expect(node.category).toBe('Control');
    expect(node.subgraphs).toEqual(['sg:1', 'sg:2']);
    expect(node.attributes).toContainEqual({ name: 'then_subgraph_index', value: 'sg:1', type: 'subgraph' });
  });

  it('shows a scalar constant input by its value (axis = 1), a tensor one by its shape', () => {
    const m = sampleModel();
    m.operatorCodes.push(opcode(40)); // MEAN
    const sg = m.subgraphs[0]!;
    m.buffers.push({ data: new Uint8Array([1, 0, 0, 0]), offset: 0, size: 0 });
    m.buffers.push({ data: f32([0.1]), offset: 0, size: 0 });
    const axis = sg.tensors.push(tensor('axis', [], { buffer: m.buffers.length - 2, type: 2 })) - 1;
    const scale = sg.tensors.push(tensor('scale', [], { buffer: m.buffers.length - 1 })) - 1;
    const out = sg.tensors.push(tensor('mean', [1, 2, 1])) - 1;
    sg.operators.push(operator(4, [0, axis, scale], [out]));
    const node = toGraph(read(write(m), 'x'), 0).nodes.find((n) => n.id === 'op:4')!;
    expect(node.type).toBe('MEAN');
    // float32 printed at its precision (0.1, not 0.10000000149011612); an input past the known roles is named by its position
    expect(node.constants).toEqual([
      { name: 'axis', shape: [], dtype: 'int32', value: '1' },
      { name: '2', shape: [], dtype: 'float32', value: '0.1' },
    ]);
  });

  it('names custom ops by custom_code', () => {
    const m = sampleModel();
    m.operatorCodes.push(opcode(32, 'MyCustomOp'));
    m.subgraphs[0]!.operators.push(operator(4, [0], [6], { customOptions: new Uint8Array([1, 2, 3]) }));
    const node = toGraph(read(write(m), 'x'), 0).nodes.find((n) => n.id === 'op:4')!;
    expect(node.type).toBe('MyCustomOp');
    expect(node.category).toBe('Custom');
    expect(node.attributes).toContainEqual({ name: 'custom_options', value: '3 bytes', type: 'bytes' });
  });
});

describe('toGraphPack', () => {
  const same = (m: CircleModel, sg = 0) => expect(packContents(toGraphPack(m, sg))).toEqual(packContents(packGraph(toGraph(m, sg))));

  it('packs what packGraph(toGraph) packs: the sample, a 1,000-operator ResNet-like chain', () => {
    same(read(write(sampleModel()), 's.circle'));
    same(read(write(resnetLikeCircle({ operators: 1000, name: 'r' })), 'r.circle'));
    same(read(write(bottleneckCircle({ operators: 1000, name: 'b' })), 'b.circle'));
  });

  it("the bench's bottleneck chain: 8 operators a block, two paths joined by ADD, cut short at any count", () => {
    const g = toGraph(read(write(bottleneckCircle({ operators: 16 })), 'b.circle'), 0);
    const ops = g.nodes.filter((n) => n.kind === 'op');
    expect(ops.map((n) => n.type)).toEqual(Array(2).fill(['CONV_2D', 'RELU', 'CONV_2D', 'RELU', 'CONV_2D', 'CONV_2D', 'ADD', 'RELU']).flat());
    const id = (name: string) => g.nodes.findIndex((n) => n.kind === 'op' && n.name === name);
    const into = (name: string) => g.edges.filter((e) => e.to === id(name)).map((e) => g.nodes[e.from]!.name).sort();
    // the second block: both paths start at the first block's output, ADD joins them
    expect(into('block1/conv_a')).toEqual(['block0/relu']);
    expect(into('block1/projection')).toEqual(['block0/relu']);
    expect(into('block1/add')).toEqual(['block1/conv_c', 'block1/projection']);
    for (const n of [1, 5, 6, 7, 9, 100]) expect(read(write(bottleneckCircle({ operators: n })), 'b.circle').subgraphs[0]!.operators.length).toBe(n);
  });

  it('any model: orphan tensors, omitted inputs, repeated inputs, scalar constants, options, IF references, custom ops (property)', () => {
    // op codes: CONV_2D, ADD, MEAN, IF, a custom op, an index past the table (Unknown)
    const codes = [opcode(3), opcode(0), opcode(40), opcode(118), opcode(32, 'MyOp')];
    const opArb = fc.record({
      code: fc.integer({ min: 0, max: codes.length }),
      inputs: fc.array(fc.integer({ min: -1, max: 11 }), { maxLength: 4 }),
      outputs: fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 2 }),
      padding: fc.integer({ min: 0, max: 1 }),
      activation: fc.integer({ min: 0, max: 3 }),
    });
    const tensorArb = fc.record({
      shape: fc.array(fc.integer({ min: 1, max: 9 }), { maxLength: 4 }),
      dynamic: fc.boolean(),
      type: fc.constantFrom(0, 1, 2, 3, 9),
      data: fc.boolean(),
      name: fc.constantFrom('a', 'b', 'block/x', '\u4e2d', ''),
    });
    let packed = 0;
    fc.assert(
      fc.property(fc.array(tensorArb, { minLength: 12, maxLength: 12 }), fc.array(opArb, { maxLength: 8 }), fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }), fc.array(fc.integer({ min: 0, max: 11 }), { maxLength: 3 }), (ts, ops, ins, outs) => {
        const m = sampleModel();
        m.operatorCodes = codes;
        m.buffers = [{ data: null, offset: 0, size: 0 }, ...ts.map((t) => ({ data: t.data ? f32(new Array(Math.max(1, t.shape.reduce((a, b) => a * b, 1))).fill(0.5)) : null, offset: 0, size: 0 }))];
        const sg = m.subgraphs[0]!;
        sg.tensors = ts.map((t, i) => tensor(t.name ? `${t.name}${i % 3}` : '', t.shape, { type: t.type, buffer: i + 1, shapeSignature: t.dynamic && t.shape.length ? [-1, ...t.shape.slice(1)] : null }));
        sg.inputs = ins;
        sg.outputs = outs;
        sg.operators = ops.map((o) =>
          operator(o.code, o.inputs, o.outputs, {
            builtinOptions:
              o.code === 0 ? options(1, 'Conv2DOptions', { padding: o.padding, stride_w: 1 + o.padding, stride_h: 1, fused_activation_function: o.activation, dilation_w_factor: 1, dilation_h_factor: 1, quantized_bias_type: 0 })
              : o.code === 1 ? options(11, 'AddOptions', { fused_activation_function: o.activation, pot_scale_int16: true })
              : o.code === 3 ? options(92, 'IfOptions', { then_subgraph_index: 1, else_subgraph_index: o.padding })
              : null,
            customOptions: o.code === 4 ? new Uint8Array([1, 2]) : null,
          }),
        );
        m.signatureDefs = [];
        let model: CircleModel;
        try {
          model = read(write(m), 'p.circle');
        } catch {
          return; // an index past the op-code table is refused by the reader: nothing to pack
        }
        same(model);
        packed++;
      }),
      { numRuns: 150 },
    );
    expect(packed).toBeGreaterThan(50);
  });
});

describe('summarize', () => {
  it('lists graphs, metadata previews, signatures and buffer totals', () => {
    const s = summarize(read(write(sampleModel()), 'sample.circle'), 'sample.circle');
    expect(s.format).toBe('circle');
    expect(s.formatLabel).toBe('circle (CIR0, schema version 0)');
    expect(s.graphs).toEqual([{ id: 'sg:0', name: 'main', stats: { nodes: 4, edges: 5 } }]);
    expect(s.metadata).toEqual([
      { name: 'min_runtime_version', size: 6, preview: '1.14.0' },
      { name: 'ONE_unknown_table', size: 10, preview: '01 00 00 00 00 00 00 00 c8 c9 (10 bytes)' },
    ]);
    expect(s.signatures).toEqual([{ key: 'serving_default', subgraph: 0, inputs: [{ name: 'x', tensor: 0 }], outputs: [{ name: 'y', tensor: 6 }] }]);
    expect(s.buffers).toEqual({ count: 5, bytes: 4 + 4 + 6 + 10, external: 0 });
  });

  it('shows long ASCII as hex with its size', () => {
    const long = new TextEncoder().encode('a'.repeat(300));
    expect(metadataPreview(long, 300)).toMatch(/^61 61 .* … \(300 bytes\)$/);
  });

  it('summarises a 100 MB model without copying weights (the time is a bench figure: bench/reader.ts)', () => {
    const m = sampleModel();
    const big = new Uint8Array(100 * 1024 * 1024);
    m.buffers[1] = { data: big, offset: 0, size: 0 };
    const bytes = write(m);
    const model = read(bytes, 'big.circle');
    const s = summarize(model, 'big.circle');
    expect(s.buffers.bytes).toBeGreaterThan(100 * 1024 * 1024);
    // zero-copy: the weights are a view into the file's own bytes
    expect(model.buffers[1]!.data!.buffer).toBe(bytes.buffer);
    expect(model.buffers[1]!.data!.length).toBe(100 * 1024 * 1024);
  });
});

describe('names and categories', () => {
  it('names operators and tensor types, negative and unknown included', () => {
    expect(builtinOperatorName(-2)).toBe('INSTANCE_NORM');
    expect(builtinOperatorName(-8)).toBe('RUN_MODEL');
    expect(builtinOperatorName(3)).toBe('CONV_2D');
    expect(builtinOperatorName(9999)).toBe('Unknown(9999)');
    expect(tensorTypeName(-1)).toBe('UINT4');
    expect(tensorTypeName(-42)).toBe('TensorType(-42)');
    expect(dtypeName(9)).toBe('int8');
  });
  it('categorises like Netron', () => {
    expect(operatorCategory('DEPTHWISE_CONV_2D')).toBe('Layer');
    expect(operatorCategory('SOFTMAX')).toBe('Activation');
    expect(operatorCategory('MAX_POOL_2D')).toBe('Pool');
    expect(operatorCategory('RMS_NORM')).toBe('Normalization');
    expect(operatorCategory('BATCH_MATMUL')).not.toBe('Normalization');
    expect(operatorCategory('RESHAPE')).toBe('Shape');
    expect(operatorCategory('CONCATENATION')).toBe('Tensor');
    expect(operatorCategory('DEQUANTIZE')).toBe('Quantization');
    expect(operatorCategory('WHILE')).toBe('Control');
    expect(operatorCategory('ADD')).toBe('Other');
    expect(operatorCategory('CUSTOM', true)).toBe('Custom');
  });
});
