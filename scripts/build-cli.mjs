#!/usr/bin/env node
/**
 * Bundles the `npu-studio` command line (src/cli/main.ts and the core it imports) with esbuild into
 * dist-cli/, so the command starts as plain JavaScript instead of compiling TypeScript through tsx
 * on every run. `npm ci` runs this (the `prepare` script); bin/npu-studio.mjs runs it again when
 * the bundle is missing or older than its sources (`bundleStaleness`), so a checkout whose sources
 * changed since (git pull, an edit) never runs yesterday's CLI.
 *
 *   dist-cli/npu-studio.mjs          the entry: exports main(argv, io)
 *   dist-cli/chunks/*.mjs            one chunk per lazily loaded command (esbuild code splitting),
 *                                    named by content hash, so `--help` loads none of them
 *   dist-cli/manifest.json           every input file with its mtime and size at build time, and
 *                                    which of them each command is built from
 *
 * Files are written to a temporary name and renamed, chunks before the entry and the manifest
 * last, so a process starting during a build sees either the old bundle or the new one; chunks of
 * earlier builds are removed a minute after they were written, not while a process that started
 * on the old entry may still load them.
 *   node scripts/build-cli.mjs       build (prints the size and time)
 */
import { mkdirSync, readdirSync, readFileSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = 'dist-cli';
export const ENTRY = 'npu-studio.mjs';
const MANIFEST = 'manifest.json';
/** files that shape the bundle without being part of it */
const BUILD_INPUTS = ['scripts/build-cli.mjs', 'package.json'];

/**
 * Why the bundle under `root` cannot run `npu-studio COMMAND` as it is, or null when it is up to
 * date: no manifest, or an input whose mtime or size differs from the build's (edited, replaced,
 * deleted). Only the inputs that command runs are looked at: those of the entry (main.ts and
 * what it imports, always) and of the command's chunks (src/cli/COMMAND.ts and everything it
 * imports, statically or lazily); that is one stat per file, a few dozen, instead of all of them
 * (a stat costs 2-30 us here; 300 of them were a tenth of `--help`'s time on a busy machine).
 * A command that is not in the bundle, or none, checks the entry's inputs: main.ts answers it.
 */
export function bundleStaleness(root = ROOT, command = undefined) {
  const dir = join(root, OUT_DIR);
  let manifest;
  try {
    manifest = JSON.parse(readFileSync(join(dir, MANIFEST), 'utf8'));
  } catch {
    return 'it has not been built yet';
  }
  const { files, entry, commands } = manifest ?? {};
  if (!Array.isArray(files) || !Array.isArray(entry) || typeof commands !== 'object') return `${OUT_DIR}/${MANIFEST} is unreadable`;
  const own = command !== undefined && Object.hasOwn(commands, command) ? commands[command] : [];
  for (const i of [...entry, ...own]) {
    const [file, mtimeMs, size] = files[i] ?? [];
    const st = statSync(join(root, String(file)), { throwIfNoEntry: false });
    if (!st) return `${file} is gone`;
    if (st.mtimeMs !== mtimeMs || st.size !== size) return `${file} changed`;
  }
  if (!statSync(join(dir, ENTRY), { throwIfNoEntry: false })) return `${OUT_DIR}/${ENTRY} is missing`;
  return null;
}

/**
 * The manifest: its file table and the inputs each start-up needs, found in esbuild's import graph
 * of the inputs (so files that emit no code, such as an index that re-exports, count too): the
 * entry's through static imports (its dynamic imports are the commands), each command's
 * (src/cli/COMMAND.ts) through all its imports.
 */
function manifestOf(metafile, root, startedAt) {
  const files = [];
  const index = new Map();
  const indexOf = (file) => {
    let i = index.get(file);
    if (i === undefined) {
      const st = statSync(join(root, file));
      // a file edited while esbuild read it may be in the bundle in its old form: recorded as
      // unseen (size -1), so the next start rebuilds (a future mtime, clock skew, is not this)
      const duringBuild = st.mtimeMs >= startedAt && st.mtimeMs <= Date.now();
      files.push(duringBuild ? [file.split(sep).join('/'), 0, -1] : [file.split(sep).join('/'), st.mtimeMs, st.size]);
      i = files.length - 1;
      index.set(file, i);
    }
    return i;
  };
  const graph = metafile.inputs;
  const closure = (start, followDynamic) => {
    const seen = new Set();
    const visit = (file) => {
      if (seen.has(file) || !graph[file]) return;
      seen.add(file);
      for (const imp of graph[file].imports) if (!imp.external && (followDynamic || imp.kind !== 'dynamic-import')) visit(imp.path);
    };
    visit(start);
    return [...seen].map(indexOf);
  };
  const ENTRY_SOURCE = 'src/cli/main.ts';
  if (!graph[ENTRY_SOURCE]) throw new Error(`esbuild's metafile has no ${ENTRY_SOURCE}`);
  const entry = new Set([...closure(ENTRY_SOURCE, false), ...BUILD_INPUTS.map(indexOf)]);
  const commands = {};
  for (const imp of graph[ENTRY_SOURCE].imports) {
    const m = /^src\/cli\/([a-z][a-z0-9-]*)\.ts$/.exec(imp.path);
    if (imp.kind === 'dynamic-import' && m) commands[m[1]] = closure(imp.path, true).filter((i) => !entry.has(i)).sort((a, b) => a - b);
  }
  return { files, entry: [...entry].sort((a, b) => a - b), commands };
}

function writeAtomically(path, contents) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** Builds the bundle under `root`; resolves to { files, bytes, inputs, ms }. */
export async function buildCli(root = ROOT) {
  const t0 = performance.now();
  const startedAt = Date.now();
  // imported here, not at the top: bin/npu-studio.mjs imports this module for bundleStaleness on
  // every start, and only a stale bundle pays for loading esbuild
  const esbuild = await import('esbuild');
  const dir = join(root, OUT_DIR);
  const result = await esbuild.build({
    absWorkingDir: root,
    // the kernels' compute thread sits beside the chunks that start it (new URL('./compute-thread.mjs', import.meta.url))
    entryPoints: { 'npu-studio': 'src/cli/main.ts', 'chunks/compute-thread': 'src/cli/compute-thread-bundled.ts' },
    // CommonJS packages that require Node built-ins at run time stay in node_modules (a bundled
    // require('util') cannot run in an ES module)
    external: ['pngjs', 'jpeg-js'],
    outdir: OUT_DIR,
    outExtension: { '.js': '.mjs' },
    chunkNames: 'chunks/[name]-[hash]',
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    // linked source maps cost nothing at start-up; NODE_OPTIONS=--enable-source-maps maps stacks
    sourcemap: 'linked',
    sourcesContent: false,
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  const manifest = manifestOf(result.metafile, root, startedAt);
  mkdirSync(join(dir, 'chunks'), { recursive: true });
  const written = new Set();
  const entryPath = join(dir, ENTRY);
  let entry = null;
  let bytes = 0;
  for (const f of result.outputFiles) {
    bytes += f.contents.length;
    written.add(f.path);
    if (f.path === entryPath) entry = f;
    else writeAtomically(f.path, f.contents);
  }
  if (!entry) throw new Error(`esbuild wrote no ${OUT_DIR}/${ENTRY}`);
  writeAtomically(entry.path, entry.contents);
  writeAtomically(join(dir, MANIFEST), JSON.stringify({ built: new Date().toISOString(), esbuild: esbuild.version, ...manifest }) + '\n');
  // chunks of earlier builds (their names hold the content hash), once no run can still need them
  for (const name of readdirSync(join(dir, 'chunks'))) {
    const path = join(dir, 'chunks', name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (st && !written.has(path) && st.mtimeMs < Date.now() - 60_000) rmSync(path, { force: true });
  }
  return { files: result.outputFiles.map((f) => relative(root, f.path)), bytes, inputs: manifest.files.length, ms: performance.now() - t0 };
}

// run as a script (npm's prepare); argv[1] may be reached through a symlink, this module's URL never is
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  try {
    const r = await buildCli();
    const js = r.files.filter((f) => f.endsWith('.mjs')).length;
    console.log(`${OUT_DIR}/: ${js} file(s), ${(r.bytes / 1024).toFixed(0)} KiB with source maps, from ${r.inputs} inputs, in ${r.ms.toFixed(0)} ms`);
  } catch (e) {
    console.error(`build-cli: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
