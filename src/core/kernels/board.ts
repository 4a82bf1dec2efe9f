/**
 * The job board: how the calling thread hands a job to the compute threads over shared memory,
 * with Atomics only (ECMAScript, no Worker or Node API; the host starts the threads and calls
 * `serveKernelJobs` in each, see src/worker/kernels.ts and src/cli/kernels.ts).
 *
 * Words of the board (Int32, at BOARD_PTR):
 *   SEQ    job sequence number: odd while the caller writes a job, even once it is published;
 *          helpers sleep on it (Atomics.wait) between jobs
 *   CLAIM  (job tag << 20) | next chunk: a thread takes chunk c by compare-and-swap, which fails
 *          once the caller has moved on to another job, so a late helper never runs a chunk of
 *          the next job with the arguments of the previous one
 *   DONE   chunks finished; the thread finishing the last one wakes the caller
 *   TOTAL, KIND, ARGS  the job; FAILED: a chunk threw (the caller rethrows); QUIT: helpers return
 *
 * Chunks are claimed dynamically, so the job finishes even when a helper thread has not started
 * yet or its core is busy with something else: the caller runs whatever nobody else took.
 */
import { KernelThread, runChunk } from './jobs';
import { BOARD_PTR, instantiate } from './wasm-module';

const SEQ = 0;
const CLAIM = 1;
const DONE = 2;
const TOTAL = 3;
const KIND = 4;
const QUIT = 5;
const FAILED = 6;
const HELPERS = 7;
const HELPER_CHUNKS = 8;
const ARGS = 16;
export const ARG_WORDS = 48;
export const BOARD_WORDS = ARGS + ARG_WORDS;
const MAX_CHUNKS = 1 << 20;
/** Atomics.load polls before sleeping: about 0.1 ms, the gap between two jobs of one layer */
const SPIN = 20000;

/** What a compute thread needs; structured-cloneable (the module and the shared memory are shared, not copied). */
export interface ComputeThreadInit {
  module: WebAssembly.Module;
  memory: WebAssembly.Memory;
  /** 1 .. threads - 1 (thread 0 is the caller) */
  thread: number;
}

function takeChunks(board: Int32Array, t: KernelThread, tag: number, kind: number, args: Int32Array, total: number): unknown {
  const helper = t.thread > 0;
  let error: unknown = null;
  for (;;) {
    const v = Atomics.load(board, CLAIM);
    if (v >>> 20 !== tag) return error;
    const c = v & (MAX_CHUNKS - 1);
    if (c >= total) return error;
    if (Atomics.compareExchange(board, CLAIM, v, v + 1) !== v) continue;
    try {
      if (error === null) runChunk(t, kind, args, c);
    } catch (e) {
      error = e;
      Atomics.store(board, FAILED, 1);
    }
    if (helper) Atomics.add(board, HELPER_CHUNKS, 1);
    if (Atomics.add(board, DONE, 1) + 1 === total) Atomics.notify(board, DONE);
  }
}

/**
 * The loop of a compute thread: wait for a job, take chunks until none is left, repeat; returns
 * when the board says quit. Blocks its thread (Atomics.wait), so it runs in a worker only.
 */
export function serveKernelJobs(init: ComputeThreadInit): void {
  const t = new KernelThread(instantiate(init.module, init.memory), init.memory, init.thread);
  const board = new Int32Array(init.memory.buffer, BOARD_PTR, BOARD_WORDS);
  Atomics.add(board, HELPERS, 1);
  let seen = -1;
  for (;;) {
    let s = Atomics.load(board, SEQ);
    let spins = 0;
    while (s === seen || (s & 1) === 1) {
      if (Atomics.load(board, QUIT)) return;
      if (++spins > SPIN) {
        Atomics.wait(board, SEQ, s, 1000);
        spins = 0;
      }
      s = Atomics.load(board, SEQ);
    }
    if (Atomics.load(board, QUIT)) return;
    seen = s;
    const kind = board[KIND]!;
    const total = board[TOTAL]!;
    const args = board.slice(ARGS, ARGS + ARG_WORDS);
    if (Atomics.load(board, SEQ) !== s) continue; // rewritten while we read it: look again
    takeChunks(board, t, (s >>> 1) & 0xfff, kind, args, total);
  }
}

/** The calling thread's side of the board. */
export class JobBoard {
  private readonly board: Int32Array;
  private seq = 0;
  private readonly args = new Int32Array(ARG_WORDS);

  /** `threads` = the caller plus the helpers started with `serveKernelJobs` (1: no helpers, no Atomics). */
  constructor(
    private readonly thread: KernelThread,
    readonly threads: number,
  ) {
    this.board = new Int32Array(thread.memory.buffer, BOARD_PTR, BOARD_WORDS);
  }

  /** Helpers that have started serving (for diagnostics and benches). */
  helpersStarted(): number {
    return this.threads > 1 ? Atomics.load(this.board, HELPERS) : 0;
  }

  /** Chunks run by the helpers so far (how much of the work they took). */
  helperChunks(): number {
    return this.threads > 1 ? Atomics.load(this.board, HELPER_CHUNKS) : 0;
  }

  /** Runs `total` chunks of a job on all threads and returns when every chunk is done; rethrows a chunk's error. */
  run(kind: number, args: ArrayLike<number>, total: number): void {
    if (total <= 0) return;
    if (total >= MAX_CHUNKS) throw new RangeError(`kernel job: ${total} chunks is too many`);
    if (args.length > ARG_WORDS) throw new RangeError(`kernel job: ${args.length} arguments is too many`);
    this.args.fill(0);
    this.args.set(args);
    if (this.threads <= 1 || total === 1) {
      // one chunk: publishing it would only add a wake-up, and a helper that takes it and is then
      // descheduled by a busy machine would make the caller wait
      for (let c = 0; c < total; c++) runChunk(this.thread, kind, this.args, c);
      return;
    }
    const b = this.board;
    const next = (this.seq + 2) & 0x3ffffffe;
    Atomics.store(b, SEQ, this.seq + 1);
    b[KIND] = kind;
    b[TOTAL] = total;
    b.set(this.args, ARGS);
    Atomics.store(b, FAILED, 0);
    Atomics.store(b, DONE, 0);
    const tag = (next >>> 1) & 0xfff;
    Atomics.store(b, CLAIM, tag << 20);
    Atomics.store(b, SEQ, next);
    this.seq = next;
    Atomics.notify(b, SEQ);
    const error = takeChunks(b, this.thread, tag, kind, this.args, total);
    let done = Atomics.load(b, DONE);
    let spins = 0;
    while (done < total) {
      if (++spins > SPIN) {
        Atomics.wait(b, DONE, done, 1000);
        spins = 0;
      }
      done = Atomics.load(b, DONE);
    }
    if (error !== null) throw error;
    if (Atomics.load(b, FAILED)) throw new Error('kernel job: a chunk failed on a compute thread');
  }

  /** Tells the helpers to return from `serveKernelJobs`. */
  quit(): void {
    if (this.threads <= 1) return;
    Atomics.store(this.board, QUIT, 1);
    Atomics.notify(this.board, SEQ);
  }
}
