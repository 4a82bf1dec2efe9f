/**
 * The `runLoadable` capability of an NVDLA loadable document (core/format.ts
 * `LoadableRunService`), the one way to run a loadable: the Run view (through the worker),
 * `npu-studio run-loadable` and bench/dla.ts all use it. What a run needs (`plan`), the run itself
 * on the DLA model (run.ts) with the input made from an image, a `.npy`, float values or seeded
 * random values and bound in the loadable's tensor format (bindings.ts), the last run's surfaces
 * kept for the heatmaps and `--surfaces` (`surface`), and the comparison of every op slot with
 * the Caffe float pass of the same input (`compare`: the slot -> layer mapping of slot-layers.ts,
 * the metrics of compare.ts).
 *
 * Int8 tensors need scales: the calibration table's first (by tensor name); an output that an
 * EMU op writes carries its own (`output_scale_factor`); otherwise the scales nvdla_compiler gives
 * every tensor without a table (inputs 1, layer outputs 127, notes 8.1), with a warning.
 *
 * The service keeps a `DlaRunCache` between runs (decoded tasks, pristine memory images, decoded
 * weights), as a warm worker does. The DLA model (engines, scheduler, compiler for the mapping) is
 * loaded with `import()` on the first run, so opening a loadable to look at it never loads it.
 */
import { FormatError } from '../errors';
import type { CaffeDeploy, CaffeMessage } from '../nvdla/network/caffe-input';
import { imageToBlob, randomBlob } from '../caffe/input';
import { readNpy, writeNpy } from '../caffe/npy';
import type { LoadableRunService, RunService, SourceFile } from '../format';
import { allOps, type DecodedLoadable } from '../loadable/tasks';
import { valueOf } from '../loadable/structs';
import { bindInput, bindableTensors, outputValues, type TensorSpec } from './bindings';
import { DlaRunCache } from './cache';
import { inferHardware } from './hardware';
import { topK } from './metrics';
import type { DlaRunResult, SlotRun } from './run';
import type { ReferenceTensor } from './compare';
import { blobValues } from './caffe-calibration';
import type {
  CalibrationScales,
  ComparisonRow,
  LoadableComparison,
  LoadableInputValue,
  LoadableOutputView,
  LoadableRunHooks,
  LoadableRunOutcome,
  LoadableRunPlan,
  LoadableRunRequest,
  PlaneSlice,
  SlotRunRow,
} from './run-types';

/**
 * Loadables with more memory than this run their fp16 convolutions on the float kernels when the
 * caller offers them (`hooks.kernels`); below it (a LeNet) the plain TypeScript engines are faster
 * than handing the work to kernel threads.
 */
export const KERNELS_FROM_BYTES = 16 * 2 ** 20;

/** The scales nvdla_compiler gives tensors without a calibration table (notes 8.1): network inputs 1, every layer output 127. */
const DEFAULT_INPUT_SCALE = 1;
const CONSTANT_SCALE = 127;

interface LastRun {
  result: DlaRunResult;
  /** the float input fed (N x channels x H x W) */
  input: { values: Float32Array; shape: [number, number, number, number] };
  calibration: CalibrationScales | null;
  /** the float planes of the last comparison, by layer */
  reference: Map<string, ReferenceTensor> | null;
  /**
   * op order -> (layer compared with, scale) of the last comparison; for a layer split into
   * bands (keyed by its last band) the stitched surface as floats and its C x H x W
   */
  compared: Map<number, { layer: string; scale: number; stitched?: { values: Float32Array; shape: [number, number, number]; label: string } }>;
}

