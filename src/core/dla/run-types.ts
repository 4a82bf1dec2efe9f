/**
 * The `runLoadable` capability (core/format.ts `LoadableRunService`, run-service.ts): what the
 * browser's Run view, `npu-studio run-loadable` and bench/dla.ts ask a loadable run for and get
 * back, as plain data (it crosses the worker boundary). Types only, so `core/format.ts` can name
 * them without importing the DLA model.
 */
import type { RgbaImage } from '../caffe/input';
import type { CalibrationResult, CalibrationMethod } from './calibrate';
import type { ErrorMetrics } from './metrics';
import type { TensorSpec } from './bindings';
import type { CaffeKernels } from '../caffe/forward/heavy';
import type { Kernels } from '../kernels/kernels';
import type { DlaConfigName } from './hardware';

export type { CalibrationMethod, CalibrationResult, ErrorMetrics, TensorSpec };

/** A calibration table as the compiler reads it (`--calibtable`): scale per layer / input name. */
export type CalibrationScales = Record<string, { scale: number }>;

/**
 * The value of the loadable's (first) input, as floats before the tensor format: an image
 * (resized, `(pixel - mean) * scale`, gray / BGR / RGB: the Caffe run's rules), a `.npy` of
 * N x C x H x W (or C x H x W, repeated over the batch), or seeded random values in [0, 1).
 */
export type LoadableInputValue =
  | { kind: 'image'; file: string; pixels: RgbaImage; scale: number; mean: number[]; color: 'gray' | 'bgr' | 'rgb' }
  | { kind: 'array'; file: string; bytes: Uint8Array }
  /** float values already in memory, laid out as an `.npy` would be (N x C' x H x W or one item C' x H x W) */
  | { kind: 'values'; file: string; values: Float32Array }
  | { kind: 'random'; seed: number };

export interface LoadableRunRequest {
  input: LoadableInputValue;
  /**
   * the calibration table the loadable was compiled with (int8): the input is quantised with its
   * input's scale, the output dequantised with the output layer's; null: the compiler's defaults
   */
  calibration: CalibrationScales | null;
  /** channels seeded random values fill (default: the plan's `imageChannels`); an image's come from its colour order, an array's from its shape */
  channels?: number;
  /** the configuration the loadable was compiled for (default: inferred from its descriptors) */
  hardware?: DlaConfigName;
}

/** What a run of the loadable needs, and what to tell the user before it runs. */
export interface LoadableRunPlan {
  file: string;
  inputs: TensorSpec[];
  outputs: TensorSpec[];
  /** of the first input: `fp16`, `int8`, `int16` */
  precision: TensorSpec['dataType'] | null;
  /** channels an image gives the first input by default (1: gray; 3: BGR), the rest of C padded with 0 */
  imageChannels: 1 | 3;
  /** the configuration the model runs (inferred from the loadable) and why */
  hardware: string;
  hardwareReason: string;
  /** op slots and EMU ops */
  ops: number;
  /** bytes of every memory-list entry (what a run allocates) */
  memoryBytes: number;
  /**
   * an int8 loadable compiled without a calibration table (every tensor scaled by 127, notes 8.1):
   * its results are meaningless; null for fp16
   */
  uncalibrated: boolean | null;
  /** the int8 output scales the loadable holds itself (an EMU op's output_scale_factor), by output name */
  outputScales: Record<string, number>;
  /** sentences shown before a run (the int8 warning among them) */
  warnings: string[];
  /** why it cannot run at all (the decoder's damage); empty when it can */
  problems: string[];
}

export interface LoadableRunProgress {
  done: number;
  total: number;
  task: number;
  slot: number;
  engine: string;
}

export interface LoadableRunHooks {
  onProgress?(p: LoadableRunProgress): void | Promise<void>;
  signal?: { readonly aborted: boolean };
  now?(): number;
  /** the kernels of the Caffe float pass a comparison runs (default: the plain TypeScript reference) */
  caffeKernels?: CaffeKernels;
  /** float kernels for the DLA model's fp16 convolutions, used for loadables over `KERNELS_FROM_BYTES` of memory (run-service.ts) */
  kernels?: Kernels;
}

/** One op slot (or EMU op) of the last run: where it ran and what it wrote. */
export interface SlotRunRow {
  order: number;
  task: number;
  kind: 'DLA' | 'EMU';
  slot: number;
  engine: string;
  /** node index in the op-slot graph (`allOps` order) */
  node: number;
  ms: number;
  /** C x H x W, precision and where it went; null when the op writes no data cube */
  output: { channel: number; height: number; width: number; precision: string; where: 'memory' | 'stream'; saturated: number; min: number; max: number } | null;
  /** SDP LUT use: hits per table and out-of-range samples */
  lut?: { le: number; lo: number; underflow: number; overflow: number };
  /** BDMA: bytes copied */
  bytes?: number;
}

export interface LoadableOutputView {
  name: string;
  bindId: number;
  shape: [number, number, number, number];
  dataType: string;
  /** the scale the integers were multiplied by (null: fp16, or raw integers when no scale is known) */
  scale: number | null;
  /** where the scale came from */
  scaleSource: string;
  /** every item's values as floats (dequantised with `scale` for int8) */
  values: Float32Array;
  /** the five best classes of item 0 when the output is a classifier ([N, C, 1, 1], C > 1) */
  top: { index: number; score: number }[] | null;
}

export interface LoadableRunOutcome {
  file: string;
  hardware: string;
  inputName: string;
  /** float shape fed (N x channels x H x W) and the scale an int input was quantised with */
  inputShape: [number, number, number, number];
  inputScale: number | null;
  slots: SlotRunRow[];
  outputs: LoadableOutputView[];
  warnings: string[];
  totalMs: number;
}

/** A plane of values for a heatmap (the same shape as a Caffe run's blob slice). */
export interface PlaneSlice {
  key: string;
  shape: number[];
  item: number;
  channel: number;
  height: number;
  width: number;
  values: Float32Array;
  min: number;
  max: number;
}

/** A layer of the comparison: an op slot's output against the Caffe blob its origins name. */
export interface ComparisonRow {
  order: number;
  task: number;
  slot: number;
  engine: string;
  node: number;
  /** the engine node of the compile (`bias-0`) */
  unit: string;
  layer: string;
  /** every Caffe layer in the slot's origins */
  layers: string[];
  /**
   * a layer the compiler split into partial-height bands: the op slots that wrote them, in run
   * order (`slot`, `order` and `node` are the last one's; `shape` is the whole layer's), their
   * nodes in the op-slot graph, and them in short for a table: `12-15 (4 bands)`
   */
  bands?: { slots: number[]; nodes: number[]; label: string };
  precision: string;
  shape: [number, number, number];
  scale: number;
  metrics: ErrorMetrics;
  saturated: number;
}

export interface LoadableComparison {
  rows: ComparisonRow[];
  skipped: { task: number; slot: number; engine: string; node: number; reason: string }[];
  /** how the op slots were matched to Caffe layers (our compile's options) */
  matchedWith: string;
  /** those options in short: `nv_small fp16 fast-math` */
  compiledAs: string;
  /** top-1 of the loadable and of the float pass (first classifier output), when both have one */
  top1: { loadable: number; caffe: number } | null;
  warnings: string[];
}

export interface CalibrationProgress {
  done: number;
  total: number;
  input: string;
}
