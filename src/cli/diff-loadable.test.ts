import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { diffLoadableCommand } from './diff-loadable';
import { UsageError, type CliIO } from './io';
import { FormatError } from '../core/errors';
import { read } from '../core/loadable/read';
import { write } from '../core/loadable/write';
import { diffLoadables, diffText, type LoadableDiff } from '../core/loadable/diff';
import { goldenBytes } from '../../test/support/nvdla-fixtures';
import { scaledLoadable } from '../../test/support/nvdla-big';

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

const LENET = 'lenet-b1-nv_full-int8-fast-math';
let dir = '';
const at = (f: string) => join(dir, f);

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'diff-loadable-'));
  const bytes = goldenBytes(LENET);
  writeFileSync(at('a.nvdla'), bytes);
  const l = read(bytes, 'a.nvdla');
  writeFileSync(at('rewritten.nvdla'), write(l));
  // conv1 stride 1 -> 2 in the op list (slot 0, conv_stride_x at byte 61)
  const opList = l.blobs.find((b) => b.name === 'task-0-op_list')!;
  const data = opList.data.slice();
  data[61] = 2;
  writeFileSync(at('stride.nvdla'), write({ ...l, blobs: l.blobs.map((b) => (b === opList ? { ...b, data } : b)) }));
  writeFileSync(at('model.prototxt'), 'name: "lenet"\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('npu-studio diff-loadable', () => {
  it('exit 0 and "equivalent" for a golden and its re-serialisation', async () => {
    const io = capture();
    expect(await diffLoadableCommand.run([at('a.nvdla'), at('rewritten.nvdla')], io)).toBe(0);
    expect(io.stdout.split('\n')[0]).toBe('a.nvdla vs rewritten.nvdla: equivalent');
    expect(io.stdout).toContain('blobs: equal');
  });

  it('exit 1 with the slot, descriptor and field when an op descriptor differs', async () => {
    const io = capture();
    expect(await diffLoadableCommand.run([at('a.nvdla'), at('stride.nvdla')], io)).toBe(1);
    expect(io.stdout).toContain('a.nvdla vs stride.nvdla: DIFFERENT');
    expect(io.stdout).toContain('blobs: 1 difference');
    expect(io.stdout).toContain('task[0].slot[0].op.conv_stride_x [task 0 slot 0 CONV dla_conv_op_desc conv_stride_x]: 1 -> 2');
  });

  it('--json prints the LoadableDiff', async () => {
    const io = capture();
    expect(await diffLoadableCommand.run(['--json', at('a.nvdla'), at('stride.nvdla')], io)).toBe(1);
    const d = JSON.parse(io.stdout) as LoadableDiff;
    expect(d.equivalent).toBe(false);
    expect(d.sections.map((s) => s.section)).toEqual([
      'readability', 'version', 'task_list', 'submit_list', 'event_list', 'memory_list', 'address_list', 'tensor_desc_list', 'reloc_list', 'blobs',
    ]);
    const blobs = d.sections.find((s) => s.section === 'blobs')!;
    expect(blobs.differences).toEqual([
      {
        path: 'task[0].slot[0].op.conv_stride_x', a: '1', b: '2',
        descriptor: { task: 0, slot: 0, engine: 'CONV', struct: 'dla_conv_op_desc', role: 'op', field: 'conv_stride_x' },
      },
    ]);
  });

  it('usage errors (exit 2 through main): one file, three files, an unknown option', async () => {
    await expect(diffLoadableCommand.run([at('a.nvdla')], capture())).rejects.toThrow(UsageError);
    await expect(diffLoadableCommand.run([at('a.nvdla'), at('a.nvdla'), at('a.nvdla')], capture())).rejects.toThrow(UsageError);
    await expect(diffLoadableCommand.run(['--color', at('a.nvdla'), at('a.nvdla')], capture())).rejects.toThrow(UsageError);
  });

  it('a file that is not a loadable is a FormatError naming it (exit 1 through main)', async () => {
    const e = await diffLoadableCommand.run([at('a.nvdla'), at('model.prototxt')], capture()).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(FormatError);
    expect((e as FormatError).info.file).toBe('model.prototxt');
  });

  it('files read in pieces give the report of the files compared in memory (2 MB, weights changed across piece and window edges)', async () => {
    const base = read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'lenet.nvdla');
    const big = scaledLoadable(base, 2 * 1024 * 1024);
    const a = write(big);
    const largest = big.blobs.filter((b) => b.name.startsWith('tb-')).sort((x, y) => y.data.length - x.data.length)[0]!;
    const changed = largest.data.slice();
    for (const i of [65535, 65536, 262143, 262144, 1_000_000, changed.length - 1]) changed[i] = changed[i]! ^ 0xff;
    const b = write({ ...big, blobs: big.blobs.map((x) => (x === largest ? { ...x, data: changed } : x)) });
    writeFileSync(at('big-a.nvdla'), a);
    writeFileSync(at('big-b.nvdla'), b);
    writeFileSync(at('big-a-copy.nvdla'), a);
    for (const [other, bytes, code] of [['big-b.nvdla', b, 1], ['big-a-copy.nvdla', a, 0]] as const) {
      const want = diffLoadables(read(a, 'big-a.nvdla'), read(bytes, other));
      const text = capture();
      expect(await diffLoadableCommand.run([at('big-a.nvdla'), at(other)], text)).toBe(code);
      expect(text.stdout).toBe(diffText(want));
      const json = capture();
      expect(await diffLoadableCommand.run(['--json', at('big-a.nvdla'), at(other)], json)).toBe(code);
      expect(JSON.parse(json.stdout)).toEqual(want);
    }
    expect(diffText(diffLoadables(read(a, 'big-a.nvdla'), read(b, 'big-b.nvdla')))).toContain('data[65535..65537]');
  });

  it('a missing file is an error naming its path (exit 1 through main)', async () => {
    const e = await diffLoadableCommand.run([at('a.nvdla'), at('missing.nvdla')], capture()).catch((x: unknown) => x);
    expect(e).toMatchObject({ code: 'ENOENT', path: at('missing.nvdla') });
  });
});
