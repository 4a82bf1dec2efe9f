/**
 * The model service as the UI drives it, with real inputs: capabilities and typed counts of each
 * format, the `.part` editor's questions answered from the text in the worker, and errors that
 * keep their kind across the boundary (a bug is `internal`, never a corrupt file).
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { buildFromRecipe } from '../core/chef';
import { write } from '../core/circle/write';
import { createModelService } from './service';
import type { ModelWorkerApi, WorkerFailure } from './api';

const blob = (bytes: Uint8Array | string) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const circleBytes = (recipe: string) => write(buildFromRecipe(readFileSync(`test/fixtures/one/recipes/${recipe}/test.recipe`, 'utf8'), 'r'));
const failureOf = async (p: Promise<unknown>): Promise<WorkerFailure> => {
  try {
    await p;
  } catch (e) {
    return e as WorkerFailure;
  }
  throw new Error('the call did not fail');
};

let service: ModelWorkerApi;
let circle: string;
let trace: string;

beforeAll(async () => {
  service = createModelService();
  const c = await service.open([{ name: 'Part_Add_Sub_000.circle', blob: blob(circleBytes('Part_Add_Sub_000')) }]);
  if (!c.ok) throw new Error(c.error.message);
  circle = c.docId;
  const t = await service.open([{ name: 'omr1.trace.txt', blob: blob(readFileSync('test/fixtures/systrace/upstream/inputs/omr1.trace.txt')) }]);
  if (!t.ok) throw new Error(t.error.message);
  trace = t.docId;
});

describe('capabilities and counts', () => {
  it('a circle model: graph, partition, origins, optimize; counts of its main graph', async () => {
    const r = await service.open([{ name: 'm.circle', blob: blob(circleBytes('Part_Add_Sub_000')) }]);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.summary.capabilities).toEqual(['graph', 'partition', 'origins', 'optimize', 'inspect']);
    expect(r.summary.counts).toEqual({ kind: 'graph', graphs: 1, nodes: 3, edges: r.summary.graphs[0]!.stats.edges });
    await service.close(r.docId);
  });

  it('a systrace capture: profile only; marks and runs counted', async () => {
    const r = await service.open([{ name: 'omr1.trace.txt', blob: blob(readFileSync('test/fixtures/systrace/upstream/inputs/omr1.trace.txt')) }]);
    if (!r.ok) throw new Error(r.error.message);
    expect(r.summary.capabilities).toEqual(['profile']);
    const analysis = await service.profile(r.docId);
    expect(r.summary.counts).toEqual({ kind: 'profile', marks: analysis.markCount, runs: analysis.runs.length, threads: analysis.threads.length });
    await service.close(r.docId);
  });

  it('a call for a capability the document lacks fails as unsupported, naming the file', async () => {
    const f = await failureOf(service.profile(circle));
    expect(f.workerError).toMatchObject({ kind: 'unsupported', file: 'Part_Add_Sub_000.circle' });
    const g = await failureOf(service.graphForView(trace, 'sg:0'));
    expect(g.workerError).toMatchObject({ kind: 'unsupported', file: 'omr1.trace.txt' });
    expect((await failureOf(service.partitionText(trace, '[partition]\n'))).workerError.kind).toBe('unsupported');
  });

  it('an unknown file is unsupported with its first bytes; an empty one is empty', async () => {
    const r = await service.open([{ name: 'x.bin', blob: blob('hello world') }]);
    expect(r.ok ? null : r.error).toMatchObject({ kind: 'unsupported', file: 'x.bin', offset: 0 });
    const e = await service.open([{ name: 'e.circle', blob: blob('') }]);
    expect(e.ok ? null : e.error.kind).toBe('empty');
  });
});

describe('errors keep their kind', () => {
  it('a bug inside a service (a node that does not exist) is internal, not a corrupt file', async () => {
    const f = await failureOf(service.nodeDetails(circle, 'sg:0', 999));
    expect(f.workerError.kind).toBe('internal');
    expect(f.workerError.file).toBe('Part_Add_Sub_000.circle');
    expect(f.workerError.message).toMatch(/^internal error in NPU Studio, not a problem with the file/);
    expect(f.workerError.message).toContain('node 999 does not exist');
  });

  it('a truncated circle file is reported as the file\'s fault, with its kind', async () => {
    const bytes = circleBytes('Part_Add_Sub_000');
    const r = await service.open([{ name: 't.circle', blob: blob(bytes.subarray(0, 40)) }]);
    expect(r.ok).toBe(false);
    expect(r.ok ? null : ['truncated', 'corrupt'].includes(r.error.kind)).toBe(true);
  });
});

describe('the .part editor asks the worker', () => {
  const text = '[partition]\nbackends=cpu,npu\ndefault=cpu\ncomply=opcode\n[OPCODE]\nSUB=npu\n';

  it('partitionText: diagnostics, the plan and the line deciding each operator', async () => {
    const r = await service.partitionText(circle, text);
    expect(r.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    expect(r.plan?.fileNames).toEqual(['Part_Add_Sub_000.00001_cpu.circle', 'Part_Add_Sub_000.00002_npu.circle']);
    expect([...r.operatorLines]).toEqual([3, 3, 6]);
    const bad = await service.partitionText(circle, text.replace('SUB=npu', 'SUB=gpu'));
    expect(bad.plan).toBeNull();
    expect(bad.diagnostics.map((d) => `${d.line}:${d.code}`)).toContain('6:unknown-backend');
    expect([...bad.operatorLines]).toEqual([3, 3, 6]);
  });

  it('completion, the key under the cursor, hover and the assign edit', async () => {
    const c = await service.partitionCompletions(circle, `${text}AD`, 7, 3);
    expect(c.items.find((i) => i.label === 'ADD')).toMatchObject({ insertText: 'ADD=', detail: '2 in this model' });
    expect(await service.partitionKeyAt(circle, text, 6)).toEqual({ section: 'OPCODE', key: 'SUB' });
    expect(await service.partitionHover(circle, text, 6, 1)).toBe("'SUB': 1 operator → npu");
    const edit = await service.partitionAssignEdit(circle, text, 'OPCODE', 'ADD', 'npu');
    expect(edit).toEqual({ line: 6, column: 8, endLine: 6, endColumn: 8, text: '\nADD=npu' });
  });
});

describe('optimize through the document', () => {
  it('passes come from the document; the result opens as a document with the same capabilities', async () => {
    const r = await service.open([{ name: 'in.circle', blob: blob(circleBytes('Net_InstanceNorm_003')) }]);
    if (!r.ok) throw new Error(r.error.message);
    expect(await service.optimizePasses(r.docId)).toContain('fuse_instance_norm');
    const o = await service.optimize(r.docId, ['fuse_instance_norm']);
    if (!o.ok) throw new Error(o.error.message);
    expect(o.name).toBe('in.opt.circle');
    expect(o.graphId).toBe('sg:0');
    expect(o.summary.capabilities).toEqual(r.summary.capabilities);
    expect(o.summary.counts.kind === 'graph' && o.summary.counts.nodes).toBeLessThan(r.summary.counts.kind === 'graph' ? r.summary.counts.nodes : 0);
  });
});

describe('an NVDLA loadable through the worker API', () => {
  const golden = (name: string) => readFileSync(`test/fixtures/nvdla/golden/${name}.nvdla`);

  it('capabilities, the overview, a slot, a blob window, the memory map, a comparison', async () => {
    const a = await service.open([{ name: 'a.nvdla', blob: blob(golden('lenet-b1-nv_full-int8-fast-math')) }]);
    const b = await service.open([{ name: 'b.nvdla', blob: blob(golden('lenet-b1-nv_full-fp16-fast-math')) }]);
    if (!a.ok || !b.ok) throw new Error('a golden did not open');
    expect(a.summary.capabilities).toEqual(['graph', 'inspect', 'loadable', 'runLoadable']);
    const o = await service.loadableOverview(a.docId);
    expect(o.tasks.map((t) => `${t.interfaceName} ${t.ops.length}`)).toEqual(['DLA1 10', 'EMU1 1']);
    // plain data: it survives a structured clone unchanged
    expect(structuredClone(o)).toEqual(o);
    const slot = await service.loadableSlot(a.docId, 0);
    expect(slot?.descriptors.map((d) => d.struct)).toEqual(['dla_common_op_desc', 'dla_conv_op_desc', 'dla_conv_surface_desc']);
    expect(structuredClone(slot)).toEqual(slot);
    const tb5 = o.blobs.find((x) => x.name === 'tb-5')!;
    const window = await service.loadableBlobBytes(a.docId, tb5.index, 16, 32);
    expect(window.length).toBe(32);
    const areas = await service.loadableMemoryMap(a.docId);
    expect(areas[1]!.regions.some((r) => r.blobs.includes('tb-5'))).toBe(true);
    const diff = await service.loadableCompare(a.docId, b.docId);
    expect(diff.equivalent).toBe(false);
    expect(diff.sections.find((s) => s.section === 'tensor_desc_list')?.equal).toBe(false);
    // a circle model has no loadable tables: a typed failure naming the file
    const f = await failureOf(service.loadableOverview(circle));
    expect(f.workerError).toMatchObject({ kind: 'unsupported', file: 'Part_Add_Sub_000.circle' });
    await service.close(a.docId);
    await service.close(b.docId);
  });
});
