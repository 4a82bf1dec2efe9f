import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../errors';
import { messages, type ProtoMessage } from './proto';
import { readPrototxt, readSolver } from './read';
import { sniffCaffe } from './sniff';

const dir = 'test/fixtures/caffe/';
const text = (f: string) => readFileSync(dir + f, 'utf8');

function typeCounts(layers: ProtoMessage[], key = 'type'): Record<string, number> {
  const out: Record<string, number> = {};
  for (const l of layers) {
    const t = String(key === 'type' ? l.type : (l.layer as ProtoMessage).type);
    out[t] = (out[t] ?? 0) + 1;
  }
  return out;
}

// fixtures/caffe/README.md: layer counts and types as written (before upgrading)
const TABLE: [string, string, number, Record<string, number>][] = [
  ['lenet/lenet.prototxt', 'V2', 9, { Input: 1, Convolution: 2, Pooling: 2, InnerProduct: 2, ReLU: 1, Softmax: 1 }],
  ['lenet/lenet_train_test.prototxt', 'V2', 11, { Data: 2, Convolution: 2, Pooling: 2, InnerProduct: 2, ReLU: 1, Accuracy: 1, SoftmaxWithLoss: 1 }],
  ['caffenet/deploy.prototxt', 'V2', 24, { Input: 1, Convolution: 5, ReLU: 7, Pooling: 3, LRN: 2, InnerProduct: 3, Dropout: 2, Softmax: 1 }],
  ['alexnet/deploy.prototxt', 'V2', 24, { Input: 1, Convolution: 5, ReLU: 7, LRN: 2, Pooling: 3, InnerProduct: 3, Dropout: 2, Softmax: 1 }],
  ['googlenet/deploy.prototxt', 'V2', 143, { Input: 1, Convolution: 57, ReLU: 57, Pooling: 14, LRN: 2, Concat: 9, Dropout: 1, InnerProduct: 1, Softmax: 1 }],
  ['resnet-50/ResNet-50-deploy.prototxt', 'V2', 228, { Convolution: 53, BatchNorm: 53, Scale: 53, ReLU: 49, Pooling: 2, Eltwise: 16, InnerProduct: 1, Softmax: 1 }],
  ['squeezenet-v1.1/deploy.prototxt', 'V2', 67, { Input: 1, Convolution: 26, ReLU: 26, Pooling: 4, Concat: 8, Dropout: 1, Softmax: 1 }],
  ['mobilenet-v1/mobilenet_deploy.prototxt', 'V2', 111, { Convolution: 28, BatchNorm: 27, Scale: 27, ReLU: 27, Pooling: 1, Softmax: 1 }],
  ['vgg16/deploy.prototxt', 'V2', 39, { Convolution: 13, ReLU: 15, Pooling: 5, InnerProduct: 3, Dropout: 2, Softmax: 1 }],
  ['cifar10-quick/cifar10_quick.prototxt', 'V2', 13, { Input: 1, Convolution: 3, Pooling: 3, ReLU: 3, InnerProduct: 2, Softmax: 1 }],
  ['cifar10-quick/cifar10_quick.v1.prototxt', 'V1', 12, { CONVOLUTION: 3, POOLING: 3, RELU: 3, INNER_PRODUCT: 2, SOFTMAX: 1 }],
  ['mtcnn/det1.prototxt', 'V2', 10, { Convolution: 5, PReLU: 3, Pooling: 1, Softmax: 1 }],
  ['mtcnn/det2.prototxt', 'V2', 13, { Convolution: 3, PReLU: 4, Pooling: 2, InnerProduct: 3, Softmax: 1 }],
  ['legacy/lenet.v0.prototxt', 'V0', 8, { conv: 2, pool: 2, innerproduct: 2, relu: 1, softmax: 1 }],
  ['legacy/lenet.v1.prototxt', 'V1', 8, { CONVOLUTION: 2, POOLING: 2, INNER_PRODUCT: 2, RELU: 1, SOFTMAX: 1 }],
  ['legacy/caffenet_deploy.v0.prototxt', 'V0', 23, { conv: 5, relu: 7, pool: 3, lrn: 2, innerproduct: 3, dropout: 2, softmax: 1 }],
  ['legacy/caffenet_deploy.v1.prototxt', 'V1', 23, { CONVOLUTION: 5, RELU: 7, POOLING: 3, LRN: 2, INNER_PRODUCT: 3, DROPOUT: 2, SOFTMAX: 1 }],
  ['legacy/caffenet_deploy.v2-input_dim.prototxt', 'V2', 23, { Convolution: 5, ReLU: 7, Pooling: 3, LRN: 2, InnerProduct: 3, Dropout: 2, Softmax: 1 }],
  ['legacy/caffenet_deploy.v2-input_shape.prototxt', 'V2', 23, { Convolution: 5, ReLU: 7, Pooling: 3, LRN: 2, InnerProduct: 3, Dropout: 2, Softmax: 1 }],
  ['legacy/googlenet_deploy.v1.prototxt', 'V1', 142, { CONVOLUTION: 57, RELU: 57, POOLING: 14, LRN: 2, CONCAT: 9, DROPOUT: 1, INNER_PRODUCT: 1, SOFTMAX: 1 }],
  ['legacy/vgg16_deploy.v1.prototxt', 'V1', 39, { CONVOLUTION: 13, RELU: 15, POOLING: 5, INNER_PRODUCT: 3, DROPOUT: 2, SOFTMAX: 1 }],
];

