/**
 * The format registry: opening a file set as a document, whatever its format. Each format folder
 * keeps its own face (`format.ts`: name, a cheap detect by content, `load` of the rest), and this
 * list is the only place that names them, so the worker and the CLI never learn which format
 * they hold. A format's reader and services load on the first file of that format (a dynamic
 * import: its own chunk in the browser), so opening a circle model never loads the systrace
 * analysis and the other way round.
 *
 * Adding a format: its folder, and one entry here.
 */
import { FormatError } from './errors';
import { documentSummary, type DocumentServices, type FormatEntry, type OpenedDocument, type OpenOptions, type SourceFile } from './format';
import { circleFormat } from './circle/format';
import { systraceFormat } from './systrace/format';
import { nvdlaFormat } from './loadable/format';
import { caffeFormat } from './caffe/format';

export type { OpenedDocument, SourceFile, NodeDetails, Capability, DocumentSummary, DocumentCounts, OpenOptions } from './format';

export const formats: readonly FormatEntry[] = [circleFormat, systraceFormat, nvdlaFormat, caffeFormat];

/** The registry entry that reads this file set, or a FormatError naming what was given. */
export function detectFormat(files: SourceFile[]): FormatEntry {
  if (files.length === 0) throw new FormatError({ kind: 'empty', file: '(none)', message: 'no file was given' });
  const main = files[0]!;
  if (main.bytes.length === 0) throw new FormatError({ kind: 'empty', file: main.name, message: 'the file is empty' });
  for (const f of formats) if (f.detect(files)) return f;
  const known = formats.map((f) => f.name).join(', ');
  throw new FormatError({
    kind: 'unsupported',
    file: main.name,
    offset: 0,
    message: `not a model format NPU Studio reads (known: ${known}); the first bytes are ${hexPreview(main.bytes)}`,
  });
}

/** Opens a file set; `options` are values for the document options its format offers (`summary.options`). */
export async function openDocument(files: SourceFile[], options?: OpenOptions): Promise<OpenedDocument> {
  const entry = detectFormat(files);
  const module = await entry.load();
  const doc = module.open(files, options);
  return { format: entry.name, summary: documentSummary(doc), diagnostics: doc.diagnostics, services: doc.services };
}

/**
 * The service of a capability, or a FormatError saying the document has none (a view asked for a
 * capability the summary did not list: a bug in the caller, or an old document id).
 */
export function serviceOf<C extends keyof DocumentServices>(doc: OpenedDocument, capability: C): DocumentServices[C] {
  const s = doc.services[capability];
  if (!s) throw new FormatError({ kind: 'unsupported', file: doc.summary.file, message: `a ${doc.format} document has no ${capability} (it offers: ${doc.summary.capabilities.join(', ') || 'nothing'})` });
  return s;
}

function hexPreview(bytes: Uint8Array): string {
  return Array.from(bytes.subarray(0, 8), (b) => b.toString(16).padStart(2, '0')).join(' ');
}
