/**
 * What every engine model gets: the memory, the task and op slot it runs for (for errors), the
 * hardware configuration, the task's LUTs and the on-the-fly streams between fused engines
 * (CONV -> SDP, SDP -> PDP: data that never reaches memory, `dla_data_cube.type` HW).
 */
import type { TaskListEntry } from '../../loadable/model';
import type { DecodedStruct } from '../../loadable/structs';
import { valueOf } from '../../loadable/structs';
import type { Cube } from '../cube';
import { MEM_TYPE, featureExtent } from '../cube';
import { DlaExecError, type DlaPlace } from '../errors';
import type { DlaHardware } from '../hardware';
import type { DlaMemory, MemRef } from '../memory';
import type { ErrorKind } from '../../errors';
import type { DlaRunCache } from '../cache';

/** Values passed on the fly from one engine to the next, CHW. */
export interface Stream {
  channel: number;
  height: number;
  width: number;
  /** `int`: integers (CACC int32, SDP int8 / int16 out); `float`: fp32 (CACC) or fp16 values */
  kind: 'int' | 'float';
  /** the element precision as the consumer's descriptor names it (INT8 0, INT16 1, FP16 2) */
  precision: number;
  data: Float32Array | Float64Array;
}

/** What an engine produced, for the per-slot record (values in the surface's own domain). */
export interface EngineOutput {
  channel: number;
  height: number;
  width: number;
  /** INT8, INT16, FP16 surfaces; INT32 / FP32 for CONV's accumulator stream */
  precision: 'INT8' | 'INT16' | 'FP16' | 'INT32' | 'FP32';
  where: 'memory' | 'stream';
  data: Float32Array | Float64Array;
  /** values clipped by a saturation on the way out */
  saturated: number;
}

export interface EngineContext {
  file: string;
  mem: DlaMemory;
  task: TaskListEntry;
  taskIndex: number;
  place: DlaPlace;
  hw: DlaHardware;
  luts: DecodedStruct[];
  /** on-the-fly outputs by producer slot */
  streams: Map<number, Stream>;
  /** the slot this op's on-the-fly input comes from (`fused_parent`), -1 without */
  fusedParent: number;
  /** what runs of the same loadable share (decoded weights), null for a one-off run */
  cache: DlaRunCache | null;
}

export function fail(ctx: EngineContext, kind: ErrorKind, field: string | null, message: string): never {
  throw new DlaExecError(ctx.file, kind, ctx.place, field, message);
}

/** A numeric field of a descriptor; missing is a corrupt descriptor. */
export function num(ctx: EngineContext, s: DecodedStruct | null, path: string, role: string): number {
  const v = s ? valueOf(s, path) : undefined;
  if (v === undefined) fail(ctx, 'corrupt', `${role}.${path}`, 'the field could not be read');
  return v;
}

/** Resolves a cube in memory with its feature-data extent checked. */
export function featureRef(ctx: EngineContext, c: Cube, precision: number, field: string): MemRef {
  if (c.type === MEM_TYPE.HW) fail(ctx, 'corrupt', `surface.${field}.type`, 'the cube is on the fly (HW) where memory is needed');
  if (c.type !== MEM_TYPE.MC && c.type !== MEM_TYPE.CV) fail(ctx, 'unsupported', `surface.${field}.type`, `memory type ${c.type} is not MC (0), CV (1) or HW (2)`);
  if (c.width === 0 || c.height === 0 || c.channel === 0) fail(ctx, 'corrupt', `surface.${field}`, `the cube is ${c.width}x${c.height}x${c.channel}`);
  if (c.lineStride < c.width * ctx.hw.atomBytes && c.height > 1) {
    fail(ctx, 'corrupt', `surface.${field}.line_stride`, `line stride ${c.lineStride} is less than a line of ${c.width} atoms of ${ctx.hw.atomBytes} bytes`);
  }
  const per = ctx.hw.atomBytes / (precision === 0 ? 1 : 2);
  if (c.channel > per && c.surfStride < (c.height - 1) * c.lineStride + c.width * ctx.hw.atomBytes) {
    fail(ctx, 'corrupt', `surface.${field}.surf_stride`, `surface stride ${c.surfStride} is less than a surface of ${c.height} lines`);
  }
  return ctx.mem.resolve(ctx.task, ctx.taskIndex, c.address, c.offset, featureExtent(c, precision, ctx.hw.atomBytes), ctx.place, `surface.${field}.address`);
}

/** The stream a fused consumer reads, checked against its source cube. */
export function takeStream(ctx: EngineContext, c: Cube, field: string): Stream {
  if (ctx.fusedParent < 0) fail(ctx, 'corrupt', `surface.${field}.type`, 'the input is on the fly (HW) but the op has no fused parent');
  const s = ctx.streams.get(ctx.fusedParent);
  if (!s) fail(ctx, 'corrupt', `surface.${field}.type`, `the on-the-fly input from slot ${ctx.fusedParent} was not produced`);
  if (s.channel !== c.channel || s.height !== c.height || s.width !== c.width) {
    fail(ctx, 'corrupt', `surface.${field}`, `the cube is ${c.width}x${c.height}x${c.channel} but slot ${ctx.fusedParent} streams ${s.width}x${s.height}x${s.channel}`);
  }
  ctx.streams.delete(ctx.fusedParent);
  return s;
}

/** Two byte ranges of the same memory that overlap (an op writing what it reads). */
export function overlaps(a: MemRef, aSize: number, b: MemRef, bSize: number): boolean {
  return a.memId === b.memId && a.base < b.base + bSize && b.base < a.base + aSize;
}

/** A byte range an op reads, named by its descriptor field. */
export interface ReadRegion {
  ref: MemRef;
  size: number;
  field: string;
}

/** An op whose output overwrites what it reads is a hazard the hardware does not resolve. */
export function checkOverlap(ctx: EngineContext, dst: MemRef, dstSize: number, reads: ReadRegion[]): void {
  for (const r of reads) {
    if (overlaps(dst, dstSize, r.ref, r.size)) {
      fail(ctx, 'corrupt', 'surface.dst_data', `the output (memory ${dst.memId}, bytes ${dst.base}..${dst.base + dstSize}) overlaps ${r.field} (bytes ${r.ref.base}..${r.ref.base + r.size}), which the op reads while it writes`);
    }
  }
}
