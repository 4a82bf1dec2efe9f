#!/usr/bin/env node
// Entry point of the `npu-studio` command line. The CLI is TypeScript (src/cli); tsx's loader
// runs it directly, so the command works right after `npm ci` with no build step.
import { register } from 'tsx/esm/api';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';

register();
const here = dirname(fileURLToPath(import.meta.url));
const { main } = await import(join(here, '..', 'src', 'cli', 'main.ts'));
process.exitCode = await main(process.argv.slice(2));
