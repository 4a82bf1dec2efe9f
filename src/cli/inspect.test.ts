import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import type { CliIO } from './io';
import { write } from '../core/circle/write';
import { sampleModel, opcode, operator } from '../core/circle/testing';

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
  writeFileSync(join(dir, 'net.prototxt'), 'name: "lenet"\nlayer { name: "data" }\n');
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
    expect(await main(['inspect', join(dir, 'net.prototxt')], io)).toBe(1);
    expect(io.stderr).toContain('net.prototxt: byte 4: not a model format inspect reads');
    io = capture();
    expect(await main(['inspect', join(dir, 'empty.circle')], io)).toBe(1);
    expect(io.stderr).toContain('empty.circle: byte 0: the file is empty');
    io = capture();
    expect(await main(['inspect', join(dir, 'missing.circle')], io)).toBe(1);
    expect(io.stderr).toContain('no such file');
  });

  it('exits 2 on usage errors', async () => {
    let io = capture();
    expect(await main(['inspect'], io)).toBe(2);
    expect(io.stderr).toContain('usage: npu-studio inspect MODEL [--json]');
    io = capture();
    expect(await main(['inspect', 'a.circle', '--bogus'], io)).toBe(2);
    io = capture();
    expect(await main(['inspect', 'a.circle', 'b.circle'], io)).toBe(2);
  });
});
