#!/usr/bin/env node
/**
 * `npm run bench`: runs every bench/*.ts with tsx, one after the other (never in parallel, so
 * the figures do not disturb each other), and prints their output. Each bench prints Markdown.
 *   npm run bench              all benches
 *   npm run bench -- layout    only the files whose name contains "layout"
 * Exit code: 1 when any bench fails.
 */
import { readdirSync, existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(root, 'bench');
const filters = process.argv.slice(2);
const tsxCli = join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs');
if (!existsSync(tsxCli)) {
  console.error('tsx is not installed: run `npm ci` first.');
  process.exit(1);
}
const files = readdirSync(benchDir)
  .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))
  .filter((f) => filters.length === 0 || filters.some((x) => f.includes(x)))
  .sort();
if (files.length === 0) {
  console.error(`No bench files in bench/${filters.length ? ` matching ${filters.join(', ')}` : ''}.`);
  process.exit(2);
}
let failed = 0;
for (const f of files) {
  console.log(`\n<!-- bench/${f} -->`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [tsxCli, join(benchDir, f)], { cwd: root, stdio: 'inherit' });
  const s = ((Date.now() - t0) / 1000).toFixed(1);
  if (r.status !== 0) {
    failed++;
    console.error(`bench/${f} failed (exit ${r.status ?? r.signal}) after ${s} s`);
  } else {
    console.error(`bench/${f}: ${s} s`);
  }
}
process.exit(failed ? 1 : 0);
