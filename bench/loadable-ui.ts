/**
 * NVDLA loadables in the browser: a 125 MB loadable (the LeNet fp16 golden with its weight blobs
 * repeated, test/support/nvdla-big.ts, as in bench/loadable.ts) dropped onto the real app
 * (production build, Debian Chromium, headless, --disable-gpu, 1400x900). Per drop:
 * - in the model worker, from its User Timing measures (src/worker/service.ts): reading the
 *   dropped Blob into bytes, and read + decode (detect, lists, every task's descriptors, the
 *   op-slot graph);
 * - on the UI thread: the open request until the worker's answer (worker start included on the
 *   first drop), the Tasks view's overview request until it arrived (src/ui/loadable/data.ts),
 *   and drop to the task list painted (the frame after the op-slot table is in the DOM);
 * - the longest UI-thread task meanwhile (Long Tasks API; 0 = none over 50 ms).
 * Then, on the same page: the Blobs view's hex view of the largest weight blob (its first 4 KiB
 * window painted) and its histogram (all its fp16 values decoded in the worker).
 * The file is served by the bench's own `vite preview` (port 5193, BENCH_PORT overrides it) and
 * made into a File in the page before the clock starts. Median of 3 rounds; prints Markdown.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import type { Browser } from 'playwright-core';
import { read } from '../src/core/loadable/read';
import { write } from '../src/core/loadable/write';
import { goldenBytes } from '../test/support/nvdla-fixtures';
import { scaledLoadable } from '../test/support/nvdla-big';
import { launchChromium, requireChromium, startPreview, type Server } from './support/harness';

const ROUNDS = 3;
const OUT = '.cache/bench-loadable-ui';
const FILE = 'big-125mb.nvdla';

requireChromium('Loadable UI');

interface Drop {
  readMs: number;
  parseMs: number;
  openMs: number;
  overviewMs: number;
  paintedMs: number;
  longestTaskMs: number;
}

type Win = Window & { __files: Record<string, File>; __longest: number };

interface Round {
  cold: Drop;
  warm: Drop;
  hexMs: number;
  histogramMs: number;
}

async function round(browser: Browser, server: Server): Promise<Round> {
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  try {
    await page.addInitScript('window.__name = (f) => f'); // tsx keepNames helper, see bench/browser.ts
    page.on('pageerror', (e) => console.error(`page error: ${e.message}`));
    await page.goto(`${server.url}/?sample=none`);
    await page.evaluate(async ({ file, names }) => {
      const blob = await (await fetch(file)).blob();
      const w = window as unknown as Win;
      w.__files = Object.fromEntries(names.map((n) => [n, new File([blob], n)]));
      w.__longest = 0;
      new PerformanceObserver((list) => {
        for (const e of list.getEntries()) w.__longest = Math.max(w.__longest, e.duration);
      }).observe({ type: 'longtask', buffered: false });
    }, { file: FILE, names: ['big.nvdla', 'big-again.nvdla'] });

    const drop = async (name: string): Promise<Drop> => {
      const ui = await page.evaluate(
        (name) =>
          new Promise<{ paintedMs: number; longestTaskMs: number; openMs: number; overviewMs: number }>((resolve, reject) => {
            const w = window as unknown as Win;
            w.__longest = 0;
            const dt = new DataTransfer();
            dt.items.add(w.__files[name]!);
            const t0 = performance.now();
            const poll = () => {
              if (performance.now() - t0 > 120_000) return reject(new Error(`the task list did not appear within 120 s (alerts: ${[...document.querySelectorAll('[role=alert]')].map((a) => a.textContent).join(' / ')})`));
              const rows = document.querySelectorAll('table[aria-label="Task 0 op slots"] tbody tr').length;
              const tab = [...document.querySelectorAll('[role=tab][aria-selected=true]')].some((t) => t.textContent === name);
              if (rows > 0 && tab) {
                requestAnimationFrame(() => {
                  const measured = (what: string) => performance.getEntriesByName(`npu:${what} ${name}`, 'measure').at(-1)?.duration ?? NaN;
                  resolve({ paintedMs: performance.now() - t0, longestTaskMs: w.__longest, openMs: measured('open'), overviewMs: measured('loadable:overview') });
                });
              } else requestAnimationFrame(poll);
            };
            document.body.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
            requestAnimationFrame(poll);
          }),
        name,
      );
      const worker = page.workers().find((wk) => /model/.test(wk.url()));
      if (!worker) throw new Error('model worker not found');
      await worker.evaluate('self.__name = (f) => f');
      const inWorker = await worker.evaluate((name) => {
        const last = (what: string) => performance.getEntriesByName(`npu:open:${what} ${name}`, 'measure').at(-1)?.duration ?? NaN;
        return { readMs: last('read'), parseMs: last('parse') };
      }, name);
      return { ...inWorker, ...ui };
    };

    const cold = await drop('big.nvdla');
    await page.getByRole('button', { name: 'Close big.nvdla' }).click();
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 300))));
    const warm = await drop('big-again.nvdla');

    // the largest weight blob: its first hex window, then its histogram
    await page.getByRole('tab', { name: 'Blobs' }).click();
    const largest = await page.evaluate(() => {
      const rows = [...document.querySelectorAll('table[aria-label="Blobs table"] tbody tr')];
      let best = { name: '', size: -1 };
      for (const r of rows) {
        const name = r.querySelector('button')?.textContent ?? '';
        const size = Number(r.querySelector('td.num[title]')?.getAttribute('title')?.match(/(\d+) bytes/)?.[1] ?? -1);
        if (size > best.size) best = { name, size };
      }
      return best;
    });
    const t0 = await page.evaluate(() => performance.now());
    await page.getByRole('button', { name: `Show blob ${largest.name}`, exact: true }).click();
    await page.waitForFunction(() => {
      const row = document.querySelector('.lv-hx-row[data-offset="0"] .lv-hx-bytes');
      return !!row && !row.textContent!.includes('··');
    }, null, { timeout: 60_000 });
    const hexMs = (await page.evaluate(() => performance.now())) - t0;
    await page.getByTestId('histogram').waitFor({ timeout: 120_000 });
    const histogramMs = (await page.evaluate(() => performance.now())) - t0;
    return { cold, warm, hexMs, histogramMs };
  } finally {
    await page.close();
  }
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main() {
  const big = write(scaledLoadable(read(goldenBytes('lenet-b1-nv_full-fp16-fast-math'), 'lenet.nvdla'), 125 * 1024 * 1024));
  const server = await startPreview({ port: 5193, outDir: OUT });
  writeFileSync(join(OUT, FILE), big); // served next to the build
  const browser = await launchChromium();
  try {
    const rounds: Round[] = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(browser, server));
    const f = (x: number) => (Number.isFinite(x) ? `${x.toFixed(0)} ms` : 'n/a');
    const med = (k: 'cold' | 'warm', m: keyof Drop) => median(rounds.map((r) => r[k][m]));
    console.log(`## NVDLA loadables in the browser: drop a ${(big.length / 1048576).toFixed(1)} MB loadable to its task list painted (median of ${ROUNDS})\n`);
    console.log('| drop | worker: read Blob | worker: read + decode | UI: open request to answer | UI: overview request to received | drop to task list painted | longest UI-thread task |');
    console.log('|---|---:|---:|---:|---:|---:|---:|');
    for (const [label, k] of [
      ['first drop after page load (cold worker)', 'cold'],
      ['second drop, same worker (warm)', 'warm'],
    ] as const) {
      const longest = Math.max(...rounds.map((r) => r[k].longestTaskMs));
      console.log(`| ${label} | ${f(med(k, 'readMs'))} | ${f(med(k, 'parseMs'))} | ${f(med(k, 'openMs'))} | ${f(med(k, 'overviewMs'))} | ${f(med(k, 'paintedMs'))} | ${longest > 0 ? `${longest.toFixed(0)} ms (max of ${ROUNDS})` : 'none over 50 ms'} |`);
    }
    console.log(`\n| Blobs view, largest weight blob | median of ${ROUNDS} |\n|---|---:|`);
    console.log(`| click to its first 4 KiB hex window painted | ${f(median(rounds.map((r) => r.hexMs)))} |`);
    console.log(`| click to its histogram shown (every fp16 value decoded in the worker) | ${f(median(rounds.map((r) => r.histogramMs)))} |`);
    console.log(`\nChromium headless, ${cpus().length} cores, load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).`);
  } finally {
    await browser.close();
    server.stop();
  }
}

await main();
