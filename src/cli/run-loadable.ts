/**
 * `npu-studio run-loadable X.nvdla [--input IMG.png|IMG.jpg|X.npy] [--seed N] [--calibtable calib.json]
 * [--hardware nv_full|nv_large|nv_small] [--out OUT.npz] [--surfaces] [--compare NET.prototxt
 * --caffemodel M] [--json]`: runs a loadable on the DLA model (core/dla).
 *
 * The input is float: an image (resized to the input tensor, `--color`, `--scale`, `--mean` as
 * `npu-studio run`, defaulting to the Caffe net's transform when `--compare` gives one), a `.npy`
 * of the input's N x C x H x W (C the network's channels, at most the tensor's), or seeded random
 * values. Int8 inputs are quantised with the input's scale from `--calibtable`; outputs leave
 * dequantised with theirs (or the loadable's own EMU output scale). `--out` writes the outputs
 * (and with `--surfaces` every op's output in its own domain: integers for int8, values for
 * fp16) to an .npz; `--compare` runs the Caffe net on the same input and prints the per-layer
 * error table (op slots matched to layers by compiling the net with NPU Studio's compiler).
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { FormatError } from '../core/errors';
import { fastCaffeKernels } from '../core/caffe/forward/fast-kernels';
import { runForward } from '../core/caffe/forward/run';
import { imageToBlob, type ColorOrder } from '../core/caffe/input';
import { openCaffeModel } from '../core/caffe/model';
import { readNpy, writeNpz } from '../core/caffe/npy';
import { feedInputs } from '../core/caffe/run-service';
import { layerOutputs } from '../core/dla/caffe-reference';
import type { LayerComparison } from '../core/dla/compare';
import { DLA_CONFIGS, type DlaConfigName } from '../core/dla/hardware';
import { executeService, type ExecuteInputValue } from '../core/dla/service';
import { matchCompile } from '../core/dla/slot-layers';
import { read } from '../core/loadable/read';
import { parseCalibrationTable, type CalibrationTable } from '../core/nvdla/calibrate/table';
import { readDeploy, readWeights } from '../core/nvdla/network/caffe-files';
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
function scalesOf(t: CalibrationTable): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [name, e] of Object.entries(t.entries)) {
    const s = e.scale ?? Math.max(Math.abs(e.min), Math.abs(e.max)) / 127;
    if (s > 0) out[name] = s;
  }
  return out;
}

const fmt = (v: number, digits = 4) => (Number.isFinite(v) ? v.toPrecision(digits) : v > 0 ? 'inf' : '-inf');

function compareTable(rows: LayerComparison[]): string {
  const head = ['layer', 'slot', 'engine', 'precision', 'max abs', 'relative', 'cosine', 'SNR dB', 'saturated'];
  const lines = rows.map((r) => [r.layer, `${r.task}.${r.slot}`, r.engine, r.precision, fmt(r.metrics.maxAbs), fmt(r.metrics.relative), r.metrics.cosine.toFixed(5), Number.isFinite(r.metrics.snrDb) ? r.metrics.snrDb.toFixed(1) : 'inf', String(r.saturated)]);
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
    const loadable = read(new Uint8Array(readFileSync(path)), file);
    const service = executeService(loadable);
    const plan = service.plan();
    const input = plan.tensors.find((t) => t.kind === 'input');
    if (!input) throw new FormatError({ kind: 'unsupported', file, message: 'the loadable has no bindable input tensor' });
    const calib = v.calibtable ? parseCalibrationTable(readFileSync(v.calibtable, 'utf8'), basename(v.calibtable)) : null;
    const scales = calib ? scalesOf(calib) : {};

    // the Caffe net, when comparing: its input shape decides the channels, its transform the image defaults
    const caffe = v.compare
      ? openCaffeModel([
          { name: basename(v.compare), bytes: new Uint8Array(readFileSync(v.compare)) },
          { name: basename(v.caffemodel!), bytes: new Uint8Array(readFileSync(v.caffemodel!)) },
        ])
      : null;
    const netInput = caffe ? caffe.net.blobs[caffe.net.inputs[0] ?? -1] : undefined;
    const [n, tc, h, w] = input.shape;
    const imageFormat = input.format !== 'FEATURE' && input.format !== 'FEATURE_X8';
    const channels = netInput?.shape?.[1] ?? (color === 'gray' ? 1 : color ? 3 : imageFormat ? Math.min(3, tc) : tc);

    let values: Float32Array;
    if (v.input) {
      const bytes = new Uint8Array(readFileSync(v.input));
      const inFile = basename(v.input);
      if (bytes[0] === 0x93 && bytes[1] === 0x4e) {
        const a = readNpy(bytes, inFile);
        values = a.data;
      } else {
        const t = caffe?.transform;
        try {
          values = imageToBlob(decodeImage(bytes, inFile), [n, channels, h, w], { ...(color ? { color } : {}), scale: scaleOpt ?? t?.scale ?? 1, mean: meanOpt ?? t?.mean ?? [0] });
        } catch (e) {
          if (e instanceof RangeError) throw new FormatError({ kind: 'unsupported', file: inFile, message: e.message });
          throw e;
        }
      }
    } else if (caffe) {
      values = feedInputs(caffe, { inputs: {}, seed })[netInput!.name]!;
    } else values = new Float32Array(0); // seeded random values below
    const request: ExecuteInputValue = values.length ? { kind: 'array', values, channels: values.length / (n * h * w) } : { kind: 'random', seed, channels };
    // the WebAssembly kernels (threads started once) pay off for fp16 convolutions of real size, not for a LeNet
    const bytes = loadable.memory_list.reduce((a, m) => a + m.size, 0);
    const kernels = bytes > 16 * 2 ** 20 ? createNodeKernels() : undefined;
    let outcome;
    try {
      outcome = await service.run({ inputs: { [input.name]: request }, scales, ...(hardware ? { hardware } : {}) }, { now: () => performance.now(), ...(kernels ? { kernels } : {}) });
    } finally {
      kernels?.dispose();
    }
    for (const wn of outcome.warnings) io.err(`npu-studio run-loadable: ${file}: warning: ${wn.text}\n`);

    let comparison: LayerComparison[] | null = null;
    let skipped: { task: number; slot: number; engine: string; reason: string }[] = [];
    let matched: string | null = null;
    if (caffe) {
      const fed = request.kind === 'array' ? request.values : null;
      if (!fed) throw new FormatError({ kind: 'corrupt', file, message: 'no float input to compare with' });
      const fast = createNodeKernels();
      let result;
      try {
        result = await runForward(caffe.net, { inputs: { [netInput!.name]: fed }, file: basename(v.compare!), kernels: fastCaffeKernels(fast) });
      } finally {
        fast.dispose();
      }
      const deploy = readDeploy(readFileSync(v.compare!, 'utf8'), basename(v.compare!));
      const weights = readWeights(new Uint8Array(readFileSync(v.caffemodel!)), basename(v.caffemodel!));
      const match = matchCompile(loadable, deploy, weights, calib ?? undefined);
      if (!match) throw new FormatError({ kind: 'unsupported', file, message: `compiling ${basename(v.compare!)} with NPU Studio's compiler (every configuration and profile) gives other op slots than this loadable: its slots cannot be matched to layers` });
      matched = `${match.options.configtarget} ${match.options.cprecision} ${match.options.profile}`;
      const cmp = service.compare(match.mapping, layerOutputs(caffe.net, result), scales);
      comparison = cmp.rows;
      skipped = cmp.skipped;
    }

    if (v.out) {
      const arrays: [string, { shape: readonly number[]; data: Float32Array }][] = outcome.outputs.map((o) => [o.name, { shape: o.shape, data: o.values }]);
      if (v.surfaces === true) {
        for (const s of outcome.slots) {
          if (!s.output) continue;
          const planes = Array.from({ length: s.output.channel }, (_, c) => service.plane(s.order, c).values);
          const data = new Float32Array(s.output.channel * s.output.height * s.output.width);
          planes.forEach((p, c) => data.set(p, c * p.length));
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
          outputs: outcome.outputs.map((o) => ({ name: o.name, shape: o.shape, dataType: o.dataType, scale: o.scale, top5: o.top.map((t) => ({ class: t.index, score: t.score })) })),
          ops: outcome.slots.length,
          saturated: outcome.slots.reduce((a, s) => a + (s.output?.saturated ?? 0), 0),
          warnings: outcome.warnings.map((x) => x.text),
          ms: Math.round(outcome.ms),
          ...(comparison
            ? {
                compiledAs: matched,
                compare: comparison.map((r) => ({ layer: r.layer, task: r.task, slot: r.slot, engine: r.engine, precision: r.precision, maxAbs: r.metrics.maxAbs, relative: r.metrics.relative, cosine: r.metrics.cosine, snrDb: Number.isFinite(r.metrics.snrDb) ? r.metrics.snrDb : null, saturated: r.saturated })),
              }
            : {}),
        }) + '\n',
      );
      return EXIT_OK;
    }
    const lines: string[] = [`${file}: ${outcome.slots.length} ops on ${outcome.hardware} (${outcome.hardwareReason}) in ${outcome.ms.toFixed(1)} ms`];
    for (const o of outcome.outputs) {
      lines.push(`${o.name}: [${o.shape.join(',')}] ${o.dataType}${o.scale !== null ? ` x ${o.scale.toPrecision(4)} (${o.scaleSource})` : ''}`);
      if (o.shape[1] > 1) lines.push(`top-5: ${o.top.map((t) => `${t.index} (${t.score.toPrecision(4)})`).join(', ')}`);
    }
    if (comparison) {
      lines.push(`compared with ${basename(v.compare!)} (op slots matched by compiling it as ${matched}):`, compareTable(comparison));
      for (const s of skipped.filter((x) => !x.reason.includes('streams its accumulators'))) lines.push(`not compared: ${s.task}.${s.slot} ${s.engine}: ${s.reason}`);
    }
    if (v.out) lines.push(`${basename(v.out)}: ${outcome.outputs.length} output(s)${v.surfaces === true ? ` and ${outcome.slots.filter((s) => s.output).length} surfaces` : ''}`);
    io.out(lines.join('\n') + '\n');
    return EXIT_OK;
  },
};
