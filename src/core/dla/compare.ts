/**
 * Every op slot's output against the float tensor of the Caffe layer it computes (slot-layers.ts):
 * int8 / int16 surfaces dequantised with the layer's tensor scale (the calibration table's), fp16
 * ones taken as they are. The rows are what the per-layer chart and the "layers coloured by
 * error" of the graphs show.
 */
import type { DlaRunResult, SlotRun } from './run';
import { errorMetrics, type ErrorMetrics } from './metrics';
import type { SlotLayers } from './slot-layers';

/** A float tensor of the reference pass: NCHW values of every batch item. */
export interface ReferenceTensor {
  shape: readonly number[];
  values: Float32Array;
}

export interface LayerComparison {
  /** position in the run */
  order: number;
  task: number;
  slot: number;
  engine: string;
  node: string;
  layer: string;
  batch: number;
  precision: string;
  channel: number;
  height: number;
  width: number;
  /** the scale the slot's integers were multiplied by (1 for fp16): the compiler's for the tensor, else the calibration table's */
  scale: number;
  metrics: ErrorMetrics;
  saturated: number;
}

export interface SkippedSlot {
  task: number;
  slot: number;
  engine: string;
  reason: string;
}

export interface SlotComparison {
  rows: LayerComparison[];
  skipped: SkippedSlot[];
}

export interface CompareInputs {
  run: DlaRunResult;
  mapping: SlotLayers[];
  /** the float output of a Caffe layer (by layer name) */
  reference: (layer: string) => ReferenceTensor | undefined;
  /**
   * the tensor scale of a layer's output for int8 / int16 slots when the mapping has none (the
   * calibration table's), null when unknown
   */
  scale?: (layer: string) => number | null;
}

function itemOf(ref: ReferenceTensor, batch: number, size: number): Float32Array | null {
  const n = ref.shape[0] ?? 1;
  if (ref.values.length !== n * size || batch >= n) return null;
  return ref.values.subarray(batch * size, (batch + 1) * size);
}

/** Compares each slot of a run (made with captured surfaces) with its layer's float tensor. */
export function compareSlots({ run, mapping, reference, scale }: CompareInputs): SlotComparison {
  const byPlace = new Map(mapping.map((m) => [`${m.task}:${m.slot}`, m]));
  const rows: LayerComparison[] = [];
  const skipped: SkippedSlot[] = [];
  const skip = (s: SlotRun, reason: string) => skipped.push({ task: s.task, slot: s.slot, engine: s.engine, reason });
  for (const s of run.slots) {
    const m = byPlace.get(`${s.task}:${s.slot}`);
    if (!m) {
      skip(s, 'no Caffe layer: the op slot has no origins in the compile');
      continue;
    }
    if (!m.compareWith) {
      skip(s, `${m.node} streams its accumulators to the SDP (compared after it)`);
      continue;
    }
    const out = s.output;
    if (!out) {
      skip(s, 'the op writes no data cube');
      continue;
    }
    if (!out.values) {
      skip(s, 'the run did not keep its surfaces');
      continue;
    }
    const ref = reference(m.compareWith);
    if (!ref) {
      skip(s, `the reference has no output for layer ${m.compareWith}`);
      continue;
    }
    const size = out.channel * out.height * out.width;
    const item = itemOf(ref, m.batch, size);
    if (!item) {
      skip(s, `layer ${m.compareWith} is ${ref.shape.join('x')}, the slot writes ${out.channel}x${out.height}x${out.width} (item ${m.batch})`);
      continue;
    }
    let k = 1;
    if (out.precision === 'INT8' || out.precision === 'INT16') {
      const sc = m.tensorScale ?? scale?.(m.compareWith) ?? null;
      if (sc === null || !(sc > 0)) {
        skip(s, `no tensor scale for layer ${m.compareWith}: its integers cannot be compared with floats`);
        continue;
      }
      k = sc;
    }
    const got = k === 1 ? out.values : Float32Array.from(out.values, (v) => v * k);
    rows.push({
      order: s.order,
      task: s.task,
      slot: s.slot,
      engine: s.engine,
      node: m.node,
      layer: m.compareWith,
      batch: m.batch,
      precision: out.precision,
      channel: out.channel,
      height: out.height,
      width: out.width,
      scale: k,
      metrics: errorMetrics(got, item),
      saturated: out.saturated,
    });
  }
  return { rows, skipped };
}
