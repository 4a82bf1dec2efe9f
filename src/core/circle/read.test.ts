import { describe, it, expect } from 'vitest';
import { Builder } from 'flatbuffers';
import { FormatError } from '../errors';
import { detect, read, resolveOpcode } from './read';
import { write } from './write';
import { sampleModel, opcode, operator, tensor } from './testing';
import type { CircleModel } from './model';

function expectFormatError(fn: () => unknown, kind?: string): FormatError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(FormatError);
    const fe = e as FormatError;
    if (kind) expect(fe.info.kind).toBe(kind);
    return fe;
  }
  throw new Error('expected a FormatError');
}

describe('detect', () => {
  it('accepts CIR0 and TFL3 at bytes 4..8 only', () => {
    const bytes = write(sampleModel());
    expect(detect(bytes)).toBe(true);
    const tfl = bytes.slice();
    tfl.set([0x54, 0x46, 0x4c, 0x33], 4);
    expect(detect(tfl)).toBe(true);
    expect(detect(new TextEncoder().encode('hello world, not a model'))).toBe(false);
    expect(detect(new Uint8Array(0), 'm.circle')).toBe(true);
    expect(detect(new Uint8Array(0), 'm.onnx')).toBe(false);
  });
});

describe('read', () => {
  it('reads a hand-built model back with every field', () => {
    const m = read(write(sampleModel()), 'sample.circle');
    expect(m.identifier).toBe('CIR0');
    expect(m.description).toBe('hand-built test model');
    expect(m.operatorCodes.map((o) => o.code)).toEqual([3, 19, 0, -2]);
    const sg = m.subgraphs[0]!;
    expect(sg.tensors.map((t) => t.name)).toEqual(['input', 'filter', 'bias', 'conv', 'relu', 'add', 'norm']);
    expect(sg.tensors[6]!.shapeSignature).toEqual([-1, 2, 2, 1]);
    expect(sg.tensors[5]!.quantization).toEqual({ min: [], max: [], scale: [0.5, 0.25], zeroPoint: [0, 3], quantizedDimension: 3, details: null });
    expect(sg.operators[3]!.inputs).toEqual([5, -1, -1]);
    expect(sg.operators[0]!.builtinOptions).toEqual({
      type: 1,
      name: 'Conv2DOptions',
      fields: { padding: 1, stride_w: 1, stride_h: 1, fused_activation_function: 0, dilation_w_factor: 1, dilation_h_factor: 1, quantized_bias_type: 0 },
    });
    expect(sg.operators[2]!.builtinOptions).toEqual({ type: 11, name: 'AddOptions', fields: { fused_activation_function: 1, pot_scale_int16: true } });
    expect(sg.operators[3]!.builtinOptions!.name).toBe('InstanceNormOptions');
    expect(sg.operators[3]!.builtinOptions!.fields.epsilon).toBeCloseTo(0.001, 6);
    expect(m.metadata).toEqual([
      { name: 'min_runtime_version', buffer: 3 },
      { name: 'ONE_unknown_table', buffer: 4 },
    ]);
    expect(Array.from(m.buffers[4]!.data!)).toEqual([1, 0, 0, 0, 0, 0, 0, 0, 200, 201]);
    expect(m.signatureDefs[0]!.signatureKey).toBe('serving_default');
    expect(m.buffers[0]!.data).toBeNull();
  });

  it('makes buffer data zero-copy views into the input bytes, 16-aligned', () => {
    const bytes = write(sampleModel());
    const m = read(bytes, 'x.circle');
    const d = m.buffers[1]!.data!;
    expect(d.buffer).toBe(bytes.buffer);
    expect(d.byteOffset % 16).toBe(0);
    expect(new Float32Array(d.slice().buffer)[0]).toBe(2);
  });

  it('decodes the op code with the circle rule (signed deprecated byte; 127 -> builtin_code)', () => {
    expect(resolveOpcode(-2, 0)).toBe(-2); // schema 0.3 files: builtin_code absent
    expect(resolveOpcode(127, 150)).toBe(150);
    expect(resolveOpcode(3, 3)).toBe(3);
    // A schema-0.3 style file: INSTANCE_NORM op code with only the deprecated byte 0xFE and
    // builtin_code absent (0). max(-2, 0) would make it ADD; the circle rule keeps INSTANCE_NORM.
    const b = new Builder(64);
    b.startObject(4);
    b.addFieldInt8(0, -2, 0);
    const oc = b.endObject();
    b.startVector(4, 1, 4);
    b.addOffset(oc);
    const ocs = b.endVector();
    b.startObject(8);
    b.addFieldOffset(1, ocs, 0);
    const root = b.endObject();
    b.finish(root, 'CIR0');
    const bytes = b.asUint8Array();
    expect(Array.from(bytes)).toContain(0xfe);
    const back = read(bytes, 'old.circle');
    expect(back.operatorCodes[0]).toEqual({ code: -2, deprecatedBuiltinCode: -2, builtinCode: 0, customCode: null, version: 1 });
    // and the writer stores both fields as luci does
    const again = read(write(back), 'x');
    expect(again.operatorCodes[0]).toEqual({ code: -2, deprecatedBuiltinCode: -2, builtinCode: -2, customCode: null, version: 1 });
    const big = read(write({ ...back, operatorCodes: [opcode(150)] }), 'x');
    expect(big.operatorCodes[0]).toEqual({ code: 150, deprecatedBuiltinCode: 127, builtinCode: 150, customCode: null, version: 1 });
  });

  it('keeps negative and unknown tensor types as signed numbers', () => {
    const m = sampleModel();
    m.subgraphs[0]!.tensors[3]!.type = -1; // UINT4
    m.subgraphs[0]!.tensors[4]!.type = -100; // unknown
    const back = read(write(m), 'x');
    expect(back.subgraphs[0]!.tensors[3]!.type).toBe(-1);
    expect(back.subgraphs[0]!.tensors[4]!.type).toBe(-100);
  });

  it('accepts TFL3 files', () => {
    const bytes = write(sampleModel());
    bytes.set([0x54, 0x46, 0x4c, 0x33], 4);
    expect(read(bytes, 'x.tflite').identifier).toBe('TFL3');
  });

  it('rejects empty, short, text and foreign files with typed errors', () => {
    expect(expectFormatError(() => read(new Uint8Array(0), 'e.circle'), 'empty').info.file).toBe('e.circle');
    expectFormatError(() => read(new Uint8Array([1, 2, 3]), 'short.circle'), 'truncated');
    const text = expectFormatError(() => read(new TextEncoder().encode('name: "net"\nlayer {}\n'), 'net.prototxt'), 'unsupported');
    expect(text.message).toContain('net.prototxt');
    expect(text.info.offset).toBe(4);
  });

  it('reports a vector that runs past the end with its offset and path', () => {
    const bytes = write(sampleModel());
    const cut = bytes.subarray(0, bytes.length - 40);
    const e = expectFormatError(() => read(cut, 'cut.circle'));
    expect(['truncated', 'corrupt']).toContain(e.info.kind);
    expect(e.info.offset).toBeTypeOf('number');
    expect(e.info.path).toBeTruthy();
  });

  it('rejects a huge declared tensor count at once, without allocating it', () => {
    // Model with one subgraph whose tensors vector declares 10^6 elements in a tiny file.
    const m: CircleModel = sampleModel();
    const bytes = write(m).slice();
    const back = read(bytes, 'x');
    expect(back.subgraphs[0]!.tensors.length).toBe(7);
    // find the u32 count 7 that precedes the tensors vector and make it 10^6
    const dv = new DataView(bytes.buffer);
    let patched = 0;
    for (let p = 0; p + 4 <= bytes.length; p += 4) {
      if (dv.getUint32(p, true) === 7) {
        const copy = bytes.slice();
        new DataView(copy.buffer).setUint32(p, 1_000_000, true);
        try {
          const r = read(copy, 'huge.circle');
          expect(r.subgraphs.length).toBeGreaterThan(0);
        } catch (e) {
          expect(e).toBeInstanceOf(FormatError);
          if ((e as FormatError).info.path?.endsWith('.tensors')) patched++;
        }
      }
    }
    expect(patched).toBeGreaterThan(0);
  });

  it('checks cross references (tensor, buffer and op-code indices)', () => {
    const m = sampleModel();
    m.subgraphs[0]!.operators.push(operator(9, [0], [1]));
    const e = expectFormatError(() => read(write(m), 'bad.circle'), 'corrupt');
    expect(e.info.path).toBe('subgraphs[0].operators[4].opcode_index');
    const m2 = sampleModel();
    m2.subgraphs[0]!.tensors.push(tensor('x', [1], { buffer: 99 }));
    expect(expectFormatError(() => read(write(m2), 'bad.circle')).info.path).toBe('subgraphs[0].tensors[7].buffer');
    const m3 = sampleModel();
    m3.subgraphs[0]!.outputs = [42];
    expect(expectFormatError(() => read(write(m3), 'bad.circle')).info.path).toBe('subgraphs[0].outputs[0]');
  });

  it('fails fast with kind limit on aliased structure (many tensors sharing one table)', () => {
    // Hand-build: subgraph whose tensors vector holds N offsets all pointing at one tensor with a
    // long shape vector: N * shape elements far exceed the file size.
    const b = new Builder(1024);
    const shapeVec = (() => {
      b.startVector(4, 50_000, 4);
      for (let i = 0; i < 50_000; i++) b.addInt32(1);
      return b.endVector();
    })();
    const name = b.createString('t');
    b.startObject(11);
    b.addFieldOffset(0, shapeVec, 0);
    b.addFieldOffset(3, name, 0);
    const t = b.endObject();
    const n = 20_000;
    b.startVector(4, n, 4);
    for (let i = 0; i < n; i++) b.addOffset(t);
    const tensors = b.endVector();
    b.startObject(6);
    b.addFieldOffset(0, tensors, 0);
    const sg = b.endObject();
    b.startVector(4, 1, 4);
    b.addOffset(sg);
    const sgs = b.endVector();
    b.startObject(8);
    b.addFieldOffset(2, sgs, 0);
    const root = b.endObject();
    b.finish(root, 'CIR0');
    const bytes = b.asUint8Array();
    // the work limit (not a timer) stops the aliasing: the error kind says so
    const e = expectFormatError(() => read(bytes, 'alias.circle'), 'limit');
    expect(e.info.path).toMatch(/^subgraphs\[0\]\.tensors\[\d+\]/);
  });
});
