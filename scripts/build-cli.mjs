#!/usr/bin/env node
/**
 * Bundles the `npu-studio` command line (src/cli/main.ts and the core it imports) with esbuild into
 * dist-cli/, so the command starts as plain JavaScript instead of compiling TypeScript through tsx
 * on every run. `npm ci` runs this (the `prepare` script); bin/npu-studio.cjs runs it again when
 * the bundle is missing or older than its sources (`bundleStaleness`), so a checkout whose sources
 * changed since (git pull, an edit) never runs yesterday's CLI.
 *
 *   dist-cli/COMMAND-HASH.cjs        one CommonJS bundle per command: src/cli/main.ts with that
 *                                    command and the core it needs, nothing else (the other
 *                                    commands' imports point to files that do not exist)
 *   dist-cli/npu-studio-HASH.cjs     main.ts alone: `--help`, no command, an unknown command
 *   dist-cli/compute-thread.mjs      the kernels' compute thread (worker_threads), which the
 *                                    bundles holding src/cli/kernels.ts start from beside them
 *   dist-cli/manifest.json           every input file with its mtime and size at build time, and
 *                                    for each bundle its file and the inputs it is built from
 *
 * Why CommonJS and one file per command (no code splitting, which esbuild does for ES modules
 * only): Node 20 starts an ES module through its ES module loader, and every module it loads costs
 * a resolution and a compilation of its own (`--help` through an ES module entry and a chunk took
 * 30-40 ms of CPU more than through one CommonJS file here). A command's module and main.ts
 * share one bundle, so the classes main.ts tests errors with (UsageError) are the ones the command
 * throws.
 *
 * Files are written under new names (HASH: of the contents) and the manifest last, so a process
 * starting during a build sees either the old bundle or the new one; files of earlier builds are
 * removed a minute after they were replaced, not while a process that started on the old manifest
 * may still load them.
 *   node scripts/build-cli.mjs       build (prints the size and time)
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, realpathSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const bin = createRequire(import.meta.url)('../bin/npu-studio.cjs');

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const OUT_DIR = bin.OUT_DIR;
const MANIFEST = bin.MANIFEST;
/** files that shape the bundle without being part of it */
const BUILD_INPUTS = ['scripts/build-cli.mjs', 'bin/npu-studio.cjs', 'package.json'];
const ENTRY_SOURCE = 'src/cli/main.ts';
/** the kernels' compute thread (worker_threads), started by the bundles of the commands that run kernels */
const COMPUTE_THREAD_SOURCE = 'src/cli/compute-thread-bundled.ts';
export const COMPUTE_THREAD = 'compute-thread.mjs';
const BUNDLE_URL = '__npuStudioBundleUrl';
const KERNELS_SOURCE = 'src/cli/kernels.ts';

/**
 * Why the bundle under `root` cannot run `npu-studio COMMAND` as it is, or null when it is up to
 * date (bin/npu-studio.cjs checks this at every start): no manifest, or an input of the command's
 * bundle whose mtime or size differs from the build's (edited, replaced, deleted). A command that
 * is not in the bundle, or none, checks the bare bundle's inputs: main.ts answers it.
 */
export const bundleStaleness = bin.bundleStaleness;

function writeAtomically(path, contents) {
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, contents);
  renameSync(tmp, path);
}

