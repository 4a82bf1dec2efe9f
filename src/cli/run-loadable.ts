/**
 * `npu-studio run-loadable X.nvdla [--input IMG.png|IMG.jpg|X.npy] [--seed N] [--calibtable calib.json]
 * [--hardware nv_full|nv_large|nv_small] [--out OUT.npz] [--surfaces] [--compare NET.prototxt
 * --caffemodel M] [--json]`: runs a loadable on the DLA model through the `runLoadable` service
 * (core/dla/run-service.ts), the same one the studio's Run view uses.
 *
 * The input is float: an image (resized to the input tensor, `--color`, `--scale`, `--mean` as
 * `npu-studio run`, defaulting to the Caffe net's transform when `--compare` gives one), a `.npy`
 * of the input's N x C x H x W (C the network's channels, at most the tensor's), or seeded random
 * values. Int8 inputs are quantised with the input's scale from `--calibtable`; outputs leave
 * dequantised with theirs (or the loadable's own EMU output scale). `--out` writes the outputs
 * (and with `--surfaces` every op's output in its own domain: integers for int8, values for
 * fp16) to an .npz; `--compare` runs the Caffe net (at batch 1) on the same input and prints the
 * per-layer error table (op slots matched to layers by compiling the net with NPU Studio's compiler).
 */
import { writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { basename } from 'node:path';
import { FormatError } from '../core/errors';
import { fastCaffeKernels } from '../core/caffe/forward/fast-kernels';
import type { ColorOrder } from '../core/caffe/input';
import { openCaffeModel } from '../core/caffe/model';
import { writeNpz } from '../core/caffe/npy';
import { caffeRunService } from '../core/caffe/run-service';
import { DLA_CONFIGS, type DlaConfigName } from '../core/dla/hardware';
import { KERNELS_FROM_BYTES, loadableRunService } from '../core/dla/run-service';
import type { CalibrationScales, ComparisonRow, LoadableComparison, LoadableInputValue } from '../core/dla/run-types';
import { read } from '../core/loadable/read';
import { decodeTasks } from '../core/loadable/tasks';
import { parseCalibrationTable, type CalibrationTable } from '../core/nvdla/calibrate/table';
import type { Command } from './command';
import { createNodeKernels } from './kernels';
import { EXIT_OK, UsageError, parseOptions } from './io';
import { decodeImage } from './run';

const OPTIONS = {
  input: { type: 'string' },
  seed: { type: 'string' },
  calibtable: { type: 'string' },
  hardware: { type: 'string' },
  out: { type: 'string' },
  surfaces: { type: 'boolean' },
  compare: { type: 'string' },
  caffemodel: { type: 'string' },
  color: { type: 'string' },
  scale: { type: 'string' },
  mean: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function numberOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number, not '${v}'`);
  return n;
}

/** A calibration entry's scale: `scale`, else max(|min|, |max|) / 127 (notes/nvdla.md 8.1). */
function scalesOf(t: CalibrationTable): CalibrationScales {
  const out: CalibrationScales = {};
  for (const [name, e] of Object.entries(t.entries)) {
    const s = e.scale ?? Math.max(Math.abs(e.min), Math.abs(e.max)) / 127;
    if (s > 0) out[name] = { scale: s };
  }
  return out;
}

const fmt = (v: number, digits = 4) => (Number.isFinite(v) ? v.toPrecision(digits) : v > 0 ? 'inf' : '-inf');

function compareTable(rows: ComparisonRow[]): string {
  const head = ['layer', 'slot', 'engine', 'precision', 'max abs', 'relative', 'cosine', 'SNR dB', 'saturated'];
  const lines = rows.map((r) => [r.layer, r.bands ? `${r.task}.${r.bands.label}` : `${r.task}.${r.slot}`, r.engine, r.precision, fmt(r.metrics.maxAbs), fmt(r.metrics.relative), r.metrics.cosine.toFixed(5), Number.isFinite(r.metrics.snrDb) ? r.metrics.snrDb.toFixed(1) : 'inf', String(r.saturated)]);
  const widths = head.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i]!.length)));
  return [head, ...lines].map((l) => l.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
}

export const runLoadableCommand: Command = {
  name: 'run-loadable',
  usage:
    'npu-studio run-loadable X.nvdla [--input IMG.png|IMG.jpg|X.npy] [--seed N] [--calibtable calib.json] [--hardware nv_full|nv_large|nv_small] [--out OUT.npz] [--surfaces] [--compare NET.prototxt --caffemodel M] [--color gray|bgr|rgb] [--scale S] [--mean a,b,c] [--json]\n' +
    '  runs an NVDLA loadable on the functional model of the DLA engines; int8 tensors take their scales from --calibtable;\n' +
    '  --out writes the outputs (dequantised) and with --surfaces every op output (surface:<order>:<task>.<slot>:<engine>); --compare prints the per-layer error against the Caffe float pass',
  async run(argv, io) {
    const { values: v, positionals } = parseOptions(argv, OPTIONS);
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'takes exactly one loadable' : 'needs a loadable (.nvdla)');
    if (v.compare !== undefined && v.caffemodel === undefined) throw new UsageError('--compare needs --caffemodel');
    if (v.surfaces === true && v.out === undefined) throw new UsageError('--surfaces needs --out OUT.npz');
    const hardware = v.hardware as DlaConfigName | undefined;
    if (hardware !== undefined && !(hardware in DLA_CONFIGS)) throw new UsageError(`--hardware is nv_full, nv_large or nv_small, not '${v.hardware}'`);
    const color = v.color as ColorOrder | undefined;
    if (color !== undefined && color !== 'gray' && color !== 'bgr' && color !== 'rgb') throw new UsageError(`--color is gray, bgr or rgb, not '${v.color}'`);
    const seed = numberOption(v.seed, 'seed') ?? 1;
    const scaleOpt = numberOption(v.scale, 'scale');
    const meanOpt = v.mean?.split(',').map((m) => numberOption(m.trim(), 'mean')!);

    const path = positionals[0]!;
    const file = basename(path);
    const loadable = read(new Uint8Array(readInput(path)), file);
    const service = loadableRunService(decodeTasks(loadable));
    const plan = service.plan();
    if (plan.problems.length) throw new FormatError({ kind: 'unsupported', file, message: `the loadable cannot run: ${plan.problems[0]}` });
    const input = plan.inputs[0]!;
    const calibration = v.calibtable ? scalesOf(parseCalibrationTable(readInput(v.calibtable, 'utf8'), basename(v.calibtable))) : null;

    // the Caffe net, when comparing (at batch 1: one item against the loadable's first): its input shape decides the channels, its transform the image defaults
    const caffeFiles = v.compare
      ? [
          { name: basename(v.compare), bytes: new Uint8Array(readInput(v.compare)) },
          { name: basename(v.caffemodel!), bytes: new Uint8Array(readInput(v.caffemodel!)) },
        ]
      : null;
    const caffe = caffeFiles ? openCaffeModel(caffeFiles, { batch: 1 }) : null;
    const netInput = caffe ? caffe.net.blobs[caffe.net.inputs[0] ?? -1] : undefined;
    const tc = input.shape[1];
    const imageFormat = input.format !== 'FEATURE' && input.format !== 'FEATURE_X8';
    const channels = netInput?.shape?.[1] ?? (color === 'gray' ? 1 : color ? 3 : imageFormat ? Math.min(3, tc) : tc);

    let value: LoadableInputValue;
    if (v.input) {
      const bytes = new Uint8Array(readInput(v.input));
      const inFile = basename(v.input);
      if (bytes[0] === 0x93 && bytes[1] === 0x4e) value = { kind: 'array', file: inFile, bytes };
      else {
        const t = caffe?.transform;
        value = { kind: 'image', file: inFile, pixels: decodeImage(bytes, inFile), color: color ?? (channels === 1 ? 'gray' : 'bgr'), scale: scaleOpt ?? t?.scale ?? 1, mean: meanOpt ?? t?.mean ?? [0] };
      }
    } else value = { kind: 'random', seed };
    // the WebAssembly kernels (threads started for this run) pay off for fp16 convolutions of real size, not for a LeNet
    const kernels = plan.memoryBytes > KERNELS_FROM_BYTES ? createNodeKernels() : undefined;
    let outcome;
    try {
      outcome = await service.run({ input: value, calibration, channels, ...(hardware ? { hardware } : {}) }, { now: () => performance.now(), ...(kernels ? { kernels } : {}) });
    } finally {
      kernels?.dispose();
    }
    for (const wn of outcome.warnings) io.err(`npu-studio run-loadable: ${file}: warning: ${wn}\n`);

    let comparison: LoadableComparison | null = null;
    if (caffe && caffeFiles) {
      const fast = createNodeKernels();
      try {
        comparison = await service.compare(caffeRunService(caffe), caffeFiles, { now: () => performance.now(), caffeKernels: fastCaffeKernels(fast) });
      } finally {
        fast.dispose();
      }
    }

    if (v.out) {
      const arrays: [string, { shape: readonly number[]; data: Float32Array }][] = outcome.outputs.map((o) => [o.name, { shape: o.shape, data: o.values }]);
      if (v.surfaces === true) {
        for (const s of outcome.slots) {
          if (!s.output) continue;
          const { channel: c, height: h, width: w } = s.output;
          // the service gives a 1 x 1 surface's C values as one plane (a row), else one plane per channel
          const planes = Array.from({ length: h === 1 && w === 1 ? 1 : c }, (_, k) => service.surface(s.order, k).values);
          const data = new Float32Array(c * h * w);
          planes.forEach((p, k) => data.set(p, k * p.length));
          arrays.push([`surface:${s.order}:${s.task}.${s.slot}:${s.engine}`, { shape: [1, s.output.channel, s.output.height, s.output.width], data }]);
        }
      }
      writeFileSync(v.out, writeNpz(arrays));
    }

    if (v.json === true) {
      io.out(
        JSON.stringify({
          format: 'nvdla-run',
          hardware: outcome.hardware,
          outputs: outcome.outputs.map((o) => ({ name: o.name, shape: o.shape, dataType: o.dataType, scale: o.scale, top5: (o.top ?? []).map((t) => ({ class: t.index, score: t.score })) })),
          ops: outcome.slots.length,
          saturated: outcome.slots.reduce((a, s) => a + (s.output?.saturated ?? 0), 0),
          warnings: outcome.warnings,
          ms: Math.round(outcome.totalMs),
          ...(comparison
            ? {
                compiledAs: comparison.compiledAs,
                compare: comparison.rows.map((r) => ({ layer: r.layer, task: r.task, slot: r.slot, ...(r.bands ? { bands: r.bands.slots } : {}), engine: r.engine, precision: r.precision, maxAbs: r.metrics.maxAbs, relative: r.metrics.relative, cosine: r.metrics.cosine, snrDb: Number.isFinite(r.metrics.snrDb) ? r.metrics.snrDb : null, saturated: r.saturated })),
              }
            : {}),
        }) + '\n',
      );
      return EXIT_OK;
    }
    const reason = hardware ? 'given with --hardware' : plan.hardwareReason;
    const lines: string[] = [`${file}: ${outcome.slots.length} ops on ${outcome.hardware} (${reason}) in ${outcome.totalMs.toFixed(1)} ms`];
    for (const o of outcome.outputs) {
      lines.push(`${o.name}: [${o.shape.join(',')}] ${o.dataType}${o.scale !== null ? ` x ${o.scale.toPrecision(4)} (${o.scaleSource})` : ''}`);
      if (o.top) lines.push(`top-5: ${o.top.map((t) => `${t.index} (${t.score.toPrecision(4)})`).join(', ')}`);
    }
    if (comparison) {
      lines.push(`compared with ${basename(v.compare!)} (op slots matched by compiling it as ${comparison.compiledAs}):`, compareTable(comparison.rows));
      for (const s of comparison.skipped.filter((x) => !x.reason.includes('streams its accumulators'))) lines.push(`not compared: ${s.task}.${s.slot} ${s.engine}: ${s.reason}`);
      if (comparison.top1) lines.push(`top-1: loadable ${comparison.top1.loadable}, Caffe ${comparison.top1.caffe}`);
    }
    if (v.out) lines.push(`${basename(v.out)}: ${outcome.outputs.length} output(s)${v.surfaces === true ? ` and ${outcome.slots.filter((s) => s.output).length} surfaces` : ''}`);
    io.out(lines.join('\n') + '\n');
    return EXIT_OK;
  },
};
