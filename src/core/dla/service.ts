/**
 * The `execute` capability of a loadable document: run it on the DLA model from plain data, with
 * progress and cancel, and keep the last run's surfaces in the worker so the UI asks for one
 * plane at a time. Everything in and out is structured-clone data (Float32Arrays transfer).
 *
 * Int8 tensors need scales: `request.scales` (the calibration table's, by tensor name) first;
 * an output that an EMU op writes carries its own (`output_scale_factor`); otherwise the scales
 * nvdla_compiler gives every tensor without a table (inputs 1, layer outputs 127), with a warning
 * that the results then mean little.
 */
import { FormatError } from '../errors';
import type { Kernels } from '../kernels/kernels';
import type { Loadable } from '../loadable/model';
import { valueOf } from '../loadable/structs';
import { decodeTasks } from '../loadable/tasks';
import { seededRandom } from '../random';
import { bindInput, bindableTensors, outputValues, type TensorSpec } from './bindings';
import { compareSlots, type ReferenceTensor, type SlotComparison } from './compare';
import { dlaWarning, type DlaWarning } from './errors';
import { inferHardware, type DlaConfigName } from './hardware';
import { topK } from './metrics';
import { DlaRunCache, runLoadable, type BoundInput, type DlaRunProgress, type DlaRunResult } from './run';
import type { SlotLayers } from './slot-layers';

/** The value of one input tensor. */
export type ExecuteInputValue =
  /** float NCHW values: N x channels x H x W, channels at most the tensor's C (padded image channels stay 0) */
  | { kind: 'array'; values: Float32Array; channels?: number }
  /** seeded values in [lo, hi) (default [0, 1)) for every channel the network uses */
  | { kind: 'random'; seed: number; range?: [number, number]; channels?: number }
  /** bytes already in the tensor's format */
  | { kind: 'bytes'; bytes: Uint8Array };

export interface ExecuteRequest {
  /** by tensor name; an input not named gets seeded random values (`seed` + its bind id) */
  inputs?: Record<string, ExecuteInputValue>;
  seed?: number;
  /** int8 tensor scales by tensor name (network inputs and outputs; the calibration table's `scale`) */
  scales?: Record<string, number>;
  /** the configuration compiled for (inferred when absent) */
  hardware?: DlaConfigName;
}

export interface ExecuteHooks {
  onProgress?(p: DlaRunProgress): void | Promise<void>;
  signal?: { readonly aborted: boolean };
  kernels?: Kernels;
  now?(): number;
}

export interface ExecutePlan {
  tensors: TensorSpec[];
  hardware: DlaConfigName;
  hardwareReason: string;
  /** op slots and EMU ops */
  ops: number;
  /** what the user should know before running (int8 without scales, damage) */
  notes: string[];
  /** the output scales the loadable holds (EMU output_scale_factor), by tensor name */
  embeddedScales: Record<string, number>;
  /** int8 and compiled with nvdla_compiler's constant scales (no calibration table) */
  constantScales: boolean;
}

export interface ValueStats {
  count: number;
  min: number;
  max: number;
  mean: number;
  std: number;
}

export interface ExecutedSlot {
  order: number;
  task: number;
  kind: 'DLA' | 'EMU';
  slot: number;
  engine: string;
  ms: number;
  output: { channel: number; height: number; width: number; precision: string; where: 'memory' | 'stream'; saturated: number; stats: ValueStats } | null;
  lut?: { le: number; lo: number; underflow: number; overflow: number };
  bytes?: number;
}

export interface ExecutedOutput {
  name: string;
  bindId: number;
  shape: [number, number, number, number];
  dataType: TensorSpec['dataType'];
  /** the scale its integers were multiplied by (null for fp16) */
  scale: number | null;
  scaleSource: 'request' | 'loadable' | 'default' | null;
  values: Float32Array;
  /** the five largest values of item 0 */
  top: { index: number; score: number }[];
}

export interface ExecuteOutcome {
  hardware: DlaConfigName;
  hardwareReason: string;
  slots: ExecutedSlot[];
  outputs: ExecutedOutput[];
  warnings: DlaWarning[];
  ms: number;
}

/** One plane of a slot's output from the last run. */
export interface SurfacePlane {
  order: number;
  channel: number;
  height: number;
  width: number;
  precision: string;
  values: Float32Array;
  min: number;
  max: number;
}

export interface ExecuteService {
  plan(): ExecutePlan;
  run(request?: ExecuteRequest, hooks?: ExecuteHooks): Promise<ExecuteOutcome>;
  /** channel `channel` of the output of the run's `order`-th op; a RangeError without a run or such a plane */
  plane(order: number, channel: number): SurfacePlane;
  /** the last run against a float pass: per slot, through `mapping` (slot-layers.ts) */
  compare(mapping: SlotLayers[], reference: Record<string, ReferenceTensor>, scales?: Record<string, number>): SlotComparison;
}

