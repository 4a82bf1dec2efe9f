/** The NVDLA fixtures of test/fixtures/nvdla (see its README), for tests and benches. */
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NVDLA_FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', 'fixtures', 'nvdla');
export const GOLDEN_DIR = join(NVDLA_FIXTURES, 'golden');
export const FLATBUF_DIR = join(NVDLA_FIXTURES, 'flatbufs');

/** Golden loadable names without `.nvdla`, sorted. */
export const GOLDENS = readdirSync(GOLDEN_DIR).filter((f) => f.endsWith('.nvdla')).map((f) => f.slice(0, -'.nvdla'.length)).sort();
/** KMD regression flatbuf names, sorted. */
export const FLATBUFS = readdirSync(FLATBUF_DIR).filter((f) => f.endsWith('_fbuf')).sort();

export function goldenBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(GOLDEN_DIR, `${name}.nvdla`)));
}
export function flatbufBytes(name: string): Uint8Array {
  return new Uint8Array(readFileSync(join(FLATBUF_DIR, name)));
}
export function goldenSummary(name: string): string {
  return readFileSync(join(GOLDEN_DIR, `${name}.summary.txt`), 'utf8');
}
/** The `.ops.json` of a golden (batch 1 only) or of a flatbuf, or null when there is none. */
export function opsJson(dir: string, name: string): unknown {
  const p = join(dir, `${name}.ops.json`);
  return existsSync(p) ? JSON.parse(readFileSync(p, 'utf8')) : null;
}
