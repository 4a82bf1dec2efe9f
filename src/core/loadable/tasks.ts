/**
 * Decodes each task of a loadable the way the firmware and the runtime read it
 * (notes/nvdla.md 2.4, `kmd/firmware/scheduler.c`, `Runtime.cpp`):
 *
 * - a task address-list index -> global address entry -> memory entry -> the blob placed there
 *   by the memory entry's `contents`/`offsets` (so compiler output, named `task-N-*`, and KMD
 *   regression files, named `m<k>_<Kind>_i<k>`, are read the same way);
 * - DLA: entry 0 is the `dla_network_desc`; its indexes locate the dependency graph, op, surface
 *   and LUT lists, read by slot (strides 36 / 116 / 644 / 700) up to `num_operations`;
 * - EMU: entry 0 is the `emu_network_desc`; ops and buffer descriptors follow;
 * - the data cube layout is chosen from the version of the blob holding the network descriptor
 *   (0.12 -> 32 bytes, 0.10 / 0.11 -> 28), the EMU op layout from the op list's bytes per op.
 *
 * Nothing here throws on a damaged file: what cannot be read is listed in `damage` and the rest
 * is decoded.
 */
import type { FillBytes } from './checked';
import type { BlobEntry, Damage, Loadable, TaskListEntry } from './model';
import { DLA_ENGINES, DLA_EVENT, EMU_OP_TYPE, INTERFACE, enumName } from './names';
import { MAX_DAMAGE } from './read';
import {
  DLA_COMMON_OP_DESC,
  DLA_COMMON_STRIDE,
  DLA_LAYOUTS_0_10,
  DLA_LAYOUTS_0_12,
  DLA_LUT_PARAM,
  DLA_LUT_STRIDE,
  DLA_NETWORK_DESC,
  DLA_OPERATION_CONTAINER,
  DLA_SURFACE_CONTAINER,
  EMU_LAYOUTS_0_0_1,
  EMU_LAYOUTS_LEGACY,
  EMU_NETWORK_DESC,
  decodeStruct,
  member,
  valueOf,
  type DecodedField,
  type DecodedStruct,
  type DlaLayouts,
  type EmuLayouts,
} from './structs';

/** Where a task address-list entry leads. */
export interface Location {
  /** index into the task's address list */
  taskAddress: number;
  /** index into the global address list */
  address: number;
  memId: number;
  /** byte offset inside the memory entry (address offset + any extra offset) */
  memOffset: number;
  /** the blob placed at that memory offset, if any, and the offset inside it */
  blob: string | null;
  blobOffset: number;
}

export type CubeRole = 'read' | 'write';

/** A data cube (or EMU buffer, or BDMA transfer end) with the memory it resolves to. */
export interface SurfaceUse {
  /** e.g. `src_data`, `weight_data`, `transfers.0.source` */
  name: string;
  role: CubeRole;
  /** task address-list index written in the descriptor (-1: on the fly) */
  addressIndex: number;
  /** offset written in the descriptor (0.12 cube `offset`, EMU `addressIndexOffset`) */
  offset: number;
  size: number;
  /** memory type name for DLA cubes (MC, CV, HW) */
  memType?: string;
  /** null when on the fly or unresolvable (then `note` says which) */
  location: Location | null;
  note?: string;
}

export interface Consumer {
  engine: string;
  slot: number;
  event: number;
  eventName: string;
}

export interface OpSlot {
  /** position of the task in the task list */
  task: number;
  slot: number;
  /** engine name (CONV, SDP, ...) or `op_type N` when unknown */
  engine: string;
  opType: number;
  dependencyCount: number;
  consumers: Consumer[];
  fusedParent: { slot: number; event: number; eventName: string } | null;
  common: DecodedStruct;
  op: DecodedStruct | null;
  surface: DecodedStruct | null;
  surfaces: SurfaceUse[];
  /** LUT used by this slot (SDP / CDP `lut_index`), or null */
  lut: number | null;
}

