/**
 * Runs a loadable on the functional model of the DLA: the memory the runtime sets up, the tasks
 * in submit-list order (a task's pre-action WAIT events must have been signalled by the tasks
 * before it, its post-action SIGNALs then fire), DLA tasks through the firmware scheduler model
 * (scheduler.ts) with each op computed by its engine model (engines/), EMU tasks op by op on the
 * CPU emulator model.
 *
 * Results are plain, structured-clone-safe data: the bytes of every output tensor, and per op
 * slot what it produced (shape, precision, values in the surface's own domain) when asked. A
 * progress callback runs after each op slot (it may return a Promise, so a worker can yield and
 * take a cancel), and `signal.aborted` is checked before each op slot.
 */
import { FormatError } from '../errors';
import type { Kernels } from '../kernels/kernels';
import type { Loadable } from '../loadable/model';
import { DLA_ENGINES } from '../loadable/names';
import { valueOf } from '../loadable/structs';
import { decodeTasks, type DecodedLoadable, type DlaTask, type EmuTask } from '../loadable/tasks';
import { MEM_TYPE, cubeOf } from './cube';
import type { EngineContext, EngineOutput, Stream } from './engines/context';
import { runBdma } from './engines/bdma';
import { runCdp } from './engines/cdp';
import { runConv } from './engines/conv';
import { runEmu } from './engines/emu';
import { runPdp } from './engines/pdp';
import { runRubik } from './engines/rubik';
import { runSdp } from './engines/sdp';
import { DlaExecError, dlaWarning, type DlaPlace, type DlaWarning } from './errors';
import { DLA_CONFIGS, inferHardware, type DlaConfigName, type DlaHardware } from './hardware';
import { DlaMemory, type BindableTensor } from './memory';
import { DeadlockError, ScheduleError, schedule, type SchedOp } from './scheduler';
import { DlaRunCache } from './cache';

export { DlaRunCache };

/** An input tensor's bytes, already in the loadable's tensor format (see input.ts). */
export interface BoundInput {
  /** bind id of the INPUT memory entry (the runtime's input index) */
  bindId: number;
  bytes: Uint8Array;
}

export interface DlaRunProgress {
  /** op slots and EMU ops done */
  done: number;
  total: number;
  task: number;
  slot: number;
  engine: string;
  ms: number;
}

export interface DlaRunOptions {
  /** shared by the runs of one loadable (ignored for another loadable) */
  cache?: DlaRunCache;
  inputs: BoundInput[];
  /** the configuration compiled for; inferred from the loadable when absent */
  hardware?: DlaConfigName;
  /** float kernels for fp16 convolutions (faster; int8 always sums exactly in TypeScript) */
  kernels?: Kernels;
  /** keep every op slot's output values (default true) */
  captureSurfaces?: boolean;
  onProgress?: (p: DlaRunProgress) => void | Promise<void>;
  signal?: { readonly aborted: boolean };
  now?: () => number;
}

/** One op slot (or EMU op) as it ran. */
export interface SlotRun {
  task: number;
  /** `DLA` or `EMU` */
  kind: 'DLA' | 'EMU';
  slot: number;
  engine: string;
  /** position in the run (0-based, across tasks) */
  order: number;
  ms: number;
  output: {
    channel: number;
    height: number;
    width: number;
    precision: EngineOutput['precision'];
    where: 'memory' | 'stream';
    /** CHW values in the surface's domain (int8 / int16 integers, fp16 values, CACC int32 / fp32); present when surfaces are captured */
    values: Float32Array | null;
    saturated: number;
    /**
     * where a DLA op wrote its surface (SDP, PDP, CDP to memory): the memory entry, the byte
     * offset of its first element and its strides. Bands of one split layer write the same
     * surface at offsets a whole number of lines apart (compare.ts stitches them by this).
     */
    place?: SurfacePlace;
  } | null;
  /** LUT use (SDP): hits per table and out-of-range samples */
  lut?: { le: number; lo: number; underflow: number; overflow: number };
  /** BDMA: bytes copied */
  bytes?: number;
}

/** A feature surface in memory: entry, byte offset of element (0, 0, 0), line and surface strides in bytes. */
export interface SurfacePlace {
  memId: number;
  offset: number;
  lineStride: number;
  surfStride: number;
}

export interface OutputTensor {
  bindId: number;
  memId: number;
  name: string;
  /** the tensor descriptor as plain data (dims, formats, strides) */
  desc: BindableTensor['desc'];
  bytes: Uint8Array;
}

