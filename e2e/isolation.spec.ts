import { test, expect } from '@playwright/test';

// The kernels' compute workers share one WebAssembly memory, which needs SharedArrayBuffer, which
// needs the page to be cross-origin isolated (COOP/COEP headers from vite.config.ts). Without them
// the forward pass silently drops to one thread: this guards the headers of the served build.
test('the app is cross-origin isolated, so SharedArrayBuffer and shared WebAssembly memory exist', async ({ page }) => {
  const response = await page.goto('/');
  expect(response?.headers()['cross-origin-opener-policy']).toBe('same-origin');
  expect(response?.headers()['cross-origin-embedder-policy']).toBe('require-corp');
  const facts = await page.evaluate(() => {
    let sharedMemory = false;
    try {
      sharedMemory = new WebAssembly.Memory({ initial: 1, maximum: 2, shared: true }).buffer instanceof SharedArrayBuffer;
    } catch {
      sharedMemory = false;
    }
    return { isolated: crossOriginIsolated, sab: typeof SharedArrayBuffer === 'function', sharedMemory };
  });
  expect(facts).toEqual({ isolated: true, sab: true, sharedMemory: true });
});