export interface EmuOp {
  task: number;
  slot: number;
  engine: 'EMU';
  opType: number;
  /** POWER, SOFTMAX or `op_type N` */
  opName: string;
  op: DecodedStruct;
  buffers: DecodedStruct | null;
  surfaces: SurfaceUse[];
}

export interface ListLocation {
  role: string;
  location: Location;
  /** bytes available in the blob from the list's start */
  available: number;
}

interface TaskBase {
  /** position in the task list */
  index: number;
  id: number;
  interface: number;
  interfaceName: string;
  lists: ListLocation[];
}

export interface DlaTask extends TaskBase {
  kind: 'DLA';
  /** firmware version of the blob holding the network descriptor, e.g. `0.12.3` */
  firmware: string | null;
  cubeSize: 32 | 28;
  /** which layout was used and why */
  layoutNote: string;
  network: DecodedStruct | null;
  slots: OpSlot[];
  luts: DecodedStruct[];
}

export interface EmuTask extends TaskBase {
  kind: 'EMU';
  /** EMU layout used: `0.0.1` or `pre-0.0.1` */
  layout: string;
  layoutNote: string;
  network: DecodedStruct | null;
  ops: EmuOp[];
}

export interface OtherTask extends TaskBase {
  kind: 'other';
}

export type DecodedTask = DlaTask | EmuTask | OtherTask;

export interface DecodedLoadable {
  loadable: Loadable;
  tasks: DecodedTask[];
  /** firmware interface of the DLA tasks, `major.minor` (e.g. `0.12`), or null without DLA tasks */
  firmware: string | null;
  /** reader damage plus what the task decoding could not read */
  damage: Damage[];
}

const versionText = (b: BlobEntry) => `${b.version.major}.${b.version.minor}.${b.version.sub_minor}`;

class TaskReader {
  readonly blobByName = new Map<string, BlobEntry>();
  readonly damage: Damage[] = [];
  dropped = 0;

  constructor(readonly l: Loadable, readonly fill?: FillBytes) {
    for (const b of l.blobs) if (!this.blobByName.has(b.name)) this.blobByName.set(b.name, b);
  }

  mark(path: string, message: string, kind: Damage['kind'] = 'corrupt'): void {
    if (this.damage.length < MAX_DAMAGE) this.damage.push({ kind, path, message });
    else this.dropped++;
  }

  /**
   * Resolves a task address-list index (plus an offset) to memory and the blob there.
   * Returns a sentence instead when a link is missing.
   */
  locate(task: TaskListEntry, taskAddress: number, extra: number): Location | string {
    if (taskAddress < 0 || taskAddress >= task.address_list.length) {
      return `address index ${taskAddress} is past the task's address list (${task.address_list.length} entries)`;
    }
    const address = task.address_list[taskAddress]!;
    const a = this.l.address_list[address];
    if (!a) return `task address ${taskAddress} names address ${address}, past the address list (${this.l.address_list.length} entries)`;
    const m = this.l.memory_list[a.mem_id];
    if (!m) return `address ${address} names memory ${a.mem_id}, past the memory list (${this.l.memory_list.length} entries)`;
    const memOffset = a.offset + extra;
    let blob: string | null = null;
    let blobOffset = 0;
    for (let k = 0; k < m.contents.length; k++) {
      const name = m.contents[k]!;
      const at = m.offsets[k];
      const b = this.blobByName.get(name);
      if (!b || at === undefined) continue;
      if (memOffset >= at && memOffset < at + b.data.length) {
        blob = name;
        blobOffset = memOffset - at;
        break;
      }
    }
    return { taskAddress, address, memId: a.mem_id, memOffset, blob, blobOffset };
  }

  /** The bytes of a task list (network desc, op list, ...) at a task address index. */
  list(task: TaskListEntry, taskAddress: number, role: string, path: string): { loc: ListLocation; bytes: Uint8Array } | null {
    const loc = this.locate(task, taskAddress, 0);
    if (typeof loc === 'string') {
      this.mark(path, `the ${role} cannot be located: ${loc}`);
      return null;
    }
    if (loc.blob === null) {
      this.mark(path, `the ${role} is at memory ${loc.memId} offset ${loc.memOffset}, where no blob is placed`);
      return null;
    }
    const b = this.blobByName.get(loc.blob)!;
    // the list is read from its start to the end of the blob at most
    this.fill?.(b.data.byteOffset + loc.blobOffset, b.data.byteOffset + b.data.length);
    return { loc: { role, location: loc, available: b.data.length - loc.blobOffset }, bytes: b.data };
  }

