/**
 * `npu-studio diff-loadable A.nvdla B.nvdla [--json]`: are two NVDLA loadables semantically
 * equivalent (notes/nvdla.md section 13)? Prints the report section by section, naming the op
 * slot, descriptor and field of each differing task-blob byte with both values.
 *
 * Exit codes: 0 equivalent, 1 different (or a file that is not a readable loadable), 2 usage.
 * --json prints the `LoadableDiff` of core/loadable/diff.ts:
 * {"a","b","equivalent","sections":[{"section","equal","count","differences":[{"path","a","b","descriptor"?}]}]}
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { FormatError } from '../core/errors';
import { detect, read } from '../core/loadable/read';
import { diffLoadables, diffText } from '../core/loadable/diff';
import type { Loadable } from '../core/loadable/model';
import { EXIT_OK, UsageError, type CliIO } from './io';
import type { Command } from './command';

const USAGE = 'npu-studio diff-loadable A.nvdla B.nvdla [--json]';
/** the loadables differ (the same code as bad input: either way they are not equivalent) */
export const EXIT_DIFFERENT = 1;

function open(path: string): Loadable {
  const file = basename(path);
  const buf = readFileSync(path);
  // a view of the Buffer, not a copy (a copy doubles the memory the process must touch)
  const bytes = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
  if (bytes.length > 0 && !detect(bytes, file)) {
    throw new FormatError({ kind: 'unsupported', file, offset: 0, message: 'not an NVDLA loadable (no NVDA identifier, and the root table does not look like one)' });
  }
  return read(bytes, file);
}

export const diffLoadableCommand: Command = {
  name: 'diff-loadable',
  usage: USAGE,
  async run(argv: string[], io: CliIO): Promise<number> {
    let args: { values: { json?: boolean }; positionals: string[] };
    try {
      args = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (args.positionals.length !== 2) {
      throw new UsageError(args.positionals.length < 2 ? 'needs two loadables, A and B' : 'takes exactly two loadables');
    }
    const [pa, pb] = args.positionals as [string, string];
    const a = open(pa);
    const b = open(pb);
    const d = diffLoadables(a, b);
    io.out(args.values.json ? JSON.stringify(d) + '\n' : diffText(d));
    return d.equivalent ? EXIT_OK : EXIT_DIFFERENT;
  },
};
