/**
 * A loadable as FlatBuffers bytes (`Loadable::serialize` of nvdla/sw), through the flatc-made
 * builders of `src/core/loadable/generated`. Tables, fields and vectors are added in upstream's
 * order (nvdla.md section 2.3) and the buffer is finished with the `NVDA` identifier, so the
 * bytes can match nvdla_compiler's.
 */
import { Builder16 } from './flatbuffers-builder';
import type { Builder } from 'flatbuffers';
import { AddressListEntry } from '../../loadable/generated/nvdla/loadable/address-list-entry';
import { Blob } from '../../loadable/generated/nvdla/loadable/blob';
import { EventListEntry } from '../../loadable/generated/nvdla/loadable/event-list-entry';
import { Loadable } from '../../loadable/generated/nvdla/loadable/loadable';
import { MemoryListEntry } from '../../loadable/generated/nvdla/loadable/memory-list-entry';
import { RelocListEntry } from '../../loadable/generated/nvdla/loadable/reloc-list-entry';
import { SubmitListEntry } from '../../loadable/generated/nvdla/loadable/submit-list-entry';
import { TaskListEntry } from '../../loadable/generated/nvdla/loadable/task-list-entry';
import { TensorDescListEntry } from '../../loadable/generated/nvdla/loadable/tensor-desc-list-entry';
import { Version } from '../../loadable/generated/nvdla/loadable/version';
import { WrittenBlob, type NvdlaLoadable } from './loadable';

/** C++ `CreateVector<uint16_t>`: an empty vector is still written */
function u16Vector(b: Builder, values: readonly number[]): number {
  b.startVector(2, values.length, 2);
  for (let i = values.length - 1; i >= 0; i--) b.addInt16(values[i]!);
  return b.endVector();
}

function u64Vector(b: Builder, values: readonly number[]): number {
  b.startVector(8, values.length, 8);
  for (let i = values.length - 1; i >= 0; i--) b.addInt64(BigInt(values[i]!));
  return b.endVector();
}

function offsetVector(b: Builder, offsets: readonly number[]): number {
  b.startVector(4, offsets.length, 4);
  for (let i = offsets.length - 1; i >= 0; i--) b.addOffset(offsets[i]!);
  return b.endVector();
}