export interface DlaRunResult {
  file: string;
  hardware: DlaHardware;
  hardwareReason: string;
  slots: SlotRun[];
  /** per task: completion order of its op slots, and the scheduler's steps */
  tasks: { index: number; kind: 'DLA' | 'EMU' | 'other'; order: number[]; steps: { kind: string; slot: number; group: number }[] }[];
  outputs: OutputTensor[];
  warnings: DlaWarning[];
  totalMs: number;
}

function cancelled(file: string, what: string): FormatError {
  return new FormatError({ kind: 'cancelled', file, message: `the run was cancelled before ${what}` });
}

/** Runs a loadable (already read with `loadable/read`). */
export async function runLoadable(loadable: Loadable, options: DlaRunOptions): Promise<DlaRunResult> {
  const file = loadable.file;
  const now = options.now ?? Date.now;
  const start = now();
  const cache = options.cache && options.cache.loadable === loadable ? options.cache : null;
  const decoded = cache?.decoded ?? decodeTasks(loadable);
  if (cache) cache.decoded = decoded;
  const blocking = decoded.damage.filter((d) => d.kind !== 'limit');
  if (blocking.length) {
    const d = blocking[0]!;
    throw new FormatError({ kind: d.kind === 'unsupported' ? 'unsupported' : 'corrupt', file, path: d.path, message: `the loadable cannot run: ${d.message}${blocking.length > 1 ? ` (and ${blocking.length - 1} more problems)` : ''}` });
  }
  const inferred = cache?.inferred ?? inferHardware(decoded);
  if (cache) cache.inferred = inferred;
  const hardware = options.hardware ? DLA_CONFIGS[options.hardware] : inferred.hardware;
  const hardwareReason = options.hardware ? `given: ${options.hardware}` : inferred.reason;
  const mem = new DlaMemory(loadable, file, cache?.images);
  const warnings: DlaWarning[] = [];
  bindInputs(mem, options.inputs, file, warnings);
  mem.applyRelocations();
  const capture = options.captureSurfaces ?? true;
  const total = decoded.tasks.reduce((n, t) => n + (t.kind === 'DLA' ? t.slots.length : t.kind === 'EMU' ? t.ops.length : 0), 0);
  const slots: SlotRun[] = [];
  const tasks: DlaRunResult['tasks'] = [];
  const events = new Map<number, number>(); // event target -> value signalled
  const order = loadable.submit_list.length ? loadable.submit_list.flatMap((s) => s.task_id) : loadable.task_list.map((_, i) => i);
  for (const taskId of order) {
    const t = decoded.tasks.find((x) => x.id === taskId) ?? decoded.tasks[taskId];
    if (!t) throw new DlaExecError(file, 'corrupt', null, null, `the submit list names task ${taskId}, which the task list does not have`);
    const entry = loadable.task_list[t.index]!;
    for (const a of entry.pre_actions) {
      const e = loadable.event_list[a];
      if (!e) throw new DlaExecError(file, 'corrupt', { task: t.index, kind: t.kind }, `pre_actions`, `event ${a} is past the event list`);
      if (e.op === 0 && (events.get(e.target) ?? 0) < e.val) {
        throw new DlaExecError(file, 'corrupt', { task: t.index, kind: t.kind }, 'pre_actions', `deadlock: the task waits for event ${a} (target ${e.target} >= ${e.val}), which no task before it signals`);
      }
    }
    if (t.kind === 'DLA') tasks.push(await runDlaTask(t, decoded, mem, hardware, options, slots, total, capture, file, now, warnings, cache));
    else if (t.kind === 'EMU') tasks.push(await runEmuTask(t, mem, hardware, options, slots, total, capture, file, now));
    else throw new DlaExecError(file, 'unsupported', { task: t.index, kind: t.interfaceName }, 'interface', `interface ${t.interface} is neither DLA1 nor EMU1`);
    for (const a of entry.post_actions) {
      const e = loadable.event_list[a];
      if (!e) throw new DlaExecError(file, 'corrupt', { task: t.index, kind: t.kind }, 'post_actions', `event ${a} is past the event list`);
      if (e.op === 1) events.set(e.target, Math.max(events.get(e.target) ?? 0, e.val));
    }
  }
  const outputs: OutputTensor[] = mem.bindable
    .filter((b) => b.kind === 'output')
    .map((b) => ({ bindId: b.bindId, memId: b.memId, name: b.desc?.name ?? `output ${b.bindId}`, desc: b.desc, bytes: mem.tensorBytes(b).slice() }));
  return { file, hardware, hardwareReason, slots, tasks, outputs, warnings, totalMs: now() - start };
}

