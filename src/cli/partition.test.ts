import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from './main';
import { resolveInWorkPath } from './partition';
import type { CliIO } from './io';
import { buildFromRecipe } from '../core/chef';
import { write } from '../core/circle/write';
import { read } from '../core/circle/read';

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
const model = (name: string) => write(buildFromRecipe(readFileSync(`test/fixtures/one/recipes/${name}/test.recipe`, 'utf8'), name));

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'partition-cli-'));
  writeFileSync(join(dir, 'Net_InstanceNorm_003.circle'), model('Net_InstanceNorm_003'));
  copyFileSync('test/fixtures/one/parts/Part_Tanh_FC_nobias.part', join(dir, 'Net_InstanceNorm_003.part'));
  writeFileSync(join(dir, 'Part_While_000.circle'), model('Part_While_000'));
  writeFileSync(join(dir, 'w.part'), '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nMAXIMUM=npu\n');
  writeFileSync(join(dir, 'bad.part'), '[partition]\nbackends=cpu,npu\ndefault=gpu\ncomply=opcode\n[OPCODE]\nDIV = npu\n');
  writeFileSync(join(dir, 'junk.circle'), new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npu-studio partition', () => {
  it('flag form writes the parts and conn files into the work path', async () => {
    const io = capture();
    const code = await main(['partition', '--part_file', 'Net_InstanceNorm_003.part', '--input_file', 'Net_InstanceNorm_003.circle', '--work_path', dir], io);
    expect(io.stderr).toBe('');
    expect(code).toBe(0);
    expect(readdirSync(dir).filter((f) => f.startsWith('Net_InstanceNorm_003.')).sort()).toEqual([
      'Net_InstanceNorm_003.00001_cpu.circle',
      'Net_InstanceNorm_003.00002_acl_cl.circle',
      'Net_InstanceNorm_003.00003_cpu.circle',
      'Net_InstanceNorm_003.circle',
      'Net_InstanceNorm_003.conn.ini',
      'Net_InstanceNorm_003.conn.json',
      'Net_InstanceNorm_003.part',
    ]);
    expect(readFileSync(join(dir, 'Net_InstanceNorm_003.conn.json'), 'utf8')).toBe(readFileSync('test/fixtures/one/partition/Net_InstanceNorm_003.conn.json', 'utf8'));
    const part = read(new Uint8Array(readFileSync(join(dir, 'Net_InstanceNorm_003.00002_acl_cl.circle'))), 'p');
    expect(part.metadata.map((m) => m.name)).toEqual(['ONE_source_table', 'ONE_op_table']);
    expect(io.stdout).toContain('Net_InstanceNorm_003.00002_acl_cl.circle: acl_cl, 1 operator(s), inputs [Sub, Pow], outputs [Div]\n');
  });

  it('positional form, --check, --backends/--default overrides, --no-origins', async () => {
    const io = capture();
    const code = await main(['partition', 'w.part', 'Part_While_000.circle', dir, '--check', '--backends', 'cpu,acl', '--default', 'acl', '--no-origins'], io);
    // MAXIMUM=npu is no longer a backend after the override: an error
    expect(code).toBe(1);
    expect(io.stderr).toContain("w.part:6:9: error: backend 'npu' is not one of 'backends' (cpu,acl)");
    const io2 = capture();
    const code2 = await main(['partition', 'w.part', 'Part_While_000.circle', dir, '--check', '--no-origins'], io2);
    expect(io2.stderr).toBe('');
    expect(code2).toBe(0);
    expect(io2.stdout).toMatch(/check ofm: max \|difference\| 0 \(tolerance 0.00001\) ok\n/);
    expect(io2.stdout).toContain('check passed');
    expect(read(new Uint8Array(readFileSync(join(dir, 'Part_While_000.00003_cpu.circle'))), 'p').metadata).toEqual([]);
  });

  it('a bad .part exits 1 with file:line:column and writes nothing', async () => {
    const io = capture();
    const before = readdirSync(dir).length;
    const code = await main(['partition', '--part_file', 'bad.part', '--input_file', 'Part_While_000.circle', '--work_path', dir], io);
    expect(code).toBe(1);
    expect(io.stderr).toContain("bad.part:3:9: error: 'default' backend 'gpu' is not one of 'backends' (cpu,npu)");
    expect(io.stderr).toContain('bad.part:6:1: warning: key');
    expect(io.stderr).toContain('nothing written');
    expect(readdirSync(dir).length).toBe(before);
    const io2 = capture();
    expect(await main(['partition', '--part_file', 'bad.part', '--input_file', 'Part_While_000.circle', '--work_path', dir, '--json-diagnostics'], io2)).toBe(1);
    const json = JSON.parse(io2.stderr.split('\n')[0]!) as { line: number; column: number; severity: string; code: string }[];
    expect(json.map((d) => `${d.line}:${d.column} ${d.severity} ${d.code}`)).toEqual(['3:9 error unknown-backend', '6:1 warning blank-key', '6:1 warning unknown-opcode', '6:6 warning blank-value', '6:6 error unknown-backend']);
  });

  it('a bad model exits 1 naming the file; usage errors exit 2', async () => {
    const io = capture();
    expect(await main(['partition', '--part_file', 'w.part', '--input_file', 'junk.circle', '--work_path', dir], io)).toBe(1);
    expect(io.stderr).toContain('junk.circle');
    const io2 = capture();
    expect(await main(['partition', '--part_file', 'w.part', '--input_file', 'missing.circle', '--work_path', dir], io2)).toBe(1);
    expect(io2.stderr).toContain('no such file');
    const io3 = capture();
    expect(await main(['partition', '--part_file', 'w.part'], io3)).toBe(2);
    expect(io3.stderr).toContain('--input_file is required');
    expect(await main(['partition', 'a', 'b'], capture())).toBe(2);
    expect(existsSync(join(dir, 'junk.conn.json'))).toBe(false);
  });

  it('absolute --input_file / --part_file are used as given; relative ones are inside --work_path', async () => {
    expect(resolveInWorkPath('work', 'm.circle')).toBe(join('work', 'm.circle'));
    expect(resolveInWorkPath('work', 'sub/m.part')).toBe(join('work', 'sub', 'm.part'));
    expect(resolveInWorkPath('/w', '../m.circle')).toBe(join('/w', '..', 'm.circle'));
    expect(resolveInWorkPath('work', '/data/m.circle')).toBe('/data/m.circle');
    // end to end: model and .part elsewhere, given absolutely; outputs go to the work path
    const elsewhere = mkdtempSync(join(tmpdir(), 'partition-abs-'));
    const work = mkdtempSync(join(tmpdir(), 'partition-work-'));
    try {
      writeFileSync(join(elsewhere, 'Net_InstanceNorm_003.circle'), model('Net_InstanceNorm_003'));
      copyFileSync('test/fixtures/one/parts/Part_Tanh_FC_nobias.part', join(elsewhere, 'n.part'));
      const io = capture();
      const input = join(elsewhere, 'Net_InstanceNorm_003.circle');
      const code = await main(['partition', '--part_file', join(elsewhere, 'n.part'), '--input_file', input, '--work_path', work], io);
      expect(io.stderr).toBe('');
      expect(code).toBe(0);
      expect(readdirSync(work).sort()).toEqual([
        'Net_InstanceNorm_003.00001_cpu.circle',
        'Net_InstanceNorm_003.00002_acl_cl.circle',
        'Net_InstanceNorm_003.00003_cpu.circle',
        'Net_InstanceNorm_003.conn.ini',
        'Net_InstanceNorm_003.conn.json',
      ]);
      // the conn file names the source as given, as circle-partitioner does
      expect(JSON.parse(readFileSync(join(work, 'Net_InstanceNorm_003.conn.json'), 'utf8')).source.file).toBe(input);
      // relative paths still mean <work_path>/<file>
      expect(await main(['partition', '--part_file', 'n.part', '--input_file', input, '--work_path', elsewhere], capture())).toBe(0);
      expect(await main(['partition', '--part_file', 'n.part', '--input_file', input, '--work_path', work], capture())).toBe(1);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      rmSync(work, { recursive: true, force: true });
    }
  });
});
