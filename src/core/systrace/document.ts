/** A systrace capture as an open document (loaded by `./format.ts`): a profile, no graph. */
import type { FormatDocument, SourceFile } from '../format';
import { analyse, read } from './index';
import { FormatError } from '../errors';

/**
 * The byte offset that shows `bytes` is not text (a NUL, or the first of many control bytes in
 * the first 64 KiB), or -1. A capture is text (ftrace lines, or HTML around them).
 */
export function binaryOffset(bytes: Uint8Array): number {
  const n = Math.min(bytes.length, 1 << 16);
  let control = 0;
  let firstControl = -1;
  for (let i = 0; i < n; i++) {
    const b = bytes[i]!;
    if (b === 0) return i;
    if (b < 0x20 && b !== 0x09 && b !== 0x0a && b !== 0x0d && b !== 0x0c && b !== 0x1b) {
      control++;
      if (firstControl < 0) firstControl = i;
    }
  }
  return n > 0 && control / n > 0.02 ? firstControl : -1;
}

const decoder = new TextDecoder('utf-8', { fatal: false });

export function open(files: SourceFile[]): FormatDocument {
  const main = files[0]!;
  const at = binaryOffset(main.bytes);
  if (at >= 0) {
    // a name ending .trace.txt is only a hint: binary bytes are not a capture (never an empty profile)
    throw new FormatError({
      kind: 'unsupported',
      file: main.name,
      offset: at,
      message: `a binary file (byte ${at} is 0x${main.bytes[at]!.toString(16).padStart(2, '0')}), not a systrace capture: a capture is text, the HTML or ftrace output of systrace / atrace`,
    });
  }
  const analysis = analyse(read(decoder.decode(main.bytes), main.name), { timeline: true });
  const runs = analysis.runs.length;
  return {
    summary: {
      format: 'systrace',
      file: main.name,
      formatLabel: `systrace (${analysis.format})`,
      description: '',
      properties: [
        { name: 'marks', value: String(analysis.markCount) },
        { name: 'runs', value: String(runs) },
        { name: 'tracked threads', value: String(analysis.threads.length) },
        { name: 'runtime trace', value: analysis.hasRuntimeTrace ? 'present' : 'absent' },
      ],
      graphs: [],
      metadata: [],
      signatures: [],
      buffers: { count: 0, bytes: 0, external: 0 },
      counts: { kind: 'profile', marks: analysis.markCount, runs, threads: analysis.threads.length },
    },
    diagnostics: analysis.diagnostics,
    services: { profile: { analysis: () => analysis } },
  };
}
