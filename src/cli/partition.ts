/**
 * `npu-studio partition`: circle-partitioner's interface over core/partition.
 *
 *   npu-studio partition --part_file X.part --input_file X.circle [--work_path DIR]
 *                        [--backends a,b] [--default a] [--check] [--seed N] [--no-origins]
 *                        [--json-diagnostics]
 *   npu-studio partition X.part X.circle DIR          (older positional form)
 *
 * Both files are read from DIR (default `.`) unless absolute (`resolveInWorkPath`); the parts,
 * `X.conn.json` and `X.conn.ini` are written into DIR. Diagnostics of the `.part` file are printed
 * as `file:line:column: severity: message`; any error exits 1 before anything is written. `--check` runs the source and the chained parts
 * (read back from the written files) on the same seeded random inputs with the reference
 * interpreter and prints the largest difference per output; exit 1 when one is over tolerance.
 */
import { writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { isAbsolute, join } from 'node:path';
import { read } from '../core/circle/read';
import { InterpreterError } from '../core/interp';
import { parsePart, partition, preparePartition, writePartition, type PartDiagnostic } from '../core/partition';
import { checkPartition, type CheckPart } from '../core/partition/check';
import type { Command } from './command';
import { type CliIO, EXIT_BAD_INPUT, EXIT_OK, parseOptions, UsageError } from './io';

const USAGE =
  'npu-studio partition --part_file X.part --input_file X.circle [--work_path DIR] [--backends a,b] [--default a] [--check] [--seed N] [--no-origins] [--json-diagnostics]\n' +
  '       npu-studio partition X.part X.circle DIR';

/**
 * The file `--input_file` / `--part_file` names: a relative path is inside the work folder
 * (`<work_path>/<file>`, circle-partitioner's meaning); an absolute path is used as given
 * (circle-partitioner would read `<work_path>//abs/path` and fail). Outputs always go to the
 * work folder, named after the input's base name.
 */
export function resolveInWorkPath(workPath: string, file: string): string {
  return isAbsolute(file) ? file : join(workPath, file);
}

function formatDiagnostic(d: PartDiagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.severity}: ${d.message}`;
}

function formatDiff(x: number): string {
  if (!Number.isFinite(x)) return String(x);
  return x === 0 ? '0' : x.toExponential(3);
}

export const partitionCommand: Command = {
  name: 'partition',
  usage: USAGE,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseOptions(argv, {
      part_file: { type: 'string' },
      input_file: { type: 'string' },
      work_path: { type: 'string' },
      backends: { type: 'string' },
      default: { type: 'string' },
      seed: { type: 'string' },
      check: { type: 'boolean' },
      'no-origins': { type: 'boolean' },
      'json-diagnostics': { type: 'boolean' },
      version: { type: 'boolean' },
    });
    if (values.version === true) {
      io.out('npu-studio partition (circle-partitioner compatible)\n');
      return EXIT_OK;
    }
    let partFile = values.part_file;
    let inputFile = values.input_file;
    let work = values.work_path;
    if (partFile === undefined && inputFile === undefined) {
      if (positionals.length !== 3) throw new UsageError('needs --part_file and --input_file (or the positional form: PART CIRCLE DIR)');
      [partFile, inputFile, work] = positionals as [string, string, string];
    } else {
      if (partFile === undefined) throw new UsageError('--part_file is required');
      if (inputFile === undefined) throw new UsageError('--input_file is required');
      if (positionals.length > 0) throw new UsageError(`unexpected argument ${positionals[0]}`);
    }
    work = work ?? '.';
    let seed = 1;
    if (values.seed !== undefined) {
      seed = Number(values.seed);
      if (!Number.isInteger(seed)) throw new UsageError('--seed needs an integer');
    }

    const sourceBytes = readInput(resolveInWorkPath(work, inputFile));
    const model = read(new Uint8Array(sourceBytes.buffer, sourceBytes.byteOffset, sourceBytes.byteLength), inputFile);
    if (model.subgraphs.length === 0) {
      io.err(`npu-studio partition: ${inputFile}: the model has no subgraph to partition\n`);
      return EXIT_BAD_INPUT;
    }
    const prepared = preparePartition(model, inputFile);
    const text = new TextDecoder('utf-8').decode(readInput(resolveInWorkPath(work, partFile)));
    const overrides = { ...(values.backends !== undefined ? { backends: values.backends } : {}), ...(values.default !== undefined ? { default: values.default } : {}) };
    const parsed = parsePart(text, partFile, { model: prepared, overrides });
    if (values['json-diagnostics'] === true) io.err(`${JSON.stringify(parsed.diagnostics)}\n`);
    else for (const d of parsed.diagnostics) io.err(`${formatDiagnostic(d)}\n`);
    if (!parsed.table) {
      const errors = parsed.diagnostics.filter((d) => d.severity === 'error').length;
      io.err(`npu-studio partition: ${partFile}: ${errors || 'an'} error${errors === 1 ? '' : 's'}; nothing written\n`);
      return EXIT_BAD_INPUT;
    }

    const plan = partition(prepared, parsed.table);
    const output = writePartition(prepared, plan, { origins: values['no-origins'] !== true, sourceBytes: new Uint8Array(sourceBytes.buffer, sourceBytes.byteOffset, sourceBytes.byteLength) });
    for (const f of output.files) writeFileSync(join(work, f.name), f.bytes);
    for (const w of plan.warnings) io.err(`npu-studio partition: warning: ${w}\n`);
    // one write for all the lines (thousands of parts made thousands of writes)
    let listing = '';
    for (const p of plan.parts) {
      listing += `${p.fileName}: ${p.backend}, ${p.operators.length} operator(s), inputs [${p.inputs.join(', ')}], outputs [${p.outputs.join(', ')}]\n`;
    }
    io.out(`${listing}${plan.parts.length} part(s) written to ${work}\n`);

    if (values.check !== true) return EXIT_OK;
    const parts: CheckPart[] = plan.parts.map((p) => {
      const bytes = output.files.find((f) => f.name === p.fileName)!.bytes;
      return { file: p.fileName, model: read(bytes, p.fileName), inputs: p.inputs, outputs: p.outputs };
    });
    try {
      const result = checkPartition(model, parts, { seed });
      for (const o of result.outputs) {
        io.out(`check ${o.name}: max |difference| ${formatDiff(o.maxAbsDiff)} (tolerance ${o.tolerance === 0 ? 'exact' : o.tolerance}) ${o.ok ? 'ok' : 'FAIL'}${o.problem ? `: ${o.problem}` : ''}\n`);
      }
      if (result.problem) io.err(`npu-studio partition: check: ${result.problem}\n`);
      io.out(result.ok ? `check passed (seed ${seed}, parts run in order ${result.order.join(', ')})\n` : 'check FAILED\n');
      return result.ok ? EXIT_OK : EXIT_BAD_INPUT;
    } catch (e) {
      if (e instanceof InterpreterError) {
        io.err(`npu-studio partition: check: ${e.message}\n`);
        return EXIT_BAD_INPUT;
      }
      throw e;
    }
  },
};
