/**
 * The `runLoadable` capability (the one the Run view, the CLI and the bench use) as the worker drives it: an NVDLA golden opened as a document,
 * run on a real MNIST digit, compared with the Caffe float pass of the LeNet document through its
 * `run` service, and a calibration made from that Caffe document.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { openDocument, serviceOf } from '../document';
import { FormatError } from '../errors';
import type { SourceFile } from '../format';
import { writeNpy } from '../caffe/npy';
import { goldenBytes } from '../../../test/support/nvdla/golden';
import { FIXTURES } from '../../../test/support/nvdla/fixtures';
import { calibrateCaffe } from './caffe-calibration';
import { KERNELS_FROM_BYTES, inputValues, loadableRunPlan, loadableRunService } from './run-service';
import { decodeTasks, type DlaTask } from '../loadable/tasks';
import { read } from '../loadable/read';
import { compileNvdla } from '../nvdla/compile';
import { readDeploy, readWeights } from '../nvdla/network/caffe-files';
import { syntheticCaffemodel } from '../../../test/support/nvdla/fixtures';

const require = createRequire(import.meta.url);
/** MNIST digit `d` (the `mnist` package: 784 values in 0..1) */
function digit(d: number): Float32Array {
  return Float32Array.from(JSON.parse(readFileSync(require.resolve(`mnist/src/digits/${d}.json`), 'utf8')).data.slice(0, 784) as number[]);
}

const caffeFiles = (): SourceFile[] =>
  ['lenet.prototxt', 'lenet_iter_10000.caffemodel'].map((name) => ({ name, bytes: new Uint8Array(readFileSync(join(FIXTURES, 'caffe/lenet', name))) }));

async function loadableDoc(name: string) {
  return openDocument([{ name: `${name}.nvdla`, bytes: goldenBytes(name) }]);
}

describe('plan', () => {
  it('fp16: the input and output tensors, no warning', async () => {
    const doc = await loadableDoc('lenet-b1-nv_small-fp16-fast-math');
    expect(doc.summary.capabilities).toContain('runLoadable');
    const plan = serviceOf(doc, 'runLoadable').plan();
    expect(plan.precision).toBe('fp16');
    expect(plan.inputs.map((t) => [t.name, t.shape.join('x')])).toEqual([['data', '1x4x28x28']]);
    expect(plan.outputs.map((t) => t.shape.join('x'))).toEqual(['1x10x1x1']);
    expect(plan.uncalibrated).toBeNull();
    expect(plan.warnings).toEqual([]);
    expect(plan.problems).toEqual([]);
    expect(plan.hardware).toBe('nv_small');
  });

  it('int8 compiled without a calibration table: says the results are meaningless; with one it does not', () => {
    const plain = loadableRunPlan(decodeTasks(read(goldenBytes('lenet-b1-nv_full-int8-fast-math'), 'a.nvdla')));
    expect(plain.uncalibrated).toBe(true);
    expect(plain.warnings.join(' ')).toMatch(/without a calibration table.*meaningless/);
    const calib = loadableRunPlan(decodeTasks(read(goldenBytes('lenet-b1-nv_full-int8-fast-math-calib'), 'b.nvdla')));
    expect(calib.uncalibrated).toBe(false);
    expect(calib.warnings.join(' ')).not.toMatch(/meaningless/);
  });
});

describe('a loadable that cannot run', () => {
  it('the damage is named by task, op slot and field', () => {
    const bytes = Uint8Array.from(goldenBytes('lenet-b1-nv_small-fp16-fast-math'));
    const l = read(bytes, 'x.nvdla');
    const common = (decodeTasks(l).tasks[0] as DlaTask).slots[2]!.common;
    l.blobs.find((b) => b.name === common.blob)!.data[common.fields.find((f) => f.name === 'op_type')!.offset] = 9;
    const plan = loadableRunPlan(decodeTasks(read(bytes, 'x.nvdla')));
    expect(plan.problems[0]).toBe('task 0 (DLA) op slot 2 (op_type 9), field common.op_type: 9 is not a known value of op_type');
  });
});

