#!/usr/bin/env node
// The whole test suite (`npm test`): type check, core's own type check (tsconfig.core.json: no DOM,
// no Node), the dependency check (dependency-cruiser, rules in .dependency-cruiser.cjs), unit and
// CLI tests (Vitest), then the browser tests (Playwright in Debian's Chromium) against a production
// build. Prints one closing line `tests: N passed, N failed` summing both runners, and exits
// non-zero if anything failed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';
import { ensureChromium } from './check-chromium.mjs';
import { ensureFlatc } from './check-tools.mjs';

const results = { passed: 0, failed: 0, skipped: 0 };
let ok = true;
mkdirSync('test-results', { recursive: true });

function run(title, cmd, args, env = {}) {
  console.log(`\n=== ${title}: ${cmd} ${args.join(' ')}`);
  const r = spawnSync(cmd, args, { stdio: 'inherit', env: { ...process.env, ...env } });
  if (r.status !== 0) {
    console.log(`=== ${title} failed (exit ${r.status ?? r.signal})`);
    ok = false;
  }
  return r.status === 0;
}

const onlyUnit = process.argv.includes('--unit');

ensureFlatc(); // optional: the flatc decode tests skip without it
run('type check', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.json']);
run('core type check (ES2023, no DOM, no Node)', 'npx', ['tsc', '--noEmit', '-p', 'tsconfig.core.json']);
// violations listed in the baseline file are known and tolerated until the change that removes them lands
const known = existsSync('.dependency-cruiser-known-violations.json') ? ['--ignore-known'] : [];
run('dependency check (layers, no cycles)', 'npx', ['depcruise', 'src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err', ...known]);
run('unit and CLI tests', 'npx', ['vitest', 'run', '--reporter=default', '--reporter=json', '--outputFile.json=test-results/vitest.json']);
if (existsSync('test-results/vitest.json')) {
  const j = JSON.parse(readFileSync('test-results/vitest.json', 'utf8'));
  results.passed += j.numPassedTests ?? 0;
  results.failed += j.numFailedTests ?? 0;
  results.skipped += (j.numPendingTests ?? 0) + (j.numTodoTests ?? 0);
}

if (!onlyUnit) {
  if (!ensureChromium()) {
    ok = false;
  } else if (run('samples', 'node', ['scripts/make-samples.mjs']) && run('build', 'npx', ['vite', 'build', '--logLevel', 'warn'])) {
    run('browser tests', 'npx', ['playwright', 'test']);
    if (existsSync('test-results/playwright.json')) {
      const j = JSON.parse(readFileSync('test-results/playwright.json', 'utf8'));
      results.passed += j.stats?.expected ?? 0;
      results.failed += j.stats?.unexpected ?? 0;
      results.skipped += j.stats?.skipped ?? 0;
    }
  }
}

if (!ok && results.failed === 0) results.failed = 1; // a step failed without failing a test (type errors, build)
console.log(`\ntests: ${results.passed} passed, ${results.failed} failed, ${results.skipped} skipped`);
process.exit(ok ? 0 : 1);
