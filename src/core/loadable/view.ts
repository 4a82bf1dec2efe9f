/**
 * The loadable as the studio's views show it: plain, structured-clone-safe data built on demand
 * from a decoded loadable (`tasks.ts`), one function per view:
 *
 * - `overviewOf`: the tasks with their op slots in order (engine, dependency count, consumers,
 *   fused parent, a one-line summary, the surfaces each reads and writes), the task, submit,
 *   event, memory, address, tensor-desc, reloc and blob lists with what refers to what (an
 *   address's users, a reloc's descriptor field, a blob's placement and readers), and every
 *   damaged place attached to the row it belongs to;
 * - `slotViewOf`: one op slot's descriptors field by field (names, enum names, byte offsets,
 *   damage) with each data cube's address resolved (task address -> address -> memory -> blob);
 * - `blobDetailOf`: what lies where in a blob (descriptor ranges) and its values: LUTs as curves,
 *   weights as a histogram decoded with the precision the descriptors that read it give.
 *
 * Nothing here copies blob data: blob bytes stay views into the file (the hex view asks for a
 * window, `blobWindow`). Never throws on a damaged file: what could not be read is already in
 * `DecodedLoadable.damage`, and is shown where it belongs.
 */
import type { ErrorKind } from '../errors';
import type { AddressListEntry, EventListEntry, Loadable, MemoryListEntry, RelocListEntry, SubmitListEntry, TensorDescListEntry } from './model';
import type { MemoryRole } from './memory-map';
import {
  DATA_CATEGORY,
  DATA_FORMAT,
  DATA_TYPE,
  EVENT_OP,
  EVENT_TYPE,
  INTERFACE,
  MEMORY_DOMAIN,
  PIXEL_FORMAT,
  PIXEL_MAPPING,
  RELOC_TYPE,
  enumName,
  memoryFlagsName,
  subInterfaceName,
} from './names';
import { leaves, member, scalarText, valueOf, type DecodedField, type DecodedStruct } from './structs';
import { allDescriptors, allOps, type DecodedLoadable, type DescriptorRef, type EmuOp, type OpSlot, type SurfaceUse } from './tasks';
import { blobElement, histogram, type Histogram, type HistogramElement } from './blob-values';

export type { Histogram, HistogramElement };

// ---- view types ---------------------------------------------------------------------------------

export interface DamageView {
  kind: ErrorKind;
  path: string;
  offset?: number;
  message: string;
}

/** One field of a decoded struct. */
export interface FieldView {
  /** field name, or the element label inside an array (`CONV`, `0`) */
  name: string;
  /** dotted path inside the struct (`src_data.line_stride`); the compare view matches on it */
  path: string;
  /** byte offset inside the blob the struct was read from */
  offset: number;
  size: number;
  type: string;
  /** scalars: the exact decimal (`-1`, `0.1811`) */
  value?: string;
  /** enum fields: the name, null when the value has none */
  enumName?: string | null;
  /** the bytes ended before this field */
  missing?: boolean;
  fields?: FieldView[];
  /** a data cube or buffer: where its address leads, or why it leads nowhere */
  resolves?: string;
  /** what is wrong with this field (an unknown enum value, an index past a list) */
  damage?: string[];
  /** a reserved or padding field */
  reserved?: boolean;
}

/** A decoded descriptor. */
export interface StructView {
  /** `common`, `op`, `surface`, `buffers`, `network_desc`, `lut[0]` */
  role: string;
  struct: string;
  blob: string | null;
  offset: number;
  size: number;
  /** the bytes ended before the struct did */
  damage?: string;
  fields: FieldView[];
}

/** Where a data cube (or EMU buffer, or BDMA transfer end) lives. */
export interface SurfaceView {
  name: string;
  role: 'read' | 'write';
  size: number;
  /** task address-list index written in the descriptor (-1: on the fly) */
  addressIndex: number;
  offset: number;
  memType?: string;
  /** the resolution, link by link; null when on the fly or unresolvable (`note` says which) */
  chain: {
    taskAddress: number;
    address: number;
    memId: number;
    memOffset: number;
    /** `memory 1: ALLOC|SET, 925696 bytes` */
    memory: string;
    blob: string | null;
    blobOffset: number;
    /** the bindable tensor of that memory, if any */
    tensor: string | null;
  } | null;
  /** `task address 3 -> address 3 -> memory 3 + 0 (input "data")` or the reason it is unresolved */
  text: string;
  note?: string;
}

export interface ConsumerView {
  engine: string;
  slot: number;
  event: string;
}

