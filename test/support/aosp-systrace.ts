/**
 * The AOSP oracle for the systrace differential test: runs the unchanged parse_systrace.py that
 * AOSP_PARSE_SYSTRACE points at (a copy kept outside this repository) on many captures, through
 * test/support/aosp-systrace-batch.py (one Python process per batch instead of one per run), and
 * compares its output with ours. Node only; used by tests.
 */
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const OPTION_SETS: readonly (readonly string[])[] = [[], ['--total-times'], ['--per-execution'], ['--json'], ['--per-execution', '--json']];

export interface RunOutput {
  status: number;
  stdout: string;
  stderr: string;
  /** AOSP only: `ExceptionType: message` when the script raised */
  exception?: string | null;
}

export interface Job {
  id: string;
  args: readonly string[];
}

const BATCH = join(import.meta.dirname, 'aosp-systrace-batch.py');

function runBatch(script: string, jobs: readonly Job[], dir: string, part: number): Promise<Map<string, RunOutput>> {
  const jobsFile = join(dir, `jobs-${part}.jsonl`);
  const resultsFile = join(dir, `results-${part}.jsonl`);
  writeFileSync(jobsFile, jobs.map((j) => JSON.stringify(j)).join('\n') + '\n');
  return new Promise((resolve, reject) => {
    const python = process.env.AOSP_PYTHON ?? 'python3';
    const child = spawn(python, [BATCH, script, jobsFile, resultsFile], { stdio: ['ignore', 'inherit', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) return reject(new Error(`${python} ${BATCH} exited with ${code}: ${err}`));
      const out = new Map<string, RunOutput>();
      for (const line of readFileSync(resultsFile, 'utf8').split('\n')) {
        if (!line) continue;
        const r = JSON.parse(line) as { id: string; status: number; stdout: string; stderr: string; exception: string | null };
        out.set(r.id, {
          status: r.status,
          stdout: Buffer.from(r.stdout, 'base64').toString('utf8'),
          stderr: Buffer.from(r.stderr, 'base64').toString('utf8'),
          exception: r.exception,
        });
      }
      resolve(out);
    });
  });
}

/** Runs AOSP's parser on every job, in `parallel` Python processes. */
export async function runAosp(script: string, jobs: readonly Job[], dir: string, parallel = 2): Promise<Map<string, RunOutput>> {
  const parts: Job[][] = Array.from({ length: parallel }, () => []);
  jobs.forEach((j, i) => parts[i % parallel]!.push(j));
  const maps = await Promise.all(parts.filter((p) => p.length).map((p, i) => runBatch(script, p, dir, i)));
  const all = new Map<string, RunOutput>();
  for (const m of maps) for (const [k, v] of m) all.set(k, v);
  return all;
}

/** The last line of a Python traceback: `KeyError: 'PWU'`. */
export function exceptionOf(stderr: string): string | null {
  const i = stderr.indexOf('Traceback (most recent call last):');
  if (i < 0) return null;
  const lines = stderr.slice(i).trimEnd().split('\n');
  return lines[lines.length - 1] ?? null;
}

export type Verdict =
  /** same stdout, stderr and exit status */
  | 'same'
  /** AOSP raised: same stdout and exit status 1, the same stderr before its traceback, and our one clear error instead of the traceback */
  | 'same-until-aosp-error'
  | 'stdout-differs'
  | 'status-differs'
  | 'stderr-differs';

export const OUR_ERROR_PREFIX = 'npu-studio systrace: ';

/** AOSP's standard error before its traceback (all of it when it did not raise). */
export function stderrBeforeTraceback(stderr: string): string {
  const tb = stderr.indexOf('Traceback (most recent call last):');
  return tb < 0 ? stderr : stderr.slice(0, tb);
}

/**
 * Compares our CLI's output with AOSP's for one capture and option set. `aosp.stderr` may hold
 * the traceback or stop before it (stored goldens); `aosp.exception` says whether it raised.
 */
export function compare(aosp: RunOutput, ours: RunOutput): Verdict {
  if (aosp.stdout !== ours.stdout) return 'stdout-differs';
  if (aosp.status !== ours.status) return 'status-differs';
  const raised = !!aosp.exception || aosp.stderr.includes('Traceback (most recent call last):');
  const before = stderrBeforeTraceback(aosp.stderr);
  if (!raised) return before === ours.stderr ? 'same' : 'stderr-differs';
  const ourLines = ours.stderr.split('\n');
  const errorLines = ourLines.filter((l) => l.startsWith(OUR_ERROR_PREFIX));
  const rest = ourLines.filter((l) => !l.startsWith(OUR_ERROR_PREFIX)).join('\n');
  if (errorLines.length !== 1 || rest !== before) return 'stderr-differs';
  return 'same-until-aosp-error';
}
