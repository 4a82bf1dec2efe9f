/**
 * Bad input never escapes as anything but a result or a FormatError: truncation at every byte,
 * byte flips, huge values over every aligned u32, random bytes and random mutations of real
 * loadables, each walked through everything downstream (decode, graph, memory map, dump,
 * inspect, diff against itself, write). The test timeout is the time bound: a hang fails it.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FormatError } from '../errors';
import { read, LOADABLE_IDENTIFIER } from './read';
import { decodeTasks } from './tasks';
import { toGraph } from './graph';
import { memoryMap } from './memory-map';
import { dumpText, inspectJson } from './inspect';
import { diffLoadables } from './diff';
import { write } from './write';
import { flatbufBytes, goldenBytes } from '../../../test/support/nvdla-fixtures';

function outcome(bytes: Uint8Array, file = 'fuzz.nvdla', deep = true): 'loadable' | 'error' {
  let l;
  try {
    l = read(bytes, file);
  } catch (e) {
    if (!(e instanceof FormatError)) throw new Error(`non-FormatError thrown: ${(e as Error)?.stack ?? String(e)}`);
    expect(e.info.file).toBe(file);
    expect(e.message.startsWith(`${file}: `)).toBe(true);
    return 'error';
  }
  const d = decodeTasks(l);
  for (const x of d.damage) expect(typeof x.message).toBe('string');
  const g = toGraph(d);
  expect(g.stats.edges).toBe(g.edges.length);
  for (const e of g.edges) expect(e.from >= 0 && e.from < g.nodes.length && e.to >= 0 && e.to < g.nodes.length).toBe(true);
  memoryMap(d);
  inspectJson(d);
  if (deep) {
    dumpText(d);
    // against itself, only damage and a blob-name collision (damaged names) can differ
    const other = diffLoadables(l, l, d, d).sections.slice(1).flatMap((s) => s.differences).filter((x) => x.path !== 'blobs');
    expect(other).toEqual([]);
    write(l);
  }
  return 'loadable';
}

const small = flatbufBytes('BDMA_L0_0_fbuf');
const lenet = goldenBytes('lenet-b1-nv_full-int8-fast-math');

describe('bad input gives a result or a FormatError', () => {
  it('truncating a regression file at every byte', { timeout: 120_000 }, () => {
    const kinds = new Set<string>();
    for (let k = 0; k < small.length; k++) kinds.add(outcome(small.slice(0, k), 'fuzz.nvdla', k % 8 === 0));
    // a cut keeps the root (the vtable and root are at the front) and loses lists: marks, not errors
    expect(kinds).toEqual(new Set(['loadable', 'error']));
  });

  it('truncating a golden at 400 places keeps what is left readable', { timeout: 120_000 }, () => {
    for (let i = 1; i <= 400; i++) {
      const cut = Math.floor((lenet.length * i) / 401);
      const r = outcome(lenet.subarray(0, cut), 'cut.nvdla', false);
      if (cut > 64) expect(r).toBe('loadable');
    }
  });

  it('flipping each byte of a regression file', { timeout: 120_000 }, () => {
    const kinds = new Set<string>();
    for (let k = 0; k < small.length; k++) {
      for (const x of [0xff, 0x01]) {
        const b = small.slice();
        b[k] = b[k]! ^ x;
        kinds.add(outcome(b, 'fuzz.nvdla', false));
      }
    }
    expect(kinds).toEqual(new Set(['loadable', 'error']));
  });

  it('huge values over every aligned u32 of a regression file', { timeout: 120_000 }, () => {
    for (let k = 0; k + 4 <= small.length; k += 4) {
      for (const v of [0xffffffff, 0x7fffffff, 1_000_000, 0x10000]) {
        const b = small.slice();
        new DataView(b.buffer).setUint32(k, v, true);
        outcome(b, 'fuzz.nvdla', false);
      }
    }
  });

  it('property: random bytes, with or without the NVDA identifier', { timeout: 120_000 }, () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 4096 }), fc.boolean(), (bytes, header) => {
        if (header && bytes.length >= 8) bytes.set([...LOADABLE_IDENTIFIER].map((c) => c.charCodeAt(0)), 4);
        outcome(bytes);
      }),
      { numRuns: 3000 },
    );
  });

  it('property: mutated goldens and regression files (byte writes, u32 writes, cuts)', { timeout: 180_000 }, () => {
    const sources = [lenet, small, flatbufBytes('CDP_L0_0_fbuf'), flatbufBytes('NN_L0_0_fbuf')];
    const mutation = fc.oneof(
      fc.record({ kind: fc.constant('set' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }),
      fc.record({ kind: fc.constant('u32' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffffffff }) }),
      fc.record({ kind: fc.constant('u16' as const), at: fc.nat(), value: fc.integer({ min: 0, max: 0xffff }) }),
      fc.record({ kind: fc.constant('cut' as const), at: fc.nat(), value: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.nat({ max: sources.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 6 }), (which, ms) => {
        let b = sources[which]!.slice();
        for (const m of ms) {
          const at = m.at % b.length;
          if (m.kind === 'set') b[at] = m.value;
          else if (m.kind === 'u32' && at + 4 <= b.length) new DataView(b.buffer).setUint32(at, m.value, true);
          else if (m.kind === 'u16' && at + 2 <= b.length) new DataView(b.buffer).setUint16(at, m.value, true);
          else if (m.kind === 'cut') b = b.slice(0, Math.max(at, 8));
        }
        outcome(b, 'fuzz.nvdla', which !== 0);
      }),
      { numRuns: 1500 },
    );
  });

  it('descriptor counts far beyond the blobs (num_operations 65535) are bounded by the bytes present', () => {
    const l = read(lenet, 'a.nvdla');
    const blobs = l.blobs.map((b) => {
      if (b.name !== 'task-0-addr0') return b;
      const data = b.data.slice();
      new DataView(data.buffer).setUint16(30, 65535, true); // num_operations
      new DataView(data.buffer).setUint16(32, 65535, true); // num_luts
      return { ...b, data };
    });
    const d = decodeTasks(read(write({ ...l, blobs }), 'big.nvdla'));
    const t = d.tasks[0]!;
    if (t.kind !== 'DLA') throw new Error('not DLA');
    expect(t.slots.length).toBe(10); // what the dependency graph blob holds
    expect(t.luts.length).toBe(1);
    expect(d.damage.map((x) => x.path)).toEqual(['task[0].dependency_graph', 'task[0].operation_list', 'task[0].surface_list', 'task[0].LUT_list']);
  });
});