/** An op slot (DLA) or EMU op as a table row. */
export interface OpRow {
  /** index of the op-slot graph node (and of `LoadableService.slot`) */
  node: number;
  task: number;
  slot: number;
  engine: string;
  /** `CONV`, `EMU SOFTMAX` */
  type: string;
  /** null for EMU ops (the CPU runs them in order) */
  dependencyCount: number | null;
  consumers: ConsumerView[];
  fusedParent: { slot: number; event: string } | null;
  lut: number | null;
  /** `28x28x4 -> 24x24x20 · kernel 5x5 · stride 1 · INT8` */
  summary: string;
  surfaces: SurfaceView[];
  damage: string[];
}

export interface ActionView {
  event: number;
  /** `event 1: WAIT target 0 value 1` */
  text: string;
}

export interface TaskView {
  index: number;
  id: number;
  kind: 'DLA' | 'EMU' | 'other';
  interfaceName: string;
  instance: number;
  addressList: number[];
  preActions: ActionView[];
  postActions: ActionView[];
  /** submit-list entries that run this task */
  submits: number[];
  firmware: string | null;
  layoutNote: string;
  network: StructView | null;
  /** where the network descriptor and the descriptor lists are (`dependency graph: ... blob "task-0-dep_graph"`) */
  lists: { role: string; text: string }[];
  ops: OpRow[];
  luts: number;
  damage: string[];
}

export interface MemoryRow {
  index: number;
  entry: MemoryListEntry;
  domain: string;
  flags: string;
  role: MemoryRole;
  tensor: string | null;
  contents: { name: string; offset: number | null }[];
  damage: string[];
}

export interface AddressRow {
  index: number;
  entry: AddressListEntry;
  /** the memory entry it points into */
  memory: string;
  /** tasks listing it (`task 0 [3]`) and the surfaces and descriptor lists it leads to */
  users: string[];
  damage: string[];
}

export interface EventRow {
  index: number;
  entry: EventListEntry;
  op: string;
  type: string;
  /** `task 0 post`, `task 1 pre` */
  usedBy: string[];
  damage: string[];
}

export interface SubmitRow {
  index: number;
  entry: SubmitListEntry;
  damage: string[];
}

export interface TensorRow {
  index: number;
  entry: TensorDescListEntry;
  kind: 'input' | 'output';
  format: string;
  type: string;
  category: string;
  pixelFormat: string;
  pixelMapping: string;
  damage: string[];
}

export interface RelocRow {
  index: number;
  entry: RelocListEntry;
  type: string;
  interfaceName: string;
  subInterface: string;
  /** the address whose strides the runtime patches */
  address: string;
  /** where it writes: blob, offset and the descriptor field there */
  target: string;
  damage: string[];
}

/**
 * `descriptors` (task blobs), `lut` (LUT parameters), `weights` (read as a weight, bias or
 * scale operand), `data` (read as a source surface), `unread` (placed, read by no op slot),
 * `unplaced` (no memory entry holds it)
 */
export type BlobKind = 'descriptors' | 'lut' | 'weights' | 'data' | 'unread' | 'unplaced';

export interface BlobRow {
  index: number;
  name: string;
  /** the size the blob declares */
  size: number;
  /** the bytes its data holds */
  dataLength: number;
  interfaceName: string;
  subInterface: string;
  version: string;
  placedAt: { memId: number; offset: number }[];
  kind: BlobKind;
  /** surfaces and descriptor lists that read it (`task 0 slot 0 CONV weight_data`) */
  usedBy: string[];
  damage: string[];
}

export interface LoadableOverview {
  file: string;
  size: number;
  version: string;
  identifier: string | null;
  /** firmware interface of the DLA tasks, e.g. `0.12` */
  firmware: string | null;
  tasks: TaskView[];
  memory: MemoryRow[];
  addresses: AddressRow[];
  events: EventRow[];
  submits: SubmitRow[];
  tensors: TensorRow[];
  relocs: RelocRow[];
  blobs: BlobRow[];
  /** every damaged place, in the reader's order */
  damage: DamageView[];
}

export interface SlotView {
  node: number;
  task: number;
  slot: number;
  engine: string;
  type: string;
  summary: string;
  firmware: string | null;
  layoutNote: string;
  dependencyCount: number | null;
  consumers: ConsumerView[];
  fusedParent: { slot: number; event: string } | null;
  /** common, op, surface (DLA); op, buffers (EMU) */
  descriptors: StructView[];
  surfaces: SurfaceView[];
  /** the LUT an SDP or CDP slot uses */
  lut: { index: number; param: StructView | null; curve: LutCurve | null } | null;
  damage: DamageView[];
}