  /** Unknown enum values of a decoded struct become damage (`skip` can exempt inert fields). */
  enums(s: DecodedStruct, path: string, skip?: (leafPath: string) => boolean): void {
    const walk = (fields: DecodedField[], prefix: string): void => {
      for (const x of fields) {
        if (x.fields) walk(x.fields, prefix ? `${prefix}.${x.name}` : x.name);
        else if (x.enumName === null) {
          const p = prefix ? `${prefix}.${x.name}` : x.name;
          if (!(skip && skip(p))) this.mark(`${path}.${p}`, `${x.value} is not a known value of ${p}`, 'unsupported');
        }
      }
    };
    walk(s.fields, '');
  }

  struct(s: DecodedStruct, path: string): DecodedStruct {
    if (s.damage) this.mark(path, s.damage, 'truncated');
    return s;
  }
}

/** Surface cube names and roles by DLA op type. */
const CUBE_ROLES: Record<number, [string, CubeRole][]> = {
  1: [['weight_data', 'read'], ['wmb_data', 'read'], ['wgs_data', 'read'], ['src_data', 'read'], ['dst_data', 'write']],
  2: [['src_data', 'read'], ['x1_data', 'read'], ['x2_data', 'read'], ['y_data', 'read'], ['dst_data', 'write']],
  3: [['src_data', 'read'], ['dst_data', 'write']],
  4: [['src_data', 'read'], ['dst_data', 'write']],
  5: [['src_data', 'read'], ['dst_data', 'write']],
};

function resolveUse(r: TaskReader, task: TaskListEntry, use: Omit<SurfaceUse, 'location'>, path: string): SurfaceUse {
  if (use.addressIndex === -1 || use.memType === 'HW') return { ...use, location: null, note: 'on the fly (no memory)' };
  const loc = r.locate(task, use.addressIndex, use.offset);
  if (typeof loc === 'string') {
    r.mark(`${path}.${use.name}.address`, loc);
    return { ...use, location: null, note: loc };
  }
  return { ...use, location: loc };
}

function cubeUses(r: TaskReader, task: TaskListEntry, opType: number, surface: DecodedStruct, path: string): SurfaceUse[] {
  const out: SurfaceUse[] = [];
  if (opType === 0) {
    const n = Math.min(valueOf(surface, 'num_transfers') ?? 0, 20);
    const st = member(surface, 'source_type')?.enumName ?? undefined;
    const dt = member(surface, 'destination_type')?.enumName ?? undefined;
    for (let i = 0; i < n; i++) {
      const t = member(surface, `transfers.${i}`);
      if (!t) break;
      const v = (k: string) => valueOf(t, k) ?? 0;
      const extent = (line: number, surf: number) => (v('surface_repeat') > 0 ? (v('surface_repeat') - 1) * surf : 0) + (v('line_repeat') > 0 ? (v('line_repeat') - 1) * line : 0) + v('line_size');
      out.push(resolveUse(r, task, { name: `transfers.${i}.source`, role: 'read', addressIndex: v('source_address'), offset: 0, size: extent(v('source_line'), v('source_surface')), memType: st }, path));
      out.push(resolveUse(r, task, { name: `transfers.${i}.destination`, role: 'write', addressIndex: v('destination_address'), offset: 0, size: extent(v('destination_line'), v('destination_surface')), memType: dt }, path));
    }
    return out;
  }
  for (const [name, role] of CUBE_ROLES[opType] ?? []) {
    const c = member(surface, name);
    if (!c || c.fields?.some((x) => x.missing)) continue;
    const size = valueOf(c, 'size') ?? 0;
    if (size === 0) continue; // an unused cube (the compiler writes zeros)
    out.push(
      resolveUse(r, task, {
        name,
        role,
        addressIndex: valueOf(c, 'address') ?? -1,
        offset: valueOf(c, 'offset') ?? 0,
        size,
        memType: member(c, 'type')?.enumName ?? String(valueOf(c, 'type')),
      }, path),
    );
  }
  return out;
}

