import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { openDocument, serviceOf } from '../document';
import { FIXTURES } from '../../../test/support/nvdla/fixtures';
import { goldenBytes } from '../../../test/support/nvdla/golden';
import { CANONICAL_GRAPH, COMPILE_OPTION_SPECS, ENGINE_GRAPH, passGraphId, type CompiledNet } from './service';
import * as view from './view';

// the stage views, counted: a compile builds only those the view shows first, the rest when asked for
vi.mock('./view', async (actual) => {
  const real = await actual<typeof import('./view')>();
  return { ...real, canonicalGraphView: vi.fn(real.canonicalGraphView), engineGraphView: vi.fn(real.engineGraphView) };
});

const file = (path: string) => ({ name: path.split('/').pop()!, bytes: new Uint8Array(readFileSync(join(FIXTURES, path))) });
const LENET = [file('nvdla/golden/lenet_n1.prototxt'), file('nvdla/lenet/lenet_iter_10000.caffemodel')];

async function compileLenet(options = {}, calibration: { file: string; text?: string } | null = null, extra: { name: string; bytes: Uint8Array }[] = []): Promise<CompiledNet> {
  const doc = await openDocument([...LENET, ...extra]);
  return serviceOf(doc, 'compile').compile({ options, calibration }, 'net');
}

