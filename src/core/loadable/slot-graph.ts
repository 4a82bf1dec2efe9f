/**
 * The op-slot dependency graph of a decoded loadable: every DLA op slot and EMU op is a node
 * (by engine), and the edges are what the firmware and the runtime order them by:
 *
 * - a consumer of `dla_common_op_desc` (slot -> consumer slot), kind = its event
 *   (OP_COMPLETED, OP_PROGRAMMED, OP_ENABLED, CDMA_WT_DONE, CDMA_DT_DONE);
 * - a fused parent (parent -> child) when no consumer edge already joins them (otherwise that
 *   edge is marked `fused`);
 * - between tasks, an event (a task's SIGNAL post-action matched by another task's WAIT
 *   pre-action on the same target and value): from the signalling task's sink ops to the
 *   waiting task's source ops.
 */
import type { DecodedLoadable } from './tasks';
import { allOps } from './tasks';

export type SlotEdgeKind = 'OP_COMPLETED' | 'OP_PROGRAMMED' | 'OP_ENABLED' | 'CDMA_WT_DONE' | 'CDMA_DT_DONE' | 'fused' | 'event' | string;

export interface SlotNode {
  /** `t0:s3` */
  id: string;
  task: number;
  slot: number;
  /** CONV, SDP, PDP, CDP, RUBIK, BDMA, EMU (or `op_type N`) */
  engine: string;
  /** `CONV 3`, `EMU SOFTMAX 0` */
  label: string;
}

export interface SlotEdge {
  from: number;
  to: number;
  kind: SlotEdgeKind;
  /** the consumer edge also joins a fused pair */
  fused?: boolean;
  label: string;
}

export interface SlotGraph {
  nodes: SlotNode[];
  edges: SlotEdge[];
}

/** Cross-task edges are all sink x source pairs up to this many; beyond, a thinner fan. */
const MAX_TASK_EDGES = 1024;

export function slotGraph(d: DecodedLoadable): SlotGraph {
  const nodes: SlotNode[] = [];
  const index = new Map<string, number>();
  for (const op of allOps(d)) {
    const id = `t${op.task}:s${op.slot}`;
    index.set(id, nodes.length);
    const label = op.engine === 'EMU' && 'opName' in op ? `EMU ${op.opName} ${op.slot}` : `${op.engine} ${op.slot}`;
    nodes.push({ id, task: op.task, slot: op.slot, engine: op.engine, label });
  }
  const edges: SlotEdge[] = [];
  const edgeAt = new Map<string, SlotEdge>();
  const hasIncoming = new Set<number>();
  const hasOutgoing = new Set<number>();
  for (const t of d.tasks) {
    if (t.kind !== 'DLA') continue;
    for (const s of t.slots) {
      const from = index.get(`t${t.index}:s${s.slot}`)!;
      for (const c of s.consumers) {
        const to = index.get(`t${t.index}:s${c.slot}`);
        if (to === undefined) continue; // past the op list: reported as damage by the decoder
        const e: SlotEdge = { from, to, kind: c.eventName, label: c.eventName };
        edgeAt.set(`${from}>${to}`, e);
        edges.push(e);
        hasIncoming.add(to);
        hasOutgoing.add(from);
      }
    }
    for (const s of t.slots) {
      if (!s.fusedParent) continue;
      const child = index.get(`t${t.index}:s${s.slot}`)!;
      const parent = index.get(`t${t.index}:s${s.fusedParent.slot}`);
      if (parent === undefined) continue;
      const existing = edgeAt.get(`${parent}>${child}`);
      if (existing) {
        existing.fused = true;
        existing.label = `${existing.label}, fused`;
      } else {
        edges.push({ from: parent, to: child, kind: 'fused', label: 'fused' });
        hasIncoming.add(child);
        hasOutgoing.add(parent);
      }
    }
  }
  // tasks ordered by events: SIGNAL (post) -> WAIT (pre) on the same target and value
  const l = d.loadable;
  const opsOfTask = (ti: number) => nodes.map((n, i) => (n.task === ti ? i : -1)).filter((i) => i >= 0);
  for (const [a, ta] of l.task_list.entries()) {
    for (const sig of ta.post_actions) {
      const es = l.event_list[sig];
      if (!es || es.op !== 1) continue;
      for (const [b, tb] of l.task_list.entries()) {
        if (b === a) continue;
        for (const w of tb.pre_actions) {
          const ew = l.event_list[w];
          if (!ew || ew.op !== 0 || ew.target !== es.target || ew.val !== es.val) continue;
          const sinks = opsOfTask(a).filter((i) => !hasOutgoing.has(i));
          const sources = opsOfTask(b).filter((i) => !hasIncoming.has(i));
          const label = `event ${sig} -> ${w} (target ${es.target}, value ${es.val})`;
          if (sinks.length * sources.length <= MAX_TASK_EDGES) {
            for (const from of sinks) for (const to of sources) edges.push({ from, to, kind: 'event', label });
          } else {
            for (const from of sinks) edges.push({ from, to: sources[0]!, kind: 'event', label });
            for (const to of sources.slice(1)) edges.push({ from: sinks[sinks.length - 1]!, to, kind: 'event', label });
          }
        }
      }
    }
  }
  return { nodes, edges };
}
