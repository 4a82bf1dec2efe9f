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
  it("writes nvdla_compiler's loadable byte for byte (--post-ext-weights nvdla_compiler), and every stage with --stages", async () => {
    const io = capture();
    const stages = join(dir, 'stages');
    const out = join(dir, 'lenet.nvdla');
    expect(await compileCommand.run([...lenetArgs, '--stages', stages, '--out', out, '--post-ext-weights', 'nvdla_compiler'], io)).toBe(0);
    // the defaults are nvdla_compiler's real ones: int8, fast-math, nv_full
    expect(Buffer.compare(readFileSync(out), readFileSync(join(FIX, 'golden/lenet-b1-nv_full-int8-fast-math.nvdla')))).toBe(0);
    expect(io.stdout).toContain(`wrote ${out} (446352 bytes) and ${join(dir, 'lenet.origins.json')}`);
    // the origins sidecar: each task's op slots with the Caffe layers they came from
    const origins = JSON.parse(readFileSync(join(dir, 'lenet.origins.json'), 'utf8'));
    expect(origins).toMatchObject({ loadable: 'lenet.nvdla', profile: 'fast-math', target: 'nv_full', precision: 'INT8', batch: 1 });
    expect(origins.tasks[0].ops.map((o: { slot: number; name: string; layers: string[] }) => `${o.slot} ${o.name} ${o.layers.join('+')}`)).toEqual([
      '0 dc-conv-0 conv1', '1 bias-0 conv1', '2 pdp-0 pool1', '3 dc-conv-1 conv2', '4 bias-1 conv2', '5 pdp-1 pool2', '6 fc-0 ip1', '7 bias-2 ip1+relu1', '8 fc-1 ip2', '9 bias-3 ip2',
    ]);
    expect(origins.tasks[1]).toMatchObject({ id: 1, interface: 'EMU1', ops: [{ slot: 0, name: 'cpu-sm-0', layers: ['prob'] }] });
    expect(io.stdout).toContain('task 0: DLA1 10 op slots, task 1: EMU1 1 op slots; 17 memory entries, 16 blobs');
    expect(io.stdout).toContain('network.json, canonical.json, engine.json, loadable.json, tasks.json and 15 pass graphs in passes/');
    const memory = JSON.parse(readFileSync(join(stages, 'passes/15-resolveMemory.json'), 'utf8'));
    expect(memory.graph.pools.map((p: { name: string; used: number }) => [p.name, p.used])).toEqual([['GLOBAL_DRAM', 924288], ['LOCAL_DRAM', 46080]]);
    const tasks = JSON.parse(readFileSync(join(stages, 'tasks.json'), 'utf8'));
    expect(tasks[0].ops[1].desc.op.out_cvt).toEqual({ scale: 19669, truncate: 29, offset: 0, enable: 1 });
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

  it("by default conv1's post-extended weights are laid out as the hardware reads them: only those bytes differ, and stderr says so naming the layer", async () => {
    const io = capture();
    const out = join(dir, 'csc.nvdla');
    expect(await compileCommand.run([...lenetArgs, '--out', out], io)).toBe(0);
    const ours = readFileSync(out);
    const golden = readFileSync(join(FIX, 'golden/lenet-b1-nv_full-int8-fast-math.nvdla'));
    expect(ours.length).toBe(golden.length);
    const differ = [...ours.keys()].filter((i) => ours[i] !== golden[i]);
    // within conv1's weight blob (tb-0: 2,000 bytes): stripe 1, rows 2 and 3 where nvdla_compiler put rows 3 and 4
    expect(differ.length).toBeGreaterThan(0);
    expect(differ.at(-1)! - differ[0]!).toBeLessThan(800);
    expect(io.stderr).toMatch(/warning \[passes\] layer 'conv1': dc-conv-0: image weights post-extended by 2 are laid out as the convolution buffer reads them .*--post-ext-weights nvdla_compiler writes its layout/);
    const bad = capture();
    await expect(compileCommand.run([...lenetArgs, '--out', out, '--post-ext-weights', 'rtl'], bad)).resolves.toBe(1);
    expect(bad.stderr).toContain("--post-ext-weights: 'rtl' is not csc");
    expect(compileCommand.usage).toContain('--post-ext-weights <csc|nvdla_compiler>');
  });

  it('fp16 with nvdla_compiler option names; opendla-* warns', async () => {
    const io = capture();
    expect(await compileCommand.run([...lenetArgs, '--cprecision', 'fp16', '--configtarget', 'opendla-large', '--profile', 'basic', '-o', dir], io)).toBe(0);
    expect(io.stdout).toContain('basic opendla-large FP16');
    expect(io.stdout).toContain(`wrote ${join(dir, 'basic.nvdla')} (`);
    expect(JSON.parse(readFileSync(join(dir, 'basic.origins.json'), 'utf8')).loadable).toBe('basic.nvdla');
    expect(io.stderr).toContain('Invalid target config');
  });

  it('-o names a folder that is made when missing', async () => {
    const io = capture();
    const out = join(dir, 'not', 'yet');
    expect(await compileCommand.run([...lenetArgs, '--cprecision', 'fp16', '-o', out], io)).toBe(0);
    expect(readFileSync(join(out, 'fast-math.nvdla')).length).toBeGreaterThan(0);
    expect(JSON.parse(readFileSync(join(out, 'fast-math.origins.json'), 'utf8')).loadable).toBe('fast-math.nvdla');
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
