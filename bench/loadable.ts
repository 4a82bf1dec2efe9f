/**
 * NVDLA loadable figures (issue 12):
 * - open a 125 MB loadable to its task list (read + decode every task's descriptors + inspect
 *   JSON), and to the document the worker keeps (plus the op-slot graph and the memory map);
 * - diff-loadable of two 50 MB loadables, in-process (read both files + compare in memory, as the
 *   studio does) and as a whole process: the installed command (bin/npu-studio.cjs running the
 *   esbuild bundle in dist-cli/ that `npm ci` builds), which reads the files on demand and
 *   compares weights on the files; wall and CPU time, node's own start-up beside it.
 * The big loadables are made (not timed) from the LeNet fp16 golden by repeating the bytes of
 * each weight blob (`tb-*`) and laying the pool contents out again, 4 KiB aligned.
 * Run with `npm run bench -- loadable` (or `npx tsx bench/loadable.ts`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { loadavg, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { read } from '../src/core/loadable/read';
import { write } from '../src/core/loadable/write';
import { decodeTasks } from '../src/core/loadable/tasks';
import { inspectJson } from '../src/core/loadable/inspect';
import { openLoadable } from '../src/core/loadable/document';
import { diffLoadables } from '../src/core/loadable/diff';
import { goldenBytes } from '../test/support/nvdla-fixtures';
import { scaledLoadable } from '../test/support/nvdla-big';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

function median(xs: number[]) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

const scaled = scaledLoadable;

const tmp = mkdtempSync(join(tmpdir(), 'bench-loadable-'));
try {
  const base = read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'lenet.nvdla');

  // ---- open to the task list -------------------------------------------------------------------
  const big = write(scaled(base, 125 * 1024 * 1024));
  const openTimes: number[] = [];
  const docTimes: number[] = [];
  let tasks = '';
  let damage = -1;
  for (let i = 0; i < 7; i++) {
    const t0 = performance.now();
    const d = decodeTasks(read(big, 'big.nvdla'));
    const j = inspectJson(d);
    openTimes.push(performance.now() - t0);
    tasks = j.tasks.map((t) => `${t.interface} ${t.ops}`).join(' + ');
    damage = d.damage.length;
    const t1 = performance.now();
    const doc = openLoadable([{ name: 'big.nvdla', bytes: big }]);
    doc.services.graph!.graph('slots');
    doc.memoryMap();
    docTimes.push(performance.now() - t1);
  }
  console.log('## NVDLA loadables\n');
  console.log('| what | size | median of 7 | target |');
  console.log('|---|---:|---:|---:|');
  console.log(`| open to the task list (read + decode + inspect JSON; ${tasks} ops, ${damage} damage) | ${(big.length / 1048576).toFixed(1)} MB | ${median(openTimes).toFixed(1)} ms | < 200 ms |`);
  console.log(`| open as a document (+ op-slot graph + memory map) | ${(big.length / 1048576).toFixed(1)} MB | ${median(docTimes).toFixed(1)} ms | |`);

  // ---- diff of two 50 MB loadables -------------------------------------------------------------
  const fiftyA = scaled(base, 50 * 1024 * 1024);
  const a = write(fiftyA);
  // B: the same loadable with one weight byte changed near the end of the largest weight blob
  const largest = fiftyA.blobs.filter((b) => b.name.startsWith('tb-')).sort((x, y) => y.data.length - x.data.length)[0]!;
  const changed = largest.data.slice();
  changed[changed.length - 10] = changed[changed.length - 10]! ^ 1;
  const b = write({ ...fiftyA, blobs: fiftyA.blobs.map((x) => (x === largest ? { ...x, data: changed } : x)) });
  const pa = join(tmp, 'a.nvdla');
  const pb = join(tmp, 'b.nvdla');
  const pc = join(tmp, 'a-copy.nvdla');
  writeFileSync(pa, a);
  writeFileSync(pb, b);
  writeFileSync(pc, a);

  const inProcess = (x: string, y: string) => {
    const t0 = performance.now();
    const view = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    const bx = view(readFileSync(x));
    const by = view(readFileSync(y));
    const t1 = performance.now();
    const d = diffLoadables(read(bx, 'a'), read(by, 'b'));
    const t2 = performance.now();
    // the same again over the same buffers: their memory has now been touched once
    diffLoadables(read(bx, 'a'), read(by, 'b'));
    return { files: t1 - t0, ms: t2 - t1, again: performance.now() - t2, equivalent: d.equivalent };
  };
  const bin = join(root, 'bin', 'npu-studio.cjs');
  // the first run rebuilds the bundle when the sources are newer (it says so on stderr): not timed
  spawnSync(process.execPath, [bin, '--help'], { cwd: root });
  // as bench/cli.ts does: bash's clock right around the command, its CPU (user + sys) from `times`;
  // NODE_EXTRA_CA_CERTS (set on this VM, read at every Node start) dropped for the runs
  const { NODE_EXTRA_CA_CERTS: _certs, ...childEnv } = process.env;
  const timed = (cmd: string, args: string[]) => {
    const script = 't0=$EPOCHREALTIME; "$@" </dev/null >/dev/null 2>&1; rc=$?; t1=$EPOCHREALTIME; echo "$t0 $t1 $rc"; times';
    const r = spawnSync('bash', ['-c', script, 'bash', cmd, ...args], { encoding: 'utf8', cwd: root, env: childEnv });
    const lines = r.stdout.trim().split('\n');
    const [t0, t1, rc] = (lines[0] ?? '').split(' ');
    const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[2] ?? '');
    return {
      ms: (Number(t1) - Number(t0)) * 1000,
      cpu: m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN,
      code: rc === undefined ? null : Number(rc),
    };
  };
  const whole = (x: string, y: string) => timed(process.execPath, [bin, 'diff-loadable', x, y]);
  for (const [label, y, expectCode] of [['one weight byte differs', pb, 1], ['equivalent (same bytes)', pc, 0]] as const) {
    const ip = Array.from({ length: 5 }, () => inProcess(pa, y));
    if (ip.some((r) => r.equivalent !== (expectCode === 0))) throw new Error(`in-process diff judged ${label} wrongly`);
    const wp = Array.from({ length: 5 }, () => whole(pa, y));
    if (wp.some((r) => r.code !== expectCode)) throw new Error(`diff-loadable exited ${wp.map((r) => r.code)} for ${label}, expected ${expectCode}`);
    console.log(`| diff-loadable, ${label}: in-process, read + decode + compare (files already in memory) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(ip.map((r) => r.ms)).toFixed(0)} ms | |`);
    console.log(`| diff-loadable, ${label}: in-process, the same again over the same buffers (memory touched once already) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(ip.map((r) => r.again)).toFixed(0)} ms | |`);
    console.log(`| diff-loadable, ${label}: in-process, reading the two files (readFileSync) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(ip.map((r) => r.files)).toFixed(0)} ms | |`);
    console.log(`| diff-loadable, ${label}: whole process (npu-studio diff-loadable, exit ${expectCode}), wall | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(wp.map((r) => r.ms)).toFixed(0)} ms | < 1 s |`);
    console.log(`| diff-loadable, ${label}: whole process, CPU (user + sys) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(wp.map((r) => r.cpu)).toFixed(0)} ms | |`);
  }
  const startup = Array.from({ length: 5 }, () => timed(process.execPath, ['-e', '0']));
  console.log(`| (node start-up alone, node -e 0, for reference): wall / CPU | | ${median(startup.map((r) => r.ms)).toFixed(0)} / ${median(startup.map((r) => r.cpu)).toFixed(0)} ms | |`);
  console.log(`\nload average ${loadavg().map((x) => x.toFixed(1)).join(' / ')} (1 / 5 / 15 min) at the end`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
