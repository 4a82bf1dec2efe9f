/**
 * Records what nvdla_compiler (built from nvdla/sw outside this repository) writes for the
 * real-size nets of ./nets.ts, so the default tests can check byte identity without it:
 *
 *   NVDLA_COMPILER=/work/ref/build/nvdla_compiler npx tsx test/support/nvdla/regen-oracle.ts [tag...]
 *
 * With `--small` it runs the hand-written nets of test/fixtures/nvdla/oracle/small instead and
 * keeps their loadables there whole (they are a few tens of kB), with results.json listing every
 * case (and what the reference said when it refused one).
 *
 * For each case it writes the N=1 prototxt and the seeded caffemodel to a temporary folder, runs
 * the reference there (it always writes `./<profile>.nvdla`), and stores the loadable's size and
 * sha256 (or its failure) in test/fixtures/nvdla/oracle/loadables.json. Loadables themselves are
 * not kept (up to 125 MB).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { syntheticCaffemodel } from './fixtures';
import { readdirSync } from 'node:fs';
import { NET_OPTION_SETS, NET_PROTOTXTS, ORACLE_RECORDS, SMALL_DIR, SMALL_OPTION_SETS, SMALL_RECORDS, netCase, semanticDigest, smallCase, type OracleRecord } from './nets';

const bin = process.env.NVDLA_COMPILER;
if (!bin) {
  console.error('set NVDLA_COMPILER to a built nvdla_compiler');
  process.exit(2);
}
const small = process.argv.includes('--small');
const only = process.argv.slice(2).filter((a) => a !== '--small');
if (small) {
  regenSmall();
  process.exit(0);
}
const tags = only.length ? only : Object.keys(NET_PROTOTXTS).flatMap((net) => NET_OPTION_SETS.map((o) => `${net}-b1-${o}`));
const records: Record<string, OracleRecord> = existsSync(ORACLE_RECORDS) ? (JSON.parse(readFileSync(ORACLE_RECORDS, 'utf8')) as Record<string, OracleRecord>) : {};
const work = mkdtempSync(join(tmpdir(), 'nvdla-oracle-'));
const models = new Map<string, { prototxt: string; caffemodel: string }>();
try {
  for (const tag of tags) {
    const c = netCase(tag);
    let m = models.get(c.net);
    if (!m) {
      m = { prototxt: join(work, `${c.net}.prototxt`), caffemodel: join(work, `${c.net}.caffemodel`) };
      writeFileSync(m.prototxt, c.prototxtText);
      writeFileSync(m.caffemodel, syntheticCaffemodel(c.deploy));
      models.set(c.net, m);
    }
    const dir = join(work, tag);
    mkdirSync(dir);
    const t = performance.now();
    const r = spawnSync(bin, ['--prototxt', m.prototxt, '--caffemodel', m.caffemodel, ...c.args], { cwd: dir, encoding: 'utf8', timeout: Number(process.env.NVDLA_TIMEOUT_MS ?? 120_000), maxBuffer: 1 << 28 });
    const ms = Math.round(performance.now() - t);
    const out = join(dir, `${c.options.profile}.nvdla`);
    const status = r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'timeout' : (r.status ?? -1);
    const lines = `${r.stdout ?? ''}\n${r.stderr ?? ''}`.split('\n').filter((l) => /error|fail|not supported|couldn't/i.test(l));
    // the error that stopped it: the last one raised with a message (earlier ones may have been
    // reported and passed over), and the compilation phase that failed
    const raised = lines.filter((l) => /Error 0x[0-9a-fA-F]+: [^(\s]/.test(l) && !/failed compilation phase/.test(l));
    const phase = /failed compilation phase: (\w+)/.exec(lines.join('\n'))?.[1];
    const fatal = raised.length ? `${raised.at(-1)!.replace(/\s*\(propagating from .*$|\s*\(in .*$/, '')}${phase ? ` [phase ${phase}]` : ''}` : lines.at(-1);
    if (status === 0 && existsSync(out)) {
      const bytes = readFileSync(out);
      records[tag] = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), semantic: semanticDigest(new Uint8Array(bytes)), status, error: null, ms };
    } else {
      records[tag] = { bytes: null, sha256: null, semantic: null, status, error: fatal ? fatal.trim() : `exit ${String(status)}`, ms };
    }
    console.log(tag, JSON.stringify(records[tag]));
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
mkdirSync(dirname(ORACLE_RECORDS), { recursive: true });
const sorted = Object.fromEntries(Object.keys(records).sort().map((k) => [k, records[k]!]));
writeFileSync(ORACLE_RECORDS, `${JSON.stringify(sorted, null, 1)}\n`);

/** what one run of the reference said when it wrote no loadable */
function refusal(out: string): string {
  const lines = out.split('\n').filter((l) => /error|fail|not supported|couldn't/i.test(l));
  const raised = lines.filter((l) => /Error 0x[0-9a-fA-F]+: [^(\s]/.test(l) && !/failed compilation phase/.test(l));
  const phase = /failed compilation phase: (\w+)/.exec(lines.join('\n'))?.[1];
  return raised.length ? `${raised.at(-1)!.replace(/\s*\(propagating from .*$|\s*\(in .*$/, '')}${phase ? ` [phase ${phase}]` : ''}` : (lines.at(-1) ?? 'no loadable');
}

function regenSmall(): void {
  const nets = readdirSync(SMALL_DIR).filter((f) => f.endsWith('.prototxt')).map((f) => f.slice(0, -'.prototxt'.length)).sort();
  const results: Record<string, OracleRecord> = {};
  const tmp = mkdtempSync(join(tmpdir(), 'nvdla-small-'));
  try {
    for (const net of nets) {
      const caffemodel = join(tmp, `${net}.caffemodel`);
      for (const set of SMALL_OPTION_SETS) {
        const c = smallCase(`${net}-${set}`);
        if (!existsSync(caffemodel)) writeFileSync(caffemodel, syntheticCaffemodel(c.deploy));
        const dir = join(tmp, c.tag);
        mkdirSync(dir);
        const t = performance.now();
        const r = spawnSync(bin!, ['--prototxt', join(SMALL_DIR, `${net}.prototxt`), '--caffemodel', caffemodel, ...c.args], { cwd: dir, encoding: 'utf8', timeout: 120_000 });
        const ms = Math.round(performance.now() - t);
        const out = join(dir, `${c.options.profile}.nvdla`);
        if (r.status === 0 && existsSync(out)) {
          const bytes = readFileSync(out);
          writeFileSync(join(SMALL_DIR, `${c.tag}.nvdla`), bytes);
          results[c.tag] = { bytes: bytes.length, sha256: createHash('sha256').update(bytes).digest('hex'), semantic: semanticDigest(new Uint8Array(bytes)), status: 0, error: null, ms };
        } else {
          results[c.tag] = { bytes: null, sha256: null, semantic: null, status: r.status ?? -1, error: refusal(`${r.stdout ?? ''}\n${r.stderr ?? ''}`), ms };
        }
        console.log(c.tag, results[c.tag]!.sha256 ? 'ok' : results[c.tag]!.error);
      }
    }
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
  writeFileSync(SMALL_RECORDS, `${JSON.stringify(results, null, 1)}\n`);
}