function dlaLayoutFor(blob: BlobEntry | undefined): { layouts: DlaLayouts; firmware: string | null; note: string; known: boolean } {
  if (!blob) return { layouts: DLA_LAYOUTS_0_12, firmware: null, note: 'no network descriptor blob: read with the 0.12 layout (32-byte data cubes)', known: false };
  const v = blob.version;
  const fw = versionText(blob);
  if (v.major === 0 && (v.minor === 10 || v.minor === 11)) {
    return { layouts: DLA_LAYOUTS_0_10, firmware: fw, note: `firmware ${fw} (blob "${blob.name}"): 28-byte data cubes without offset`, known: true };
  }
  if (v.major === 0 && v.minor === 12) return { layouts: DLA_LAYOUTS_0_12, firmware: fw, note: `firmware ${fw} (blob "${blob.name}"): 32-byte data cubes`, known: true };
  return { layouts: DLA_LAYOUTS_0_12, firmware: fw, note: `firmware ${fw} (blob "${blob.name}") is not a version NPU Studio knows: read with the 0.12 layout (32-byte data cubes)`, known: false };
}

function decodeDla(r: TaskReader, task: TaskListEntry, index: number): DlaTask {
  const path = `task[${index}]`;
  const out: DlaTask = {
    kind: 'DLA', index, id: task.id, interface: task.interface, interfaceName: enumName(INTERFACE, task.interface),
    lists: [], firmware: null, cubeSize: 32, layoutNote: '', network: null, slots: [], luts: [],
  };
  const net = r.list(task, 0, 'network descriptor', `${path}.network_desc`);
  const layout = dlaLayoutFor(net?.loc.location.blob ? r.blobByName.get(net.loc.location.blob) : undefined);
  out.firmware = layout.firmware;
  out.cubeSize = layout.layouts.cubeSize;
  out.layoutNote = layout.note;
  if (!layout.known && net) r.mark(`${path}.network_desc`, layout.note, 'unsupported');
  if (!net) return out;
  out.lists.push(net.loc);
  const nd = r.struct(decodeStruct(DLA_NETWORK_DESC, net.bytes, net.loc.location.blobOffset, net.loc.location.blob), `${path}.network_desc`);
  out.network = nd;
  const numOps = valueOf(nd, 'num_operations') ?? 0;
  const numLuts = valueOf(nd, 'num_luts') ?? 0;

  const listAt = (field: string, role: string, stride: number, count: number) => {
    const idx = valueOf(nd, field);
    if (idx === undefined || idx < 0) return null;
    const got = r.list(task, idx, role, `${path}.${role.replace(/ /g, '_')}`);
    if (!got) return null;
    out.lists.push(got.loc);
    if (count > 0 && got.loc.available < stride * count) {
      r.mark(`${path}.${role.replace(/ /g, '_')}`, `the ${role} holds ${Math.floor(got.loc.available / stride)} of the ${count} entries the network descriptor declares (${got.loc.available} bytes in blob "${got.loc.location.blob}")`, 'truncated');
    }
    return got;
  };
  const deps = listAt('dependency_graph_index', 'dependency graph', DLA_COMMON_STRIDE, numOps);
  const ops = listAt('operation_desc_index', 'operation list', DLA_OPERATION_CONTAINER, numOps);
  const surfs = listAt('surface_desc_index', 'surface list', DLA_SURFACE_CONTAINER, numOps);
  const luts = listAt('lut_data_index', 'LUT list', DLA_LUT_STRIDE, numLuts);

  for (const [engine, i] of DLA_ENGINES.map((e, i) => [e, i] as const)) {
    const head = valueOf(nd, `op_head.${engine}`);
    if (head !== undefined && head !== -1 && (head < 0 || head >= numOps)) r.mark(`${path}.network_desc.op_head.${engine}`, `op_head[${i}] = ${head} is not a slot (num_operations ${numOps})`);
  }

  if (luts) {
    const n = Math.min(numLuts, Math.floor(luts.loc.available / DLA_LUT_STRIDE));
    for (let i = 0; i < n; i++) {
      const s = decodeStruct(DLA_LUT_PARAM, luts.bytes, luts.loc.location.blobOffset + i * DLA_LUT_STRIDE, luts.loc.location.blob);
      r.enums(s, `${path}.lut[${i}]`);
      out.luts.push(s);
    }
  }

  // slots: as many as the dependency graph holds, up to num_operations
  const nSlots = deps ? Math.min(numOps, Math.floor(deps.loc.available / DLA_COMMON_STRIDE)) : 0;
  const L = layout.layouts;
  for (let s = 0; s < nSlots; s++) {
    const sp = `${path}.slot[${s}]`;
    const common = decodeStruct(DLA_COMMON_OP_DESC, deps!.bytes, deps!.loc.location.blobOffset + s * DLA_COMMON_STRIDE, deps!.loc.location.blob);
    const opType = valueOf(common, 'op_type') ?? -1;
    const engine = DLA_ENGINES[opType] ?? `op_type ${opType}`;
    // an unused consumer (index -1) carries whatever event the writer left: not a damage
    r.enums(common, `${sp}.common`, (p) => p.endsWith('.event') && valueOf(common, p.replace(/event$/, 'index')) === -1);
    const consumers: Consumer[] = [];
    for (const name of DLA_ENGINES) {
      const idx = valueOf(common, `consumers.${name}.index`) ?? -1;
      if (idx === -1) continue;
      const event = valueOf(common, `consumers.${name}.event`) ?? 0;
      consumers.push({ engine: name, slot: idx, event, eventName: enumName(DLA_EVENT, event) });
      if (idx < 0 || idx >= numOps) r.mark(`${sp}.common.consumers.${name}.index`, `consumer slot ${idx} is past the op list (num_operations ${numOps})`);
    }
    const fpIdx = valueOf(common, 'fused_parent.index') ?? -1;
    let fusedParent: OpSlot['fusedParent'] = null;
    if (fpIdx !== -1) {
      const ev = valueOf(common, 'fused_parent.event') ?? 0;
      fusedParent = { slot: fpIdx, event: ev, eventName: enumName(DLA_EVENT, ev) };
      if (fpIdx < 0 || fpIdx >= numOps) r.mark(`${sp}.common.fused_parent.index`, `fused parent slot ${fpIdx} is past the op list (num_operations ${numOps})`);
    }
    const slot: OpSlot = {
      task: index, slot: s, engine, opType, dependencyCount: valueOf(common, 'dependency_count') ?? 0, consumers, fusedParent,
      common, op: null, surface: null, surfaces: [], lut: null,
    };
    if (!(opType in L.op)) {
      r.mark(`${sp}.common.op_type`, `op type ${opType} is not a DLA engine: its op and surface descriptors are not decoded`, 'unsupported');
    } else {
      if (ops && (s + 1) * DLA_OPERATION_CONTAINER <= ops.loc.available) {
        slot.op = decodeStruct(L.op[opType]!, ops.bytes, ops.loc.location.blobOffset + s * DLA_OPERATION_CONTAINER, ops.loc.location.blob);
        r.enums(slot.op, `${sp}.op`);
        if (opType === 2 || opType === 4) {
          const li = valueOf(slot.op, 'lut_index') ?? -1;
          if (li >= 0) {
            slot.lut = li;
            if (li >= numLuts) r.mark(`${sp}.op.lut_index`, `LUT ${li} is past the LUT list (num_luts ${numLuts})`);
          }
        }
      }
      if (surfs && (s + 1) * DLA_SURFACE_CONTAINER <= surfs.loc.available) {
        slot.surface = decodeStruct(L.surface[opType]!, surfs.bytes, surfs.loc.location.blobOffset + s * DLA_SURFACE_CONTAINER, surfs.loc.location.blob);
        // BDMA transfers past num_transfers are unused slots of a fixed array
        const n = opType === 0 ? valueOf(slot.surface, 'num_transfers') ?? 0 : 0;
        r.enums(slot.surface, `${sp}.surface`, (p) => opType === 0 && /^transfers\.(\d+)\./.test(p) && Number(/^transfers\.(\d+)/.exec(p)![1]) >= n);
        slot.surfaces = cubeUses(r, task, opType, slot.surface, `${sp}.surface`);
      }
    }
    out.slots.push(slot);
  }
  return out;
}

