/**
 * What `npu-studio inspect X.nvdla` prints: the JSON summary (`inspectJson`) and, with
 * `--dump`, every list entry and decoded descriptor as text, one field a line (`dumpText`).
 * Core functions so the CLI's inspect (and anything else) can call them without knowing the
 * format's insides.
 */
import type { Loadable } from './model';
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
  type EnumTable,
} from './names';
import { formatScalar, leaves, type DecodedStruct } from './structs';
import { decodeTasks, type DecodedLoadable, type SurfaceUse } from './tasks';
import { read } from './read';

export interface InspectTask {
  id: number;
  interface: string;
  /** op slots (DLA) or EMU ops */
  ops: number;
  /** op count per engine: CONV, SDP, PDP, CDP, RUBIK, BDMA; EMU tasks count `EMU` */
  engines: Record<string, number>;
  /** EMU tasks: op count per EMU op type (SOFTMAX, POWER) */
  operations?: Record<string, number>;
}

export interface InspectTensor {
  name: string;
  kind: 'input' | 'output';
  dims: [number, number, number, number];
  /** data format name (NCHW, NHWC, NCxHWx) or the number */
  format: string;
  type: string;
  pixel_format: string;
  size: number;
}

export interface InspectLoadableJson {
  format: 'nvdla';
  file: string;
  /** loadable version, e.g. `0.7.0` */
  version: string;
  identifier: string | null;
  /** firmware interface of the DLA tasks, e.g. `0.12`; null without DLA tasks */
  interface: string | null;
  tasks: InspectTask[];
  memory: number;
  addresses: number;
  events: number;
  submits: number;
  tensors: InspectTensor[];
  blobs: number;
  relocs: number;
  /** places that could not be read (0 for a sound file) */
  damage: number;
}

export function inspectJson(d: DecodedLoadable): InspectLoadableJson {
  const l = d.loadable;
  const tasks = d.tasks.map((t): InspectTask => {
    const engines: Record<string, number> = {};
    if (t.kind === 'DLA') {
      for (const s of t.slots) engines[s.engine] = (engines[s.engine] ?? 0) + 1;
      return { id: t.id, interface: t.interfaceName, ops: t.slots.length, engines };
    }
    if (t.kind === 'EMU') {
      const operations: Record<string, number> = {};
      for (const o of t.ops) operations[o.opName] = (operations[o.opName] ?? 0) + 1;
      if (t.ops.length) engines.EMU = t.ops.length;
      return { id: t.id, interface: t.interfaceName, ops: t.ops.length, engines, operations };
    }
    return { id: t.id, interface: t.interfaceName, ops: 0, engines };
  });
  const tensors: InspectTensor[] = [];
  for (const t of l.tensor_desc_list) {
    const flags = l.memory_list[t.mem_id]?.flags ?? 0;
    // bindable memory says which side it is on; without a flag, fall back to the tensor id order
    const kind: 'input' | 'output' = flags & 4 ? 'input' : flags & 8 ? 'output' : t.id === 0 ? 'input' : 'output';
    tensors.push({
      name: t.name,
      kind,
      dims: [t.n, t.c, t.h, t.w],
      format: enumName(DATA_FORMAT, t.data_format),
      type: enumName(DATA_TYPE, t.data_type),
      pixel_format: enumName(PIXEL_FORMAT, t.pixel_format),
      size: t.size,
    });
  }
  const v = l.version;
  return {
    format: 'nvdla',
    file: l.file,
    version: `${v.major}.${v.minor}.${v.sub_minor}`,
    identifier: l.identifier,
    interface: d.firmware,
    tasks,
    memory: l.memory_list.length,
    addresses: l.address_list.length,
    events: l.event_list.length,
    submits: l.submit_list.length,
    tensors,
    blobs: l.blobs.length,
    relocs: l.reloc_list.length,
    damage: d.damage.length,
  };
}

const named = (table: EnumTable, v: number) => (table[v] !== undefined ? `${v} (${table[v]})` : `${v} (?)`);
const list = (xs: readonly number[]) => `[${xs.join(', ')}]`;

function structLines(out: string[], prefix: string, s: DecodedStruct | null): void {
  if (!s) return;
  out.push(`${prefix} = ${s.struct} (blob ${s.blob === null ? "?" : JSON.stringify(s.blob)} offset ${s.offset}, ${s.size} bytes)${s.damage ? ` DAMAGED: ${s.damage}` : ''}`);
  for (const { path, field } of leaves(s.fields)) out.push(`${prefix}.${path} = ${formatScalar(field)}`);
}

