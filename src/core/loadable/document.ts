/**
 * An NVDLA loadable as an `OpenedDocument` (the face of core/document.ts): the op-slot graph
 * is the document's one graph (node details are the slot's decoded descriptors), `inspect`
 * gives the command line's JSON and dump, and the `loadable` service (`service.ts`) gives the
 * views their tables, descriptors, memory map, blob windows and the comparison of two files.
 * Everything is computed by the functions of this folder.
 *
 * Opening reads the lists and decodes the descriptors (small: 36 + 116 + 644 bytes a slot);
 * blob data stays a view into the file, so a 125 MB loadable opens in milliseconds.
 */
import type { Diagnostic } from '../errors';
import type { FormatDocument, NodeDetails, SourceFile } from '../format';
import type { Graph, GraphAttribute, ModelSummary } from '../graph/model';
import type { TensorDetails } from '../circle/values';
import { read } from './read';
import { decodeTasks, allOps, type DecodedLoadable, type EmuOp, type OpSlot } from './tasks';
import { SLOT_GRAPH_ID, toGraph } from './graph';
import { memoryMap, type MemoryArea } from './memory-map';
import { dumpText, inspectJson } from './inspect';
import { formatScalar, leaves, type DecodedStruct } from './structs';
import { loadableService } from './service';
import { loadableRunService } from '../dla/run-service';

export interface LoadableDocument extends FormatDocument {
  /** the decoded loadable (lists, tasks, descriptors, damage) */
  loadable(): DecodedLoadable;
  /** pools and regions with their readers and writers (computed once, on first use) */
  memoryMap(): MemoryArea[];
}

export function summarizeLoadable(d: DecodedLoadable, graph: Graph): FormatDocument['summary'] {
  const l = d.loadable;
  const j = inspectJson(d);
  const v = `${l.version.major}.${l.version.minor}.${l.version.sub_minor}`;
  const prop = (name: string, value: string | number): GraphAttribute => ({ name, value: String(value) });
  return {
    format: 'nvdla',
    file: l.file,
    formatLabel: `NVDLA loadable ${v} (${l.identifier ?? 'no identifier'}${d.firmware ? `, firmware ${d.firmware}` : ''})`,
    description: '',
    properties: [
      prop('tasks', j.tasks.map((t) => `${t.id} ${t.interface} (${t.ops} ops: ${Object.entries(t.operations ?? t.engines).map(([k, n]) => `${k} ${n}`).join(', ')})`).join('; ')),
      prop('memory entries', j.memory),
      prop('addresses', j.addresses),
      prop('events', j.events),
      prop('submits', j.submits),
      prop('tensors', j.tensors.map((t) => `${t.kind} ${t.name} ${t.dims.join('x')} ${t.format} ${t.type}`).join('; ') || '(none)'),
      prop('blobs', j.blobs),
      prop('relocs', j.relocs),
      prop('unreadable places', j.damage),
    ],
    graphs: [{ id: graph.id, name: graph.name, stats: graph.stats }],
    metadata: [],
    signatures: [],
    buffers: { count: l.blobs.length, bytes: l.blobs.reduce((n, b) => n + b.data.length, 0), external: 0 },
    counts: { kind: 'graph', graphs: 1, nodes: graph.stats.nodes, edges: graph.stats.edges },
  };
}

function structRows(rows: NodeDetails['extra'], prefix: string, s: DecodedStruct | null): void {
  if (!s) return;
  rows.push({ name: prefix, value: `${s.struct} (blob ${JSON.stringify(s.blob)} offset ${s.offset})${s.damage ? `: ${s.damage}` : ''}` });
  for (const { path, field } of leaves(s.fields)) rows.push({ name: `${prefix}.${path}`, value: formatScalar(field) });
}

