/**
 * The firmware's scheduler for one DLA task (nvdla/sw `kmd/firmware/scheduler.c`), as a model:
 *
 * - each engine (processor) has two register groups; `op_head[type]` is submitted first, then
 *   `dla_dequeue_operation` submits the next op of the same type (`consumers[type]` of the
 *   processor's tail op) into the other group;
 * - submitting programs the group (when the processor `is_ready`: the SDP shares one LUT
 *   between its groups) and raises OP_PROGRAMMED; an op whose dependency count is 0 and that is
 *   programmed is enabled and raises OP_ENABLED; completion raises OP_COMPLETED, frees the
 *   group, programs a pending one and dequeues the next op;
 * - every event decrements the dependency count of the consumers (and the fused parent) that
 *   wait for that event; reaching 0 enables them.
 *
 * What the hardware does between enable and completion is the engine's work. The model runs
 * an op when it completes, choosing among enabled ops: per engine the groups run in the order
 * they were programmed (the hardware's consumer pointer), across engines the op enabled first
 * goes first; an op fed on the fly waits for its producer's data, and a producer writing on the
 * fly waits until its consumer is enabled (the hardware would stall otherwise).
 *
 * When no op can go on and some have not completed, that is a deadlock: the error lists each
 * waiting op and what it waits for.
 */
import { DLA_ENGINES } from '../loadable/names';

export const EVENT = { COMPLETED: 1, PROGRAMMED: 2, ENABLED: 3, CDMA_WT_DONE: 4, CDMA_DT_DONE: 5 } as const;
const EVENT_NAMES: Record<number, string> = { 1: 'OP_COMPLETED', 2: 'OP_PROGRAMMED', 3: 'OP_ENABLED', 4: 'CDMA_WT_DONE', 5: 'CDMA_DT_DONE' };

export interface SchedOp {
  slot: number;
  opType: number;
  dependencyCount: number;
  /** consumers by engine type (index -1: none) */
  consumers: { index: number; event: number }[];
  fusedParent: { index: number; event: number };
  /** SDP LUT in use (-1: none), for the shared-LUT rule */
  lutIndex: number;
  /** the op reads its input on the fly (from `fusedParent`) */
  srcOnTheFly: boolean;
  /** the op writes its output on the fly */
  dstOnTheFly: boolean;
}

export interface SchedStep {
  kind: 'program' | 'enable' | 'complete';
  slot: number;
  group: number;
}

interface Group {
  slot: number;
  pending: boolean;
  programming: boolean;
  active: boolean;
  /** programming order, for the consumer pointer */
  seq: number;
}

interface Processor {
  type: number;
  groups: (Group | null)[];
  tail: number;
  /** LUT each group last loaded (SDP) */
  lut: number[];
}

export class DeadlockError extends Error {
  constructor(
    message: string,
    readonly waiting: { slot: number; engine: string; reason: string }[],
  ) {
    super(message);
  }
}

export class ScheduleError extends Error {
  constructor(
    message: string,
    readonly slot: number,
    readonly field: string,
  ) {
    super(message);
  }
}

/**
 * Runs the scheduler over `ops`, calling `execute(slot)` for each op when it completes (in the
 * order the model picks). Returns the steps (program / enable / complete) in order.
 */
