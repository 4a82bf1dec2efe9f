/**
 * `npu-studio diff-loadable A.nvdla B.nvdla [--json]`: are two NVDLA loadables semantically
 * equivalent (notes/nvdla.md section 13)? Prints the report section by section, naming the op
 * slot, descriptor and field of each differing task-blob byte with both values.
 *
 * Exit codes: 0 equivalent, 1 different (or a file that is not a readable loadable), 2 usage.
 * --json prints the `LoadableDiff` of core/loadable/diff.ts:
 * {"a","b","equivalent","sections":[{"section","equal","count","differences":[{"path","a","b","descriptor"?}]}]}
 */
import { closeSync, fstatSync, readSync } from 'node:fs';
import { openInput } from './input-file';
import { basename } from 'node:path';
import { parseArgs } from 'node:util';
import { FormatError } from '../core/errors';
import { detect, read } from '../core/loadable/read';
import { diffLoadables, diffText } from '../core/loadable/diff';
import type { Loadable } from '../core/loadable/model';
import { decodeTasks, type DecodedLoadable } from '../core/loadable/tasks';
import { EXIT_OK, UsageError, type CliIO } from './io';
import type { Command } from './command';

const USAGE = 'npu-studio diff-loadable A.nvdla B.nvdla [--json]';
/** the loadables differ (the same code as bad input: either way they are not equivalent) */
export const EXIT_DIFFERENT = 1;

/** Bytes read into the image at a time (and the unit the image records as read). */
const PIECE = 64 * 1024;
/** Bytes of each file compared at a time when the blob data are compared on the files. */
const COMPARE_PIECE = 256 * 1024;

/**
 * A loadable file as an array of its size whose bytes are read in only where they are looked at
 * (`fill`, in 64 KiB pieces). Why not readFileSync: here every page of fresh memory costs 10-40 us
 * the first time it is touched, so bringing two 50 MB files into memory cost 0.5-0.9 s of the
 * command's time, most of it for weights that only need to be found equal. The array's untouched
 * pages are never faulted in (a large zeroed allocation is mapped lazily).
 */
class FileOnDemand {
  readonly file: string;
  readonly fd: number;
  readonly bytes: Uint8Array;
  private readonly filled: Uint8Array;

  constructor(readonly path: string) {
    this.file = basename(path);
    this.fd = openInput(path);
    try {
      this.bytes = new Uint8Array(fstatSync(this.fd).size);
    } catch (e) {
      closeSync(this.fd);
      throw e;
    }
    this.filled = new Uint8Array(Math.ceil(this.bytes.length / PIECE));
  }

  /** Reads `length` bytes at `position` into `into` (short reads repeated; the path named on errors). */
  readAt(into: Uint8Array, offset: number, length: number, position: number): void {
    let done = 0;
    while (done < length) {
      let n: number;
      try {
        n = readSync(this.fd, into, offset + done, length - done, position + done);
      } catch (e) {
        if (e && typeof e === 'object' && !('path' in e)) Object.assign(e, { path: this.path });
        throw e;
      }
      if (n === 0) throw new FormatError({ kind: 'truncated', file: this.file, offset: position + done, message: 'the file became shorter while it was read' });
      done += n;
    }
  }

  /** Makes bytes [start, end) of `bytes` hold the file's bytes (the `FillBytes` of core/loadable). */
  readonly fill = (start: number, end: number): void => {
    const last = Math.min(Math.ceil(end / PIECE), this.filled.length);
    for (let k = Math.max(0, Math.floor(start / PIECE)); k < last; k++) {
      if (this.filled[k]) continue;
      // consecutive missing pieces in one read
      let m = k + 1;
      while (m < last && !this.filled[m]) m++;
      const at = k * PIECE;
      const to = Math.min(m * PIECE, this.bytes.length);
      this.readAt(this.bytes, at, to - at, at);
      this.filled.fill(1, k, m);
      k = m - 1;
    }
  };

  close(): void {
    closeSync(this.fd);
  }
}

/** Opens, checks and reads a loadable without bringing its blob data into memory. */
function open(f: FileOnDemand): { loadable: Loadable; decoded: DecodedLoadable } {
  if (f.bytes.length > 0 && !detect(f.bytes, f.file, f.fill)) {
    throw new FormatError({ kind: 'unsupported', file: f.file, offset: 0, message: 'not an NVDLA loadable (no NVDA identifier, and the root table does not look like one)' });
  }
  const loadable = read(f.bytes, f.file, f.fill);
  return { loadable, decoded: decodeTasks(loadable, f.fill) };
}

/**
 * Whether a view of A's bytes and one of B's (the same length) hold the same bytes, compared on
 * the files in 256 KiB pieces through two reused buffers (Buffer.equals: memcmp), so weights
 * that are equal are never brought into the images.
 */
function sameBytesOnFiles(fa: FileOnDemand, fb: FileOnDemand): (x: Uint8Array, y: Uint8Array) => boolean {
  const ba = Buffer.allocUnsafeSlow(COMPARE_PIECE);
  const bb = Buffer.allocUnsafeSlow(COMPARE_PIECE);
  return (x, y) => {
    // the images start at byte 0 of their ArrayBuffers: a view's byteOffset is its file position
    for (let done = 0; done < x.length; done += COMPARE_PIECE) {
      const n = Math.min(COMPARE_PIECE, x.length - done);
      fa.readAt(ba, 0, n, x.byteOffset + done);
      fb.readAt(bb, 0, n, y.byteOffset + done);
      if (!ba.subarray(0, n).equals(bb.subarray(0, n))) return false;
    }
    return true;
  };
}

export const diffLoadableCommand: Command = {
  name: 'diff-loadable',
  usage: USAGE,
  async run(argv: string[], io: CliIO): Promise<number> {
    let args: { values: { json?: boolean }; positionals: string[] };
    try {
      args = parseArgs({ args: argv, options: { json: { type: 'boolean' } }, allowPositionals: true, strict: true });
    } catch (e) {
      throw new UsageError((e as Error).message);
    }
    if (args.positionals.length !== 2) {
      throw new UsageError(args.positionals.length < 2 ? 'needs two loadables, A and B' : 'takes exactly two loadables');
    }
    const [pa, pb] = args.positionals as [string, string];
    const files: FileOnDemand[] = [];
    try {
      const fa = new FileOnDemand(pa);
      files.push(fa);
      const a = open(fa);
      const fb = new FileOnDemand(pb);
      files.push(fb);
      const b = open(fb);
      const d = diffLoadables(a.loadable, b.loadable, a.decoded, b.decoded, { fillA: fa.fill, fillB: fb.fill, sameBytes: sameBytesOnFiles(fa, fb) });
      io.out(args.values.json ? JSON.stringify(d) + '\n' : diffText(d));
      return d.equivalent ? EXIT_OK : EXIT_DIFFERENT;
    } finally {
      for (const f of files) f.close();
    }
  },
};
