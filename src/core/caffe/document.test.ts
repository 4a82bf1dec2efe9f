import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { buildFindIndex, find } from '../graph/find';
import { openCaffeDocument, type CaffeTensorDetails } from './document';
import { caffeFormat } from './format';
import { GRAPH_FOLDED, GRAPH_LAYERS } from './graph';
import { openCaffeModel } from './model';

const dir = 'test/fixtures/caffe/';
const file = (f: string) => ({ name: f.split('/').pop()!, bytes: new Uint8Array(readFileSync(dir + f)) });

describe('merge of deploy + weights (CopyTrainedLayersFrom)', () => {
  it('LeNet: every weight layer matched, training layers ignored', () => {
    const m = openCaffeModel([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')]);
    expect(m.merge!.rows.map((r) => `${r.layer}:${r.status}`)).toEqual(['mnist:ignored', 'conv1:matched', 'conv2:matched', 'ip1:matched', 'ip2:matched', 'loss:ignored']);
    expect(m.merge!.diagnostics).toEqual([]);
  });

  it('CIFAR-10 V2 deploy with V1 weights matches through the legacy 4-D shape rule', () => {
    const m = openCaffeModel([file('cifar10-quick/cifar10_quick.prototxt'), file('cifar10-quick/cifar10_quick_iter_5000.caffemodel')]);
    const ip1 = m.merge!.rows.find((r) => r.layer === 'ip1')!;
    expect(ip1).toMatchObject({ status: 'matched', shapes: [[1, 1, 64, 1024], [1, 1, 1, 64]], expected: [[64, 1024], [64]] });
    expect(m.net.layers.find((l) => l.name === 'ip1')!.weights.map((w) => w.shape)).toEqual([[64, 1024], [64]]);
  });

  it('MTCNN det2: the extra conv5-3 of the weights file is ignored', () => {
    const m = openCaffeModel([file('mtcnn/det2.prototxt'), file('mtcnn/det2.caffemodel')]);
    expect(m.merge!.rows.find((r) => r.layer === 'conv5-3')).toMatchObject({ status: 'ignored', shapes: [[10, 128], [10]] });
    expect(m.merge!.rows.filter((r) => r.status === 'matched').length).toBe(3 + 4 + 3);
  });

  it('warns per layer whose blob shapes do not fit and per weight layer with no weights', () => {
    const deploy = new TextEncoder().encode(
      readFileSync(dir + 'lenet/lenet.prototxt', 'utf8').replace('num_output: 500', 'num_output: 400').replace('name: "ip2"', 'name: "classifier"'),
    );
    const m = openCaffeModel([{ name: 'changed.prototxt', bytes: deploy }, file('lenet/lenet_iter_10000.caffemodel')]);
    expect(m.merge!.diagnostics.map((d) => d.message)).toEqual([
      "blob 0 (weights) of layer 'ip1' has shape [500,800] in the weights file, the deploy layer expects [400,800]; the layer keeps no weights",
      "layer 'classifier' (InnerProduct) has learnable blobs but the weights file has no layer of that name: it has no weights",
    ]);
    expect(m.merge!.rows.filter((r) => r.status !== 'matched' && r.status !== 'ignored').map((r) => `${r.layer}:${r.status}`)).toEqual(['ip1:mismatch', 'classifier:missing']);
  });

  it('a caffemodel alone opens with its embedded (training) net', () => {
    const m = openCaffeModel([file('lenet/lenet_iter_10000.caffemodel')], { phase: 'TRAIN' });
    expect(m.net.layers.map((l) => l.name)).toEqual(['mnist', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'loss']);
    expect(m.net.layers[1]!.weights.map((w) => w.origin)).toEqual(['file', 'file']);
    expect(caffeFormat.detect([file('lenet/lenet_iter_10000.caffemodel')])).toBe(true);
    expect(caffeFormat.detect([file('lenet/lenet.prototxt')])).toBe(true);
    expect(caffeFormat.detect([{ name: 'x.txt', bytes: new TextEncoder().encode('hello: 1') }])).toBe(false);
  });
});

describe('file sets', () => {
  it('a solver opens the net it names (looked up beside it) and the weights', () => {
    const solver = { name: 'lenet_solver.prototxt', bytes: new TextEncoder().encode('net: "examples/mnist/lenet_train_test.prototxt"\nbase_lr: 0.01\n') };
    const m = openCaffeModel([solver, file('lenet/lenet_train_test.prototxt'), file('lenet/lenet_iter_10000.caffemodel')]);
    expect(m.solverFile).toBe('lenet_solver.prototxt');
    expect(m.netFile.file).toBe('lenet_train_test.prototxt');
    expect(m.net.layers.map((l) => l.name)).toEqual(['mnist', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'accuracy', 'loss']);
    expect(m.transform).toEqual({ layer: 'mnist', scale: 0.00390625 });
    expect(() => openCaffeModel([solver])).toThrow(/lenet_solver.prototxt: this is a solver file; its net 'examples\/mnist\/lenet_train_test.prototxt' was not among the files opened/);
  });

  it('a deploy beside its train_test takes the input transform defaults from it', () => {
    const m = openCaffeModel([file('lenet/lenet.prototxt'), file('lenet/lenet_train_test.prototxt'), file('lenet/lenet_iter_10000.caffemodel')]);
    expect(m.netFile.file).toBe('lenet.prototxt');
    expect(m.transform).toEqual({ layer: 'mnist', scale: 0.00390625 });
    expect(m.merge!.rows.filter((r) => r.status === 'matched').length).toBe(4);
  });

  it('a V1 caffemodel alone opens upgraded, with its training net', () => {
    const doc = openCaffeDocument([file('cifar10-quick/cifar10_quick_iter_5000.caffemodel')], { phase: 'TRAIN' });
    expect(doc.caffe().netFile).toMatchObject({ encoding: 'binary', version: 'V1' });
    expect(doc.caffe().steps.map((s) => s.id)).toEqual(['V1->V2']);
    expect(doc.services.graph!.graph(GRAPH_LAYERS).nodes.map((n) => n.type).slice(0, 3)).toEqual(['Data', 'Convolution', 'Pooling']);
    expect(doc.caffe().net.layers.find((l) => l.name === 'conv1')!.weights.map((w) => w.shape)).toEqual([[32, 3, 5, 5], [1, 1, 1, 32]]);
  });
});

describe('Caffe document', () => {
  it('every fixture net opens as a document with a graph', () => {
    const unique = [...new Set([...readFileSync(dir + 'README.md', 'utf8').matchAll(/^\| `([\w./-]+\.prototxt)` \|/gm)].map((m) => m[1]!))];
    expect(unique.length).toBe(21);
    const bad: string[] = [];
    for (const n of unique) {
      const doc = openCaffeDocument([file(n)]);
      const g = doc.services.graph!.graph(GRAPH_FOLDED);
      if (g.nodes.length < 3 || doc.diagnostics.some((d) => d.severity === 'error')) bad.push(n);
    }
    expect(bad).toEqual([]);
  });

  it('summarises layer counts by type, parameters, activation memory at the batch, inputs and outputs', () => {
    const doc = openCaffeDocument([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')], { batch: 1 });
    const p = Object.fromEntries(doc.summary.properties.map((x) => [x.name, x.value]));
    expect(p['layer types']).toBe('Input 1, Convolution 2, Pooling 2, InnerProduct 2, ReLU 1, Softmax 1');
    expect(p.parameters).toBe('431080');
    // data 784 + conv1 11520 + pool1 2880 + conv2 3200 + pool2 800 + ip1 500 (relu1 in place) + ip2 10 + prob 10 floats
    expect(p['activation memory']).toBe(`77.0 KiB (${(784 + 11520 + 2880 + 3200 + 800 + 500 + 10 + 10) * 4} bytes) (float32 blobs of one forward pass at batch 1)`);
    const at4 = openCaffeDocument([file('lenet/lenet.prototxt')], { batch: 4 });
    const p4 = Object.fromEntries(at4.summary.properties.map((x) => [x.name, x.value]));
    expect(p4['activation memory']).toMatch(new RegExp(`\\(${(784 + 11520 + 2880 + 3200 + 800 + 500 + 10 + 10) * 16} bytes\\) .* at batch 4\\)$`));
    expect(at4.summary.options).toEqual([expect.objectContaining({ name: 'batch', kind: 'int', value: 4 })]);
    expect(p.inputs).toBe('data float32[1,1,28,28]');
    expect(p.outputs).toBe('prob float32[1,10]');
    expect(p.weights).toMatch(/4 layers matched, 0 mismatched, 0 missing, 2 ignored/);
    expect(doc.summary.formatLabel).toBe('Caffe V2 + lenet_iter_10000.caffemodel');
    expect(doc.summary.buffers).toEqual({ count: 8, bytes: 431080 * 4, external: 0 });
  });

  it('folds in-place layers into their producer, or shows them as nodes', () => {
    const doc = openCaffeDocument([file('resnet-50/ResNet-50-deploy.prototxt')]);
    const folded = doc.services.graph!.graph(GRAPH_FOLDED);
    const conv1 = folded.nodes.find((n) => n.name === 'conv1')!;
    expect(conv1.attributes.filter((a) => a.name === 'inplace').map((a) => a.value)).toEqual(['bn_conv1', 'scale_conv1', 'conv1_relu']);
    expect(conv1.attributes.filter((a) => a.name.endsWith('.type')).map((a) => a.value)).toEqual(['BatchNorm', 'Scale', 'ReLU']);
    // drawn as bands inside conv1's box, each in its own category's colour
    expect(conv1.chain).toEqual([
      { type: 'BatchNorm', name: 'bn_conv1', category: 'Normalization' },
      { type: 'Scale', name: 'scale_conv1', category: 'Layer' },
      { type: 'ReLU', name: 'conv1_relu', category: 'Activation' },
    ]);
    expect(conv1.inputs.map((p) => p.name)).toEqual(['input', 'weights', 'bias', 'bn_conv1.mean', 'bn_conv1.variance', 'bn_conv1.moving average factor', 'scale_conv1.scale', 'scale_conv1.bias']);
    // the box shows the layer's own weights as Netron does (the folded layers' stay in the panel)
    expect(conv1.constants).toEqual([
      { name: 'weights', shape: [64, 3, 7, 7], dtype: 'float32' },
      { name: 'bias', shape: [64], dtype: 'float32' },
    ]);
    expect(folded.nodes.some((n) => n.type === 'BatchNorm')).toBe(false);
    const layers = doc.services.graph!.graph(GRAPH_LAYERS);
    expect(layers.nodes.filter((n) => n.type === 'BatchNorm').length).toBe(53);
    expect(layers.stats.nodes).toBe(228);
    expect(layers.nodes.some((n) => n.chain)).toBe(false);
    // edges carry the blob shapes
    const pool1In = folded.edges.find((e) => folded.nodes[e.to]!.name === 'pool1')!;
    expect(pool1In).toMatchObject({ name: 'conv1', label: 'float32[1,64,112,112]' });
    expect(folded.nodes[pool1In.from]!.name).toBe('conv1');
    expect(folded.nodes.filter((n) => n.kind === 'output').map((n) => n.name)).toEqual(['prob']);
  });

  it('find works as for circle: names, types, tensors, shapes, attributes', () => {
    const doc = openCaffeDocument([file('googlenet/deploy.prototxt')]);
    const g = doc.services.graph!.graph(GRAPH_FOLDED);
    const idx = buildFindIndex(g);
    const names = (q: string) => find(idx, q).results.map((r) => g.nodes[r.node]!.name);
    // quoted: the whole name or a tensor name; pool1 reads the blob conv1/7x7_s2
    expect(names('"conv1/7x7_s2"')).toEqual(['conv1/7x7_s2', 'pool1/3x3_s2']);
    expect(find(idx, '[Concat]').total).toBe(9);
    expect(find(idx, '[Convolution] kernel_size=5').total).toBe(9);
    expect(names('[Pooling] global_pooling=true')).toEqual([]);
    expect(names('10,1024,7,7').length).toBeGreaterThan(0);
    expect(names('/^inception_5b\\/output$/')).toEqual(['inception_5b/output', 'pool5/7x7_s1']);
    // a layer folded into its producer's box is found through its in-place attribute
    expect(names('inplace=conv1/relu_7x7')).toEqual(['conv1/7x7_s2']);
    const layersGraph = doc.services.graph!.graph(GRAPH_LAYERS);
    const li = buildFindIndex(layersGraph);
    expect(find(li, '"conv1/relu_7x7"').results.map((r) => layersGraph.nodes[r.node]!.type)).toEqual(['ReLU']);
  });

  it('node and tensor details: every parameter, weight shapes, first values, statistics and a histogram', () => {
    const doc = openCaffeDocument([file('lenet/lenet.prototxt'), file('lenet/lenet_iter_10000.caffemodel')]);
    const g = doc.services.graph!.graph(GRAPH_FOLDED);
    const ni = g.nodes.findIndex((n) => n.name === 'conv1');
    const d = doc.services.graph!.nodeDetails(GRAPH_FOLDED, ni);
    expect(d.node.attributes.map((a) => `${a.name}=${a.value}`)).toEqual([
      'param[0].lr_mult=1', 'param[1].lr_mult=2', 'num_output=20', 'kernel_size=5', 'stride=1', 'weight_filler.type=xavier', 'bias_filler.type=constant',
    ]);
    expect(d.extra).toEqual([
      { name: 'layer', value: "Convolution 'conv1' (layer 1, line 8:7)" },
      { name: 'weights', value: '[20,1,5,5] [20] from the weights file' },
    ]);
    const w = doc.services.graph!.tensorDetails(GRAPH_FOLDED, d.node.inputs[1]!.tensor) as CaffeTensorDetails;
    expect(w).toMatchObject({ name: 'conv1/weights', shape: [20, 1, 5, 5], constant: true, byteLength: 2000, source: 'weights file lenet_iter_10000.caffemodel' });
    expect(w.values!.first).toHaveLength(64);
    expect(w.values!.count).toBe(500);
    expect(w.histogram!.bins.reduce((a, b) => a + b, 0)).toBe(500);
    expect(w.stats!.std).toBeGreaterThan(0);
    expect(w.values!.min).toBe(Math.min(...(w.values!.first as number[]), w.values!.min));
    const act = doc.services.graph!.tensorDetails(GRAPH_FOLDED, d.node.outputs[0]!.tensor) as CaffeTensorDetails;
    expect(act).toMatchObject({ name: 'conv1', shape: [64, 20, 24, 24], constant: false, values: null, source: 'activation' });
    const noWeights = openCaffeDocument([file('lenet/lenet.prototxt')]);
    const t = noWeights.services.graph!.tensorDetails(GRAPH_FOLDED, noWeights.services.graph!.graph(GRAPH_FOLDED).nodes[1]!.inputs[1]!.tensor) as CaffeTensorDetails;
    expect(t).toMatchObject({ source: 'missing', values: null, shape: [20, 1, 5, 5] });
  });

  it('re-opens with another phase; V1 files carry the upgrade notice', () => {
    const doc = openCaffeDocument([file('lenet/lenet_train_test.prototxt')]);
    expect(doc.caffe().net.layers.map((l) => l.name)).toContain('accuracy');
    const train = doc.reopen({ phase: 'TRAIN' });
    expect(train.caffe().net.layers.map((l) => l.name)).not.toContain('accuracy');
    expect(train.caffe().phase).toBe('TRAIN');
    const v1 = openCaffeDocument([file('cifar10-quick/cifar10_quick.v1.prototxt')]);
    expect(v1.diagnostics.filter((x) => x.source === 'upgrade').map((x) => x.message)).toEqual([
      expect.stringMatching(/^upgrade: upgraded V1 .* nvdla_compiler .* empty network/),
      expect.stringMatching(/^upgrade: turned the legacy 'input'/),
    ]);
    expect(v1.summary.properties.find((x) => x.name === 'format')!.value).toBe('Caffe V1 (prototxt)');
  });
});

describe('hostile input through the whole document', () => {
  it('mutated caffemodel bytes beside a deploy net: a FormatError or a document whose graph and details build', async () => {
    const fc = (await import('fast-check')).default;
    const { FormatError } = await import('../errors');
    const deploy = file('mtcnn/det1.prototxt');
    const base = file('mtcnn/det1.caffemodel').bytes;
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length - 1), fc.nat(255)), { minLength: 1, maxLength: 6 }), (edits) => {
        const b = base.slice();
        for (const [i, v] of edits) b[i] = v;
        for (const set of [[deploy, { name: 'det1.caffemodel', bytes: b }], [{ name: 'det1.caffemodel', bytes: b }]]) {
          try {
            const doc = openCaffeDocument(set);
            doc.services.graph!.graph(GRAPH_FOLDED);
            const g = doc.services.graph!.graph(GRAPH_LAYERS);
            g.nodes.forEach((n, i) => {
              doc.services.graph!.nodeDetails(GRAPH_LAYERS, i);
              for (const p of n.inputs) if (p.constant !== undefined) doc.services.graph!.tensorDetails(GRAPH_LAYERS, p.tensor);
            });
          } catch (e) {
            if (!(e instanceof FormatError)) throw e;
          }
        }
      }),
      { numRuns: 40 },
    );
  });

  it('mutated prototxt text: a FormatError or a document whose graph builds', async () => {
    const fc = (await import('fast-check')).default;
    const { FormatError } = await import('../errors');
    const base = readFileSync(dir + 'squeezenet-v1.1/deploy.prototxt', 'utf8');
    const tokens = ['dim: 0', 'dim: -3', 'dim: 99999999', 'kernel_size: 0', 'group: 7', 'stride: 0', 'top: "data"', 'bottom: "nope"', 'axis: -9', 'num_output: 0', 'pad: 50', '}', '{', 'global_pooling: true', 'type: "Slice"', 'type: "Eltwise"', 'type: "Reshape"'];
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(base.length), fc.constantFrom(...tokens)), { minLength: 1, maxLength: 4 }), (edits) => {
        let t = base;
        for (const [at, tok] of edits) {
          const nl = t.indexOf('\n', at);
          const p = nl < 0 ? t.length : nl;
          t = `${t.slice(0, p)}\n${tok}${t.slice(p)}`;
        }
        try {
          const doc = openCaffeDocument([{ name: 'm.prototxt', bytes: new TextEncoder().encode(t) }]);
          doc.services.graph!.graph(GRAPH_FOLDED);
          doc.services.graph!.graph(GRAPH_LAYERS);
          expect(doc.summary.format).toBe('caffe');
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
        }
      }),
      { numRuns: 150 },
    );
  });
});

