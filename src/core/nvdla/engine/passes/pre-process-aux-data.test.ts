import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readDeploy } from '../../network/caffe-files';
import { floats, subs } from '../../network/caffe-input';
import { lenet, synthetic } from '../../../../../test/support/nvdla/fixtures';
import { blobBytes } from '../weights';
import { float32ToHalfTiesAway } from '../../half-ties-away';
import { preProcessAuxDataPass } from './pre-process-aux-data';
import { registerBuffersPass } from './register-buffers';
import { engineFor, runPasses } from '../../../../../test/support/nvdla/passes';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

describe('pass preProcessAuxData', () => {
  const { deploy, weights } = lenet();

  it.each([
    // data_sha256 of blob tb-0 in the golden's flatc dump (lenet-b1-nv_full-<precision>-fast-math.json)
    ['int8', '9c8654987d596f4e', 2048],
    ['fp16', 'b998f8c06be0b938', 4096],
  ])('LeNet conv1 (image input, %s): quantised, padded to 4 channels, pre- and post-extended: the golden tb-0 bytes', (cprecision, golden, size) => {
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1, cprecision, postExtWeights: 'nvdla_compiler' });
    const r = preProcessAuxDataPass.run(runPasses(graph, ctx, [registerBuffersPass]).at(-1)!, ctx);
    const conv = r.graph.nodes[0]!;
    if (conv.params.kind !== 'conv') throw new Error('not a conv');
    const aux = r.graph.surfaces.find((s) => s.edge === conv.auxEdges[0])!;
    expect([conv.params.conv.postExtension, aux.dims, aux.size]).toEqual([2, { n: 20, c: 20, h: 5, w: 1 }, size]);
    expect(sha(blobBytes(conv.params.conv.dlaWeights!, aux.size)).slice(0, 16)).toBe(golden);
    if (cprecision === 'int8') expect(conv.params.conv.filterScales).toHaveLength(20);
    // and it says what that layout does on the hardware
    expect(r.diagnostics.map((d) => [d.severity, d.layerIndex, d.message])).toEqual([
      [
        'warning',
        1, // conv1's origin (the input layer is 0)
        "dc-conv-0: image weights post-extended by 2 are laid out as nvdla_compiler lays them (--post-ext-weights nvdla_compiler: 3 rows apart a stripe): the hardware reads a stripe as 2 consecutive kernel rows, so with nvdla_compiler's layout it multiplies input rows 0..4 by kernel rows 0, 1, 3, 4, 4, not the network's convolution",
      ],
    ]);
  });

  it.each(['int8', 'fp16'])("LeNet conv1 (%s) by default: the CSC's layout, stripe s holding kernel rows 2s and 2s + 1, and a warning that it is not nvdla_compiler's", (cprecision) => {
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1, cprecision });
    const r = preProcessAuxDataPass.run(runPasses(graph, ctx, [registerBuffersPass]).at(-1)!, ctx);
    const conv = r.graph.nodes[0]!;
    if (conv.params.kind !== 'conv') throw new Error('not a conv');
    const p = conv.params.conv;
    // pre-extended KCRS (20 kernels, 20 channels, 5 rows, width 1), in kernel groups of atomic K (32; 16 in fp16)
    const pre = p.rawWeights.values;
    expect(p.rawWeights.type).toBe(cprecision === 'int8' ? 'INT8' : 'FLOAT');
    const rt = (v: number) => (cprecision === 'int8' ? v : float32ToHalfTiesAway(v));
    const kf = cprecision === 'int8' ? 32 : 16;
    const want: number[] = [];
    for (let g0 = 0; g0 < 20; g0 += kf) {
      const ks = Array.from({ length: Math.min(kf, 20 - g0) }, (_, i) => g0 + i);
      for (const rows of [[0, 1], [2, 3], [4]]) for (const k of ks) for (const r0 of rows) for (let c = 0; c < 20; c++) want.push(rt(pre[r0 + 5 * (c + 20 * k)]!));
    }
    expect(p.dlaWeights!.count).toBe(2000);
    const got = Array.from(p.dlaWeights!.values.subarray(0, 2000));
    expect(got.map((v, i) => (v === want[i] ? null : i)).filter((i) => i !== null)).toEqual([]);
    expect(r.diagnostics.map((d) => [d.severity, d.layerIndex, d.upstreamBehaviour, d.message, d.studio])).toEqual([
      [
        'warning',
        1, // conv1's origin (the input layer is 0)
        'wrong-result',
        'dc-conv-0: image weights post-extended by 2 are laid out as the convolution buffer reads them (2 consecutive kernel rows a stripe), not 3 rows apart as nvdla_compiler lays them: this weight blob differs from nvdla_compiler\'s (--post-ext-weights nvdla_compiler writes its layout)',
        "the hardware reads a stripe as 2 consecutive kernel rows, so with nvdla_compiler's layout it multiplies input rows 0..4 by kernel rows 0, 1, 3, 4, 4; NPU Studio lays the rows out as the CSC reads them, so the convolution is the network's",
      ],
    ]);
  });

  it('nv_small: the 8-channel atom leaves no room for post-extension', () => {
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1, configtarget: 'nv_small' });
    const conv = runPasses(graph, ctx, [registerBuffersPass, preProcessAuxDataPass]).at(-1)!.nodes[0]!;
    expect(conv.params.kind === 'conv' && [conv.params.conv.postExtension, conv.params.conv.dlaWeights]).toEqual([0, null]);
  });

  it('a grouped (depthwise) convolution becomes one convolution over all channels, zeros outside its group', () => {
    const d = readDeploy('input: "data"\ninput_shape { dim: 1 dim: 4 dim: 6 dim: 6 }\nlayer { name: "dw" type: "Convolution" bottom: "data" top: "dw" convolution_param { num_output: 4 group: 4 kernel_size: 3 } }', 'dw.prototxt');
    const w = synthetic(d);
    const { graph, ctx } = engineFor(d, w, { cprecision: 'fp16', informat: 'nchw' });
    const g = runPasses(graph, ctx, [registerBuffersPass, preProcessAuxDataPass]).at(-1)!;
    const conv = g.nodes[0]!;
    if (conv.params.kind !== 'conv') throw new Error('not a conv');
    const p = conv.params.conv;
    expect([p.numGroups, p.rawWeights.count]).toEqual([1, 4 * 4 * 9]);
    const src = floats(subs(subs(w.net, 'layer')[0], 'blobs')[0]!.data)!;
    const v = p.rawWeights.values;
    // kernel k reads only channel k
    for (let k = 0; k < 4; k++)
      for (let c = 0; c < 4; c++)
        for (let i = 0; i < 9; i++) expect(v[(k * 4 + c) * 9 + i]).toBe(c === k ? src[k * 9 + i] : 0);
  });
});
