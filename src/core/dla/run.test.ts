/**
 * Whole loadables on the DLA model: every golden nvdla_compiler wrote, loadables our compiler
 * writes, compared layer by layer with a float forward pass of the same Caffe net; and what a
 * damaged loadable does to a run.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FormatError } from '../errors';
import type { Loadable } from '../loadable/model';
import { read } from '../loadable/read';
import { decodeTasks, type DlaTask } from '../loadable/tasks';
import { compileNvdla } from '../nvdla/compile';
import type { CaffeDeploy, CaffeWeights } from '../nvdla/network/caffe-input';
import { parseCalibrationTable } from '../nvdla/calibrate/table';
import type { NvdlaCompileOptions } from '../nvdla/options';
import { seededRandom } from '../random';
import { floatForward } from '../../../test/support/dla/float-reference';
import { CIFAR_GOLDENS, LENET_GOLDENS, goldenBytes } from '../../../test/support/nvdla/golden';
import { fixtureDeploy, fixtureWeights, lenet } from '../../../test/support/nvdla/fixtures';
import { bindInput, bindableTensors, outputValues } from './bindings';
import { CalibrationCollector, deployLayers, int8ScaleTies } from './calibrate';
import { compareSlots, type LayerComparison } from './compare';
import { topK } from './metrics';
import { runLoadable, type DlaRunOptions, type DlaRunResult } from './run';
import { slotLayersOf } from './slot-layers';

const lenetDeploy = () => fixtureDeploy('nvdla/golden/lenet_n1.prototxt');
const cifarDeploy = () => fixtureDeploy('caffe/cifar10-quick/cifar10_quick.prototxt');
const cifarWeights = () => fixtureWeights('caffe/cifar10-quick/cifar10_quick_iter_5000.caffemodel');

function randomInput(n: number, seed: number, lo = 0, hi = 1): Float32Array {
  const rnd = seededRandom(seed);
  return Float32Array.from({ length: n }, () => lo + (hi - lo) * rnd());
}

/** runs `l` on float NCHW `values` of `channels` channels (int8 inputs quantised with `scale`) */
async function run(l: Loadable, values: Float32Array, channels: number, scale: number | null, options: Partial<DlaRunOptions> = {}): Promise<DlaRunResult> {
  const input = bindableTensors(l).find((t) => t.kind === 'input')!;
  const reps = values.length / (channels * input.shape[2] * input.shape[3]);
  const all = reps === input.shape[0] ? values : Float32Array.from({ length: input.shape[0] * values.length }, (_, i) => values[i % values.length]!);
  return runLoadable(l, { inputs: [bindInput(l, input, all, channels, scale)], ...options });
}

function compareWithFloat(r: DlaRunResult, compile: ReturnType<typeof compileNvdla>, deploy: CaffeDeploy, weights: CaffeWeights, input: Float32Array, scale: (layer: string) => number | null = () => null): LayerComparison[] {
  const ref = floatForward(deploy, weights, input);
  const cmp = compareSlots({ run: r, mapping: slotLayersOf(compile), reference: (n) => ref.get(n), scale });
  return cmp.rows;
}

const below = (rows: LayerComparison[], db: number) => rows.filter((r) => r.metrics.snrDb < db).map((r) => `${r.layer} (slot ${r.slot}): ${r.metrics.snrDb.toFixed(1)} dB`);