describe('NVDLA compile of a Caffe document', () => {
  it('compiles the nets the document has read (no second parse): the same loadable as reading the files for the compiler', async () => {
    const nv = 'test/fixtures/nvdla/';
    const prototxt = { name: 'lenet_n1.prototxt', bytes: new Uint8Array(readFileSync(nv + 'golden/lenet_n1.prototxt')) };
    const caffemodel = { name: 'lenet_iter_10000.caffemodel', bytes: new Uint8Array(readFileSync(nv + 'lenet/lenet_iter_10000.caffemodel')) };
    const doc = openCaffeDocument([prototxt, caffemodel]);
    const { compileNvdla } = await import('../nvdla/compile');
    const { readDeploy, readWeights } = await import('../nvdla/network/caffe-files');
    const direct = compileNvdla(readDeploy(new TextDecoder().decode(prototxt.bytes), prototxt.name), readWeights(caffemodel.bytes, caffemodel.name), { cprecision: 'fp16' });
    // the prototxt's bytes blanked after opening: a compile that read the file again would find it empty
    prototxt.bytes.fill(0x20);
    const compiled = await doc.services.compile!.compile({ options: { cprecision: 'fp16' }, calibration: null }, GRAPH_FOLDED);
    expect(compiled.bytes).not.toBeNull();
    expect(Buffer.from(compiled.bytes!).equals(Buffer.from(direct.bytes!))).toBe(true);
  });
});