export async function schedule(ops: SchedOp[], opHead: number[], execute: (slot: number) => void | Promise<void>): Promise<SchedStep[]> {
  const steps: SchedStep[] = [];
  const dep = ops.map((o) => o.dependencyCount);
  const done = new Array<boolean>(ops.length).fill(false);
  const enabledAt = new Array<number>(ops.length).fill(-1);
  const procs: Processor[] = DLA_ENGINES.map((_, type) => ({ type, groups: [null, null], tail: -1, lut: [-1, -1] }));
  let seq = 0;
  let enableClock = 0;
  let completed = 0;
  const streamConsumer = new Map<number, number>();
  ops.forEach((o) => {
    if (o.srcOnTheFly && o.fusedParent.index >= 0) streamConsumer.set(o.fusedParent.index, o.slot);
  });

  const opAt = (slot: number, field: string, from: number): SchedOp => {
    const o = ops[slot];
    if (!o) throw new ScheduleError(`slot ${from} names slot ${slot} in ${field}, past the ${ops.length} op slots`, from, field);
    return o;
  };

  const groupOf = (slot: number): { p: Processor; g: Group; id: number } | null => {
    const p = procs[ops[slot]!.opType]!;
    for (let id = 0; id < 2; id++) {
      const g = p.groups[id];
      if (g && g.slot === slot) return { p, g, id };
    }
    return null;
  };

  const isReady = (p: Processor, id: number): boolean => {
    if (p.type !== 2) return true;
    const lut = ops[p.groups[id]!.slot]!.lutIndex;
    if (lut === -1) return true;
    const other = 1 - id;
    if (p.lut[other] === lut) return true;
    if (p.lut[other] !== -1) return false;
    return !p.groups[other]?.active;
  };

  const updateConsumers = (slot: number, event: number): void => {
    const o = ops[slot]!;
    const targets: { index: number; event: number; field: string }[] = o.consumers.map((c, i) => ({ ...c, field: `common.consumers.${DLA_ENGINES[i]}` }));
    targets.push({ ...o.fusedParent, field: 'common.fused_parent' });
    for (const t of targets) {
      if (t.index === -1 || t.event !== event) continue;
      const c = opAt(t.index, `${t.field}.index`, slot);
      if (dep[c.slot]! <= 0) {
        throw new ScheduleError(`slot ${slot} signals ${EVENT_NAMES[event] ?? event} to slot ${c.slot}, whose dependency count is already 0 (the graph counts fewer dependencies than it signals)`, slot, `${t.field}.index`);
      }
      dep[c.slot]!--;
      if (dep[c.slot] === 0) enable(c.slot);
    }
  };

  const program = (p: Processor, id: number): void => {
    const g = p.groups[id]!;
    g.programming = true;
    if (p.type === 2) p.lut[id] = ops[g.slot]!.lutIndex;
    g.pending = false;
    g.seq = seq++;
    steps.push({ kind: 'program', slot: g.slot, group: id });
    updateConsumers(g.slot, EVENT.PROGRAMMED);
    g.programming = false;
  };

  const enable = (slot: number): void => {
    const f = groupOf(slot);
    if (!f || f.g.pending || f.g.programming || f.g.active) return;
    f.g.active = true;
    enabledAt[slot] = enableClock++;
    steps.push({ kind: 'enable', slot, group: f.id });
    updateConsumers(slot, EVENT.ENABLED);
  };

  const submit = (p: Processor, slot: number): void => {
    const free = p.groups[0] === null ? 0 : p.groups[1] === null ? 1 : -1;
    if (free < 0) return; // PROCESSOR_BUSY: submitted again when a group frees
    p.groups[free] = { slot, pending: true, programming: false, active: false, seq: Infinity };
    p.tail = slot;
    if (!isReady(p, free)) return;
    program(p, free);
    if (dep[slot] === 0) enable(slot);
  };

  const dequeue = (p: Processor): void => {
    if (p.tail < 0) return;
    const next = ops[p.tail]!.consumers[p.type]!.index;
    if (next === -1) return;
    const o = opAt(next, `common.consumers.${DLA_ENGINES[p.type]}.index`, p.tail);
    if (o.opType !== p.type) throw new ScheduleError(`slot ${p.tail}'s next ${DLA_ENGINES[p.type]} op is slot ${next}, a ${DLA_ENGINES[o.opType] ?? o.opType}`, p.tail, `common.consumers.${DLA_ENGINES[p.type]}.index`);
    submit(p, next);
  };

  for (let type = 0; type < DLA_ENGINES.length; type++) {
    const head = opHead[type] ?? -1;
    if (head === -1) continue;
    const o = opAt(head, `network_desc.op_head.${DLA_ENGINES[type]}`, head);
    if (o.opType !== type) throw new ScheduleError(`op_head[${DLA_ENGINES[type]}] is slot ${head}, a ${DLA_ENGINES[o.opType] ?? o.opType} op`, head, `network_desc.op_head.${DLA_ENGINES[type]}`);
    submit(procs[type]!, head);
    dequeue(procs[type]!);
  }

  while (completed < ops.length) {
    // candidates: per processor the earliest-programmed group, if enabled
    let best: { p: Processor; id: number; g: Group } | null = null;
    for (const p of procs) {
      let first = -1;
      for (let id = 0; id < 2; id++) {
        const g = p.groups[id];
        if (g && !g.pending && (first < 0 || g.seq < p.groups[first]!.seq)) first = id;
      }
      if (first < 0) continue;
      const g = p.groups[first]!;
      if (!g.active) continue;
      const o = ops[g.slot]!;
      if (o.srcOnTheFly && !done[o.fusedParent.index]) continue;
      if (o.dstOnTheFly) {
        const consumer = streamConsumer.get(g.slot);
        if (consumer === undefined || enabledAt[consumer]! < 0) continue;
      }
      if (!best || enabledAt[g.slot]! < enabledAt[best.g.slot]!) best = { p, id: first, g };
    }
    if (!best) throw deadlock(ops, dep, done, procs, streamConsumer, enabledAt);
    const { p, id, g } = best;
    await execute(g.slot);
    steps.push({ kind: 'complete', slot: g.slot, group: id });
    done[g.slot] = true;
    completed++;
    p.groups[id] = null;
    p.lut[id] = -1;
    updateConsumers(g.slot, EVENT.COMPLETED);
    if (completed === ops.length) break;
    const other = 1 - id;
    const next = p.groups[other];
    if (next?.pending && isReady(p, other)) {
      program(p, other);
      if (dep[next.slot] === 0) enable(next.slot);
    }
    dequeue(p);
  }
  return steps;
}

