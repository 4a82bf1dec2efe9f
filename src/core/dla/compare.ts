/**
 * Every op slot's output against the float tensor of the Caffe layer it computes (slot-layers.ts):
 * int8 / int16 surfaces dequantised with the layer's tensor scale (the calibration table's), fp16
 * ones taken as they are. The rows are what the per-layer chart and the "layers coloured by
 * error" of the graphs show.
 *
 * A layer too big for the convolution buffer is compiled (by nvdla_compiler and by ours) as
 * partial-height convolutions: several op slots whose origins name the same layer, each writing a
 * band of rows of the one output surface (the same memory, line and surface strides, at offsets a
 * whole number of lines apart). Those bands are stitched by where they were written and the layer
 * is compared once, whole, when its last band has run: one row per Caffe layer, `bands` naming
 * the slots that made it.
 */
import type { DlaRunResult, SlotRun, SurfacePlace } from './run';
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
  /**
   * a layer split into partial-height bands: its op slots in run order (`slot` and `order` are
   * the last band's) and, in `values`, the stitched surface as floats that `metrics` compared
   */
  bands?: { slots: number[]; values: Float32Array };
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

/** The op slots of a split layer in short: `12-15 (4 bands)`, or `3, 5, 9 (3 bands)` when not consecutive. */
export function bandsLabel(slots: readonly number[]): string {
  const consecutive = slots.every((s, i) => i === 0 || s === slots[i - 1]! + 1);
  const list = consecutive && slots.length > 1 ? `${slots[0]}-${slots.at(-1)}` : slots.join(', ');
  return `${list} (${slots.length} bands)`;
}

/** One band of a split layer: the slot, its float values (dequantised) and where it wrote them. */
interface Band {
  run: SlotRun;
  node: string;
  values: Float32Array;
  height: number;
  place: SurfacePlace;
  scale: number;
}

/** The bands of one layer (and batch item) seen so far. */
interface BandGroup {
  layer: string;
  batch: number;
  /** the reference item's shape */
  channel: number;
  height: number;
  width: number;
  item: Float32Array;
  bands: Band[];
  done: boolean;
}

/**
 * The first row each band writes when `bands` tile the surface's rows 0..height-1 exactly (same
 * memory and strides, offsets whole lines apart inside one surface), else null.
 */
function bandRows(bands: readonly Band[], height: number): number[] | null {
  const p0 = bands[0]!.place;
  if (!(p0.lineStride > 0)) return null;
  if (bands.some((b) => b.place.memId !== p0.memId || b.place.lineStride !== p0.lineStride || b.place.surfStride !== p0.surfStride)) return null;
  const base = Math.min(...bands.map((b) => b.place.offset));
  const starts: number[] = [];
  const covered = new Uint8Array(height);
  for (const b of bands) {
    const delta = b.place.offset - base;
    if (delta % p0.lineStride !== 0) return null;
    const first = delta / p0.lineStride;
    if (first + b.height > height) return null;
    for (let y = first; y < first + b.height; y++) {
      if (covered[y]) return null;
      covered[y] = 1;
    }
    starts.push(first);
  }
  return covered.every((c) => c === 1) ? starts : null;
}

/** The bands' CHW values laid into one C x H x W tensor by their first rows. */
function stitch(g: BandGroup, starts: readonly number[]): Float32Array {
  const { channel: C, height: H, width: W } = g;
  const out = new Float32Array(C * H * W);
  g.bands.forEach((b, i) => {
    const y0 = starts[i]!;
    for (let c = 0; c < C; c++) out.set(b.values.subarray(c * b.height * W, (c + 1) * b.height * W), (c * H + y0) * W);
  });
  return out;
}

/** the planes of `values` (C x plane) at `places`, in that order */
function caffeChannels(values: Float32Array, places: readonly number[], plane: number): Float32Array {
  const out = new Float32Array(places.length * plane);
  places.forEach((c, i) => out.set(values.subarray(c * plane, (c + 1) * plane), i * plane));
  return out;
}