function useLine(u: SurfaceUse, l: Loadable): string {
  const where = u.location
    ? `task address ${u.addressIndex} -> address ${u.location.address} -> memory ${u.location.memId} offset ${u.location.memOffset}` +
      (u.location.blob ? ` (blob "${u.location.blob}" + ${u.location.blobOffset})` : '') +
      (l.tensor_desc_list.find((t) => t.mem_id === u.location!.memId) ? ` (tensor "${l.tensor_desc_list.find((t) => t.mem_id === u.location!.memId)!.name}")` : '')
    : u.note ?? 'unresolved';
  return `${u.role} ${u.size} bytes: ${where}`;
}

/** Every list entry and decoded descriptor, one field a line (`path = value`). */
export function dumpText(d: DecodedLoadable): string {
  const l = d.loadable;
  const out: string[] = [];
  const v = l.version;
  out.push(`# ${l.file}: NVDLA loadable ${v.major}.${v.minor}.${v.sub_minor}, identifier ${l.identifier ?? '(none)'}, ${l.size} bytes`);
  out.push(`version = ${v.major}.${v.minor}.${v.sub_minor}`);
  out.push(`firmware_interface = ${d.firmware ?? '(no DLA task)'}`);

  out.push('', `# task_list (${l.task_list.length})`);
  l.task_list.forEach((t, i) => {
    const p = `task_list[${i}]`;
    out.push(`${p}.id = ${t.id}`, `${p}.interface = ${named(INTERFACE, t.interface)}`, `${p}.instance = ${t.instance}`);
    out.push(`${p}.address_list = ${list(t.address_list)}`, `${p}.pre_actions = ${list(t.pre_actions)}`, `${p}.post_actions = ${list(t.post_actions)}`);
  });

  for (const t of d.tasks) {
    const p = `task[${t.index}]`;
    out.push('', `# task ${t.index} (id ${t.id}, ${t.interfaceName})`);
    for (const ls of t.lists) {
      const loc = ls.location;
      out.push(`${p}.lists.${ls.role.replace(/ /g, '_')} = task address ${loc.taskAddress} -> address ${loc.address} -> memory ${loc.memId} offset ${loc.memOffset} (blob "${loc.blob}" + ${loc.blobOffset})`);
    }
    if (t.kind === 'DLA') {
      out.push(`${p}.layout = ${t.layoutNote}`);
      structLines(out, `${p}.network_desc`, t.network);
      for (const s of t.slots) {
        const sp = `${p}.slot[${s.slot}]`;
        const cons = s.consumers.map((c) => `${c.engine} ${c.slot} ${c.eventName}`).join(', ');
        out.push(`${sp} = ${s.engine}, dependency_count ${s.dependencyCount}, consumers [${cons}], fused_parent ${s.fusedParent ? `${s.fusedParent.slot} ${s.fusedParent.eventName}` : '-1'}`);
        structLines(out, `${sp}.common`, s.common);
        structLines(out, `${sp}.op`, s.op);
        structLines(out, `${sp}.surface`, s.surface);
        for (const u of s.surfaces) out.push(`${sp}.surface.${u.name} -> ${useLine(u, l)}`);
        if (s.lut !== null) out.push(`${sp}.lut = ${s.lut}`);
      }
      t.luts.forEach((lut, i) => structLines(out, `${p}.lut[${i}]`, lut));
    } else if (t.kind === 'EMU') {
      out.push(`${p}.layout = ${t.layoutNote}`);
      structLines(out, `${p}.network_desc`, t.network);
      for (const o of t.ops) {
        const sp = `${p}.op[${o.slot}]`;
        out.push(`${sp} = EMU ${o.opName}`);
        structLines(out, `${sp}.op`, o.op);
        structLines(out, `${sp}.buffers`, o.buffers);
        for (const u of o.surfaces) out.push(`${sp}.buffers.${u.name} -> ${useLine(u, l)}`);
      }
    }
  }

  out.push('', `# submit_list (${l.submit_list.length})`);
  l.submit_list.forEach((s, i) => out.push(`submit_list[${i}].id = ${s.id}`, `submit_list[${i}].task_id = ${list(s.task_id)}`));

  out.push('', `# event_list (${l.event_list.length})`);
  l.event_list.forEach((e, i) => {
    const p = `event_list[${i}]`;
    out.push(`${p}.id = ${e.id}`, `${p}.type = ${named(EVENT_TYPE, e.type)}`, `${p}.target = ${e.target}`, `${p}.val = ${e.val}`, `${p}.op = ${named(EVENT_OP, e.op)}`);
  });

  out.push('', `# memory_list (${l.memory_list.length})`);
  l.memory_list.forEach((m, i) => {
    const p = `memory_list[${i}]`;
    out.push(`${p}.id = ${m.id}`, `${p}.domain = ${named(MEMORY_DOMAIN, m.domain)}`, `${p}.flags = ${m.flags} (${memoryFlagsName(m.flags)})`);
    out.push(`${p}.size = ${m.size}`, `${p}.alignment = ${m.alignment}`, `${p}.bind_id = ${m.bind_id}`, `${p}.tensor_desc_id = ${m.tensor_desc_id}`);
    m.contents.forEach((c, k) => out.push(`${p}.contents[${k}] = ${JSON.stringify(c)} at offset ${m.offsets[k] ?? '(none)'}`));
  });

  out.push('', `# address_list (${l.address_list.length})`);
  l.address_list.forEach((a, i) => {
    const p = `address_list[${i}]`;
    out.push(`${p}.id = ${a.id}`, `${p}.mem_id = ${a.mem_id}`, `${p}.offset = ${a.offset}`, `${p}.size = ${a.size}`);
  });

  out.push('', `# tensor_desc_list (${l.tensor_desc_list.length})`);
  l.tensor_desc_list.forEach((t, i) => {
    const p = `tensor_desc_list[${i}]`;
    out.push(`${p}.name = ${JSON.stringify(t.name)}`, `${p}.id = ${t.id}`, `${p}.mem_id = ${t.mem_id}`, `${p}.size = ${t.size}`, `${p}.offset = ${t.offset}`);
    out.push(`${p}.data_format = ${named(DATA_FORMAT, t.data_format)}`, `${p}.data_type = ${named(DATA_TYPE, t.data_type)}`);
    out.push(`${p}.data_category = ${named(DATA_CATEGORY, t.data_category)}`, `${p}.pixel_format = ${named(PIXEL_FORMAT, t.pixel_format)}`);
    out.push(`${p}.pixel_mapping = ${named(PIXEL_MAPPING, t.pixel_mapping)}`, `${p}.nchw = ${t.n}x${t.c}x${t.h}x${t.w}`);
    out.push(`${p}.strides = ${list([t.stride_0, t.stride_1, t.stride_2, t.stride_3, t.stride_4, t.stride_5, t.stride_6, t.stride_7])}`);
  });

  out.push('', `# blobs (${l.blobs.length})`);
  l.blobs.forEach((b, i) => {
    const p = `blobs[${i}]`;
    out.push(`${p}.name = ${JSON.stringify(b.name)}`, `${p}.size = ${b.size}`, `${p}.interface = ${named(INTERFACE, b.interface)}`);
    out.push(`${p}.sub_interface = ${b.sub_interface} (${subInterfaceName(b.interface, b.sub_interface)})`, `${p}.version = ${b.version.major}.${b.version.minor}.${b.version.sub_minor}`);
  });

  out.push('', `# reloc_list (${l.reloc_list.length})`);
  l.reloc_list.forEach((r, i) => {
    const p = `reloc_list[${i}]`;
    out.push(`${p}.address_id = ${r.address_id}`, `${p}.write_id = ${r.write_id}`, `${p}.offset = ${r.offset}`);
    out.push(`${p}.interface = ${named(INTERFACE, r.interface)}`, `${p}.sub_interface = ${r.sub_interface} (${subInterfaceName(r.interface, r.sub_interface)})`, `${p}.reloc_type = ${named(RELOC_TYPE, r.reloc_type)}`);
  });

  out.push('', `# damage (${d.damage.length})`);
  for (const x of d.damage) out.push(`damage ${x.path || '(file)'}${x.offset !== undefined ? ` @${x.offset}` : ''} = ${x.kind}: ${x.message}`);
  return out.join('\n') + '\n';
}

/** `inspect X.nvdla --json` in one call: read, decode, summarise (never throws past the root). */
export function inspectLoadable(bytes: Uint8Array, file: string): InspectLoadableJson {
  return inspectJson(decodeTasks(read(bytes, file)));
}

/** `inspect X.nvdla --dump` in one call. */
export function dumpLoadable(bytes: Uint8Array, file: string): string {
  return dumpText(decodeTasks(read(bytes, file)));
}
