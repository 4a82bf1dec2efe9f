/**
 * `npu-studio run NET.prototxt [--caffemodel W] [--input IMG.png|IMG.jpg|X.npy] [--seed N]
 * [--scale S] [--mean a,b,c] [--color bgr|rgb|gray] [--phase TEST|TRAIN] [--batch N]
 * --out OUT.npz [--json]`: a float32 forward pass of a Caffe net with core's kernels. Every blob's
 * final value goes into the .npz under its name, and each layer output a later in-place layer
 * overwrote under `layer:<name>`. With --json it prints the output shapes and, for a classifier,
 * the top-5 classes of the first item.
 *
 * The first input takes the image (decoded with pngjs / jpeg-js, resized, in the channel order
 * and with the scale and mean given, defaulting to the net's own transform_param) or the .npy
 * (float32 of exactly the input's size); every other input, or all of them without --input, get
 * seeded random values in [0, 1).
 */
import { writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { basename } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { FormatError } from '../core/errors';
import type { RgbaPixels, RunInputValue } from '../core/format';
import { openCaffeModel } from '../core/caffe/model';
import { writeNpz } from '../core/caffe/npy';
import { runForward } from '../core/caffe/forward/run';
import { classifierTop, feedInputs } from '../core/caffe/run-service';
import { fastCaffeKernels } from '../core/caffe/forward/fast-kernels';
import { referenceKernels } from '../core/caffe/forward/heavy';
import type { Command } from './command';
import { createNodeKernels } from './kernels';
import { EXIT_OK, UsageError, parseOptions } from './io';

/** PNG (pngjs) or JPEG (jpeg-js) to RGBA pixels; the browser does the same with createImageBitmap. */
export function decodeImage(bytes: Uint8Array, file: string): RgbaPixels {
  try {
    if (bytes[0] === 0x89 && bytes[1] === 0x50) {
      const png = PNG.sync.read(Buffer.from(bytes));
      return { width: png.width, height: png.height, data: new Uint8Array(png.data.buffer, png.data.byteOffset, png.data.length) };
    }
    if (bytes[0] === 0xff && bytes[1] === 0xd8) {
      const img = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxMemoryUsageInMB: 1024 });
      return { width: img.width, height: img.height, data: img.data };
    }
  } catch (e) {
    throw new FormatError({ kind: 'corrupt', file, offset: 0, message: `the image cannot be decoded: ${(e as Error).message}` });
  }
  throw new FormatError({ kind: 'unsupported', file, offset: 0, message: 'not a PNG or JPEG image, nor a .npy array' });
}