describe('every golden loadable runs', () => {
  it.each([...LENET_GOLDENS.filter((n) => n.includes('-b1-')), ...CIFAR_GOLDENS])('%s', async (name) => {
    const l = read(goldenBytes(name), `${name}.nvdla`);
    const input = bindableTensors(l).find((t) => t.kind === 'input')!;
    const channels = name.startsWith('cifar') ? 3 : 1;
    const r = await run(l, randomInput(channels * input.shape[2] * input.shape[3], 1), channels, input.needsScale ? 1 / 127 : null);
    const slots = decodeTasks(l).tasks.reduce((n, t) => n + (t.kind === 'DLA' ? t.slots.length : t.kind === 'EMU' ? t.ops.length : 0), 0);
    expect(r.slots.length).toBe(slots);
    expect(r.outputs.map((o) => o.bytes.length)).toEqual(bindableTensors(l).filter((t) => t.kind === 'output').map((t) => t.size));
    // nvdla_compiler post-extends the image convolution on nv_full / nv_large, with its row bug
    const warned = r.warnings.filter((w) => w.field === 'op.post_extension').map((w) => w.place?.slot);
    expect(warned).toEqual(name.includes('nv_small') ? [] : [0]);
    const probs = outputValues(r.outputs[0]!, input.needsScale ? 1 / 127 : null, name).values;
    expect(probs.every(Number.isFinite)).toBe(true);
  });

  it.each(LENET_GOLDENS.filter((n) => n.includes('-b64-')))('%s (64 items, one op slot per item)', async (name) => {
    const l = read(goldenBytes(name), `${name}.nvdla`);
    const input = bindableTensors(l).find((t) => t.kind === 'input')!;
    expect(input.shape[0]).toBe(64);
    // item b gets its own seeded digit-like input; the run must keep items apart
    const values = randomInput(64 * 784, 2);
    const r = await runLoadable(l, { inputs: [bindInput(l, input, values, 1, input.needsScale ? 1 / 127 : null)], captureSurfaces: false });
    const out = outputValues(r.outputs[0]!, input.needsScale ? 1 / 127 : null, name);
    expect(out.shape).toEqual([64, 10, 1, 1]);
    // the same item run alone in the batch-1 golden of the same configuration gives the same output
    const b1 = read(goldenBytes(name.replace('-b64-', '-b1-')), 'b1.nvdla');
    const i1 = bindableTensors(b1).find((t) => t.kind === 'input')!;
    const item = 37;
    const alone = await runLoadable(b1, { inputs: [bindInput(b1, i1, values.subarray(item * 784, (item + 1) * 784), 1, i1.needsScale ? 1 / 127 : null)], captureSurfaces: false });
    expect(Array.from(out.values.subarray(item * 10, item * 10 + 10))).toEqual(Array.from(outputValues(alone.outputs[0]!, i1.needsScale ? 1 / 127 : null, 'b1').values));
  }, 60_000);
});