/** A `dla_lut_param` as two curves and the parameters that place them. */
export interface LutCurve {
  /** `task 0 lut[0]` */
  label: string;
  index: number;
  method: string;
  /** 65 entries */
  linearExp: number[];
  /** 257 entries */
  linearOnly: number[];
  params: { name: string; value: string }[];
}

export type BlobPlot = Histogram | { kind: 'lut'; curves: LutCurve[] } | { kind: 'none'; reason: string };

export interface BlobDetail {
  index: number;
  name: string;
  /** the descriptors laid in this blob, by offset */
  ranges: { offset: number; size: number; label: string; node: number | null }[];
  plot: BlobPlot;
}

// ---- helpers --------------------------------------------------------------------------------------

const versionText = (v: { major: number; minor: number; sub_minor: number }) => `${v.major}.${v.minor}.${v.sub_minor}`;

/** The row a damaged place belongs to: `op:T:S`, `task:T`, `memory_list:I`, ... */
export function damageOwner(path: string): string | null {
  let m = /^task\[(\d+)\]\.(?:slot|op)\[(\d+)\]/.exec(path);
  if (m) return `op:${m[1]}:${m[2]}`;
  m = /^task(?:_list)?\[(\d+)\]/.exec(path);
  if (m) return `task:${m[1]}`;
  m = /^(memory_list|address_list|event_list|blobs|tensor_desc_list|reloc_list|submit_list)\[(\d+)\]/.exec(path);
  if (m) return `${m[1]}:${m[2]}`;
  return null;
}

function damageIndex(d: DecodedLoadable): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const x of d.damage) {
    const key = damageOwner(x.path);
    if (!key) continue;
    const list = out.get(key) ?? [];
    list.push(`${x.path}: ${x.message}`);
    out.set(key, list);
  }
  return out;
}

const dims = (c: DecodedField | undefined) => {
  if (!c?.fields) return '?';
  const v = (k: string) => valueOf(c, k) ?? 0;
  return `${v('width')}x${v('height')}x${v('channel')}`;
};

const en = (s: DecodedStruct | null, path: string): string => {
  const f = s ? member(s, path) : undefined;
  if (!f || f.missing) return '?';
  return f.enumName ?? scalarText(f);
};

/** One line saying what an op slot does, from its descriptors. */
export function opSummary(op: OpSlot | EmuOp): string {
  if (op.engine === 'EMU') {
    const e = op as EmuOp;
    const parts = [e.opName];
    if (e.opType === 0) parts.push(`power ${en(e.op, 'power')}`, `scale ${en(e.op, 'scale')}`, `shift ${en(e.op, 'shift')}`);
    if (e.opType === 1) parts.push(`axis ${en(e.op, 'axis')}`);
    const b = e.buffers;
    if (b) parts.push(`${dims(member(b, 'src_data'))} ${en(b, 'src_data.format')} -> ${dims(member(b, 'dst_data'))} ${en(b, 'dst_data.format')}`);
    return parts.join(' · ');
  }
  const s = op as OpSlot;
  const o = s.op;
  const surf = s.surface;
  const io = surf && s.opType !== 0 ? `${dims(member(surf, 'src_data'))} -> ${dims(member(surf, 'dst_data'))}` : '';
  const parts: string[] = [];
  if (io) parts.push(io);
  switch (s.opType) {
    case 0:
      parts.push(`${surf ? (valueOf(surf, 'num_transfers') ?? '?') : '?'} transfer(s) ${en(surf, 'source_type')} -> ${en(surf, 'destination_type')}`);
      break;
    case 1: {
      parts.push(`kernel ${en(o, 'kernel_width_csc')}x${en(o, 'kernel_height_csc')}x${en(o, 'kernel_channel_csc')}`);
      parts.push(`stride ${en(o, 'conv_stride_x')}x${en(o, 'conv_stride_y')}`);
      const pads = ['pad_x_left', 'pad_x_right', 'pad_y_top', 'pad_y_bottom'].map((k) => en(o, k));
      if (pads.some((p) => p !== '0')) parts.push(`pad ${pads.join(',')}`);
      parts.push(`${en(o, 'in_precision')} -> ${en(o, 'out_precision')}`);
      if (en(o, 'conv_mode') !== 'DIRECT') parts.push(en(o, 'conv_mode'));
      const fmt = en(o, 'data_format');
      if (fmt !== 'FEATURE' && fmt !== '?') parts.push(`${fmt} input`);
      break;
    }
    case 2: {
      for (const x of ['x1', 'x2', 'y']) {
        if (o && valueOf(o, `${x}_op.enable`)) {
          const act = en(o, `${x}_op.act`);
          parts.push(`${x} ${en(o, `${x}_op.type`)} ${en(o, `${x}_op.mode`)}${act !== 'NONE' ? ` ${act}` : ''}`);
        }
      }
      parts.push(`${en(o, 'src_precision')} -> ${en(o, 'dst_precision')}`);
      if (surf && en(surf, 'src_data.type') === 'HW') parts.push('source on the fly');
      break;
    }
    case 3: {
      const size = (k: string) => {
        const v = o ? valueOf(o, k) : undefined;
        return v === undefined ? '?' : String(v + 1);
      };
      parts.push(`${en(o, 'pool_mode')} ${size('pool_width')}x${size('pool_height')}`, `stride ${en(o, 'stride_x')}x${en(o, 'stride_y')}`, en(o, 'precision'));
      break;
    }
    case 4:
      parts.push(`local_size ${en(o, 'local_size')}`, `${en(o, 'in_precision')} -> ${en(o, 'out_precision')}`);
      break;
    case 5:
      parts.push(en(o, 'mode'), `stride ${en(o, 'stride_x')}x${en(o, 'stride_y')}`, en(o, 'precision'));
      break;
  }
  if (s.lut !== null) parts.push(`LUT ${s.lut}`);
  return parts.join(' · ');
}

