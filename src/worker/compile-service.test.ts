/**
 * The compile methods as the compile view drives them: a Caffe net compiled in the model service,
 * its stage graphs and its loadable reachable through the ordinary calls, the form's choices, a
 * recompile closing what the one before opened, failures as data.
 */
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createModelService } from './service';
import type { CompileProgress, ModelWorkerApi } from './api';

const blob = (bytes: Uint8Array | string) => new Blob([bytes as Uint8Array<ArrayBuffer>]);
const file = (path: string) => ({ name: path.split('/').pop()!, blob: blob(readFileSync(path)) });
const LENET = [file('test/fixtures/nvdla/golden/lenet_n1.prototxt'), file('test/fixtures/nvdla/lenet/lenet_iter_10000.caffemodel')];

let service: ModelWorkerApi;
let caffe: string;

beforeAll(async () => {
  service = createModelService();
  const r = await service.open([...LENET, file('test/fixtures/nvdla/golden/lenet_calib_example.json')]);
  if (!r.ok) throw new Error(r.error.message);
  expect(r.summary.capabilities).toContain('compile');
  caffe = r.docId;
});

describe('compile in the model worker', () => {
  it("the form: nvdla_compiler's options with their real defaults, the JSON files of the set as calibration tables", async () => {
    const f = await service.compileForm(caffe);
    expect(f.defaults).toEqual({ profile: 'fast-math', cprecision: 'int8', configtarget: 'nv_full', quantizationMode: '', batch: 0, informat: 'nhwc', postExtWeights: 'csc' });
    expect(f.specs.map((s) => s.name)).toEqual(['profile', 'cprecision', 'configtarget', 'quantizationMode', 'batch', 'informat', 'postExtWeights']);
    expect(f.specs.find((s) => s.name === 'configtarget')!.choices).toContain('opendla-small');
    expect(f.calibrationFiles).toEqual(['lenet_calib_example.json']);
  });

  it('compiles with progress; the stage graphs and the loadable are documents the graph and loadable calls reach', async () => {
    const steps: CompileProgress[] = [];
    // nvdla_compiler's post-extended weight layout: its loadable byte for byte
    const r = await service.compile(caffe, { options: { postExtWeights: 'nvdla_compiler' }, calibration: null, caffeGraphId: 'net' }, (p) => steps.push(p));
    if (!r.ok) throw new Error(r.error.message);
    // reading, every step of the core's compile (network ... each pass ... emit), opening the loadable, done
    expect(steps.map((s) => s.done)).toEqual(steps.map((_, i) => i));
    expect(steps.every((s) => s.total === 21)).toBe(true);
    expect(steps.map((s) => s.step.replace(/^pass \d+ of 15: /, ''))).toEqual([
      'reading the net and its weights',
      'building the network from the Caffe layers',
      'the canonical graph',
      'the engine graph (generateGraph)',
      ...['registerBuffers', 'preProcessAuxData', 'mergeActivationOperations', 'updateScalingFactors', 'quantizeAuxData', 'fuseOnTheFlyNodes', 'handleLowPrecisionConversions', 'translateAuxData'],
      ...['reserveBuffers', 'splitNodes', 'fuseSubEngineOps', 'boundGraph', 'handleMultiBatch', 'generateDependencyParams', 'resolveMemory'],
      'emit: writing the loadable',
      'opening the loadable',
      'done',
    ]);
    const bytes = (await service.compiledLoadable(caffe))!;
    expect(bytes.length).toBe(446352);
    expect(Buffer.compare(Buffer.from(bytes), readFileSync('test/fixtures/nvdla/golden/lenet-b1-nv_full-int8-fast-math.nvdla'))).toBe(0);
    expect(JSON.parse(r.originsText!).tasks[0].ops[0].layers).toEqual(['conv1']);
    const engine = await service.graphForView(r.graphDocId!, 'engine');
    expect(engine.graph.nodes.filter((n) => n.kind === 'op').map((n) => n.name)).toContain('sdp-scale-0');
    const found = await service.find(r.graphDocId!, 'pass:14', 'dc-conv-0');
    expect(found.total).toBeGreaterThan(0);
    const details = await service.nodeDetails(r.graphDocId!, 'canonical', 1);
    expect(details.extra.find((x) => x.name === 'Caffe layers')!.value).toBe('conv1');
    const overview = await service.loadableOverview(r.loadableDocId!);
    expect(overview.tasks.map((t) => t.ops.length)).toEqual([10, 1]);

    // the tables of the canonical graph and the first step's engine graph come with the result; a
    // pass's tables when asked for, matching its graph node for node
    expect(Object.keys(r.summary.stages).sort()).toEqual(['canonical', 'engine']);
    const pass14 = await service.compiledStage(r.graphDocId!, 'pass:14');
    const graph14 = (await service.graphForView(r.graphDocId!, 'pass:14')).graph;
    expect([pass14.origins.length, pass14.edgeKinds.length]).toEqual([graph14.nodes.length, graph14.edges.length]);
    expect(pass14.origins[graph14.nodes.findIndex((n) => n.name === 'dc-conv-0')]).toEqual(r.summary.caffeOrigins[1]);
    await expect(service.compiledStage(r.graphDocId!, 'pass:99')).rejects.toMatchObject({ workerError: { kind: 'internal', message: expect.stringMatching(/has no graph 'pass:99'/) } });

    // a recompile closes the documents of the one before; the step the view shows comes built with it
    const again = await service.compile(caffe, { options: { cprecision: 'fp16' }, calibration: { file: 'lenet_calib_example.json' }, caffeGraphId: 'net', shown: 'resolveMemory' });
    if (!again.ok) throw new Error(again.error.message);
    expect(Object.keys(again.summary.stages).sort()).toEqual(['canonical', 'pass:14']);
    await expect(service.graphForView(r.graphDocId!, 'engine')).rejects.toMatchObject({ workerError: { kind: 'internal' } });
    await expect(service.compiledStage(r.graphDocId!, 'pass:14')).rejects.toMatchObject({ workerError: { kind: 'cancelled', message: expect.stringMatching(/a newer compile replaced them/) } });
    // fp16 ignores the table, with a warning saying so
    expect(again.summary.diagnostics.some((d) => /calibration table only matters for int8/.test(d.message))).toBe(true);
  });

  it('a new compile of the same net (an option changed) cancels the one running at its next step; the new one completes', async () => {
    let second: ReturnType<ModelWorkerApi['compile']> | null = null;
    const seen: string[] = [];
    const first = service.compile(caffe, { options: {}, calibration: null, caffeGraphId: 'net' }, (p) => {
      seen.push(p.step);
      // the user changes the precision while the first compile is in its passes
      if (!second && /registerBuffers/.test(p.step)) second = service.compile(caffe, { options: { cprecision: 'fp16' }, calibration: null, caffeGraphId: 'net' });
    });
    const a = await first;
    expect(a).toMatchObject({ ok: false, error: { kind: 'cancelled', file: 'lenet_n1.prototxt' } });
    // it stopped at the step after the one where the new compile arrived, not at the end
    expect(seen.some((s) => /emit/.test(s))).toBe(false);
    expect(second).not.toBeNull();
    const b = await second!;
    if (!b.ok) throw new Error(b.error.message);
    expect(b.summary.resolved?.precision).toBe('FP16');
    // the bytes kept are the last compile's
    expect((await service.compiledLoadable(caffe))!.length).toBe(readFileSync('test/fixtures/nvdla/golden/lenet-b1-nv_full-fp16-fast-math.nvdla').length);
  });

  it('a calibration table the user picked (a Blob) is read in the worker; a bad one fails as data naming it', async () => {
    const good = await service.compile(caffe, { options: {}, calibration: { file: 'mine.json', blob: blob(readFileSync('test/fixtures/nvdla/golden/lenet_calib_example.json')) }, caffeGraphId: 'net' });
    expect(good.ok && good.summary.calibration).toBe('mine.json');
    const bad = await service.compile(caffe, { options: {}, calibration: { file: 'bad.json', blob: blob('{ "conv1": ') }, caffeGraphId: 'net' });
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.file).toBe('bad.json');
  });

  it('a refused net: the summary says why and names the layer; no loadable', async () => {
    const r0 = await service.open([{ name: 'prelu.prototxt', blob: blob('input: "data"\ninput_shape { dim: 1 dim: 1 dim: 4 dim: 4 }\nlayer { name: "p" type: "PReLU" bottom: "data" top: "p" }\n') }, LENET[1]!]);
    if (!r0.ok) throw new Error(r0.error.message);
    const r = await service.compile(r0.docId, { options: {}, calibration: null, caffeGraphId: 'net' });
    if (!r.ok) throw new Error(r.error.message);
    expect([r.graphDocId, r.loadableDocId, await service.compiledLoadable(r0.docId)]).toEqual([null, null, null]);
    expect(r.summary.diagnostics.find((d) => d.severity === 'error')!.layer).toBe('p');
  });
});
