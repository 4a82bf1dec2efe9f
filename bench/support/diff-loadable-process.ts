/**
 * `diff-loadable` as a whole process for bench/loadable.ts, until the command is registered in
 * src/cli/main.ts: the same tsx start-up and module loading as `npx npu-studio diff-loadable`.
 */
import { diffLoadableCommand } from '../../src/cli/diff-loadable';
import { processIO } from '../../src/cli/io';

process.exitCode = await diffLoadableCommand.run(process.argv.slice(2), processIO);
