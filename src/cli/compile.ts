/**
 * `npu-studio compile --prototxt P --caffemodel M [nvdla_compiler's options] [-o DIR] [--out FILE]
 * [--stages DIR]`: the NVDLA compiler over core/nvdla, with nvdla_compiler's option names and
 * real defaults (int8, fast-math, nv_full, batch from the prototxt, nhwc), and one of NPU Studio's
 * own (`--post-ext-weights`: the hardware's post-extended image weight layout or nvdla_compiler's). The loadable goes to
 * `--out FILE`, else `DIR/<profile>.nvdla` with `-o DIR`, else `./<profile>.nvdla` as
 * nvdla_compiler writes it (upstream's `-o` only names an empty wisdom folder). `--stages DIR`
 * writes every stage: `network.json`, `canonical.json`, `engine.json`, `passes/NN-<pass>.json`
 * (each pass's graph and what it changed), `loadable.json` and `tasks.json` (the emitted
 * descriptors, field by field).
 *
 * Messages go to stderr: warnings and errors, each with what nvdla_compiler prints for the same
 * case (`upstream:`). Exit 1 when NVDLA refuses the network or an input file is bad.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseCalibrationTable } from '../core/nvdla/calibrate/table';
import { compileNvdla } from '../core/nvdla/compile';
import { readDeploy, readWeights } from '../core/nvdla/network/caffe-files';
import type { NvdlaDiagnostic } from '../core/nvdla/network/model';
import { DEFAULT_OPTIONS, atoi, type NvdlaCompileOptions } from '../core/nvdla/options';
import { stageJson } from '../core/nvdla/stage-json';
import { originsSidecarOf, originsSidecarText } from '../core/nvdla/service';
import type { Command } from './command';
import { EXIT_BAD_INPUT, EXIT_OK, UsageError } from './io';

const USAGE = `npu-studio compile --prototxt P --caffemodel M [options] [-o DIR] [--out FILE] [--stages DIR]
  --profile <basic|default|performance|fast-math>   (default fast-math)
  --cprecision <fp16|int8>                          (default int8; nvdla_compiler's help wrongly says fp16)
  --configtarget <nv_full|nv_large|nv_small>        (default nv_full; opendla-* fall back with a warning)
  --calibtable FILE.json                            INT8 tensor scales (default: constant scales)
  --quantizationMode <per-kernel|per-filter>        (default per-kernel)
  --batch N                                         (default: N of the prototxt)
  --informat <ncxhwx|nchw|nhwc>                     (default nhwc)
  --post-ext-weights <csc|nvdla_compiler>           post-extended image weights (nv_full / nv_large image
                                                    input): csc (default) lays them out as the hardware reads
                                                    them; nvdla_compiler as it does, byte-identical to its
                                                    loadables but wrong on the hardware where they differ
                                                    (e.g. LeNet conv1: a warning names the layer)
  -o DIR                                            write DIR/<profile>.nvdla (default ./<profile>.nvdla)
  --out FILE                                        write the loadable to FILE
                                                    (and beside it <name>.origins.json: op slots -> Caffe layers)
  --stages DIR                                      write every stage as JSON (network, canonical, engine,
                                                    passes/NN-<pass>.json, loadable, tasks)`;

function describeDiagnostic(d: NvdlaDiagnostic): string {
  const where = d.layer !== undefined ? ` layer '${d.layer}'${d.line !== undefined ? ` (line ${d.line})` : ''}:` : '';
  const lines = [`${d.severity} [${d.stage}]${where} ${d.message}`];
  if (d.upstream) for (const l of d.upstream.split('\n')) lines.push(`    nvdla_compiler: ${l}`);
  return lines.join('\n');
}

export const compileCommand: Command = {
  name: 'compile',
  usage: USAGE,
  async run(argv, io) {
    let parsed;
    try {
      parsed = parseArgs({
        args: argv,
        strict: true,
        allowPositionals: false,
        options: {
          prototxt: { type: 'string' },
          caffemodel: { type: 'string' },
          profile: { type: 'string' },
          cprecision: { type: 'string' },
          configtarget: { type: 'string' },
          calibtable: { type: 'string' },
          quantizationMode: { type: 'string' },
          batch: { type: 'string' },
          informat: { type: 'string' },
          'post-ext-weights': { type: 'string' },
          o: { type: 'string', short: 'o' },
          out: { type: 'string' },
          stages: { type: 'string' },
        },
      });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    const v = parsed.values;
    if (!v.prototxt || !v.caffemodel) throw new UsageError('needs --prototxt and --caffemodel');
    const deploy = readDeploy(readInput(v.prototxt, 'utf8'), basename(v.prototxt));
    const weights = readWeights(new Uint8Array(readInput(v.caffemodel)), basename(v.caffemodel));
    const options: NvdlaCompileOptions = {
      ...DEFAULT_OPTIONS,
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
      ...(v.cprecision !== undefined ? { cprecision: v.cprecision } : {}),
      ...(v.configtarget !== undefined ? { configtarget: v.configtarget } : {}),
      ...(v.quantizationMode !== undefined ? { quantizationMode: v.quantizationMode } : {}),
      ...(v.informat !== undefined ? { informat: v.informat } : {}),
      ...(v['post-ext-weights'] !== undefined ? { postExtWeights: v['post-ext-weights'] } : {}),
      ...(v.batch !== undefined ? { batch: atoi(v.batch) } : {}),
      calibtable: v.calibtable !== undefined ? parseCalibrationTable(readInput(v.calibtable, 'utf8'), basename(v.calibtable)) : null,
    };
    const result = compileNvdla(deploy, weights, options);
    for (const d of result.diagnostics) if (d.severity !== 'info') io.err(`npu-studio compile: ${describeDiagnostic(d)}\n`);
    if (v.stages !== undefined) {
      mkdirSync(v.stages, { recursive: true });
      const written: string[] = [];
      const put = (name: string, value: unknown) => {
        if (value === null) return;
        writeFileSync(join(v.stages!, name), stageJson(value) + '\n');
        written.push(name);
      };
      put('network.json', result.network);
      put('canonical.json', result.canonical);
      put('engine.json', result.engine);
      if (result.passes.length) mkdirSync(join(v.stages, 'passes'), { recursive: true });
      result.passes.forEach((p, i) => put(join('passes', `${String(i + 1).padStart(2, '0')}-${p.name}.json`), { pass: p.name, changes: p.changes, graph: p.graph }));
      put('loadable.json', result.loadable);
      put('tasks.json', result.tasks);
      const passes = written.filter((w) => w.startsWith('passes'));
      const others = written.filter((w) => !w.startsWith('passes'));
      io.out(`stages written to ${v.stages}: ${others.join(', ') || 'none'}${passes.length ? ` and ${passes.length} pass graphs in passes/` : ''}\n`);
    }
    if (result.reached !== 'emit') return EXIT_BAD_INPUT;
    const g = result.passes.at(-1)!.graph;
    const profile = result.resolved!.profile;
    const file = v.out ?? join(v.o ?? '.', `${profile.name}.nvdla`);
    // -o names a folder to write into: made when missing, as --stages is (a missing folder was reported as 'no such file')
    if (v.o !== undefined && v.out === undefined) mkdirSync(v.o, { recursive: true });
    writeFileSync(file, result.bytes!);
    // beside it, which Caffe layers each task's op slots came from (the studio's download writes the same)
    const sidecar = { ...originsSidecarOf(result)!, loadable: basename(file) };
    const originsFile = file.replace(/\.nvdla$/i, '') + '.origins.json';
    writeFileSync(originsFile, originsSidecarText(sidecar));
    const l = result.loadable!;
    io.out(
      `${profile.name} ${result.resolved!.target.name} ${profile.computePrecision}: ${result.network!.layers.length} layers -> ${result.canonical!.nodes.length} canonical nodes -> ${g.nodes.length} engine nodes after ${result.passes.length} passes (batch ${g.batchSize})\n` +
        `${l.tasks.map((t, i) => `task ${t.id}: ${result.tasks![i]!.interface} ${result.tasks![i]!.ops.length} op slots`).join(', ')}; ${l.memory.length} memory entries, ${l.blobs.length} blobs\n` +
        `wrote ${file} (${result.bytes!.length} bytes) and ${originsFile}\n`,
    );
    return EXIT_OK;
  },
};
