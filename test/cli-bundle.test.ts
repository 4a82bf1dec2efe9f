/**
 * The installed command as a process: bin/npu-studio.cjs runs the esbuild bundle in dist-cli/ (one
 * CommonJS file per command) and rebuilds it first when it is missing or older than the sources
 * of the command being run. The
 * test works on a copy of the project's sources in a temporary folder (node_modules linked), so
 * it never touches the worktree's own dist-cli/.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildCli, bundleStaleness, OUT_DIR, ROOT } from '../scripts/build-cli.mjs';

let root = '';

function cli(...args: string[]) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'npu-studio.cjs'), ...args], { encoding: 'utf8', cwd: ROOT });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

/** gives a file another mtime (an hour ago), as a checkout of another version would */
function touch(file: string) {
  const other = new Date(Date.now() - 3_600_000);
  utimesSync(join(root, file), other, other);
}

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'npu-cli-bundle-'));
  for (const p of ['src', 'bin', 'scripts', 'package.json', 'tsconfig.json']) cpSync(join(ROOT, p), join(root, p), { recursive: true });
  symlinkSync(join(ROOT, 'node_modules'), join(root, 'node_modules'), 'dir');
  mkdirSync(join(root, 'test'));
  await buildCli(root);
}, 60_000);
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('bundleStaleness', () => {
  it('is null right after a build, for every command and for none', () => {
    const manifest = JSON.parse(readFileSync(join(root, OUT_DIR, 'manifest.json'), 'utf8')) as { bundles: Record<string, { file: string }> };
    // one bundle per command of main.ts, and the bare one for --help
    expect(Object.keys(manifest.bundles).sort()).toEqual(['', 'calibrate', 'chef', 'compile', 'diff-loadable', 'inspect', 'optimize', 'partition', 'run', 'run-loadable', 'systrace']);
    expect(Object.values(manifest.bundles).filter((b) => !existsSync(join(root, OUT_DIR, b.file)))).toEqual([]);
    const stale = ['inspect', 'chef', 'partition', 'optimize', 'systrace', 'no-such-command', undefined].map((c) => [c, bundleStaleness(root, c)]);
    expect(stale.filter(([, why]) => why !== null)).toEqual([]);
  });

  it("keeps flatc's generated classes out of the partition bundle (loading them cost 80 ms of CPU)", () => {
    const manifest = JSON.parse(readFileSync(join(root, OUT_DIR, 'manifest.json'), 'utf8')) as { files: [string][]; bundles: Record<string, { inputs: number[] }> };
    const generated = manifest.bundles.partition!.inputs.map((i) => manifest.files[i]![0]).filter((f) => f.includes('/generated/') && !/builtin-operator|tensor-type/.test(f));
    expect(generated).toEqual([]);
  });

  // each test stales a different command's sources; the entry's (which stale all) come last
  it("looks at the command's own sources: an edit to the systrace core stales systrace, not chef", () => {
    touch('src/core/systrace/input.ts');
    expect(bundleStaleness(root, 'systrace')).toBe('src/core/systrace/input.ts changed');
    expect(bundleStaleness(root, 'chef')).toBeNull();
    expect(bundleStaleness(root)).toBeNull();
  });

  it('an index that only re-exports counts too (it emits no code of its own)', () => {
    const index = 'src/core/chef/index.ts';
    expect(readFileSync(join(root, index), 'utf8')).toMatch(/^export \{[^}]*\} from/m);
    touch(index);
    expect(bundleStaleness(root, 'chef')).toBe(`${index} changed`);
  });

  it("the entry's sources and the build's own files count for every command", () => {
    expect(bundleStaleness(root, 'optimize')).toBeNull();
    touch('package.json');
    for (const c of ['optimize', 'partition', undefined]) expect(bundleStaleness(root, c)).toBe('package.json changed');
  });

  it('a manifest that is missing or unreadable means "build it"', () => {
    const manifest = join(root, OUT_DIR, 'manifest.json');
    const kept = readFileSync(manifest);
    writeFileSync(manifest, '{"files": 3}');
    expect(bundleStaleness(root, 'chef')).toBe(`${OUT_DIR}/manifest.json is unreadable`);
    rmSync(manifest);
    expect(bundleStaleness(root, 'chef')).toBe('it has not been built yet');
    writeFileSync(manifest, kept);
  });
});