/** EMU ops' output scale factors by the bindable int8 output tensor they write. */
function embeddedScales(d: DecodedLoadable, outputs: TensorSpec[]): Record<string, number> {
  const l = d.loadable;
  const out: Record<string, number> = {};
  for (const t of d.tasks) {
    if (t.kind !== 'EMU') continue;
    const entry = l.task_list[t.index];
    if (!entry) continue;
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

/** Every int8 EMU op with input and output scale 127: nvdla_compiler's constant scales (compiled without a table). */
function constantScales(d: DecodedLoadable): boolean {
  let emu = 0;
  for (const t of d.tasks) {
    if (t.kind !== 'EMU') continue;
    for (const o of t.ops) {
      if (o.buffers && valueOf(o.buffers, 'src_data.format') === 3) continue; // FF16
      emu++;
      if (valueOf(o.op, 'common.input_scale_factor') !== CONSTANT_SCALE || valueOf(o.op, 'common.output_scale_factor') !== CONSTANT_SCALE) return false;
    }
  }
  return emu > 0;
}

/**
 * `task[0].slot[2].common.op_type` as a person reads it: `task 0 (DLA) op slot 2 (CONV), field
 * common.op_type: `; other paths as they are.
 */
export function placeOfPath(d: DecodedLoadable, path: string | undefined): string {
  if (!path) return '';
  const m = /^task\[(\d+)\]\.(slot|op)\[(\d+)\](?:\.(.+))?$/.exec(path);
  if (!m) {
    const t = /^task\[(\d+)\](?:\.(.+))?$/.exec(path);
    return t ? `task ${t[1]}${t[2] ? `, field ${t[2]}` : ''}: ` : `${path}: `;
  }
  const task = d.tasks[Number(m[1])];
  const kind = task?.kind === 'EMU' ? 'EMU' : 'DLA';
  const op = task?.kind === 'DLA' ? task.slots.find((s) => s.slot === Number(m[3])) : task?.kind === 'EMU' ? task.ops.find((o) => o.slot === Number(m[3])) : undefined;
  const engine = op ? ('opName' in op ? op.opName : op.engine) : null;
  return `task ${m[1]} (${kind}) ${kind === 'EMU' ? 'op' : 'op slot'} ${m[3]}${engine ? ` (${engine})` : ''}${m[4] ? `, field ${m[4]}` : ''}: `;
}

/** The plan's advice for an int8 loadable compiled with a table (a run given a table no longer needs it). */
const askForTable = (dataType: string) => `An ${dataType} loadable: give the calibration table it was compiled with, so the input is quantised with its scale and the output read with the output layer's.`;

/** Plan of a run: tensors, precision, the warnings to show first. */
export function loadableRunPlan(d: DecodedLoadable): LoadableRunPlan {
  const file = d.loadable.file;
  const problems = d.damage.filter((x) => x.kind !== 'limit').map((x) => `${placeOfPath(d, x.path)}${x.message}`);
  let tensors: TensorSpec[] = [];
  try {
    tensors = bindableTensors(d.loadable, file);
  } catch (e) {
    if (e instanceof FormatError) problems.push(e.message);
    else throw e;
  }
  const inputs = tensors.filter((t) => t.kind === 'input');
  const outputs = tensors.filter((t) => t.kind === 'output');
  const first = inputs[0] ?? null;
  const warnings: string[] = [];
  let uncalibrated: boolean | null = null;
  if (first && first.dataType !== 'fp16') {
    uncalibrated = constantScales(d);
    if (uncalibrated) {
      warnings.push(
        `This ${first.dataType} loadable was compiled without a calibration table: nvdla_compiler then gives every tensor the constant scale 127 (its softmax scales are 127 / 127), so what it computes is meaningless. Compile it with a calibration table (Calibrate makes one from the Caffe model).`,
      );
    } else {
      warnings.push(askForTable(first.dataType));
    }
  }
  if (!first && !problems.length) problems.push('the loadable has no bindable input tensor (no INPUT memory entry)');
  let hardware = '';
  let hardwareReason = '';
  try {
    const h = inferHardware(d);
    hardware = h.hardware.name;
    hardwareReason = h.reason;
  } catch (e) {
    if (!(e instanceof FormatError)) throw e;
    problems.push(e.message);
  }
  return {
    file,
    inputs,
    outputs,
    precision: first?.dataType ?? null,
    // an image format padded to 4 channels may hold a gray image (LeNet) or a colour one: the view lets the user choose
    imageChannels: first && first.shape[1] >= 3 ? 3 : 1,
    hardware,
    hardwareReason,
    ops: allOps(d).length,
    memoryBytes: d.loadable.memory_list.reduce((a, m) => a + m.size, 0),
    uncalibrated,
    outputScales: embeddedScales(d, outputs),
    warnings,
    problems,
  };
}

/** Float input values N x channels x H x W for the first input. */
export function inputValues(spec: TensorSpec, value: LoadableInputValue, channels: number, file: string): { values: Float32Array; shape: [number, number, number, number] } {
  const [n, c, h, w] = spec.shape;
  switch (value.kind) {
    case 'random': {
      const ch = Math.min(channels, c);
      return { values: randomBlob(n * ch * h * w, value.seed), shape: [n, ch, h, w] };
    }
    case 'image': {
      const ch = value.color === 'gray' ? 1 : 3;
      if (ch > c) throw new FormatError({ kind: 'semantic', file: value.file, message: `a ${value.color} image has ${ch} channels; input '${spec.name}' of ${file} has ${c}` });
      try {
        return { values: imageToBlob(value.pixels, [n, ch, h, w], { scale: value.scale, mean: value.mean, color: value.color }), shape: [n, ch, h, w] };
      } catch (e) {
        if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file: value.file, message: `the image cannot feed input '${spec.name}': ${e.message}` });
        throw e;
      }
    }
    case 'array':
    case 'values': {
      const a = value.kind === 'array' ? readNpy(value.bytes, value.file) : { shape: [value.values.length], data: value.values };
      const plane = h * w;
      const len = a.data.length;
      // N x C' x H x W, or one item C' x H x W repeated over the batch, with C' <= C
      const perItem = len % (n * plane) === 0 && len / (n * plane) <= c ? len / (n * plane) : len % plane === 0 && len / plane <= c ? len / plane : 0;
      if (!Number.isInteger(perItem) || perItem < 1) {
        throw new FormatError({ kind: 'semantic', file: value.file, message: `the array has shape [${a.shape.join(',')}] (${len} values); input '${spec.name}' takes ${n} x C x ${h} x ${w} values with C at most ${c}` });
      }
      const items = len / (perItem * plane);
      const values = items === n ? a.data : Float32Array.from({ length: n * perItem * plane }, (_, i) => a.data[i % len]!);
      return { values, shape: [n, perItem, h, w] };
    }
  }
}

