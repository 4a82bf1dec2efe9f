/**
 * What the browser benches (bench/browser.ts, origins-ui, partition-ui, profile-timeline,
 * systrace-ui) share: skip when there is no Chromium, build the app and serve it with
 * `vite preview` (or serve the sources with the `vite` dev server), stop that server however the
 * bench ends, and launch Chromium headless with the same switches.
 *
 * Kept in bench/support/ because scripts/bench.mjs runs every bench/*.ts (not sub-folders).
 *
 * Ports: each bench has its own default port; BENCH_PORT overrides it (so that two sessions on one
 * machine do not collide). The benches run one after another, so one BENCH_PORT serves them all.
 * CHROMIUM_PATH overrides /usr/bin/chromium, as for the e2e tests.
 */
import { chromium, type Browser } from 'playwright-core';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createConnection } from 'node:net';

export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Headless, no GPU, and nothing in the background that would disturb the figures. */
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'];

/** Ends the process (exit 0, with a line saying why) when there is no Chromium to drive. */
export function requireChromium(name: string): void {
  if (existsSync(CHROMIUM)) return;
  console.log(`${name} bench skipped: no Chromium at ${CHROMIUM} (apt-get install chromium).`);
  process.exit(0);
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

export interface Server {
  /** http://127.0.0.1:PORT, no trailing slash */
  url: string;
  /** kills the server's process group; also done on exit, SIGINT and SIGTERM */
  stop: () => void;
}

/** The bench's default port, or BENCH_PORT when set. */
export function benchPort(fallback: number): number {
  const v = process.env.BENCH_PORT;
  if (!v) return fallback;
  const port = Number(v);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new Error(`BENCH_PORT=${v} is not a port number`);
  return port;
}

/**
 * `vite build` (into outDir when given: a bench with its own folder never replaces the build
 * another preview is serving), then `vite preview` of that build on the port (BENCH_PORT
 * overrides it); resolves once the server answers.
 */
export async function startPreview({ port, outDir, minify = true }: { port: number; outDir?: string; minify?: boolean }): Promise<Server> {
  const out = outDir ? ['--outDir', outDir] : [];
  // minify false: function names stay readable in a CPU profile
  const built = spawnSync('npx', ['vite', 'build', ...out, ...(outDir ? ['--emptyOutDir'] : []), ...(minify ? [] : ['--minify', 'false']), '--logLevel', 'error'], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(1);
  return serve('vite preview', ['preview', ...out], benchPort(port), '/');
}

/** The `vite` dev server on the port (BENCH_PORT overrides it); resolves once `path` answers. */
export async function startDev({ port, path }: { port: number; path: string }): Promise<Server> {
  return serve('vite', ['--logLevel', 'error'], benchPort(port), path);
}

async function serve(what: string, viteArgs: string[], port: number, path: string): Promise<Server> {
  // --strictPort makes vite give up on a taken port, but the poll below would then be answered by
  // whatever holds it: refuse up front instead
  if (await listening(port)) throw new Error(`port ${port} is in use (another bench or server?): set BENCH_PORT to a free port`);
  const child = spawn('npx', ['vite', ...viteArgs, '--port', String(port), '--strictPort', '--host', '127.0.0.1'], { stdio: 'ignore', detached: true });
  let exited: string | null = null;
  child.once('exit', (code, signal) => (exited = String(code ?? signal)));
  const stop = () => {
    try {
      process.kill(-child.pid!);
    } catch {
      /* already gone */
    }
  };
  process.on('exit', stop);
  onSignals();
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 150; i++) {
    if (exited !== null) throw new Error(`${what} exited (${exited}) before it answered on port ${port}`);
    try {
      if ((await fetch(url + path)).ok) return { url, stop };
    } catch {
      /* not yet */
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  stop();
  throw new Error(`${what} did not start`);
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

let signalsHandled = false;
/** Ctrl-C or kill: exit through process.exit, so that the 'exit' handlers stop the servers. */
function onSignals() {
  if (signalsHandled) return;
  signalsHandled = true;
  process.on('SIGINT', () => process.exit(130));
  process.on('SIGTERM', () => process.exit(143));
}
