/**
 * `npu-studio optimize IN.circle OUT.circle --passes a,b,... [--no-origins]`: runs core's
 * origin-preserving passes (in the order given, to a fixed point) and writes the model with
 * `ONE_source_table` / `ONE_op_table` (origins read from IN, or synthesised as luci's importer
 * does). Prints per pass what changed. An unknown pass is a usage error listing the known ones.
 */
import { writeFileSync } from 'node:fs';
import { readInput } from './input-file';
import { basename } from 'node:path';
import { FormatError } from '../core/errors';
import { detect, read } from '../core/circle/read';
import { write } from '../core/circle/write';
import { optimize, PASS_NAMES } from '../core/optimize';
import type { Command } from './command';
import { EXIT_OK, UsageError, parseOptions } from './io';

export const optimizeCommand: Command = {
  name: 'optimize',
  usage: `npu-studio optimize IN.circle OUT.circle --passes a,b,... [--no-origins]\n  passes: ${PASS_NAMES.join(', ')}`,
  async run(argv, io) {
    const { values, positionals } = parseOptions(argv, { passes: { type: 'string' }, 'no-origins': { type: 'boolean' } });
    const noOrigins = values['no-origins'] === true;
    if (positionals.length !== 2) throw new UsageError(positionals.length < 2 ? 'needs an input and an output model' : 'takes exactly two files');
    if (values['passes'] === undefined) throw new UsageError(`needs --passes (known passes: ${PASS_NAMES.join(', ')})`);
    const passes = values['passes'].split(',').map((p) => p.trim()).filter((p) => p.length > 0);
    if (!passes.length) throw new UsageError(`--passes is empty (known passes: ${PASS_NAMES.join(', ')})`);
    const unknown = passes.filter((p) => !PASS_NAMES.includes(p));
    if (unknown.length) throw new UsageError(`unknown pass${unknown.length > 1 ? 'es' : ''} ${unknown.join(', ')} (known passes: ${PASS_NAMES.join(', ')})`);
    const [input, output] = positionals as [string, string];
    const file = basename(input);
    const bytes = new Uint8Array(readInput(input));
    if (bytes.length > 0 && !detect(bytes, file)) {
      throw new FormatError({ kind: 'unsupported', file, offset: 4, message: 'not a circle or TFLite model (identifier CIR0 or TFL3 at bytes 4..8)' });
    }
    const model = read(bytes, file);
    const result = optimize(model, passes, { file, noOrigins });
    // origin table findings (the message names the table and byte offset); the model still optimizes
    for (const d of result.originsBefore.diagnostics) io.err(`npu-studio optimize: ${d.file}: ${d.severity}: ${d.message}${d.path ? ` (${d.path})` : ''}\n`);
    const out = write(result.model);
    writeFileSync(output, out);
    const lines: string[] = [];
    for (const entry of result.log) {
      lines.push(`${entry.pass}: ${entry.changed === 0 ? 'no change' : `${entry.changed} change${entry.changed > 1 ? 's' : ''}`}`);
      for (const d of entry.details) lines.push(`  ${d}`);
    }
    const before = model.subgraphs[0]?.operators.length ?? 0;
    const after = result.model.subgraphs[0]?.operators.length ?? 0;
    const r = result.removed;
    lines.push(`cleanup: ${r.tensors} tensor(s), ${r.buffers} buffer(s), ${r.opcodes} op code(s) removed`);
    lines.push(
      `${basename(output)}: ${out.length} bytes, ${before} -> ${after} operators in subgraph 0, ${noOrigins ? 'no origin tables' : `origin tables written (${result.originsBefore.kind === 'file' ? "carried on from the input's" : 'the input had none: its origins synthesised as luci imports them'})`}`,
    );
    io.out(lines.join('\n') + '\n');
    return EXIT_OK;
  },
};