function bindInputs(mem: DlaMemory, inputs: BoundInput[], file: string, warnings: DlaWarning[]): void {
  for (const b of mem.bindable.filter((x) => x.kind === 'input')) {
    const given = inputs.find((i) => i.bindId === b.bindId);
    const dst = mem.tensorBytes(b);
    if (!given) {
      warnings.push(dlaWarning(null, null, `input ${b.desc?.name ?? b.bindId} (bind id ${b.bindId}) was not given: it runs as zeros`));
      continue;
    }
    if (given.bytes.length !== dst.length) {
      throw new DlaExecError(file, 'corrupt', null, null, `input ${b.desc?.name ?? b.bindId} needs ${dst.length} bytes in its tensor format, ${given.bytes.length} were given`);
    }
    dst.set(given.bytes);
  }
}

function record(slots: SlotRun[], base: Omit<SlotRun, 'order' | 'output'>, out: EngineOutput | null, capture: boolean, place: SurfacePlace | null = null): SlotRun {
  const run: SlotRun = {
    ...base,
    order: slots.length,
    output: out && out.channel > 0
      ? { channel: out.channel, height: out.height, width: out.width, precision: out.precision, where: out.where, values: capture ? Float32Array.from(out.data) : null, saturated: out.saturated, ...(place ? { place } : {}) }
      : null,
  };
  slots.push(run);
  return run;
}

/** where the op's `dst_data` cube lies (the engine has already resolved and bounds-checked it) */
function surfacePlace(ctx: EngineContext, surface: NonNullable<DlaTask['slots'][number]['surface']>): SurfacePlace | null {
  const dst = cubeOf(surface, 'dst_data');
  if (!dst || (dst.type !== MEM_TYPE.MC && dst.type !== MEM_TYPE.CV)) return null;
  const ref = ctx.mem.resolve(ctx.task, ctx.taskIndex, dst.address, dst.offset, 0, ctx.place, 'surface.dst_data.address');
  return { memId: ref.memId, offset: ref.base, lineStride: dst.lineStride, surfStride: dst.surfStride };
}

