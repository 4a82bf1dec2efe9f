/**
 * Typed errors for bad input. Every reader in core throws `FormatError` (or returns its `info`),
 * never a raw exception: the UI shows `describeError(info)` in a `role="alert"` element and the
 * CLI prints it and exits with code 1.
 *
 * `ErrorInfo` is plain data so it crosses the worker boundary (structured clone) unchanged.
 */
export type ErrorKind =
  | 'empty' // zero-byte or whitespace-only input
  | 'truncated' // input ends before a structure it declares
  | 'corrupt' // offsets / lengths / values that cannot be right
  | 'unsupported' // well-formed but a format or version we do not read
  | 'syntax' // text formats: a token that does not fit the grammar
  | 'semantic' // well-formed text whose meaning is wrong (unknown field, bad enum, ...)
  | 'limit' // a declared size beyond what we accept (hostile input)
  | 'cancelled'
  | 'internal'; // not the input's fault: a bug in NPU Studio (a pass, the partitioner, the layout threw)

export interface ErrorLocation {
  /** byte offset into the file, for binary formats */
  offset?: number;
  /** 1-based line and column, for text formats */
  line?: number;
  column?: number;
  /** a path into the structure, e.g. `subgraphs[0].tensors[12].shape` */
  path?: string;
}

export interface ErrorInfo extends ErrorLocation {
  kind: ErrorKind;
  /** file name as the user gave it (never a full local path) */
  file: string;
  /** one sentence a person understands, without the file name or location prefix */
  message: string;
}

export class FormatError extends Error {
  readonly info: ErrorInfo;
  constructor(info: ErrorInfo) {
    super(describeError(info));
    this.name = 'FormatError';
    this.info = info;
  }
}

/** `model.circle: byte 1234 (subgraphs[0].tensors): vector runs past the end of the file` */
export function describeError(info: ErrorLocation & { file: string; message: string; kind?: ErrorKind }): string {
  const where: string[] = [];
  if (info.line !== undefined) where.push(info.column !== undefined ? `line ${info.line}:${info.column}` : `line ${info.line}`);
  if (info.offset !== undefined) where.push(`byte ${info.offset}`);
  if (info.path) where.push(info.path);
  const loc = where.length ? `${where.join(', ')}: ` : '';
  return `${info.file}: ${loc}${info.message}`;
}

export function isFormatError(e: unknown): e is FormatError {
  return e instanceof FormatError;
}

/**
 * Turns anything thrown into an ErrorInfo naming the file (used at API boundaries). Only a
 * `FormatError` speaks about the input: readers and validators throw nothing else for bad input.
 * Anything else (a TypeError in a pass, a RangeError in the partitioner or the layout) is a bug
 * in the studio, and says so instead of blaming the file.
 */
export function toErrorInfo(e: unknown, file: string): ErrorInfo {
  if (e instanceof FormatError) return e.info;
  return internalErrorInfo(e, file);
}

/** `kind: 'internal'` with a message that says whose fault it is (never a stack trace). */
export function internalErrorInfo(e: unknown, file: string): ErrorInfo {
  const what = e instanceof Error ? `${e.name === 'Error' ? '' : `${e.name}: `}${e.message}` : String(e);
  return { kind: 'internal', file, message: `internal error in NPU Studio, not a problem with the file (please report it): ${what}` };
}


/** A non-fatal finding: the input still opens. */
export interface Diagnostic extends ErrorLocation {
  severity: 'error' | 'warning' | 'info';
  file: string;
  message: string;
  /** optional source of the diagnostic, e.g. `ONE_op_table` */
  source?: string;
}
