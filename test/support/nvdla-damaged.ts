/**
 * A deliberately damaged loadable, for the tests, the e2e spec and the Samples menu
 * (`scripts/make-samples.mjs`): the LeNet int8 golden with five faults of the kinds the reader
 * reports, written back as a sound FlatBuffer so everything else still reads:
 *
 * 1. slot 2 (PDP) names consumer CONV slot 42, past the op list (10 slots);
 * 2. slot 0 (CONV) has `in_precision` 7, which no precision has;
 * 3. slot 3 (CONV) reads `src_data` at task address 31, past the task's address list (10);
 * 4. memory 1 places blob "tb-99", which the blob list does not have (it was "tb-9");
 * 5. address 16 points at memory 40, past the memory list (17 entries).
 */
import { read } from '../../src/core/loadable/read';
import { write } from '../../src/core/loadable/write';

export const DAMAGED_FAULTS = 5;

export function damagedLoadable(golden: Uint8Array, file = 'damaged.nvdla'): Uint8Array {
  const l = read(golden, file);
  const blobs = l.blobs.map((b) => {
    const data = b.data.slice();
    const v = new DataView(data.buffer);
    if (b.name === 'task-0-dep_graph') v.setInt16(2 * 36 + 8 + 1 * 4, 42, true); // slot 2 consumers.CONV.index
    if (b.name === 'task-0-op_list') v.setUint8(0 * 116 + 72, 7); // slot 0 conv in_precision
    if (b.name === 'task-0-surf_list') v.setInt16(3 * 644 + 96 + 2, 31, true); // slot 3 src_data.address
    return { ...b, data };
  });
  const memory_list = l.memory_list.map((m, i) => (i === 1 ? { ...m, contents: m.contents.map((c) => (c === 'tb-9' ? 'tb-99' : c)) } : m));
  const address_list = l.address_list.map((a, i) => (i === 16 ? { ...a, mem_id: 40 } : a));
  return write({ ...l, blobs, memory_list, address_list });
}