function memoryLabel(l: Loadable, memId: number): string {
  const m = l.memory_list[memId];
  if (!m) return `memory ${memId} (past the memory list)`;
  const t = l.tensor_desc_list.find((x) => x.mem_id === memId);
  return `memory ${memId}: ${memoryFlagsName(m.flags)}, ${m.size} bytes${t ? `, ${m.flags & 4 ? 'input' : m.flags & 8 ? 'output' : 'tensor'} "${t.name}"` : ''}`;
}

function surfaceView(l: Loadable, u: SurfaceUse): SurfaceView {
  const base = { name: u.name, role: u.role, size: u.size, addressIndex: u.addressIndex, offset: u.offset, ...(u.memType !== undefined ? { memType: u.memType } : {}) };
  const loc = u.location;
  if (!loc) return { ...base, chain: null, text: u.note ?? 'unresolved', ...(u.note !== undefined ? { note: u.note } : {}) };
  const tensor = l.tensor_desc_list.find((x) => x.mem_id === loc.memId)?.name ?? null;
  const text =
    `task address ${loc.taskAddress} -> address ${loc.address} -> memory ${loc.memId} + ${loc.memOffset}` +
    (loc.blob !== null ? ` (blob "${loc.blob}" + ${loc.blobOffset})` : '') +
    (tensor !== null ? ` (tensor "${tensor}")` : '');
  return {
    ...base,
    chain: { taskAddress: loc.taskAddress, address: loc.address, memId: loc.memId, memOffset: loc.memOffset, memory: memoryLabel(l, loc.memId), blob: loc.blob, blobOffset: loc.blobOffset, tensor },
    text,
  };
}

function fieldViews(fields: DecodedField[], prefix: string, damageAt: Map<string, string[]>, absPrefix: string, resolves: Map<string, string>): FieldView[] {
  return fields.map((x) => {
    const path = prefix ? `${prefix}.${x.name}` : x.name;
    const v: FieldView = { name: x.name, path, offset: x.offset, size: x.size, type: x.type };
    if (x.fields) v.fields = fieldViews(x.fields, path, damageAt, absPrefix, resolves);
    else {
      if (x.missing) v.missing = true;
      else v.value = scalarText(x);
      if (x.enumName !== undefined) v.enumName = x.enumName;
    }
    if (/^reserved|^res$/.test(x.name)) v.reserved = true;
    const r = resolves.get(path);
    if (r !== undefined) v.resolves = r;
    const dmg = damageAt.get(`${absPrefix}.${path}`);
    if (dmg) v.damage = dmg;
    return v;
  });
}

/** A decoded struct as plain view data; `absPath` is its damage path (`task[0].slot[3].op`). */
export function structView(s: DecodedStruct, role: string, absPath: string, damageAt: Map<string, string[]> = new Map(), resolves: Map<string, string> = new Map()): StructView {
  const out: StructView = { role, struct: s.struct, blob: s.blob, offset: s.offset, size: s.size, fields: fieldViews(s.fields, '', damageAt, absPath, resolves) };
  if (s.damage) out.damage = s.damage;
  return out;
}

function fieldDamage(d: DecodedLoadable): Map<string, string[]> {
  const m = new Map<string, string[]>();
  for (const x of d.damage) {
    const list = m.get(x.path) ?? [];
    list.push(x.message);
    m.set(x.path, list);
  }
  return m;
}

