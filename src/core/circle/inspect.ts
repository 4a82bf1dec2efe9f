/**
 * What `npu-studio inspect` prints for a circle (or TFLite) model (the document's `inspect`
 * service). --json prints exactly (extra keys may be added, never renamed):
 * {"format":"circle","file":<basename>,"subgraphs":[{"name","operators","tensors","inputs":[names],
 *  "outputs":[names],"opcodes":{"ADD":2,...}}],"metadata":[{"name","size"}]}
 * opcodes are keyed by BuiltinOperator enum name; custom ops by their custom_code.
 * With `origins`, --json adds "origins":{"synthesised":bool,"sources":{"<id>":"<name>"},"ops":{"<op index>":[ids]}}
 * for subgraph 0 (core/origin originsJson); the text lists the op table.
 */
import type { InspectService } from '../format';
import type { ModelSummary } from '../graph/model';
import type { CircleModel } from './model';
import { summarize } from './graph';
import { operatorType, tensorTypeString } from './names';
import { originsJson } from '../origin/origins';

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

export function circleText(model: CircleModel, file: string, s: ModelSummary): string {
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


/** The `inspect` service of an open circle model. */
export function circleInspect(model: CircleModel, file: string, summary: ModelSummary): InspectService {
  return {
    options: ['origins'],
    json(options) {
      const json = inspectModel(model, file, summary);
      return options.origins ? { ...json, origins: originsJson(model, file) } : json;
    },
    text(options) {
      let text = circleText(model, file, summary);
      if (options.origins) {
        const origins = originsJson(model, file);
        const lines = [`\norigins of subgraph 0 (${origins.synthesised ? 'synthesised' : 'from ONE_source_table / ONE_op_table'}):`];
        for (const [op, ids] of Object.entries(origins.ops)) lines.push(`  ${op}: ${ids.map((id) => `${id} ${origins.sources[String(id)] ?? `#${id}`}`).join(', ')}`);
        text += lines.join('\n') + '\n';
      }
      return text;
    },
  };
}
