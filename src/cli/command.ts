/** What every `npu-studio` command module exports; `main.ts` loads them lazily by name. */
import type { CliIO } from './io';

export interface Command {
  name: string;
  /** one or more lines, printed after `usage: ` with a usage error and for `--help` */
  usage: string;
  /** resolves to the exit code; throws UsageError (exit 2) or FormatError / a file error (exit 1) */
  run(argv: string[], io: CliIO): Promise<number>;
}
