import { describe, expect, it } from 'vitest';
import { ENGINE_PASSES } from '../engine/passes/pipeline';
import { engineFor, runPasses } from '../../../../test/support/nvdla/passes';
import { CIFAR_GOLDENS, LENET_GOLDENS, goldenBytes, goldenCase } from '../../../../test/support/nvdla/golden';
import { loadableDifferences, readLoadable } from '../../../../test/support/nvdla/read-loadable';
import { emitLoadable } from './emit';
import { serializeLoadable } from './serialize';

function compile(name: string) {
  const c = goldenCase(name);
  const { graph, ctx } = engineFor(c.deploy, c.weights, c.options);
  const g = runPasses(graph, ctx, [...ENGINE_PASSES]).at(-1)!;
  return emitLoadable(g, ctx);
}

describe('emit + serialize: the loadables nvdla_compiler writes', () => {
  for (const name of [...LENET_GOLDENS, ...CIFAR_GOLDENS]) {
    it(`${name}: semantically equivalent to the golden (every list, every blob byte), and byte-identical`, () => {
      const bytes = serializeLoadable(compile(name).loadable);
      const golden = goldenBytes(name);
      expect(loadableDifferences(readLoadable(bytes), readLoadable(golden))).toEqual([]);
      // the stronger target: same FlatBuffers layout (1.6 vtables, upstream's build order) and pool-contents order
      const firstDiff = bytes.findIndex((v, i) => v !== golden[i]);
      expect({ length: bytes.length, firstDiff }).toEqual({ length: golden.length, firstDiff: -1 });
    });
  }

  it('LeNet int8: the emitted op slots read as the golden summary (conv1 image input, bias requantisation, EMU softmax)', () => {
    const r = compile('lenet-b1-nv_full-int8-fast-math');
    const dla = r.tasks[0]!;
    if (dla.interface !== 'DLA1') throw new Error('task 0 is not DLA');
    expect(dla.networkDesc).toMatchObject({ dependency_graph_index: 5, operation_desc_index: 6, surface_desc_index: 7, lut_data_index: 8, num_operations: 10, num_addresses: 10, op_head: [-1, 0, 1, 2, -1, -1] });
    const conv1 = dla.ops[0]!.desc;
    if (conv1.kind !== 'CONV') throw new Error('slot 0 is not a conv');
    expect([conv1.op.data_format, conv1.op.kernel_width_csc, conv1.op.kernel_height_csc, conv1.op.kernel_channel_csc, conv1.op.post_extension, conv1.op.bytes_per_kernel]).toEqual([12, 1, 5, 20, 1, 100]);
    const bias0 = dla.ops[1]!.desc;
    if (bias0.kind !== 'SDP') throw new Error('slot 1 is not an SDP');
    expect(bias0.op.out_cvt).toEqual({ scale: 19669, truncate: 29, offset: 0, enable: 1 });
    const emu = r.tasks[1]!;
    if (emu.interface !== 'EMU1') throw new Error('task 1 is not EMU');
    expect(emu.ops[0]!.src).toMatchObject({ addressIndex: 2, addressIndexOffset: 45056, size: 32, channel: 10 });
    expect(r.loadable.relocs.map((x) => [x.addressId, x.writeId, x.offset, x.subInterface, x.relocType])).toEqual([
      [3, 8, 116, 4, 1],
      [3, 8, 120, 4, 2],
      [4, 13, 274, 4, 1],
      [4, 13, 278, 4, 2],
    ]);
  });
});