/** The descriptor (and the field) at a byte offset of a blob. */
function descriptorAt(refs: DescriptorRef[], blob: string, offset: number): { ref: DescriptorRef; field: string | null } | null {
  for (const r of refs) {
    if (r.struct.blob !== blob || offset < r.struct.offset || offset >= r.struct.offset + r.struct.size) continue;
    const leaf = leaves(r.struct.fields).find((x) => x.field.offset === offset);
    return { ref: r, field: leaf ? leaf.path : null };
  }
  return null;
}

function refLabel(r: DescriptorRef): string {
  if (r.slot === null) return `task ${r.task} ${r.role}`;
  return `task ${r.task} ${r.engine === 'EMU' ? 'op' : 'slot'} ${r.slot} ${r.engine} ${r.role}`;
}

/** The blob a memory entry places at a memory offset, and the offset inside it. */
function blobAtMemory(l: Loadable, memId: number, offset: number): { blob: string; blobOffset: number } | null {
  const m = l.memory_list[memId];
  if (!m) return null;
  for (let k = 0; k < m.contents.length; k++) {
    const at = m.offsets[k];
    const b = l.blobs.find((x) => x.name === m.contents[k]);
    if (at === undefined || !b) continue;
    if (offset >= at && offset < at + b.data.length) return { blob: b.name, blobOffset: offset - at };
  }
  return null;
}

// ---- the overview ---------------------------------------------------------------------------------

/** Surfaces that read weights, biases, scales and their masks (not feature data). */
const OPERANDS = new Set(['weight_data', 'wmb_data', 'wgs_data', 'x1_data', 'x2_data', 'y_data']);

