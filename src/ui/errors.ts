/**
 * Errors on the UI side. A worker call that fails rejects with a `WorkerFailure` (plain data);
 * `ui/workers.ts` turns it into a `StudioError`, which keeps the `ErrorInfo` (kind, file, place),
 * so an alert says whether the file is at fault or the studio is (`kind: 'internal'`).
 */
import { describeError } from '../core/errors';
import type { ErrorInfo, WorkerFailure } from '../worker/api';
import type { Alert } from './store';

export class StudioError extends Error {
  readonly info: ErrorInfo;
  constructor(info: ErrorInfo) {
    super(describeError(info));
    this.name = 'StudioError';
    this.info = info;
  }
}

export function isWorkerFailure(e: unknown): e is WorkerFailure {
  return typeof e === 'object' && e !== null && 'workerError' in e && typeof (e as WorkerFailure).workerError === 'object';
}

/** A rejection from a worker as an Error: `StudioError` for a `WorkerFailure`, the value itself otherwise. */
export function fromWorker(e: unknown): unknown {
  return isWorkerFailure(e) ? new StudioError(e.workerError) : e;
}

/** One line for the user: a StudioError names its own file and place; anything else gets `context: `. */
export function errorText(e: unknown, context: string): string {
  if (e instanceof StudioError) return e.message;
  return `${context}: ${e instanceof Error ? e.message : String(e)}`;
}

export function errorAlert(e: unknown, context: string): Omit<Alert, 'id' | 'docId'> {
  return { severity: 'error', message: errorText(e, context), ...(e instanceof StudioError ? { error: e.info } : {}) };
}