export function openLoadable(files: SourceFile[]): LoadableDocument {
  const main = files[0]!;
  const decoded = decodeTasks(read(main.bytes, main.name));
  const graph = toGraph(decoded);
  const ops = allOps(decoded);
  let areas: MemoryArea[] | null = null;
  const areasOnce = () => (areas ??= memoryMap(decoded));
  const diagnostics: Diagnostic[] = decoded.damage.map((x) => ({
    severity: x.kind === 'unsupported' ? 'warning' : 'error',
    file: main.name,
    offset: x.offset,
    path: x.path || undefined,
    message: x.message,
    source: 'nvdla',
  }));
  const checkGraph = (id: string) => {
    if (id !== SLOT_GRAPH_ID) throw new RangeError(`unknown graph id ${id}`);
  };
  const graphService = {
    graph(id: string): Graph {
      checkGraph(id);
      return graph;
    },
    nodeDetails(id: string, nodeIndex: number): NodeDetails {
      checkGraph(id);
      const node = graph.nodes[nodeIndex];
      const op = ops[nodeIndex];
      if (!node || !op) throw new RangeError(`node ${nodeIndex} does not exist in ${id}`);
      const extra: NodeDetails['extra'] = [];
      const task = decoded.tasks[op.task]!;
      extra.push({ name: 'task', value: `${op.task} (id ${task.id}, ${task.interfaceName})` });
      if (task.kind !== 'other') extra.push({ name: 'layout', value: task.layoutNote });
      if (op.engine === 'EMU') {
        const e = op as EmuOp;
        structRows(extra, 'op', e.op);
        structRows(extra, 'buffers', e.buffers);
      } else {
        const s = op as OpSlot;
        structRows(extra, 'common', s.common);
        structRows(extra, 'op', s.op);
        structRows(extra, 'surface', s.surface);
      }
      for (const u of op.surfaces) {
        const loc = u.location;
        extra.push({
          name: `${u.role} ${u.name}`,
          value: loc
            ? `task address ${u.addressIndex} -> address ${loc.address} -> memory ${loc.memId} offset ${loc.memOffset}${loc.blob ? ` (blob ${JSON.stringify(loc.blob)})` : ''}, ${u.size} bytes`
            : (u.note ?? 'unresolved'),
        });
      }
      return { node, extra };
    },
    tensorDetails(): TensorDetails {
      throw new RangeError('an NVDLA loadable has no tensors to describe: its surfaces are shown in the node details');
    },
  };
  return {
    summary: summarizeLoadable(decoded, graph),
    diagnostics,
    services: {
      graph: graphService,
      inspect: {
        options: [],
        json: () => inspectJson(decoded),
        text: () => dumpSummaryText(decoded),
        dump: () => dumpText(decoded),
      },
      loadable: loadableService(decoded, areasOnce),
      runLoadable: loadableRunService(decoded),
    },
    loadable: () => decoded,
    memoryMap: areasOnce,
  };
}

/** `inspect` as text: the summary's lines (tasks, lists, tensors), the damage found. */
function dumpSummaryText(d: DecodedLoadable): string {
  const j = inspectJson(d);
  const lines = [`${j.file}: NVDLA loadable ${j.version}, interface ${j.interface ?? '(no DLA task)'}, identifier ${j.identifier ?? '(none)'}`];
  for (const t of j.tasks) lines.push(`  task ${t.id} ${t.interface}: ${t.ops} op${t.ops === 1 ? "" : "s"} (${Object.entries(t.operations ?? t.engines).map(([k, n]) => `${k} ${n}`).join(', ')})`);
  lines.push(`  memory entries ${j.memory}, addresses ${j.addresses}, events ${j.events}, submits ${j.submits}, blobs ${j.blobs}, relocs ${j.relocs}`);
  for (const t of j.tensors) lines.push(`  ${t.kind} ${t.name}: ${t.dims.join('x')} ${t.format}`);
  lines.push(j.damage ? `  ${j.damage} unreadable place(s): see --dump` : '  no damage found');
  return lines.join('\n') + '\n';
}

/** The registry's lazy entry point (`./format.ts` loads this module on the first loadable). */
export const open = openLoadable;
