#!/usr/bin/env node
// Entry point of the `npu-studio` command line. It runs the esbuild bundle of src/cli in dist-cli/
// (plain JavaScript, each command's code loaded only when that command runs), which `npm ci`
// builds through the `prepare` script. When the bundle is missing (installed with
// --ignore-scripts) or older than its sources (a pull or an edit since), it is rebuilt first,
// which takes about a second and says so on stderr; the check looks only at the files the command
// being run is built from (one stat each: the entry's few, and a dozen to a few hundred for the
// command), well under a millisecond on a quiet machine.
import module from 'node:module';
import { pathToFileURL } from 'node:url';
import { join } from 'node:path';
import { bundleStaleness, buildCli, ENTRY, OUT_DIR, ROOT } from '../scripts/build-cli.mjs';

// Node 22.1+ keeps V8's compiled code of the bundle between runs (a no-op on Node 20)
module.enableCompileCache?.();
const stale = bundleStaleness(ROOT, process.argv[2]);
if (stale) {
  process.stderr.write(`npu-studio: building the command line into ${OUT_DIR}/ first (${stale}) ...\n`);
  try {
    await buildCli();
  } catch (e) {
    process.stderr.write(`npu-studio: the build failed: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
const { main } = await import(pathToFileURL(join(ROOT, OUT_DIR, ENTRY)).href);
process.exitCode = await main(process.argv.slice(2));
