import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import type { CliIO } from './io';
import { write } from '../core/circle/write';
import { sampleModel, opcode, operator } from '../core/circle/testing';
import type { GenericInspectJson } from './inspect';

const USAGE_DETAIL =
  '  FILE: any file the studio opens (circle / TFLite models, NVDLA loadables, systrace captures, Caffe nets, ...)\n' +
  '  --origins: the origin table (circle); --dump: every decoded field, one a line (NVDLA loadables)\n' +
  '  --caffemodel: weights opened with a Caffe net (merged by layer name); --phase, --batch: options of the document (Caffe)\n';
const USAGE_LINE = 'usage: npu-studio inspect FILE [--json] [--origins] [--dump] [--caffemodel W] [--phase TEST|TRAIN] [--batch N]\n';

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
  dir = mkdtempSync(join(tmpdir(), 'inspect-'));
  const m = sampleModel();
  m.operatorCodes.push(opcode(32, 'MyOp'));
  m.subgraphs[0]!.operators.push(operator(4, [0], [6]), operator(2, [4, 4], [5]));
  writeFileSync(join(dir, 'model.circle'), write(m));
  const bytes = write(m);
  writeFileSync(join(dir, 'cut.circle'), bytes.subarray(0, bytes.length >> 1));
  // a PNG signature: no format the studio opens (and none it is likely to register)
  writeFileSync(join(dir, 'image.png'), new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13]));
  writeFileSync(join(dir, 'empty.circle'), new Uint8Array(0));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npu-studio inspect', () => {
  it('prints the JSON summary (exit 0)', async () => {
    const io = capture();
    expect(await main(['inspect', join(dir, 'model.circle'), '--json'], io)).toBe(0);
    const json = JSON.parse(io.stdout);
    expect(json).toMatchObject({
      format: 'circle',
      file: 'model.circle',
      subgraphs: [
        {
          name: 'main',
          operators: 6,
          tensors: 7,
          inputs: ['input'],
          outputs: ['norm'],
          opcodes: { CONV_2D: 1, RELU: 1, ADD: 2, INSTANCE_NORM: 1, MyOp: 1 },
        },
      ],
      metadata: [
        { name: 'min_runtime_version', size: 6 },
        { name: 'ONE_unknown_table', size: 10 },
      ],
    });
    expect(Object.keys(json).slice(0, 3)).toEqual(['format', 'file', 'identifier']);
    expect(io.stderr).toBe('');
  });

  it('prints a text summary for people', async () => {
    const io = capture();
    expect(await main(['inspect', join(dir, 'model.circle')], io)).toBe(0);
    expect(io.stdout).toContain('model.circle: circle (CIR0, schema version 0)');
    expect(io.stdout).toContain('subgraph 0 "main": 6 operators, 7 tensors');
    expect(io.stdout).toContain('input  input: float32[1,2,2,1]');
    expect(io.stdout).toContain('ADD x2');
    expect(io.stdout).toContain('min_runtime_version (6 bytes): 1.14.0');
  });

  it('exits 1 with a located message for a truncated file', async () => {
    const io = capture();
    expect(await main(['inspect', join(dir, 'cut.circle'), '--json'], io)).toBe(1);
    expect(io.stdout).toBe('');
    expect(io.stderr).toMatch(/^npu-studio inspect: cut\.circle: byte \d+/);
  });

  it('exits 1 naming the file for an unknown format, an empty file and a missing file', async () => {
    let io = capture();
    expect(await main(['inspect', join(dir, 'image.png')], io)).toBe(1);
    expect(io.stdout).toBe('');
    expect(io.stderr).toMatch(/^npu-studio inspect: image\.png: byte 0: not a model format .*89 50 4e 47 0d 0a 1a 0a\n$/);
    io = capture();
    expect(await main(['inspect', join(dir, 'empty.circle')], io)).toBe(1);
    // core/document.ts names no byte for an empty file today; either form names the file
    expect(io.stderr).toMatch(/^npu-studio inspect: empty\.circle: (byte 0: )?the file is empty\n$/);
    io = capture();
    expect(await main(['inspect', join(dir, 'missing.circle')], io)).toBe(1);
    expect(io.stderr).toContain('no such file');
  });

  it('exits 2 on usage errors', async () => {
    let io = capture();
    expect(await main(['inspect'], io)).toBe(2);
    expect(io.stderr).toBe('npu-studio inspect: needs a file\n' + USAGE_LINE + USAGE_DETAIL);
    io = capture();
    expect(await main(['inspect', 'a.circle', '--bogus'], io)).toBe(2);
    expect(io.stderr).toMatch(/^npu-studio inspect: unknown option --bogus\nusage: /);
    io = capture();
    expect(await main(['inspect', 'a.circle', '--json=yes'], io)).toBe(2);
    expect(io.stderr).toMatch(/^npu-studio inspect: option --json takes no value\n/);
    io = capture();
    expect(await main(['inspect', 'a.circle', '-j'], io)).toBe(2);
    expect(io.stderr).toMatch(/^npu-studio inspect: unknown option -j\n/);
    io = capture();
    expect(await main(['inspect', 'a.circle', 'b.circle'], io)).toBe(2);
    expect(io.stderr).toMatch(/^npu-studio inspect: takes exactly one file\n/);
  });

  it('--help prints the usage on stdout (exit 0) without reading a file; after -- it is a file name', async () => {
    let io = capture();
    expect(await main(['inspect', 'missing.circle', '--help'], io)).toBe(0);
    expect(io.stdout).toBe(USAGE_LINE + USAGE_DETAIL);
    expect(io.stderr).toBe('');
    io = capture();
    expect(await main(['inspect', '--', '--help'], io)).toBe(1);
    expect(io.stderr).toBe('npu-studio inspect: --help: no such file\n');
  });
});

