import { execFileSync } from 'node:child_process';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { BuddyAllocator } from './buddy';

/**
 * Traces recorded from nvdla/sw's BuddyAlloc.c (79538ba) driven by a seeded random sequence:
 * `a<size>=<offset returned, -1 = no room>`, `d<offset>` = deallocate.
 */
const TRACES: { poolLog2: number; ops: string }[] = [
  { poolLog2: 18, ops: 'a20000=0 a70000=131072 d0 a1=0 d0 d131072 a1=0 a4097=8192 a32434=32768 a4097=16384 d8192 d0 a70000=131072 a100=24576 a8192=0 d32768 a65536=65536 a8192=8192 a8192=32768 d32768 d131072 d0 a65536=131072 d16384 d131072 d65536 d8192 d24576 a8192=0 a260401=-1 a100=8192 a100=12288 d12288 d8192 d0 a1=0 a4096=4096 a1=8192 d4096 d0 d8192 a4096=0 d0 a20000=0 a20000=32768 a4097=65536 d0 d32768 d65536 a5000=0 d0 a193596=0 a70000=-1 a65536=-1 a20000=-1 d0 a20000=0 d0 a65536=0 d0 a100=0 d0 a8192=0 a4097=8192 a5000=16384 a65536=65536 d65536 a65536=65536 a4096=24576 d16384 a4096=28672 a70000=131072 d131072 a70000=131072 d131072 a70000=131072 d8192 d65536 a4097=8192 a4097=16384 a4097=32768 a1=40960 a65536=65536 d16384 d32768 a100=45056 d131072 a4097=32768 a65536=131072 a100=16384 a20000=196608 a65536=-1 a8192=49152 d49152 d45056 a4096=45056 d28672 d45056 a76638=-1 a8192=49152 d196608 d0 a70000=-1 a20000=196608 a4097=0 d65536 d32768 a5000=32768 a1=45056 a65536=65536 a70000=-1 d40960 a65536=-1 a4096=40960 d32768 a70000=-1 d65536 a100=28672 a4097=32768 d24576 a70000=-1 d131072 d32768 a5000=32768 a70000=-1 a70000=-1 a65536=131072 d16384 d40960 d0 d49152 a4096=40960 a4096=24576 d45056 a100=45056 d45056 d40960 a20000=229376 a8192=40960 d24576 d229376 d28672 a1=0 d40960 a100=4096 a100=40960 d32768 d196608 d131072 a20000=65536' },
  { poolLog2: 16, ops: 'a70000=-1 a70000=-1 a2108=0 a100=4096 d0 a20000=32768 a1=0 a65536=-1 d32768 a70000=-1 d0 d4096 a4097=0 a4097=8192 a65536=-1 a65536=-1 a1=16384 a100=20480 a5000=24576 a39901=-1 a65536=-1 d16384 a4097=32768 a70000=-1 d24576 a70000=-1 d0 a5000=0 a5000=24576 d20480 d8192 d24576 d0 d32768 a8192=0 d0 a1=0 d0 a20000=0 d0 a8192=0 d0 a1=0 d0 a100=0 a1=4096 a5000=8192 d4096 d0 d8192 a1=0 d0 a4096=0 d0 a70000=-1 a4097=0 a1=8192 a70000=-1 a1=12288 a65536=-1 a5000=16384 a4096=24576 a5000=32768 d32768 a20000=32768 a65536=-1 a100=28672 d8192 d32768 a70000=-1 d16384 a20000=32768 d12288 d24576 d0 d32768 d28672 a20000=0 d0 a5000=0 d0 a5000=0 a4096=8192 a100=12288 d0 d12288 d8192 a4096=0 d0 a1=0 d0 a4097=0 a4096=8192 d0 a100=12288 a1=0 a30485=32768 a4096=4096 a100=16384 d0 a20000=-1 d16384 d32768 a8192=16384 a65536=-1 a1=0 a1=24576 d16384 a100=28672 d28672 d4096 d8192 a8192=16384 a1=8192 a4097=32768 a5000=40960 a4097=49152 a5000=57344 d49152 a65536=-1 d12288 a20000=-1 d0 a20000=-1 d24576 d40960 a100=12288 a8192=40960 d40960 a1=40960 d40960 d32768 a4096=24576 d16384 d12288 d8192 a20000=-1 d24576 a100=49152 d49152 d57344 a8192=0 d0 a20000=0 d0 a20000=0 d0 a5000=0 d0 a8192=0' },
];