describe('bin/npu-studio.cjs as a process', () => {
  it('rebuilds a stale bundle once, saying so on stderr, and then runs the new code', () => {
    const main = join(root, 'src/cli/main.ts');
    writeFileSync(main, readFileSync(main, 'utf8').replace("'usage: npu-studio <command> [options]'", "'usage: npu-studio <command> [options] (edited)'"));
    const first = cli('--help');
    expect(first.err).toBe(`npu-studio: building the command line into ${OUT_DIR}/ first (src/cli/main.ts changed) ...\n`);
    expect(first.code).toBe(0);
    expect(first.out).toMatch(/^usage: npu-studio <command> \[options\] \(edited\)\n/);
    const second = cli('--help');
    expect(second).toEqual({ code: 0, out: first.out, err: '' });
    expect(bundleStaleness(root, 'systrace')).toBeNull();
  }, 60_000);

  it('builds a missing bundle before the first command', () => {
    rmSync(join(root, OUT_DIR), { recursive: true, force: true });
    const r = cli('systrace', 'test/fixtures/systrace/upstream/inputs/omr1.trace.txt');
    expect(r.code).toBe(0);
    expect(r.err.split('\n')[0]).toBe(`npu-studio: building the command line into ${OUT_DIR}/ first (it has not been built yet) ...`);
    expect(r.out).toBe(readFileSync(join(ROOT, 'test/fixtures/systrace/upstream/expected/omr1.txt'), 'utf8'));
  }, 60_000);

  it("starts the kernels' compute threads from beside the bundles (run --threads 2)", () => {
    const lenet = 'test/fixtures/caffe/lenet';
    const out = join(root, 'out.npz');
    const r = cli('run', `${lenet}/lenet.prototxt`, '--caffemodel', `${lenet}/lenet_iter_10000.caffemodel`, '--out', out, '--threads', '2', '--json');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ kernels: 'wasm-simd x2', outputs: [{ name: 'prob', shape: [64, 10] }] });
    // the bundle asks for ./compute-thread.mjs beside itself: that file runs core's job loop
    const manifest = JSON.parse(readFileSync(join(root, OUT_DIR, 'manifest.json'), 'utf8')) as { bundles: Record<string, { file: string }> };
    expect(readFileSync(join(root, OUT_DIR, manifest.bundles.run!.file), 'utf8')).toContain('new URL("./compute-thread.mjs", __npuStudioBundleUrl)');
    const thread = spawnSync(process.execPath, ['-e', `new (require('node:worker_threads').Worker)(${JSON.stringify(join(root, OUT_DIR, 'compute-thread.mjs'))}, { workerData: null }).on('error', (e) => { console.log(e.message); process.exit(0); })`], { encoding: 'utf8' });
    // (null is not a job board: the job loop, reached, fails on it)
    expect(thread.stdout).toMatch(/null/);
  }, 60_000);

  it("runs every bundle in strict mode (the banner keeps 'use strict' first)", () => {
    const manifest = JSON.parse(readFileSync(join(root, OUT_DIR, 'manifest.json'), 'utf8')) as { bundles: Record<string, { file: string }> };
    const sloppy = Object.values(manifest.bundles).filter((b) => !readFileSync(join(root, OUT_DIR, b.file), 'utf8').startsWith("'use strict';\n"));
    expect(sloppy).toEqual([]);
  });

  it('keeps the exit codes: 0 success, 1 bad input, 2 usage, with the message on stderr', () => {
    expect(cli('systrace', 'test/fixtures/systrace/upstream/inputs/omr1.trace.txt', '--json').code).toBe(0);
    const bad = cli('inspect', 'package.json');
    expect(bad.code).toBe(1);
    expect(bad.err).toMatch(/^npu-studio inspect: package\.json: byte 0: not a model format/);
    const missing = cli('inspect', 'no/such.circle');
    expect(missing).toEqual({ code: 1, out: '', err: 'npu-studio inspect: no/such.circle: no such file\n' });
    const usage = cli('optimize', 'a.circle', 'b.circle', '--passes');
    expect(usage.code).toBe(2);
    expect(usage.err).toMatch(/^npu-studio optimize: option --passes needs a value\nusage: npu-studio optimize /);
    expect(cli().code).toBe(2);
  }, 60_000);
});
