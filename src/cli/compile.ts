/**
 * `npu-studio compile --prototxt P --caffemodel M [nvdla_compiler's options] [-o DIR] [--out FILE]
 * [--stages DIR]`: the NVDLA compiler over core/nvdla, with nvdla_compiler's option names and
 * real defaults (int8, fast-math, nv_full, batch from the prototxt, nhwc). `--stages DIR` writes
 * `DIR/network.json`, `DIR/canonical.json` and `DIR/engine.json`.
 *
 * Messages go to stderr: warnings and errors, each with what nvdla_compiler prints for the same
 * case (`upstream:`). Exit 1 when NVDLA refuses the network or an input file is bad.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { parseCalibrationTable } from '../core/nvdla/calibrate/table';
import { compileNvdla } from '../core/nvdla/compile';
import { readDeploy, readWeights } from '../core/nvdla/network/caffe-files';
import type { NvdlaDiagnostic } from '../core/nvdla/network/model';
import { DEFAULT_OPTIONS, atoi, type NvdlaCompileOptions } from '../core/nvdla/options';
import { stageJson } from '../core/nvdla/stage-json';
import type { Command } from './main';
import { EXIT_BAD_INPUT, EXIT_OK, UsageError } from './io';

const USAGE = `npu-studio compile --prototxt P --caffemodel M [options] [-o DIR] [--out FILE] [--stages DIR]
  --profile <basic|default|performance|fast-math>   (default fast-math)
  --cprecision <fp16|int8>                          (default int8; nvdla_compiler's help wrongly says fp16)
  --configtarget <nv_full|nv_large|nv_small>        (default nv_full; opendla-* fall back with a warning)
  --calibtable FILE.json                            INT8 tensor scales (default: constant scales)
  --quantizationMode <per-kernel|per-filter>        (default per-kernel)
  --batch N                                         (default: N of the prototxt)
  --informat <ncxhwx|nchw|nhwc>                     (default nhwc)
  --stages DIR                                      write network.json, canonical.json, engine.json`;

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
    const deploy = readDeploy(readFileSync(v.prototxt, 'utf8'), basename(v.prototxt));
    const weights = readWeights(new Uint8Array(readFileSync(v.caffemodel)), basename(v.caffemodel));
    const options: NvdlaCompileOptions = {
      ...DEFAULT_OPTIONS,
      ...(v.profile !== undefined ? { profile: v.profile } : {}),
      ...(v.cprecision !== undefined ? { cprecision: v.cprecision } : {}),
      ...(v.configtarget !== undefined ? { configtarget: v.configtarget } : {}),
      ...(v.quantizationMode !== undefined ? { quantizationMode: v.quantizationMode } : {}),
      ...(v.informat !== undefined ? { informat: v.informat } : {}),
      ...(v.batch !== undefined ? { batch: atoi(v.batch) } : {}),
      calibtable: v.calibtable !== undefined ? parseCalibrationTable(readFileSync(v.calibtable, 'utf8'), basename(v.calibtable)) : null,
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
      io.out(`stages written to ${v.stages}: ${written.join(', ') || 'none'}\n`);
    }
    if (result.reached !== 'engine') return EXIT_BAD_INPUT;
    const g = result.engine!;
    io.out(`${result.resolved!.profile.name} ${result.resolved!.target.name} ${result.resolved!.profile.computePrecision}: ${result.network!.layers.length} layers -> ${result.canonical!.nodes.length} canonical nodes -> ${g.nodes.length} engine nodes, ${g.edges.length} edges (batch ${g.batchSize})\n`);
    io.out('compile stops after the engine graph: the passes, memory resolution and the loadable are not implemented yet\n');
    return EXIT_OK;
  },
};
