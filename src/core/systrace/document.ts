/** A systrace capture as an `OpenedDocument` (registered in core/document.ts): a profile, no graph. */
import type { DocumentFormat, OpenedDocument, SourceFile } from '../document';
import { FormatError } from '../errors';
import { analyse, detect, read } from './index';

const decoder = new TextDecoder('utf-8', { fatal: false });

export const systraceFormat: DocumentFormat = {
  name: 'systrace',
  detect(files: SourceFile[]): boolean {
    const main = files[0];
    // detect reads the first megabyte, and an HTML file to its end for the trace header
    return !!main && detect(main.bytes, main.name) !== null;
  },
  open(files: SourceFile[]): OpenedDocument {
    const main = files[0]!;
    const analysis = analyse(read(decoder.decode(main.bytes), main.name), { timeline: true });
    const notAGraph = (): never => {
      throw new FormatError({ kind: 'unsupported', file: main.name, message: 'a systrace capture has no graph' });
    };
    const runs = analysis.runs.length;
    return {
      format: 'systrace',
      kind: 'profile',
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
      },
      diagnostics: analysis.diagnostics,
      graph: notAGraph,
      nodeDetails: notAGraph,
      tensorDetails: notAGraph,
      profile: () => analysis,
    };
  },
};
