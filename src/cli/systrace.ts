/**
 * `npu-studio systrace TRACE [--total-times] [--per-execution] [--json] [--print-detail]`:
 * AOSP parse_systrace.py over the same core as the Profile view. Standard output and standard
 * error are byte-identical to the upstream tool's; exit 0, 1 for bad input (message with file
 * and line), 2 for usage.
 */
import { readFile } from 'node:fs/promises';
import { describeError } from '../core/errors';
import { analyse, formatJson, formatStderr, formatText, read } from '../core/systrace';
import type { Command } from './command';
import { type CliIO, EXIT_BAD_INPUT, EXIT_OK, parseOptions, UsageError } from './io';

const USAGE = 'npu-studio systrace TRACE [--total-times] [--per-execution] [--json] [--print-detail]';

export const systraceCommand: Command = {
  name: 'systrace',
  usage: USAGE,
  async run(argv: string[], io: CliIO): Promise<number> {
    const { values, positionals } = parseOptions(argv, {
      'total-times': { type: 'boolean' },
      'per-execution': { type: 'boolean' },
      json: { type: 'boolean' },
      'print-detail': { type: 'boolean' },
    });
    if (positionals.length !== 1) {
      throw new UsageError(positionals.length === 0 ? 'the TRACE file is missing' : 'only one TRACE file is accepted');
    }
    const file = positionals[0]!;
    const bytes = await readFile(file);
    const text = new TextDecoder('utf-8').decode(bytes);
    const trace = read(text, file);
    if (trace.header === null) {
      const d = trace.diagnostics.find((x) => x.severity === 'error')!;
      io.err(`npu-studio systrace: ${describeError({ kind: 'syntax', file, line: d.line, message: d.message })}\n`);
      return EXIT_BAD_INPUT;
    }
    const opts = {
      totalTimes: values['total-times'] === true,
      perExecution: values['per-execution'] === true,
      printDetail: values['print-detail'] === true,
    };
    const analysis = analyse(trace, { detail: opts.printDetail, timeline: false });
    io.out(values.json === true ? formatJson(analysis, opts) : formatText(analysis, opts));
    io.err(formatStderr(analysis));
    if (analysis.fatal) {
      const f = analysis.fatal;
      io.err(`npu-studio systrace: ${describeError({ kind: 'semantic', file, line: f.line, message: f.message })}\n`);
      if (f.lineText !== undefined) io.err(`failed on line ${f.line} ${f.lineText}\n`);
      return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
  },
};
