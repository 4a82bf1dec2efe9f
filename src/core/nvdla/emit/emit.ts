/**
 * `Compiler::emit`: the final engine graph as a loadable (nvdla.md section 3).
 *
 * Memory entry 0 is a 4 KiB dead page; then the pools, buffers and tensor descriptors of
 * prepareMemoryList; then, per task, its context: a DLA task gets its network descriptor
 * (`task-N-addr0`), dependency graph, op list, surface list and LUT list blobs plus a dummy page;
 * an EMU task its network descriptor, op list and buffer list plus three dummies. Each task's
 * address list is `[its addr0, 1 .. Ni, its other context entries]`. One event chain keeps the
 * tasks in order: task i > 0 waits, every task signals.
 */
import { EngineGraphEditor } from '../engine/graph';
import type { PassContext } from '../engine/graph-state';
import { ENGINE_TYPES, type EngineGraph } from '../engine/model';
import {
  SIZES,
  StructWriter,
  writeCdpOpDesc,
  writeCommonOpDesc,
  writeLutParam,
  writeConvOpDesc,
  writeConvSurfaceDesc,
  writeNetworkDesc,
  writePdpOpDesc,
  writeSdpOpDesc,
  writeSdpSurfaceDesc,
  writeSrcDstSurfaceDesc,
  type CommonOpDesc,
  type DlaOpDesc,
  type NetworkDesc,
} from './dla-structs';
import { EMU_SIZES, writeEmuBufferDesc, writeEmuNetworkDesc, writeEmuOpDesc, type EmuBufferDesc, type EmuNetworkDesc, type EmuOpDesc } from './emu-structs';
import { EVENT_OP, INTERFACE, LOADABLE_VERSION, MEMORY_DOMAIN, MEMORY_FLAGS, SUB_INTERFACE, type AddressListEntry, type Blob, type MemoryListEntry, type NvdlaLoadable, type RelocListEntry, type TaskListEntry } from './loadable';
import { lutParam } from './luts';
import { EmitError, prepareMemoryList } from './memory-list';
import { emitDlaOp, emitEmuOp, type EmitContext } from './ops';

/** the firmware interface versions the blobs are written for */
export const DLA_FIRMWARE_VERSION = { major: 0, minor: 12, subMinor: 3 } as const;
export const EMU_VERSION = { major: 0, minor: 0, subMinor: 1 } as const;

/** what emit made of each task, field by field (the op view and tests read this; the bytes are in the blobs) */
export type EmittedTask =
  | { id: number; interface: 'DLA1'; networkDesc: NetworkDesc; ops: { slot: number; node: string; batch: number; common: CommonOpDesc; desc: DlaOpDesc }[] }
  | { id: number; interface: 'EMU1'; networkDesc: EmuNetworkDesc; ops: { slot: number; node: string; batch: number; op: EmuOpDesc; src: EmuBufferDesc; dst: EmuBufferDesc }[] };

export interface EmitResult {
  loadable: NvdlaLoadable;
  tasks: EmittedTask[];
}

const TASK_CONTEXT_ADDRS = 6;
const OP_HEAD_TYPES = ['BDMA', 'CONVOLUTION', 'SDP', 'PDP', 'CDP', 'RUBIK'] as const;