/** Builds the bundles under `root`; resolves to { files, bytes, inputs, ms }. */
export async function buildCli(root = ROOT) {
  const t0 = performance.now();
  const startedAt = Date.now();
  // imported here, not at the top: only a stale bundle pays for loading esbuild
  const esbuild = await import('esbuild');
  const dir = join(root, OUT_DIR);
  /** main.ts's lazily loaded commands (the file names in src/cli/ it imports dynamically), seen while bundling */
  const commandFiles = new Set();
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
  /** the compute thread's inputs (set before the bundles are built) */
  let threadInputs = [];
  /** one bundle: main.ts with the command `keep` (a file name in src/cli/), or with none */
  const isEntry = (importer) => importer.split(sep).join('/').endsWith(`/${ENTRY_SOURCE}`);
  const bundle = async (name, keep) => {
    const result = await esbuild.build({
      absWorkingDir: root,
      entryPoints: [ENTRY_SOURCE],
      outfile: join(OUT_DIR, `${name}.cjs`),
      bundle: true,
      format: 'cjs',
      platform: 'node',
      target: 'node20',
      // import.meta.url is the bundle's own URL (src/cli/kernels.ts finds the compute thread beside
      // it, new URL('./compute-thread.mjs', import.meta.url)); CommonJS has no import.meta
      define: { 'import.meta.url': BUNDLE_URL },
      // ('use strict' first: the bundle's own directive after this line would be no directive)
      banner: { js: `'use strict';\nconst ${BUNDLE_URL} = require('node:url').pathToFileURL(__filename).href;` },
      // linked source maps cost nothing at start-up; NODE_OPTIONS=--enable-source-maps maps stacks
      sourcemap: 'linked',
      sourcesContent: false,
      legalComments: 'none',
      metafile: true,
      write: false,
      logLevel: 'warning',
      plugins: [
        {
          name: 'one-command',
          setup(b) {
            // main.ts's other commands: a path that is never there (main.ts loads only the command it runs)
            b.onResolve({ filter: /^\.\/[a-z][a-z0-9-]*$/ }, (a) => {
              if (a.kind !== 'dynamic-import' || !isEntry(a.importer)) return undefined;
              commandFiles.add(a.path.slice(2));
              return a.path === `./${keep}` ? undefined : { path: a.path.slice(2), namespace: 'other-command' };
            });
            b.onLoad({ filter: /.*/, namespace: 'other-command' }, (a) => ({
              contents: `throw new Error(${JSON.stringify(`the command '${a.path}' is not in this bundle (bin/npu-studio.cjs picks the bundle of the command it runs)`)});`,
              loader: 'js',
            }));
          },
        },
      ],
    });
    const js = result.outputFiles.find((f) => f.path.endsWith('.cjs'));
    const map = result.outputFiles.find((f) => f.path.endsWith('.cjs.map'));
    if (!js || !map) throw new Error(`esbuild wrote no ${name}.cjs`);
    const hash = createHash('sha256').update(js.contents).digest('hex').slice(0, 12).toUpperCase();
    const file = `${name}-${hash}.cjs`;
    const own = Object.keys(result.metafile.inputs).filter((f) => !f.startsWith('other-command:'));
    const startsThreads = own.some((f) => f.split(sep).join('/') === KERNELS_SOURCE);
    const inputs = [...new Set([...own.map(indexOf), ...BUILD_INPUTS.map(indexOf), ...(startsThreads ? threadInputs : [])])].sort((a, b) => a - b);
    const text = Buffer.from(js.contents).toString('utf8').replace(`//# sourceMappingURL=${name}.cjs.map`, `//# sourceMappingURL=${file}.map`);
    return { file, inputs, contents: [[file, text], [`${file}.map`, map.contents]] };
  };
  // the compute thread: an ES module under a fixed name beside the bundles (the name kernels.ts
  // asks for); its sources are inputs of the bundles that start it (those holding kernels.ts)
  const thread = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [COMPUTE_THREAD_SOURCE],
    outfile: join(OUT_DIR, COMPUTE_THREAD),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    legalComments: 'none',
    metafile: true,
    write: false,
    logLevel: 'warning',
  });
  threadInputs = Object.keys(thread.metafile.inputs).map(indexOf);
  const threadJs = thread.outputFiles.find((f) => f.path.endsWith('.mjs'));
  if (!threadJs) throw new Error(`esbuild wrote no ${COMPUTE_THREAD}`);
  const bundles = { [bin.BARE]: await bundle('npu-studio', null) };
  if (!commandFiles.size) throw new Error(`esbuild saw no command that ${ENTRY_SOURCE} loads lazily`);
  // a command is named as its file in src/cli/ (main.ts's `loaders` keys are the file names)
  const names = [...commandFiles].sort();
  const built = await Promise.all(names.map((command) => bundle(command, command)));
  names.forEach((command, i) => (bundles[command] = built[i]));
  mkdirSync(dir, { recursive: true });
  const written = new Set([MANIFEST, COMPUTE_THREAD]);
  writeAtomically(join(dir, COMPUTE_THREAD), threadJs.contents);
  let bytes = 0;
  for (const b of Object.values(bundles)) {
    for (const [name, contents] of b.contents) {
      bytes += contents.length;
      written.add(name);
      // same name, same bytes: a file already there stays as it is
      if (!statSync(join(dir, name), { throwIfNoEntry: false })) writeAtomically(join(dir, name), contents);
    }
  }
  const manifestBundles = Object.fromEntries(Object.entries(bundles).map(([k, b]) => [k, { file: b.file, inputs: b.inputs }]));
  writeAtomically(join(dir, MANIFEST), JSON.stringify({ built: new Date().toISOString(), esbuild: esbuild.version, files, bundles: manifestBundles }) + '\n');
  // files of earlier builds (their names hold the content hash), once no run can still need them
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st || written.has(name)) continue;
    if (st.mtimeMs < Date.now() - 60_000) rmSync(path, { recursive: true, force: true });
  }
  return { files: Object.values(bundles).map((b) => join(OUT_DIR, b.file)), bytes, inputs: files.length, ms: performance.now() - t0 };
}

// run as a script (npm's prepare); argv[1] may be reached through a symlink, this module's URL never is
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) {
  try {
    const r = await buildCli();
    console.log(`${OUT_DIR}/: ${r.files.length} bundles, ${(r.bytes / 1024).toFixed(0)} KiB with source maps, from ${r.inputs} inputs, in ${r.ms.toFixed(0)} ms`);
  } catch (e) {
    console.error(`build-cli: ${e instanceof Error ? e.message : String(e)}`);
    process.exit(1);
  }
}
