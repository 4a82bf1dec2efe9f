import { describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import type { CliIO } from './io';
import { read } from '../core/circle/read';

const RECIPES = join(__dirname, '../../test/fixtures/one/recipes');

function captureIO(): CliIO & { stdout: string; stderr: string } {
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

describe('npu-studio chef', () => {
  it('writes a circle file from a recipe', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chef-cli-'));
    try {
      const out = join(dir, 'if.circle');
      const io = captureIO();
      const code = await main(['chef', join(RECIPES, 'Part_If_Add_Sub_001', 'test.recipe'), out], io);
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
      expect(io.stdout).toMatch(/5 subgraph\(s\), 7 operator\(s\)/);
      const bytes = new Uint8Array(readFileSync(out));
      expect(new TextDecoder().decode(bytes.subarray(4, 8))).toBe('CIR0');
      const m = read(bytes, 'if.circle');
      expect(m.subgraphs.map((g) => g.name)).toEqual(['Main', 'IF_THEN_THEN', 'IF_THEN_ELSE', 'IF_ELSE', 'IF_THEN']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('prints warnings to stderr and still succeeds', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chef-cli-'));
    try {
      const io = captureIO();
      const recipe = join(RECIPES, 'Part_While_000', 'test.recipe');
      expect(await main(['chef', recipe, join(dir, 'w.circle')], io)).toBe(0);
      expect(io.stderr).toBe(`npu-studio chef: warning: ${recipe}: line 99:19: operation 0 (Minimum) of graph 'Main' ignores 'maximum_options' (it reads 'minimum_options')\n`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 with file:line:column for a bad recipe, and writes nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'chef-cli-'));
    try {
      const recipe = join(dir, 'bad.recipe');
      writeFileSync(recipe, 'operand { name: "a" type: FLOAT32 }\noperation { type: "Nope" input: "a" output: "a" }\n');
      const out = join(dir, 'bad.circle');
      const io = captureIO();
      expect(await main(['chef', recipe, out], io)).toBe(1);
      expect(io.stderr).toContain(`${recipe}: line 2:19: unknown operation type 'Nope'`);
      expect(existsSync(out)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('exits 1 for a missing recipe and 2 for bad usage', async () => {
    const io = captureIO();
    expect(await main(['chef', '/nonexistent/x.recipe', '/tmp/x.circle'], io)).toBe(1);
    expect(io.stderr).toMatch(/no such file/);
    const io2 = captureIO();
    expect(await main(['chef', 'only-one'], io2)).toBe(2);
    expect(io2.stderr).toMatch(/usage: npu-studio chef RECIPE OUT.circle/);
  });
});
