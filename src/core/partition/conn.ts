/**
 * Connection files (partitioner.md sections 5.2 and 5.3), byte for byte as circle-partitioner
 * (crew `JsonExport`, `write_ini`) writes them:
 *
 * - `.conn.json`: 2-space indentation, `"key" : value`, string arrays on one line as `[ "a", "b" ]`
 *   (`[  ]` when empty), one trailing newline. Strings are escaped as JSON requires (upstream does
 *   not escape; for names without `"`, `\` or control characters the bytes are the same).
 * - `.conn.ini`: `[source]`, `[models]`, then one section per part; keys `file`, `i1..`, `o1..`
 *   (`m1..` in `[models]`) in that fixed order; an empty line after every section; `;` in keys
 *   written as `\;`, values verbatim.
 */
import type { PartitionPlan } from './algorithm';
import { escapeKey } from './ini';

function jsonString(s: string): string {
  return JSON.stringify(s);
}

function jsonArray(items: string[]): string {
  return `[ ${items.map(jsonString).join(', ')} ]`;
}

export function connJson(plan: PartitionPlan): string {
  const lines: string[] = [];
  lines.push('{');
  lines.push('  "source" : {');
  lines.push(`    "file" : ${jsonString(plan.sourceFile)},`);
  lines.push(`    "inputs" : ${jsonArray(plan.sourceInputs)},`);
  lines.push(`    "outputs" : ${jsonArray(plan.sourceOutputs)}`);
  lines.push('  },');
  lines.push('  "parts" : [');
  plan.parts.forEach((p, i) => {
    lines.push('    {');
    lines.push(`      "file" : ${jsonString(p.fileName)},`);
    lines.push(`      "inputs" : ${jsonArray(p.inputs)},`);
    lines.push(`      "outputs" : ${jsonArray(p.outputs)}`);
    lines.push(i + 1 < plan.parts.length ? '    },' : '    }');
  });
  lines.push('  ]');
  lines.push('}');
  return lines.join('\n') + '\n';
}

function iniSection(name: string, items: [string, string][]): string {
  let s = `[${name}]\n`;
  for (const [k, v] of items) s += `${escapeKey(k)}=${v}\n`;
  return s + '\n';
}

function ioItems(file: string, inputs: string[], outputs: string[]): [string, string][] {
  const items: [string, string][] = [['file', file]];
  inputs.forEach((n, i) => items.push([`i${i + 1}`, n]));
  outputs.forEach((n, i) => items.push([`o${i + 1}`, n]));
  return items;
}

export function connIni(plan: PartitionPlan): string {
  let s = iniSection('source', ioItems(plan.sourceFile, plan.sourceInputs, plan.sourceOutputs));
  s += iniSection(
    'models',
    plan.parts.map((p, i) => [`m${i + 1}`, p.fileName]),
  );
  for (const p of plan.parts) s += iniSection(p.fileName, ioItems(p.fileName, p.inputs, p.outputs));
  return s;
}

/** A conn file read back (circle-part-driver's view): source and parts with their I/O names. */
export interface ConnInfo {
  source: { file: string; inputs: string[]; outputs: string[] };
  parts: { file: string; inputs: string[]; outputs: string[] }[];
}

/** Reads a `.conn.json` as written above (or by circle-partitioner). Throws on malformed text. */
export function readConnJson(text: string): ConnInfo {
  const v: unknown = JSON.parse(text);
  const strs = (x: unknown): string[] => (Array.isArray(x) && x.every((s) => typeof s === 'string') ? (x as string[]) : []);
  const io = (x: unknown) => {
    const o = (x ?? {}) as Record<string, unknown>;
    return { file: typeof o.file === 'string' ? o.file : '', inputs: strs(o.inputs), outputs: strs(o.outputs) };
  };
  const root = (v ?? {}) as Record<string, unknown>;
  return { source: io(root.source), parts: Array.isArray(root.parts) ? root.parts.map(io) : [] };
}