describe('fp16 against the float forward pass', () => {
  it('LeNet nv_small (golden): every layer above 60 dB, the same class', async () => {
    const l = read(goldenBytes('lenet-b1-nv_small-fp16-fast-math'), 'lenet.nvdla');
    const compile = compileNvdla(lenetDeploy(), lenet().weights, { configtarget: 'nv_small', cprecision: 'fp16', profile: 'fast-math' });
    for (const seed of [1, 2, 3]) {
      const x = randomInput(784, seed);
      const r = await run(l, x, 1, null);
      const rows = compareWithFloat(r, compile, lenetDeploy(), lenet().weights, x);
      expect(rows.map((row) => row.layer)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'relu1', 'ip2', 'prob']);
      expect(below(rows, 60)).toEqual([]);
      const ref = floatForward(lenetDeploy(), lenet().weights, x).get('prob')!.values;
      expect(topK(outputValues(r.outputs[0]!, null, 'l').values, 1)[0]!.index).toBe(topK(ref, 1)[0]!.index);
    }
  });

  it('LeNet nv_full (golden): conv1 is wrong on the hardware (post-extension rows), everything after inherits it', async () => {
    const l = read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'lenet.nvdla');
    const compile = compileNvdla(lenetDeploy(), lenet().weights, { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math' });
    const x = randomInput(784, 4);
    const rows = compareWithFloat(await run(l, x, 1, null), compile, lenetDeploy(), lenet().weights, x);
    expect(rows[0]!.layer).toBe('conv1');
    expect(rows[0]!.metrics.snrDb).toBeLessThan(20);
  });

  it("LeNet nv_full (our compiler, the CSC's post-extended layout): every layer above 60 dB, the same class; no layout warning, where the golden gets one", async () => {
    const compile = compileNvdla(lenetDeploy(), lenet().weights, { configtarget: 'nv_full', cprecision: 'fp16', profile: 'fast-math' });
    const ours = read(compile.bytes!, 'lenet.nvdla');
    const golden = read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'golden.nvdla');
    for (const seed of [4, 5, 6]) {
      const x = randomInput(784, seed);
      const r = await run(ours, x, 1, null);
      const rows = compareWithFloat(r, compile, lenetDeploy(), lenet().weights, x);
      expect(rows.map((row) => row.layer)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'relu1', 'ip2', 'prob']);
      expect(below(rows, 60)).toEqual([]);
      const ref = floatForward(lenetDeploy(), lenet().weights, x).get('prob')!.values;
      expect(topK(outputValues(r.outputs[0]!, null, 'l').values, 1)[0]!.index).toBe(topK(ref, 1)[0]!.index);
      expect(r.warnings.filter((w) => w.field === 'op.post_extension')).toEqual([]);
      // the golden, run on the same input: conv1 far from the network (rows 0, 1, 3, 4, 4), and the model says why
      const g = await run(golden, x, 1, null);
      expect(compareWithFloat(g, compile, lenetDeploy(), lenet().weights, x)[0]!.metrics.snrDb).toBeLessThan(20);
      const warned = g.warnings.filter((w) => w.field === 'op.post_extension').map((w) => w.message);
      expect(warned).toEqual([expect.stringContaining('the weights are laid out as nvdla_compiler lays them, 3 rows apart a stripe (they repeat a kernel row wherever that layout does, 400 places), so the CSC multiplies input rows 0..4 by kernel rows 0, 1, 3, 4, 4')]);
    }
  });

  it('cifar10_quick nv_small (our compiler): exact up to the AVE pools, whose ceil-mode edge windows NVDLA divides by the whole kernel', async () => {
    const compile = compileNvdla(cifarDeploy(), cifarWeights(), { configtarget: 'nv_small', cprecision: 'fp16', profile: 'fast-math' });
    const l = read(compile.bytes!, 'cifar.nvdla');
    const x = randomInput(3 * 1024, 5, -128, 128);
    const r = await run(l, x, 3, null);
    const rows = compareWithFloat(r, compile, cifarDeploy(), cifarWeights(), x);
    expect(below(rows.slice(0, 4), 60)).toEqual([]);
    // pool2: 16x16 -> 8x8 with a 3x3 window and stride 2 (Caffe's ceil mode): the last row and column of windows
    // hang one element past the input; Caffe divides them by 6, NVDLA (padding value 0) by 9. Inside they agree.
    const pool2 = rows.find((row) => row.layer === 'pool2')!;
    const slot = r.slots.find((s) => s.task === pool2.task && s.slot === pool2.slot)!;
    const ref = floatForward(cifarDeploy(), cifarWeights(), x).get('pool2')!.values;
    const bad: string[] = [];
    const v = slot.output!.values!;
    for (let i = 0; i < v.length; i++) {
      const px = i % 8;
      const py = Math.floor(i / 8) % 8;
      const d = Math.abs(v[i]! - ref[i]!);
      if (px < 7 && py < 7 && d > 0.05 * (Math.abs(ref[i]!) + 1)) bad.push(`${i}: ${v[i]} vs ${ref[i]}`);
      if (px === 7 && py < 7 && ref[i]! > 10 && !(Math.abs(v[i]! - (ref[i]! * 6) / 9) < 0.05 * ref[i]! + 0.5)) bad.push(`edge ${i}: ${v[i]} vs ${ref[i]} x 6/9`);
    }
    expect(bad).toEqual([]);
  });
});

describe('int8 with a calibration table made from the float pass', () => {
  const deploy = lenetDeploy();
  const weights = lenet().weights;
  const collector = new CalibrationCollector();
  for (let s = 0; s < 20; s++) {
    const x = randomInput(784, 100 + s);
    collector.add('data', x);
    for (const [layer, blob] of floatForward(deploy, weights, x)) collector.add(layer, blob.values);
    collector.next();
  }
  async function lenetInt8(ties: Record<string, string>) {
    const calib = collector.result({ kind: 'max' }, 'calib', ties);
    const options: Partial<NvdlaCompileOptions> = { configtarget: 'nv_small', cprecision: 'int8', profile: 'fast-math', calibtable: parseCalibrationTable(JSON.stringify(calib.table), 'calib.json') };
    const compile = compileNvdla(deploy, weights, options);
    const l = read(compile.bytes!, 'lenet-int8.nvdla');
    const scale = (layer: string) => calib.table[layer]?.scale ?? null;
    const results = [];
    for (const seed of [7, 8, 9]) {
      const x = randomInput(784, seed);
      const r = await run(l, x, 1, scale('data'));
      const rows = compareWithFloat(r, compile, deploy, weights, x, scale);
      const ref = floatForward(deploy, weights, x).get('prob')!.values;
      results.push({ rows, same: topK(outputValues(r.outputs[0]!, scale('prob'), 'l').values, 1)[0]!.index === topK(ref, 1)[0]!.index });
    }
    return results;
  }

  it('the pooling layers take their input\'s scale', () => {
    expect(int8ScaleTies(deployLayers(deploy))).toEqual({ pool1: 'conv1', pool2: 'conv2' });
    expect(int8ScaleTies(deployLayers(cifarDeploy()))).toEqual({ pool1: 'conv1', pool2: 'relu2', pool3: 'relu3' });
  });

  it('LeNet nv_small (our compiler), pool scales tied: the same class, every layer above 25 dB', async () => {
    for (const { rows, same } of await lenetInt8(int8ScaleTies(deployLayers(deploy)))) {
      expect(rows.length).toBe(7);
      expect(below(rows, 25)).toEqual([]);
      expect(same).toBe(true);
    }
  });

  it('untied (a scale per tensor, as TensorRT tables give): pool2 writes conv2\'s integers, the compiler reads them with pool2\'s scale', async () => {
    const [{ rows }] = await lenetInt8({});
    const snr = Object.fromEntries(rows!.map((r) => [r.layer, r.metrics.snrDb]));
    expect(snr.conv2).toBeGreaterThan(25);
    expect(snr.pool2).toBeLessThan(20);
    expect(snr.relu1).toBeLessThan(20);
  });
});