function planeStats(values: ArrayLike<number>): { min: number; max: number } {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (!Number.isFinite(v)) continue;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  return { min: Number.isFinite(min) ? min : NaN, max: Number.isFinite(max) ? max : NaN };
}

function planeOf(key: string, shape: number[], values: Float32Array, channel: number, height: number, width: number): PlaneSlice {
  const channels = values.length / (height * width);
  if (!Number.isInteger(channel) || channel < 0 || channel >= channels) throw new RangeError(`${key} has ${channels} channel(s); channel ${channel} does not exist`);
  const v = values.slice(channel * height * width, (channel + 1) * height * width);
  return { key, shape, item: 0, channel, height, width, values: v, ...planeStats(v) };
}

/** A C x H x W tensor as heatmap planes: a 1 x 1 plane per channel reads better as one row of C values. */
function planeShape(c: number, h: number, w: number): { channels: number; height: number; width: number } {
  return h === 1 && w === 1 ? { channels: 1, height: 1, width: c } : { channels: c, height: h, width: w };
}

/** The Caffe float pass's values of every layer output for one input, from a Caffe document's `run` service. */
export async function caffeReference(run: RunService, input: { values: Float32Array; shape: readonly number[] }, hooks: LoadableRunHooks = {}): Promise<{ layers: Map<string, ReferenceTensor>; top1: number | null; inputName: string }> {
  const plan = run.plan();
  if (plan.problems.length) throw new FormatError({ kind: 'unsupported', file: 'Caffe model', message: `the Caffe model cannot run: ${plan.problems[0]}` });
  const first = plan.inputs[0];
  if (!first) throw new FormatError({ kind: 'semantic', file: 'Caffe model', message: 'the Caffe model has no input' });
  const want = first.shape.reduce((a, b) => a * b, 1);
  // one item of the loadable's input fills every item of the Caffe net's batch (LeNet's deploy says 64)
  let values = input.values;
  if (want !== values.length) {
    if (values.length === 0 || want % values.length !== 0 || first.shape.slice(1).reduce((a, b) => a * b, 1) !== values.length) {
      throw new FormatError({ kind: 'semantic', file: 'Caffe model', message: `the Caffe input '${first.name}' is [${first.shape.join(',')}]; the loadable was fed [${input.shape.join(',')}]: their items differ in size, so the two cannot run the same input` });
    }
    values = Float32Array.from({ length: want }, (_, i) => input.values[i % input.values.length]!);
  }
  const outcome = await run.run(
    { inputs: { [first.name]: { kind: 'array', file: 'loadable-input.npy', bytes: writeNpy(first.shape, values) } } },
    { ...(hooks.signal ? { signal: hooks.signal } : {}), ...(hooks.now ? { now: hooks.now } : {}), ...(hooks.caffeKernels ? { kernels: hooks.caffeKernels } : {}) },
  );
  const layers = new Map<string, ReferenceTensor>();
  const gather = (key: string, shape: number[]): ReferenceTensor => ({ shape: [1, ...shape.slice(1)], values: blobValues(run, key, shape, 1) });
  layers.set(first.name, { shape: [1, ...first.shape.slice(1)], values: input.values });
  for (const l of outcome.layers) {
    const top = l.tops[0];
    if (!top || l.type === 'Input') continue;
    layers.set(l.layer, gather(top.key, top.shape));
  }
  const top1 = outcome.top[0]?.classes[0]?.index ?? null;
  return { layers, top1, inputName: first.name };
}

