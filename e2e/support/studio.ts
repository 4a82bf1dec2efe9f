import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Page } from '@playwright/test';
import { read } from '../../src/core/circle/read';
import type { CircleModel } from '../../src/core/circle/model';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));
export const SAMPLES = join(ROOT, 'public', 'samples');

/**
 * A circle model built by our chef from a fixture recipe. `npm test` runs scripts/make-samples.mjs
 * (chef over test/fixtures/one/recipes) before the browser tests, so no binary is committed.
 */
export function chefModel(recipe: string): { model: CircleModel; bytes: Uint8Array } {
  const bytes = new Uint8Array(readFileSync(join(SAMPLES, `${recipe}.circle`)));
  return { model: read(bytes, `${recipe}.circle`), bytes };
}

/** Counts (non-constant tensor, consumer) pairs of a subgraph: the status bar's edge count. */
export function edgeCount(model: CircleModel, sg = 0): number {
  const g = model.subgraphs[sg]!;
  const isConst = (t: number) => {
    const b = model.buffers[g.tensors[t]!.buffer];
    return !!b && ((b.data?.length ?? 0) > 0 || b.size > 0);
  };
  let n = 0;
  for (const op of g.operators) {
    const seen = new Set<number>();
    for (const t of op.inputs) if (t >= 0 && !isConst(t) && !seen.has(t)) { seen.add(t); n++; }
  }
  for (const t of new Set(g.outputs)) if (!isConst(t)) n++;
  return n;
}

/** Drops files onto the page the way a person does: a DataTransfer with File objects. */
export async function dropFiles(page: Page, files: { name: string; bytes: Uint8Array }[]) {
  const payload = files.map((f) => ({ name: f.name, data: Buffer.from(f.bytes).toString('base64') }));
  const dataTransfer = await page.evaluateHandle((items) => {
    const dt = new DataTransfer();
    for (const it of items) {
      const bin = atob(it.data);
      const bytes = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
      dt.items.add(new File([bytes], it.name));
    }
    return dt;
  }, payload);
  await page.dispatchEvent('body', 'dragenter', { dataTransfer });
  await page.dispatchEvent('body', 'dragover', { dataTransfer });
  await page.dispatchEvent('body', 'drop', { dataTransfer });
}

export function screenshotPath(name: string) {
  return join('test-results', 'screens', `${name}.png`);
}
