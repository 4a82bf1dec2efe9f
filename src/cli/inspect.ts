/**
 * `npu-studio inspect FILE [--json] [--origins]`: a summary of any file the studio opens. The file
 * goes through the same registry as the browser's model worker (core/document.ts `openDocument`),
 * so inspect reads every format registered there and names the file and place when none does.
 *
 * A circle (or TFLite) model, --json prints exactly (extra keys may be added, never renamed):
 * {"format":"circle","file":<basename>,"subgraphs":[{"name","operators","tensors","inputs":[names],
 *  "outputs":[names],"opcodes":{"ADD":2,...}}],"metadata":[{"name","size"}]}
 * opcodes are keyed by BuiltinOperator enum name; custom ops by their custom_code.
 * --origins (with --json) adds "origins":{"synthesised":bool,"sources":{"<id>":"<name>"},"ops":{"<op index>":[ids]}}
 * for subgraph 0 (core/origin originsJson); without --json it prints the op table as text.
 *
 * Any other format prints the document's generic summary (--json: GenericInspectJson below):
 * its label, properties, graphs with their sizes, metadata and the diagnostics found on opening.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { openDocument, type OpenedDocument } from '../core/document';
import { describeError, type Diagnostic } from '../core/errors';
import { summarize, operatorType, tensorTypeString } from '../core/circle';
import type { CircleModel } from '../core/circle/model';
import type { ModelSummary } from '../core/graph/model';
import type { Command } from './command';
import { type CliIO, EXIT_OK, UsageError, parseOptions } from './io';
import { originsJson } from '../core/origin';

export interface InspectSubgraph {
  name: string;
  operators: number;
  tensors: number;
  inputs: string[];
  outputs: string[];
  opcodes: Record<string, number>;
  edges: number;
}

export interface InspectJson {
  format: 'circle';
  file: string;
  identifier: string;
  version: number;
  description: string;
  subgraphs: InspectSubgraph[];
  metadata: { name: string; size: number }[];
  buffers: { count: number; bytes: number; external: number };
}

export function inspectModel(model: CircleModel, file: string, summary: ModelSummary = summarize(model, file)): InspectJson {
  return {
    format: 'circle',
    file,
    identifier: model.identifier,
    version: model.version,
    description: model.description,
    subgraphs: model.subgraphs.map((sg, i) => {
      const opcodes: Record<string, number> = {};
      for (const op of sg.operators) {
        const type = operatorType(model, op.opcodeIndex);
        opcodes[type] = (opcodes[type] ?? 0) + 1;
      }
      return {
        name: sg.name,
        operators: sg.operators.length,
        tensors: sg.tensors.length,
        inputs: sg.inputs.map((t) => sg.tensors[t]?.name ?? ''),
        outputs: sg.outputs.map((t) => sg.tensors[t]?.name ?? ''),
        opcodes,
        edges: summary.graphs[i]!.stats.edges,
      };
    }),
    metadata: summary.metadata.map((m) => ({ name: m.name, size: m.size })),
    buffers: summary.buffers,
  };
}

function circleText(model: CircleModel, file: string, s: ModelSummary): string {
  const lines: string[] = [`${file}: ${s.formatLabel}`];
  if (model.description) lines.push(`description: ${model.description}`);
  model.subgraphs.forEach((sg, i) => {
    const g = s.graphs[i]!;
    lines.push('', `subgraph ${i} "${g.name}": ${sg.operators.length} operators, ${sg.tensors.length} tensors, ${g.stats.edges} edges`);
    const io = (label: string, list: number[]) => {
      for (const t of list) {
        const tensor = sg.tensors[t];
        if (tensor) lines.push(`  ${label} ${tensor.name}: ${tensorTypeString(tensor.type, tensor.shape, tensor.shapeSignature)}`);
      }
    };
    io('input ', sg.inputs);
    io('output', sg.outputs);
    const counts = new Map<string, number>();
    for (const op of sg.operators) {
      const type = operatorType(model, op.opcodeIndex);
      counts.set(type, (counts.get(type) ?? 0) + 1);
    }
    if (counts.size) lines.push(`  operators: ${[...counts].map(([k, n]) => `${k} x${n}`).join(', ')}`);
  });
  if (s.metadata.length) {
    lines.push('', 'metadata:');
    for (const m of s.metadata) lines.push(`  ${m.name} (${m.size} bytes): ${m.preview}`);
  }
  if (s.signatures.length) {
    lines.push('', 'signatures:');
    for (const sig of s.signatures) lines.push(`  ${sig.key || '(default)'} -> subgraph ${sig.subgraph}: ${sig.inputs.map((x) => x.name).join(', ')} -> ${sig.outputs.map((x) => x.name).join(', ')}`);
  }
  lines.push('', `buffers: ${s.buffers.count}, ${s.buffers.bytes} bytes inline, ${s.buffers.external} bytes external`);
  return lines.join('\n') + '\n';
}

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

function printCircle(model: CircleModel, doc: OpenedDocument, withOrigins: boolean, json: boolean, io: CliIO): void {
  const file = doc.summary.file;
  // diagnostics found on opening (none for circle today) go to stderr, so --json stays as specified
  for (const d of doc.diagnostics) io.err(`npu-studio inspect: ${describeDiagnostic(d)}\n`);
  const origins = withOrigins ? originsJson(model, file) : null;
  if (json) {
    const summary = inspectModel(model, file, doc.summary);
    io.out(JSON.stringify(origins ? { ...summary, origins } : summary) + '\n');
    return;
  }
  io.out(circleText(model, file, doc.summary));
  if (origins) {
    const lines = [`\norigins of subgraph 0 (${origins.synthesised ? 'synthesised' : 'from ONE_source_table / ONE_op_table'}):`];
    for (const [op, ids] of Object.entries(origins.ops)) lines.push(`  ${op}: ${ids.map((id) => `${id} ${origins.sources[String(id)] ?? `#${id}`}`).join(', ')}`);
    io.out(lines.join('\n') + '\n');
  }
}

export const inspectCommand: Command = {
  name: 'inspect',
  usage: 'npu-studio inspect FILE [--json] [--origins]\n  FILE: any file the studio opens (circle / TFLite models, systrace captures, ...); --origins: circle only',
  async run(argv, io) {
    const { values, positionals } = parseOptions(argv, { json: { type: 'boolean' }, origins: { type: 'boolean' } });
    if (positionals.length !== 1) throw new UsageError(positionals.length ? 'takes exactly one file' : 'needs a file');
    const path = positionals[0]!;
    const bytes = new Uint8Array(readFileSync(path));
    const doc = openDocument([{ name: basename(path), bytes }]);
    const model = doc.circle?.();
    if (model) {
      printCircle(model, doc, values.origins === true, values.json === true, io);
      return EXIT_OK;
    }
    if (values.origins === true) throw new UsageError(`--origins reads circle models; ${doc.summary.file} is ${doc.summary.formatLabel}`);
    io.out(values.json === true ? JSON.stringify(inspectDocument(doc)) + '\n' : genericText(doc));
    return EXIT_OK;
  },
};