export function emitLoadable(g: EngineGraph, ctx: PassContext): EmitResult {
  const ed = new EngineGraphEditor(g);
  const layout = prepareMemoryList(g, ctx.target);
  const batches = g.batchSize;
  const deadPage: MemoryListEntry = { id: 0, domain: MEMORY_DOMAIN.SYSTEM, flags: MEMORY_FLAGS.ALLOC, size: 4096, alignment: 4096, contents: [], offsets: [], bindId: 0, tensorDescId: 0 };
  const memory: MemoryListEntry[] = [deadPage, ...layout.memory];
  const instrAddrs = layout.addresses.length;
  const zeroAddr = (id: number): AddressListEntry => ({ id, memId: 0, offset: 0, size: 4096 });
  const addresses: AddressListEntry[] = [{ id: 0, memId: 0, offset: 0, size: 4096 }, ...layout.addresses];
  // context entries of every task, pointing at the dead page until the task fills them (upstream fills with copies of entry 0)
  for (let i = 0; i < g.tasks.length * TASK_CONTEXT_ADDRS; i++) addresses.push({ ...zeroAddr(0) });
  const blobs: Blob[] = [...layout.blobs];
  const tasks: TaskListEntry[] = [];
  const events: NvdlaLoadable['events'] = [];
  const relocs: RelocListEntry[] = [];
  const emitted: EmittedTask[] = [];
  const event = { id: 0, val: 0, target: 0 };
  const Ni = instrAddrs;

  g.tasks.forEach((task, ti) => {
    const ctxBegin = Ni + 1 + ti * TASK_CONTEXT_ADDRS;
    let preaction = 0;
    if (ti !== 0) {
      preaction = event.id;
      events.push({ id: event.id, type: 0, target: event.target, val: event.val, op: EVENT_OP.WAIT });
      event.id++;
    }
    const postaction = event.id;
    event.val++;
    events.push({ id: event.id, type: 0, target: event.target, val: event.val, op: EVENT_OP.SIGNAL });
    event.id++;
    const name = (what: string) => `task-${task.id}-${what}`;
    const pending: EmitContext['relocs'] = [];
    const ec: EmitContext = { g, ed, ctx, addresses: layout.surfaceAddress, relocs: pending };
    const addrList = [ctxBegin, ...Array.from({ length: Ni }, (_, i) => i + 1), ...Array.from({ length: TASK_CONTEXT_ADDRS - 1 }, (_, i) => ctxBegin + 1 + i)];
    const entry: TaskListEntry = { id: task.id, interface: 0, instance: -1, addressList: addrList, preActions: ti !== 0 ? [preaction] : [], postActions: [postaction] };
    const addContext = (symbols: { name: string; size: number; sub: number; data: Uint8Array; version: Blob['version']; iface: number }[], dummies: number) => {
      const first = memory.length;
      symbols.forEach((s, i) => {
        blobs.push({ name: s.name, size: s.size, interface: s.iface, subInterface: s.sub, version: s.version, data: s.data });
        memory.push({ id: first + i, domain: MEMORY_DOMAIN.SYSTEM, flags: MEMORY_FLAGS.ALLOC | MEMORY_FLAGS.SET, size: s.size, alignment: 4096, contents: [s.name], offsets: [0], bindId: 0, tensorDescId: 0 });
      });
      for (let d = 0; d < dummies; d++) memory.push({ id: memory.length, domain: MEMORY_DOMAIN.SYSTEM, flags: MEMORY_FLAGS.ALLOC, size: 4096, alignment: 4096, contents: [], offsets: [], bindId: 0, tensorDescId: 0 });
      for (let i = 0; i < TASK_CONTEXT_ADDRS; i++) {
        const m = memory[first + i]!;
        addresses[ctxBegin + i] = { id: ctxBegin + i, memId: m.id, offset: 0, size: m.size };
      }
      return first;
    };
    const nodes = task.nodes.map((id) => ed.node(id));
    for (const n of nodes) for (let b = 0; b < batches; b++) if (n.dependency[b]!.slot !== nodes.indexOf(n) * batches + b) throw new EmitError(`Inconsistencies between slot_id and annotation id ${nodes.indexOf(n) * batches + b} != ${n.dependency[b]!.slot}`);

    if (task.kind === 'DLA') {
      const slots = nodes.length * batches;
      const deps = new Uint8Array(SIZES.commonOpDesc * slots);
      const ops = new Uint8Array(SIZES.operationContainer * slots);
      const surfs = new Uint8Array(SIZES.surfaceContainer * slots);
      // one slot per registered table; one zeroed slot when there is none (upstream reserves it)
      const luts = new Uint8Array(SIZES.lutParam * Math.max(1, g.luts.length));
      const lw = new StructWriter(luts);
      g.luts.forEach((l, i) => writeLutParam(lw, i * SIZES.lutParam, lutParam(l)));
      const dw = new StructWriter(deps);
      const ow = new StructWriter(ops);
      const sw = new StructWriter(surfs);
      const out: Extract<EmittedTask, { interface: 'DLA1' }>['ops'] = [];
      nodes.forEach((node, op) => {
        for (let b = 0; b < batches; b++) {
          const slot = op * batches + b;
          const { common, desc } = emitDlaOp(ec, node, b, slot * SIZES.surfaceContainer);
          writeCommonOpDesc(dw, slot * SIZES.commonOpDesc, common);
          const oAt = slot * SIZES.operationContainer;
          const sAt = slot * SIZES.surfaceContainer;
          if (desc.kind === 'CONV') {
            writeConvOpDesc(ow, oAt, desc.op);
            writeConvSurfaceDesc(sw, sAt, desc.surface);
          } else if (desc.kind === 'SDP') {
            writeSdpOpDesc(ow, oAt, desc.op);
            writeSdpSurfaceDesc(sw, sAt, desc.surface);
          } else if (desc.kind === 'PDP') {
            writePdpOpDesc(ow, oAt, desc.op);
            writeSrcDstSurfaceDesc(sw, sAt, desc.surface);
          } else {
            writeCdpOpDesc(ow, oAt, desc.op);
            writeSrcDstSurfaceDesc(sw, sAt, desc.surface);
          }
          out.push({ slot, node: node.id, batch: b, common, desc });
        }
      });
      const head = (t: (typeof OP_HEAD_TYPES)[number]) => {
        const id = task.opHeads[ENGINE_TYPES.indexOf(t)];
        return id ? ed.node(id).dependency[0]!.slot : -1;
      };
      const nd: NetworkDesc = {
        operation_desc_index: Ni + 2,
        surface_desc_index: Ni + 3,
        dependency_graph_index: Ni + 1,
        lut_data_index: Ni + 4,
        roi_array_index: -1,
        surface_index: -1,
        stat_list_index: -1,
        op_head: OP_HEAD_TYPES.map(head),
        num_rois: 1,
        num_operations: slots,
        num_luts: g.luts.length,
        num_addresses: addrList.length,
        input_layer: 0,
        dynamic_roi: 0,
      };
      const addr0 = new Uint8Array(SIZES.networkDesc);
      writeNetworkDesc(new StructWriter(addr0), 0, nd);
      const v = DLA_FIRMWARE_VERSION;
      const first = addContext(
        [
          { name: name('addr0'), size: addr0.length, sub: SUB_INTERFACE.ADDR0, data: addr0, version: v, iface: INTERFACE.DLA1 },
          { name: name('dep_graph'), size: deps.length, sub: SUB_INTERFACE.DEPS, data: deps, version: v, iface: INTERFACE.DLA1 },
          { name: name('op_list'), size: ops.length, sub: SUB_INTERFACE.OPS, data: ops, version: v, iface: INTERFACE.DLA1 },
          { name: name('surf_list'), size: surfs.length, sub: SUB_INTERFACE.SURFS, data: surfs, version: v, iface: INTERFACE.DLA1 },
          { name: name('lut_list'), size: luts.length, sub: SUB_INTERFACE.LUTS, data: luts, version: v, iface: INTERFACE.DLA1 },
        ],
        1,
      );
      entry.interface = INTERFACE.DLA1;
      const surfMem = first + 3;
      for (const r of pending) relocs.push({ addressId: r.addressId, writeId: surfMem, offset: r.offset, interface: r.interface, subInterface: SUB_INTERFACE.SURFS, relocType: r.relocType });
      emitted.push({ id: task.id, interface: 'DLA1', networkDesc: nd, ops: out });
    } else {
      if (nodes.length !== 1) throw new EmitError(`EMU task ${task.id} has ${nodes.length} operations; the EMU interface carries one`);
      const opsBytes = new Uint8Array(EMU_SIZES.operationContainer * batches);
      const bufs = new Uint8Array(EMU_SIZES.operationBufferContainer * batches);
      const ow = new StructWriter(opsBytes);
      const bw = new StructWriter(bufs);
      const out: Extract<EmittedTask, { interface: 'EMU1' }>['ops'] = [];
      for (let b = 0; b < batches; b++) {
        const e = emitEmuOp(ec, nodes[0]!, b, b * EMU_SIZES.operationBufferContainer);
        writeEmuOpDesc(ow, b * EMU_SIZES.operationContainer, e.op);
        writeEmuBufferDesc(bw, b * EMU_SIZES.operationBufferContainer, e.src);
        writeEmuBufferDesc(bw, b * EMU_SIZES.operationBufferContainer + 256, e.dst);
        out.push({ slot: b, node: nodes[0]!.id, batch: b, ...e });
      }
      const nd: EmuNetworkDesc = { operation_desc_index: Ni + 1, operation_buffer_desc_index: Ni + 2, num_operations: batches };
      const addr0 = new Uint8Array(EMU_SIZES.networkDesc);
      writeEmuNetworkDesc(new StructWriter(addr0), 0, nd);
      const v = EMU_VERSION;
      const first = addContext(
        [
          { name: name('addr0'), size: addr0.length, sub: SUB_INTERFACE.ADDR0, data: addr0, version: v, iface: INTERFACE.EMU1 },
          { name: name('op_list'), size: opsBytes.length, sub: SUB_INTERFACE.OPS, data: opsBytes, version: v, iface: INTERFACE.EMU1 },
          { name: name('op_buf_list'), size: bufs.length, sub: SUB_INTERFACE.SURFS, data: bufs, version: v, iface: INTERFACE.EMU1 },
        ],
        3,
      );
      entry.interface = INTERFACE.EMU1;
      const bufMem = first + 2;
      for (const r of pending) relocs.push({ addressId: r.addressId, writeId: bufMem, offset: r.offset, interface: r.interface, subInterface: SUB_INTERFACE.SURFS, relocType: r.relocType });
      emitted.push({ id: task.id, interface: 'EMU1', networkDesc: nd, ops: out });
    }
    tasks.push(entry);
  });

  const loadable: NvdlaLoadable = {
    version: { ...LOADABLE_VERSION },
    tasks,
    memory,
    addresses,
    events,
    blobs,
    tensorDescs: layout.tensorDescs,
    relocs,
    submits: tasks.map((t) => ({ id: t.id, taskIds: [t.id] })),
  };
  return { loadable, tasks: emitted };
}
