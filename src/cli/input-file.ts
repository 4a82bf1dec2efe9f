/**
 * Reading the files the command line is given. Node names the file in most of its errors (`path`
 * on ENOENT, EACCES), which `main` reports as `PATH: reason`; but reading a folder fails with an
 * EISDIR that names none, and came out as an internal error with a stack. These helpers put the
 * path on every such error, so a folder given for a file is refused by name.
 */
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';

export function readInput(path: string): Buffer;
export function readInput(path: string, encoding: 'utf8'): string;
export function readInput(path: string, encoding?: 'utf8'): Buffer | string {
  try {
    return encoding ? readFileSync(path, encoding) : readFileSync(path);
  } catch (e) {
    throw withPath(e, path);
  }
}

/** `openSync(path, 'r')` for a file read in pieces: a folder is refused at once, by name. */
export function openInput(path: string): number {
  const fd = openSync(path, 'r');
  if (fstatSync(fd).isDirectory()) {
    closeSync(fd);
    throw withPath(Object.assign(new Error(`EISDIR: illegal operation on a directory, read '${path}'`), { code: 'EISDIR' }), path);
  }
  return fd;
}

function withPath(e: unknown, path: string): unknown {
  const err = e as NodeJS.ErrnoException;
  if (err && typeof err === 'object' && err.code && !err.path) err.path = path;
  return err;
}
