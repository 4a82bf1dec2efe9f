/** A systrace capture as an open document (loaded by `./format.ts`): a profile, no graph. */
import type { FormatDocument, SourceFile } from '../format';
import { analyse, read } from './index';

const decoder = new TextDecoder('utf-8', { fatal: false });

export function open(files: SourceFile[]): FormatDocument {
  const main = files[0]!;
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
