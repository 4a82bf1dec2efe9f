/**
 * First-fit allocator over the kernel module's memory (book-keeping in JavaScript, blocks in
 * the WebAssembly memory). Blocks are 64-byte aligned and followed by 64 bytes nobody owns, so
 * a vector load that reads a little past the end of a tensor (im2col's stride-2 path) stays
 * inside memory. The memory grows on demand and never shrinks.
 */
import { PAGE } from './wasm-module';

const ALIGN = 64;
const SLACK = 64;

export class Heap {
  /** free blocks [start, end), sorted by start, never adjacent (merged) */
  private free: { start: number; end: number }[] = [];
  private readonly sizes = new Map<number, number>();
  private top: number;
  private inUse = 0;

  constructor(
    private readonly memory: WebAssembly.Memory,
    start: number,
  ) {
    this.top = start;
  }

  /** Bytes handed out and not freed. */
  get allocatedBytes(): number {
    return this.inUse;
  }

  /** A block of at least `bytes` bytes (contents unspecified); its byte address. */
  alloc(bytes: number): number {
    if (!Number.isFinite(bytes) || bytes < 0) throw new RangeError(`kernel memory: cannot allocate ${bytes} bytes`);
    const size = Math.ceil((bytes + SLACK) / ALIGN) * ALIGN;
    for (let i = 0; i < this.free.length; i++) {
      const f = this.free[i]!;
      if (f.end - f.start >= size) {
        const ptr = f.start;
        f.start += size;
        if (f.start === f.end) this.free.splice(i, 1);
        this.sizes.set(ptr, size);
        this.inUse += size;
        return ptr;
      }
    }
    const ptr = this.top;
    const end = ptr + size;
    if (end > 0xffff0000) throw new RangeError(`kernel memory: ${Math.round(end / 2 ** 20)} MiB is past WebAssembly's 4 GiB`);
    const have = this.memory.buffer.byteLength;
    if (end > have) {
      // grow by at least a quarter of what there is, so a run of allocations grows rarely
      const need = Math.ceil((end - have) / PAGE);
      const pages = Math.max(need, Math.min(Math.ceil(have / PAGE / 4), 65536 - have / PAGE));
      try {
        this.memory.grow(pages);
      } catch {
        try {
          this.memory.grow(need);
        } catch {
          throw new RangeError(`kernel memory: could not grow to ${Math.round(end / 2 ** 20)} MiB`);
        }
      }
    }
    this.top = end;
    this.sizes.set(ptr, size);
    this.inUse += size;
    return ptr;
  }

  release(ptr: number): void {
    const size = this.sizes.get(ptr);
    if (size === undefined) throw new Error(`kernel memory: ${ptr} is not an allocated block`);
    this.sizes.delete(ptr);
    this.inUse -= size;
    let start = ptr;
    let end = ptr + size;
    // insert sorted, merging with neighbours
    let i = 0;
    while (i < this.free.length && this.free[i]!.start < start) i++;
    const prev = this.free[i - 1];
    const next = this.free[i];
    if (next && next.start === end) {
      end = next.end;
      this.free.splice(i, 1);
    }
    if (prev && prev.end === start) {
      prev.end = end;
      start = prev.start;
    } else {
      this.free.splice(i, 0, { start, end });
    }
    // a free block at the top goes back to the bump pointer
    const last = this.free[this.free.length - 1];
    if (last && last.end === this.top) {
      this.top = last.start;
      this.free.pop();
    }
  }
}
