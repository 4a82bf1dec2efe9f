/**
 * Why the DLA model cannot go on: a `FormatError` (so the CLI prints it as bad input and the
 * worker passes it on as plain data) whose message names the task, the op slot and the
 * descriptor field, e.g. `task 0 (DLA) op slot 3 (CONV): op.weight_format = 1: compressed
 * weights are not modelled`.
 */
import { FormatError, type ErrorKind } from '../errors';

/** Where in the loadable a problem is: task, op slot (or EMU op) and engine. */
export interface DlaPlace {
  task: number;
  /** `DLA` or `EMU` */
  kind: string;
  slot?: number;
  engine?: string;
}

export function placeText(p: DlaPlace): string {
  const t = `task ${p.task} (${p.kind})`;
  if (p.slot === undefined) return t;
  return `${t} ${p.kind === 'EMU' ? 'op' : 'op slot'} ${p.slot}${p.engine ? ` (${p.engine})` : ''}`;
}

export function placePath(p: DlaPlace, field?: string): string {
  const base = p.slot === undefined ? `task[${p.task}]` : `task[${p.task}].${p.kind === 'EMU' ? 'op' : 'slot'}[${p.slot}]`;
  return field ? `${base}.${field}` : base;
}

/**
 * The model stops: `kind` is `unsupported` for a feature NPU Studio does not model, `corrupt`
 * for a descriptor that cannot be right (out of range, overlapping memory), `limit` for sizes
 * past what a run allocates.
 */
export class DlaExecError extends FormatError {
  readonly place: DlaPlace | null;
  readonly field: string | null;
  constructor(file: string, kind: ErrorKind, place: DlaPlace | null, field: string | null, message: string) {
    super({
      kind,
      file,
      message: place ? `${placeText(place)}: ${field ? `${field}: ` : ''}${message}` : message,
      ...(place ? { path: placePath(place, field ?? undefined) } : {}),
    });
    this.name = 'DlaExecError';
    this.place = place;
    this.field = field;
  }
}

/** Something the run noticed that does not stop it (a layout that computes other than meant, an input left zero). */
export interface DlaWarning {
  place: DlaPlace | null;
  field: string | null;
  message: string;
  /** the whole sentence, place first */
  text: string;
}

export function dlaWarning(place: DlaPlace | null, field: string | null, message: string): DlaWarning {
  return { place, field, message, text: place ? `${placeText(place)}: ${field ? `${field}: ` : ''}${message}` : message };
}
