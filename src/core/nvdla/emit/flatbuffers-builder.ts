/**
 * The FlatBuffers builder as nvdla_compiler's bundled FlatBuffers 1.6 C++ runtime lays tables out.
 * The npm runtime trims trailing absent fields from each vtable; 1.6 always writes a vtable entry
 * for every field of the schema (`EndTable(start, numfields)`), so vtables are longer and are
 * shared differently. This subclass only changes `endObject` to the 1.6 layout (written here
 * because no FlatBuffers library offers that old layout); everything else is the npm builder.
 */
import { Builder, type ByteBuffer } from 'flatbuffers';

/** the npm Builder's internal state this subclass reads (declared private in its typings) */
interface BuilderState {
  bb: ByteBuffer;
  space: number;
  vtable: number[] | null;
  vtable_in_use: number;
  isNested: boolean;
  object_start: number;
  vtables: number[];
}

export class Builder16 extends Builder {
  /**
   * `createByteVector` of `length` bytes that `write` puts straight into the buffer (a view of
   * `length` zeros), so large blobs are written once, where they stay, not made and then copied.
   */
  createByteVectorWith(length: number, write: (into: Uint8Array) => void): number {
    const s = this as unknown as BuilderState;
    this.startVector(1, length, 1);
    s.space -= length;
    s.bb.setPosition(s.space);
    write(s.bb.bytes().subarray(s.space, s.space + length));
    return this.endVector();
  }

  override endObject(): number {
    const s = this as unknown as BuilderState;
    if (s.vtable == null || !s.isNested) throw new Error('FlatBuffers: endObject called without startObject');
    this.addInt32(0);
    const vtableloc = this.offset();
    const fields = s.vtable_in_use;
    for (let i = fields - 1; i >= 0; i--) this.addInt16(s.vtable[i] !== 0 ? vtableloc - s.vtable[i]! : 0);
    this.addInt16(vtableloc - s.object_start);
    const len = (fields + 2) * 2;
    this.addInt16(len);
    // share an identical earlier vtable (1.6 compares whole vtables, first match wins)
    let existing = 0;
    const vt1 = s.space;
    outer: for (const at of s.vtables) {
      const vt2 = s.bb.capacity() - at;
      if (len !== s.bb.readInt16(vt2)) continue;
      for (let j = 2; j < len; j += 2) if (s.bb.readInt16(vt1 + j) !== s.bb.readInt16(vt2 + j)) continue outer;
      existing = at;
      break;
    }
    if (existing) {
      s.space = s.bb.capacity() - vtableloc;
      s.bb.writeInt32(s.space, existing - vtableloc);
    } else {
      s.vtables.push(this.offset());
      s.bb.writeInt32(s.bb.capacity() - vtableloc, this.offset() - vtableloc);
    }
    s.isNested = false;
    return vtableloc;
  }
}
