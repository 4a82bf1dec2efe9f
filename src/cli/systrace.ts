/**
 * `npu-studio systrace TRACE [--total-times] [--per-execution] [--json] [--print-detail]`:
 * AOSP parse_systrace.py over the same core as the Profile view. Standard output is byte-identical
 * to the upstream tool's, also where upstream stops with an exception (then the exit status is 1
 * as upstream's, and standard error has, after what upstream writes there first, one line
 * `npu-studio systrace: FILE: line N: why` instead of its Python traceback). Exit 0, 1 for bad
 * input, 2 for usage. Deliberately different: a file without an ftrace header is an error here
 * (upstream prints an empty table for any file), and bytes that are not UTF-8 are read as U+FFFD
 * (upstream stops with a UnicodeDecodeError).
 */
import { describeError } from '../core/errors';
import { analyse, formatJson, formatStderr, formatText, read } from '../core/systrace';
import type { Command } from './command';
import { readCaptureText } from './systrace-file';
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
    const opts = {
      totalTimes: values['total-times'] === true,
      perExecution: values['per-execution'] === true,
      printDetail: values['print-detail'] === true,
    };
    const readAndAnalyse = (countLines: boolean) => {
      const { text, start } = readCaptureText(file, countLines);
      // only the marks the output depends on (in omr1, 125 of 12,200 mark lines)
      const trace = read(text, file, { start, marks: 'nnapi' });
      return { trace, analysis: trace.header === null ? null : analyse(trace, { detail: opts.printDetail, timeline: false, tables: false }) };
    };
    let { trace, analysis } = readAndAnalyse(false);
    // line numbers are printed only where upstream stops (fatal); only then are the lines before
    // the header counted
    if (analysis?.fatal) ({ trace, analysis } = readAndAnalyse(true));
    if (trace.header === null || !analysis) {
      const d = trace.diagnostics.find((x) => x.severity === 'error')!;
      io.err(`npu-studio systrace: ${describeError({ kind: 'syntax', file, line: d.line, message: d.message })}\n`);
      return EXIT_BAD_INPUT;
    }
    io.out(values.json === true ? formatJson(analysis, opts) : formatText(analysis, opts));
    io.err(formatStderr(analysis));
    if (analysis.fatal) {
      const f = analysis.fatal;
      io.err(`npu-studio systrace: ${describeError({ kind: 'semantic', file, line: f.line, message: f.message })}\n`);
      return EXIT_BAD_INPUT;
    }
    return EXIT_OK;
  },
};
