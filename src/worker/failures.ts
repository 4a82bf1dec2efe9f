/**
 * Errors leave a worker as plain data. Comlink passes a thrown `Error` on with its message only,
 * so the `ErrorInfo` of a `FormatError` would be lost and a bug in a pass would read like any
 * other message. `guarded` wraps every method of a worker API: whatever it throws is rejected as
 * a `WorkerFailure` (the `FormatError`'s info, or `kind: 'internal'` naming it a bug in the
 * studio); `ui/workers.ts` turns that back into a `StudioError`.
 */
import { toErrorInfo } from '../core/errors';
import type { WorkerFailure } from './api';

export function failure(e: unknown, file: string): WorkerFailure {
  return { workerError: toErrorInfo(e, file) };
}

/** `api` with every method's rejections turned into `WorkerFailure`s naming `fileOf(args)`. */
export function guarded<T extends object>(api: T, fileOf: (args: unknown[]) => string): T {
  const out = {} as Record<string, unknown>;
  for (const [name, member] of Object.entries(api)) {
    if (typeof member !== 'function') {
      out[name] = member;
      continue;
    }
    const method = member as (...args: unknown[]) => Promise<unknown>;
    out[name] = async (...args: unknown[]) => {
      try {
        return await method(...args);
      } catch (e) {
        throw failure(e, fileOf(args));
      }
    };
  }
  return out as T;
}
