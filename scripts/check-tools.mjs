#!/usr/bin/env node
// Debian tools the suite uses: Chromium for the browser tests (required; Playwright cannot
// download its own browser here) and flatc (package flatbuffers-compiler) to check that every
// circle file we write decodes with `flatc --json`, and for `npm run gen`. Each is installed with
// apt-get when missing and running as root; otherwise this says exactly what to run.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

/**
 * Makes sure `path` exists, installing Debian package `pkg` as root when it does not.
 * Returns whether it is there afterwards; prints `why` and the install command when not.
 */
export function ensureDebianTool({ path, pkg, why, tag = 'check-tools' }) {
  if (existsSync(path)) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log(`[${tag}] ${path} not found: installing Debian's ${pkg} (apt-get install ${pkg}) ...`);
    try {
      execSync(`apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ${pkg}`, { stdio: 'inherit' });
    } catch {
      /* reported below */
    }
    if (existsSync(path)) return true;
  }
  console.error(`[${tag}] ${why} and was not found at ${path}.\n  Install it with:  sudo apt-get install ${pkg}   (Debian/Ubuntu)`);
  return false;
}

export const FLATC = ['/usr/bin/flatc', '/usr/local/bin/flatc'].find((p) => existsSync(p)) ?? '/usr/bin/flatc';

/** flatc is optional: without it the flatc decode tests skip, saying so. */
export function ensureFlatc() {
  return ensureDebianTool({ path: FLATC, pkg: 'flatbuffers-compiler', why: 'flatc checks that the circle files we write decode with `flatc --json` (those tests skip without it)', tag: 'check-flatc' });
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureFlatc() ? 0 : 1);
