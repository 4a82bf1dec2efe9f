import { describe, expect, it } from 'vitest';
import { openDocument, serviceOf } from '../document';
import { FormatError } from '../errors';
import { read } from '../loadable/read';
import { goldenBytes } from '../../../test/support/nvdla/golden';
import { executeService } from './service';

const golden = (name: string) => read(goldenBytes(name), `${name}.nvdla`);

describe('the execute service', () => {
  it('a loadable document offers it', async () => {
    const doc = await openDocument([{ name: 'lenet.nvdla', bytes: goldenBytes('lenet-b1-nv_small-fp16-fast-math') }]);
    expect(doc.summary.capabilities).toContain('execute');
    expect(serviceOf(doc, 'execute').plan().ops).toBe(11);
  });

  it('plans: tensors, hardware, what int8 needs', () => {
    const p = executeService(golden('lenet-b1-nv_full-int8-fast-math')).plan();
    expect(p.tensors.map((t) => `${t.kind} ${t.name} ${t.shape.join('x')} ${t.dataType} ${t.format}`)).toEqual(['input data 1x4x28x28 int8 A8B8G8R8', 'output prob 1x10x1x1 int8 FEATURE']);
    expect(p.hardware).toBe('nv_full');
    expect(p.constantScales).toBe(true);
    expect(p.embeddedScales).toEqual({ prob: 127 });
    expect(p.notes.join('\n')).toMatch(/without a calibration table/);
    expect(p.notes.join('\n')).toMatch(/input data is int8: give its scale/);
    const calib = executeService(golden('lenet-b1-nv_full-int8-fast-math-calib')).plan();
    expect(calib.constantScales).toBe(false);
    expect(calib.embeddedScales.prob).toBeCloseTo(0.0079, 6);
  });

  it('runs with progress, gives outputs with top-5 and planes of every surface', async () => {
    const s = executeService(golden('lenet-b1-nv_small-fp16-fast-math'));
    const progress: number[] = [];
    const x = new Float32Array(784).fill(0.5);
    const out = await s.run({ inputs: { data: { kind: 'array', values: x } } }, { onProgress: (p) => void progress.push(p.done) });
    expect(progress).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]);
    expect(out.outputs[0]).toMatchObject({ name: 'prob', shape: [1, 10, 1, 1], dataType: 'fp16', scale: null });
    expect(out.outputs[0]!.top.length).toBe(5);
    expect(out.outputs[0]!.values.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 2);
    expect(out.slots.map((x) => x.engine)).toEqual(['CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'PDP', 'CONV', 'SDP', 'CONV', 'SDP', 'EMU SOFTMAX']);
    const pool1 = s.plane(2, 19);
    expect(pool1).toMatchObject({ channel: 19, height: 12, width: 12, precision: 'FP16' });
    expect(pool1.values.length).toBe(144);
    expect(() => s.plane(2, 20)).toThrow(RangeError);
    expect(() => s.plane(99, 0)).toThrow(RangeError);
  });

  it('int8: scales by name, the loadable\'s own output scale, warnings for the defaults', async () => {
    const s = executeService(golden('lenet-b1-nv_full-int8-fast-math'));
    const noScale = await s.run({ seed: 3 });
    expect(noScale.warnings.map((w) => w.text).join('\n')).toMatch(/default scale 1: no scale was given/);
    expect(noScale.outputs[0]).toMatchObject({ scale: 127, scaleSource: 'loadable' });
    const given = await s.run({ seed: 3, scales: { data: 1 / 255, prob: 1 / 127 } });
    expect(given.outputs[0]).toMatchObject({ scale: 1 / 127, scaleSource: 'request' });
    expect(given.warnings.map((w) => w.text).join('\n')).not.toMatch(/default scale/);
  });

  it('runs again from the kept memory images and weights with the same results as a fresh run', async () => {
    const l = golden('lenet-b1-nv_full-int8-fast-math');
    const s = executeService(l);
    const req = { seed: 5, scales: { data: 1 / 100 } };
    const first = await s.run(req);
    const second = await s.run(req);
    const fresh = await executeService(golden('lenet-b1-nv_full-int8-fast-math')).run(req);
    expect(Array.from(second.outputs[0]!.values)).toEqual(Array.from(fresh.outputs[0]!.values));
    expect(Array.from(first.outputs[0]!.values)).toEqual(Array.from(fresh.outputs[0]!.values));
    expect(second.slots.map((x) => x.output?.stats)).toEqual(fresh.slots.map((x) => x.output?.stats));
    // the blobs the runs read from stay as the file has them
    expect(Array.from(l.blobs[0]!.data)).toEqual(Array.from(golden('lenet-b1-nv_full-int8-fast-math').blobs[0]!.data));
  });

  it('names what is wrong with a request', async () => {
    const s = executeService(golden('lenet-b1-nv_small-fp16-fast-math'));
    await expect(s.run({ inputs: { image: { kind: 'random', seed: 1 } } })).rejects.toThrow(/no input named 'image' \(inputs: data\)/);
    await expect(s.run({ inputs: { data: { kind: 'array', values: new Float32Array(100) } } })).rejects.toBeInstanceOf(FormatError);
    expect(() => s.compare([], {})).toThrow(/there is no run yet/);
  });
});