describe('progress, cancel, inputs', () => {
  const l = () => read(goldenBytes('lenet-b1-nv_small-fp16-fast-math'), 'lenet.nvdla');
  it('reports every op slot and stops when cancelled', async () => {
    const seen: string[] = [];
    const signal = { aborted: false };
    const e = await run(l(), randomInput(784, 1), 1, null, {
      signal,
      onProgress: (p) => {
        seen.push(`${p.done}/${p.total} ${p.engine}`);
        if (p.done === 3) signal.aborted = true;
      },
    }).catch((x: unknown) => x);
    expect(seen).toEqual(['1/11 CONV', '2/11 SDP', '3/11 PDP']);
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).info.kind).toBe('cancelled');
  });

  it('an input not given runs as zeros, with a warning; a wrong size is an error', async () => {
    const r = await runLoadable(l(), { inputs: [] });
    expect(r.warnings.map((w) => w.text)).toEqual([expect.stringMatching(/was not given: it runs as zeros/)]);
    await expect(runLoadable(l(), { inputs: [{ bindId: 0, bytes: new Uint8Array(3) }] })).rejects.toThrow(/needs \d+ bytes in its tensor format, 3 were given/);
  });
});

describe('damaged loadables stop with the place', () => {
  /** the golden with one op slot's common descriptor field changed */
  function patched(slot: number, field: string, value: number): Loadable {
    const bytes = Uint8Array.from(goldenBytes('lenet-b1-nv_small-fp16-fast-math'));
    const l = read(bytes, 'patched.nvdla');
    const t = decodeTasks(l).tasks[0] as DlaTask;
    const common = t.slots[slot]!.common;
    const f = common.fields.find((x) => x.name === field)!;
    const blob = l.blobs.find((b) => b.name === common.blob)!;
    blob.data[f.offset] = value;
    return l;
  }

  it('a dependency count that never reaches 0 is a deadlock naming the slot', async () => {
    const e = (await runLoadable(patched(4, 'dependency_count', 9), { inputs: [] }).catch((x: unknown) => x)) as FormatError;
    expect(e).toBeInstanceOf(FormatError);
    expect(e.message).toMatch(/deadlock/);
    expect(e.info.path).toMatch(/^task\[0\]\.slot\[\d+\]\.common\.dependency_count$/);
    expect(e.message).toMatch(/slot 4 \(SDP\): programmed, waiting for \d+ more dependency event/);
  });

  it('an op type that is no engine', async () => {
    const e = (await runLoadable(patched(2, 'op_type', 9), { inputs: [] }).catch((x: unknown) => x)) as FormatError;
    expect(e).toBeInstanceOf(FormatError);
  });

  it('any byte changed: a result or a FormatError, never another exception (property)', async () => {
    const golden = goldenBytes('lenet-b1-nv_small-int8-fast-math');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ at: fc.nat(golden.length - 1), value: fc.nat(255) }), { minLength: 1, maxLength: 4 }), async (edits) => {
        const bytes = Uint8Array.from(golden);
        for (const e of edits) bytes[e.at] = e.value;
        try {
          const l = read(bytes, 'fuzz.nvdla');
          await runLoadable(l, { inputs: [], captureSurfaces: false });
        } catch (e) {
          if (!(e instanceof FormatError)) throw e;
        }
      }),
      { numRuns: 60 },
    );
  }, 60_000);
});
