/**
 * The memory a loadable runs in, as the runtime sets it up (`Runtime.cpp` load/submit,
 * notes/nvdla.md 2.4): one buffer per memory-list entry; SET entries get each `contents[i]` blob
 * copied to `offsets[i]`; INPUT / OUTPUT entries are the bindable tensors (the caller's input is
 * copied in, outputs are read back after the run); relocations write the bound tensors' line
 * and surface strides into the descriptor blobs. A task's address-list index leads to
 * (memory, offset) through the global address list.
 *
 * SRAM entries are allocated like the others (the UMD does not allocate them, but the firmware
 * treats CV-SRAM as plain memory, and a functional model needs the bytes somewhere).
 */
import type { Loadable, TaskListEntry, TensorDescListEntry } from '../loadable/model';
import { DlaExecError, type DlaPlace } from './errors';

export const MEMORY_FLAGS = { ALLOC: 1, SET: 2, INPUT: 4, OUTPUT: 8 } as const;

/** Total bytes a run allocates for the memory list (hostile files declare terabytes). */
export const MAX_MEMORY_BYTES = 2 ** 31;

export interface BindableTensor {
  kind: 'input' | 'output';
  memId: number;
  bindId: number;
  tensorDescId: number;
  desc: TensorDescListEntry | null;
}

/** A resolved place in memory: the whole buffer of a memory entry and a byte offset in it. */
export interface MemRef {
  memId: number;
  buf: Uint8Array;
  base: number;
}

export class DlaMemory {
  readonly buffers: Uint8Array[];
  readonly bindable: BindableTensor[] = [];
  /** buffer i is the pristine image of a SET entry shared with other runs (copied before a write) */
  private readonly shared: boolean[];

  /**
   * `images`: pristine images of SET entries kept across runs of the same loadable (weights,
   * descriptors); a run reads them in place and copies one only when it writes into it.
   */
  constructor(
    readonly loadable: Loadable,
    readonly file: string,
    images?: Map<number, Uint8Array>,
  ) {
    const l = loadable;
    let total = 0;
    for (const m of l.memory_list) total += m.size;
    if (total > MAX_MEMORY_BYTES) {
      throw new DlaExecError(file, 'limit', null, null, `the memory list declares ${total} bytes, more than the ${MAX_MEMORY_BYTES} a run allocates`);
    }
    const blobs = new Map(l.blobs.map((b) => [b.name, b]));
    this.shared = l.memory_list.map(() => false);
    this.buffers = l.memory_list.map((m, i) => {
      if (m.id !== i) throw new DlaExecError(file, 'corrupt', null, null, `memory_list[${i}] has id ${m.id}: the runtime indexes memory by position`);
      const bindable = (m.flags & (MEMORY_FLAGS.INPUT | MEMORY_FLAGS.OUTPUT)) !== 0;
      const kept = images && !bindable ? images.get(i) : undefined;
      if (kept) {
        this.shared[i] = true;
        return kept;
      }
      const buf = new Uint8Array(m.size);
      if (m.flags & MEMORY_FLAGS.SET) {
        m.contents.forEach((name, k) => {
          const b = blobs.get(name);
          const at = m.offsets[k] ?? 0;
          if (!b) {
            // the KMD regression files name an empty content for their output: nothing to copy
            if (name === '') return;
            throw new DlaExecError(file, 'corrupt', null, null, `memory ${i}: contents[${k}] names blob "${name}", which the file does not have`);
          }
          if (at + b.data.length > m.size) {
            throw new DlaExecError(file, 'corrupt', null, null, `memory ${i}: blob "${name}" (${b.data.length} bytes) at offset ${at} does not fit in its ${m.size} bytes`);
          }
          buf.set(b.data, at);
        });
      }
      if (images && !bindable && m.flags & MEMORY_FLAGS.SET) {
        images.set(i, buf);
        this.shared[i] = true;
      }
      return buf;
    });
    l.memory_list.forEach((m, i) => {
      if (m.flags & (MEMORY_FLAGS.INPUT | MEMORY_FLAGS.OUTPUT)) {
        const kind = m.flags & MEMORY_FLAGS.INPUT ? 'input' : 'output';
        this.bindable.push({ kind, memId: i, bindId: m.bind_id, tensorDescId: m.tensor_desc_id, desc: l.tensor_desc_list[m.tensor_desc_id] ?? null });
      }
    });
  }