async function runDlaTask(t: DlaTask, d: DecodedLoadable, mem: DlaMemory, hw: DlaHardware, options: DlaRunOptions, slots: SlotRun[], total: number, capture: boolean, file: string, now: () => number, warnings: DlaWarning[], cache: DlaRunCache | null): Promise<DlaRunResult['tasks'][number]> {
  const place = (slot?: number, engine?: string): DlaPlace => ({ task: t.index, kind: 'DLA', ...(slot !== undefined ? { slot, engine } : {}) });
  const nd = t.network;
  if (!nd) throw new DlaExecError(file, 'corrupt', place(), 'network_desc', 'the network descriptor could not be read');
  if ((valueOf(nd, 'num_rois') ?? 1) > 1 || (valueOf(nd, 'dynamic_roi') ?? 0) !== 0) {
    throw new DlaExecError(file, 'unsupported', place(), 'network_desc.num_rois', `${valueOf(nd, 'num_rois')} ROIs${valueOf(nd, 'dynamic_roi') ? ' (dynamic)' : ''}: only one ROI is modelled`);
  }
  const numOps = valueOf(nd, 'num_operations') ?? 0;
  if (t.slots.length < numOps) throw new DlaExecError(file, 'truncated', place(), 'network_desc.num_operations', `${numOps} op slots declared, ${t.slots.length} readable`);
  const schedOps: SchedOp[] = t.slots.map((s) => {
    const v = (p: string) => valueOf(s.common, p) ?? -1;
    const src = s.surface ? cubeOf(s.surface, 'src_data') : null;
    const dst = s.surface ? cubeOf(s.surface, 'dst_data') : null;
    return {
      slot: s.slot,
      opType: s.opType,
      dependencyCount: valueOf(s.common, 'dependency_count') ?? 0,
      consumers: DLA_ENGINES.map((e) => ({ index: v(`consumers.${e}.index`), event: v(`consumers.${e}.event`) })),
      fusedParent: { index: v('fused_parent.index'), event: v('fused_parent.event') },
      lutIndex: s.opType === 2 && s.op ? (valueOf(s.op, 'lut_index') ?? -1) : -1,
      srcOnTheFly: s.opType >= 2 && s.opType <= 4 && src?.type === MEM_TYPE.HW,
      dstOnTheFly: (s.opType === 1 || s.opType === 2) && dst?.type === MEM_TYPE.HW,
    };
  });
  for (const s of t.slots) {
    if (s.opType < 0 || s.opType > 5) throw new DlaExecError(file, 'unsupported', place(s.slot, s.engine), 'common.op_type', `${s.opType} is not a DLA engine`);
    if (!s.op || !s.surface) throw new DlaExecError(file, 'truncated', place(s.slot, s.engine), s.op ? 'surface' : 'op', 'the descriptor could not be read');
  }
  const streams = new Map<number, Stream>();
  const order: number[] = [];
  const opHead = DLA_ENGINES.map((e) => valueOf(nd, `op_head.${e}`) ?? -1);
  let steps;
  try {
    steps = await schedule(schedOps, opHead, async (slotIndex) => {
      const s = t.slots[slotIndex]!;
      const p = place(s.slot, s.engine);
      if (options.signal?.aborted) throw cancelled(file, `task ${t.index} op slot ${s.slot} (${slots.length} of ${total} done)`);
      const ctx: EngineContext = { file, mem, task: d.loadable.task_list[t.index]!, taskIndex: t.index, place: p, hw, luts: t.luts, streams, fusedParent: valueOf(s.common, 'fused_parent.index') ?? -1, cache };
      const t0 = now();
      let out: EngineOutput | null = null;
      const extra: Partial<SlotRun> = {};
      switch (s.opType) {
        case 0: {
          const r = runBdma(ctx, s.op!, s.surface!);
          extra.bytes = r.bytes;
          break;
        }
        case 1: {
          const r = runConv(ctx, s.op!, s.surface!, { kernels: options.kernels });
          warnings.push(...r.warnings);
          streams.set(s.slot, r.stream);
          out = r.output;
          break;
        }
        case 2: {
          const r = runSdp(ctx, s.op!, s.surface!);
          if (r.stream) streams.set(s.slot, r.stream);
          if (r.lut) extra.lut = r.lut;
          out = r.output;
          break;
        }
        case 3:
          out = runPdp(ctx, s.op!, s.surface!).output;
          break;
        case 4:
          out = runCdp(ctx, s.op!, s.surface!).output;
          break;
        case 5:
          out = runRubik(ctx, s.op!, s.surface!).output;
          break;
      }
      order.push(s.slot);
      const run = record(slots, { task: t.index, kind: 'DLA', slot: s.slot, engine: s.engine, ms: now() - t0, ...extra }, out, capture, out?.where === 'memory' && s.opType >= 2 && s.opType <= 4 ? surfacePlace(ctx, s.surface!) : null);
      if (options.onProgress) await options.onProgress({ done: slots.length, total, task: t.index, slot: s.slot, engine: s.engine, ms: run.ms });
    });
  } catch (e) {
    if (e instanceof DeadlockError) {
      const first = e.waiting[0];
      throw new DlaExecError(file, 'corrupt', first ? place(first.slot, first.engine) : place(), first ? 'common.dependency_count' : null, e.message);
    }
    if (e instanceof ScheduleError) throw new DlaExecError(file, 'corrupt', place(e.slot, t.slots[e.slot]?.engine), e.field, e.message);
    throw e;
  }
  if (streams.size) {
    const [producer] = streams.keys();
    throw new DlaExecError(file, 'corrupt', place(producer, t.slots[producer!]?.engine), 'surface.dst_data.type', 'the op wrote on the fly (HW) but no op read it');
  }
  return { index: t.index, kind: 'DLA', order, steps };
}

async function runEmuTask(t: EmuTask, mem: DlaMemory, hw: DlaHardware, options: DlaRunOptions, slots: SlotRun[], total: number, capture: boolean, file: string, now: () => number): Promise<DlaRunResult['tasks'][number]> {
  const order: number[] = [];
  const legacy = t.layout !== '0.0.1';
  for (const o of t.ops) {
    const place: DlaPlace = { task: t.index, kind: 'EMU', slot: o.slot, engine: o.opName };
    if (options.signal?.aborted) throw cancelled(file, `task ${t.index} EMU op ${o.slot} (${slots.length} of ${total} done)`);
    const ctx: EngineContext = { file, mem, task: mem.loadable.task_list[t.index]!, taskIndex: t.index, place, hw, luts: [], streams: new Map(), fusedParent: -1, cache: null };
    const t0 = now();
    const r = runEmu(ctx, o.op, o.buffers, legacy);
    order.push(o.slot);
    const run = record(slots, { task: t.index, kind: 'EMU', slot: o.slot, engine: `EMU ${o.opName}`, ms: now() - t0 }, r.output, capture);
    if (options.onProgress) await options.onProgress({ done: slots.length, total, task: t.index, slot: o.slot, engine: run.engine, ms: run.ms });
  }
  return { index: t.index, kind: 'EMU', order, steps: [] };
}