export function overviewOf(d: DecodedLoadable): LoadableOverview {
  const l = d.loadable;
  const marks = damageIndex(d);
  const dmg = (key: string) => marks.get(key) ?? [];
  const ops = allOps(d);
  const nodeOf = new Map(ops.map((op, i) => [`${op.task}:${op.slot}`, i]));
  const eventText = (i: number) => {
    const e = l.event_list[i];
    return e ? `event ${i}: ${enumName(EVENT_OP, e.op)} target ${e.target} value ${e.val}` : `event ${i} (past the event list)`;
  };

  const opRow = (op: OpSlot | EmuOp): OpRow => {
    const isEmu = op.engine === 'EMU';
    const s = op as OpSlot;
    return {
      node: nodeOf.get(`${op.task}:${op.slot}`)!,
      task: op.task,
      slot: op.slot,
      engine: op.engine,
      type: isEmu ? `EMU ${(op as EmuOp).opName}` : op.engine,
      dependencyCount: isEmu ? null : s.dependencyCount,
      consumers: isEmu ? [] : s.consumers.map((c) => ({ engine: c.engine, slot: c.slot, event: c.eventName })),
      fusedParent: isEmu || !s.fusedParent ? null : { slot: s.fusedParent.slot, event: s.fusedParent.eventName },
      lut: isEmu ? null : s.lut,
      summary: opSummary(op),
      surfaces: op.surfaces.map((u) => surfaceView(l, u)),
      damage: dmg(`op:${op.task}:${op.slot}`),
    };
  };

  const tasks: TaskView[] = d.tasks.map((t) => {
    const entry = l.task_list[t.index]!;
    const view: TaskView = {
      index: t.index,
      id: t.id,
      kind: t.kind,
      interfaceName: t.interfaceName,
      instance: entry.instance,
      addressList: entry.address_list,
      preActions: entry.pre_actions.map((e) => ({ event: e, text: eventText(e) })),
      postActions: entry.post_actions.map((e) => ({ event: e, text: eventText(e) })),
      submits: l.submit_list.flatMap((s, i) => (s.task_id.includes(t.index) ? [i] : [])),
      firmware: t.kind === 'DLA' ? t.firmware : null,
      layoutNote: t.kind === 'other' ? `interface ${t.interfaceName}: no descriptors to decode` : t.layoutNote,
      network: null,
      lists: t.lists.map((x) => ({
        role: x.role,
        text: `task address ${x.location.taskAddress} -> address ${x.location.address} -> memory ${x.location.memId} + ${x.location.memOffset} (blob "${x.location.blob}" + ${x.location.blobOffset}, ${x.available} bytes)`,
      })),
      ops: [],
      luts: t.kind === 'DLA' ? t.luts.length : 0,
      damage: dmg(`task:${t.index}`),
    };
    if (t.kind === 'DLA') {
      if (t.network) view.network = structView(t.network, 'network_desc', `task[${t.index}].network_desc`, fieldDamage(d));
      view.ops = t.slots.map(opRow);
    } else if (t.kind === 'EMU') {
      if (t.network) view.network = structView(t.network, 'network_desc', `task[${t.index}].network_desc`, fieldDamage(d));
      view.ops = t.ops.map(opRow);
    }
    return view;
  });

  const memory: MemoryRow[] = l.memory_list.map((m, i) => ({
    index: i,
    entry: m,
    domain: enumName(MEMORY_DOMAIN, m.domain),
    flags: memoryFlagsName(m.flags),
    role: m.flags & 4 ? 'input' : m.flags & 8 ? 'output' : m.contents.some((c) => c.startsWith('task-')) ? 'descriptors' : m.contents.length ? 'data' : 'unused',
    tensor: l.tensor_desc_list.find((x) => x.mem_id === i)?.name ?? null,
    contents: m.contents.map((name, k) => ({ name, offset: m.offsets[k] ?? null })),
    damage: dmg(`memory_list:${i}`),
  }));
  // memory roles as the memory map sees them: descriptor lists located through the tasks, data
  // read or written by the op slots
  const bound = (m: MemoryRow | undefined) => !!m && (m.role === 'input' || m.role === 'output');
  for (const op of ops) for (const u of op.surfaces) if (u.location && memory[u.location.memId]?.role === 'unused') memory[u.location.memId]!.role = 'data';
  for (const t of d.tasks) for (const x of t.lists) if (memory[x.location.memId] && !bound(memory[x.location.memId])) memory[x.location.memId]!.role = 'descriptors';

  const addressUsers = new Map<number, string[]>();
  const addUser = (a: number, text: string) => {
    const list = addressUsers.get(a) ?? [];
    if (!list.includes(text)) list.push(text);
    addressUsers.set(a, list);
  };
  l.task_list.forEach((t, ti) => t.address_list.forEach((a, k) => addUser(a, `task ${ti} [${k}]`)));
  for (const t of d.tasks) for (const x of t.lists) addUser(x.location.address, `task ${t.index} ${x.role}`);
  for (const op of ops) {
    for (const u of op.surfaces) {
      if (u.location) addUser(u.location.address, `task ${op.task} ${op.engine === 'EMU' ? 'op' : 'slot'} ${op.slot} ${op.engine} ${u.name} (${u.role})`);
    }
  }
  const addresses: AddressRow[] = l.address_list.map((a, i) => ({
    index: i,
    entry: a,
    memory: memoryLabel(l, a.mem_id),
    users: addressUsers.get(i) ?? [],
    damage: dmg(`address_list:${i}`),
  }));

  const events: EventRow[] = l.event_list.map((e, i) => ({
    index: i,
    entry: e,
    op: enumName(EVENT_OP, e.op),
    type: enumName(EVENT_TYPE, e.type),
    usedBy: l.task_list.flatMap((t, ti) => [...(t.pre_actions.includes(i) ? [`task ${ti} pre`] : []), ...(t.post_actions.includes(i) ? [`task ${ti} post`] : [])]),
    damage: dmg(`event_list:${i}`),
  }));

  const submits: SubmitRow[] = l.submit_list.map((s, i) => ({ index: i, entry: s, damage: dmg(`submit_list:${i}`) }));

  const tensors: TensorRow[] = l.tensor_desc_list.map((t, i) => {
    const flags = l.memory_list[t.mem_id]?.flags ?? 0;
    return {
      index: i,
      entry: t,
      kind: flags & 4 ? 'input' : flags & 8 ? 'output' : t.id === 0 ? 'input' : 'output',
      format: enumName(DATA_FORMAT, t.data_format),
      type: enumName(DATA_TYPE, t.data_type),
      category: enumName(DATA_CATEGORY, t.data_category),
      pixelFormat: enumName(PIXEL_FORMAT, t.pixel_format),
      pixelMapping: enumName(PIXEL_MAPPING, t.pixel_mapping),
      damage: dmg(`tensor_desc_list:${i}`),
    };
  });

  const refs = allDescriptors(d);
  const relocs: RelocRow[] = l.reloc_list.map((x, i) => {
    const a = l.address_list[x.address_id];
    const at = blobAtMemory(l, x.write_id, x.offset);
    let target = `memory ${x.write_id} + ${x.offset}`;
    if (at) {
      target += ` (blob "${at.blob}" + ${at.blobOffset})`;
      const hit = descriptorAt(refs, at.blob, at.blobOffset);
      if (hit) target += `: ${refLabel(hit.ref)}${hit.field ? `.${hit.field}` : ''}`;
    }
    return {
      index: i,
      entry: x,
      type: enumName(RELOC_TYPE, x.reloc_type),
      interfaceName: enumName(INTERFACE, x.interface),
      subInterface: subInterfaceName(x.interface, x.sub_interface),
      address: a ? `address ${x.address_id} -> ${memoryLabel(l, a.mem_id)} + ${a.offset}` : `address ${x.address_id} (past the address list)`,
      target,
      damage: dmg(`reloc_list:${i}`),
    };
  });

  const usedBy = new Map<string, string[]>();
  const use = (blob: string, text: string) => {
    const list = usedBy.get(blob) ?? [];
    if (!list.includes(text)) list.push(text);
    usedBy.set(blob, list);
  };
  const operandBlobs = new Set<string>();
  const descriptorBlobs = new Set<string>();
  const lutBlobs = new Set<string>();
  for (const r of refs) if (r.struct.blob) (r.role.startsWith('lut') ? lutBlobs : descriptorBlobs).add(r.struct.blob);
  for (const t of d.tasks) for (const x of t.lists) if (x.location.blob) use(x.location.blob, `task ${t.index} ${x.role}`);
  for (const op of ops) {
    for (const u of op.surfaces) {
      if (!u.location?.blob) continue;
      use(u.location.blob, `task ${op.task} ${op.engine === 'EMU' ? 'op' : 'slot'} ${op.slot} ${op.engine} ${u.name} (${u.role})`);
      if (OPERANDS.has(u.name)) operandBlobs.add(u.location.blob);
    }
  }
  const blobs: BlobRow[] = l.blobs.map((b, i) => {
    const placedAt: BlobRow['placedAt'] = [];
    l.memory_list.forEach((m, memId) => m.contents.forEach((c, k) => c === b.name && placedAt.push({ memId, offset: m.offsets[k] ?? 0 })));
    const users = usedBy.get(b.name) ?? [];
    const kind: BlobKind = lutBlobs.has(b.name)
      ? 'lut'
      : descriptorBlobs.has(b.name) || d.tasks.some((t) => t.lists.some((x) => x.location.blob === b.name))
        ? 'descriptors'
        : !placedAt.length
          ? 'unplaced'
          : operandBlobs.has(b.name)
            ? 'weights'
            : users.length
              ? 'data'
              : 'unread';
    return {
      index: i,
      name: b.name,
      size: b.size,
      dataLength: b.data.length,
      interfaceName: enumName(INTERFACE, b.interface),
      subInterface: subInterfaceName(b.interface, b.sub_interface),
      version: versionText(b.version),
      placedAt,
      kind,
      usedBy: users,
      damage: dmg(`blobs:${i}`),
    };
  });

  return {
    file: l.file,
    size: l.size,
    version: versionText(l.version),
    identifier: l.identifier,
    firmware: d.firmware,
    tasks,
    memory,
    addresses,
    events,
    submits,
    tensors,
    relocs,
    blobs,
    damage: d.damage.map((x) => ({ kind: x.kind, path: x.path, ...(x.offset !== undefined ? { offset: x.offset } : {}), message: x.message })),
  };
}