function decodeEmu(r: TaskReader, task: TaskListEntry, index: number): EmuTask {
  const path = `task[${index}]`;
  const out: EmuTask = {
    kind: 'EMU', index, id: task.id, interface: task.interface, interfaceName: 'EMU1',
    lists: [], layout: EMU_LAYOUTS_0_0_1.name, layoutNote: '', network: null, ops: [],
  };
  const net = r.list(task, 0, 'network descriptor', `${path}.network_desc`);
  if (!net) return out;
  out.lists.push(net.loc);
  const nd = r.struct(decodeStruct(EMU_NETWORK_DESC, net.bytes, net.loc.location.blobOffset, net.loc.location.blob), `${path}.network_desc`);
  out.network = nd;
  const numOps = valueOf(nd, 'num_operations') ?? 0;
  const opIdx = valueOf(nd, 'operation_desc_index') ?? -1;
  const bufIdx = valueOf(nd, 'operation_buffer_desc_index') ?? -1;
  if (numOps === 0) return out;
  const ops = opIdx >= 0 ? r.list(task, opIdx, 'operation list', `${path}.operation_list`) : null;
  const bufs = bufIdx >= 0 ? r.list(task, bufIdx, 'buffer list', `${path}.buffer_list`) : null;
  if (!ops) return out;
  out.lists.push(ops.loc);
  if (bufs) out.lists.push(bufs.loc);
  // The op container is 24 bytes in EMU 0.0.1 and 16 before its INT8 scale factors; both
  // carry blob version 0.0.1, so the bytes per op decide.
  const perOp = Math.floor(ops.loc.available / numOps);
  let L: EmuLayouts = EMU_LAYOUTS_0_0_1;
  if (perOp >= 16 && perOp < 24) {
    L = EMU_LAYOUTS_LEGACY;
    out.layoutNote = `op list "${ops.loc.location.blob}" holds ${perOp} bytes per op: the EMU layout before INT8 scale factors (16-byte ops, no addressIndexOffset)`;
  } else {
    out.layoutNote = `op list "${ops.loc.location.blob}" holds ${perOp} bytes per op: EMU interface 0.0.1 (24-byte ops)`;
    if (perOp < 24) r.mark(`${path}.operation_list`, `the op list holds ${ops.loc.available} bytes, too few for ${numOps} op(s)`, 'truncated');
  }
  out.layout = L.name;
  if (bufs && bufs.loc.available < L.buffers.size * numOps) {
    r.mark(`${path}.buffer_list`, `the buffer list holds ${bufs.loc.available} bytes, too few for ${numOps} op(s) of ${L.buffers.size}`, 'truncated');
  }
  const n = Math.min(numOps, Math.floor(ops.loc.available / L.opStride));
  for (let s = 0; s < n; s++) {
    const sp = `${path}.op[${s}]`;
    const at = ops.loc.location.blobOffset + s * L.opStride;
    const opType = ops.bytes[at] ?? -1;
    const spec = L.op[opType];
    const op = decodeStruct(spec ?? L.common, ops.bytes, at, ops.loc.location.blob);
    if (!spec) r.mark(`${sp}.common.op_type`, `EMU op type ${opType} is not known: only its common part is decoded`, 'unsupported');
    else r.enums(op, sp);
    const emu: EmuOp = { task: index, slot: s, engine: 'EMU', opType, opName: enumName(EMU_OP_TYPE, opType), op, buffers: null, surfaces: [] };
    if (bufs && (s + 1) * L.buffers.size <= bufs.loc.available) {
      const b = decodeStruct(L.buffers, bufs.bytes, bufs.loc.location.blobOffset + s * L.buffers.size, bufs.loc.location.blob);
      r.enums(b, `${sp}.buffers`);
      emu.buffers = b;
      for (const [name, role] of [['src_data', 'read'], ['dst_data', 'write']] as const) {
        const d = member(b, name)!;
        emu.surfaces.push(resolveUse(r, task, {
          name, role, addressIndex: valueOf(d, 'addressIndex') ?? -1, offset: valueOf(d, 'addressIndexOffset') ?? 0, size: valueOf(d, 'size') ?? 0,
        }, `${sp}.buffers`));
      }
    }
    out.ops.push(emu);
  }
  return out;
}

