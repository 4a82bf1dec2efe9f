import { describe, expect, it } from 'vitest';
import { DeadlockError, EVENT, ScheduleError, schedule, type SchedOp } from './scheduler';

const NONE = { index: -1, event: EVENT.COMPLETED };
function op(slot: number, opType: number, deps: number, consumers: Partial<Record<number, { index: number; event: number }>> = {}, extra: Partial<SchedOp> = {}): SchedOp {
  return { slot, opType, dependencyCount: deps, consumers: [0, 1, 2, 3, 4, 5].map((t) => consumers[t] ?? NONE), fusedParent: NONE, lutIndex: -1, srcOnTheFly: false, dstOnTheFly: false, ...extra };
}

describe('the firmware scheduler model', () => {
  it('CONV streaming into SDP, then PDP: programmed, enabled and completed in dependency order', async () => {
    // conv0 -> sdp1 on the fly: conv0's programming releases sdp1, sdp1's enabling releases its fused parent;
    // sdp1 -> pdp2 on completion. The SDP is enabled first but runs after the CONV that feeds it
    const ops = [
      op(0, 1, 1, { 2: { index: 1, event: EVENT.PROGRAMMED } }, { dstOnTheFly: true }),
      op(1, 2, 1, { 3: { index: 2, event: EVENT.COMPLETED } }, { fusedParent: { index: 0, event: EVENT.ENABLED }, srcOnTheFly: true }),
      op(2, 3, 1),
    ];
    const order: number[] = [];
    const steps = await schedule(ops, [-1, 0, 1, 2, -1, -1], (s) => void order.push(s));
    expect(order).toEqual([0, 1, 2]);
    expect(steps.filter((s) => s.kind === 'enable').map((s) => s.slot)).toEqual([1, 0, 2]);
  });

  it('two ops of one engine use the two register groups and complete in programming order', async () => {
    const ops = [op(0, 3, 0, { 3: { index: 1, event: EVENT.COMPLETED } }), op(1, 3, 1)];
    const order: number[] = [];
    const steps = await schedule(ops, [-1, -1, -1, 0, -1, -1], (s) => void order.push(s));
    expect(order).toEqual([0, 1]);
    expect(steps.filter((s) => s.kind === 'program').map((s) => `${s.slot}:${s.group}`)).toEqual(['0:0', '1:1']);
  });

  it('a dependency count never reached is a deadlock listing what each slot waits for', async () => {
    const ops = [op(0, 3, 0), op(1, 2, 2)];
    const e = await schedule(ops, [-1, -1, 1, 0, -1, -1], () => undefined).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(DeadlockError);
    expect((e as DeadlockError).waiting).toEqual([{ slot: 1, engine: 'SDP', reason: 'programmed, waiting for 2 more dependency event(s)' }]);
  });

  it('a slot signalled more often than it counts, and a head of the wrong engine, are schedule errors with the field', async () => {
    const twice = [op(0, 3, 0, { 2: { index: 1, event: EVENT.COMPLETED } }), op(1, 2, 0)];
    const e = (await schedule(twice, [-1, -1, 1, 0, -1, -1], () => undefined).catch((x: unknown) => x)) as ScheduleError;
    expect(e).toBeInstanceOf(ScheduleError);
    expect(e.field).toBe('common.consumers.SDP.index');
    const head = (await schedule([op(0, 3, 0)], [-1, 0, -1, -1, -1, -1], () => undefined).catch((x: unknown) => x)) as ScheduleError;
    expect(head.field).toBe('network_desc.op_head.CONV');
  });
});
