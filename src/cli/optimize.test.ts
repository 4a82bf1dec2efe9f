import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import type { CliIO } from './io';
import { buildFromRecipe } from '../core/chef';
import { read } from '../core/circle/read';
import { write } from '../core/circle/write';
import { originsOf } from '../core/origin';

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
  dir = mkdtempSync(join(tmpdir(), 'optimize-'));
  const m = buildFromRecipe(readFileSync('test/fixtures/one/recipes/Net_InstanceNorm_003/test.recipe', 'utf8'), 'r');
  writeFileSync(join(dir, 'in.circle'), write(m));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npu-studio optimize', () => {
  it('runs the passes, prints what changed and writes the model with origin tables', async () => {
    const io = capture();
    const out = join(dir, 'out.circle');
    const code = await main(['optimize', join(dir, 'in.circle'), out, '--passes', 'fuse_instance_norm,fuse_activation'], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    expect(io.stdout).toMatch(/^fuse_instance_norm: 1 change\n {2}9 operators ending at #8 "Add_as_terminal" fused into INSTANCE_NORM\nfuse_activation: no change\n/);
    expect(io.stdout).toMatch(/9 -> 1 operators in subgraph 0, origin tables written \(the input had none: its origins synthesised as luci imports them\)/);
    const model = read(new Uint8Array(readFileSync(out)), 'out.circle');
    const o = originsOf(model);
    expect(o.kind).toBe('file');
    expect(o.ops).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8]]);
    expect(o.sources.size).toBe(9);
  });

  it("optimizing a model that has tables carries them on (and says so)", async () => {
    const once = join(dir, 'once.circle');
    expect(await main(['optimize', join(dir, 'in.circle'), once, '--passes', 'fuse_instance_norm'], capture())).toBe(0);
    const io = capture();
    expect(await main(['optimize', once, join(dir, 'twice.circle'), '--passes', 'fuse_activation'], io)).toBe(0);
    expect(io.stdout).toMatch(/1 -> 1 operators in subgraph 0, origin tables written \(carried on from the input's\)/);
    const o = originsOf(read(new Uint8Array(readFileSync(join(dir, 'twice.circle'))), 'twice.circle'));
    expect(o.ops).toEqual([[0, 1, 2, 3, 4, 5, 6, 7, 8]]);
    expect(o.sources.get(8)).toBe('Add_as_terminal');
  });

  it('inspect --json --origins shows the tables of the written model', async () => {
    const out = join(dir, 'o2.circle');
    await main(['optimize', join(dir, 'in.circle'), out, '--passes', 'fuse_instance_norm'], capture());
    const io = capture();
    expect(await main(['inspect', out, '--json', '--origins'], io)).toBe(0);
    const json = JSON.parse(io.stdout) as { origins: { synthesised: boolean; sources: Record<string, string>; ops: Record<string, number[]> } };
    expect(json.origins.synthesised).toBe(false);
    expect(json.origins.ops).toEqual({ '0': [0, 1, 2, 3, 4, 5, 6, 7, 8] });
    expect(json.origins.sources['0']).toBe('Mean_of_ifm');
    const plain = capture();
    await main(['inspect', join(dir, 'in.circle'), '--json', '--origins'], plain);
    const p = JSON.parse(plain.stdout) as { origins: { synthesised: boolean; ops: Record<string, number[]> } };
    expect(p.origins.synthesised).toBe(true);
    expect(p.origins.ops['3']).toEqual([3]);
  });

  it('--no-origins writes no tables', async () => {
    const out = join(dir, 'plain.circle');
    expect(await main(['optimize', join(dir, 'in.circle'), out, '--passes', 'fuse_instance_norm', '--no-origins'], capture())).toBe(0);
    expect(read(new Uint8Array(readFileSync(out)), 'x').metadata).toEqual([]);
  });

  it('an unknown pass is a usage error (exit 2) listing the known passes', async () => {
    const io = capture();
    expect(await main(['optimize', join(dir, 'in.circle'), join(dir, 'x.circle'), '--passes', 'fuse_activation,frobnicate'], io)).toBe(2);
    expect(io.stderr).toMatch(/unknown pass frobnicate \(known passes: fold_constants, remove_redundant_reshape, .*fuse_activation\)/);
  });

  it('missing --passes or files are usage errors; a bad file is exit 1', async () => {
    expect(await main(['optimize', join(dir, 'in.circle'), join(dir, 'x.circle')], capture())).toBe(2);
    expect(await main(['optimize', join(dir, 'in.circle'), '--passes', 'fold_constants'], capture())).toBe(2);
    writeFileSync(join(dir, 'bad.circle'), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]));
    const io = capture();
    expect(await main(['optimize', join(dir, 'bad.circle'), join(dir, 'x.circle'), '--passes', 'fold_constants'], io)).toBe(1);
    expect(io.stderr).toMatch(/bad\.circle/);
  });
});