export function serializeLoadable(l: NvdlaLoadable): Uint8Array {
  // start big enough for the blobs, so the builder does not grow (and copy) the buffer many times
  // (a multiple of 8: the builder aligns from the buffer's end, so blob bytes are then aligned for their element type)
  const estimate = l.blobs.reduce((n, x) => n + (x instanceof WrittenBlob ? x.size : x.data.length) + 64, 0) + 64 * (l.memory.length + l.addresses.length + l.relocs.length) + 65536;
  const b = new Builder16(Math.ceil(estimate / 8) * 8);
  const tasks = l.tasks.map((t) => {
    const addressList = u16Vector(b, t.addressList);
    const pre = u16Vector(b, t.preActions);
    const post = u16Vector(b, t.postActions);
    TaskListEntry.startTaskListEntry(b);
    TaskListEntry.addAddressList(b, addressList);
    TaskListEntry.addPreActions(b, pre);
    TaskListEntry.addPostActions(b, post);
    TaskListEntry.addId(b, t.id);
    TaskListEntry.addInterface(b, t.interface);
    TaskListEntry.addInstance(b, t.instance);
    return TaskListEntry.endTaskListEntry(b);
  });
  const submits = l.submits.map((s) => {
    const ids = u16Vector(b, s.taskIds);
    SubmitListEntry.startSubmitListEntry(b);
    SubmitListEntry.addId(b, s.id);
    SubmitListEntry.addTaskId(b, ids);
    return SubmitListEntry.endSubmitListEntry(b);
  });
  const memory = l.memory.map((m) => {
    const strings = m.contents.map((c) => b.createString(c));
    const contents = offsetVector(b, strings);
    const offsets = u64Vector(b, m.offsets);
    MemoryListEntry.startMemoryListEntry(b);
    MemoryListEntry.addContents(b, contents);
    MemoryListEntry.addOffsets(b, offsets);
    MemoryListEntry.addSize(b, BigInt(m.size));
    MemoryListEntry.addAlignment(b, m.alignment);
    MemoryListEntry.addBindId(b, m.bindId);
    MemoryListEntry.addTensorDescId(b, m.tensorDescId);
    MemoryListEntry.addFlags(b, m.flags);
    MemoryListEntry.addId(b, m.id);
    MemoryListEntry.addDomain(b, m.domain);
    return MemoryListEntry.endMemoryListEntry(b);
  });
  const addresses = l.addresses.map((a) => {
    AddressListEntry.startAddressListEntry(b);
    AddressListEntry.addSize(b, BigInt(a.size));
    AddressListEntry.addOffset(b, BigInt(a.offset));
    AddressListEntry.addMemId(b, a.memId);
    AddressListEntry.addId(b, a.id);
    return AddressListEntry.endAddressListEntry(b);
  });
  const events = l.events.map((e) => {
    EventListEntry.startEventListEntry(b);
    EventListEntry.addId(b, e.id);
    EventListEntry.addOp(b, e.op);
    EventListEntry.addTarget(b, e.target);
    EventListEntry.addVal(b, e.val);
    return EventListEntry.endEventListEntry(b);
  });
  // upstream keeps blobs in a std::map<std::string, Symbol>: written sorted by name
  const blobs = [...l.blobs]
    .sort((x, y) => (x.name < y.name ? -1 : x.name > y.name ? 1 : 0))
    .map((s) => {
      const data = s instanceof WrittenBlob ? b.createByteVectorWith(s.size, (into) => s.writeInto(into)) : b.createByteVector(s.data);
      const name = b.createString(s.name);
      Blob.startBlob(b);
      Blob.addData(b, data);
      Blob.addSize(b, BigInt(s.size));
      Blob.addVersion(b, Version.createVersion(b, s.version.major, s.version.minor, s.version.subMinor));
      Blob.addInterface(b, s.interface);
      Blob.addSubInterface(b, s.subInterface);
      Blob.addName(b, name);
      return Blob.endBlob(b);
    });
  const tensorDescs = l.tensorDescs.map((t) => {
    const name = b.createString(t.name);
    TensorDescListEntry.startTensorDescListEntry(b);
    TensorDescListEntry.addName(b, name);
    TensorDescListEntry.addId(b, t.id);
    TensorDescListEntry.addMemId(b, t.memId);
    TensorDescListEntry.addSize(b, BigInt(t.size));
    TensorDescListEntry.addOffset(b, BigInt(t.offset));
    TensorDescListEntry.addDataFormat(b, t.dataFormat);
    TensorDescListEntry.addDataType(b, t.dataType);
    TensorDescListEntry.addDataCategory(b, t.dataCategory);
    TensorDescListEntry.addPixelFormat(b, t.pixelFormat);
    TensorDescListEntry.addPixelMapping(b, t.pixelMapping);
    TensorDescListEntry.addN(b, t.n);
    TensorDescListEntry.addC(b, t.c);
    TensorDescListEntry.addH(b, t.h);
    TensorDescListEntry.addW(b, t.w);
    TensorDescListEntry.addStride0(b, t.strides[0]!);
    TensorDescListEntry.addStride1(b, t.strides[1]!);
    TensorDescListEntry.addStride2(b, t.strides[2]!);
    TensorDescListEntry.addStride3(b, t.strides[3]!);
    TensorDescListEntry.addStride4(b, t.strides[4]!);
    TensorDescListEntry.addStride5(b, t.strides[5]!);
    TensorDescListEntry.addStride6(b, t.strides[6]!);
    TensorDescListEntry.addStride7(b, t.strides[7]!);
    return TensorDescListEntry.endTensorDescListEntry(b);
  });
  const relocs = l.relocs.map((r) => {
    RelocListEntry.startRelocListEntry(b);
    RelocListEntry.addAddressId(b, r.addressId);
    RelocListEntry.addWriteId(b, r.writeId);
    RelocListEntry.addOffset(b, BigInt(r.offset));
    RelocListEntry.addInterface(b, r.interface);
    RelocListEntry.addSubInterface(b, r.subInterface);
    RelocListEntry.addRelocType(b, r.relocType);
    return RelocListEntry.endRelocListEntry(b);
  });
  // CreateLoadableDirect: g++ evaluates the vector arguments right to left
  const submitVec = offsetVector(b, submits);
  const relocVec = offsetVector(b, relocs);
  const tensorVec = offsetVector(b, tensorDescs);
  const blobVec = offsetVector(b, blobs);
  const eventVec = offsetVector(b, events);
  const addressVec = offsetVector(b, addresses);
  const memoryVec = offsetVector(b, memory);
  const taskVec = offsetVector(b, tasks);
  Loadable.startLoadable(b);
  Loadable.addSubmitList(b, submitVec);
  Loadable.addRelocList(b, relocVec);
  Loadable.addTensorDescList(b, tensorVec);
  Loadable.addBlobs(b, blobVec);
  Loadable.addEventList(b, eventVec);
  Loadable.addAddressList(b, addressVec);
  Loadable.addMemoryList(b, memoryVec);
  Loadable.addTaskList(b, taskVec);
  Loadable.addVersion(b, Version.createVersion(b, l.version.major, l.version.minor, l.version.subMinor));
  const root = Loadable.endLoadable(b);
  b.finish(root, 'NVDA');
  // the builder fills its buffer from the end: the loadable is its tail. Hand that out as a view
  // (no copy of a loadable that can be 100 MB) unless the unused head is a large part of it.
  const bytes = b.asUint8Array();
  return bytes.byteOffset > bytes.length / 8 ? bytes.slice() : bytes;
}
