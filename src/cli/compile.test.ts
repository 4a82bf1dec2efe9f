import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compileCommand } from './compile';
import { UsageError, type CliIO } from './io';

const FIX = join(__dirname, '../../test/fixtures/nvdla');

function capture(): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(t: string) {
      io.stdout += t;
    },
    err(t: string) {
      io.stderr += t;
    },
  };
  return io;
}

let dir = '';
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'nvdla-compile-'));
  writeFileSync(join(dir, 'prelu.prototxt'), 'input: "data"\ninput_shape { dim: 1 dim: 1 dim: 4 dim: 4 }\nlayer { name: "p" type: "PReLU" bottom: "data" top: "p" }\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const lenetArgs = ['--prototxt', join(FIX, 'golden/lenet_n1.prototxt'), '--caffemodel', join(FIX, 'lenet/lenet_iter_10000.caffemodel')];

describe('npu-studio compile', () => {
  it('writes network.json, canonical.json and engine.json with --stages', async () => {
    const io = capture();
    const stages = join(dir, 'stages');
    expect(await compileCommand.run([...lenetArgs, '--stages', stages], io)).toBe(0);
    expect(io.stdout).toContain('network.json, canonical.json, engine.json');
    const engine = JSON.parse(readFileSync(join(stages, 'engine.json'), 'utf8'));
    expect(engine.nodes.map((n: { name: string }) => n.name)).toEqual(['dc-conv-0', 'bias-0', 'pdp-0', 'dc-conv-1', 'bias-1', 'pdp-1', 'fc-0', 'bias-2', 'sdp-scale-0', 'act-0', 'fc-1', 'bias-3', 'cpu-sm-0']);
    const conv = engine.nodes[0];
    expect([conv.engineType, conv.engineOpType, conv.origins]).toEqual(['CONVOLUTION', 'CONVOLUTION_CONV', [1]]);
    // weights are summarised, not dumped
    expect(conv.params.conv.rawWeights.values).toMatchObject({ dtype: 'float32', count: 500 });
    expect(engine.edges.find((e: { id: string }) => e.id === 'e-9')).toMatchObject({ kind: 'data', aux: true });
    const canonical = JSON.parse(readFileSync(join(stages, 'canonical.json'), 'utf8'));
    expect(canonical.nodes.map((n: { id: string }) => n.id)).toEqual(['n-0', 'n-1', 'n-2', 'n-3', 'n-4', 'n-5', 'n-6', 'n-7']);
    const network = JSON.parse(readFileSync(join(stages, 'network.json'), 'utf8'));
    expect(network.layers).toHaveLength(8);
    // upstream's warning about the widened image input, with nvdla_compiler's own words
    expect(io.stderr).toContain('nvdla_compiler: Prototxt #chnls (C = 1) != Profile #chnls for input (NVDLA_IMG_A8B8G8R8: C = 4)');
  });

  it('fp16 with nvdla_compiler option names; opendla-* warns', async () => {
    const io = capture();
    expect(await compileCommand.run([...lenetArgs, '--cprecision', 'fp16', '--configtarget', 'opendla-large', '--profile', 'basic'], io)).toBe(0);
    expect(io.stdout).toContain('basic opendla-large FP16');
    expect(io.stderr).toContain('Invalid target config');
  });

  it('a refused network: exit 1 with the layer and nvdla_compiler\'s reason; stages up to the failure', async () => {
    const io = capture();
    const stages = join(dir, 'prelu-stages');
    expect(await compileCommand.run(['--prototxt', join(dir, 'prelu.prototxt'), '--caffemodel', join(FIX, 'lenet/lenet_iter_10000.caffemodel'), '--stages', stages], io)).toBe(1);
    expect(io.stderr).toContain("layer 'p' (line 3)");
    expect(io.stderr).toContain('nvdla_compiler: could not parse layer type PReLU');
    expect(io.stdout).toContain('stages written to');
  });

  it('usage errors', async () => {
    await expect(compileCommand.run(['--prototxt', 'x'], capture())).rejects.toThrow(UsageError);
    await expect(compileCommand.run([...lenetArgs, '--bogus'], capture())).rejects.toThrow(UsageError);
  });
});
