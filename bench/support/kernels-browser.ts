/**
 * The Chromium side of bench/kernels.ts: serves the sources with the vite dev server (which sends
 * the COOP/COEP headers of vite.config.ts, so the page is cross-origin isolated and the kernels get
 * SharedArrayBuffer), opens e2e/harness/kernels.html and runs the nets' heavy layers in its worker.
 */
import type { KernelBenchRequest, KernelBenchResult } from '../../e2e/harness/kernels-bench.worker';
import { CHROMIUM, launchChromium, startDev } from './harness';
import { existsSync } from 'node:fs';

const HARNESS = '/e2e/harness/kernels.html';

export interface BrowserKernelFigures extends KernelBenchResult {
  userAgent: string;
  isolated: boolean;
}

/** The timings, or null (with a line saying why) when there is no Chromium. */
export async function runBrowserKernels(nets: KernelBenchRequest['nets'], reps: number): Promise<BrowserKernelFigures | null> {
  if (!existsSync(CHROMIUM)) {
    console.log(`\nChromium side skipped: no Chromium at ${CHROMIUM} (apt-get install chromium).`);
    return null;
  }
  const server = await startDev({ port: 5186, path: HARNESS });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(server.url + HARNESS);
    await page.waitForFunction(() => window.__kernelsHarness !== undefined);
    const isolated = await page.evaluate(() => window.__kernelsHarness!.isolated);
    const userAgent = await page.evaluate(() => navigator.userAgent.match(/(HeadlessChrome|Chrome|Chromium)\/[\d.]+/)?.[0] ?? navigator.userAgent);
    const result = await page.evaluate((req) => window.__kernelsHarness!.run(req), { nets, reps });
    return { ...result, userAgent, isolated };
  } finally {
    await browser.close();
    server.stop();
  }
}