const DEFAULT_INPUT_SCALE = 1;
const DEFAULT_OUTPUT_SCALE = 127;

function stats(values: ArrayLike<number>): ValueStats {
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  let sum2 = 0;
  let n = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
    sum += v;
    sum2 += v * v;
    n++;
  }
  const mean = n ? sum / n : 0;
  return { count: n, min: n ? min : 0, max: n ? max : 0, mean, std: n ? Math.sqrt(Math.max(0, sum2 / n - mean * mean)) : 0 };
}

/** EMU ops' output scale factors by the tensor they write (an EMU op writing a bindable output). */
function embeddedScales(l: Loadable): Record<string, number> {
  const out: Record<string, number> = {};
  const d = decodeTasks(l);
  const outputs = bindableTensors(l).filter((t) => t.kind === 'output');
  for (const t of d.tasks) {
    if (t.kind !== 'EMU') continue;
    const entry = l.task_list[t.index]!;
    for (const o of t.ops) {
      const scale = valueOf(o.op, 'common.output_scale_factor');
      const addr = o.buffers ? valueOf(o.buffers, 'dst_data.addressIndex') : undefined;
      if (scale === undefined || addr === undefined) continue;
      const a = l.address_list[entry.address_list[addr] ?? -1];
      const target = a && outputs.find((x) => x.memId === a.mem_id);
      if (target && target.dataType !== 'fp16') out[target.name] = scale;
    }
  }
  return out;
}

/** int8 EMU ops with input and output scale 127: nvdla_compiler's constant scales (compiled without a table). */
function constantScales(l: Loadable): boolean {
  const d = decodeTasks(l);
  let emu = 0;
  for (const t of d.tasks) {
    if (t.kind !== 'EMU') continue;
    for (const o of t.ops) {
      const format = o.buffers ? valueOf(o.buffers, 'src_data.format') : undefined;
      if (format === 3) continue; // FF16
      emu++;
      if (valueOf(o.op, 'common.input_scale_factor') !== 127 || valueOf(o.op, 'common.output_scale_factor') !== 127) return false;
    }
  }
  return emu > 0;
}

