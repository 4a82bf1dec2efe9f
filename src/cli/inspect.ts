/**
 * `npu-studio inspect FILE [--json] [--origins] [--dump]`: a summary of any file the studio opens.
 * The file goes through the same registry as the browser's model worker (core/document.ts
 * `openDocument`), so inspect reads every format registered there and names the file and place
 * when none does.
 *
 * A format with an `inspect` service prints in its own words (circle: core/circle/inspect.ts,
 * keys unchanged since the first issue; NVDLA loadables: core/loadable/inspect.ts, and `--dump`
 * prints every decoded field). Any other format prints the document's generic summary (--json:
 * GenericInspectJson below): its label, properties, graphs with their sizes, metadata and the
 * diagnostics found on opening.
 */
import { readInput } from './input-file';
import { basename } from 'node:path';
import { openDocument, type OpenedDocument } from '../core/document';
import type { InspectOptions, OpenOptions } from '../core/format';
import { describeError, type Diagnostic } from '../core/errors';
import type { Command } from './command';
import { type CliIO, EXIT_OK, UsageError, parseOptions } from './io';

/** --json of a document that is not a circle model */
export interface GenericInspectJson {
  format: string;
  file: string;
  /** e.g. `systrace (html)` */
  label: string;
  description: string;
  properties: { name: string; value: string }[];
  graphs: { id: string; name: string; nodes: number; edges: number }[];
  metadata: { name: string; size: number }[];
  diagnostics: Diagnostic[];
}

export function inspectDocument(doc: OpenedDocument): GenericInspectJson {
  const s = doc.summary;
  return {
    format: s.format,
    file: s.file,
    label: s.formatLabel,
    description: s.description,
    properties: s.properties.map((p) => ({ name: p.name, value: p.value })),
    graphs: s.graphs.map((g) => ({ id: g.id, name: g.name, nodes: g.stats.nodes, edges: g.stats.edges })),
    metadata: s.metadata.map((m) => ({ name: m.name, size: m.size })),
    diagnostics: doc.diagnostics,
  };
}

/** diagnostics listed in the text summary; --json lists them all */
const SHOWN_DIAGNOSTICS = 20;

function describeDiagnostic(d: Diagnostic): string {
  return `${d.severity}: ${describeError({ ...d, kind: 'semantic' })}`;
}

function genericText(doc: OpenedDocument): string {
  const s = doc.summary;
  const lines: string[] = [`${s.file}: ${s.formatLabel}`];
  if (s.description) lines.push(`description: ${s.description}`);
  for (const p of s.properties) lines.push(`  ${p.name}: ${p.value}`);
  s.graphs.forEach((g, i) => lines.push(`graph ${i} "${g.name}": ${g.stats.nodes} nodes, ${g.stats.edges} edges`));
  if (s.metadata.length) {
    lines.push('', 'metadata:');
    for (const m of s.metadata) lines.push(`  ${m.name} (${m.size} bytes): ${m.preview}`);
  }
  const d = doc.diagnostics;
  const count = (severity: Diagnostic['severity']) => d.filter((x) => x.severity === severity).length;
  lines.push('', d.length ? `diagnostics: ${count('error')} error(s), ${count('warning')} warning(s), ${count('info')} note(s)` : 'diagnostics: none');
  for (const x of d.slice(0, SHOWN_DIAGNOSTICS)) lines.push(`  ${describeDiagnostic(x)}`);
  if (d.length > SHOWN_DIAGNOSTICS) lines.push(`  ... ${d.length - SHOWN_DIAGNOSTICS} more (--json lists them all)`);
  return lines.join('\n') + '\n';
}

export const inspectCommand: Command = {
  name: 'inspect',
  usage:
    'npu-studio inspect FILE [--json] [--origins] [--dump] [--caffemodel W] [--phase TEST|TRAIN] [--batch N]\n' +
    '  FILE: any file the studio opens (circle / TFLite models, NVDLA loadables, systrace captures, Caffe nets, ...)\n' +
    '  --origins: the origin table (circle); --dump: every decoded field, one a line (NVDLA loadables)\n' +
    '  --caffemodel: weights opened with a Caffe net (merged by layer name); --phase, --batch: options of the document (Caffe)',
  async run(argv, io) {
    const { values, positionals } = parseOptions(argv, {
      json: { type: 'boolean' },
      origins: { type: 'boolean' },
      dump: { type: 'boolean' },
      caffemodel: { type: 'string' },
      phase: { type: 'string' },
      batch: { type: 'string' },
    });
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'takes exactly one file' : 'needs a file');
    const path = positionals[0]!;
    const files = [{ name: basename(path), bytes: new Uint8Array(readInput(path)) }];
    // a sidecar of the main file (Caffe weights beside a prototxt): opened as one file set
    if (values.caffemodel !== undefined) files.push({ name: basename(values.caffemodel), bytes: new Uint8Array(readInput(values.caffemodel)) });
    // document options: a format with options (summary.options) checks the values it is given
    // when it opens; one without any cannot take them
    const openOptions: OpenOptions = {};
    if (values.phase !== undefined) openOptions.phase = values.phase;
    if (values.batch !== undefined) openOptions.batch = values.batch;
    const doc = await openDocument(files, openOptions);
    for (const name of Object.keys(openOptions)) {
      if (!doc.summary.options) throw new UsageError(`--${name} does not apply to ${doc.summary.file} (${doc.summary.formatLabel})`);
    }
    const inspect = doc.services.inspect;
    const options: InspectOptions = { origins: values.origins === true };
    for (const o of ['origins'] as const) {
      if (options[o] && !inspect?.options.includes(o)) throw new UsageError(`--${o} does not apply to ${doc.summary.file} (${doc.summary.formatLabel})`);
    }
    if (values.dump === true) {
      if (!inspect?.dump) throw new UsageError(`--dump does not apply to ${doc.summary.file} (${doc.summary.formatLabel})`);
      io.out(inspect.dump());
      return EXIT_OK;
    }
    // diagnostics found on opening go to stderr when the format prints its own output, so its --json stays as specified
    if (inspect) {
      for (const d of doc.diagnostics) io.err(`npu-studio inspect: ${describeDiagnostic(d)}\n`);
      io.out(values.json === true ? JSON.stringify(inspect.json(options)) + '\n' : inspect.text(options));
      return EXIT_OK;
    }
    io.out(values.json === true ? JSON.stringify(inspectDocument(doc)) + '\n' : genericText(doc));
    return EXIT_OK;
  },
};
