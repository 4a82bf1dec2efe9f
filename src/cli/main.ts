/**
 * `npu-studio` command line: one small module per command, all over the same core as the
 * browser. Exit codes: 0 success, 1 bad input (message names the file and place), 2 usage.
 */
import { describeError, isFormatError } from '../core/errors';
import type { Command } from './command';
import { type CliIO, processIO, EXIT_BAD_INPUT, EXIT_OK, EXIT_USAGE, UsageError } from './io';

// Each command registers itself here, one line each; a command's module (and the core it needs)
// is loaded only when that command runs, so `--help` and every command start fast.
const loaders: Record<string, () => Promise<Command>> = {
  inspect: async () => (await import('./inspect')).inspectCommand,
  chef: async () => (await import('./chef')).chefCommand,
  systrace: async () => (await import('./systrace')).systraceCommand,
  partition: async () => (await import('./partition')).partitionCommand,
  optimize: async () => (await import('./optimize')).optimizeCommand,
  'diff-loadable': async () => (await import('./diff-loadable')).diffLoadableCommand,
  run: async () => (await import('./run')).runCommand,
  compile: async () => (await import('./compile')).compileCommand,
  'run-loadable': async () => (await import('./run-loadable')).runLoadableCommand,
  calibrate: async () => (await import('./calibrate')).calibrateCommand,
};

function usage(): string {
  return [
    'usage: npu-studio <command> [options]',
    '',
    '  inspect FILE [--json] [--origins] [--dump]   summary of any file the studio opens (models, loadables, systrace captures)',
    '  inspect NET.prototxt [--caffemodel W] [--phase TEST|TRAIN] [--batch N] --json   a Caffe net (merged with its weights)',
    '  chef RECIPE OUT.circle                build a circle model from a ONE recipe',
    '  partition --part_file P --input_file M [--work_path W] [--backends a,b] [--default a] [--check]',
    "  partition P.part M.circle DIR         (circle-partitioner's older positional form)",
    '  optimize IN.circle OUT.circle --passes a,b,...   origin-preserving circle optimizer',
    '  systrace TRACE [--total-times] [--per-execution] [--json] [--print-detail]',
    '  diff-loadable A.nvdla B.nvdla [--json]   compare two NVDLA loadables (exit 0 equivalent, 1 different)',
    '  run NET.prototxt --caffemodel W [--input IMG.png|X.npy] [--seed N] [--scale S] [--mean a,b,c] [--phase TEST] --out OUT.npz [--json]',
    '                                        float32 forward pass of a Caffe net, every blob into a .npz',
    '  compile --prototxt P --caffemodel M [nvdla_compiler options] [-o DIR | --out FILE] [--stages DIR]   Caffe -> NVDLA loadable',
    '  run-loadable X.nvdla [--input IMG|X.npy] [--seed N] [--calibtable C] [--out OUT.npz [--surfaces]] [--compare NET.prototxt --caffemodel M] [--json]   run a loadable on the DLA model',
    '  calibrate NET.prototxt --caffemodel M --inputs DIR|X.npy [--method max|percentile:P|entropy] -o calib.json   int8 calibration table',
    '',
    "`npu-studio COMMAND --help` prints the command's options. Exit codes: 0 success, 1 bad input, 2 usage.",
    '',
  ].join('\n');
}

/** `--help` or `-h` among a command's arguments (before a `--`, after which all are file names) */
function asksForHelp(argv: string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).some((a) => a === '--help' || a === '-h');
}

/** what a file error means, for the ones a person meets (others: Node's message) */
const FILE_ERRORS: Record<string, string> = { ENOENT: 'no such file', EISDIR: 'a folder, not a file', EACCES: 'permission denied' };

export async function main(argv: string[], io: CliIO = processIO): Promise<number> {
  const [name, ...rest] = argv;
  if (!name) {
    io.err(usage());
    return EXIT_USAGE;
  }
  if (name === '--help' || name === '-h') {
    io.out(usage());
    return EXIT_OK;
  }
  const load = loaders[name];
  if (!load) {
    io.err(`npu-studio: unknown command '${name}'\n${usage()}`);
    return EXIT_USAGE;
  }
  let command: Command;
  try {
    command = await load();
  } catch (e) {
    io.err(`npu-studio: command '${name}' is not available: ${(e as Error).message}\n`);
    return EXIT_USAGE;
  }
  if (asksForHelp(rest)) {
    io.out(`usage: ${command.usage}\n`);
    return EXIT_OK;
  }
  try {
    return await command.run(rest, io);
  } catch (e) {
    if (e instanceof UsageError) {
      io.err(`npu-studio ${name}: ${e.message}\nusage: ${command.usage}\n`);
      return EXIT_USAGE;
    }
    if (isFormatError(e)) {
      io.err(`npu-studio ${name}: ${describeError(e.info)}\n`);
      return EXIT_BAD_INPUT;
    }
    const err = e as NodeJS.ErrnoException;
    if (err && err.code && err.path) {
      io.err(`npu-studio ${name}: ${err.path}: ${FILE_ERRORS[err.code] ?? err.message}\n`);
      return EXIT_BAD_INPUT;
    }
    io.err(`npu-studio ${name}: internal error: ${(e as Error)?.stack ?? String(e)}\n`);
    return EXIT_BAD_INPUT;
  }
}
