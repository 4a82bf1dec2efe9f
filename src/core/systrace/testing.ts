/** Test helpers: fixture paths and synthetic ftrace text (used by the *.test.ts files only). */
export const HEADER_LINES = [
  '# tracer: nop',
  '#',
  '#           TASK-PID    TGID   CPU#  ||||    TIMESTAMP  FUNCTION',
  '#              | |        |      |   ||||       |         |',
];

export interface SyntheticMark {
  tid: number;
  tgid: number;
  /** seconds as written in the trace, e.g. "1.000000" */
  time: string;
  mark: string;
  task?: string;
}

/** One ftrace line in the new format (with the TGID column). */
export function ftraceLine(m: SyntheticMark): string {
  const task = m.task ?? `thread${m.tid}`;
  return `  ${task}-${m.tid}  (${String(m.tgid).padStart(5)}) [000] ...1 ${m.time}: tracing_mark_write: ${m.mark}`;
}

export function ftraceText(marks: SyntheticMark[]): string {
  return `${[...HEADER_LINES, ...marks.map(ftraceLine)].join('\n')}\n`;
}

/** Integer microseconds to the `S.UUUUUU` form of ftrace. */
export function usToSeconds(us: number): string {
  const s = Math.floor(us / 1e6);
  return `${s}.${String(us - s * 1e6).padStart(6, '0')}`;
}
