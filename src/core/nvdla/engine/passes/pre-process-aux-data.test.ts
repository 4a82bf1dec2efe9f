import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { readDeploy } from '../../network/caffe-files';
import { lenet, synthetic } from '../../../../../test/support/nvdla/fixtures';
import { blobBytes } from '../weights';
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
    const { graph, ctx } = engineFor(deploy, weights, { batch: 1, cprecision });
    const g = runPasses(graph, ctx, [registerBuffersPass, preProcessAuxDataPass]).at(-1)!;
    const conv = g.nodes[0]!;
    if (conv.params.kind !== 'conv') throw new Error('not a conv');
    const aux = g.surfaces.find((s) => s.edge === conv.auxEdges[0])!;
    expect([conv.params.conv.postExtension, aux.dims, aux.size]).toEqual([2, { n: 20, c: 20, h: 5, w: 1 }, size]);
    expect(sha(blobBytes(conv.params.conv.dlaWeights!, aux.size)).slice(0, 16)).toBe(golden);
    if (cprecision === 'int8') expect(conv.params.conv.filterScales).toHaveLength(20);
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
    const src = (w.net.layer as { blobs: { data: Float32Array }[] }[])[0]!.blobs[0]!.data;
    const v = p.rawWeights.values;
    // kernel k reads only channel k
    for (let k = 0; k < 4; k++)
      for (let c = 0; c < 4; c++)
        for (let i = 0; i < 9; i++) expect(v[(k * 4 + c) * 9 + i]).toBe(c === k ? src[k * 9 + i] : 0);
  });
});
