#!/usr/bin/env node
// Entry point of the `npu-studio` command line. It runs the esbuild bundles of src/cli in dist-cli/
// (scripts/build-cli.mjs; `npm ci` builds them through the `prepare` script): one CommonJS file
// per command (the command, src/cli/main.ts and the core they need) and one for `--help` and
// unknown commands, so a start loads and compiles only what its command runs. This file is
// CommonJS too, as the bundles are: Node starts CommonJS without its ES module loader.
//
// Where the bundle is missing (installed with --ignore-scripts) or older than its sources (a pull
// or an edit since), it is rebuilt first, which takes a few seconds and says so on stderr; the
// check stats only the files the command's bundle is built from (a few dozen).
//
// (V8's code cache, compiling a bundle through vm.Script with cached data, was measured here: no
// gain above the noise for the systrace bundle, 80 KB, nor for partition's, 840 KB, whose cache
// costs more page faults to read than it saves in compiling.)
'use strict';
const { readFileSync, statSync } = require('node:fs');
const { join } = require('node:path');

const ROOT = join(__dirname, '..');
const OUT_DIR = 'dist-cli';
const MANIFEST = 'manifest.json';
/** the bundle that answers `--help`, no command and unknown commands */
const BARE = '';
/**
 * Commands whose process keeps V8's young generation at its initial size (the semi-spaces do not
 * grow). Where a page of fresh memory costs 10-40 us (this project's VMs), growing the young
 * generation to its 16 MB semi-spaces made `partition` (a 10,000-operator model into 2,501 parts)
 * touch 30 MB of fresh pages: with it the process took 15,900-16,000 page faults instead of
 * 22,500-23,700 and 1.14-1.16 s of CPU instead of 1.36-1.49 (in-process phases, no files). A
 * GC setting only: the results are the same. Set at run time (v8.setFlagsFromString), which
 * V8 reads when it next grows the new space; other commands were not measured with it.
 */
const KEEP_NEW_SPACE_SMALL = new Set(['partition']);

/**
 * The manifest of the bundle under `root` and why it cannot run `npu-studio COMMAND` as it is
 * (`stale`, null when it is up to date): no manifest, or an input whose mtime or size differs from
 * the build's (edited, replaced, deleted), or the bundle file gone. Only the inputs of the bundle
 * that runs COMMAND are looked at (one stat per file, a few dozen; a stat costs 2-30 us here).
 */
function checkBundle(root, command) {
  const dir = join(root, OUT_DIR);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return { manifest: null, bundle: null, stale: 'it has not been built yet' };
  }
  const { files, bundles } = manifest ?? {};
  if (!Array.isArray(files) || typeof bundles !== 'object' || bundles === null || typeof bundles[BARE] !== 'object') {
    return { manifest: null, bundle: null, stale: `${OUT_DIR}/${MANIFEST} is unreadable` };
  }
  const bundle = command !== undefined && command !== BARE && Object.hasOwn(bundles, command) ? bundles[command] : bundles[BARE];
  if (!bundle || typeof bundle.file !== 'string' || !Array.isArray(bundle.inputs)) return { manifest: null, bundle: null, stale: `${OUT_DIR}/${MANIFEST} is unreadable` };
  for (const i of bundle.inputs) {
    const [file, mtimeMs, size] = files[i] ?? [];
    // root + '/' + file, not path.join: join normalises the path in JavaScript, which made the
    // 250 stats of the partition bundle cost 20-25 ms instead of 5-8 in a fresh process
    const st = statSync(`${root}/${file}`, { throwIfNoEntry: false });
    if (!st) return { manifest, bundle, stale: `${file} is gone` };
    if (st.mtimeMs !== mtimeMs || st.size !== size) return { manifest, bundle, stale: `${file} changed` };
  }
  if (!statSync(join(dir, bundle.file), { throwIfNoEntry: false })) return { manifest, bundle, stale: `${OUT_DIR}/${bundle.file} is missing` };
  return { manifest, bundle, stale: null };
}

/** Why the bundle under `root` cannot run `npu-studio COMMAND` as it is, or null when it is up to date. */
function bundleStaleness(root = ROOT, command = undefined) {
  return checkBundle(root, command).stale;
}

async function run() {
  const command = process.argv[2];
  let { manifest, bundle, stale } = checkBundle(ROOT, command);
  if (stale) {
    process.stderr.write(`npu-studio: building the command line into ${OUT_DIR}/ first (${stale}) ...\n`);
    try {
      const { buildCli } = await import('../scripts/build-cli.mjs');
      await buildCli();
    } catch (e) {
      process.stderr.write(`npu-studio: the build failed: ${e instanceof Error ? e.message : String(e)}\n`);
      process.exit(1);
    }
    ({ manifest, bundle, stale } = checkBundle(ROOT, command));
    if (stale || !manifest) {
      process.stderr.write(`npu-studio: the build left ${OUT_DIR}/ unusable (${stale})\n`);
      process.exit(1);
    }
  }
  if (KEEP_NEW_SPACE_SMALL.has(command)) require('node:v8').setFlagsFromString('--semi-space-growth-factor=1');
  const { main } = require(join(ROOT, OUT_DIR, bundle.file));
  process.exitCode = await main(process.argv.slice(2));
}

module.exports = { bundleStaleness, ROOT, OUT_DIR, MANIFEST, BARE };

if (require.main === module) {
  run().catch((e) => {
    process.stderr.write(`npu-studio: internal error: ${e instanceof Error ? e.stack : String(e)}\n`);
    process.exitCode = 1;
  });
}