// ---- one slot ---------------------------------------------------------------------------------------

function lutParams(s: DecodedStruct): { name: string; value: string }[] {
  const out: { name: string; value: string }[] = [];
  for (const { path, field } of leaves(s.fields)) {
    if (/^linear_(exp|only)_table\./.test(path) || /reserved/.test(path)) continue;
    out.push({ name: path, value: field.missing ? '(missing)' : field.enumName ? `${scalarText(field)} (${field.enumName})` : scalarText(field) });
  }
  return out;
}

export function lutCurve(s: DecodedStruct, label: string, index: number): LutCurve {
  const table = (name: string) => (member(s, name)?.fields ?? []).filter((x) => !x.missing).map((x) => x.value ?? 0);
  return { label, index, method: en(s, 'method'), linearExp: table('linear_exp_table'), linearOnly: table('linear_only_table'), params: lutParams(s) };
}

export function slotViewOf(d: DecodedLoadable, node: number): SlotView | null {
  const ops = allOps(d);
  const op = ops[node];
  if (!op) return null;
  const l = d.loadable;
  const task = d.tasks[op.task]!;
  const isEmu = op.engine === 'EMU';
  const base = `task[${op.task}].${isEmu ? 'op' : 'slot'}[${op.slot}]`;
  const fd = fieldDamage(d);
  const surfaces = op.surfaces.map((u) => surfaceView(l, u));
  // cube members say where their address leads (`transfers.0.source` for BDMA)
  const resolves = new Map<string, string>();
  for (const u of surfaces) {
    const key = u.name.replace(/\.(source|destination)$/, '');
    const text = `${u.role} ${u.size} bytes: ${u.text}`;
    resolves.set(key, resolves.has(key) ? `${resolves.get(key)!}; ${text}` : text);
  }
  const descriptors: StructView[] = [];
  if (isEmu) {
    const e = op as EmuOp;
    descriptors.push(structView(e.op, 'op', `${base}`, fd));
    if (e.buffers) descriptors.push(structView(e.buffers, 'buffers', `${base}.buffers`, fd, resolves));
  } else {
    const s = op as OpSlot;
    descriptors.push(structView(s.common, 'common', `${base}.common`, fd));
    if (s.op) descriptors.push(structView(s.op, 'op', `${base}.op`, fd));
    if (s.surface) descriptors.push(structView(s.surface, 'surface', `${base}.surface`, fd, resolves));
  }
  let lut: SlotView['lut'] = null;
  if (!isEmu && (op as OpSlot).lut !== null && task.kind === 'DLA') {
    const li = (op as OpSlot).lut!;
    const p = task.luts[li];
    lut = { index: li, param: p ? structView(p, `lut[${li}]`, `task[${op.task}].lut[${li}]`, fd) : null, curve: p ? lutCurve(p, `task ${op.task} lut[${li}]`, li) : null };
  }
  const prefix = `${base}`;
  const s = op as OpSlot;
  return {
    node,
    task: op.task,
    slot: op.slot,
    engine: op.engine,
    type: isEmu ? `EMU ${(op as EmuOp).opName}` : op.engine,
    summary: opSummary(op),
    firmware: task.kind === 'DLA' ? task.firmware : null,
    layoutNote: task.kind === 'other' ? '' : task.layoutNote,
    dependencyCount: isEmu ? null : s.dependencyCount,
    consumers: isEmu ? [] : s.consumers.map((c) => ({ engine: c.engine, slot: c.slot, event: c.eventName })),
    fusedParent: isEmu || !s.fusedParent ? null : { slot: s.fusedParent.slot, event: s.fusedParent.eventName },
    descriptors,
    surfaces,
    lut,
    damage: d.damage
      .filter((x) => x.path === prefix || x.path.startsWith(`${prefix}.`))
      .map((x) => ({ kind: x.kind, path: x.path, ...(x.offset !== undefined ? { offset: x.offset } : {}), message: x.message })),
  };
}

