#!/usr/bin/env node
// Playwright drives Debian's Chromium (/usr/bin/chromium); it cannot download its own browser
// here. This makes sure the browser is there: installs it with apt-get when running as root,
// otherwise says exactly what to run.
import { ensureDebianTool } from './check-tools.mjs';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

export function ensureChromium() {
  const ok = ensureDebianTool({ path: CHROMIUM, pkg: 'chromium', why: 'Chromium is required for the browser tests', tag: 'check-chromium' });
  if (!ok) console.error('  or point CHROMIUM_PATH at a Chromium binary.');
  return ok;
}

if (import.meta.url === `file://${process.argv[1]}`) process.exit(ensureChromium() ? 0 : 1);