function replay(poolLog2: number, ops: string): string[] {
  const b = new BuddyAllocator(2 ** poolLog2, 12);
  const bad: string[] = [];
  for (const op of ops.split(' ')) {
    if (op.startsWith('d')) b.deallocate(Number(op.slice(1)));
    else {
      const [size, want] = op.slice(1).split('=').map(Number);
      const got = b.allocate(size!) ?? -1;
      if (got !== want) bad.push(`alloc ${size} -> ${got}, upstream ${want}`);
    }
  }
  return bad;
}

describe('buddy allocator (BuddyAlloc.c)', () => {
  it('rounds requests up to a power of two, at least 4 KiB, and hands out the free lists in upstream order', () => {
    const b = new BuddyAllocator(2 ** 20, 12);
    expect(b.allocate(5000)).toBe(0); // an 8 KiB block
    expect(b.allocate(4096)).toBe(8192);
    expect(b.allocate(100000)).toBe(131072); // 128 KiB, aligned to its size
    b.deallocate(0);
    expect(b.allocate(3000)).toBe(12288); // the 4 KiB buddy split off earlier is first in its list
    expect(b.allocate(2 ** 21)).toBeNull();
  });

  it('replays traces of the C allocator exactly', () => {
    for (const t of TRACES) expect(replay(t.poolLog2, t.ops)).toEqual([]);
  });

  it('live blocks never overlap, are aligned to their size and stay inside the pool', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.integer({ min: 1, max: 70000 }), fc.nat()), { maxLength: 120 }), (steps) => {
        const b = new BuddyAllocator(2 ** 18, 12);
        const live: { at: number; size: number }[] = [];
        for (const [free, size, pick] of steps) {
          if (free && live.length) {
            b.deallocate(live.splice(pick % live.length, 1)[0]!.at);
            continue;
          }
          const at = b.allocate(size);
          if (at === null) continue;
          const block = Math.max(4096, 2 ** Math.ceil(Math.log2(size)));
          expect(at % block).toBe(0);
          expect(at + block).toBeLessThanOrEqual(2 ** 18);
          for (const l of live) expect(at + block <= l.at || l.at + l.size <= at).toBe(true);
          live.push({ at, size: block });
        }
        // everything freed: the whole pool is one block again
        for (const l of live) b.deallocate(l.at);
        expect(b.allocate(2 ** 18)).toBe(0);
      }),
    );
  });

  // differential run against the C allocator when NVDLA_BUDDY_ORACLE points at a harness reading
  // "a <size>" / "d <offset>" lines and printing each allocation's offset (-1 when it fails)
  it.runIf(process.env.NVDLA_BUDDY_ORACLE)('matches the C allocator on a long random sequence', () => {
    const ops: string[] = [];
    let seed = 12345;
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    const ours = new BuddyAllocator(2 ** 20, 12);
    const live: number[] = [];
    const sizes: number[] = [];
    for (let i = 0; i < 3000; i++) {
      if (live.length && rand() < 0.45) {
        const at = live.splice(Math.floor(rand() * live.length), 1)[0]!;
        ours.deallocate(at);
        ops.push(`d ${at}`);
      } else {
        const size = 1 + Math.floor(rand() * 2 ** (12 + Math.floor(rand() * 8)));
        const at = ours.allocate(size);
        sizes.push(at ?? -1);
        if (at !== null) live.push(at);
        ops.push(`a ${size}`);
      }
    }
    const out = execFileSync(process.env.NVDLA_BUDDY_ORACLE!, ['20'], { input: ops.join('\n') + '\n', encoding: 'utf8' });
    expect(out.trim().split('\n').map(Number)).toEqual(sizes);
  });
});
