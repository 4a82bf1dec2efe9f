/**
 * Errors of the reference interpreter. `info` is plain data (structured-clone safe) so it crosses
 * the worker boundary; the message is one sentence naming the operator and where it is.
 */

export type InterpreterErrorKind =
  /** an operator (or an operator variant: quantized, hybrid, a fused activation, a rank) the interpreter does not compute */
  | 'unsupported'
  /** the model or the inputs cannot be evaluated: shape mismatch, missing value, bad axis, ... */
  | 'invalid'
  /** a WHILE loop or subgraph nesting beyond the configured cap */
  | 'limit';

export interface InterpreterErrorInfo {
  kind: InterpreterErrorKind;
  message: string;
  /** the operator's type name, e.g. `CONV_2D`, or a custom op's code */
  operator?: string;
  /** the operator's index in its subgraph */
  operatorIndex?: number;
  subgraphIndex?: number;
}

export class InterpreterError extends Error {
  readonly info: InterpreterErrorInfo;
  constructor(info: InterpreterErrorInfo) {
    const where =
      info.operator !== undefined
        ? `operator ${info.operatorIndex ?? '?'} (${info.operator}) of subgraph ${info.subgraphIndex ?? 0}: `
        : info.subgraphIndex !== undefined
          ? `subgraph ${info.subgraphIndex}: `
          : '';
    super(`${where}${info.message}`);
    this.name = 'InterpreterError';
    this.info = info;
  }
}

/** Thrown by kernels; the interpreter adds the operator's name and index. */
export class KernelError extends Error {
  constructor(
    readonly kind: InterpreterErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'KernelError';
  }
}

export function unsupported(message: string): never {
  throw new KernelError('unsupported', message);
}

export function invalid(message: string): never {
  throw new KernelError('invalid', message);
}
