/**
 * Loadable writer: `Loadable` -> bytes with the flatc-generated builders (generated/).
 *
 * Lists are built in the order of notes/nvdla.md section 2.3 (tasks, submits, memory, addresses,
 * events, blobs, tensor descs, relocs, root), with `NVDA` as identifier when the loadable had one.
 * The result is semantically equivalent (section 13) to its input, not byte-identical: upstream
 * FlatBuffers 1.6 field order inside tables is not reproduced. Defaults are omitted, as upstream.
 */
import { Builder } from 'flatbuffers';
import { AddressListEntry as FbAddress } from './generated/nvdla/loadable/address-list-entry';
import { Blob as FbBlob } from './generated/nvdla/loadable/blob';
import { EventListEntry as FbEvent } from './generated/nvdla/loadable/event-list-entry';
import { Loadable as FbLoadable } from './generated/nvdla/loadable/loadable';
import { MemoryListEntry as FbMemory } from './generated/nvdla/loadable/memory-list-entry';
import { RelocListEntry as FbReloc } from './generated/nvdla/loadable/reloc-list-entry';
import { SubmitListEntry as FbSubmit } from './generated/nvdla/loadable/submit-list-entry';
import { TaskListEntry as FbTask } from './generated/nvdla/loadable/task-list-entry';
import { TensorDescListEntry as FbTensorDesc } from './generated/nvdla/loadable/tensor-desc-list-entry';
import { Version as FbVersion } from './generated/nvdla/loadable/version';
import type { Loadable } from './model';
import { LOADABLE_IDENTIFIER } from './read';

export function write(l: Loadable): Uint8Array {
  const blobBytes = l.blobs.reduce((n, b) => n + b.data.length, 0);
  const b = new Builder(Math.min(blobBytes + 64 * 1024, 0x7fffffff));
  const big = (n: number) => BigInt(n);

  const tasks = l.task_list.map((t) => {
    const addr = FbTask.createAddressListVector(b, t.address_list);
    const pre = FbTask.createPreActionsVector(b, t.pre_actions);
    const post = FbTask.createPostActionsVector(b, t.post_actions);
    FbTask.startTaskListEntry(b);
    FbTask.addAddressList(b, addr);
    FbTask.addPreActions(b, pre);
    FbTask.addPostActions(b, post);
    FbTask.addId(b, t.id);
    FbTask.addInterface(b, t.interface);
    FbTask.addInstance(b, t.instance);
    return FbTask.endTaskListEntry(b);
  });

  const submits = l.submit_list.map((s) => FbSubmit.createSubmitListEntry(b, s.id, FbSubmit.createTaskIdVector(b, s.task_id)));

  const memory = l.memory_list.map((m) => {
    const contents = FbMemory.createContentsVector(b, m.contents.map((c) => b.createString(c)));
    const offsets = FbMemory.createOffsetsVector(b, m.offsets.map(big));
    FbMemory.startMemoryListEntry(b);
    FbMemory.addContents(b, contents);
    FbMemory.addOffsets(b, offsets);
    FbMemory.addSize(b, big(m.size));
    FbMemory.addAlignment(b, m.alignment);
    FbMemory.addBindId(b, m.bind_id);
    FbMemory.addTensorDescId(b, m.tensor_desc_id);
    FbMemory.addFlags(b, m.flags);
    FbMemory.addId(b, m.id);
    FbMemory.addDomain(b, m.domain);
    return FbMemory.endMemoryListEntry(b);
  });

  const addresses = l.address_list.map((a) => FbAddress.createAddressListEntry(b, a.id, a.mem_id, big(a.offset), big(a.size)));

  const events = l.event_list.map((e) => {
    FbEvent.startEventListEntry(b);
    FbEvent.addId(b, e.id);
    FbEvent.addType(b, e.type);
    FbEvent.addOp(b, e.op);
    FbEvent.addTarget(b, e.target);
    FbEvent.addVal(b, e.val);
    return FbEvent.endEventListEntry(b);
  });

  const blobs = l.blobs.map((x) => {
    const data = b.createByteVector(x.data);
    const name = b.createString(x.name);
    FbBlob.startBlob(b);
    FbBlob.addData(b, data);
    FbBlob.addSize(b, big(x.size));
    FbBlob.addVersion(b, FbVersion.createVersion(b, x.version.major, x.version.minor, x.version.sub_minor));
    FbBlob.addInterface(b, x.interface);
    FbBlob.addSubInterface(b, x.sub_interface);
    FbBlob.addName(b, name);
    return FbBlob.endBlob(b);
  });

  const tensorDescs = l.tensor_desc_list.map((t) =>
    FbTensorDesc.createTensorDescListEntry(
      b, b.createString(t.name), t.id, t.mem_id, big(t.size), big(t.offset), t.data_format, t.data_type, t.data_category, t.pixel_format, t.pixel_mapping,
      t.n, t.c, t.h, t.w, t.stride_0, t.stride_1, t.stride_2, t.stride_3, t.stride_4, t.stride_5, t.stride_6, t.stride_7,
    ),
  );

  const relocs = l.reloc_list.map((r) => FbReloc.createRelocListEntry(b, r.address_id, r.write_id, big(r.offset), r.interface, r.sub_interface, r.reloc_type));

  const taskVec = FbLoadable.createTaskListVector(b, tasks);
  const memVec = FbLoadable.createMemoryListVector(b, memory);
  const addrVec = FbLoadable.createAddressListVector(b, addresses);
  const eventVec = FbLoadable.createEventListVector(b, events);
  const blobVec = FbLoadable.createBlobsVector(b, blobs);
  const tdVec = FbLoadable.createTensorDescListVector(b, tensorDescs);
  const relocVec = FbLoadable.createRelocListVector(b, relocs);
  const submitVec = FbLoadable.createSubmitListVector(b, submits);
  FbLoadable.startLoadable(b);
  FbLoadable.addVersion(b, FbVersion.createVersion(b, l.version.major, l.version.minor, l.version.sub_minor));
  FbLoadable.addTaskList(b, taskVec);
  FbLoadable.addMemoryList(b, memVec);
  FbLoadable.addAddressList(b, addrVec);
  FbLoadable.addEventList(b, eventVec);
  FbLoadable.addBlobs(b, blobVec);
  FbLoadable.addTensorDescList(b, tdVec);
  FbLoadable.addRelocList(b, relocVec);
  FbLoadable.addSubmitList(b, submitVec);
  const root = FbLoadable.endLoadable(b);
  b.finish(root, l.identifier === LOADABLE_IDENTIFIER ? LOADABLE_IDENTIFIER : undefined);
  return b.asUint8Array();
}
