/**
 * The binary buddy allocator the NVDLA compiler places pooled tensors with (nvdla/sw
 * `utils/BuddyAlloc.c`), reproduced for its exact placement decisions: a pool of 2^max bytes,
 * blocks of 2^k bytes (k >= the minimum, 4 KiB in the compiler), one LIFO free list per block
 * size, a "split" bit per block and a "free xor free" bit per buddy pair, splitting a larger free
 * block on demand and merging buddies on release. Which free block a request gets depends on
 * these lists' order, so it is kept exactly; offsets are byte offsets from the pool's start.
 */

export class BuddyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BuddyError';
  }
}

function log2Floor(x: number): number {
  return 31 - Math.clz32(x);
}

const isPowerOfTwo = (x: number) => x > 0 && (x & (x - 1)) === 0;

/** a bit per node of a complete binary tree of `levels` levels */
// the set bits only (a compile sets a few hundred of up to 2^levels): a 4 GiB pool at 4 KiB
// granularity would otherwise zero-fill two 1 MiB arrays per allocator on every compile
class BitTree {
  private readonly ones = new Set<number>();
  private readonly size: number;
  constructor(levels: number) {
    this.size = 2 ** levels;
  }
  /** the bit's index, -1 outside the tree (reads false, writes ignored: as the typed array this replaced) */
  private at(level: number, index: number): number {
    const i = 2 ** level - 1 + index;
    return Number.isInteger(i) && i >= 0 && i < this.size ? i : -1;
  }
  get(level: number, index: number): boolean {
    return this.ones.has(this.at(level, index));
  }
  set(level: number, index: number, v: boolean): void {
    const i = this.at(level, index);
    if (i < 0) return;
    if (v) this.ones.add(i);
    else this.ones.delete(i);
  }
  flip(level: number, index: number): void {
    const i = this.at(level, index);
    if (i >= 0 && !this.ones.delete(i)) this.ones.add(i);
  }
}

interface Links {
  prev: number | null;
  next: number | null;
}

export class BuddyAllocator {
  readonly maxLog2: number;
  readonly minLog2: number;
  private readonly freeHead: (number | null)[];
  /** the free-list links upstream writes into each free block's first bytes */
  private readonly links = new Map<number, Links>();
  private readonly split: BitTree;
  private readonly fxf: BitTree;

  constructor(poolSize: number, minBlockLog2: number) {
    if (!isPowerOfTwo(poolSize) || poolSize < 2 ** minBlockLog2 || minBlockLog2 < 4) throw new BuddyError(`bad buddy pool: ${poolSize} bytes, blocks of 2^${minBlockLog2}`);
    this.maxLog2 = log2Floor(poolSize);
    this.minLog2 = minBlockLog2;
    this.freeHead = Array.from({ length: this.levels }, () => null);
    this.freeHead[0] = 0;
    this.links.set(0, { prev: null, next: null });
    this.split = new BitTree(Math.max(1, this.levels - 1));
    this.fxf = new BitTree(Math.max(1, this.levels - 1));
  }

  get levels(): number {
    return this.maxLog2 - this.minLog2 + 1;
  }

  private blockBytes(level: number): number {
    return 2 ** (this.maxLog2 - level);
  }

  private indexOf(addr: number, level: number): number {
    return Math.floor(addr / 2 ** (this.maxLog2 - level));
  }

  private link(addr: number): Links {
    let l = this.links.get(addr);
    if (!l) {
      l = { prev: null, next: null };
      this.links.set(addr, l);
    }
    return l;
  }

  private levelOfAddr(addr: number): number {
    let level = this.levels - 1;
    while (level > 0) {
      if (this.split.get(level - 1, this.indexOf(addr, level - 1))) return level;
      level--;
    }
    return 0;
  }

  private popHead(level: number): number {
    const head = this.freeHead[level]!;
    const l = this.link(head);
    if (l.next !== null) this.link(l.next).prev = l.prev;
    this.freeHead[level] = l.next;
    return head;
  }

  private borrowFromBuddy(level: number): void {
    if (level === 0) return;
    const buddyLevel = level - 1;
    if (this.freeHead[buddyLevel] === null) this.borrowFromBuddy(buddyLevel);
    if (this.freeHead[buddyLevel] === null) return;
    const block0 = this.freeHead[buddyLevel]!;
    const block1 = block0 + this.blockBytes(level);
    this.split.set(buddyLevel, this.indexOf(block0, buddyLevel), true);
    this.popHead(buddyLevel);
    this.link(block1).prev = block0;
    this.link(block1).next = null;
    this.link(block0).prev = null;
    this.link(block0).next = block1;
    this.freeHead[level] = block0;
    if (buddyLevel > 0) this.fxf.flip(buddyLevel - 1, this.indexOf(block0, buddyLevel - 1));
  }

  /** offset of a block of at least `size` bytes, or null when the pool cannot hold it */
  allocate(size: number): number | null {
    let log2 = log2Floor(size);
    if (!isPowerOfTwo(size)) log2++;
    log2 = Math.max(log2, this.minLog2);
    if (log2 > this.maxLog2) return null;
    const level = this.maxLog2 - log2;
    if (this.freeHead[level] === null) this.borrowFromBuddy(level);
    if (this.freeHead[level] === null) return null;
    const addr = this.popHead(level);
    if (level > 0) this.fxf.flip(level - 1, this.indexOf(addr, level - 1));
    return addr;
  }

  private reclaimFromPartners(addr: number, level: number): void {
    const partnerLevel = level + 1;
    let p0 = this.indexOf(addr, partnerLevel);
    if (p0 % 2) p0--;
    this.split.set(level, this.indexOf(addr, level), false);
    const bytes = this.blockBytes(partnerLevel);
    for (const a of [p0 * bytes, (p0 + 1) * bytes]) {
      const l = this.link(a);
      if (this.freeHead[partnerLevel] === a) this.freeHead[partnerLevel] = l.next;
      if (l.prev !== null) this.link(l.prev).next = l.next;
      if (l.next !== null) this.link(l.next).prev = l.prev;
    }
    const merged = p0 * bytes;
    const head = this.freeHead[level] ?? null;
    this.link(merged).prev = null;
    this.link(merged).next = head;
    if (head !== null) this.link(head).prev = merged;
    this.freeHead[level] = merged;
    if (level > 0) this.fxf.flip(level - 1, this.indexOf(addr, level - 1));
  }

  deallocate(addr: number): void {
    const level = this.levelOfAddr(addr);
    const head = this.freeHead[level] ?? null;
    this.link(addr).prev = null;
    this.link(addr).next = head;
    if (head !== null) this.link(head).prev = addr;
    this.freeHead[level] = addr;
    if (level > 0) this.fxf.flip(level - 1, this.indexOf(addr, level - 1));
    for (let my = level; my > 0; ) {
      const buddyLevel = my - 1;
      if (this.fxf.get(buddyLevel, this.indexOf(addr, buddyLevel))) break;
      this.reclaimFromPartners(addr, buddyLevel);
      my = buddyLevel;
    }
  }
}
