#!/usr/bin/env node
// Playwright drives Debian's Chromium (/usr/bin/chromium); it cannot download its own browser
// here. This makes sure the browser is there: installs it with apt-get when running as root,
// otherwise says exactly what to run.
import { existsSync } from 'node:fs';
import { execSync } from 'node:child_process';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function ensureChromium() {
  if (existsSync(CHROMIUM)) return true;
  const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  if (isRoot && existsSync('/usr/bin/apt-get')) {
    console.log(`[check-chromium] ${CHROMIUM} not found: installing Debian's chromium (apt-get install chromium) ...`);
    try {
      execSync('apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium', { stdio: 'inherit' });
    } catch {
      /* reported below */
    }
    if (existsSync(CHROMIUM)) return true;
  }
  console.error(
    `[check-chromium] Chromium is required for the browser tests and was not found at ${CHROMIUM}.\n` +
      `  Install it with:  sudo apt-get install chromium   (Debian/Ubuntu)\n` +
      `  or point CHROMIUM_PATH at a Chromium binary.`,
  );
  return false;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureChromium() ? 0 : 1);