// ---- blobs ------------------------------------------------------------------------------------------

export function blobDetailOf(d: DecodedLoadable, index: number): BlobDetail | null {
  const b = d.loadable.blobs[index];
  if (!b) return null;
  const ops = allOps(d);
  const nodeOf = new Map(ops.map((op, i) => [`${op.task}:${op.slot}`, i]));
  const ranges = allDescriptors(d)
    .filter((r) => r.struct.blob === b.name)
    .map((r) => ({ offset: r.struct.offset, size: r.struct.size, label: refLabel(r), node: r.slot === null ? null : (nodeOf.get(`${r.task}:${r.slot}`) ?? null) }))
    .sort((x, y) => x.offset - y.offset || x.size - y.size);
  const luts: LutCurve[] = [];
  for (const t of d.tasks) if (t.kind === 'DLA') t.luts.forEach((s, i) => s.blob === b.name && luts.push(lutCurve(s, `task ${t.index} lut[${i}]`, i)));
  const lists = d.tasks.flatMap((t) => t.lists.filter((x) => x.location.blob === b.name).map((x) => `task ${t.index} ${x.role}`));
  let plot: BlobPlot;
  if (luts.length) plot = { kind: 'lut', curves: luts };
  else if (ranges.length || lists.length) {
    const what = lists.length ? lists.join(', ') : 'descriptors';
    plot = { kind: 'none', reason: `holds ${what}${ranges.length ? '' : ' (no entry decoded from it)'}: its fields are in the op slots` };
  }
  else if (b.data.length === 0) plot = { kind: 'none', reason: 'the blob holds no data' };
  else {
    const how = blobElement(d, b.name);
    plot = how.element ? histogram(b.data, how.element, how.reason) : histogram(b.data, 'uint8', `${how.reason}: bytes as uint8`);
  }
  return { index, name: b.name, ranges, plot };
}

/** Bytes of a blob from `offset`, at most `length` (and at most 1 MiB): a copy of that window only. */
export function blobWindow(d: DecodedLoadable, index: number, offset: number, length: number): Uint8Array {
  const b = d.loadable.blobs[index];
  if (!b) return new Uint8Array(0);
  const from = Math.max(0, Math.min(b.data.length, Math.floor(offset)));
  const to = Math.min(b.data.length, from + Math.max(0, Math.min(1 << 20, Math.floor(length))));
  return b.data.slice(from, to);
}