/** Decodes every task's descriptors. Never throws; damage is collected. */
/**
 * Decodes every task. `fill`: the loadable was read with bytes filled on demand (`read`'s
 * `fill`); the blobs holding the task lists are filled before they are decoded, no other.
 */
export function decodeTasks(l: Loadable, fill?: FillBytes): DecodedLoadable {
  const r = new TaskReader(l, fill);
  const tasks: DecodedTask[] = l.task_list.map((t, i): DecodedTask => {
    if (t.interface === 1) return decodeDla(r, t, i);
    if (t.interface === 2) return decodeEmu(r, t, i);
    return { kind: 'other', index: i, id: t.id, interface: t.interface, interfaceName: enumName(INTERFACE, t.interface), lists: [] };
  });
  const dla = tasks.find((t): t is DlaTask => t.kind === 'DLA' && t.firmware !== null);
  const firmware = dla ? dla.firmware!.split('.').slice(0, 2).join('.') : null;
  if (r.dropped) r.damage.push({ kind: 'limit', path: '', message: `${r.dropped} more damaged places in the tasks are not listed` });
  return { loadable: l, tasks, firmware, damage: [...l.damage, ...r.damage] };
}

/** Every op slot and EMU op of a decoded loadable, tasks in order. */
export function allOps(d: DecodedLoadable): (OpSlot | EmuOp)[] {
  const out: (OpSlot | EmuOp)[] = [];
  for (const t of d.tasks) {
    if (t.kind === 'DLA') out.push(...t.slots);
    else if (t.kind === 'EMU') out.push(...t.ops);
  }
  return out;
}