function deadlock(ops: SchedOp[], dep: number[], done: boolean[], procs: Processor[], streamConsumer: Map<number, number>, enabledAt: number[]): DeadlockError {
  const waiting: { slot: number; engine: string; reason: string }[] = [];
  for (const o of ops) {
    if (done[o.slot]) continue;
    const p = procs[o.opType]!;
    const g = p.groups.find((x) => x?.slot === o.slot);
    let reason: string;
    if (!g) reason = 'never submitted: no engine op chain (op_head, consumers of its type) reaches it while a group is free';
    else if (g.pending) reason = 'submitted but not programmed (the SDP LUT is held by the other group)';
    else if (!g.active) reason = `programmed, waiting for ${dep[o.slot]} more dependency event(s)`;
    else if (o.srcOnTheFly && !done[o.fusedParent.index]) reason = `enabled, waiting for on-the-fly data from slot ${o.fusedParent.index}`;
    else if (o.dstOnTheFly && (streamConsumer.get(o.slot) === undefined || enabledAt[streamConsumer.get(o.slot)!]! < 0)) reason = `enabled, its on-the-fly output has no enabled consumer${streamConsumer.get(o.slot) === undefined ? ' (no op names it as fused parent)' : ` (slot ${streamConsumer.get(o.slot)})`}`;
    else reason = 'enabled, behind an earlier group of its engine';
    waiting.push({ slot: o.slot, engine: DLA_ENGINES[o.opType] ?? `op_type ${o.opType}`, reason });
  }
  const shown = waiting.slice(0, 8).map((w) => `slot ${w.slot} (${w.engine}): ${w.reason}`);
  return new DeadlockError(`deadlock: ${waiting.length} op slot(s) can never complete: ${shown.join('; ')}${waiting.length > 8 ? `; and ${waiting.length - 8} more` : ''}`, waiting);
}