  /** `ref` made writable: a shared pristine image is copied first (the other runs keep theirs). */
  forWrite(ref: MemRef): MemRef {
    if (this.shared[ref.memId]) {
      this.buffers[ref.memId] = this.buffers[ref.memId]!.slice();
      this.shared[ref.memId] = false;
    }
    return ref.buf === this.buffers[ref.memId] ? ref : { ...ref, buf: this.buffers[ref.memId]! };
  }

  /** memory `memId` still holds what the loadable set it to (nothing wrote it in this run) */
  isPristine(memId: number): boolean {
    return this.shared[memId] === true;
  }

  /**
   * The relocations (`reloc_list`): the line (type 1) and surface (type 2) stride of the tensor
   * bound at `address_id`, written as a u32 at `offset` of memory `write_id`. With tensors bound
   * at their descriptor's strides (as here) this rewrites the values the compiler wrote.
   */
  applyRelocations(): void {
    const l = this.loadable;
    l.reloc_list.forEach((r, i) => {
      const a = l.address_list[r.address_id];
      const where = `reloc_list[${i}]`;
      if (!a) throw new DlaExecError(this.file, 'corrupt', null, null, `${where}: address ${r.address_id} is past the address list`);
      const bound = this.bindable.find((b) => b.memId === a.mem_id);
      if (!bound?.desc) return; // not a bindable tensor: the runtime has nothing to relocate
      const value = r.reloc_type === 1 ? bound.desc.stride_1 : r.reloc_type === 2 ? bound.desc.stride_2 : null;
      if (value === null) throw new DlaExecError(this.file, 'unsupported', null, null, `${where}: reloc_type ${r.reloc_type} is neither a line (1) nor a surface (2) stride`);
      let buf = this.buffers[r.write_id];
      if (!buf || r.offset + 4 > buf.length) throw new DlaExecError(this.file, 'corrupt', null, null, `${where}: offset ${r.offset} of memory ${r.write_id} is outside it`);
      const old = new DataView(buf.buffer, buf.byteOffset, buf.byteLength).getUint32(r.offset, true);
      if (old === value >>> 0) return; // already what the bound tensor says (a kept image stays shared)
      buf = this.forWrite({ memId: r.write_id, buf, base: r.offset }).buf;
      new DataView(buf.buffer, buf.byteOffset, buf.byteLength).setUint32(r.offset, value >>> 0, true);
    });
  }

  /**
   * A task address-list index plus an offset, resolved and bounds-checked for `size` bytes;
   * `field` names the descriptor field in errors.
   */
  resolve(task: TaskListEntry, taskIndex: number, addressIndex: number, offset: number, size: number, place: DlaPlace, field: string): MemRef {
    const fail = (message: string): never => {
      throw new DlaExecError(this.file, 'corrupt', place, field, message);
    };
    if (addressIndex < 0 || addressIndex >= task.address_list.length) fail(`address index ${addressIndex} is past task ${taskIndex}'s address list (${task.address_list.length} entries)`);
    const id = task.address_list[addressIndex]!;
    const a = this.loadable.address_list[id];
    if (!a) return fail(`task address ${addressIndex} names address ${id}, past the address list`);
    const buf = this.buffers[a.mem_id];
    if (!buf) return fail(`address ${id} names memory ${a.mem_id}, past the memory list`);
    const base = a.offset + offset;
    if (base < 0 || base + size > buf.length) {
      fail(`${size} bytes at offset ${base} of memory ${a.mem_id} (address ${id}) run past its ${buf.length} bytes`);
    }
    return { memId: a.mem_id, buf, base };
  }

  /** The bytes of a bindable tensor by its memory entry. */
  tensorBytes(b: BindableTensor): Uint8Array {
    const buf = this.forWrite({ memId: b.memId, buf: this.buffers[b.memId]!, base: 0 }).buf;
    const off = b.desc?.offset ?? 0;
    return buf.subarray(off, Math.min(buf.length, off + (b.desc?.size ?? buf.length)));
  }
}