export function executeService(l: Loadable): ExecuteService {
  const file = l.file;
  let planned: ExecutePlan | null = null;
  let last: DlaRunResult | null = null;
  const cache = new DlaRunCache(l);

  const plan = (): ExecutePlan => {
    if (planned) return planned;
    const d = decodeTasks(l);
    const tensors = bindableTensors(l, file);
    const hw = inferHardware(d);
    const notes: string[] = [];
    const embedded = embeddedScales(l);
    const constant = constantScales(l);
    const int8 = tensors.filter((t) => t.needsScale);
    if (constant) notes.push('compiled without a calibration table: nvdla_compiler gave every tensor a constant scale (inputs 1, layer outputs 127), so int8 results say little about the network');
    for (const t of int8.filter((x) => x.kind === 'input')) notes.push(`input ${t.name} is ${t.dataType}: give its scale (the calibration table's '${t.name}') or it is quantised with scale ${DEFAULT_INPUT_SCALE}`);
    for (const t of int8.filter((x) => x.kind === 'output' && embedded[x.name] === undefined)) notes.push(`output ${t.name} is ${t.dataType}: give its scale or it is read with scale ${DEFAULT_OUTPUT_SCALE}`);
    const blocking = d.damage.filter((x) => x.kind !== 'limit');
    if (blocking.length) notes.push(`the loadable is damaged (${blocking.length} places): a run stops at the first one (${blocking[0]!.path})`);
    const ops = d.tasks.reduce((n, t) => n + (t.kind === 'DLA' ? t.slots.length : t.kind === 'EMU' ? t.ops.length : 0), 0);
    planned = { tensors, hardware: hw.hardware.name, hardwareReason: hw.reason, ops, notes, embeddedScales: embedded, constantScales: constant };
    return planned;
  };

  const run = async (request: ExecuteRequest = {}, hooks: ExecuteHooks = {}): Promise<ExecuteOutcome> => {
    const p = plan();
    const warnings: DlaWarning[] = [];
    const scales = request.scales ?? {};
    const inputs: BoundInput[] = [];
    const named = new Set(Object.keys(request.inputs ?? {}));
    for (const t of p.tensors.filter((x) => x.kind === 'input')) {
      named.delete(t.name);
      const v = request.inputs?.[t.name] ?? { kind: 'random' as const, seed: (request.seed ?? 1) + t.bindId };
      if (v.kind === 'bytes') {
        inputs.push({ bindId: t.bindId, bytes: v.bytes });
        continue;
      }
      let scale: number | null = null;
      if (t.needsScale) {
        scale = scales[t.name] ?? null;
        if (scale === null) {
          scale = DEFAULT_INPUT_SCALE;
          warnings.push(dlaWarning(null, null, `input ${t.name} (${t.dataType}) was quantised with nvdla_compiler's default scale ${DEFAULT_INPUT_SCALE}: no scale was given`));
        }
      }
      const [n, , h, w] = t.shape;
      if (v.kind === 'random') {
        const channels = v.channels ?? t.shape[1];
        const rnd = seededRandom(v.seed);
        const [lo, hi] = v.range ?? [0, 1];
        const values = Float32Array.from({ length: n * channels * h * w }, () => lo + (hi - lo) * rnd());
        inputs.push(bindInput(l, t, values, channels, scale, file));
      } else {
        const channels = v.channels ?? v.values.length / (n * h * w);
        if (!Number.isInteger(channels) || channels < 1) {
          throw new FormatError({ kind: 'corrupt', file, message: `input ${t.name} is ${n}x${t.shape[1]}x${h}x${w}: ${v.values.length} values are not a whole number of ${n}x${h}x${w} channels` });
        }
        inputs.push(bindInput(l, t, v.values, channels, scale, file));
      }
    }
    if (named.size) throw new FormatError({ kind: 'corrupt', file, message: `the loadable has no input named ${[...named].map((x) => `'${x}'`).join(', ')} (inputs: ${p.tensors.filter((x) => x.kind === 'input').map((x) => x.name).join(', ')})` });
    if (p.constantScales) warnings.push(dlaWarning(null, null, p.notes[0]!));
    const r = await runLoadable(l, { inputs, cache, hardware: request.hardware, kernels: hooks.kernels, onProgress: hooks.onProgress, signal: hooks.signal, now: hooks.now, captureSurfaces: true });
    last = r;
    const outputs: ExecutedOutput[] = r.outputs.map((o) => {
      const spec = p.tensors.find((t) => t.kind === 'output' && t.memId === o.memId)!;
      let scale: number | null = null;
      let scaleSource: ExecutedOutput['scaleSource'] = null;
      if (spec.needsScale) {
        if (scales[spec.name] !== undefined) [scale, scaleSource] = [scales[spec.name]!, 'request'];
        else if (p.embeddedScales[spec.name] !== undefined) [scale, scaleSource] = [p.embeddedScales[spec.name]!, 'loadable'];
        else {
          [scale, scaleSource] = [DEFAULT_OUTPUT_SCALE, 'default'];
          warnings.push(dlaWarning(null, null, `output ${spec.name} (${spec.dataType}) was read with nvdla_compiler's default scale ${DEFAULT_OUTPUT_SCALE}: no scale was given`));
        }
      }
      const v = outputValues(o, scale, file);
      const item = v.shape[1] * v.shape[2] * v.shape[3];
      return { name: spec.name, bindId: spec.bindId, shape: v.shape, dataType: spec.dataType, scale, scaleSource, values: v.values, top: topK(v.values.subarray(0, item), 5) };
    });
    const slots: ExecutedSlot[] = r.slots.map((s) => ({
      order: s.order,
      task: s.task,
      kind: s.kind,
      slot: s.slot,
      engine: s.engine,
      ms: s.ms,
      output: s.output ? { channel: s.output.channel, height: s.output.height, width: s.output.width, precision: s.output.precision, where: s.output.where, saturated: s.output.saturated, stats: stats(s.output.values ?? []) } : null,
      ...(s.lut ? { lut: s.lut } : {}),
      ...(s.bytes !== undefined ? { bytes: s.bytes } : {}),
    }));
    return { hardware: r.hardware.name, hardwareReason: r.hardwareReason, slots, outputs, warnings: [...warnings, ...r.warnings], ms: r.totalMs };
  };

  const plane = (order: number, channel: number): SurfacePlane => {
    if (!last) throw new RangeError('there is no run yet');
    const s = last.slots[order];
    if (!s?.output?.values) throw new RangeError(`op ${order} of the run wrote no surface`);
    const o = s.output;
    if (!Number.isInteger(channel) || channel < 0 || channel >= o.channel) throw new RangeError(`op ${order} has ${o.channel} channels, not ${channel}`);
    const size = o.height * o.width;
    const values = o.values!.slice(channel * size, (channel + 1) * size);
    const st = stats(values);
    return { order, channel, height: o.height, width: o.width, precision: o.precision, values, min: st.min, max: st.max };
  };

  const compare = (mapping: SlotLayers[], reference: Record<string, ReferenceTensor>, scales: Record<string, number> = {}): SlotComparison => {
    if (!last) throw new RangeError('there is no run yet');
    return compareSlots({ run: last, mapping, reference: (n) => reference[n], scale: (n) => scales[n] ?? null });
  };

  return { plan, run, plane, compare };
}
