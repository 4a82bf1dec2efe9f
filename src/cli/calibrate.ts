/**
 * `npu-studio calibrate NET.prototxt --caffemodel M --inputs DIR|X.npy [--method max|percentile:P|entropy]
 * -o calib.json [--json]`: the int8 calibration table nvdla_compiler's `--calibtable` reads (and
 * `npu-studio compile` and `run-loadable`), made from the Caffe float pass over the inputs
 * (core/dla/calibrate.ts): a folder of PNG / JPEG images (each resized and converted as `npu-studio
 * run` does: `--color`, `--scale`, `--mean`, defaulting to the net's transform_param), or a `.npy`
 * whose first axis holds the items.
 *
 * Pooling layers take the scale of the layer they pool: the PDP writes its input's int8 values
 * without rescaling, and a pooling scale of its own would make the compiler misread them; every
 * input of a Concat takes the Concat's scale, since the concatenation only places the producers'
 * int8 values side by side (`int8ScaleTies`; `--no-ties` keeps every tensor's own scale, as a
 * TensorRT table has).
 */
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { basename, join } from 'node:path';
import { FormatError } from '../core/errors';
import { fastCaffeKernels } from '../core/caffe/forward/fast-kernels';
import { runForward } from '../core/caffe/forward/run';
import { imageToBlob, type ColorOrder } from '../core/caffe/input';
import { openCaffeModel } from '../core/caffe/model';
import { readNpy } from '../core/caffe/npy';
import { CalibrationCollector, parseCalibrationMethod, int8ScaleTies } from '../core/dla/calibrate';
import { collectRun, netLayers } from '../core/dla/caffe-reference';
import type { Command } from './command';
import { createNodeKernels } from './kernels';
import { EXIT_OK, UsageError, parseOptions } from './io';
import { decodeImage } from './run';

const OPTIONS = {
  caffemodel: { type: 'string' },
  inputs: { type: 'string' },
  method: { type: 'string' },
  o: { type: 'string' },
  out: { type: 'string' },
  color: { type: 'string' },
  scale: { type: 'string' },
  mean: { type: 'string' },
  'no-ties': { type: 'boolean' },
  json: { type: 'boolean' },
} as const;

const IMAGE = /\.(png|jpe?g)$/i;

function numberOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number, not '${v}'`);
  return n;
}

export const calibrateCommand: Command = {
  name: 'calibrate',
  usage:
    'npu-studio calibrate NET.prototxt --caffemodel M --inputs DIR|X.npy [--method max|percentile:99.99|entropy] -o calib.json [--color gray|bgr|rgb] [--scale S] [--mean a,b,c] [--no-ties] [--json]\n' +
    '  the int8 calibration table (scale = threshold / 127 per input and layer) from the Caffe float pass over images or .npy items',
  async run(argv, io) {
    const { values: v, positionals } = parseOptions(argv, OPTIONS);
    if (positionals.length !== 1) throw new UsageError('needs exactly one net (.prototxt)');
    if (!v.caffemodel) throw new UsageError('needs --caffemodel');
    if (!v.inputs) throw new UsageError('needs --inputs DIR|X.npy');
    const out = v.o ?? v.out;
    if (!out) throw new UsageError('needs -o calib.json');
    let method;
    try {
      method = parseCalibrationMethod(v.method ?? 'max');
    } catch (e) {
      throw new UsageError(`--method: ${(e as Error).message}`);
    }
    const color = v.color as ColorOrder | undefined;
    if (color !== undefined && color !== 'gray' && color !== 'bgr' && color !== 'rgb') throw new UsageError(`--color is gray, bgr or rgb, not '${v.color}'`);
    const scale = numberOption(v.scale, 'scale');
    const mean = v.mean?.split(',').map((m) => numberOption(m.trim(), 'mean')!);

    const model = openCaffeModel(
      [
        { name: basename(positionals[0]!), bytes: new Uint8Array(readInput(positionals[0]!)) },
        { name: basename(v.caffemodel), bytes: new Uint8Array(readInput(v.caffemodel)) },
      ],
      { batch: 1 },
    );
    const net = model.net;
    const input = net.blobs[net.inputs[0] ?? -1];
    if (!input?.shape) throw new FormatError({ kind: 'semantic', file: model.netFile.file, message: 'the net has no input of known shape to calibrate with' });
    if (net.inputs.length > 1) throw new FormatError({ kind: 'unsupported', file: model.netFile.file, message: `the net has ${net.inputs.length} inputs; calibration feeds nets of one input` });
    const size = input.shape.reduce((a, b) => a * b, 1);

    // the items, one input value each, read lazily
    const items: { name: string; values: () => Float32Array }[] = [];
    if (statSync(v.inputs).isDirectory()) {
      const files = readdirSync(v.inputs).filter((f) => IMAGE.test(f) || f.endsWith('.npy')).sort();
      if (!files.length) throw new FormatError({ kind: 'empty', file: basename(v.inputs), message: 'the folder holds no .png, .jpg or .npy files' });
      for (const f of files) {
        const path = join(v.inputs, f);
        if (f.endsWith('.npy')) {
          const a = readNpy(new Uint8Array(readInput(path)), f);
          for (let i = 0; i * size < a.data.length; i++) items.push({ name: `${f}[${i}]`, values: () => a.data.slice(i * size, (i + 1) * size) });
        } else {
          const t = model.transform;
          items.push({ name: f, values: () => imageToBlob(decodeImage(new Uint8Array(readInput(path)), f), input.shape!, { ...(color ? { color } : {}), scale: scale ?? t?.scale ?? 1, mean: mean ?? t?.mean ?? [0] }) });
        }
      }
    } else {
      const f = basename(v.inputs);
      const a = readNpy(new Uint8Array(readInput(v.inputs)), f);
      if (a.data.length % size !== 0) throw new FormatError({ kind: 'corrupt', file: f, message: `${a.data.length} values are not a whole number of items of the input's ${size} ([${input.shape.join(',')}])` });
      for (let i = 0; i * size < a.data.length; i++) items.push({ name: `${f}[${i}]`, values: () => a.data.subarray(i * size, (i + 1) * size) });
    }

    const collector = new CalibrationCollector();
    const kernels = createNodeKernels();
    const weights = new Map<unknown, Float32Array>();
    try {
      for (const item of items) {
        const result = await runForward(net, {
          inputs: { [input.name]: item.values() },
          file: model.netFile.file,
          kernels: fastCaffeKernels(kernels),
          weightValues: (b) => {
            let w = weights.get(b);
            if (!w) weights.set(b, (w = b.toFloat32()));
            return w;
          },
        });
        collectRun(collector, net, result);
      }
    } finally {
      kernels.dispose();
    }
    const ties = v['no-ties'] === true ? {} : int8ScaleTies(netLayers(net));
    const result = collector.result(method, basename(out), ties);
    writeFileSync(out, JSON.stringify(result.table, null, 4) + '\n');
    if (v.json === true) {
      io.out(JSON.stringify({ format: 'calibration', method: result.method, inputs: result.inputs, table: basename(out), rows: result.rows.map((r) => ({ name: r.name, absmax: r.absmax, threshold: r.threshold, scale: r.scale, clipped: r.clipped, ...(r.tiedTo ? { tiedTo: r.tiedTo } : {}) })) }) + '\n');
      return EXIT_OK;
    }
    const lines = [`${basename(out)}: ${result.rows.length} tensors from ${result.inputs} input(s), method ${result.method}`];
    const w = Math.max(...result.rows.map((r) => r.name.length), 6);
    lines.push(`${'tensor'.padEnd(w)}  absmax      threshold   scale       clipped`);
    for (const r of result.rows) {
      lines.push(`${r.name.padEnd(w)}  ${r.absmax.toPrecision(5).padEnd(10)}  ${r.threshold.toPrecision(5).padEnd(10)}  ${r.scale.toPrecision(5).padEnd(10)}  ${(100 * r.clipped).toFixed(3)}%${r.tiedTo ? `  (the scale of ${r.tiedTo}: pooling and concatenation cannot rescale)` : ''}`);
    }
    io.out(lines.join('\n') + '\n');
    return EXIT_OK;
  },
};
