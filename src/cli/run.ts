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
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import jpeg from 'jpeg-js';
import { PNG } from 'pngjs';
import { FormatError } from '../core/errors';
import { imageToBlob, randomBlob, type ColorOrder, type RgbaImage } from '../core/caffe/input';
import { openCaffeModel } from '../core/caffe/model';
import { readNpy, writeNpz } from '../core/caffe/npy';
import { runForward, topK } from '../core/caffe/forward/run';
import type { Phase } from '../core/caffe/phase';
import type { Command } from './main';
import { EXIT_OK, UsageError, parseArgs } from './io';

function decodeImage(bytes: Uint8Array, file: string): RgbaImage {
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
  if (!Number.isFinite(n)) throw new UsageError(`--${name} takes a number, not '${v}'`);
  return n;
}

export const runCommand: Command = {
  name: 'run',
  usage: 'npu-studio run NET.prototxt [--caffemodel W] [--input IMG.png|X.npy] [--seed N] [--scale S] [--mean a,b,c] [--color bgr|rgb|gray] [--phase TEST|TRAIN] [--batch N] --out OUT.npz [--json]',
  async run(argv, io) {
    const { values, flags, positional } = parseArgs(argv, ['json'], ['caffemodel', 'input', 'seed', 'scale', 'mean', 'color', 'phase', 'batch', 'out']);
    if (positional.length !== 1) throw new UsageError(positional.length ? 'takes exactly one net file' : 'needs a net (.prototxt, or a .caffemodel alone)');
    if (values.out === undefined) throw new UsageError('needs --out OUT.npz');
    const phase = (values.phase ?? 'TEST').toUpperCase();
    if (phase !== 'TEST' && phase !== 'TRAIN') throw new UsageError(`--phase is TEST or TRAIN, not '${values.phase}'`);
    const color = values.color;
    if (color !== undefined && color !== 'bgr' && color !== 'rgb' && color !== 'gray') throw new UsageError(`--color is bgr, rgb or gray, not '${color}'`);
    const seed = numberOption(values.seed, 'seed') ?? 1;
    const scale = numberOption(values.scale, 'scale');
    const batch = numberOption(values.batch, 'batch');
    const mean = values.mean?.split(',').map((m) => numberOption(m.trim(), 'mean')!);
    const files = [{ name: basename(positional[0]!), bytes: new Uint8Array(readFileSync(positional[0]!)) }];
    if (values.caffemodel) files.push({ name: basename(values.caffemodel), bytes: new Uint8Array(readFileSync(values.caffemodel)) });
    const model = openCaffeModel(files, { phase: phase as Phase, ...(batch !== undefined ? { batch } : {}) });
    for (const d of model.diagnostics) if (d.severity !== 'info') io.err(`npu-studio run: ${d.file}: ${d.severity}: ${d.line !== undefined ? `line ${d.line}:${d.column}: ` : d.offset !== undefined ? `byte ${d.offset}: ` : ''}${d.message}\n`);
    const net = model.net;
    const inputs: Record<string, Float32Array> = {};
    net.inputs.forEach((b, i) => {
      const blob = net.blobs[b]!;
      const n = (blob.shape ?? []).reduce((a, d) => a * d, 1);
      if (i === 0 && values.input) {
        const file = basename(values.input);
        const bytes = new Uint8Array(readFileSync(values.input));
        if (bytes[0] === 0x93 && bytes[1] === 0x4e) {
          const a = readNpy(bytes, file);
          if (a.data.length !== n) throw new FormatError({ kind: 'semantic', file, message: `the array has shape [${a.shape.join(',')}] (${a.data.length} values); input '${blob.name}' is [${blob.shape!.join(',')}] (${n} values)` });
          inputs[blob.name] = a.data;
        } else {
          const t = model.transform;
          const tScale = scale ?? t?.scale;
          const tMean = mean ?? t?.mean;
          try {
            inputs[blob.name] = imageToBlob(decodeImage(bytes, file), blob.shape!, { ...(color ? { color: color as ColorOrder } : {}), ...(tScale !== undefined ? { scale: tScale } : {}), ...(tMean ? { mean: tMean } : {}) });
          } catch (e) {
            if (e instanceof RangeError) throw new FormatError({ kind: 'semantic', file, message: e.message });
            throw e;
          }
        }
      } else inputs[blob.name] = randomBlob(n, seed + i);
    });
    const result = await runForward(net, { inputs, file: files[0]!.name, now: () => performance.now() });
    writeFileSync(values.out, writeNpz(result.values));
    const outputs = result.outputs.map((k) => ({ name: k, shape: result.values.get(k)!.shape }));
    const classifier = result.outputs.map((k) => result.values.get(k)!).find((t) => t.shape.length >= 2 && t.shape[1]! > 1 && t.shape.slice(2).every((d) => d === 1));
    const top5 = classifier ? topK(classifier, 5)[0]! : null;
    if (flags.has('json')) {
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