describe('the compile view data of a Caffe document', () => {
  it('LeNet with the defaults: the loadable nvdla_compiler writes (with its post-extended layout), every stage as a graph, the pass timeline', async () => {
    const c = await compileLenet({ postExtWeights: 'nvdla_compiler' });
    const golden = goldenBytes('lenet-b1-nv_full-int8-fast-math');
    expect(c.bytes!.findIndex((v, i) => v !== golden[i])).toBe(-1);
    expect(c.bytes!.length).toBe(golden.length);
    const s = c.summary;
    expect(s.options.postExtWeights).toBe('nvdla_compiler');
    expect(s.loadableName).toBe('fast-math.nvdla');
    expect(s.resolved).toMatchObject({ profile: 'fast-math', target: 'nv_full', precision: 'INT8', batch: 1 });
    expect(s.graphs.map((g) => g.id)).toEqual([CANONICAL_GRAPH, ENGINE_GRAPH, ...Array.from({ length: 15 }, (_, i) => passGraphId(i))]);
    expect(s.timeline.map((t) => t.name)).toEqual([
      'generateGraph', 'registerBuffers', 'preProcessAuxData', 'mergeActivationOperations', 'updateScalingFactors', 'quantizeAuxData', 'fuseOnTheFlyNodes', 'handleLowPrecisionConversions',
      'translateAuxData', 'reserveBuffers', 'splitNodes', 'fuseSubEngineOps', 'boundGraph', 'handleMultiBatch', 'generateDependencyParams', 'resolveMemory',
    ]);
    // mergeActivationOperations: sdp-scale-0 and act-0 go into bias-2, whose origins become ip1 + relu1
    const merge = s.timeline.find((t) => t.name === 'mergeActivationOperations')!;
    expect(merge.removed).toEqual([{ id: 'n-8', name: 'sdp-scale-0', into: 'bias-2' }, { id: 'n-9', name: 'act-0', into: 'bias-2' }]);
    expect(merge.unioned).toEqual([{ id: 'n-7', name: 'bias-2', layers: ['ip1', 'relu1'] }]);
    expect(s.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  });

  it('the default layout of post-extended weights: the summary says, naming conv1, that they differ from nvdla_compiler\'s, and the form offers both', async () => {
    const c = await compileLenet();
    const s = c.summary;
    expect(s.options.postExtWeights).toBe('csc');
    const w = s.diagnostics.filter((d) => d.message.includes('post-extended'));
    expect(w.map((d) => [d.severity, d.layer])).toEqual([['warning', 'conv1']]);
    expect(w[0]!.message).toContain('this weight blob differs from nvdla_compiler\'s (--post-ext-weights nvdla_compiler writes its layout)');
    expect(COMPILE_OPTION_SPECS.find((o) => o.name === 'postExtWeights')).toMatchObject({ kind: 'choice', choices: ['csc', 'nvdla_compiler'], default: 'csc' });
    const golden = goldenBytes('lenet-b1-nv_full-int8-fast-math');
    expect(c.bytes!.length).toBe(golden.length);
    expect(c.bytes!.findIndex((v, i) => v !== golden[i])).toBeGreaterThan(0);
  });

  it('origins join the three panes: conv1 is n-0 in the canonical graph and dc-conv-0 + bias-0 in the engine graph', async () => {
    const c = await compileLenet();
    const s = c.summary;
    const caffeGraph = (await openDocument(LENET)).services.graph!.graph('net');
    const conv1 = caffeGraph.nodes.findIndex((n) => n.name === 'conv1');
    const ids = s.caffeOrigins[conv1]!;
    expect(ids.map((id) => s.sources.find((x) => x.id === id)!.name)).toEqual(['conv1']);
    const hits = (graphId: string) => {
      const { origins } = c.stage(graphId);
      const g = c.graph.graph(graphId);
      return g.nodes.filter((_, i) => origins[i]!.some((o) => ids.includes(o))).map((n) => (graphId === CANONICAL_GRAPH ? n.id : n.name));
    };
    expect(hits(CANONICAL_GRAPH)).toEqual(['n-0']);
    expect(hits(ENGINE_GRAPH)).toEqual(['dc-conv-0', 'bias-0']);
    // ip1 draws relu1 folded into its box: both layers' ids
    const ip1 = caffeGraph.nodes.findIndex((n) => n.name === 'ip1');
    expect(s.caffeOrigins[ip1]!.map((id) => s.sources.find((x) => x.id === id)!.name)).toEqual(['ip1', 'relu1']);
  });

  it('stage graphs are built when asked for: the summary lists all 17 with their counts and carries the tables of the canonical graph and of the step shown first', async () => {
    const built = () => vi.mocked(view.engineGraphView).mock.calls.map((c) => c[1]);
    vi.mocked(view.engineGraphView).mockClear();
    vi.mocked(view.canonicalGraphView).mockClear();
    const doc = await openDocument(LENET);
    const c = await serviceOf(doc, 'compile').compile({ options: {}, calibration: null, shown: 'mergeActivationOperations' }, 'net');
    const s = c.summary;
    const merge = s.timeline.find((t) => t.name === 'mergeActivationOperations')!;
    expect(merge.graphId).toBe(passGraphId(2));
    expect(Object.keys(s.stages).sort()).toEqual([CANONICAL_GRAPH, passGraphId(2)]);
    expect(built()).toEqual(['engine graph after mergeActivationOperations']);
    expect(vi.mocked(view.canonicalGraphView)).toHaveBeenCalledTimes(1);
    // every stage asked for: its counts are the ones listed, its tables those of its graph, each built once
    const wrong: string[] = [];
    for (const info of s.graphs) {
      const g = c.graph.graph(info.id);
      const t = c.stage(info.id);
      if (JSON.stringify(g.stats) !== JSON.stringify(info.stats)) wrong.push(`${info.id}: listed ${JSON.stringify(info.stats)}, built ${JSON.stringify(g.stats)}`);
      if (t.origins.length !== g.nodes.length || t.edgeKinds.length !== g.edges.length) wrong.push(`${info.id}: tables of ${t.origins.length} nodes, ${t.edgeKinds.length} edges`);
    }
    expect(wrong).toEqual([]);
    expect(s.stages[passGraphId(2)]).toEqual(c.stage(passGraphId(2)));
    expect(built()).toHaveLength(16);
    expect(new Set(built()).size).toBe(16);
    // what a pass changed is still told against its graph: bias-2 (the fused node) is in pass:2's graph with ip1 + relu1
    const g2 = c.graph.graph(passGraphId(2));
    const bias2 = g2.nodes.findIndex((n) => n.name === 'bias-2');
    expect(c.stage(passGraphId(2)).origins[bias2]!.map((id) => s.sources.find((x) => x.id === id)!.name)).toEqual(['ip1', 'relu1']);
    // no step named: the first (generateGraph's engine graph)
    const d = await serviceOf(doc, 'compile').compile({ options: {}, calibration: null }, 'net');
    expect(Object.keys(d.summary.stages).sort()).toEqual([CANONICAL_GRAPH, ENGINE_GRAPH]);
    expect(() => d.stage('pass:99')).toThrow(/has no graph 'pass:99'/);
  });

  it('node details give the surfaces and buffers with format, dims, strides and placement', async () => {
    const c = await compileLenet();
    const last = passGraphId(14);
    const g = c.graph.graph(last);
    const conv = g.nodes.findIndex((n) => n.name === 'dc-conv-0');
    const d = c.graph.nodeDetails(last, conv);
    const rows = Object.fromEntries(d.extra.map((r) => [r.name, r.value]));
    expect(rows['Caffe layers']).toBe('conv1');
    expect(rows['op slot']).toBe('0');
    expect(rows['tsd-1']).toBe('data: NVDLA_IMG_A8B8G8R8 1x4x28x28 NHWC, line stride 128, surface stride 0, 3584 bytes, EXTERNAL (bindable input 0)');
    expect(rows['tsd-0 buffer']).toBe('tb-0: 2048 bytes at GLOBAL_DRAM + 0');
  });

  it('the origins sidecar: every op slot of every task with its Caffe layers', async () => {
    const s = (await compileLenet()).summary;
    const o = s.origins!;
    expect(o.loadable).toBe('fast-math.nvdla');
    expect(o.tasks.map((t) => [t.interface, t.ops.length])).toEqual([['DLA1', 10], ['EMU1', 1]]);
    expect(o.tasks[0]!.ops.map((x) => `${x.slot} ${x.name} ${x.layers.join('+')}`)).toEqual([
      '0 dc-conv-0 conv1', '1 bias-0 conv1', '2 pdp-0 pool1', '3 dc-conv-1 conv2', '4 bias-1 conv2', '5 pdp-1 pool2', '6 fc-0 ip1', '7 bias-2 ip1+relu1', '8 fc-1 ip2', '9 bias-3 ip2',
    ]);
    expect(o.tasks[1]!.ops[0]).toMatchObject({ slot: 0, name: 'cpu-sm-0', layers: ['prob'] });
  });

  it('the memory plan: each pool buffer from first to last use, LOCAL_DRAM reused', async () => {
    const m = (await compileLenet()).summary.memory!;
    expect(m.ops).toHaveLength(11);
    const local = m.pools.find((p) => p.name === 'LOCAL_DRAM')!;
    expect(local.used).toBe(46080);
    // tb-11 (bias-0's output) is placed at slot 1 and freed when dc-conv-1 (slot 3) is placed: last use slot 2
    expect(local.buffers.find((b) => b.buffer === 'tb-11')).toMatchObject({ offset: 0, size: 18432, first: 1, last: 2, content: false, users: ['bias-0', 'pdp-0'] });
    expect(local.reused).toBeGreaterThan(0);
    const global = m.pools.find((p) => p.name === 'GLOBAL_DRAM')!;
    // weights are copied in at load time and live to the end
    expect(global.buffers.find((b) => b.buffer === 'tb-0')).toMatchObject({ content: true, last: 10, layers: ['conv1'] });
    for (const p of m.pools) {
      const bad = p.buffers.filter((b) => b.first > b.last || b.offset + b.size > p.used);
      expect(bad).toEqual([]);
    }
    expect(m.outside.map((x) => x.buffer)).toEqual(['tb-1', 'tb-22']);
  });

  it("options as nvdla_compiler has them: fp16 has no sdp-scale, opendla-* falls back with a warning", async () => {
    const c = await compileLenet({ cprecision: 'fp16', configtarget: 'opendla-full' });
    const names = c.graph.graph(ENGINE_GRAPH).nodes.filter((n) => n.kind === 'op').map((n) => n.name);
    expect(names).not.toContain('sdp-scale-0');
    expect(c.summary.resolved!.precision).toBe('FP16');
    const w = c.summary.diagnostics.find((d) => d.stage === 'options' && d.severity === 'warning')!;
    expect(w.message).toMatch(/--configtarget: 'opendla-full' is not a target configuration nvdla_compiler knows .* although its help lists it/);
  });

  it('a calibration table dropped with the net, or given as text, gives the calibrated golden; a bad one is a FormatError naming it', async () => {
    const table = file('nvdla/golden/lenet_calib_example.json');
    const sidecar = await compileLenet({ postExtWeights: 'nvdla_compiler' }, { file: table.name }, [table]);
    const golden = goldenBytes('lenet-b1-nv_full-int8-fast-math-calib');
    expect(sidecar.summary.calibration).toBe(table.name);
    expect(sidecar.bytes!.length).toBe(golden.length);
    expect(sidecar.bytes!.findIndex((v, i) => v !== golden[i])).toBe(-1);
    const given = await compileLenet({ postExtWeights: 'nvdla_compiler' }, { file: 'x.json', text: new TextDecoder().decode(table.bytes) });
    expect(given.bytes).toEqual(sidecar.bytes);
    await expect(compileLenet({}, { file: 'bad.json', text: '{ "data": ' })).rejects.toMatchObject({ info: { file: 'bad.json' } });
    await expect(compileLenet({}, { file: 'missing.json' })).rejects.toMatchObject({ info: { file: 'missing.json' } });
  });

  it('a refusal names the layer as nvdla_compiler does; the stages before it stay', async () => {
    const prelu = { name: 'prelu.prototxt', bytes: new TextEncoder().encode('input: "data"\ninput_shape { dim: 1 dim: 1 dim: 4 dim: 4 }\nlayer { name: "p" type: "PReLU" bottom: "data" top: "p" }\n') };
    const doc = await openDocument([prelu, file('nvdla/lenet/lenet_iter_10000.caffemodel')]);
    const c = await serviceOf(doc, 'compile').compile({ options: {}, calibration: null }, 'net');
    expect(c.bytes).toBeNull();
    expect(c.summary.reached).toBe('options');
    const err = c.summary.diagnostics.find((d) => d.severity === 'error')!;
    expect(err.layer).toBe('p');
    expect(err.upstream).toBeTruthy();
    expect(c.summary.graphs).toEqual([]);
  });

  it('a net without its weights cannot compile: a FormatError saying what to drop', async () => {
    const doc = await openDocument([LENET[0]!]);
    await expect(serviceOf(doc, 'compile').compile({ options: {}, calibration: null }, 'net')).rejects.toMatchObject({ info: { message: expect.stringMatching(/drop the \.caffemodel/) } });
  });
});
