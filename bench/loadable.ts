/**
 * NVDLA loadable figures (issue 12):
 * - open a 125 MB loadable to its task list (read + decode every task's descriptors + inspect
 *   JSON), and to the document the worker keeps (plus the op-slot graph and the memory map);
 * - diff-loadable of two 50 MB loadables, in-process (read both files + compare) and as a
 *   whole process: the installed command (bin/npu-studio.cjs running the esbuild bundle in
 *   dist-cli/ that `npm ci` builds), node's own start-up beside it.
 * The big loadables are made (not timed) from the LeNet fp16 golden by repeating the bytes of
 * each weight blob (`tb-*`) and laying the pool contents out again, 4 KiB aligned.
 * Run with `npm run bench -- loadable` (or `npx tsx bench/loadable.ts`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
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
    return { files: t1 - t0, ms: performance.now() - t1, equivalent: d.equivalent };
  };
  const bin = join(root, 'bin', 'npu-studio.cjs');
  // the first run rebuilds the bundle when the sources are newer (it says so on stderr): not timed
  spawnSync(process.execPath, [bin, '--help'], { cwd: root });
  const whole = (x: string, y: string) => {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, [bin, 'diff-loadable', x, y], { cwd: root, encoding: 'utf8' });
    return { ms: performance.now() - t0, code: r.status };
  };
  for (const [label, y, expectCode] of [['one weight byte differs', pb, 1], ['equivalent (same bytes)', pc, 0]] as const) {
    const ip = Array.from({ length: 5 }, () => inProcess(pa, y));
    if (ip.some((r) => r.equivalent !== (expectCode === 0))) throw new Error(`in-process diff judged ${label} wrongly`);
    const wp = Array.from({ length: 5 }, () => whole(pa, y));
    if (wp.some((r) => r.code !== expectCode)) throw new Error(`diff-loadable exited ${wp.map((r) => r.code)} for ${label}, expected ${expectCode}`);
    console.log(`| diff-loadable, ${label}: in-process, read + decode + compare (files already in memory) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(ip.map((r) => r.ms)).toFixed(0)} ms | |`);
    console.log(`| diff-loadable, ${label}: in-process, reading the two files (readFileSync) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(ip.map((r) => r.files)).toFixed(0)} ms | |`);
    console.log(`| diff-loadable, ${label}: whole process (npu-studio diff-loadable, exit ${expectCode}) | 2 x ${(a.length / 1048576).toFixed(1)} MB | ${median(wp.map((r) => r.ms)).toFixed(0)} ms | < 1 s |`);
  }
  const startup = Array.from({ length: 5 }, () => {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0'], { cwd: root });
    return performance.now() - t0;
  });
  console.log(`| (node start-up alone, node -e 0, for reference) | | ${median(startup).toFixed(0)} ms | |`);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