describe('npu-studio inspect on a systrace capture (a profile, not a model)', () => {
  const TRACE = 'test/fixtures/systrace/upstream/inputs/omr1_incomplete.trace.txt';

  it('prints the generic summary: label, properties and the diagnostics with their lines', async () => {
    const io = capture();
    expect(await main(['inspect', TRACE], io)).toBe(0);
    expect(io.stderr).toBe('');
    const lines = io.stdout.split('\n');
    expect(lines.slice(0, 5)).toEqual(['omr1_incomplete.trace.txt: systrace (html)', '  marks: 11583', '  runs: 21', '  tracked threads: 1', '  runtime trace: absent']);
    expect(io.stdout).toContain('diagnostics: 0 error(s), 2 warning(s), 1 note(s)\n');
    expect(io.stdout).toContain('  warning: omr1_incomplete.trace.txt: line 9951: Incomplete trace, not able to print all statistics');
    expect(io.stdout).toContain('  info: omr1_incomplete.trace.txt: line 7799: 9 marks on untracked thread 13553 (RenderThread)');
  });

  it('--json gives the same summary as data', async () => {
    const io = capture();
    expect(await main(['inspect', TRACE, '--json'], io)).toBe(0);
    const json = JSON.parse(io.stdout) as GenericInspectJson;
    expect(Object.keys(json)).toEqual(['format', 'file', 'label', 'description', 'properties', 'graphs', 'metadata', 'diagnostics']);
    expect(json).toMatchObject({ format: 'systrace', file: 'omr1_incomplete.trace.txt', label: 'systrace (html)', graphs: [], metadata: [] });
    expect(json.properties).toContainEqual({ name: 'runs', value: '21' });
    expect(json.diagnostics.map((d) => `${d.severity} ${d.line ?? '-'}`)).toEqual(['warning -', 'warning 9951', 'info 7799']);
  });

  it('--origins is a usage error for anything but a circle model', async () => {
    const io = capture();
    expect(await main(['inspect', TRACE, '--origins'], io)).toBe(2);
    expect(io.stdout).toBe('');
    expect(io.stderr).toMatch(/^npu-studio inspect: --origins does not apply to omr1_incomplete\.trace\.txt \(systrace \(html\)\)\n/);
  });
});

describe('inspect: NVDLA loadables (the format\'s own inspect service)', () => {
  const GOLDEN = 'test/fixtures/nvdla/golden/lenet-b1-nv_full-int8-fast-math.nvdla';

  it('--json prints the keys issue 12 gives: one DLA task of 10 op slots and one EMU task', async () => {
    const io = capture();
    expect(await main(['inspect', GOLDEN, '--json'], io)).toBe(0);
    const json = JSON.parse(io.stdout) as { format: string; version: string; interface: string; tasks: { interface: string; ops: number }[]; blobs: number };
    expect(json).toMatchObject({ format: 'nvdla', interface: '0.12' });
    expect(json.tasks.map((t) => `${t.interface} ${t.ops}`)).toEqual(['DLA1 10', 'EMU1 1']);
    expect(json.blobs).toBeGreaterThan(0);
  });

  it('--dump prints every decoded field, one a line; text names the tasks', async () => {
    const dump = capture();
    expect(await main(['inspect', GOLDEN, '--dump'], dump)).toBe(0);
    expect(dump.stdout).toMatch(/^task_list\[0\]\.interface = \d+ \(DLA1\)$/m);
    const text = capture();
    expect(await main(['inspect', GOLDEN], text)).toBe(0);
    expect(text.stdout).toMatch(/^  task 0 DLA1: 10 ops/m);
  });

  it('--dump is a usage error for a format without descriptors', async () => {
    const io = capture();
    expect(await main(['inspect', 'test/fixtures/systrace/upstream/inputs/omr1_incomplete.trace.txt', '--dump'], io)).toBe(2);
    expect(io.stderr).toMatch(/--dump does not apply to omr1_incomplete\.trace\.txt/);
  });
});