function numberOption(v: string | undefined, name: string): number | undefined {
  if (v === undefined) return undefined;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--${name} takes a number, not '${v}'`);
  return n;
}

const OPTIONS = {
  caffemodel: { type: 'string' },
  input: { type: 'string' },
  seed: { type: 'string' },
  scale: { type: 'string' },
  mean: { type: 'string' },
  color: { type: 'string' },
  phase: { type: 'string' },
  batch: { type: 'string' },
  out: { type: 'string' },
  json: { type: 'boolean' },
  reference: { type: 'boolean' },
  threads: { type: 'string' },
} as const;

export const runCommand: Command = {
  name: 'run',
  usage:
    'npu-studio run NET.prototxt [--caffemodel W] [--input IMG.png|IMG.jpg|X.npy] [--seed N] [--scale S] [--mean a,b,c] [--color bgr|rgb|gray] [--phase TEST|TRAIN] [--batch N] --out OUT.npz [--json] [--threads N] [--reference]\n' +
    '  a float32 forward pass of a Caffe net; every blob goes into OUT.npz (key = blob name, layer:<name> for an output a later in-place layer overwrote)\n' +
    '  the layers run on the WebAssembly SIMD kernels on every core (--threads N: N threads; --reference: the plain TypeScript layers)',
  async run(argv, io) {
    const { values, positionals } = parseOptions(argv, OPTIONS);
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'takes exactly one net file' : 'needs a net (.prototxt, or a .caffemodel alone)');
    if (values.out === undefined) throw new UsageError('needs --out OUT.npz');
    const phase = (values.phase ?? 'TEST').toUpperCase();
    if (phase !== 'TEST' && phase !== 'TRAIN') throw new UsageError(`--phase is TEST or TRAIN, not '${values.phase}'`);
    const color = values.color;
    if (color !== undefined && color !== 'bgr' && color !== 'rgb' && color !== 'gray') throw new UsageError(`--color is bgr, rgb or gray, not '${color}'`);
    const seed = numberOption(values.seed, 'seed') ?? 1;
    const scale = numberOption(values.scale, 'scale');
    const batch = numberOption(values.batch, 'batch');
    const threads = numberOption(values.threads, 'threads');
    if (threads !== undefined && (!Number.isInteger(threads) || threads < 1)) throw new UsageError(`--threads is a whole number from 1, not '${values.threads}'`);
    if (batch !== undefined && (!Number.isInteger(batch) || batch < 1)) throw new UsageError(`--batch is a whole number from 1, not '${values.batch}'`);
    const mean = values.mean?.split(',').map((m) => numberOption(m.trim(), 'mean')!);
    const files = [{ name: basename(positionals[0]!), bytes: new Uint8Array(readInput(positionals[0]!)) }];
    if (values.caffemodel) files.push({ name: basename(values.caffemodel), bytes: new Uint8Array(readInput(values.caffemodel)) });
    const model = openCaffeModel(files, { phase, ...(batch !== undefined ? { batch } : {}) });
    for (const d of model.diagnostics) if (d.severity !== 'info') io.err(`npu-studio run: ${d.file}: ${d.severity}: ${d.line !== undefined ? `line ${d.line}:${d.column}: ` : d.offset !== undefined ? `byte ${d.offset}: ` : ''}${d.message}\n`);
    const net = model.net;
    const inputs: Record<string, RunInputValue> = {};
    const first = net.inputs[0];
    if (values.input && first !== undefined) {
      const file = basename(values.input);
      const bytes = new Uint8Array(readInput(values.input));
      const name = net.blobs[first]!.name;
      if (bytes[0] === 0x93 && bytes[1] === 0x4e) inputs[name] = { kind: 'array', file, bytes };
      else {
        const t = model.transform;
        inputs[name] = { kind: 'image', file, pixels: decodeImage(bytes, file), scale: scale ?? t?.scale ?? 1, mean: mean ?? t?.mean ?? [0], ...(color ? { color } : {}) };
      }
    }
    const fed = feedInputs(model, { inputs, seed });
    const fast = values.reference === true ? null : createNodeKernels(threads !== undefined ? { threads } : {});
    let result;
    try {
      result = await runForward(net, { inputs: fed, file: files[0]!.name, now: () => performance.now(), kernels: fast ? fastCaffeKernels(fast) : referenceKernels });
    } finally {
      fast?.dispose();
    }
    writeFileSync(values.out, writeNpz(result.values));
    const outputs = result.outputs.map((k) => ({ name: k, shape: result.values.get(k)!.shape }));
    const top5 = classifierTop(result)[0]?.classes ?? null;
    if (values.json === true) {
      io.out(JSON.stringify({ format: 'caffe', outputs, ...(top5 ? { top5: top5.map((t) => ({ class: t.index, score: t.score })) } : {}), blobs: result.values.size, kernels: result.kernels, ms: Math.round(result.totalMs) }) + '\n');
    } else {
      const lines = outputs.map((o) => `${o.name}: [${o.shape.join(',')}]`);
      if (top5) lines.push(`top-5: ${top5.map((t) => `${t.index} (${t.score.toPrecision(4)})`).join(', ')}`);
      lines.push(`${basename(values.out)}: ${result.values.size} blobs, ${net.layers.length} layers in ${result.totalMs.toFixed(0)} ms (${result.kernels} kernels)`);
      io.out(lines.join('\n') + '\n');
    }
    return EXIT_OK;
  },
};