describe('inputs', () => {
  const spec = { kind: 'input' as const, bindId: 0, memId: 3, name: 'data', shape: [1, 4, 2, 3] as [number, number, number, number], dataType: 'fp16' as const, format: 'A16B16G16R16_F', size: 48, needsScale: false };
  it('an .npy of one item with fewer channels than the descriptor keeps its channels', () => {
    const values = Float32Array.from({ length: 6 }, (_, i) => i);
    const r = inputValues(spec, { kind: 'array', file: 'x.npy', bytes: writeNpy([1, 1, 2, 3], values) }, 1, 'f');
    expect(r.shape).toEqual([1, 1, 2, 3]);
    expect(Array.from(r.values)).toEqual([0, 1, 2, 3, 4, 5]);
  });
  it('an .npy that fits no channel count is an error naming the shapes', () => {
    expect(() => inputValues(spec, { kind: 'array', file: 'x.npy', bytes: writeNpy([7], new Float32Array(7)) }, 1, 'f')).toThrow(/shape \[7\].*1 x C x 2 x 3/);
  });
  it('an image: gray is one channel, resized', () => {
    const pixels = { width: 1, height: 1, data: new Uint8Array([255, 255, 255, 255]) };
    const r = inputValues(spec, { kind: 'image', file: 'p.png', pixels, scale: 1 / 255, mean: [0], color: 'gray' }, 1, 'f');
    expect(r.shape).toEqual([1, 1, 2, 3]);
    expect(Array.from(r.values)).toEqual([1, 1, 1, 1, 1, 1]);
  });
  it('seeded random values are the same for the same seed', () => {
    const a = inputValues(spec, { kind: 'random', seed: 3 }, 3, 'f');
    expect(a.shape).toEqual([1, 3, 2, 3]);
    expect(Array.from(inputValues(spec, { kind: 'random', seed: 3 }, 3, 'f').values)).toEqual(Array.from(a.values));
  });
});