/** A decoded descriptor and what it describes. */
export interface DescriptorRef {
  struct: DecodedStruct;
  task: number;
  /** op slot (DLA) or op (EMU) number; null for network descriptors and LUTs */
  slot: number | null;
  /** engine of the slot (CONV, ..., EMU), null otherwise */
  engine: string | null;
  /** `network_desc`, `common`, `op`, `surface`, `lut[0]`, `buffers` */
  role: string;
  /** `task[0].slot[3].op` */
  path: string;
}

/** Every decoded descriptor of every task, with what it describes. */
export function allDescriptors(d: DecodedLoadable): DescriptorRef[] {
  const out: DescriptorRef[] = [];
  for (const t of d.tasks) {
    const p = `task[${t.index}]`;
    if (t.kind === 'other') continue;
    if (t.network) out.push({ struct: t.network, task: t.index, slot: null, engine: null, role: 'network_desc', path: `${p}.network_desc` });
    if (t.kind === 'DLA') {
      for (const s of t.slots) {
        for (const [role, st] of [['common', s.common], ['op', s.op], ['surface', s.surface]] as const) {
          if (st) out.push({ struct: st, task: t.index, slot: s.slot, engine: s.engine, role, path: `${p}.slot[${s.slot}].${role}` });
        }
      }
      t.luts.forEach((l, i) => out.push({ struct: l, task: t.index, slot: null, engine: null, role: `lut[${i}]`, path: `${p}.lut[${i}]` }));
    } else {
      for (const o of t.ops) {
        out.push({ struct: o.op, task: t.index, slot: o.slot, engine: 'EMU', role: 'op', path: `${p}.op[${o.slot}].op` });
        if (o.buffers) out.push({ struct: o.buffers, task: t.index, slot: o.slot, engine: 'EMU', role: 'buffers', path: `${p}.op[${o.slot}].buffers` });
      }
    }
  }
  return out;
}