/**
 * The deploy with every Input layer's (and legacy `input_dim` / `input_shape`) batch set to `n`:
 * a deploy written for batch 64 (LeNet's) compiles to 64 op slots a layer, the loadable to match
 * may have been compiled from the same net at batch 1.
 */
export function withBatch(deploy: CaffeDeploy, n: number): CaffeDeploy {
  const net: CaffeMessage = { ...deploy.net };
  const setFirst = (dims: unknown): unknown => (Array.isArray(dims) && dims.length ? [n, ...dims.slice(1)] : dims);
  const shapeWith = (shape: unknown): unknown => (Array.isArray(shape) ? shape.map(shapeWith) : shape && typeof shape === 'object' ? { ...(shape as CaffeMessage), dim: setFirst((shape as CaffeMessage).dim) } : shape);
  if (Array.isArray(net.layer)) {
    net.layer = (net.layer as CaffeMessage[]).map((l) => {
      const p = l.input_param as CaffeMessage | undefined;
      return l.type === 'Input' && p ? { ...l, input_param: { ...p, shape: shapeWith(p.shape) } } : l;
    });
  }
  if (net.input_dim !== undefined) net.input_dim = setFirst(net.input_dim);
  if (net.input_shape !== undefined) net.input_shape = shapeWith(net.input_shape);
  return { ...deploy, net };
}