describe('run, surfaces and the comparison with the Caffe float pass', () => {
  it('LeNet nv_small fp16 on MNIST 7: class 7, every compared layer above 40 dB, heatmap planes', async () => {
    const doc = await loadableDoc('lenet-b1-nv_small-fp16-fast-math');
    const service = serviceOf(doc, 'runLoadable');
    const seen: string[] = [];
    const outcome = await service.run(
      { input: { kind: 'array', file: '7.npy', bytes: writeNpy([1, 1, 28, 28], digit(7)) }, calibration: null },
      { onProgress: (p) => void seen.push(`${p.done}/${p.total}`) },
    );
    expect(seen.at(-1)).toBe('11/11');
    expect(outcome.outputs[0]!.top![0]!.index).toBe(7);
    expect(outcome.slots.map((s) => s.engine)).toEqual(['CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'CONV', 'SDP', 'EMU SOFTMAX']);
    expect(outcome.slots.map((s) => s.node)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    const conv1 = service.surface(1, 3);
    expect([conv1.height, conv1.width]).toEqual([24, 24]);

    const caffe = await openDocument(caffeFiles());
    const cmp = await service.compare(serviceOf(caffe, 'run'), caffeFiles());
    expect(cmp.rows.map((r) => r.layer)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'relu1', 'ip2', 'prob']);
    expect(cmp.rows.filter((r) => !(r.metrics.snrDb > 40)).map((r) => `${r.layer} ${r.metrics.snrDb}`)).toEqual([]);
    expect(cmp.top1).toEqual({ loadable: 7, caffe: 7 });
    expect(cmp.matchedWith).toMatch(/nv_small.*fp16.*fast-math/);
    expect(cmp.skipped.map((s) => s.engine)).toEqual(['CONV', 'CONV', 'CONV', 'CONV']);
    const planes = service.comparePlanes(cmp.rows[0]!.order, 0);
    expect([planes.loadable.height, planes.caffe.height, planes.difference.width]).toEqual([24, 24, 24]);
    const bad: string[] = [];
    planes.difference.values.forEach((v, i) => {
      if (Math.abs(v - (planes.loadable.values[i]! - planes.caffe.values[i]!)) > 1e-6) bad.push(`${i}`);
    });
    expect(bad).toEqual([]);
  }, 60_000);

  it('LeNet nv_full fp16: conv1 loses precision (nvdla_compiler post-extension rows), and the chart says so', async () => {
    const doc = await loadableDoc('lenet-b1-nv_full-fp16-fast-math');
    const service = serviceOf(doc, 'runLoadable');
    const outcome = await service.run({ input: { kind: 'array', file: '7.npy', bytes: writeNpy([1, 1, 28, 28], digit(7)) }, calibration: null });
    expect(outcome.warnings.join(' ')).toMatch(/post_extension/);
    const caffe = await openDocument(caffeFiles());
    const cmp = await service.compare(serviceOf(caffe, 'run'), caffeFiles());
    expect(cmp.rows[0]!.layer).toBe('conv1');
    expect(cmp.rows[0]!.metrics.snrDb).toBeLessThan(20);
  }, 60_000);

  it('surfaces and planes before a run are a FormatError, not a crash', async () => {
    const service = serviceOf(await loadableDoc('lenet-b1-nv_small-fp16-fast-math'), 'runLoadable');
    expect(() => service.surface(0, 0)).toThrow(FormatError);
    expect(() => service.comparePlanes(0, 0)).toThrow(/compare the run first|run the loadable first/);
  });

  it('cancelled between op slots', async () => {
    const service = serviceOf(await loadableDoc('lenet-b1-nv_small-fp16-fast-math'), 'runLoadable');
    const signal = { aborted: false };
    const e = await service
      .run({ input: { kind: 'random', seed: 1 }, calibration: null }, { signal, onProgress: (p) => void (p.done === 2 && (signal.aborted = true)) })
      .catch((x: unknown) => x);
    expect((e as FormatError).info.kind).toBe('cancelled');
  });
});

describe('calibration from the Caffe document', () => {
  it('three digits: a scale per layer and input, pools tied to their input, max >= entropy thresholds', async () => {
    const caffe = await openDocument(caffeFiles(), { batch: 1 });
    const run = serviceOf(caffe, 'run');
    const batch = run.plan().inputs[0]!.shape;
    const inputs = [3, 5, 7].map((d) => {
      const one = digit(d);
      const all = Float32Array.from({ length: batch.reduce((a, b) => a * b, 1) }, (_, i) => one[i % 784]!);
      return { name: `${d}.npy`, value: { kind: 'array' as const, file: `${d}.npy`, bytes: writeNpy(batch, all) } };
    });
    const progress: number[] = [];
    const c = await calibrateCaffe(run, caffeFiles(), inputs, { onProgress: (p) => void progress.push(p.done) });
    expect(progress).toEqual([1, 2, 3]);
    const max = c.result({ kind: 'max' });
    expect(Object.keys(max.table)).toEqual(['data', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
    expect(max.table.data!.scale).toBeCloseTo(1 / 127, 6);
    expect(max.table.pool1!.scale).toBe(max.table.conv1!.scale);
    expect(max.rows.find((r) => r.name === 'pool2')!.tiedTo).toBe('conv2');
    const entropy = c.result({ kind: 'entropy' });
    const wider = entropy.rows.filter((r) => r.threshold > max.rows.find((m) => m.name === r.name)!.threshold + 1e-9).map((r) => r.name);
    expect(wider).toEqual([]);
    expect(max.inputs).toBe(3);
  }, 60_000);

  it('a Concat: every input takes the Concat\'s scale (the concatenation places their int8 values side by side unscaled)', async () => {
    const deploy = [
      'name: "cat"',
      'input: "data"',
      'input_shape { dim: 1 dim: 2 dim: 6 dim: 6 }',
      'layer { name: "a" type: "Convolution" bottom: "data" top: "a" convolution_param { num_output: 4 kernel_size: 3 pad: 1 } }',
      'layer { name: "b" type: "Convolution" bottom: "data" top: "b" convolution_param { num_output: 4 kernel_size: 1 } }',
      'layer { name: "bp" type: "Pooling" bottom: "b" top: "bp" pooling_param { pool: MAX kernel_size: 3 stride: 1 pad: 1 } }',
      'layer { name: "cat" type: "Concat" bottom: "a" bottom: "bp" top: "cat" }',
    ].join('\n');
    const deployBytes = new TextEncoder().encode(deploy);
    const files: SourceFile[] = [
      { name: 'cat.prototxt', bytes: deployBytes },
      { name: 'cat.caffemodel', bytes: syntheticCaffemodel(readDeploy(deploy, 'cat.prototxt')) },
    ];
    const caffe = await openDocument(files, { batch: 1 });
    const run = serviceOf(caffe, 'run');
    const values = Float32Array.from({ length: 72 }, (_, i) => Math.sin(i * 0.7) * 3);
    const c = await calibrateCaffe(run, files, [{ name: 'x.npy', value: { kind: 'array', file: 'x.npy', bytes: writeNpy([1, 2, 6, 6], values) } }]);
    const max = c.result({ kind: 'max' });
    expect(Object.fromEntries(max.rows.filter((r) => r.tiedTo).map((r) => [r.name, r.tiedTo]))).toEqual({ a: 'cat', b: 'cat', bp: 'cat' });
    expect(new Set(['a', 'b', 'bp', 'cat'].map((n) => max.table[n]!.scale)).size).toBe(1);
    // the Concat's own range covers both inputs', so no input is clipped by the shared scale
    const absmax = (n: string) => max.rows.find((r) => r.name === n)!.absmax;
    expect(absmax('cat')).toBe(Math.max(absmax('a'), absmax('bp')));
  }, 60_000);
});

describe('one service for the Run view, the CLI and the bench', () => {
  const golden = (name: string) => loadableRunService(decodeTasks(read(goldenBytes(name), `${name}.nvdla`)));

  it('plans: tensors, hardware, the output scales the loadable holds', () => {
    const p = golden('lenet-b1-nv_full-int8-fast-math').plan();
    expect([...p.inputs, ...p.outputs].map((t) => `${t.kind} ${t.name} ${t.shape.join('x')} ${t.dataType} ${t.format}`)).toEqual(['input data 1x4x28x28 int8 A8B8G8R8', 'output prob 1x10x1x1 int8 FEATURE']);
    expect(p.hardware).toBe('nv_full');
    expect(p.outputScales).toEqual({ prob: 127 });
    expect(p.ops).toBe(golden('lenet-b1-nv_full-int8-fast-math').plan().ops);
    const calib = golden('lenet-b1-nv_full-int8-fast-math-calib').plan();
    expect(calib.outputScales.prob).toBeCloseTo(0.0079, 6);
    expect(golden('lenet-b1-nv_small-fp16-fast-math').plan().outputScales).toEqual({});
    // LeNet's memory is far below the size from which the float kernels are used
    const lenet = golden('lenet-b1-nv_small-fp16-fast-math').plan().memoryBytes;
    expect(lenet).toBe(read(goldenBytes('lenet-b1-nv_small-fp16-fast-math'), 'm.nvdla').memory_list.reduce((a, m) => a + m.size, 0));
    expect(lenet).toBeGreaterThan(400_000);
    expect(lenet).toBeLessThan(KERNELS_FROM_BYTES);
  });

  it('float values in: every progress step, the whole output, a plane of every surface', async () => {
    const s = golden('lenet-b1-nv_small-fp16-fast-math');
    const progress: number[] = [];
    const out = await s.run({ input: { kind: 'values', file: 'half', values: new Float32Array(784).fill(0.5) }, calibration: null }, { onProgress: (p) => void progress.push(p.done) });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(out.outputs[0]).toMatchObject({ name: 'prob', shape: [1, 10, 1, 1], dataType: 'fp16', scale: null });
    expect(out.outputs[0]!.top!.length).toBe(5);
    expect(out.outputs[0]!.values.length).toBe(10);
    expect(out.outputs[0]!.values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    const pool1 = s.surface(2, 19);
    expect(pool1).toMatchObject({ channel: 19, height: 12, width: 12 });
    expect(pool1.values.length).toBe(144);
    expect(() => s.surface(2, 20)).toThrow(FormatError);
    expect(() => s.surface(99, 0)).toThrow(FormatError);
  });

  it("int8: the table's scales, else the loadable's own output scale, else nvdla_compiler's defaults with a warning", async () => {
    const s = golden('lenet-b1-nv_full-int8-fast-math');
    const none = await s.run({ input: { kind: 'random', seed: 3 }, calibration: null });
    expect(none.warnings.join('\n')).toMatch(/no calibration table was given, so it is quantised with scale 1/);
    expect(none.inputScale).toBe(1);
    expect(none.outputs[0]).toMatchObject({ scale: 127, scaleSource: "the loadable's own (the EMU op's output_scale_factor)" });
    const given = await s.run({ input: { kind: 'random', seed: 3 }, calibration: { data: { scale: 1 / 255 }, prob: { scale: 1 / 127 } } });
    expect(given.inputScale).toBe(1 / 255);
    expect(given.outputs[0]).toMatchObject({ scale: 1 / 127, scaleSource: "the calibration table's scale for 'prob'" });
    expect(given.warnings.join('\n')).not.toMatch(/quantised with scale 1/);
    // a table given: the plan's request for one is not repeated (the constant-scale warning is, this loadable has none)
    const calibrated = loadableRunService(decodeTasks(read(goldenBytes('lenet-b1-nv_full-int8-fast-math-calib'), 'c.nvdla')));
    expect(calibrated.plan().warnings.join('\n')).toMatch(/give the calibration table it was compiled with/);
    const withTable = await calibrated.run({ input: { kind: 'random', seed: 3 }, calibration: { data: { scale: 1 / 255 } } });
    expect(withTable.warnings.join('\n')).not.toMatch(/give the calibration table/);
    expect(withTable.outputs[0]!.scaleSource).toBe("the loadable's own (the EMU op's output_scale_factor)");
  });

  it('runs again from the kept memory images and weights with the same results as a fresh service', async () => {
    const l = read(goldenBytes('lenet-b1-nv_full-int8-fast-math'), 'a.nvdla');
    const s = loadableRunService(decodeTasks(l));
    const req = { input: { kind: 'random' as const, seed: 5 }, calibration: { data: { scale: 1 / 100 } } };
    const first = await s.run(req);
    const second = await s.run(req);
    const fresh = await golden('lenet-b1-nv_full-int8-fast-math').run(req);
    expect(Array.from(second.outputs[0]!.values)).toEqual(Array.from(fresh.outputs[0]!.values));
    expect(Array.from(first.outputs[0]!.values)).toEqual(Array.from(fresh.outputs[0]!.values));
    expect(second.slots.map((x) => x.output)).toEqual(fresh.slots.map((x) => x.output));
    // the blobs the runs read from stay as the file has them
    expect(Array.from(l.blobs[0]!.data)).toEqual(Array.from(read(goldenBytes('lenet-b1-nv_full-int8-fast-math'), 'b.nvdla').blobs[0]!.data));
  });

  it('names what is wrong with a request', async () => {
    const s = golden('lenet-b1-nv_small-fp16-fast-math');
    await expect(s.run({ input: { kind: 'values', file: 'short', values: new Float32Array(100) }, calibration: null })).rejects.toThrow(/shape \[100\].*1 x C x 28 x 28/);
    await expect(s.run({ input: { kind: 'values', file: 'short', values: new Float32Array(100) }, calibration: null })).rejects.toBeInstanceOf(FormatError);
    // an nv_small loadable forced onto nv_full's 32-byte atoms: its descriptors do not fit, and the error says where
    await expect(s.run({ input: { kind: 'random', seed: 1 }, calibration: null, hardware: 'nv_full' })).rejects.toThrow(/task 0 \(DLA\) op slot 1 \(SDP\): surface\.dst_data\.line_stride: line stride 192 is less than a line of 24 atoms of 32 bytes/);
    await expect(s.run({ input: { kind: 'random', seed: 1 }, calibration: null, hardware: 'nv_small' })).resolves.toMatchObject({ hardware: 'nv_small' });
  });
});

describe('a loadable our compiler writes, against the Caffe float pass', () => {
  it('BatchNorm + Scale + ReLU + Eltwise (fp16 nv_full, seeded weights): both SDP outputs at cosine > 0.999 and above 40 dB', async () => {
    const prototxt = new Uint8Array(readFileSync(join(FIXTURES, 'nvdla/oracle/small/bn-scale-relu.prototxt')));
    const deploy = readDeploy(new TextDecoder().decode(prototxt), 'bn-scale-relu.prototxt');
    const caffemodel = syntheticCaffemodel(deploy);
    const compile = compileNvdla(deploy, readWeights(caffemodel, 'bn-scale-relu.caffemodel'), { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math' });
    expect(compile.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const service = loadableRunService(decodeTasks(read(compile.bytes!, 'bn-scale-relu.nvdla')));
    const outcome = await service.run({ input: { kind: 'random', seed: 5 }, calibration: null });
    expect(outcome.slots.filter((s) => s.engine === 'CONV').length).toBeGreaterThanOrEqual(2);
    const files: SourceFile[] = [
      { name: 'bn-scale-relu.prototxt', bytes: prototxt },
      { name: 'bn-scale-relu.caffemodel', bytes: caffemodel },
    ];
    const caffe = await openDocument(files);
    const cmp = await service.compare(serviceOf(caffe, 'run'), files);
    // the batch-norms, scales and the eltwise sum are folded into SDP ops whose origins name them
    expect(cmp.rows.map((r) => `${r.engine} ${r.layer}`)).toEqual(['SDP r1', 'SDP r2']);
    expect(new Set(cmp.rows.flatMap((r) => r.layers))).toEqual(new Set(['c1', 'bn1', 's1', 'r1', 'c2', 'bn2', 's2', 'sum', 'r2']));
    expect(cmp.rows.filter((r) => !(r.metrics.cosine > 0.999)).map((r) => `${r.layer} ${r.metrics.cosine}`)).toEqual([]);
    expect(cmp.rows.filter((r) => !(r.metrics.snrDb > 40)).map((r) => `${r.layer} ${r.metrics.snrDb}`)).toEqual([]);
    expect(cmp.rows.filter((r) => r.metrics.nonFinite > 0).map((r) => r.layer)).toEqual([]);
  }, 60_000);

  it('a layer split into partial-height bands (fp16 nv_full): one row naming its band slots, the heatmaps of the whole stitched surface', async () => {
    // conv2's input, 32 x 128 x 128 fp16 (1 MiB), does not fit nv_full's 512 KiB convolution buffer
    const text = [
      'name: "banded"',
      'layer { name: "data" type: "Input" top: "data" input_param { shape { dim: 1 dim: 3 dim: 128 dim: 128 } } }',
      'layer { name: "conv1" type: "Convolution" bottom: "data" top: "conv1" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }',
      'layer { name: "relu1" type: "ReLU" bottom: "conv1" top: "conv1" }',
      'layer { name: "conv2" type: "Convolution" bottom: "conv1" top: "conv2" convolution_param { num_output: 32 kernel_size: 3 pad: 1 } }',
      'layer { name: "relu2" type: "ReLU" bottom: "conv2" top: "conv2" }',
    ].join('\n');
    const deploy = readDeploy(text, 'banded.prototxt');
    const caffemodel = syntheticCaffemodel(deploy);
    const compile = compileNvdla(deploy, readWeights(caffemodel, 'banded.caffemodel'), { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math' });
    expect(compile.diagnostics.filter((d) => d.severity === 'error').map((d) => d.message)).toEqual([]);
    const service = loadableRunService(decodeTasks(read(compile.bytes!, 'banded.nvdla')));
    const outcome = await service.run({ input: { kind: 'random', seed: 3 }, calibration: null });
    const files: SourceFile[] = [
      { name: 'banded.prototxt', bytes: new TextEncoder().encode(text) },
      { name: 'banded.caffemodel', bytes: caffemodel },
    ];
    const caffe = await openDocument(files);
    const cmp = await service.compare(serviceOf(caffe, 'run'), files);
    expect(cmp.rows.map((r) => r.layer)).toEqual(['relu1', 'relu2']);
    const relu2 = cmp.rows[1]!;
    const bandSlots = outcome.slots.filter((s) => s.engine === 'SDP').map((s) => s.slot).slice(1);
    expect(bandSlots.length).toBeGreaterThan(1);
    expect(relu2.bands?.slots).toEqual(bandSlots);
    expect(relu2.bands?.label).toBe(`${bandSlots.join(', ')} (${bandSlots.length} bands)`);
    expect(relu2.bands?.nodes).toEqual(bandSlots.map((slot) => outcome.slots.find((s) => s.slot === slot)!.node));
    expect(relu2.shape).toEqual([32, 128, 128]);
    expect(relu2.metrics.cosine).toBeGreaterThan(0.999);
    expect(cmp.skipped.filter((s) => s.engine !== 'CONV')).toEqual([]);
    const planes = service.comparePlanes(relu2.order, 5);
    expect([planes.loadable.height, planes.loadable.width, planes.caffe.height]).toEqual([128, 128, 128]);
    expect(planes.loadable.key).toMatch(/bands/);
    const far: number[] = [];
    planes.difference.values.forEach((v, i) => {
      if (Math.abs(v) > 1e-2 * (1 + Math.abs(planes.caffe.values[i]!))) far.push(i);
    });
    expect(far.slice(0, 5)).toEqual([]);
  }, 60_000);
});