describe('prototxt reader', () => {
  it.each(TABLE)('%s opens as %s with the README layer counts', (file, version, n, types) => {
    const r = readPrototxt(text(file), file);
    expect(r.version).toBe(version);
    const written = version === 'V2' ? messages(r.original, 'layer') : messages(r.original, 'layers');
    expect(written.length).toBe(n);
    expect(typeCounts(written, version === 'V0' ? 'layer' : 'type')).toEqual(types);
    // after upgrading: V2 layers only, plus an Input layer when the file had legacy inputs
    const hadLegacyInput = r.original.input !== undefined;
    expect(messages(r.net, 'layer').length).toBe(n + (hadLegacyInput ? 1 : 0));
    expect(r.net.layers).toBeUndefined();
    expect(r.net.input).toBeUndefined();
    expect(sniffCaffe(new TextEncoder().encode(text(file)))).toBe('net');
  });

  it('reports unknown fields and syntax errors with file and line:column', () => {
    const bad = 'name: "x"\nlayer {\n  name: "a"\n  typo: 3\n}\n';
    expect(() => readPrototxt(bad, 'bad.prototxt')).toThrow("bad.prototxt: line 4:3: unknown field 'typo' in caffe.LayerParameter");
    try {
      readPrototxt('layer { name: "a" ', 'cut.prototxt');
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).info).toMatchObject({ kind: 'syntax', file: 'cut.prototxt', line: 1 });
    }
    expect(() => readPrototxt('layer { type: CONVOLUTION }', 'e.prototxt')).toThrow(/line 1:15: .*takes a string/);
    expect(() => readPrototxt('   \n', 'blank.prototxt')).toThrow(/empty/);
    expect(() => readPrototxt(new Uint8Array([0x0a, 0x03, 0x00, 0x01, 0x02]), 'bin.prototxt')).toThrow(/binary/);
  });

  it('accepts CRLF line ends and a UTF-8 byte order mark (skipped)', () => {
    const t = '\ufeffname: "n"\r\nlayer {\r\n  name: "a"\r\n  type: "ReLU"\r\n}\r\n';
    const r = readPrototxt(t, 'crlf.prototxt');
    expect(r.net.name).toBe('n');
    expect(r.layerSources[0]).toEqual({ line: 2, column: 7 });
  });

  it('reads a solver and the net it names', () => {
    const s = readSolver('net: "examples/mnist/lenet_train_test.prototxt"\nbase_lr: 0.01\nsolver_mode: GPU\n', 'lenet_solver.prototxt');
    expect(s.netPath).toBe('examples/mnist/lenet_train_test.prototxt');
    expect(sniffCaffe(new TextEncoder().encode('net: "a"\nbase_lr: 0.1\n'))).toBe('solver');
    expect(sniffCaffe(new Uint8Array([0x0a, 0x05, 0x4c, 0x65, 0x4e, 0x65, 0x74, 0x12, 0x00]))).toBe('binary');
  });

  it('mutated prototxt text gives a FormatError or a result, never another exception', () => {
    const base = text('mtcnn/det2.prototxt');
    const alphabet = ['{', '}', ':', '"', '#', '\n', ' ', 'layer', 'x', '-', '1.5e', "'", '<', '>', '[', ']', ',', ';', '\\', '\u0000'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length), fc.nat(6), fc.constantFrom(...alphabet)), { minLength: 1, maxLength: 6 }), (edits) => {
        let t = base;
        for (const [at, del, ins] of edits) t = t.slice(0, at) + ins + t.slice(Math.min(t.length, at + del));
        try {
          readPrototxt(t, 'm.prototxt');
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
          expect(e.info.file).toBe('m.prototxt');
          expect(e.info.line ?? e.info.offset).toBeDefined();
        }
      }),
      { numRuns: 300 },
    );
  });
});