describe('npu-studio inspect, Caffe nets', () => {
  const fx = 'test/fixtures/caffe/';

  it('--caffemodel merges the weights; --json prints issue 11\'s keys', async () => {
    const io = capture();
    expect(await main(['inspect', fx + 'lenet/lenet.prototxt', '--caffemodel', fx + 'lenet/lenet_iter_10000.caffemodel', '--batch', '1', '--json'], io)).toBe(0);
    const j = JSON.parse(io.stdout) as Record<string, unknown>;
    expect(j).toMatchObject({ format: 'caffe', version: 'V2', name: 'LeNet', layers: 9, params: 431080, inputs: [{ name: 'data', shape: [1, 1, 28, 28] }], outputs: [{ name: 'prob', shape: [1, 10] }] });
    expect(j.weights).toEqual({ file: 'lenet_iter_10000.caffemodel', matched: 4, mismatched: [], missing: [], ignored: 2 });
    expect((j.blobs as Record<string, number[]>).pool2).toEqual([1, 50, 4, 4]);
  });

  it('a V1 file says so and counts its layers after the upgrade; --phase chooses the layers of a train_test net', async () => {
    let io = capture();
    expect(await main(['inspect', fx + 'cifar10-quick/cifar10_quick.v1.prototxt', '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ version: 'V1', types: { Input: 1, Convolution: 3, Pooling: 3, ReLU: 3, InnerProduct: 2, Softmax: 1 } });
    // the upgrade notice goes to stderr, so --json stays parseable
    expect(io.stderr).toMatch(/info: .*upgraded V1/);
    io = capture();
    expect(await main(['inspect', fx + 'lenet/lenet_train_test.prototxt', '--json'], io)).toBe(0);
    expect(JSON.parse(io.stdout)).toMatchObject({ phase: 'TEST', types: { Data: 1, Accuracy: 1, SoftmaxWithLoss: 1 } });
    io = capture();
    expect(await main(['inspect', fx + 'lenet/lenet_train_test.prototxt', '--phase', 'TRAIN', '--json'], io)).toBe(0);
    const train = JSON.parse(io.stdout) as { phase: string; types: Record<string, number> };
    expect(train.phase).toBe('TRAIN');
    expect(train.types.Accuracy).toBeUndefined();
  });

  it('text output; a bad option value exits 1 naming it; options on a format without any exit 2', async () => {
    let io = capture();
    expect(await main(['inspect', fx + 'lenet/lenet.prototxt'], io)).toBe(0);
    expect(io.stdout).toMatch(/^lenet\.prototxt: Caffe V2 net 'LeNet' \(phase TEST\)\n {2}layers: 9 \(Input 1, Convolution 2/);
    expect(io.stdout).toMatch(/\n {2}activation memory: .* at batch 64\n/);
    io = capture();
    expect(await main(['inspect', fx + 'lenet/lenet.prototxt', '--batch', 'two'], io)).toBe(1);
    expect(io.stderr).toBe("npu-studio inspect: lenet.prototxt: the batch is a whole number from 1 to 4096, not 'two'\n");
    io = capture();
    expect(await main(['inspect', join(dir, 'model.circle'), '--phase', 'TRAIN'], io)).toBe(2);
    expect(io.stderr).toMatch(/^npu-studio inspect: --phase does not apply to model\.circle/);
  });

  it('a prototxt syntax error exits 1 with the line and column', async () => {
    const bad = join(dir, 'bad.prototxt');
    writeFileSync(bad, 'name: "x"\nlayer {\n  name: "a"\n  type: "ReLU"\n  bottom: "data" top: "a"\n  kernel_size: 3\n}\n');
    const io = capture();
    expect(await main(['inspect', bad], io)).toBe(1);
    expect(io.stderr).toMatch(/^npu-studio inspect: bad\.prototxt: line 6:3: /);
  });
});
