/**
 * Test helpers for the DLA model (used by the `*.test.ts` beside it): descriptors written from
 * plain values through the same layout tables the reader decodes with, feature cubes laid out in
 * memory, and an engine context over a handful of buffers (address index i = buffer i, offset 0).
 */
import type { Loadable } from '../loadable/model';
import { DLA_LAYOUTS_0_12, SCALAR_BYTES, decodeStruct, type DecodedStruct, type FieldSpec, type ScalarType, type StructSpec } from '../loadable/structs';
import { channelsPerAtom, writeFeature, type Cube } from './cube';
import type { EngineContext, Stream } from './engines/context';
import { DLA_CONFIGS, type DlaConfigName } from './hardware';
import { DlaMemory, MEMORY_FLAGS } from './memory';

export interface StructValues {
  [field: string]: number | number[] | StructValues | StructValues[] | undefined;
}

function writeScalar(view: DataView, at: number, type: ScalarType, v: number): void {
  switch (type) {
    case 'u8':
    case 'i8':
      view.setUint8(at, v & 0xff);
      return;
    case 'u16':
    case 'i16':
      view.setUint16(at, v & 0xffff, true);
      return;
    case 'u32':
    case 'i32':
      view.setUint32(at, v >>> 0, true);
      return;
    case 'f32':
      view.setFloat32(at, v, true);
      return;
    case 'u64':
    case 'i64':
      view.setBigUint64(at, BigInt.asUintN(64, BigInt(v)), true);
  }
}

function writeOne(view: DataView, at: number, type: ScalarType | StructSpec, v: unknown): void {
  if (v === undefined) return;
  if (typeof type === 'string') {
    if (typeof v !== 'number') throw new TypeError(`a ${type} needs a number, not ${JSON.stringify(v)}`);
    writeScalar(view, at, type, v);
    return;
  }
  if (typeof v !== 'object' || v === null) throw new TypeError(`${type.name} needs an object`);
  writeFields(view, at, type, v as StructValues);
}

function writeField(view: DataView, base: number, f: FieldSpec, v: unknown): void {
  const at = base + f.offset;
  if (f.count === undefined) return writeOne(view, at, f.type, v);
  const size = typeof f.type === 'string' ? SCALAR_BYTES[f.type] : f.type.size;
  for (let i = 0; i < f.count; i++) {
    const item = Array.isArray(v) ? v[i] : (v as Record<string, unknown>)[f.labels?.[i] ?? String(i)];
    writeOne(view, at + i * size, f.type, item);
  }
}

function writeFields(view: DataView, base: number, spec: StructSpec, values: StructValues): void {
  for (const name of Object.keys(values)) {
    const f = spec.fields.find((x) => x.name === name);
    if (!f) throw new RangeError(`${spec.name} has no field ${name}`);
    writeField(view, base, f, values[name]);
  }
}

/** The bytes of `spec` with the given fields set (others 0). */
export function encodeStruct(spec: StructSpec, values: StructValues): Uint8Array {
  const bytes = new Uint8Array(spec.size);
  writeFields(new DataView(bytes.buffer), 0, spec, values);
  return bytes;
}

/** A decoded descriptor, as the loadable reader would give it. */
export function descriptor(spec: StructSpec, values: StructValues): DecodedStruct {
  return decodeStruct(spec, encodeStruct(spec, values), 0, 'test');
}

/** Firmware 0.12 op and surface descriptors of an engine (BDMA 0, CONV 1, SDP 2, PDP 3, CDP 4, RUBIK 5). */
export function opDesc(engine: number, values: StructValues): DecodedStruct {
  return descriptor(DLA_LAYOUTS_0_12.op[engine]!, values);
}

export function surfaceDesc(engine: number, values: StructValues): DecodedStruct {
  return descriptor(DLA_LAYOUTS_0_12.surface[engine]!, values);
}

/** Line and surface strides of a dense feature cube. */
export function featureStrides(width: number, height: number, atomBytes: number): { lineStride: number; surfStride: number } {
  return { lineStride: width * atomBytes, surfStride: width * height * atomBytes };
}

/** A dense feature cube's descriptor values at address index `address`. */
export function featureCube(address: number, channel: number, height: number, width: number, precision: number, atomBytes: number, type = 0): StructValues {
  const { lineStride, surfStride } = featureStrides(width, height, atomBytes);
  const surfaces = Math.ceil(channel / channelsPerAtom(precision, atomBytes));
  return { type, address, offset: 0, size: surfaces * surfStride, width, height, channel, line_stride: lineStride, surf_stride: surfStride };
}

/** CHW values written as a dense feature cube (the bytes the engines read). */
export function featureBytes(values: ArrayLike<number>, channel: number, height: number, width: number, precision: number, atomBytes: number): Uint8Array {
  const { lineStride, surfStride } = featureStrides(width, height, atomBytes);
  const surfaces = Math.ceil(channel / channelsPerAtom(precision, atomBytes));
  const buf = new Uint8Array(surfaces * surfStride);
  const cube: Cube = { type: 0, address: 0, offset: 0, size: buf.length, width, height, channel, lineStride, surfStride, planeStride: 0 };
  writeFeature({ memId: 0, buf, base: 0 }, cube, precision, atomBytes, values);
  return buf;
}

/** A loadable with one memory entry per buffer and one address each (offset 0). */
export function bufferLoadable(sizes: number[]): Loadable {
  return {
    file: 'test.nvdla',
    size: 0,
    identifier: 'NVDA',
    version: { major: 0, minor: 7, sub_minor: 0 },
    task_list: [{ id: 0, interface: 1, instance: 0, address_list: sizes.map((_, i) => i), pre_actions: [], post_actions: [] }],
    memory_list: sizes.map((size, id) => ({ id, domain: 0, flags: MEMORY_FLAGS.ALLOC, size, alignment: 4096, contents: [], offsets: [], bind_id: 0, tensor_desc_id: 0 })),
    address_list: sizes.map((size, id) => ({ id, mem_id: id, offset: 0, size })),
    event_list: [],
    blobs: [],
    tensor_desc_list: [],
    reloc_list: [],
    submit_list: [],
    damage: [],
  };
}

export interface TestContextOptions {
  hw?: DlaConfigName;
  luts?: DecodedStruct[];
  streams?: Map<number, Stream>;
  fusedParent?: number;
  /** the place errors name (default task 0, slot 0) */
  slot?: number;
  engine?: string;
}

/** An engine context over `buffers` (address index i is buffer i); the engines write into the returned memory. */
export function testContext(buffers: Uint8Array[], options: TestContextOptions = {}): EngineContext {
  const loadable = bufferLoadable(buffers.map((b) => b.length));
  const mem = new DlaMemory(loadable, loadable.file);
  buffers.forEach((b, i) => mem.buffers[i]!.set(b));
  return {
    file: loadable.file,
    mem,
    task: loadable.task_list[0]!,
    taskIndex: 0,
    place: { task: 0, kind: 'DLA', slot: options.slot ?? 0, engine: options.engine ?? 'TEST' },
    hw: DLA_CONFIGS[options.hw ?? 'nv_full'],
    luts: options.luts ?? [],
    streams: options.streams ?? new Map(),
    fusedParent: options.fusedParent ?? -1,
    cache: null,
  };
}
