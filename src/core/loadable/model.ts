/**
 * The NVDLA loadable as read from a file: the FlatBuffers lists of `schemas/loadable.fbs`,
 * field for field, with the schema's own (snake_case) names so tables, dumps and diff paths
 * say what flatc says. Plain data except blob `data`, which is a view into the file.
 *
 * A damaged file still gives a `Loadable`: what could not be read takes its schema default and
 * is listed in `damage` with its path, byte offset and a sentence saying why.
 */
import type { ErrorKind } from '../errors';

export interface LoadableVersion {
  major: number;
  minor: number;
  sub_minor: number;
}

export interface TaskListEntry {
  id: number;
  /** Interface enum: NONE 0, DLA1 1, EMU1 2 */
  interface: number;
  instance: number;
  address_list: number[];
  pre_actions: number[];
  post_actions: number[];
}

export interface SubmitListEntry {
  id: number;
  task_id: number[];
}

export interface MemoryListEntry {
  id: number;
  /** MemoryDomain: SYSTEM 0, SRAM 1 */
  domain: number;
  /** MemoryFlags, OR-ed: ALLOC 1, SET 2, INPUT 4, OUTPUT 8 (DEBUG 16 in the C API) */
  flags: number;
  size: number;
  alignment: number;
  contents: string[];
  offsets: number[];
  bind_id: number;
  tensor_desc_id: number;
}

export interface AddressListEntry {
  id: number;
  mem_id: number;
  offset: number;
  size: number;
}

export interface EventListEntry {
  id: number;
  /** EventType: never written by the compiler (always 0) */
  type: number;
  target: number;
  val: number;
  /** EventOp: WAIT 0, SIGNAL 1 */
  op: number;
}

export interface BlobEntry {
  name: string;
  size: number;
  interface: number;
  sub_interface: number;
  version: LoadableVersion;
  /** a view into the file (never copied) */
  data: Uint8Array;
}

export interface TensorDescListEntry {
  name: string;
  id: number;
  mem_id: number;
  size: number;
  offset: number;
  data_format: number;
  data_type: number;
  data_category: number;
  pixel_format: number;
  pixel_mapping: number;
  n: number;
  c: number;
  h: number;
  w: number;
  stride_0: number;
  stride_1: number;
  stride_2: number;
  stride_3: number;
  stride_4: number;
  stride_5: number;
  stride_6: number;
  stride_7: number;
}

export interface RelocListEntry {
  address_id: number;
  write_id: number;
  offset: number;
  interface: number;
  sub_interface: number;
  reloc_type: number;
}

/** Something in the file that could not be read, and why. */
export interface Damage {
  kind: ErrorKind;
  /** where in the structure, e.g. `memory_list[3].contents[1]` or `task[0].slot[4].surface` */
  path: string;
  /** byte offset in the file, when the damage is at a known place */
  offset?: number;
  message: string;
}

export interface Loadable {
  file: string;
  /** file size in bytes */
  size: number;
  /** the 4 bytes at 4..8 when they are `NVDA`, else null (KMD regression files have none) */
  identifier: string | null;
  version: LoadableVersion;
  task_list: TaskListEntry[];
  memory_list: MemoryListEntry[];
  address_list: AddressListEntry[];
  event_list: EventListEntry[];
  blobs: BlobEntry[];
  tensor_desc_list: TensorDescListEntry[];
  reloc_list: RelocListEntry[];
  submit_list: SubmitListEntry[];
  /** what could not be read (empty for a sound file) */
  damage: Damage[];
}

/** The list fields of `Loadable`, in schema order. */
export const LIST_NAMES = [
  'task_list',
  'memory_list',
  'address_list',
  'event_list',
  'blobs',
  'tensor_desc_list',
  'reloc_list',
  'submit_list',
] as const;
export type ListName = (typeof LIST_NAMES)[number];
