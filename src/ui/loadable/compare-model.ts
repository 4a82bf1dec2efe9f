/**
 * Reading a loadable comparison (`LoadableDiff`, notes/nvdla.md section 13) for the compare
 * view, DOM-free: which rows and fields of a list differ, which op slots have differing
 * descriptor fields (and which fields, with both values), and the list columns both sides show.
 */
import type { Difference, LoadableDiff, LoadableOverview, SectionDiff } from '../../worker/api';

export type ListSection = 'task_list' | 'submit_list' | 'event_list' | 'memory_list' | 'address_list' | 'tensor_desc_list' | 'reloc_list';

export const LIST_COLUMNS: Record<ListSection, string[]> = {
  task_list: ['id', 'interface', 'instance', 'address_list', 'pre_actions', 'post_actions'],
  submit_list: ['id', 'task_id'],
  event_list: ['id', 'op', 'target', 'val'],
  memory_list: ['id', 'domain', 'flags', 'size', 'alignment', 'bind_id', 'tensor_desc_id', 'contents'],
  address_list: ['id', 'mem_id', 'offset', 'size'],
  tensor_desc_list: [
    'name', 'id', 'mem_id', 'size', 'offset', 'data_format', 'data_type', 'data_category', 'pixel_format', 'pixel_mapping',
    'n', 'c', 'h', 'w', 'stride_0', 'stride_1', 'stride_2', 'stride_3', 'stride_4', 'stride_5', 'stride_6', 'stride_7',
  ],
  reloc_list: ['address_id', 'write_id', 'offset', 'interface', 'sub_interface', 'reloc_type'],
};

export const SECTION_TITLES: Record<SectionDiff['section'], string> = {
  readability: 'Readability',
  version: 'Version',
  task_list: 'Tasks',
  submit_list: 'Submits',
  event_list: 'Events',
  memory_list: 'Memory',
  address_list: 'Addresses',
  tensor_desc_list: 'Tensor descs',
  reloc_list: 'Relocs',
  blobs: 'Blobs and descriptors',
};

export function isListSection(s: string): s is ListSection {
  return s in LIST_COLUMNS;
}

/** Per row index, the fields that differ (`*` for a row on one side only); `length` when the lists differ in length. */
export function differingCells(section: SectionDiff): { rows: Map<number, Set<string>>; length: boolean } {
  const rows = new Map<number, Set<string>>();
  let length = false;
  for (const d of section.differences) {
    if (d.path === `${section.section}.length`) {
      length = true;
      continue;
    }
    const m = /^\w+\[(\d+)\](?:\.(\w+))?/.exec(d.path);
    if (!m) continue;
    const i = Number(m[1]);
    const set = rows.get(i) ?? new Set<string>();
    set.add(m[2] ?? '*');
    rows.set(i, set);
  }
  return { rows, length };
}

/** A list entry's cell text, from either side's overview. */
export function cellText(o: LoadableOverview, section: ListSection, index: number, column: string): string | null {
  const json = (v: unknown) => (Array.isArray(v) ? `[${v.join(', ')}]` : String(v));
  switch (section) {
    case 'task_list': {
      const t = o.tasks[index];
      if (!t) return null;
      const v: Record<string, unknown> = {
        id: t.id,
        interface: t.interfaceName,
        instance: t.instance,
        address_list: t.addressList,
        pre_actions: t.preActions.map((a) => a.event),
        post_actions: t.postActions.map((a) => a.event),
      };
      return json(v[column]);
    }
    case 'submit_list': {
      const s = o.submits[index];
      return s ? json((s.entry as unknown as Record<string, unknown>)[column]) : null;
    }
    case 'event_list': {
      const e = o.events[index];
      if (!e) return null;
      return column === 'op' ? e.op : json((e.entry as unknown as Record<string, unknown>)[column]);
    }
    case 'memory_list': {
      const m = o.memory[index];
      if (!m) return null;
      if (column === 'contents') return m.contents.map((c) => `${c.name}@${c.offset ?? '?'}`).sort().join(', ');
      if (column === 'flags') return m.flags;
      if (column === 'domain') return m.domain;
      return json((m.entry as unknown as Record<string, unknown>)[column]);
    }
    case 'address_list': {
      const a = o.addresses[index];
      return a ? json((a.entry as unknown as Record<string, unknown>)[column]) : null;
    }
    case 'tensor_desc_list': {
      const t = o.tensors[index];
      if (!t) return null;
      const named: Record<string, string> = { data_format: t.format, data_type: t.type, data_category: t.category, pixel_format: t.pixelFormat, pixel_mapping: t.pixelMapping };
      return named[column] ?? json((t.entry as unknown as Record<string, unknown>)[column]);
    }
    case 'reloc_list': {
      const r = o.relocs[index];
      if (!r) return null;
      if (column === 'reloc_type') return r.type;
      if (column === 'interface') return r.interfaceName;
      if (column === 'sub_interface') return r.subInterface;
      return json((r.entry as unknown as Record<string, unknown>)[column]);
    }
  }
}

export interface SlotDiff {
  task: number;
  slot: number;
  engine: string;
  /** role (`common`, `op`, `surface`, `buffers`) -> field path -> both values */
  fields: Map<string, Map<string, { a: string | null; b: string | null }>>;
  count: number;
}

/** Descriptor differences of op slots, by `task:slot`; the other blob differences apart. */
export function slotDiffs(diff: LoadableDiff): { slots: Map<string, SlotDiff>; other: Difference[] } {
  const slots = new Map<string, SlotDiff>();
  const other: Difference[] = [];
  const blobs = diff.sections.find((s) => s.section === 'blobs');
  for (const d of blobs?.differences ?? []) {
    const x = d.descriptor;
    if (!x || x.slot === null) {
      other.push(d);
      continue;
    }
    const key = `${x.task}:${x.slot}`;
    let s = slots.get(key);
    if (!s) slots.set(key, (s = { task: x.task, slot: x.slot, engine: x.engine ?? '?', fields: new Map(), count: 0 }));
    let role = s.fields.get(x.role);
    if (!role) s.fields.set(x.role, (role = new Map()));
    role.set(x.field, { a: d.a, b: d.b });
    s.count++;
  }
  return { slots, other };
}