/** The run service of one loadable; the last run's surfaces live here until the next run. */
export function loadableRunService(d: DecodedLoadable): LoadableRunService {
  const file = d.loadable.file;
  const ops = allOps(d);
  const nodeOf = new Map(ops.map((o, i) => [`${o.task}:${o.slot}`, i]));
  let last: LastRun | null = null;
  let planned: LoadableRunPlan | null = null;
  const planOnce = (): LoadableRunPlan => (planned ??= loadableRunPlan(d));
  // what runs of this loadable share: its decoded tasks, memory images, decoded weights
  const cache = new DlaRunCache(d.loadable);
  cache.decoded = d;

  const needRun = (): LastRun => {
    if (!last) throw new FormatError({ kind: 'unsupported', file, message: 'there is no run to show: run the loadable first' });
    return last;
  };
  const slotOf = (r: LastRun, order: number): SlotRun => {
    const s = r.result.slots[order];
    if (!s) throw new FormatError({ kind: 'semantic', file, message: `the last run has ${r.result.slots.length} op slots; there is no op ${order}` });
    return s;
  };

  return {
    plan: planOnce,

    async run(request: LoadableRunRequest, hooks: LoadableRunHooks = {}): Promise<LoadableRunOutcome> {
      const plan = planOnce();
      if (plan.problems.length) throw new FormatError({ kind: 'unsupported', file, message: `the loadable cannot run: ${plan.problems[0]}` });
      const { runLoadable } = await import('./run');
      const spec = plan.inputs[0]!;
      last = null;
      const input = inputValues(spec, request.input, request.channels ?? plan.imageChannels, file);
      const warnings = request.calibration ? plan.warnings.filter((w) => w !== askForTable(spec.dataType)) : [...plan.warnings];
      let inputScale: number | null = null;
      if (spec.needsScale) {
        const given = request.calibration?.[spec.name]?.scale;
        if (given !== undefined && given > 0) inputScale = given;
        else {
          inputScale = DEFAULT_INPUT_SCALE;
          warnings.push(`input '${spec.name}' is ${spec.dataType}: ${request.calibration ? `the calibration table has no scale for '${spec.name}'` : 'no calibration table was given'}, so it is quantised with scale ${DEFAULT_INPUT_SCALE} (nvdla_compiler's default), i.e. rounded to whole numbers in -128..127`);
        }
      }
      const bound = bindInput(d.loadable, spec, input.values, input.shape[1], inputScale, file);
      const result = await runLoadable(d.loadable, {
        inputs: [bound],
        cache,
        captureSurfaces: true,
        ...(request.hardware ? { hardware: request.hardware } : {}),
        ...(hooks.kernels && plan.memoryBytes > KERNELS_FROM_BYTES ? { kernels: hooks.kernels } : {}),
        ...(hooks.signal ? { signal: hooks.signal } : {}),
        ...(hooks.now ? { now: hooks.now } : {}),
        ...(hooks.onProgress ? { onProgress: (p) => hooks.onProgress!({ done: p.done, total: p.total, task: p.task, slot: p.slot, engine: p.engine }) } : {}),
      });
      warnings.push(...result.warnings.map((w) => w.text));
      const outputs: LoadableOutputView[] = result.outputs.map((o) => {
        const ospec = plan.outputs.find((t) => t.bindId === o.bindId);
        let scale: number | null = null;
        let scaleSource = 'fp16: the values as they are';
        if (ospec?.needsScale) {
          const fromTable = request.calibration?.[o.name]?.scale;
          const embedded = plan.outputScales[o.name];
          if (fromTable !== undefined && fromTable > 0) {
            scale = fromTable;
            scaleSource = `the calibration table's scale for '${o.name}'`;
          } else if (embedded !== undefined && embedded > 0) {
            scale = embedded;
            scaleSource = "the loadable's own (the EMU op's output_scale_factor)";
          } else {
            scale = CONSTANT_SCALE;
            scaleSource = `nvdla_compiler's default without a table (${CONSTANT_SCALE})`;
            warnings.push(`output '${o.name}' (${ospec.dataType}) was read with nvdla_compiler's default scale ${CONSTANT_SCALE}: no scale was given and the loadable holds none`);
          }
        }
        const v = outputValues(o, scale, file);
        const [, c, h, w] = v.shape;
        const item = v.values.subarray(0, c * h * w);
        return {
          name: o.name,
          bindId: o.bindId,
          shape: v.shape,
          dataType: ospec?.dataType ?? 'fp16',
          scale,
          scaleSource,
          values: v.values,
          top: c > 1 && h === 1 && w === 1 ? topK(item, 5) : null,
        };
      });
      const slots: SlotRunRow[] = result.slots.map((s) => ({
        order: s.order,
        task: s.task,
        kind: s.kind,
        slot: s.slot,
        engine: s.engine,
        node: nodeOf.get(`${s.task}:${s.slot}`) ?? -1,
        ms: s.ms,
        output: s.output
          ? { channel: s.output.channel, height: s.output.height, width: s.output.width, precision: s.output.precision, where: s.output.where, saturated: s.output.saturated, ...planeStats(s.output.values ?? []) }
          : null,
        ...(s.lut ? { lut: s.lut } : {}),
        ...(s.bytes !== undefined ? { bytes: s.bytes } : {}),
      }));
      last = { result, input, calibration: request.calibration, reference: null, compared: new Map() };
      return { file, hardware: result.hardware.name, inputName: spec.name, inputShape: input.shape, inputScale, slots, outputs, warnings, totalMs: result.totalMs };
    },

    /** channel `channel` of op `order`'s output (values in the surface's own domain) */
    surface(order: number, channel: number): PlaneSlice {
      const r = needRun();
      const s = slotOf(r, order);
      if (!s.output?.values) throw new FormatError({ kind: 'semantic', file, message: `op ${order} (${s.engine}) writes no data cube` });
      const p = planeShape(s.output.channel, s.output.height, s.output.width);
      try {
        return planeOf(`${s.engine} slot ${s.slot}`, [s.output.channel, s.output.height, s.output.width], s.output.values, channel, p.height, p.width);
      } catch (e) {
        if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file, message: e.message });
        throw e;
      }
    },

    /**
     * Every op slot of the last run against the Caffe float pass of the same input: `caffe` is
     * the Caffe document's `run` service, `caffeFiles` its deploy and weights (our compiler
     * compiles them to find which layer each op slot computes).
     */
    async compare(caffe: RunService, caffeFiles: SourceFile[], hooks: LoadableRunHooks = {}): Promise<LoadableComparison> {
      const r = needRun();
      const { readDeploy, readWeights } = await import('../nvdla/network/caffe-files');
      const { matchCompile } = await import('./slot-layers');
      const { bandsLabel, compareSlots } = await import('./compare');
      const { parseCalibrationTable } = await import('../nvdla/calibrate/table');
      const weightsFile = caffeFiles.find((f) => /\.caffemodel$/i.test(f.name));
      const deployFile = caffeFiles.find((f) => f !== weightsFile && !/\.caffemodel$/i.test(f.name));
      if (!deployFile || !weightsFile) {
        throw new FormatError({ kind: 'unsupported', file: caffeFiles[0]?.name ?? 'Caffe model', message: 'comparing needs the Caffe model as a deploy .prototxt with its .caffemodel (the compiler reads both to find which layer each op slot computes)' });
      }
      const deploy = withBatch(readDeploy(new TextDecoder().decode(deployFile.bytes), deployFile.name), r.result.outputs.length ? (bindableTensors(d.loadable, file).find((t) => t.kind === 'input')?.shape[0] ?? 1) : 1);
      const weights = readWeights(weightsFile.bytes, weightsFile.name);
      const calibtable = r.calibration ? parseCalibrationTable(JSON.stringify(Object.fromEntries(Object.entries(r.calibration).map(([k, v]) => [k, { scale: v.scale, min: 0, max: 0, offset: 0 }]))), 'calibration') : undefined;
      const matched = matchCompile(d.loadable, deploy, weights, calibtable);
      if (!matched) {
        throw new FormatError({ kind: 'unsupported', file, message: `no compile of ${deployFile.name} (nv_full, nv_large, nv_small; fast-math, basic, default) gives this loadable's op slots, so its op slots cannot be matched with Caffe layers` });
      }
      // item 0 of the input, as the Caffe net takes it (its own batch)
      const ref = await caffeReference(caffe, { values: r.input.values.subarray(0, r.input.shape[1] * r.input.shape[2] * r.input.shape[3]), shape: [1, ...r.input.shape.slice(1)] }, hooks);
      const scale = (layer: string) => r.calibration?.[layer]?.scale ?? null;
      const cmp = compareSlots({ run: r.result, mapping: matched.mapping, reference: (layer) => ref.layers.get(layer), scale });
      const byPlace = new Map(matched.mapping.map((m) => [`${m.task}:${m.slot}`, m]));
      r.reference = ref.layers;
      r.compared = new Map(cmp.rows.map((row) => [row.order, { layer: row.layer, scale: row.scale, ...(row.bands ? { stitched: { values: row.bands.values, shape: [row.channel, row.height, row.width] as [number, number, number], label: bandsLabel(row.bands.slots) } } : {}) }]));
      const rows: ComparisonRow[] = cmp.rows.map((row) => ({
        order: row.order,
        task: row.task,
        slot: row.slot,
        engine: row.engine,
        node: nodeOf.get(`${row.task}:${row.slot}`) ?? -1,
        unit: row.node,
        layer: row.layer,
        layers: byPlace.get(`${row.task}:${row.slot}`)?.layers ?? [row.layer],
        ...(row.bands ? { bands: { slots: row.bands.slots, nodes: row.bands.slots.map((slot) => nodeOf.get(`${row.task}:${slot}`) ?? -1), label: bandsLabel(row.bands.slots) } } : {}),
        precision: row.precision,
        shape: [row.channel, row.height, row.width],
        scale: row.scale,
        metrics: row.metrics,
        saturated: row.saturated,
      }));
      const o = matched.options;
      const warnings = r.result.warnings.map((w) => w.text);
      const loadableTop = (() => {
        const out = r.result.outputs[0];
        if (!out) return null;
        const slot = [...r.result.slots].reverse().find((s) => s.output?.values);
        const v = slot?.output?.values;
        return v && v.length > 1 ? topK(v, 1)[0]!.index : null;
      })();
      return {
        rows,
        skipped: cmp.skipped.map((s) => ({ ...s, node: nodeOf.get(`${s.task}:${s.slot}`) ?? -1 })),
        compiledAs: `${o.configtarget} ${o.cprecision} ${o.profile}`,
        matchedWith: `our compile of ${deployFile.name} with --configtarget ${o.configtarget} --cprecision ${o.cprecision} --profile ${o.profile}${calibtable ? ' and the calibration table' : ''} gives the same op slots`,
        top1: loadableTop !== null && ref.top1 !== null ? { loadable: loadableTop, caffe: ref.top1 } : null,
        warnings,
      };
    },

    /** op `order`'s output beside the Caffe blob it was compared with (both as floats), and their difference */
    comparePlanes(order: number, channel: number): { loadable: PlaneSlice; caffe: PlaneSlice; difference: PlaneSlice } {
      const r = needRun();
      const s = slotOf(r, order);
      const c = r.compared.get(order);
      const ref = c ? r.reference?.get(c.layer) : undefined;
      if (!c || !ref || !s.output?.values) throw new FormatError({ kind: 'semantic', file, message: `op ${order} (${s.engine}) was not compared with a Caffe layer: compare the run first` });
      // a layer split into bands: the stitched surface (already floats), else the slot's own
      const [C, H, W] = c.stitched?.shape ?? [s.output.channel, s.output.height, s.output.width];
      const size = C * H * W;
      const values = s.output.values;
      const got = c.stitched ? c.stitched.values : Float32Array.from(values, (v) => v * c.scale);
      const name = c.stitched ? `${s.engine} ${c.stitched.label}` : `${s.engine} slot ${s.slot}`;
      const want = ref.values.subarray(0, size);
      const diff = Float32Array.from(got, (v, i) => v - want[i]!);
      const p = planeShape(C, H, W);
      const shape = [C, H, W];
      try {
        return {
          loadable: planeOf(name, shape, got, channel, p.height, p.width),
          caffe: planeOf(c.layer, shape, want.slice(), channel, p.height, p.width),
          difference: planeOf(`${name} − ${c.layer}`, shape, diff, channel, p.height, p.width),
        };
      } catch (e) {
        if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file, message: e.message });
        throw e;
      }
    },
  };
}