/** Compares each slot of a run (made with captured surfaces) with its layer's float tensor. */
export function compareSlots({ run, mapping, reference, scale }: CompareInputs): SlotComparison {
  const byPlace = new Map(mapping.map((m) => [`${m.task}:${m.slot}`, m]));
  const rows: LayerComparison[] = [];
  const skipped: SkippedSlot[] = [];
  const skip = (s: SlotRun, reason: string) => skipped.push({ task: s.task, slot: s.slot, engine: s.engine, reason });
  const groups = new Map<string, BandGroup>();
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
    // a surface with gap channels (a concat whose inputs start on channel groups): its Caffe channels only
    const places = m.channelPlaces && m.channelPlaces.length < out.channel && m.channelPlaces.every((c) => c < out.channel) ? m.channelPlaces : null;
    const channel = places ? places.length : out.channel;
    const values = places ? caffeChannels(out.values, places, out.height * out.width) : out.values;
    const size = channel * out.height * out.width;
    const item = itemOf(ref, m.batch, size);
    // a band of rows of a layer split into partial-height convolutions
    const [N = 1, C = 0, H = 0, W = 0] = ref.shape;
    const band = !item && out.place && ref.shape.length === 4 && C === channel && W === out.width && out.height < H && m.batch < N && ref.values.length === N * C * H * W;
    if (!item && !band) {
      skip(s, `layer ${m.compareWith} is ${ref.shape.join('x')}, the slot writes ${channel}x${out.height}x${out.width}${places ? ` (of ${out.channel} surface channels)` : ''} (item ${m.batch})`);
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
    const got = k === 1 ? values : Float32Array.from(values, (v) => v * k);
    if (!item) {
      const key = `${m.compareWith}:${m.batch}`;
      let g = groups.get(key);
      if (!g) {
        g = { layer: m.compareWith, batch: m.batch, channel: C, height: H, width: W, item: ref.values.subarray(m.batch * C * H * W, (m.batch + 1) * C * H * W), bands: [], done: false };
        groups.set(key, g);
      }
      if (g.done) {
        skip(s, `layer ${m.compareWith} was already compared whole from its bands; this slot writes ${channel}x${out.height}x${out.width} more`);
        continue;
      }
      g.bands.push({ run: s, node: m.node, values: got, height: out.height, place: out.place!, scale: k });
      const starts = bandRows(g.bands, H);
      if (!starts) continue;
      g.done = true;
      const values = stitch(g, starts);
      rows.push({
        order: s.order,
        task: s.task,
        slot: s.slot,
        engine: s.engine,
        node: g.bands.map((b) => b.node).join(' + '),
        layer: g.layer,
        batch: g.batch,
        precision: out.precision,
        channel: C,
        height: H,
        width: W,
        scale: k,
        metrics: errorMetrics(values, g.item),
        saturated: g.bands.reduce((a, b) => a + (b.run.output?.saturated ?? 0), 0),
        bands: { slots: g.bands.map((b) => b.run.slot), values },
      });
      continue;
    }
    rows.push({
      order: s.order,
      task: s.task,
      slot: s.slot,
      engine: s.engine,
      node: m.node,
      layer: m.compareWith,
      batch: m.batch,
      precision: out.precision,
      channel,
      height: out.height,
      width: out.width,
      scale: k,
      metrics: errorMetrics(got, item),
      saturated: out.saturated,
    });
  }
  for (const g of groups.values()) {
    if (g.done) continue;
    const rowsWritten = g.bands.reduce((a, b) => a + b.height, 0);
    for (const b of g.bands) {
      skip(b.run, `a band of ${b.height} rows of layer ${g.layer} (${g.channel}x${g.height}x${g.width}); its ${g.bands.length} band${g.bands.length === 1 ? '' : 's'} (${rowsWritten} rows) do not tile the layer's output surface, so it cannot be compared whole`);
    }
  }
  return { rows, skipped };
}
