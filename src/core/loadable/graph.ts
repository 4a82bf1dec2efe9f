/**
 * The op-slot graph of a loadable as the `Graph` every view draws (find, keyboard, export work
 * unchanged): one node per DLA op slot and EMU op, typed by engine, grouped by task; one edge
 * per dependency (consumer event, fused parent, task event). Node ports are the surfaces a slot
 * reads and writes, labelled with the memory they resolve to, so find can search them.
 */
import type { Graph, GraphAttribute, GraphNode, GraphPort, NodeCategory } from '../graph/model';
import { slotGraph } from './slot-graph';
import { allOps, type DecodedLoadable, type EmuOp, type OpSlot, type SurfaceUse } from './tasks';
import { leaves, scalarText, type DecodedStruct } from './structs';

export const SLOT_GRAPH_ID = 'slots';

/**
 * Engines as node categories. `NodeCategory` is the shared (Netron) set that picks node
 * colours, so each engine takes the nearest one: CONV a layer, SDP the activation/scale unit,
 * PDP pooling, CDP (LRN) normalisation, RUBIK a reshape, BDMA a data move, EMU (CPU) custom.
 */
export const ENGINE_CATEGORY: Record<string, NodeCategory> = {
  CONV: 'Layer',
  SDP: 'Activation',
  PDP: 'Pool',
  CDP: 'Normalization',
  RUBIK: 'Shape',
  BDMA: 'Data',
  EMU: 'Custom',
};

function port(u: SurfaceUse): GraphPort {
  const where = u.location ? `memory ${u.location.memId} +${u.location.memOffset}` : (u.note ?? 'unresolved');
  return { name: u.name, tensor: -1, label: where, type: `${u.size} B` };
}

/** The op descriptor's fields as attributes (reserved fields left out). */
function attributes(op: OpSlot | EmuOp): GraphAttribute[] {
  const out: GraphAttribute[] = [];
  if (op.engine !== 'EMU') {
    const s = op as OpSlot;
    out.push({ name: 'dependency_count', value: String(s.dependencyCount), type: 'int' });
    out.push({ name: 'consumers', value: s.consumers.map((c) => `${c.engine} ${c.slot} ${c.eventName}`).join(', ') || '(none)' });
    if (s.fusedParent) out.push({ name: 'fused_parent', value: `${s.fusedParent.slot} ${s.fusedParent.eventName}` });
    if (s.lut !== null) out.push({ name: 'lut', value: String(s.lut), type: 'int' });
  }
  const desc: DecodedStruct | null = op.op;
  if (desc) {
    for (const { path, field } of leaves(desc.fields)) {
      if (/(^|\.)reserved/.test(path)) continue;
      // enum fields by name, so find can ask for `x1_op.act=RELU`; numbers plain (`conv_stride_x>1`)
      const value = field.missing ? '(missing)' : (field.enumName ?? scalarText(field));
      out.push({ name: path, value, type: field.enumName !== undefined ? 'enum' : field.type === 'f32' ? 'float' : 'int' });
    }
  }
  return out;
}

export function toGraph(d: DecodedLoadable): Graph {
  const sg = slotGraph(d);
  const ops = allOps(d);
  const nodes: GraphNode[] = sg.nodes.map((n, i) => {
    const op = ops[i]!;
    const type = op.engine === 'EMU' ? `EMU ${(op as EmuOp).opName}` : op.engine;
    return {
      id: n.id,
      kind: 'op',
      type,
      name: `task ${n.task} ${op.engine === 'EMU' ? 'op' : 'slot'} ${n.slot}`,
      category: ENGINE_CATEGORY[op.engine] ?? 'Other',
      index: i,
      inputs: op.surfaces.filter((u) => u.role === 'read').map(port),
      outputs: op.surfaces.filter((u) => u.role === 'write').map(port),
      attributes: attributes(op),
      group: `task ${n.task}`,
    };
  });
  const edges = sg.edges.map((e) => ({ from: e.from, to: e.to, tensor: -1, name: e.kind, label: e.label }));
  return { id: SLOT_GRAPH_ID, name: 'op slots', nodes, edges, stats: { nodes: nodes.length, edges: edges.length } };
}
