import { describe, expect, it } from 'vitest';
import { Builder } from 'flatbuffers';
import { FormatError } from '../errors';
import { detect, read } from './read';
import { write } from './write';
import { write as writeCircle } from '../circle/write';
import { sampleModel } from '../circle/testing';
import { Loadable as FbLoadable } from './generated/nvdla/loadable/loadable';
import { MemoryListEntry as FbMemory } from './generated/nvdla/loadable/memory-list-entry';
import { Version as FbVersion } from './generated/nvdla/loadable/version';
import { FLATBUFS, GOLDENS, flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';

describe('detect', () => {
  it('every golden (NVDA) and every regression flatbuf (no identifier, sniffed from the root table)', () => {
    expect(GOLDENS.filter((n) => !detect(goldenBytes(n), `${n}.nvdla`))).toEqual([]);
    expect(FLATBUFS.filter((n) => !detect(flatbufBytes(n), n))).toEqual([]);
  });

  it('not circle, TFLite, text or short input; the name decides only without bytes', () => {
    const circle = writeCircle(sampleModel());
    expect(detect(circle, 'm.circle')).toBe(false);
    const tflite = circle.slice();
    tflite.set([0x54, 0x46, 0x4c, 0x33], 4);
    expect(detect(tflite, 'm.tflite')).toBe(false);
    expect(detect(new TextEncoder().encode('name: "lenet"\nlayer { name: "data" }\n'), 'x.nvdla')).toBe(false);
    expect(detect(new Uint8Array(10), 'x.nvdla')).toBe(false);
    expect(detect(new Uint8Array(0), 'x.nvdla')).toBe(true);
    expect(detect(new Uint8Array(0), 'x_fbuf')).toBe(true);
    expect(detect(new Uint8Array(0), 'x.bin')).toBe(false);
  });
});

describe('read', () => {
  it('reads the lists of LeNet (notes 3.6): 17 memory entries, blobs as views into the file', () => {
    const bytes = goldenBytes('lenet-b1-nv_full-int8-fast-math');
    const l = read(bytes, 'lenet.nvdla');
    expect(l.identifier).toBe('NVDA');
    expect(l.version).toEqual({ major: 0, minor: 7, sub_minor: 0 });
    expect(l.memory_list[1]).toMatchObject({ id: 1, domain: 0, flags: 3, size: 925_696, alignment: 4096 });
    expect(l.memory_list[1]!.contents.slice(0, 3)).toEqual(['tb-0', 'tb-2', 'tb-3']);
    expect(l.task_list.map((t) => t.address_list)).toEqual([[5, 1, 2, 3, 4, 6, 7, 8, 9, 10], [11, 1, 2, 3, 4, 12, 13, 14, 15, 16]]);
    const tb5 = l.blobs.find((b) => b.name === 'tb-5')!;
    expect(tb5.data.length).toBe(400_000);
    expect(tb5.data.buffer).toBe(bytes.buffer); // a view, not a copy
    expect(l.damage).toEqual([]);
  });

  it('throws a FormatError only when the root cannot be located', () => {
    expect(() => read(new Uint8Array(0), 'e.nvdla')).toThrow(FormatError);
    expect(() => read(new Uint8Array(5), 'e.nvdla')).toThrow(/cannot hold a FlatBuffers root/);
    const bad = new Uint8Array(16);
    new DataView(bad.buffer).setUint32(0, 1000, true);
    try {
      read(bad, 'bad.nvdla');
      throw new Error('read accepted a root past the end');
    } catch (e) {
      expect(e).toBeInstanceOf(FormatError);
      expect((e as FormatError).info).toMatchObject({ kind: 'truncated', file: 'bad.nvdla', offset: 0 });
      expect((e as FormatError).message).toContain('not a readable loadable');
    }
  });

  it('a missing version is marked and read as 0.0.0', () => {
    // (the generated endLoadable refuses a missing version, so the table is built by hand)
    const b = new Builder(64);
    b.startObject(9);
    b.finish(b.endObject(), 'NVDA');
    const l = read(b.asUint8Array(), 'nov.nvdla');
    expect(l.version).toEqual({ major: 0, minor: 0, sub_minor: 0 });
    expect(l.damage).toEqual([expect.objectContaining({ kind: 'corrupt', path: 'version', message: 'the required version field is missing' })]);
  });

  it('aliased strings (one 64 KiB name listed 5,000 times) hit the work budget instead of running on', () => {
    const b = new Builder(1024);
    const name = b.createString('x'.repeat(65536));
    const contents = FbMemory.createContentsVector(b, Array(5000).fill(name));
    FbMemory.startMemoryListEntry(b);
    FbMemory.addContents(b, contents);
    const entry = FbMemory.endMemoryListEntry(b);
    const list = FbLoadable.createMemoryListVector(b, [entry]);
    FbLoadable.startLoadable(b);
    FbLoadable.addVersion(b, FbVersion.createVersion(b, 0, 7, 0));
    FbLoadable.addMemoryList(b, list);
    b.finish(FbLoadable.endLoadable(b), 'NVDA');
    const bytes = b.asUint8Array();
    const l = read(bytes, 'alias.nvdla');
    expect(l.damage.some((d) => d.kind === 'limit')).toBe(true);
    // only what the budget allowed was decoded: about twice the file size in string bytes
    const decoded = l.memory_list[0]!.contents.reduce((n, c) => n + c.length, 0);
    expect(decoded).toBeLessThanOrEqual(2 * bytes.length + 4096);
  });

  it('cross references past their lists are marked, nothing is followed blindly', () => {
    const l = read(goldenBytes('lenet-b1-nv_full-int8-fast-math'), 'a.nvdla');
    const bad = {
      ...l,
      task_list: l.task_list.map((t, i) => (i === 0 ? { ...t, address_list: [...t.address_list, 99], post_actions: [7] } : t)),
      submit_list: [...l.submit_list, { id: 2, task_id: [5] }],
      address_list: l.address_list.map((a, i) => (i === 3 ? { ...a, mem_id: 40 } : a)),
      memory_list: l.memory_list.map((m, i) => (i === 1 ? { ...m, contents: [...m.contents, 'tb-404'], offsets: [...m.offsets, 0] } : m)),
      reloc_list: l.reloc_list.map((r, i) => (i === 0 ? { ...r, write_id: 77 } : r)),
      tensor_desc_list: l.tensor_desc_list.map((t, i) => (i === 0 ? { ...t, data_type: 42 } : t)),
    };
    const back = read(write(bad), 'bad.nvdla');
    expect(back.damage.map((d) => `${d.path}: ${d.message}`)).toEqual([
      'task_list[0].address_list[10]: address 99 is past the address list (17 entries)',
      'task_list[0].post_actions[0]: event 7 is past the event list (3 entries)',
      'submit_list[2].task_id[0]: task 5 is past the task list (2 entries)',
      'memory_list[1].contents[8]: names blob "tb-404", which the blob list does not have',
      'address_list[3].mem_id: memory 40 is past the memory list (17 entries)',
      'tensor_desc_list[0].data_type: data type 42 is not a known value',
      'reloc_list[0].write_id: memory 77 is past the memory list (17 entries)',
    ]);
  });
});
